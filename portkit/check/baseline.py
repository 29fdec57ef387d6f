"""Decide which findings block: blocking level, suppressions, baseline.

Fingerprints ignore line numbers: rule code, CUDA name, path relative to the
project root, the enclosing function and the finding's source line with
whitespace collapsed. Baselines compare as counts, so a second copy of a
baselined call is new, and entries no longer found are reported as fixed.
"""
from __future__ import annotations

import collections
import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Any, Iterable

from portkit import __version__
from portkit.codes import ASM_LIBRARY, ATTENTION_STATUSES, UNBUILDABLE, Status
from portkit.errors import ConfigError
from portkit.fileio import JsonDocument, read_json
from portkit.model import Finding, Severity
from portkit.textutil import LineIndex

BASELINE_SCHEMA = 1
MAX_BASELINE_SIZE = 256 << 20  # bytes
MAX_COUNT = 1_000_000  # copies of one finding: more is a corrupt or hostile baseline


@dataclasses.dataclass(frozen=True)
class Fingerprinted:
    finding: Finding
    path: str  # relative to the project root, with /
    fingerprint: str


@dataclasses.dataclass(frozen=True)
class BaselineEntry:
    fingerprint: str
    code: str
    name: str
    path: str
    count: int


@dataclasses.dataclass
class Verdict:
    new: list[Fingerprinted]
    baselined: list[Fingerprinted]
    suppressed: list[Fingerprinted]
    fixed: list[BaselineEntry]  # baseline entries found fewer times than recorded
    unanalysed: list[str] = dataclasses.field(default_factory=list)  # "path: why": files the gate could not look at


def builds_after_convert(finding: Finding) -> bool:
    """Whether hipcc builds this site once `portkit convert` has run: never inline PTX (convert leaves
    asm as written), nor a CUDA name or header that convert leaves as written and HIP lacks (no fix,
    and a HIP spelling that differs from it: none at this target, or one that is a different API)."""
    if finding.status in (None, Status.SUPPORTED):
        return True
    if finding.library == ASM_LIBRARY:
        return False
    return finding.fix is not None or finding.hip == finding.name


def is_blocking(finding: Finding, blocking: Iterable[str]) -> bool:
    """`blocking`: statuses, and "unbuildable" for what hipcc cannot build even after convert."""
    if finding.status:
        return finding.status in blocking or (UNBUILDABLE in blocking and not builds_after_convert(finding))
    return finding.severity is Severity.ERROR  # hazards without an API status


def is_recorded(finding: Finding) -> bool:
    """A baseline records everything that is not a clean mapping or plain inventory."""
    return finding.status in ATTENTION_STATUSES or (not finding.status and finding.severity is not Severity.INFO)


def relative_path(path: str, root: Path) -> str:
    resolved = Path(path).resolve()
    try:
        return resolved.relative_to(root.resolve()).as_posix()
    except ValueError:
        return resolved.as_posix()


def _line_text(lines: LineIndex[bytes] | None, line: int) -> str:
    if lines is None or not 0 < line <= len(lines):
        return ""
    return " ".join(lines.line(line - 1).decode("utf-8", "replace").split())


def fingerprint(finding: Finding, path: str, line_text: str) -> str:
    key = "\0".join((finding.code, finding.name, path, finding.function, line_text))
    return hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:20]  # a name may hold undecodable bytes


def fingerprint_all(findings: Iterable[Finding], sources: dict[str, bytes], root: Path) -> list[Fingerprinted]:
    indexes = {path: LineIndex(data) for path, data in sources.items()}
    relative: dict[str, str] = {}  # resolving is a syscall per path component: once per file
    fingerprinted = []
    for f in findings:
        path = relative.get(f.path)
        if path is None:
            path = relative[f.path] = relative_path(f.path, root)
        fingerprinted.append(Fingerprinted(f, path, fingerprint(f, path, _line_text(indexes.get(f.path), f.position.line))))
    return fingerprinted


