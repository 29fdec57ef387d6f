"""Rule cases: each file in tests/cases marks lines with `expect:` (every finding code
on that line, as a multiset) or `ok:` (codes that must not appear there), and may add `settled:` (the codes of
the findings there that are settled, billed nowhere, as a multiset)."""
from __future__ import annotations

import collections
import re
from pathlib import Path

import pytest

from portkit.rules import Target
from portkit.run.project import run_project
from portkit.run.request import RunRequest
from portkit.settings import RunSettings

CASES = sorted(p for p in (Path(__file__).parent / "cases").iterdir() if p.is_file())
# Pinned so the cases do not depend on the HIP installed on the machine.
TARGET = Target(rocm=(5, 2, 0))
_MARK = re.compile(r"\b(expect|ok|settled):\s*((?:PK\d{3}\s*)+)")


def _marks(path: Path) -> tuple[dict[int, collections.Counter], dict[int, set[str]], dict[int, collections.Counter]]:
    expected: dict[int, collections.Counter] = {}
    forbidden: dict[int, set[str]] = {}
    settled: dict[int, collections.Counter] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        for kind, codes in _MARK.findall(line):
            if kind == "expect":
                expected[number] = collections.Counter(codes.split())
            elif kind == "settled":
                settled[number] = collections.Counter(codes.split())
            else:
                forbidden[number] = set(codes.split())
    return expected, forbidden, settled


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(case: Path, database) -> None:
    result = run_project(RunSettings(paths=(str(case),), root=case.parent, target=TARGET, jobs=1), RunRequest(rules=database))
    found: dict[int, collections.Counter] = collections.defaultdict(collections.Counter)
    found_settled: dict[int, collections.Counter] = collections.defaultdict(collections.Counter)
    for finding in result.findings:
        found[finding.position.line][finding.code] += 1
        if finding.settled:
            found_settled[finding.position.line][finding.code] += 1
    expected, forbidden, settled = _marks(case)
    assert expected, "a case file needs at least one expect: mark"
    for line, codes in expected.items():
        assert found[line] == codes, f"{case.name}:{line}: expected {dict(codes)}, found {dict(found[line])}"
    for line, codes in forbidden.items():
        assert not codes & set(found[line]), f"{case.name}:{line}: found forbidden {codes & set(found[line])}"
    for line, codes in settled.items():
        assert found_settled[line] == codes, f"{case.name}:{line}: expected settled {dict(codes)}, found {dict(found_settled[line])}"
