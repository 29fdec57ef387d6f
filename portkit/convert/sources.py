"""Convert one source file: apply its findings' edits and add markers, until it is stable.

Pure functions over bytes: same input, same output, and converting the output
again changes nothing. Bytes outside the edits (line endings, encoding, BOM,
comments, strings) are kept exactly.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Iterable, Iterator

from portkit.analyze import Context
from portkit.codes import in_group
from portkit.convert.edits import EditOptions, apply_nested, edits_for, source_offset
from portkit.convert.markers import Marker, marker_edits, may_need_marker, needs_marker
from portkit.convert.output import Change
from portkit.model import Finding
from portkit.parse import MacroTable
from portkit.run.workers import Workers, analyze_reshaped
from portkit.textutil import LineIndex

_MAX_PASSES = 4


@dataclasses.dataclass(frozen=True)
class FileConversion:
    path: str
    original: bytes
    converted: bytes
    edits: int
    markers: tuple[Marker, ...]
    skipped: tuple[int, ...] = ()  # 1-based lines where an edit overlapped another and was left out
    kept: tuple[tuple[int, int, int], ...] = ()  # where `converted` kept `original` as it was (Applied.kept)

    @property
    def changed(self) -> bool:
        return self.converted != self.original

    def change(self) -> Change:
        return Change(self.path, self.original, self.converted)


def convert_source(path: str, source: bytes, findings: Iterable[Finding], context: Context, options: EditOptions,
                   markers: bool = True, rename: bool = True, first_pass: bool = True) -> FileConversion:
    """The HIP version of one source file from its findings (rename=False: markers only). A later pass
    (`first_pass` False) lists only the markers its findings ask for: the first listed those the file had."""
    findings = list(findings)
    edits = [edit for f in findings for edit in edits_for(f, options)] if rename else []
    marks: list[Marker] = []
    if markers:
        marker_list, marks = marker_edits(path, source, findings, options.hazard_markers, unclaimed=first_pass)
        edits = edits + marker_list  # at one offset, an inserted #include comes before a line's marker
    applied = apply_nested(source, edits)
    lines = LineIndex(source) if applied.skipped else None
    skipped = tuple(sorted({lines.line_of(e.span.start) + 1 for e in applied.skipped})) if lines else ()
    return FileConversion(path, source, applied.data, len(edits) - len(applied.skipped), tuple(marks), skipped,
                          applied.kept)


def acted_on(finding: Finding) -> bool:
    """Whether conversion does something with a finding: an edit, or a marker."""
    return finding.fix is not None or needs_marker(finding)


def may_act_on(codes: frozenset[str], fixes: bool) -> bool:
    """Whether an analyzer whose findings carry `codes` (and a fix, if `fixes`) may make one `acted_on` keeps:
    the analyzers a convert runs when no cache keeps every finding for later (run.file.Job.analyzers)."""
    return fixes or any(may_need_marker(code) for code in codes)


def _acted_on_without_hazards(finding: Finding) -> bool:
    return finding.fix is not None or needs_marker(finding) and not in_group(finding.code, "hazard")


def _may_act_on_without_hazards(codes: frozenset[str], fixes: bool) -> bool:
    return fixes or any(may_need_marker(code) and not in_group(code, "hazard") for code in codes)


def acting(hazard_markers: bool) -> tuple[Callable[[Finding], bool], Callable[[frozenset[str], bool], bool]]:
    """`acted_on` and `may_act_on`, or, without hazard markers, their versions that leave the hazards out
    (so a convert with no cache to fill skips the hazard analyzers whose findings carry no fix)."""
    return (acted_on, may_act_on) if hazard_markers else (_acted_on_without_hazards, _may_act_on_without_hazards)


@dataclasses.dataclass(frozen=True)
class SourceToConvert:
    path: str
    data: bytes
    findings: tuple[Finding, ...]
    shape: str = ""  # parsed with errors: its tree's shape (FileSummary.shape), and converted until stable


def convert_stable(path: str, data: bytes, findings: Iterable[Finding], context: Context, options: EditOptions,
                   markers: bool, shape: str, macros: MacroTable | None = None) -> FileConversion:
    """One file's `convert_all`."""
    return in_order(convert_all([SourceToConvert(path, data, tuple(findings), shape)], context, options, markers,
                                macros))[0]


