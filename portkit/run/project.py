"""The finish of a run: what only the whole project shows, over every file's result (`ScanResult`).

scan, report, convert, shim and check all start from `run_project`, so they always agree on what
was found; `scan --shard` collects a part of the files and `merge` finishes the parts together.
"""
from __future__ import annotations

import dataclasses
import enum
import itertools
from typing import Any, Iterable, Iterator

from portkit.analyze import Context
from portkit.analyze.own_hip_branches import layer_header, settle_by_hip_layer
from portkit.analyze.registry import ProjectAnalysis, project_analyses
from portkit.model import Finding, Severity
from portkit.parse import MacroTable
from portkit.rules import RuleDatabase, Target
from portkit.run.cache import FileResult
from portkit.run.engines import findings_of_headers
from portkit.run.file import Job, process_file
from portkit.run.plan import Collected, plan_run
from portkit.run.request import RunRequest
from portkit.run.scope import HipLayer, ProjectNames
from portkit.run.workers import Workers
from portkit.settings import RunSettings
from portkit.tally import Tally, dropped, project_tally, tally
from portkit.walk import SourceFile, not_analysed


class Reason(str, enum.Enum):
    """Why a file has a diagnostic. The values are the JSON report's "kind" and what walk.py and a file's
    result (FileResult.problem) name as strings: a str enum, equal to them."""

    UNREADABLE = "unreadable"
    TOO_LARGE = "too-large"
    SKIPPED = "skipped"  # a binary file
    ENCODING = "encoding"  # not UTF-8: read as Latin-1
    ENGINE = "engine"  # the clang engine failed: tree-sitter parsed the file
    PARSE_ERROR = "parse-error"
    IGNORE_FILE = "ignore-file"  # a .gitignore that could not be read or holds bad patterns

    __str__ = str.__str__
    __format__ = str.__format__


@dataclasses.dataclass(frozen=True, order=True)
class Diagnostic:
    """Something about a file as a whole: skipped, unreadable, parsed with errors."""

    path: str
    message: str
    reason: Reason = Reason.UNREADABLE
    severity: Severity = Severity.WARNING


@dataclasses.dataclass(frozen=True)
class FileSummary:
    path: str
    file_type: str
    lines: int
    error_line: int | None = None
    encoding: str = "utf-8"
    shape: str = ""  # parsed with errors: the tree's structure (portkit/parse/recovery.py:tree_shape)
    vendor_layer: str = ""  # the project's own layer for HIP or another vendor (parse/vendor_layers.py)
    include_switches: tuple[tuple[str, str], ...] = ()  # (file name, macro): what selects a file it includes
    hip_switches: tuple[str, ...] = ()  # the project's own HIP switches it tests (parse/hip_switches.py)
    hip_includes: frozenset[str] = frozenset()  # the file names it includes in a branch hipcc takes for AMD


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
    # Every CUDA name the project's own HIP layer defines for hipcc, with its file (run/scope.py: HipLayer).
    hip_layer: dict[str, str] = dataclasses.field(default_factory=dict)

    def file_tallies(self) -> dict[str, Tally]:
        """Each file's findings counted: a summary-only run's, or counted now (only reports need them)."""
        if self.summary_only:
            return self.tallies
        return {path: tally(group) for path, group in itertools.groupby(self.findings, key=lambda f: f.path)}

    def read_paths(self) -> list[str]:
        """Every file the run looked at, read or not: what an output must never overwrite."""
        return [f.path for f in self.files] + [d.path for d in self.diagnostics]

    def unreadable(self) -> list[str]:
        return [d.path for d in self.diagnostics if d.reason is Reason.UNREADABLE]

    def unread(self) -> list[str]:
        """Files the run was asked to look at but could not read (or that are too large): a
        conversion that skipped them silently would look complete."""
        return [f"{d.path}: {d.message}; not converted{'' if d.reason is Reason.UNREADABLE else _COPIED}"
                for d in self.diagnostics if not_analysed(d.message, d.reason)]

    def findings_by_path(self) -> dict[str, list[Finding]]:
        grouped: dict[str, list[Finding]] = {}
        for finding in self.findings:
            grouped.setdefault(finding.path, []).append(finding)
        return grouped


# A file read but not analysed (binary, too large) is copied into the output as it is (an unreadable one cannot be).
_COPIED = " (copied as it is; --exclude it if it is no source)"


