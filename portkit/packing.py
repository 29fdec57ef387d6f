"""Findings and occurrences as JSON rows: the one pack/unpack pair.

The per-file cache (portkit/run/cache.py), the shard documents and the project analyzers' facts
(analyze/registry.py: ProjectAnalysis) store findings and occurrences in this form. Rows are plain lists,
read by position only here: building a JSON object per finding is several times slower.
"""
from __future__ import annotations

from typing import Any

from portkit.codes import Status
from portkit.model import (
    FACT_RECORDS, Append, Cast, ClangFacts, Drop, Engine, Finding, Fix, FixAction, Occurrence, Position, Replace, Role, Severity, Span,
    Wrap,
)


def _spans(spans: tuple[Span, ...]) -> list[int]:
    return [x for s in spans for x in (s.start, s.end)]


def _unspans(flat: list[int]) -> tuple[Span, ...]:
    if not flat:
        return ()
    pairs = iter(flat)
    return tuple(map(Span, pairs, pairs))


# Enum lookups by value, without the enum machinery: unpacking runs once per cached finding.
_STATUSES = {s.value: s for s in Status}
_SEVERITIES = {s.value: s for s in Severity}
_ENGINES = {e.value: e for e in Engine}
_ARG_EDITS = {kind.__name__: kind for kind in (Append, Cast, Drop, Replace, Wrap)}


def pack_finding(f: Finding) -> list[Any]:
    """A finding as a row: what `unpack_finding` reads back."""
    fix = None if f.fix is None else [f.fix.action.value, f.fix.span.start, f.fix.span.end, f.fix.text,
                                      _spans(f.fix.parts), f.fix.drop_args, f.fix.prerequisite, f.fix.spaced_chevrons,
                                      f.fix.launch_as_value, [[type(a).__name__, *a] for a in f.fix.args],
                                      f.fix.grid_is_dim3, f.fix.block_is_dim3, f.fix.otherwise, list(f.fix.companions)]
    return [f.path, f.position.line, f.position.column, f.code, f.name, f.message, f.severity.value, f.library,
            f.status.value if f.status else None, f.hip, f.advice, f.function, f.span.start, f.span.end, fix, f.shadowable,
            f.engine.value, f.settled, f.nvidia_side, f.off_amd]


def unpack_finding(t: list[Any], fixes: bool = True) -> Finding:
    """A packed finding; `fixes=False` leaves its fix out (a report shows none, and skipping it is faster)."""
    packed = t[14] if fixes else None
    fix = None if packed is None else Fix(FixAction(packed[0]), Span(packed[1], packed[2]), packed[3], _unspans(packed[4]),
                                          packed[5], tuple(_ARG_EDITS[a[0]](*a[1:]) for a in packed[9]), packed[6],
                                          packed[7], packed[8], packed[10], packed[11], packed[12], tuple(packed[13]))
    return Finding(t[0], Position(t[1], t[2]), t[3], t[4], t[5], _SEVERITIES[t[6]], t[7], _STATUSES[t[8]] if t[8] else None,
                   t[9], t[10], t[11], Span(t[12], t[13]), fix, t[15], _ENGINES[t[16]], t[17], t[18], t[19])


def pack_occurrence(o: Occurrence) -> list[Any]:
    """An occurrence as a row; its facts as the record's name, then its fields."""
    info = None if o.info is None else [type(o.info).__name__, *o.info]
    return [o.span.start, o.span.end, o.role.value, o.text, o.position.line, o.position.column, o.function, o.detail,
            _spans(o.parts), info, None if o.clang is None else o.clang.macro]


def unpack_occurrence(t: list[Any]) -> Occurrence:
    info = None if t[9] is None else FACT_RECORDS[t[9][0]](*(tuple(v) if isinstance(v, list) else v for v in t[9][1:]))
    return Occurrence(Span(t[0], t[1]), Role(t[2]), t[3], Position(t[4], t[5]), t[6], t[7], _unspans(t[8]), info,
                      None if t[10] is None else ClangFacts(t[10]))
