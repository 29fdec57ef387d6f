"""The pipeline every command runs: walk, read and parse each file once (in parallel, cached), analyze.

scan, report, convert, shim and check all start from `run_pipeline`, so they
always agree on what was found. Work per file happens in `process_file`, which
takes everything it needs as arguments: the pipeline runs in-process, or in a
pool of worker processes that each receive the job once.
"""
from __future__ import annotations

import dataclasses
import functools
import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Iterable, Iterator

from portkit.analyze import Context, TextFile, analyze
from portkit.analyze.hazards import INTERESTING_NAMES, WARP_LITERALS
from portkit.analyze.names import is_interesting, needs_aliases, resolve_pending
from portkit.cache import FileResult, ScanCache, cache_salt
from portkit.codes import API_UNKNOWN
from portkit.model import Finding, ParsedFile, Role, Severity
from portkit.parse import MacroTable, collect_macros, parse_source
from portkit.rules import RuleDatabase, Target, load_database
from portkit.settings import RunSettings
from portkit.walk import SourceFile, classify, discover, read_source

# Below this many files a process pool costs more than it saves.
_POOL_THRESHOLD = 16
_PROGRESS_THRESHOLD = 50
CLANG_UNITS = (".cu", ".cpp", ".cc", ".cxx", ".c")


@dataclasses.dataclass(frozen=True, order=True)
class Diagnostic:
    """Something about a file as a whole: skipped, unreadable, parsed with errors."""

    path: str
    message: str
    reason: str = "unreadable"  # "unreadable", "skipped", "encoding", "engine" or "parse-error"
    severity: Severity = Severity.WARNING


@dataclasses.dataclass(frozen=True)
class FileSummary:
    path: str
    file_type: str
    lines: int
    error_line: int | None = None
    encoding: str = "utf-8"


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

    def findings_by_path(self) -> dict[str, list[Finding]]:
        grouped: dict[str, list[Finding]] = {}
        for finding in self.findings:
            grouped.setdefault(finding.path, []).append(finding)
        return grouped


@dataclasses.dataclass(frozen=True)
class Job:
    """What every file's processing needs; a worker process receives it once."""

    context: Context  # provisional: project-wide names are applied by the parent afterwards
    known: frozenset[str]
    keep_sources: bool
    engine: str = "tree-sitter"
    compile_flags: dict[str, list[str]] | None = None  # from compile_commands.json, by resolved path
    macros: MacroTable | None = None  # the project's #defines the parser sees through (None: each file's own)

    def keep(self, name: str) -> bool:
        return is_interesting(name, self.known)


def parse_bytes(path: str, data: bytes, job: Job) -> ParsedFile:
    return parse_source(path, data, keep=job.keep, literals=WARP_LITERALS, macros=job.macros)


def project_macros(files: Iterable[SourceFile]) -> MacroTable:
    """The macro table of every source file of the run: read once, before the workers start."""
    def sources() -> Iterator[bytes]:
        for file in files:
            if file.file_type == "source":
                try:
                    yield Path(file.path).read_bytes()
                except OSError:
                    continue  # reported when the file itself is processed
    return collect_macros(sources())


def _file_context(parsed: ParsedFile, job: Job) -> Context:
    """The run's context with the file's own definitions: other files' come later."""
    aliases = tuple((o.text, o.detail) for o in parsed.occurrences if o.role is Role.NAMESPACE_ALIAS)
    return dataclasses.replace(job.context, project_names=parsed.definitions, project_declared=parsed.declared,
                               aliases=aliases)


def _with_engine(parsed: ParsedFile, data: bytes, job: Job) -> tuple[ParsedFile, str]:
    if job.engine != "clang" or not parsed.path.lower().endswith(CLANG_UNITS):
        return parsed, ""
    from portkit.parse.clang import default_flags, with_clang_names

    flags = (job.compile_flags or {}).get(os.path.realpath(parsed.path))
    return with_clang_names(parsed, data, flags if flags is not None else default_flags(parsed.path))


def process_file(job: Job, file: SourceFile, data: bytes | None = None) -> FileResult:
    """Read (unless given the bytes), parse and analyse one file: the unit of parallel work."""
    read = read_source(file.path) if data is None else classify(data)
    if read.data is None:
        return FileResult(file, warning=read.warning, problem=read.problem)
    kept = read.data if job.keep_sources else None
    lines = read.data.count(b"\n") + (0 if read.data.endswith(b"\n") or not read.data else 1)
    if file.file_type != "source":
        text = read.data.decode(read.encoding, "replace")
        return FileResult(file, lines=text.count("\n"), encoding=read.encoding, warning=read.warning,
                          problem=read.problem, data=kept, findings=tuple(analyze(TextFile(file.path, file.file_type, text),
                                                                                  job.context)))
    parsed, engine_problem = _with_engine(parse_bytes(file.path, read.data, job), read.data, job)
    context = _file_context(parsed, job)
    occurrences = parsed.occurrences
    return FileResult(
        file, lines=lines, error_line=parsed.error_line, encoding=read.encoding,
        warning="; ".join(filter(None, [read.warning, engine_problem])),
        problem=read.problem or ("engine" if engine_problem else ""), data=kept,
        findings=tuple(analyze(parsed, context)),
        definitions=parsed.definitions, declared=parsed.declared, aliases=context.aliases,
        suppressions=tuple((o.position.line, o.detail) for o in occurrences if o.role is Role.SUPPRESSION),
        pending=tuple(o for o in occurrences if o.role is Role.QUALIFIED and needs_aliases(o, context)),
    )


