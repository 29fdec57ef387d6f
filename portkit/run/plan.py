"""A run's plan: walk, read what is project-wide, and name each selected file's cache entry; then collect.

`plan_run` reads what every file's result depends on (the macro table, the walked paths, clang's
environment) from every walked file, so a file's result is the same whichever files are selected
with it; `PlannedRun.collect` makes each selected file's result (`Collected`, the finish's input).
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import sys
from typing import Iterable, Iterator

from portkit.analyze import Context
from portkit.analyze.registry import arguments_read, path_tails, project_files, roles_read
from portkit.parse import MacroTable
from portkit.included import included_headers
from portkit.parse.macros import FileDefinitions, macro_table
from portkit.rules import load_database
from portkit.run.cache import FileResult, ScanCache, cache_salt
from portkit.run.engines import clang_job, log_engine
from portkit.run.file import ANALYZER_NAMES, Job
from portkit.run.request import RunRequest
from portkit.run.statindex import Scanned, StatIndex, scan_text
from portkit.run.workers import Workers, file_results
from portkit.settings import RunSettings
from portkit.walk import SourceFile, TooLarge, WalkWarning, discover, read_bytes


_PROGRESS_THRESHOLD = 50


def project_macros(files: Iterable[SourceFile], contents: FileContents) -> MacroTable:
    """The macro table of every source file of the run: read once, before the workers start."""
    def per_file() -> Iterator[FileDefinitions]:
        for file in files:
            if file.file_type == "source":
                yield contents.definitions(file.path)
    return macro_table(per_file())


class FileContents:
    """Each file's SHA-256, #defines and quoted includes: from the stat index when the file is unchanged, else read."""

    def __init__(self, index: StatIndex | None, limit: int):
        self.index = index
        self._read = functools.partial(read_bytes, limit=limit)
        self._digests: dict[str, str] = {}  # files read in this run (the index may not trust a fresh edit)
        self._scans: dict[str, Scanned] = {}  # read for their includes by the walk, until the macro table takes them

    def _fresh(self, path: str, digested: bool = True) -> tuple[str | None, Scanned, bytes | None]:
        """The file's SHA-256 (unless not `digested` and there is no index to keep it), #defines, includes and bytes."""
        try:
            if self.index is not None:
                digest, scanned, data = self.index.record(path, self._read)
            else:
                data = self._read(path)
                digest, scanned = hashlib.sha256(data).hexdigest() if digested else None, scan_text(data)
        except (OSError, TooLarge):
            return None, ((), ()), None  # reported when the file itself is processed
        if digest is not None:
            self._digests[path] = digest
        return digest, scanned, data

    def _scanned(self, path: str) -> Scanned:
        known = self.index.known(path) if self.index is not None else None
        # Without an index (no cache) nothing asks for the file's SHA-256.
        return known[1] if known is not None else self._fresh(path, digested=False)[1]

    def includes(self, path: str) -> tuple[str, ...]:
        """The names the file's quoted #includes spell (what the walk's second round follows)."""
        scanned = self._scans[path] = self._scans.get(path) or self._scanned(path)
        return tuple(os.fsdecode(name) for name in scanned[1])

    def definitions(self, path: str) -> FileDefinitions:
        return (self._scans.pop(path, None) or self._scanned(path))[0]

    def content(self, path: str, want_data: bool) -> tuple[str | None, bytes | None]:
        """The SHA-256 of the file's bytes (None: unreadable), and the bytes when read or wanted."""
        if not want_data and path in self._digests:
            return self._digests[path], None
        known = self.index.known(path) if self.index is not None else None
        if known is not None and not want_data:
            return known[0], None
        digest, _, data = self._fresh(path)
        return digest, data


def _with_progress(results: Iterator[FileResult], total: int, enabled: bool) -> Iterator[FileResult]:
    if not enabled or total < _PROGRESS_THRESHOLD or not sys.stderr.isatty():
        yield from results
        return
    from rich.console import Console
    from rich.progress import Progress

    # On stderr whatever stdout is: `scan --format json > f` shows it too (rich's default console is stdout's).
    with Progress(transient=True, console=Console(stderr=True)) as progress:
        task = progress.add_task("scanning", total=total)
        for result in results:
            progress.advance(task)
            yield result


@dataclasses.dataclass
class Collected:
    """The per-file stage of a run, before what only the whole project shows: `finish_run`'s input.

    `context` is the run's context without project-wide names (rules, target, every walked
    path); `results` are the selected files' results in walk order; `walked` every file walked.
    """

    context: Context
    results: list[FileResult]
    walk_warnings: list[WalkWarning]
    walked: list[SourceFile] = dataclasses.field(default_factory=list)
    salt: str = ""  # the cache salt: portkit's code, the rules, the target, the engine, the macro table
    macros: MacroTable | None = None
    job: Job | None = None  # the job that made the results (to read a summary-only run's sites back)
    entries: list[tuple[SourceFile, str | None]] = dataclasses.field(default_factory=list)  # each result's cache entry
    context_only: frozenset[str] = frozenset()  # results that only lend their definitions: never reported

    @property
    def summary_only(self) -> bool:
        """Whether the results carry tallies, not findings."""
        return self.job is not None and self.job.summary


