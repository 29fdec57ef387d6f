"""The shared pipeline: walk, read and parse each file once (in parallel), then analyze.

Every command (scan, convert, check, report) starts from `run_scan`, so they
always agree on what was found.
"""
from __future__ import annotations

import dataclasses
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from typing import Iterable, Iterator

from portkit.analyzers import Context, analyze_file
from portkit.analyzers.builds import analyze_build_file
from portkit.analyzers.environment import analyze_environment
from portkit.analyzers.hazards import INTERESTING_NAMES, WARP_LITERALS
from portkit.analyzers.names import is_interesting
from portkit.model import Finding, OccurrenceKind, ParsedFile, Severity
from portkit.parse import parse_source
from portkit.rules import RuleDatabase, Target
from portkit.walk import DEFAULT_EXTENSIONS, SourceFile, discover, read_source

# Below this many files a process pool costs more than it saves.
_POOL_THRESHOLD = 16


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


_known_names: frozenset[str] = frozenset()


def _keep(name: str) -> bool:
    return is_interesting(name, _known_names)


def _set_known_names(names: frozenset[str]) -> None:
    global _known_names
    _known_names = names


def _process(file: SourceFile, keep_sources: bool = False) -> FileResult:
    read = read_source(file.path)
    if read.data is None:
        return FileResult(file, warning=read.warning, problem=read.problem)
    data = read.data if keep_sources else None
    if file.kind != "source":
        text = read.data.decode(read.encoding, "replace")
        return FileResult(file, text=text, data=data, warning=read.warning, problem=read.problem, encoding=read.encoding)
    parsed = parse_source(file.path, read.data, keep=_keep, literals=WARP_LITERALS)
    return FileResult(file, parsed=parsed, data=data, warning=read.warning, problem=read.problem, encoding=read.encoding)


def _process_keeping(file: SourceFile) -> FileResult:
    return _process(file, keep_sources=True)


def _results(files: list[SourceFile], jobs: int, keep_sources: bool) -> Iterator[FileResult]:
    worker = _process_keeping if keep_sources else _process
    jobs = jobs or os.cpu_count() or 1
    if jobs == 1 or len(files) < _POOL_THRESHOLD:
        yield from map(worker, files)
        return
    # fork shares the loaded rule names with the workers at no cost.
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    context = multiprocessing.get_context(method)
    chunk = max(1, len(files) // (jobs * 8))
    with ProcessPoolExecutor(jobs, mp_context=context, initializer=_set_known_names, initargs=(_known_names,)) as pool:
        yield from pool.map(worker, files, chunksize=chunk)


def run_scan(options: ScanOptions, rules: RuleDatabase, target: Target) -> ScanResult:
    files, walk_warnings = discover(options.paths, options.extensions, options.excludes)
    _set_known_names(rules.known_names() | INTERESTING_NAMES)
    diagnostics = [Diagnostic(path, message) for path, message in walk_warnings]
    parsed_files: list[ParsedFile] = []
    build_files: list[tuple[SourceFile, str]] = []
    summaries: list[FileSummary] = []
    sources: dict[str, bytes] = {}
    for result in _results(files, options.jobs, options.keep_sources):
        if result.warning:
            diagnostics.append(Diagnostic(result.file.path, result.warning, result.problem))
        if result.data is not None:
            sources[result.file.path] = result.data
        if result.parsed is not None:
            parsed = result.parsed
            parsed_files.append(parsed)
            summaries.append(FileSummary(parsed.path, "source", parsed.lines, parsed.error_line, result.encoding))
            if parsed.error_line is not None:
                diagnostics.append(Diagnostic(
                    parsed.path, f"parsed with errors (first at line {parsed.error_line}); results are partial", "parse-error",
                ))
        elif result.text is not None:
            build_files.append((result.file, result.text))
            summaries.append(FileSummary(result.file.path, result.file.kind, result.text.count("\n")))
    context = Context(
        rules=rules, target=target,
        project_names=frozenset().union(*(p.definitions for p in parsed_files)),
        project_declared=frozenset().union(*(p.declared for p in parsed_files)),
        prefer_roc=options.prefer_roc, launch_syntax=options.launch_syntax,
        aliases=tuple(sorted({(o.text, o.detail) for p in parsed_files for o in p.occurrences
                              if o.kind is OccurrenceKind.NAMESPACE_ALIAS})),
    )
    findings = list(_analyze(parsed_files, build_files, context))
    suppressions = {
        p.path: tuple((o.position.line, frozenset(filter(None, o.detail.split(","))))
                      for o in p.occurrences if o.kind is OccurrenceKind.SUPPRESSION)
        for p in parsed_files
    }
    return ScanResult(rules, target, summaries, sorted(findings), sorted(diagnostics), sources, context,
                      {path: s for path, s in suppressions.items() if s})


def analyze_source(path: str, data: bytes, context: Context) -> list[Finding]:
    """Parse and analyze one file held in memory (e.g. hipify-perl's output)."""
    known = context.rules.known_names() | INTERESTING_NAMES
    parsed = parse_source(path, data, keep=lambda name: is_interesting(name, known), literals=WARP_LITERALS)
    return sorted(analyze_file(parsed, context))


def _analyze(parsed_files: Iterable[ParsedFile], build_files: Iterable[tuple[SourceFile, str]],
             context: Context) -> Iterator[Finding]:
    for parsed in parsed_files:
        yield from analyze_file(parsed, context)
    for file, text in build_files:
        if file.kind in ("cmake", "make"):
            yield from analyze_build_file(file.path, file.kind, text, context)
        yield from analyze_environment(file.path, file.kind, text, context)
