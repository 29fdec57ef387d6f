"""The pipeline every command runs: walk, read and parse each file once (in parallel, cached), analyze.

scan, report, convert, shim and check all start from `run_pipeline`, so they
always agree on what was found. Work per file happens in `process_file`, which
takes everything it needs as arguments: the pipeline runs in-process, or in a
pool of worker processes that each receive the job once.

A run has two stages: `collect_pipeline` (walk, then each selected file's result)
and `finish_pipeline` (what only the whole project shows). `scan --shard` collects
a part of the files; `merge` finishes the parts together, like one run.
"""
from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import dataclasses
import functools
import hashlib
import itertools
import json
import multiprocessing
import os
import pickle  # nosec B403: only between this process and its own workers
import re
import signal
import sys
from concurrent.futures import ProcessPoolExecutor
from typing import Callable, Iterable, Iterator

from portkit.analyze import Context, Select, TextFile, analyze
from portkit.analyze.registry import Names, arguments_read, path_tails, roles_read
from portkit.analyze.hazards import INTERESTING_NAMES, WARP_LITERALS
from portkit.analyze.language import DIMENSION_NAMES, HALF_TYPES
from portkit.analyze.names import is_interesting, needs_aliases, resolve_pending
from portkit.analyze.preamble import IMPLICIT_CUDA_HEADER, in_cpp_block, runtime_for_project, runtime_needs
from portkit.cache import FileResult, ScanCache, cache_salt
from portkit.codes import HIP_PREAMBLE
from portkit.engines import CLANG_UNITS, ClangJob, clang_job, digests, findings_of_headers, log_engine
from portkit.model import Finding, IncludeFacts, ParsedFile, Role, Severity
from portkit.parse import MacroTable, compile_queries, parse_source, prepare_source
from portkit.parse.prepare import Prepared
from portkit.parse.recovery import tree_shape
from portkit.parse.macros import FileDefinitions, file_definitions, macro_table
from portkit.parse.clang_merge import ClangParse
from portkit.rules import RuleDatabase, Target, load_database
from portkit.scope import ProjectNames
from portkit.settings import RunSettings, available_cpus
from portkit.statindex import StatIndex
from portkit.tally import Tally, dropped, project_tally, tally
from portkit.walk import DEFAULT_MAX_FILE_SIZE, SourceFile, TooLarge, WalkWarning, classify, discover, read_bytes, read_source

# Below this many files, or this many bytes, a process pool costs more than it saves.
_POOL_THRESHOLD = 16
_POOL_BYTES = 64 << 10
_PROGRESS_THRESHOLD = 50
# Diagnostics that mean a file was not looked at: a convert over it is not complete.
UNCONVERTED = ("unreadable", "too-large")

# Names the parser keeps for the analyzers besides those a rule knows.
ANALYZER_NAMES = INTERESTING_NAMES | DIMENSION_NAMES | HALF_TYPES


@dataclasses.dataclass(frozen=True, order=True)
class Diagnostic:
    """Something about a file as a whole: skipped, unreadable, parsed with errors."""

    path: str
    message: str
    reason: str = "unreadable"  # "unreadable", "too-large", "skipped", "encoding", "engine", "parse-error", "ignore-file"
    severity: Severity = Severity.WARNING


@dataclasses.dataclass(frozen=True)
class FileSummary:
    path: str
    file_type: str
    lines: int
    error_line: int | None = None
    encoding: str = "utf-8"
    shape: str = ""  # parsed with errors: the tree's structure (portkit/parse/recovery.py:tree_shape)


@dataclasses.dataclass
class ScanResult:
    rules: RuleDatabase
    target: Target
    files: list[FileSummary]
    findings: list[Finding]
    diagnostics: list[Diagnostic]
    sources: dict[str, bytes]  # kept only when asked (convert needs the bytes)
    context: Context
    # Per file, the `// portkit: ignore[...]` comments: (line, codes; empty for all).
    suppressions: dict[str, tuple[tuple[int, frozenset[str]], ...]] = dataclasses.field(default_factory=dict)
    macros: MacroTable | None = None  # the project's macro table, for parsing its files again (analyze_bytes)
    # A summary-only run's findings, counted per file (portkit/tally.py): it has these and no `findings`.
    tallies: dict[str, Tally] = dataclasses.field(default_factory=dict)
    summary_only: bool = False
    # A summary-only run's findings, read back from the cache file by file when iterated (None: not kept).
    sites: Sites | None = None

    def file_tallies(self) -> dict[str, Tally]:
        """Each file's findings counted: a summary-only run's, or counted now (only reports need them)."""
        if self.summary_only:
            return self.tallies
        return {path: tally(group) for path, group in itertools.groupby(self.findings, key=lambda f: f.path)}

    def read_paths(self) -> list[str]:
        """Every file the run looked at, read or not: what an output must never overwrite."""
        return [f.path for f in self.files] + [d.path for d in self.diagnostics]

    def unreadable(self) -> list[str]:
        return [d.path for d in self.diagnostics if d.reason == "unreadable"]

    def unread(self) -> list[str]:
        """Files the run was asked to look at but could not read (or that are too large): a
        conversion that skipped them silently would look complete."""
        return [f"{d.path}: {d.message}; not converted" for d in self.diagnostics if d.reason in UNCONVERTED]

    def findings_by_path(self) -> dict[str, list[Finding]]:
        grouped: dict[str, list[Finding]] = {}
        for finding in self.findings:
            grouped.setdefault(finding.path, []).append(finding)
        return grouped


