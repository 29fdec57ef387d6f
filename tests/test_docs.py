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
