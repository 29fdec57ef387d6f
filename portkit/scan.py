"""The shared pipeline: walk, read and parse each file once (in parallel), then analyze.

Every command (scan, convert, check, report) starts from `run_scan`, so they
always agree on what was found.
"""
from __future__ import annotations

import dataclasses
import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from typing import Iterable, Iterator

from portkit.analyzers import Context, analyze_file
from portkit.analyzers.builds import analyze_build_file
from portkit.analyzers.environment import analyze_environment
from portkit.analyzers.hazards import INTERESTING_NAMES, WARP_LITERALS
from portkit.analyzers.names import is_interesting, needs_aliases, resolve_pending
from portkit.cache import ScanCache, cache_salt, default_cache_dir
from portkit.model import Finding, OccurrenceKind, ParsedFile, Severity
from portkit.parse import parse_source
from portkit.rules import RuleDatabase, Target
from portkit.walk import DEFAULT_EXTENSIONS, SourceFile, classify, discover, read_source

# Below this many files a process pool costs more than it saves.
_POOL_THRESHOLD = 16
_PROGRESS_THRESHOLD = 50


@dataclasses.dataclass(frozen=True, order=True)
class Diagnostic:
    """Something about a file as a whole: skipped, unreadable, parsed with errors."""

    path: str
    message: str
    kind: str = "unreadable"  # "unreadable", "skipped", "encoding" or "parse-error"
    severity: Severity = Severity.WARNING


@dataclasses.dataclass(frozen=True)
class FileSummary:
    path: str
    kind: str
    lines: int
    error_line: int | None = None
    encoding: str = "utf-8"


@dataclasses.dataclass(frozen=True)
class FileResult:
    """What a worker sends back for one file: a parse, a build file's text, or a reason."""

    file: SourceFile
    parsed: ParsedFile | None = None
    text: str | None = None
    data: bytes | None = None
    warning: str = ""
    problem: str = ""
    encoding: str = "utf-8"
    findings: tuple[Finding, ...] = ()


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

    def findings_by_path(self) -> dict[str, list[Finding]]:
        grouped: dict[str, list[Finding]] = {}
        for finding in self.findings:
            grouped.setdefault(finding.path, []).append(finding)
        return grouped

    def by_status(self, status: str) -> list[Finding]:
        return [f for f in self.findings if f.status == status]


@dataclasses.dataclass(frozen=True)
class ScanOptions:
    paths: tuple[str, ...]
    extensions: tuple[str, ...] = DEFAULT_EXTENSIONS
    excludes: tuple[str, ...] = ()
    jobs: int = 0  # 0: every core
    keep_sources: bool = False
    prefer_roc: bool = False
    launch_syntax: str = "cuda"
    cache: bool = True  # reuse per-file results for unchanged bytes (default_cache_dir())
    engine: str = "tree-sitter"  # or "clang": names resolved by libclang (docs/engines.md)
    compile_database: str | None = None
    progress: bool = False  # a progress bar on stderr when it is a terminal


@dataclasses.dataclass(frozen=True)
class _Job:
    """What every worker needs, shared once (fork) rather than sent with each file."""

    context: Context  # provisional: project-wide names are applied by the parent afterwards
    known: frozenset[str]
    keep_sources: bool
    engine: str = "tree-sitter"
    compile_flags: dict[str, list[str]] | None = None  # from compile_commands.json, by resolved path


_job: _Job | None = None


def _set_job(job: _Job) -> None:
    global _job
    _job = job


def _keep(name: str) -> bool:
    assert _job is not None
    return is_interesting(name, _job.known)


def _file_context(parsed: ParsedFile) -> Context:
    """The run's context with the file's own definitions: other files' come later."""
    assert _job is not None
    aliases = tuple((o.text, o.detail) for o in parsed.occurrences if o.kind is OccurrenceKind.NAMESPACE_ALIAS)
    return dataclasses.replace(_job.context, project_names=parsed.definitions, project_declared=parsed.declared,
                               aliases=aliases)


# Occurrences the parent still needs once a file is analysed.
_KEPT_KINDS = (OccurrenceKind.SUPPRESSION, OccurrenceKind.NAMESPACE_ALIAS)