Wanted = Callable[[Finding], bool]  # the findings a caller acts on


@dataclasses.dataclass(frozen=True)
class Job:
    """What every file's processing needs; a worker process receives it once."""

    context: Context  # provisional: project-wide names are applied by the parent afterwards
    known: frozenset[str]
    keep_sources: bool
    engine: str = "tree-sitter"
    clang: ClangJob | None = None
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    macros: MacroTable | None = None  # the project's #defines the parser sees through (None: each file's own)
    cache: ScanCache | None = None  # where fresh results are stored (by the process that made them)
    summary: bool = False  # results carry their findings counted, not the findings (portkit/tally.py)
    # The findings the caller acts on (convert: those it edits or marks): the others are dropped where they
    # are made, after the cache stored them, instead of being sent to the parent for nothing.
    wanted: Wanted | None = None
    # Which analyzers run (analyze.registry.Select; all by default): those that can make a finding `wanted`
    # keeps, when no cache stores every finding for a later run.
    analyzers: Select | None = None
    # The parser's optional roles those analyzers read (parse.treesitter.OPTIONAL_ROLES; None: all of them).
    roles: frozenset[Role] | None = None
    # The calls whose argument texts those analyzers read besides the rules' (None: every call's).
    argument_names: tuple[Names, ...] | None = None

    def slimmed(self, result: FileResult) -> FileResult:
        """A fresh or cached result as this run's parent needs it."""
        if self.summary:
            return result.summarized()
        return result.keeping(self.wanted) if self.wanted is not None else result

    @property
    def arguments_read(self) -> Callable[[str], bool] | None:
        """Whether the parser spells out the arguments of a call of a name: called for every kept call."""
        return None if self.argument_names is None else _argument_reader(self.context.rules, self.argument_names)

    @property
    def keep(self) -> Callable[[str], bool]:
        """Whether the parser keeps a name: called for every identifier of every file."""
        return _keep(self.known)

    def is_clang_unit(self, path: str) -> bool:
        return self.clang is not None and path.lower().endswith(CLANG_UNITS)

    def cache_key(self, file: SourceFile) -> bytes:
        """What besides its bytes a file's result depends on: with clang, a unit's flags and precompiled headers."""
        if self.clang is None or not self.is_clang_unit(file.path):
            return b""
        prefix = self.clang.prefixes.get(os.path.realpath(file.path))
        return json.dumps([self.clang.flags(file.path), list(prefix.lines) if prefix else []]).encode()


@functools.lru_cache(maxsize=2)
def _keep(known: frozenset[str]) -> Callable[[str], bool]:
    """One function per set of names, whichever job asks: the parser remembers its answers per function
    (treesitter._kept_spellings), so a later pass over the same names starts with them."""
    return functools.partial(is_interesting, known=known)


@functools.lru_cache(maxsize=4)
def _argument_reader(rules: RuleDatabase, names: tuple[Names, ...]) -> Callable[[str], bool]:
    """`RuleDatabase.reads_arguments` or one of `names`, remembered per name (asked at every kept call)."""
    answers: dict[str, bool] = {}

    def reads(name: str) -> bool:
        answer = answers.get(name)
        if answer is None:
            answer = answers[name] = rules.reads_arguments(name) or any(
                n.match(name) is not None if isinstance(n, re.Pattern) else name in n for n in names)
        return answer
    return reads


def parse_bytes(path: str, data: bytes, job: Job, prepared: Prepared | None = None) -> ParsedFile:
    rules = job.context.rules
    return parse_source(path, data, keep=job.keep, literals=WARP_LITERALS, api=rules.is_api,
                        cuda_declared=rules.is_cuda_declared, hip_alias=rules.is_hip_alias, macros=job.macros,
                        prepared=prepared, hip_pointer=rules.is_hip_pointer, roles=job.roles,
                        arguments=job.arguments_read)