_worker_job: Job | None = None  # set once in each worker process by the pool initializer


def _init_worker(job: Job) -> None:
    global _worker_job
    _worker_job = job


def _process_in_worker(file: SourceFile, data: bytes | None) -> FileResult:
    assert _worker_job is not None
    return process_file(_worker_job, file, data)


def _pooled(job: Job, files: list[SourceFile], datas: list[bytes | None], jobs: int) -> Iterator[FileResult]:
    # fork shares the rules and context with the workers at no cost.
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context(method), initializer=_init_worker,
                             initargs=(job,)) as pool:
        yield from pool.map(_process_in_worker, files, datas, chunksize=max(1, len(files) // (jobs * 8)))


def _results(job: Job, files: list[SourceFile], jobs: int, cache: ScanCache | None) -> Iterator[FileResult]:
    """Each file's result, from the cache when its bytes are unchanged, else freshly processed."""
    todo: list[SourceFile] = []
    datas: list[bytes | None] = []
    for file in files:
        hit, data = cache.lookup(file) if cache is not None else (None, None)
        if hit is not None:
            yield dataclasses.replace(hit, data=data if job.keep_sources else None)
        else:
            todo.append(file)
            datas.append(data)
    workers = jobs or os.cpu_count() or 1
    if workers == 1 or len(todo) < _POOL_THRESHOLD:
        fresh: Iterable[FileResult] = map(functools.partial(process_file, job), todo, datas)
    else:
        fresh = _pooled(job, todo, datas, workers)
    for result in fresh:
        if cache is not None:
            cache.put(result)
        yield result


def _project_filter(findings: list[Finding], names: frozenset[str], declared: frozenset[str]) -> Iterator[Finding]:
    """Apply what only the whole project shows: a name another file defines is the project's own."""
    for finding in findings:
        if finding.shadowable and finding.name in names:
            continue
        if finding.code == API_UNKNOWN and finding.name in declared:
            continue
        if finding.fix is not None and finding.name in declared:
            finding = dataclasses.replace(finding, fix=None)
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


def _compile_flags(settings: RunSettings) -> dict[str, list[str]] | None:
    from portkit.parse.clang import find_compile_database, load_cindex, read_compile_database, resource_dir

    load_cindex()
    resource_dir()
    database = find_compile_database(list(settings.paths), settings.compile_database)
    return read_compile_database(database) if database is not None else None


def _suppressions(results: list[FileResult]) -> dict[str, tuple[tuple[int, frozenset[str]], ...]]:
    return {r.file.path: tuple((line, frozenset(filter(None, codes.split(",")))) for line, codes in r.suppressions)
            for r in results if r.suppressions}


def run_pipeline(settings: RunSettings, *, keep_sources: bool = False, prefer_roc: bool = False,
                 progress: bool = False, rules: RuleDatabase | None = None) -> ScanResult:
    """Walk, then parse and analyse every file once (in parallel, cached by content)."""
    rules = rules if rules is not None else load_database(settings.rule_files)
    files, walk_warnings = discover(settings.paths, settings.extensions, settings.excludes)
    base = Context(rules=rules, target=settings.target, prefer_roc=prefer_roc)
    macros = project_macros(files)
    job = Job(base, rules.known_names() | INTERESTING_NAMES, keep_sources, settings.engine,
              _compile_flags(settings) if settings.engine == "clang" else None, macros)
    cache = ScanCache(cache_salt(rules, settings, prefer_roc, macros.fingerprint())) if settings.cache else None
    diagnostics = [Diagnostic(path, message) for path, message in walk_warnings]
    results = list(_with_progress(_results(job, files, settings.jobs, cache), len(files), progress))
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
        summaries.append(FileSummary(path, result.file.file_type, result.lines, result.error_line, result.encoding))
        if result.error_line is not None:
            diagnostics.append(Diagnostic(
                path, f"parsed with errors (first at line {result.error_line}); results are partial", "parse-error"))
    names = frozenset().union(*(r.definitions for r in results))
    declared = frozenset().union(*(r.declared for r in results))
    aliases = tuple(sorted({alias for r in results for alias in r.aliases}))
    context = dataclasses.replace(base, project_names=names, project_declared=declared, aliases=aliases)
    findings = list(_project_filter([f for r in results for f in r.findings], names, declared))
    findings.extend(resolve_pending([(r.file.path, r.aliases, r.pending) for r in results if r.pending], context))
    findings.sort(key=Finding.sort_key)
    return ScanResult(rules, settings.target, summaries, findings, sorted(diagnostics), sources, context,
                      _suppressions(results), macros)


def analyze_bytes(path: str, data: bytes, context: Context, macros: MacroTable | None = None) -> list[Finding]:
    """Parse and analyze one file held in memory (hipify-perl's output, a converted file).

    `macros`: the run's table (ScanResult.macros) to parse it as the run did; without it, the file's own #defines."""
    job = Job(context, context.rules.known_names() | INTERESTING_NAMES, keep_sources=False, macros=macros)
    return sorted(analyze(parse_bytes(path, data, job), context), key=Finding.sort_key)