@dataclasses.dataclass
class PlannedRun:
    """A run after its walk, before any file is parsed: the job, the selected files and their cache entries.

    `fingerprint` names everything a summary of the run depends on, so that a caller holding a summary
    made under the same fingerprint can use it without collecting anything (portkit/report/memo.py).
    """

    job: Job
    walked: list[SourceFile]
    walk_warnings: list[WalkWarning]
    chosen: list[SourceFile]
    datas: list[bytes | None]  # each chosen file's bytes, where read already (kept sources)
    entries: list[str | None]  # each chosen file's cache entry (None: no cache, or unreadable)
    contents: FileContents
    salt: str
    jobs: int
    progress: bool = False  # show a progress bar (on a terminal)
    context_only: frozenset[str] = frozenset()  # files read for their definitions only (included.py)

    def fingerprint(self) -> str | None:
        """The salt, the options, and each selected file's path, kind and cache entry; None when some file has
        no entry (no cache, unreadable, too large: its diagnostics are in no entry), and with the clang engine."""
        if self.job.cache is None or None in self.entries or self.job.clang is not None:
            return None  # with clang, a unit's result also depends on headers outside the walk (checked per lookup)
        digest = hashlib.sha256(f"{self.salt}|{self.job.summary}|{self.job.max_file_size}".encode())
        for file, entry in zip(self.chosen, self.entries):
            digest.update(f"\0{file.path}\0{file.file_type}\0{entry}".encode("utf-8", "surrogateescape"))
        digest.update(json.dumps(self.walk_warnings).encode("utf-8", "surrogateescape"))
        return digest.hexdigest()

    def collect(self, workers: Workers | None = None) -> Collected:
        """Each selected file's result (in parallel, cached): `finish_run`'s input. `workers`: where to keep
        the worker processes for a later pass."""
        job = self.job
        results = list(_with_progress(file_results(job, self.chosen, self.datas, self.entries, self.jobs, workers),
                                      len(self.chosen), self.progress))
        self.save_index()
        if job.clang is not None:
            log_engine(results, job.is_clang_unit)
        return Collected(job.context, results, self.walk_warnings, self.walked, self.salt, job.macros, job,
                         list(zip(self.chosen, self.entries)), self.context_only)

    def save_index(self) -> None:
        if self.contents.index is not None:
            self.contents.index.save(f.path for f in self.walked)


def plan_run(settings: RunSettings, request: RunRequest = RunRequest()) -> PlannedRun:
    """Walk, read what is project-wide, and name each selected file's cache entry (`request.select` keeps
    all by default). What is project-wide always comes from every walked file (RunRequest)."""
    rules = request.rules if request.rules is not None else load_database(settings.rule_files)
    contents = FileContents(StatIndex(settings.paths) if settings.cache else None, settings.max_file_size)
    # The walk follows sources' quoted includes to files no extension names (memory.nvidia.hpp.inc); their
    # names come with each file's #defines, read once here for the macro table below.
    files, walk_warnings = discover(settings.paths, settings.extensions, settings.excludes, contents.includes)
    clang = clang_job(settings, rules, files) if settings.engine == "clang" else None
    # The project headers named files include: their definitions count, their findings are not reported.
    context_only = included_headers(settings.paths, files, str(settings.root), settings.max_file_size) \
        if settings.named_paths else []
    files = sorted(files + context_only)
    # Counted and not stored, findings are never converted: their fixes would be built for nothing.
    counts_only = request.summary_only and clang is None and not settings.cache
    base = Context(rules=rules, target=settings.target, prefer_roc=request.prefer_roc,
                   project_paths=path_tails(f.path for f in files), project_files=project_files(f.path for f in files),
                   fixes=not counts_only)
    macros = project_macros(files, contents)
    salt = cache_salt(rules, settings, request.prefer_roc, clang.env.fingerprint if clang else "", macros.fingerprint(),
                      (f.path for f in files if rules.header(os.path.basename(f.path)) is not None))
    analyzers = None if settings.cache else request.analyzers
    job = Job(base, rules.known_names() | ANALYZER_NAMES, request.keep_sources, settings.engine, clang,
              settings.max_file_size, macros, ScanCache(salt) if settings.cache else None,
              request.summary_only and clang is None, request.wanted,
              analyzers, roles_read(analyzers), arguments_read(analyzers))
    select = request.select
    chosen = files if select is None else [f for f in files if select(f.path)]
    datas: list[bytes | None] = []
    entries: list[str | None] = []
    for file in chosen:
        content, data = contents.content(file.path, request.keep_sources) if job.cache is not None else (None, None)
        datas.append(data)
        entries.append(job.cache.key(file, content, job.cache_key(file)) if job.cache is not None else None)
    warnings = walk_warnings if select is None else [w for w in walk_warnings if select(w[0])]
    return PlannedRun(job, files, warnings, chosen, datas, entries, contents, salt, settings.jobs, request.progress,
                      frozenset(f.path for f in context_only))


def collect_run(settings: RunSettings, request: RunRequest = RunRequest(), workers: Workers | None = None) -> Collected:
    """Walk, then parse and analyse the files `request.select` keeps (all by default; in parallel, cached)."""
    return plan_run(settings, request).collect(workers)
