"""Findings and occurrences as JSON rows: the one pack/unpack pair.

The per-file cache (portkit/run/cache.py), the shard documents and the project analyzers' facts
(analyze/registry.py: ProjectAnalysis) store findings and occurrences in this form. Rows are plain lists,
read by position only here: building a JSON object per finding is several times slower.
"""
from __future__ import annotations

from typing import Any

from portkit.codes import Status
from portkit.model import Finding, Fix, FixAction, Occurrence, Position, Role, Severity, Span


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


def pack_finding(f: Finding) -> list[Any]:
    """A finding as a row: what `unpack_finding` reads back."""
    fix = None if f.fix is None else [f.fix.action.value, f.fix.span.start, f.fix.span.end, f.fix.text,
                                      _spans(f.fix.parts), f.fix.drop_args, list(f.fix.flags),
                                      [list(a) for a in f.fix.args]]
    return [f.path, f.position.line, f.position.column, f.code, f.name, f.message, f.severity.value, f.library,
            f.status.value if f.status else None, f.hip, f.advice, f.function, f.span.start, f.span.end, fix, f.shadowable,
            f.engine]


def unpack_finding(t: list[Any], fixes: bool = True) -> Finding:
    """A packed finding; `fixes=False` leaves its fix out (a report shows none, and skipping it is faster)."""
    packed = t[14] if fixes else None
    fix = None if packed is None else Fix(FixAction(packed[0]), Span(packed[1], packed[2]), packed[3], _unspans(packed[4]),
                                          packed[5], tuple(packed[6]), tuple((i, s) for i, s in packed[7]))
    return Finding(t[0], Position(t[1], t[2]), t[3], t[4], t[5], _SEVERITIES[t[6]], t[7], _STATUSES[t[8]] if t[8] else None,
                   t[9], t[10], t[11], Span(t[12], t[13]), fix, t[15], t[16])


def pack_occurrence(o: Occurrence) -> list[Any]:
    return [o.span.start, o.span.end, o.role.value, o.text, o.position.line, o.position.column, o.function, o.detail,
            _spans(o.parts), [list(kv) for kv in o.info]]


def unpack_occurrence(t: list[Any]) -> Occurrence:
    return Occurrence(Span(t[0], t[1]), Role(t[2]), t[3], Position(t[4], t[5]), t[6], t[7], _unspans(t[8]),
                      tuple((k, v) for k, v in t[9]))