@dataclasses.dataclass(frozen=True)
class Converted:
    """Conversions `convert_all` has made final, by their index among its sources, and the paths of the sources
    still being converted: every other file may be written now."""

    done: tuple[tuple[int, FileConversion], ...]
    pending: tuple[str, ...] = ()


def _in_original(again: tuple[Marker, ...], passes: list[tuple[tuple[int, int, int], ...]], original: bytes,
                 text: bytes) -> tuple[Marker, ...]:
    """A later pass's markers, which count lines in `text` (the output of `passes`, each pass's Applied.kept),
    at the original's lines, as the first pass's are: the line of the original each marked line came from."""
    lines, original_lines = LineIndex(text), LineIndex(original)
    placed = []
    for marker in again:
        offset = lines.starts[min(marker.line, len(lines)) - 1]
        for kept in reversed(passes):
            offset = source_offset(kept, offset)
        placed.append(dataclasses.replace(marker, line=original_lines.line_of(offset) + 1))
    return tuple(placed)


def _with_new(markers: tuple[Marker, ...], again: tuple[Marker, ...]) -> tuple[Marker, ...]:
    """`markers` and those of a later pass that are new (`again`, at the original's lines): those it wrote, and
    any found there already that no listed marker of its code is at, since that pass sees the markers the first
    one wrote as well (under the name convert gave the token: hipDeviceAttribute* for cudaDevAttr*)."""
    listed = {(m.line, m.code) for m in markers}
    return markers + tuple(m for m in again if m.written or (m.line, m.code) not in listed)


def in_order(batches: Iterable[Converted]) -> list[FileConversion]:
    """Every conversion of `convert_all`'s batches, in the order of its sources."""
    return [conversion for _, conversion in sorted((pair for batch in batches for pair in batch.done),
                                                   key=lambda pair: pair[0])]


def convert_all(sources: list[SourceToConvert], context: Context, options: EditOptions, markers: bool,
                macros: MacroTable | None = None, jobs: int = 1, workers: Workers | None = None) -> Iterator[Converted]:
    """Convert each file, and a file with syntax errors again until nothing changes.

    tree-sitter's error recovery depends on the surrounding text, so an inserted
    marker can make it recognise code it skipped before; converging keeps
    convert(convert(x)) == convert(x) even for broken files. A converted file whose
    tree has the shape of its source's (only names, comments and #includes differ)
    is stable without analysing it again, like a file that parsed cleanly. `macros`
    is the scan's table (ScanResult.macros), so each file is parsed again as the scan
    did; the files of a pass are parsed together (`jobs` worker processes). Yields the conversions as they
    become final: all but those that may change while the second pass runs (which may write them), then the rest.
    `workers`: the scan's worker processes, kept for the passes (run.workers.Workers).
    """
    def converted(i: int) -> FileConversion:
        return convert_source(sources[i].path, sources[i].data, sources[i].findings, context, options, markers)

    wanted, select = acting(options.hazard_markers)
    # The files that may need a second pass first: their pass starts while the others are converted.
    done = {i: converted(i) for i, s in enumerate(sources) if s.shape}
    shapes = {i: sources[i].shape for i, conversion in done.items() if conversion.changed}
    pending = list(shapes)
    passes_of = {i: [done[i].kept] for i in pending}  # each pass's Applied.kept, to place a later pass's markers
    for passes in range(_MAX_PASSES - 1):
        analysed = analyze_reshaped([(sources[i].path, done[i].converted, shapes[i]) for i in pending], context,
                                    macros, jobs, wanted, workers, select)
        if passes == 0:  # while worker processes parse the files of the pass
            done.update((i, converted(i)) for i in range(len(sources)) if i not in done)
            yield Converted(tuple((i, done[i]) for i in range(len(sources)) if i not in shapes),
                            tuple(sources[i].path for i in pending))
        still = []
        for i, (shape, findings) in zip(pending, analysed):
            if findings is None:
                continue  # the same shape as the text it came from: stable
            shapes[i] = shape
            conversion = done[i]
            again = convert_source(conversion.path, conversion.converted, findings, context, options, markers,
                                   first_pass=False)
            if again.changed:
                found = _in_original(again.markers, passes_of[i], conversion.original, conversion.converted)
                passes_of[i].append(again.kept)
                done[i] = dataclasses.replace(again, original=conversion.original, edits=conversion.edits + again.edits,
                                              markers=_with_new(conversion.markers, found), skipped=conversion.skipped)
                still.append(i)
        pending = still
        if not pending:
            break
    yield Converted(tuple((i, done[i]) for i in shapes))