def project_macros(files: Iterable[SourceFile], contents: FileContents) -> MacroTable:
    """The macro table of every source file of the run: read once, before the workers start."""
    def per_file() -> Iterator[FileDefinitions]:
        for file in files:
            if file.file_type == "source":
                yield contents.definitions(file.path)
    return macro_table(per_file())


class FileContents:
    """Each file's SHA-256 and #defines: from the stat index when the file is unchanged, else read."""

    def __init__(self, index: StatIndex | None, limit: int):
        self.index = index
        self._read = functools.partial(read_bytes, limit=limit)
        self._digests: dict[str, str] = {}  # files read in this run (the index may not trust a fresh edit)

    def _fresh(self, path: str, digested: bool = True) -> tuple[str | None, FileDefinitions, bytes | None]:
        """The file's SHA-256 (unless not `digested` and there is no index to keep it), #defines and bytes."""
        try:
            if self.index is not None:
                digest, defined, data = self.index.record(path, self._read)
            else:
                data = self._read(path)
                digest, defined = hashlib.sha256(data).hexdigest() if digested else None, file_definitions(data)
        except (OSError, TooLarge):
            return None, (), None  # reported when the file itself is processed
        if digest is not None:
            self._digests[path] = digest
        return digest, defined, data

    def definitions(self, path: str) -> FileDefinitions:
        known = self.index.known(path) if self.index is not None else None
        # Without an index (no cache) nothing asks for the file's SHA-256.
        return known[1] if known is not None else self._fresh(path, digested=False)[1]

    def content(self, path: str, want_data: bool) -> tuple[str | None, bytes | None]:
        """The SHA-256 of the file's bytes (None: unreadable), and the bytes when read or wanted."""
        if not want_data and path in self._digests:
            return self._digests[path], None
        known = self.index.known(path) if self.index is not None else None
        if known is not None and not want_data:
            return known[0], None
        digest, _, data = self._fresh(path)
        return digest, data


def _file_context(parsed: ParsedFile, job: Job) -> Context:
    """The run's context with the file's own definitions: other files' come later."""
    aliases = tuple((o.text, o.detail) for o in parsed.occurrences if o.role is Role.NAMESPACE_ALIAS)
    return dataclasses.replace(job.context, project_names=parsed.definitions, project_declared=parsed.declared,
                               aliases=aliases)


def _with_engine(parsed: ParsedFile, data: bytes, job: Job) -> ClangParse:
    """With clang, the unit's names resolved, and those of the project headers it includes."""
    if job.clang is None or not job.is_clang_unit(parsed.path):
        return ClangParse(parsed)
    from portkit.parse.clang_merge import with_clang_names

    return with_clang_names(parsed, data, job.clang.flags(parsed.path), job.clang.env, job.clang.project_headers,
                            functools.partial(_reparse, job), job.clang.prefixes.get(os.path.realpath(parsed.path)))


def _reparse(job: Job, path: str, data: bytes) -> ParsedFile:
    return parse_bytes(path, data, job)


def process_file(job: Job, file: SourceFile, data: bytes | None = None) -> FileResult:
    """Read (unless given the bytes), parse and analyse one file: the unit of parallel work."""
    read = read_source(file.path, job.max_file_size) if data is None else classify(data)
    if read.data is None:
        return FileResult(file, warning=read.warning, problem=read.problem)
    kept = read.data if job.keep_sources else None
    lines = read.data.count(b"\n") + (0 if read.data.endswith(b"\n") or not read.data else 1)
    if file.file_type != "source":
        text = read.data.decode(read.encoding, "replace")
        return FileResult(file, lines=text.count("\n"), encoding=read.encoding, warning=read.warning,
                          problem=read.problem, data=kept, findings=tuple(analyze(TextFile(file.path, file.file_type, text),
                                                                                  job.context, job.analyzers)))
    engine = _with_engine(parse_bytes(file.path, read.data, job), read.data, job)
    parsed = engine.unit
    context = _file_context(parsed, job)
    occurrences = parsed.occurrences
    findings = tuple(analyze(parsed, context, job.analyzers))
    return FileResult(
        file, lines=lines, error_line=parsed.error_line, encoding=read.encoding,
        warning="; ".join(filter(None, [read.warning, engine.problem])),
        problem=read.problem or ("engine" if engine.problem else ""), data=kept,
        findings=findings,
        definitions=parsed.definitions, declared=parsed.declared, aliases=context.aliases,
        suppressions=tuple((o.position.line, o.detail) for o in occurrences if o.role is Role.SUPPRESSION),
        pending=tuple(o for o in occurrences if o.role is Role.QUALIFIED and needs_aliases(o, context)),
        headers=tuple((h.path, tuple(analyze(h, _file_context(h, job), job.analyzers))) for h in engine.headers),
        depends=digests(engine.depends),
        internal=parsed.internal,
        includes=tuple(sorted({os.path.basename(o.text) for o in occurrences if o.role is Role.INCLUDE})),
        c_includes=tuple(sorted({os.path.basename(o.text) for o in occurrences
                                 if o.role is Role.INCLUDE and o.facts(IncludeFacts).c_linkage})),
        runtime=runtime_needs(parsed, context, findings),
        shape=parsed.shape,
    )