def _project_filter(findings: Iterable[Finding], names: ProjectNames, declared: ProjectNames,
                    anywhere: frozenset[str], layer: HipLayer) -> Iterator[Finding]:
    """Apply what only the whole project shows: a name another file defines, where the file sees it, is the
    project's own, and one any file defines or declares (`anywhere`) no unknown CUDA name; one the file's
    project declares as a variable where it sees it is not renamed; one the project's own HIP layer defines as
    HIP's, where the file sees it, is settled, and one it defines as more than a rename left to it before any of
    that (its #define makes it a project name too)."""
    for finding in findings:
        if layer and finding.status is not None and not finding.settled and finding.name in layer.kept_by(finding.path):
            yield settle_by_hip_layer(finding, layer.seen_by(finding.path), kept=True)
            continue
        seen = declared.seen_by(finding.path)
        if dropped(finding.code, finding.name, finding.shadowable, names.seen_by(finding.path), anywhere):
            continue
        if finding.fix is not None and finding.name in seen and not finding.fix.arguments_only:
            finding = dataclasses.replace(finding, fix=None)  # the name is some file's variable: not renamed
        yield settle_by_hip_layer(finding, layer.seen_by(finding.path)) if layer else finding


def _suppressions(results: list[FileResult]) -> dict[str, tuple[tuple[int, frozenset[str]], ...]]:
    return {r.file.path: tuple((line, frozenset(filter(None, codes.split(",")))) for line, codes in r.suppressions)
            for r in results if r.suppressions}


def _summaries(results: list[FileResult], diagnostics: list[Diagnostic]) -> tuple[list[FileSummary], dict[str, bytes]]:
    """Each read file's summary, the bytes kept, and (into `diagnostics`) what each file's processing reported."""
    summaries: list[FileSummary] = []
    sources: dict[str, bytes] = {}
    for result in results:
        path = result.file.path
        if result.warning:
            diagnostics.append(Diagnostic(path, result.warning, Reason(result.problem)))
        if result.data is not None:
            sources[path] = result.data
        if result.lines is None:
            continue  # unreadable or skipped
        summaries.append(FileSummary(path, result.file.file_type, result.lines, result.error_line, result.encoding,
                                     result.shape, result.vendor_layer, result.include_switches,
                                     result.hip_switches, result.hip_includes))
        if result.error_line is not None:
            diagnostics.append(Diagnostic(
                path, f"parsed with errors (first at line {result.error_line}); results are partial", Reason.PARSE_ERROR))
    return summaries, sources


def finish_run(collected: Collected) -> ScanResult:
    """What only the whole project shows, over every file's result: names another file defines are the
    project's own; the project analyses (analyze/registry.py: ProjectAnalysis) share, finish and revise;
    then diagnostics, and sorting."""
    # Walk order, whichever results came from the cache first: the output must not depend on the cache.
    base, every = collected.context, sorted(collected.results, key=lambda r: r.file)
    names = ProjectNames(((r.file.path, r) for r in every), base.rules.cuda_declared_among)
    declared = ProjectNames(((r.file.path, r) for r in every), base.rules.cuda_declared_among, declarations=True,
                            graph=names.graph)
    layer = HipLayer(((r.file.path, r) for r in every), names.graph)
    results = [r for r in every if r.file.path not in collected.context_only]
    diagnostics = [Diagnostic(path, message, Reason(reason)) for path, message, reason in collected.walk_warnings]
    summaries, sources = _summaries(results, diagnostics)
    context = dataclasses.replace(base, project_names=names.any_file(), project_declared=declared.any_file(),
                                  **_shared(every))
    anywhere = context.project_names | context.project_declared
    # Findings only the project shows (names other files' aliases resolve, the runtime header where it decides).
    resolved = [f for analysis in project_analyses() for f in analysis.finish(_facts(results, analysis), context)]
    sites = None
    if collected.summary_only:
        entries = [e for e in collected.entries if e[0].path not in collected.context_only]
        scope = Scope(names, declared, anywhere, layer)
        tallies = _project_tallies(results, scope, resolved, collected.job, dict(entries))
        findings: list[Finding] = []
        if collected.job is not None and collected.job.cache is not None:
            sites = Sites(collected.job, entries, scope, resolved)
    else:
        from_units = findings_of_headers(results)
        findings = list(_project_filter([f for r in results for f in from_units.get(r.file.path, r.findings)], names,
                                        declared, anywhere, layer))
        findings = _revised(findings + resolved, every, context)
        findings.sort(key=Finding.sort_key)
        tallies = {}
    return ScanResult(base.rules, base.target, summaries, findings, sorted(diagnostics), sources, context,
                      _suppressions(results), collected.macros, tallies, collected.summary_only, sites, layer.names())