def is_suppressed(finding: Finding, suppressions: Iterable[tuple[int, frozenset[str]]]) -> bool:
    """`// portkit: ignore[CODE]` on the finding's line or the line before."""
    for line, codes in suppressions:
        if line in (finding.position.line, finding.position.line - 1) and (not codes or finding.code in codes):
            return True
    return False


def write_baseline(path: Path, entries: list[Fingerprinted]) -> bytes:
    counts = collections.Counter(e.fingerprint for e in entries)
    first = {e.fingerprint: e for e in reversed(entries)}
    rows = [
        {"fingerprint": fp, "code": first[fp].finding.code, "name": first[fp].finding.name,
         "path": first[fp].path, "count": counts[fp]}
        for fp in sorted(counts, key=lambda fp: (first[fp].path, first[fp].finding.code, first[fp].finding.name, fp))
    ]
    data = {"schema_version": BASELINE_SCHEMA, "tool": f"portkit {__version__}", "findings": rows}
    return (json.dumps(data, indent=2, sort_keys=True) + "\n").encode("utf-8")


def _entry(path: Path, index: int, row: Any) -> BaselineEntry:
    """One baseline row: strings and a whole count from 1 to MAX_COUNT, or a ConfigError naming it."""
    if not isinstance(row, dict) or not all(isinstance(row.get(k), str) for k in ("fingerprint", "code", "name", "path")):
        raise ConfigError(f"{path}: baseline entry {index} is malformed (fingerprint, code, name and path are strings)")
    count = row.get("count")
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_COUNT:
        raise ConfigError(f"{path}: baseline entry {index}: count must be a whole number from 1 to {MAX_COUNT}")
    return BaselineEntry(row["fingerprint"], row["code"], row["name"], row["path"], count)


_DOCUMENT = JsonDocument("a portkit baseline", MAX_BASELINE_SIZE, ConfigError, "cannot read baseline",
                         lambda exc: f"invalid JSON: {exc}")


def read_baseline(path: Path) -> list[BaselineEntry]:
    """A corrupt baseline is an error, not an empty one: it would let everything through."""
    data = read_json(path, _DOCUMENT, lambda data: json.loads(data.decode("utf-8")))
    if not isinstance(data, dict) or data.get("schema_version") != BASELINE_SCHEMA or not isinstance(data.get("findings"), list):
        raise ConfigError(f"{path}: not a portkit baseline (expected schema_version {BASELINE_SCHEMA} and a findings list)")
    return [_entry(path, index, row) for index, row in enumerate(data["findings"], 1)]


def decide(findings: list[Fingerprinted], blocking: Iterable[str], baseline: list[BaselineEntry],
           suppressions: dict[str, tuple[tuple[int, frozenset[str]], ...]], checked_paths: set[str] | None = None) -> Verdict:
    """Split blocking findings into new, baselined and suppressed; list fixed baseline entries.

    `checked_paths` limits the "fixed" report to files that were looked at (a
    pre-commit run sees only the changed files).
    """
    blocking = tuple(blocking)
    remaining = collections.Counter({e.fingerprint: e.count for e in baseline})
    verdict = Verdict([], [], [], [])
    for item in findings:
        blocks = is_blocking(item.finding, blocking)
        if remaining[item.fingerprint] > 0:  # every finding consumes its baseline entry, blocking or not
            remaining[item.fingerprint] -= 1
            if blocks:
                verdict.baselined.append(item)
        elif blocks and is_suppressed(item.finding, suppressions.get(item.finding.path, ())):
            verdict.suppressed.append(item)
        elif blocks:
            verdict.new.append(item)
    for entry in baseline:
        if remaining[entry.fingerprint] > 0 and (checked_paths is None or entry.path in checked_paths):
            verdict.fixed.append(dataclasses.replace(entry, count=remaining[entry.fingerprint]))
            remaining[entry.fingerprint] = 0
    return verdict