_worker_job: Job | None = None  # set once in each worker process by the pool initializer


def _init_worker(job: Job) -> None:
    global _worker_job
    _worker_job = job
    _die_with_parent()


def _die_with_parent() -> None:
    """A worker whose parent is killed (kill -9, an OOM kill) ends too instead of waiting forever (Linux)."""
    try:
        libc = _libc()
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # not Linux: the pool's own shutdown still applies


def _libc() -> ctypes.CDLL:
    """glibc by its usual name first: find_library runs `ldconfig -p`, milliseconds in every worker's start."""
    try:
        return ctypes.CDLL("libc.so.6", use_errno=True)
    except OSError:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def processed(job: Job, file: SourceFile, data: bytes | None, entry: str | None) -> FileResult:
    """A file's fresh result, stored under its cache `entry` (when given), summarized for a summary-only run.

    Storing happens here, in the worker: the parent of a summary-only run never holds a file's findings."""
    result = process_file(job, file, data)
    if job.cache is not None and entry is not None and result.problem != "engine":  # a fallback is retried, never cached
        summarized = job.cache.put(entry, result)
        return summarized if job.summary else job.slimmed(result)
    return job.slimmed(result)


def _process_in_worker(file: SourceFile, data: bytes | None, entry: str | None) -> FileResult:
    assert _worker_job is not None
    return processed(_worker_job, file, data, entry)


def _worker_pool(job: Job, workers: int) -> ProcessPoolExecutor:
    """Worker processes that each receive `job` once. fork shares the rules, the context and the
    parser's compiled queries with them at no cost (the queries are built here first, once)."""
    fork = "fork" in multiprocessing.get_all_start_methods()
    if fork:
        compile_queries(job.roles)
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork" if fork else None),
                               initializer=_init_worker, initargs=(job,))


class Workers:
    """Worker processes that outlive the pass that started them: convert's second pass runs in the first
    pass's processes, whose pages are already their own and whose memos are warm (fresh ones cost that
    pass half as much CPU again). Closed on leaving the `with` block."""

    def __init__(self) -> None:
        self.pool: ProcessPoolExecutor | None = None
        self.job: Job | None = None  # the job the processes received

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)
            self.pool = None

    def start(self, job: Job, workers: int) -> ProcessPoolExecutor:
        self.pool, self.job = _worker_pool(job, workers), job
        return self.pool

    def update_for(self, context: Context, macros: MacroTable | None, wanted: Wanted | None,
                   analyzers: Select | None = None) -> bytes | None:
        """What turns the processes' job into `_held_job(context, macros, wanted, analyzers=analyzers)`: the fields of `context` that
        differ from the job's (the project's names), pickled once for every task. None when the processes cannot
        serve it: none running, or other rules or another macro table."""
        job = self.job
        if self.pool is None or job is None or job.context.rules is not context.rules or job.macros is not macros:
            return None
        changed = {field.name: getattr(context, field.name) for field in dataclasses.fields(Context)
                   if getattr(context, field.name) is not getattr(job.context, field.name)}
        return pickle.dumps((changed, wanted, analyzers))


