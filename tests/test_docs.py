"""The committed example reports must match what portkit produces now."""
from __future__ import annotations

import json
import subprocess
import shutil

import pytest

from conftest import ROOT


@pytest.mark.parametrize("example", ["saxpy", "option-pricer"])
def test_example_reports_are_current(example: str) -> None:
    committed = json.loads((ROOT / "docs" / "examples" / f"{example}.json").read_text())
    out = subprocess.run([shutil.which("portkit") or "portkit", "scan", "--rocm-version", "5.2", "-f", "json",
                          f"examples/{example}"], cwd=ROOT, check=True, capture_output=True, text=True)
    assert json.loads(out.stdout) == committed, "run scripts/gen-example-reports and commit docs/examples/"


def test_code_docs_are_current() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("gen_docs", ROOT / "scripts" / "gen_docs.py")
    gen_docs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen_docs)
    assert (ROOT / "docs" / "codes.md").read_text() == gen_docs.codes_md(), "run scripts/gen_docs.py"
    assert (ROOT / "docs" / "hazards.md").read_text() == gen_docs.hazards_md(), "run scripts/gen_docs.py"


def test_every_hazard_code_has_a_flagged_case() -> None:
    from portkit.codes import CODES

    cases = "\n".join(p.read_text() for p in (ROOT / "tests" / "cases").iterdir() if p.is_file())
    for code in CODES:
        if code.startswith(("PK3", "PK4")):
            assert "expect: " in cases and any(code in line and "expect:" in line for line in cases.splitlines()), code