def _process(file: SourceFile, data: bytes | None = None) -> FileResult:
    """Read (unless given the bytes), parse and analyse one file: the unit of parallel work."""
    assert _job is not None
    read = read_source(file.path) if data is None else classify(data)
    if read.data is None:
        return FileResult(file, warning=read.warning, problem=read.problem)
    kept = read.data if _job.keep_sources else None
    if file.kind != "source":
        text = read.data.decode(read.encoding, "replace")
        findings = tuple(_analyze_text(file, text, _job.context))
        return FileResult(file, text=text, data=kept, warning=read.warning, problem=read.problem,
                          encoding=read.encoding, findings=findings)
    parsed = parse_source(file.path, read.data, keep=_keep, literals=WARP_LITERALS)
    warning = read.warning
    if _job.engine == "clang" and file.path.lower().endswith(CLANG_UNITS):
        parsed, problem = _with_clang_names(parsed, read.data)
        warning = "; ".join(filter(None, [warning, problem]))
    context = _file_context(parsed)
    findings = tuple(analyze_file(parsed, context))
    pending = tuple(o for o in parsed.occurrences if o.kind is OccurrenceKind.QUALIFIED and needs_aliases(o, context))
    slim = dataclasses.replace(parsed, occurrences=tuple(o for o in parsed.occurrences if o.kind in _KEPT_KINDS) + pending)
    return FileResult(file, parsed=slim, data=kept, warning=warning, problem=read.problem or ("engine" if warning else ""),
                      encoding=read.encoding, findings=findings)


CLANG_UNITS = (".cu", ".cpp", ".cc", ".cxx", ".c")
# What clang replaces. Macro bodies stay from tree-sitter: they carry the renames of #define lines,
# which clang only sees expanded at each use.
_NAME_KINDS = (OccurrenceKind.CALL, OccurrenceKind.TYPE, OccurrenceKind.IDENTIFIER)


def _with_clang_names(parsed: ParsedFile, data: bytes) -> tuple[ParsedFile, str]:
    """Replace tree-sitter's name occurrences with clang's; keep tree-sitter's on failure."""
    assert _job is not None
    from portkit.clang_engine import clang_name_occurrences, default_flags

    flags = (_job.compile_flags or {}).get(os.path.realpath(parsed.path))
    names, problem = clang_name_occurrences(parsed.path, data, flags if flags is not None else default_flags(parsed.path))
    if problem:
        return parsed, f"{problem}; fell back to tree-sitter for this file"
    kept = [o for o in parsed.occurrences if o.kind not in _NAME_KINDS]
    return dataclasses.replace(parsed, occurrences=tuple(sorted(kept + names, key=lambda o: (o.span.start, o.span.end)))), ""


def _analyze_text(file: SourceFile, text: str, context: Context) -> Iterator[Finding]:
    if file.kind in ("cmake", "make"):
        yield from analyze_build_file(file.path, file.kind, text, context)
    yield from analyze_environment(file.path, file.kind, text, context)


def _results(files: list[SourceFile], options: ScanOptions, cache: ScanCache | None) -> Iterator[FileResult]:
    """Each file's result, from the cache when its bytes are unchanged, else from a worker."""
    todo: list[SourceFile] = []
    datas: list[bytes | None] = []
    for file in files:
        hit, data = cache.lookup(file.path) if cache is not None else (None, None)
        if hit is not None:
            yield dataclasses.replace(hit, file=file, data=data if options.keep_sources else None)
        else:
            todo.append(file)
            datas.append(data)
    jobs = options.jobs or os.cpu_count() or 1
    if jobs == 1 or len(todo) < _POOL_THRESHOLD:
        fresh: Iterable[FileResult] = map(_process, todo, datas)
    else:
        fresh = _pooled(todo, datas, jobs)
    for result in fresh:
        if cache is not None:
            cache.put(result)
        yield result