def _start_pool(job: Job, todo: list[tuple[SourceFile, bytes | None, str | None]], jobs: int,
                stack: contextlib.ExitStack, holder: Workers | None = None) -> Iterator[FileResult]:
    """The fresh results of `todo`: from worker processes, which start on them now, or computed here as the
    iterator is consumed when a pool would cost more than it saves. `holder`: where to keep the processes
    for a later pass (else they end with `stack`)."""
    columns = _columns(todo)
    workers = min(jobs or available_cpus(), available_cpus())
    sizes = _sizes(columns[0])
    if workers == 1 or not _worth_a_pool(job, columns[0], sizes):
        return map(functools.partial(processed, job), *columns)
    # Largest first, in small chunks: no worker is left with one big file while the others wait.
    order = sorted(range(len(todo)), key=lambda i: -sizes[i])
    columns = [[column[i] for i in order] for column in columns]
    pool = holder.start(job, workers) if holder is not None else stack.enter_context(_worker_pool(job, workers))
    return pool.map(_process_in_worker, *columns, chunksize=max(1, min(8, len(todo) // (workers * 32))))


def _results(job: Job, files: list[SourceFile], datas: list[bytes | None], entries: list[str | None],
             jobs: int, holder: Workers | None = None) -> Iterator[FileResult]:
    """Each file's result, from the cache when its bytes are unchanged, else freshly processed.

    The files without a cache entry go to the workers first, so that reading the others overlaps their work."""
    cache = job.cache
    stored = [cache is not None and cache.has(entry, job.summary) for entry in entries]
    todo = [item for item, hit in zip(zip(files, datas, entries), stored) if not hit]
    with contextlib.ExitStack() as stack:
        fresh = _start_pool(job, todo, jobs, stack, holder)
        late = []  # entries that exist but do not hold (damaged, or a file they were made from changed)
        for file, data, entry in itertools.compress(zip(files, datas, entries), stored):
            hit = cache.lookup(file, entry, job.summary) if cache is not None else None
            if hit is not None:
                yield dataclasses.replace(hit if job.wanted is None else hit.keeping(job.wanted),
                                          data=data if job.keep_sources else None)
            else:
                late.append((file, data, entry))
        yield from fresh
    yield from map(functools.partial(processed, job), *_columns(late))


def _columns(todo: list[tuple[SourceFile, bytes | None, str | None]]) -> list[list]:
    """(file, bytes, entry) rows as three columns: the arguments `processed` is mapped over."""
    return [list(column) for column in zip(*todo)] or [[], [], []]


def _sizes(files: list[SourceFile]) -> list[int]:
    sizes = []
    for file in files:
        try:
            sizes.append(os.stat(file.path).st_size)
        except OSError:
            sizes.append(0)  # reported when the file itself is processed
    return sizes


def _worth_a_pool(job: Job, files: list[SourceFile], sizes: list[int]) -> bool:
    """Whether starting worker processes costs less than it saves: many files, or a few big ones."""
    if len(files) >= _POOL_THRESHOLD:
        return True
    if len(files) < 2:
        return False
    # A clang unit takes a tenth of a second or more: two of them already pay for a pool.
    return sum(map(job.is_clang_unit, (f.path for f in files))) >= 2 or sum(sizes) >= _POOL_BYTES


def _project_filter(findings: Iterable[Finding], names: ProjectNames, declared: ProjectNames) -> Iterator[Finding]:
    """Apply what only the whole project shows: a name another file defines, where the file sees it, is the
    project's own; one it declares as a variable there is not renamed."""
    for finding in findings:
        seen = declared.seen_by(finding.path)
        if dropped(finding.code, finding.name, finding.shadowable, names.seen_by(finding.path), seen):
            continue
        if finding.fix is not None and finding.name in seen and not finding.fix.arguments_only:
            finding = dataclasses.replace(finding, fix=None)  # the name is some file's variable: not renamed
        yield finding


def _with_progress(results: Iterator[FileResult], total: int, enabled: bool) -> Iterator[FileResult]:
    if not enabled or total < _PROGRESS_THRESHOLD or not sys.stderr.isatty():
        yield from results
        return
    from rich.progress import Progress

    with Progress(transient=True) as progress:
        task = progress.add_task("scanning", total=total)
        for result in results:
            progress.advance(task)
            yield result


def _suppressions(results: list[FileResult]) -> dict[str, tuple[tuple[int, frozenset[str]], ...]]:
    return {r.file.path: tuple((line, frozenset(filter(None, codes.split(",")))) for line, codes in r.suppressions)
            for r in results if r.suppressions}


@dataclasses.dataclass
class Collected:
    """The per-file stage of a run, before what only the whole project shows: `finish_pipeline`'s input.

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

    def collect(self, progress: bool = False, workers: Workers | None = None) -> Collected:
        """Each selected file's result (in parallel, cached): `finish_pipeline`'s input. `workers`: where to keep
        the worker processes for a later pass."""
        job = self.job
        results = list(_with_progress(_results(job, self.chosen, self.datas, self.entries, self.jobs, workers),
                                      len(self.chosen), progress))
        self.save_index()
        if job.clang is not None:
            log_engine(results, job.is_clang_unit)
        return Collected(job.context, results, self.walk_warnings, self.walked, self.salt, job.macros, job,
                         list(zip(self.chosen, self.entries)))

    def save_index(self) -> None:
        if self.contents.index is not None:
            self.contents.index.save(f.path for f in self.walked)


def plan_pipeline(settings: RunSettings, *, keep_sources: bool = False, prefer_roc: bool = False,
                  rules: RuleDatabase | None = None, select: Callable[[str], bool] | None = None,
                  summary_only: bool = False, wanted: Wanted | None = None, analyzers: Select | None = None) -> PlannedRun:
    """Walk, read what is project-wide, and name each selected file's cache entry (`select` keeps all by default).

    `summary_only`: keep each file's findings counted, not the findings themselves (a text summary
    prints counts); the clang engine, whose units report their headers' findings, always keeps them.
    What is project-wide (the macro table, the walked paths, clang's environment) always comes from
    every walked file, so a file's result is the same whichever files are selected with it. `wanted`: the
    findings the caller acts on (Job.wanted; all by default); `analyzers`: those that can make them (Job.analyzers),
    run alone when there is no cache (a cache keeps every finding, for later runs).
    """
    rules = rules if rules is not None else load_database(settings.rule_files)
    files, walk_warnings = discover(settings.paths, settings.extensions, settings.excludes)
    clang = clang_job(settings, rules, files) if settings.engine == "clang" else None
    # Counted and not stored, findings are never converted: their fixes would be built for nothing.
    counts_only = summary_only and clang is None and not settings.cache
    base = Context(rules=rules, target=settings.target, prefer_roc=prefer_roc,
                   project_paths=path_tails(f.path for f in files), fixes=not counts_only)
    contents = FileContents(StatIndex(settings.paths) if settings.cache else None, settings.max_file_size)
    macros = project_macros(files, contents)
    salt = cache_salt(rules, settings, prefer_roc, clang.env.fingerprint if clang else "", macros.fingerprint())
    analyzers = None if settings.cache else analyzers
    job = Job(base, rules.known_names() | ANALYZER_NAMES, keep_sources, settings.engine, clang, settings.max_file_size,
              macros, ScanCache(salt) if settings.cache else None, summary_only and clang is None, wanted,
              analyzers, roles_read(analyzers), arguments_read(analyzers))
    chosen = files if select is None else [f for f in files if select(f.path)]
    datas: list[bytes | None] = []
    entries: list[str | None] = []
    for file in chosen:
        content, data = contents.content(file.path, keep_sources) if job.cache is not None else (None, None)
        datas.append(data)
        entries.append(job.cache.key(file, content, job.cache_key(file)) if job.cache is not None else None)
    warnings = walk_warnings if select is None else [w for w in walk_warnings if select(w[0])]
    return PlannedRun(job, files, warnings, chosen, datas, entries, contents, salt, settings.jobs)


def collect_pipeline(settings: RunSettings, *, keep_sources: bool = False, prefer_roc: bool = False,
                     progress: bool = False, rules: RuleDatabase | None = None,
                     select: Callable[[str], bool] | None = None, summary_only: bool = False,
                     wanted: Wanted | None = None, analyzers: Select | None = None,
                     workers: Workers | None = None) -> Collected:
    """Walk, then parse and analyse the files `select` keeps (all by default; in parallel, cached)."""
    return plan_pipeline(settings, keep_sources=keep_sources, prefer_roc=prefer_roc, rules=rules, select=select,
                         summary_only=summary_only, wanted=wanted, analyzers=analyzers).collect(progress, workers)


def _summaries(results: list[FileResult], diagnostics: list[Diagnostic]) -> tuple[list[FileSummary], dict[str, bytes]]:
    """Each read file's summary, the bytes kept, and (into `diagnostics`) what each file's processing reported."""
    summaries: list[FileSummary] = []
    sources: dict[str, bytes] = {}
    for result in results:
        path = result.file.path
        if result.warning:
            diagnostics.append(Diagnostic(path, result.warning, result.problem))
        if result.data is not None:
            sources[path] = result.data
        if result.lines is None:
            continue  # unreadable or skipped
        summaries.append(FileSummary(path, result.file.file_type, result.lines, result.error_line, result.encoding,
                                     result.shape))
        if result.error_line is not None:
            diagnostics.append(Diagnostic(
                path, f"parsed with errors (first at line {result.error_line}); results are partial", "parse-error"))
    return summaries, sources


def finish_pipeline(collected: Collected) -> ScanResult:
    """What only the whole project shows, over every file's result: names another file defines are the
    project's own, namespace aliases resolve other files' names; then diagnostics, and sorting."""
    # Walk order, whichever results came from the cache first: the output must not depend on the cache.
    base, results = collected.context, sorted(collected.results, key=lambda r: r.file)
    diagnostics = [Diagnostic(path, message, reason) for path, message, reason in collected.walk_warnings]
    summaries, sources = _summaries(results, diagnostics)
    names = ProjectNames(((r.file.path, r) for r in results), base.rules.is_cuda_declared)
    declared = ProjectNames(((r.file.path, r) for r in results), base.rules.is_cuda_declared, declarations=True,
                            graph=names.graph)
    aliases = tuple(sorted({alias for r in results for alias in r.aliases}))
    context = dataclasses.replace(base, project_names=names.any_file(), project_declared=declared.any_file(),
                                  aliases=aliases)
    # Findings only the project shows: names other files' aliases resolve, the runtime header where it decides.
    resolved = list(resolve_pending([(r.file.path, r.aliases, r.pending) for r in results if r.pending], context))
    resolved += runtime_for_project((r.file.path, r.runtime) for r in results)
    sites = None
    if collected.summary_only:
        tallies = _project_tallies(results, names, declared, resolved)
        findings: list[Finding] = []
        if collected.job is not None and collected.job.cache is not None:
            sites = Sites(collected.job, collected.entries, names, declared, resolved)
    else:
        from_units = findings_of_headers(results)
        findings = list(_project_filter([f for r in results for f in from_units.get(r.file.path, r.findings)], names,
                                        declared))
        findings = _runtime_outside_c_linkage(findings + resolved, frozenset(n for r in results for n in r.c_includes),
                                              base.rules)
        findings.sort(key=Finding.sort_key)
        tallies = {}
    return ScanResult(base.rules, base.target, summaries, findings, sorted(diagnostics), sources, context,
                      _suppressions(results), collected.macros, tallies, collected.summary_only, sites)


def _runtime_outside_c_linkage(findings: list[Finding], c_included: frozenset[str], rules: RuleDatabase) -> list[Finding]:
    """The runtime include convert adds to a file another includes inside `extern "C" { }` (matched by file
    name, as includes are) goes in a C++ block of its own."""
    if not c_included:
        return findings
    runtime = rules.hip_header(IMPLICIT_CUDA_HEADER)
    return [in_cpp_block(f, runtime) if f.code == HIP_PREAMBLE and os.path.basename(f.path) in c_included else f
            for f in findings]


class Sites:
    """Every finding of a summary-only run, in report order, read back from the cache one file at a time
    whenever it is iterated: a report that streams them never holds them all. A file whose entry
    cannot be read (an unwritable cache) is processed again."""

    def __init__(self, job: Job, entries: list[tuple[SourceFile, str | None]], names: ProjectNames,
                 declared: ProjectNames, resolved: list[Finding]):
        self.job = job
        self.entries = sorted(entries, key=lambda item: item[0].path)
        self.names, self.declared = names, declared
        self.resolved: dict[str, list[Finding]] = {}
        for finding in resolved:
            self.resolved.setdefault(finding.path, []).append(finding)

    def __iter__(self) -> Iterator[Finding]:
        job = dataclasses.replace(self.job, summary=False, keep_sources=False)
        for file, entry in self.entries:
            result = job.cache.lookup(file, entry, fixes=False) if job.cache is not None else None
            if result is None:
                result = process_file(job, file)
            findings = list(_project_filter(result.findings, self.names, self.declared))
            findings.extend(self.resolved.get(file.path, ()))
            yield from sorted(findings, key=Finding.sort_key)


def _project_tallies(results: list[FileResult], names: ProjectNames, declared: ProjectNames,
                     resolved: list[Finding]) -> dict[str, Tally]:
    """Each file's tally without what the project's own names drop, with the names other files' aliases resolved."""
    tallies = {r.file.path: project_tally(r.tally, names.seen_by(r.file.path), declared.seen_by(r.file.path))
               for r in results if r.tally is not None}
    for path, group in itertools.groupby(sorted(resolved, key=Finding.sort_key), key=lambda f: f.path):
        tallies[path] = tallies.get(path, Tally()) + tally(group)
    return {path: found for path, found in tallies.items() if found.rows or found.listed}


def run_pipeline(settings: RunSettings, *, keep_sources: bool = False, prefer_roc: bool = False,
                 progress: bool = False, rules: RuleDatabase | None = None, summary_only: bool = False,
                 wanted: Wanted | None = None, analyzers: Select | None = None,
                 workers: Workers | None = None) -> ScanResult:
    """Walk, then parse and analyse every file once (in parallel, cached by content), then finish. `workers`:
    where to keep the worker processes for a later pass (`analyze_reshaped`)."""
    return finish_pipeline(collect_pipeline(settings, keep_sources=keep_sources, prefer_roc=prefer_roc,
                                            progress=progress, rules=rules, summary_only=summary_only,
                                            wanted=wanted, analyzers=analyzers, workers=workers))


def analyze_bytes(path: str, data: bytes, context: Context, macros: MacroTable | None = None) -> list[Finding]:
    """Parse and analyze one file held in memory (hipify-perl's output, a converted file).

    `macros`: the run's table (ScanResult.macros) to parse it as the run did; without it, the file's own #defines."""
    return _analyze_held(_held_job(context, macros), path, data)


def _held_job(context: Context, macros: MacroTable | None, wanted: Wanted | None = None,
              known: frozenset[str] | None = None, analyzers: Select | None = None) -> Job:
    """A job for files held in memory; `known`: the names the parser keeps, when the caller has them already."""
    return Job(context, known if known is not None else context.rules.known_names() | ANALYZER_NAMES,
               keep_sources=False, macros=macros, wanted=wanted, analyzers=analyzers, roles=roles_read(analyzers),
               argument_names=arguments_read(analyzers))


def _analyze_held(job: Job, path: str, data: bytes, prepared: Prepared | None = None) -> list[Finding]:
    findings = analyze(parse_bytes(path, data, job, prepared), job.context, job.analyzers)
    return sorted(findings if job.wanted is None else filter(job.wanted, findings), key=Finding.sort_key)


Reshaped = tuple[str, list[Finding] | None]  # a converted file's tree shape, and its findings when the shape changed


def _analyze_reshaped(job: Job, path: str, data: bytes, shape: str) -> Reshaped:
    prepared = prepare_source(data, job.macros)
    new_shape = tree_shape(prepared.tree.root_node)
    if new_shape == shape:
        return new_shape, None
    return new_shape, _analyze_held(job, path, data, prepared)


def _analyze_reshaped_in_worker(path: str, data: bytes, shape: str) -> Reshaped:
    assert _worker_job is not None
    return _analyze_reshaped(_worker_job, path, data, shape)


_updated_job: tuple[bytes, Job] | None = None  # in a kept worker: the last update (Workers.update_for), applied


def _analyze_reshaped_updated(update: bytes, path: str, data: bytes, shape: str) -> Reshaped:
    global _updated_job
    assert _worker_job is not None
    if _updated_job is None or _updated_job[0] != update:
        changed, wanted, analyzers = pickle.loads(update)  # nosec B301: our own parent's bytes, through the pool's pipe
        context = dataclasses.replace(_worker_job.context, **changed)
        _updated_job = update, _held_job(context, _worker_job.macros, wanted, _worker_job.known, analyzers)
    return _analyze_reshaped(_updated_job[1], path, data, shape)


def analyze_reshaped(files: list[tuple[str, bytes, str]], context: Context, macros: MacroTable | None = None,
                     jobs: int = 0, wanted: Wanted | None = None, workers: Workers | None = None,
                     analyzers: Select | None = None) -> Iterator[Reshaped]:
    """Files held in memory, each with the shape (portkit/parse/recovery.py:tree_shape) of the text it
    was made from: each one's own shape, and its findings where that differs (None where it does not:
    the same structure, so nothing new to find). A parse each, and the analysis only where needed; in
    worker processes when there are enough files to pay for them, which start at once: the caller may
    do other work before it reads the results. `wanted`: the findings the caller acts on (Job.wanted); `analyzers`:
    those that can make them (Job.analyzers).
    `workers`: processes kept from the run's first pass, used when they can serve this one."""
    update = workers.update_for(context, macros, wanted, analyzers) if workers is not None and files else None
    if update is not None:
        pool = workers.pool
        assert pool is not None
        futures = {i: pool.submit(_analyze_reshaped_updated, update, *files[i]) for i in _largest_first(files)}
        return (futures[i].result() for i in range(len(files)))
    job = _held_job(context, macros, wanted, analyzers=analyzers)
    count = min(jobs or available_cpus(), available_cpus(), len(files))
    if count < 2 or (len(files) < _POOL_THRESHOLD and sum(len(data) for _, data, _ in files) < _POOL_BYTES):
        return (_analyze_reshaped(job, *file) for file in files)
    pool = _worker_pool(job, count)
    futures = {i: pool.submit(_analyze_reshaped_in_worker, *files[i]) for i in _largest_first(files)}
    return _shut_after(pool, (futures[i].result() for i in range(len(files))))


def _largest_first(files: list[tuple[str, bytes, str]]) -> list[int]:
    """Submitted largest first (one big file last would leave the other workers waiting), read back in order."""
    return sorted(range(len(files)), key=lambda i: -len(files[i][1]))


def _shut_after(pool: ProcessPoolExecutor, results: Iterator[Reshaped]) -> Iterator[Reshaped]:
    with pool:
        yield from results