def _facts(results: list[FileResult], analysis: ProjectAnalysis) -> list[tuple[str, Any]]:
    """Each file's fact for `analysis` (None: no fact, as for a file that is not a source)."""
    return [(r.file.path, r.facts.get(analysis.name)) for r in results]


def _shared(every: list[FileResult]) -> dict[str, Any]:
    """The context fields the project analyses decide from every file read."""
    shared: dict[str, Any] = {}
    for analysis in project_analyses():
        if analysis.share is not None:
            shared.update(analysis.share([fact for _, fact in _facts(every, analysis) if fact is not None]))
    return shared


def _revised(findings: list[Finding], every: list[FileResult], context: Context) -> list[Finding]:
    """The project's findings with what each project analysis decides about their fixes."""
    for analysis in project_analyses():
        if analysis.revise is not None:
            findings = analysis.revise(findings, _facts(every, analysis), context)
    return findings


class Sites:
    """Every finding of a summary-only run, in report order, read back from the cache one file at a time
    whenever it is iterated: a report that streams them never holds them all. A file whose entry
    cannot be read (an unwritable cache) is processed again."""

    def __init__(self, job: Job, entries: list[tuple[SourceFile, str | None]], scope: Scope, resolved: list[Finding]):
        self.job = job
        self.entries = sorted(entries, key=lambda item: item[0].path)
        self.scope = scope
        self.resolved: dict[str, list[Finding]] = {}
        for finding in resolved:
            self.resolved.setdefault(finding.path, []).append(finding)

    def __iter__(self) -> Iterator[Finding]:
        for file, entry in self.entries:
            findings = list(self.scope.filter(_read_back(self.job, file, entry)))
            findings.extend(self.resolved.get(file.path, ()))
            yield from sorted(findings, key=Finding.sort_key)


@dataclasses.dataclass(frozen=True)
class Scope:
    """What the whole project decides about each file's findings (_project_filter's arguments)."""

    names: ProjectNames
    declared: ProjectNames
    anywhere: frozenset[str]
    layer: HipLayer

    def filter(self, findings: Iterable[Finding]) -> Iterator[Finding]:
        return _project_filter(findings, self.names, self.declared, self.anywhere, self.layer)


def _read_back(job: Job, file: SourceFile, entry: str | None) -> tuple[Finding, ...]:
    """A summary-only run's findings of one file: from its cache entry, or (none readable) processed again."""
    job = dataclasses.replace(job, summary=False, keep_sources=False)
    result = job.cache.lookup(file, entry, fixes=False) if job.cache is not None else None
    return (result if result is not None else process_file(job, file)).findings


def _project_tallies(results: list[FileResult], scope: Scope, resolved: list[Finding], job: Job | None,
                     entries: dict[SourceFile, str | None]) -> dict[str, Tally]:
    """Each file's tally without what the project's own names drop, with the names other files' aliases resolved.
    A file that uses a name the project's own HIP layer defines is counted again from its findings (read back),
    settled as a full run settles them: which site of a line the effort bills depends on what is settled."""
    tallies = {}
    for r in results:
        if r.tally is None:
            continue
        seen = scope.layer.seen_by(r.file.path) if scope.layer else {}
        if job is not None and seen and any(row.status and layer_header(row.name, seen) for row in r.tally.rows):
            tallies[r.file.path] = tally(scope.filter(_read_back(job, r.file, entries.get(r.file))))
        else:
            tallies[r.file.path] = project_tally(r.tally, scope.names.seen_by(r.file.path), scope.anywhere)
    for path, group in itertools.groupby(sorted(resolved, key=Finding.sort_key), key=lambda f: f.path):
        tallies[path] = tallies.get(path, Tally()) + tally(group)
    return {path: found for path, found in tallies.items() if found.rows or found.listed}


def run_project(settings: RunSettings, request: RunRequest = RunRequest(), workers: Workers | None = None) -> ScanResult:
    """Walk, then parse and analyse every file once (in parallel, cached by content), then finish. `workers`:
    where to keep the worker processes for a later pass (`analyze_reshaped`)."""
    return finish_run(plan_run(settings, request).collect(workers))