def _pooled(files: list[SourceFile], datas: list[bytes | None], jobs: int) -> Iterator[FileResult]:
    # fork shares the rules and context with the workers at no cost.
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context(method), initializer=_set_job,
                             initargs=(_job,)) as pool:
        yield from pool.map(_process, files, datas, chunksize=max(1, len(files) // (jobs * 8)))


def _project_filter(findings: list[Finding], names: frozenset[str], declared: frozenset[str]) -> Iterator[Finding]:
    """Apply what only the whole project shows: a name another file defines is the project's own."""
    for finding in findings:
        if finding.shadowable and finding.name in names:
            continue
        if finding.code == "PK105" and finding.name in declared:
            continue
        if finding.edits and finding.name in declared:
            finding = dataclasses.replace(finding, edits=())
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


def _compile_flags(options: ScanOptions) -> dict[str, list[str]] | None:
    from portkit.clang_engine import find_compile_database, load_cindex, read_compile_database, resource_dir

    load_cindex()
    resource_dir()
    database = find_compile_database(list(options.paths), options.compile_database)
    return read_compile_database(database) if database is not None else None


def run_scan(options: ScanOptions, rules: RuleDatabase, target: Target) -> ScanResult:
    """Walk, then parse and analyse every file once (in parallel, cached by content)."""
    files, walk_warnings = discover(options.paths, options.extensions, options.excludes)
    base = Context(rules=rules, target=target, project_names=frozenset(), project_declared=frozenset(),
                   prefer_roc=options.prefer_roc, launch_syntax=options.launch_syntax)
    _set_job(_Job(base, rules.known_names() | INTERESTING_NAMES, options.keep_sources, options.engine,
                  _compile_flags(options) if options.engine == "clang" else None))
    cache = ScanCache(default_cache_dir(), cache_salt(rules, target, options)) if options.cache else None
    diagnostics = [Diagnostic(path, message) for path, message in walk_warnings]
    parsed_files: list[ParsedFile] = []
    summaries: list[FileSummary] = []
    sources: dict[str, bytes] = {}
    findings: list[Finding] = []
    for result in _with_progress(_results(files, options, cache), len(files), options.progress):
        if result.warning:
            diagnostics.append(Diagnostic(result.file.path, result.warning, result.problem))
        if result.data is not None:
            sources[result.file.path] = result.data
        findings.extend(result.findings)
        if result.parsed is not None:
            parsed = result.parsed
            parsed_files.append(parsed)
            summaries.append(FileSummary(parsed.path, "source", parsed.lines, parsed.error_line, result.encoding))
            if parsed.error_line is not None:
                diagnostics.append(Diagnostic(
                    parsed.path, f"parsed with errors (first at line {parsed.error_line}); results are partial", "parse-error",
                ))
        elif result.text is not None:
            summaries.append(FileSummary(result.file.path, result.file.kind, result.text.count("\n")))
    names = frozenset().union(*(p.definitions for p in parsed_files))
    declared = frozenset().union(*(p.declared for p in parsed_files))
    aliases = tuple(sorted({(o.text, o.detail) for p in parsed_files for o in p.occurrences
                            if o.kind is OccurrenceKind.NAMESPACE_ALIAS}))
    context = dataclasses.replace(base, project_names=names, project_declared=declared, aliases=aliases)
    findings = list(_project_filter(findings, names, declared))
    findings.extend(resolve_pending(parsed_files, context))
    suppressions = {
        p.path: tuple((o.position.line, frozenset(filter(None, o.detail.split(","))))
                      for o in p.occurrences if o.kind is OccurrenceKind.SUPPRESSION)
        for p in parsed_files
    }
    findings.sort(key=Finding.sort_key)
    return ScanResult(rules, target, summaries, findings, sorted(diagnostics), sources, context,
                      {path: s for path, s in suppressions.items() if s})


def analyze_source(path: str, data: bytes, context: Context) -> list[Finding]:
    """Parse and analyze one file held in memory (e.g. hipify-perl's output)."""
    known = context.rules.known_names() | INTERESTING_NAMES
    parsed = parse_source(path, data, keep=lambda name: is_interesting(name, known), literals=WARP_LITERALS)
    return sorted(analyze_file(parsed, context), key=Finding.sort_key)
