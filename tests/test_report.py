"""Reports: Markdown, HTML (in a real headless Chromium) and JSON; SARIF in test_sarif.py."""
from __future__ import annotations

import json
import re
from html import escape, unescape
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import EXAMPLES, ROOT, require
from portkit.cli import main
from portkit.templating import markdown_text


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
    assert "| readiness | **94%** (133 of 141 sites) |" in text  # with the CMake find_library(nccl)
    assert "| cuSOLVER | hipSOLVER / rocSOLVER | 11 | 13 |" in text
    assert "`examples/option-pricer/src/reduce.cuh:15`" in text or "reduce.cuh:15" in text
    assert "| sm_90 | sm_90 (H100/H200) -> gfx942 (MI300X) | `--offload-arch=gfx942` |" in text
    for step in ("Dependency inventory", "Functional port", "Fixed test conditions", "Numerical correctness",
                 "Performance", "Operations"):
        assert f"**{step}**" in text


def test_effort_estimate_follows_the_model(tmp_path: Path) -> None:
    from portkit.report.plan import effort_model

    model = effort_model()
    data = json.loads(report(tmp_path, "r.json").read_text())
    effort = data["plan"]["effort"]
    rows = effort["by_status"]
    for status in ("supported", "unavailable"):  # no rule of these names has a weight of its own
        apis = [a for a in data["apis"] if a["status"] == status]
        names, billed = sum(1 for a in apis if a["billed"]), sum(a["billed"] for a in apis)
        assert rows[status]["sites"] == sum(a["sites"] for a in apis) >= billed
        assert rows[status]["hours"] == round(names * model["per_name"][status] + billed * model["per_site"][status], 2)
    for status, row in rows.items():  # the JSON says what each status's hours are made of
        assert row["billed"] == sum(a["billed"] for a in data["apis"] if a["status"] == status)
        assert row["site_hours"] == round(row["billed"] * effort["per_site"][status], 2)
        assert abs(row["name_hours"] + row["site_hours"] - row["hours"]) <= 0.011, row
    assert effort["per_name"] == {status.value: hours for status, hours in model["per_name"].items()}
    codes = {c["code"]: c["billed"] for c in data["codes"]}
    inventory = {i["code"]: i["hours"] for i in effort["inventory"]}
    assert inventory == {code: round(codes[code] * each, 2) for code, each in model["inventory"].items() if codes.get(code)}
    api_files = {path for a in data["apis"] for path in a["files"]}
    parse_errors = {f["path"] for f in data["files"] if f["parse_error_line"] is not None}
    files = {f["kind"]: f["hours"] for f in effort["files"]}
    assert files == {kind: round(len(paths) * model["per_file"][kind], 2)
                     for kind, paths in (("api", api_files), ("parse_error", parse_errors)) if paths}
    assert files["api"] == 0.0  # the fitted model bills host code by its lines instead (below)
    kernel_files = {k["path"] for k in data["kernels"]}
    host = {f["path"]: f["lines"] for f in data["files"]
            if f["kind"] == "source" and f["path"] in api_files and f["path"] not in kernel_files}
    assert host and kernel_files & api_files  # the example has host code apart from its kernel files
    lines = {item["kind"]: item for item in effort["lines"]}
    assert (lines["host"]["files"], lines["host"]["count"]) == (len(host), sum(host.values()))
    assert lines["host"]["hours"] == round(sum(host.values()) * model["per_line"]["host"], 2) > 0
    parts = sum(r["hours"] for r in rows.values()) + sum(inventory.values()) + sum(files.values()) + lines["host"]["hours"]
    assert abs(effort["hours"] - parts) <= 0.03  # the total of the unrounded parts, to the hundredth
    assert effort["person_days"] == round(effort["hours"] / 6, 1)
    assert data["plan"]["readiness"]["score"] == 94


REDUCE = """#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__global__ void k(float* p) {
  auto warp = cg::tiled_partition<32>(cg::this_thread_block());
  p[0] = cg::reduce(warp, p[0], cg::plus<float>{});
  p[1] = cg::reduce(warp, p[1], cg::greater<float>{});
}
__device__ unsigned active() { return __activemask(); }
"""


def test_one_site_is_billed_once(tmp_path: Path, capsys) -> None:
    """A call and its functor and header are one piece of work; a name portkit's helper spells is done."""
    (tmp_path / "k.cu").write_text(REDUCE)
    assert main(["scan", "-f", "json", "--rocm-version", "5.2", str(tmp_path)]) == 0
    apis = {a["name"]: a for a in json.loads(capsys.readouterr().out)["apis"]}
    billed = {name: (a["sites"], a["billed"]) for name, a in apis.items()}
    assert billed["cooperative_groups::reduce"] == (2, 2)
    assert billed["cooperative_groups::plus"] == billed["cooperative_groups::greater"] == (1, 0)
    assert billed["cooperative_groups/reduce.h"] == (1, 0)  # the file uses the library's names
    assert billed["__activemask"] == (1, 0) and apis["__activemask"]["hip"] == "portkit_activemask"
    assert apis["cooperative_groups::plus"]["hours"] == apis["__activemask"]["hours"] == 0


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


_CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                   "--disable-background-networking", "--disable-component-update", "--disable-sync",
                   "--host-resolver-rules=MAP * ~NOTFOUND", "--enable-logging=stderr", "--v=0"]
# Injected after the page's own script: drives the inventory filter and sorting as a user would,
# and writes what it saw (and every resource the page loaded) into the DOM for --dump-dom.
_PROBE = """<script>
(function () {
  var seen = {};
  var rows = function () { return Array.prototype.slice.call(document.querySelectorAll("#inventory tr[data-api]")); };
  var visible = function () { return rows().filter(function (r) { return !r.hidden && !r.closest("details").hidden; })
                                           .map(function (r) { return r.dataset.api; }); };
  seen.before = visible().length;
  var input = document.getElementById("inventory-text");
  input.value = "ncclallreduce";
  input.dispatchEvent(new Event("input"));
  seen.filtered = visible();
  seen.open = Array.prototype.slice.call(document.querySelectorAll("#inventory details.library"))
    .filter(function (d) { return d.open; }).map(function (d) { return d.dataset.library; });
  seen.count = document.getElementById("inventory-count").textContent;
  input.value = "";
  input.dispatchEvent(new Event("input"));
  var sites = document.querySelector("#inventory details[data-library=cuda-runtime] th[data-key=sites]");
  sites.click(); sites.click();
  seen.sorted = Array.prototype.slice.call(sites.closest("table").tBodies[0].rows)
    .map(function (r) { return parseInt(r.dataset.sites, 10); });
  seen.resources = performance.getEntriesByType("resource").map(function (e) { return e.name; });
  var out = document.createElement("pre");
  out.id = "probe";
  out.textContent = JSON.stringify(seen);
  document.body.appendChild(out);
})();
</script>"""


def chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    require(browser is not None, "chromium not installed (Debian package chromium)")
    run = subprocess.run([browser, *_CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}", *args],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    console = [line for line in run.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert not console, console
    return run


def test_html_renders_in_chromium(tmp_path: Path) -> None:
    page = report(tmp_path, "r.html")
    shot = tmp_path / "report.png"
    chromium(tmp_path, "--window-size=1300,1800", f"--screenshot={shot}", page.as_uri())
    assert shot.stat().st_size > 20_000
    dom = chromium(tmp_path, "--dump-dom", page.as_uri()).stdout
    assert 'data-ready="1"' in dom, "the page's script did not finish"
    data = json.loads(report(tmp_path, "r.json").read_text())
    listed = sum(1 for f in data["findings"] if f["code"] != "PK100")  # every finding but clean renames
    assert f"{listed} of {listed} shown" in dom
    assert dom.count("<tr data-status=") == listed


def test_html_inventory_lists_every_api(tmp_path: Path) -> None:
    """ncclAllReduce maps cleanly, and the report still names it, with its RCCL spelling."""
    data = json.loads(report(tmp_path, "r.json").read_text())
    html = report(tmp_path, "r.html").read_text()
    for api in data["apis"]:
        assert f'data-api="{escape(api["name"])}"' in html, api["name"]
    assert html.count("<tr data-api=") == len(data["apis"])
    row = html[html.index('<tr data-api="ncclAllReduce"'):]
    row = row[:row.index("</tr>")]
    assert "<code>ncclAllReduce</code>" in row and "status-supported" in row
    assert html.count('<details class="library"') == len(data["libraries"])


def test_html_filter_and_sort_in_chromium(tmp_path: Path) -> None:
    page = report(tmp_path, "r.html")
    probed = tmp_path / "probed.html"
    probed.write_text(page.read_text().replace("</body>", _PROBE + "\n</body>"))
    dom = chromium(tmp_path, "--virtual-time-budget=5000", "--dump-dom", probed.as_uri()).stdout
    seen = json.loads(unescape(re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S).group(1)))
    data = json.loads(report(tmp_path, "r.json").read_text())
    assert seen["before"] == len(data["apis"])
    assert seen["filtered"] == ["ncclAllReduce"] and seen["open"] == ["nccl"]
    assert seen["count"] == f"1 of {len(data['apis'])} APIs shown"
    assert seen["sorted"] == sorted(seen["sorted"], reverse=True) and len(set(seen["sorted"])) > 1
    assert seen["resources"] == [], "the report loaded something: it must be self-contained"
    # A link can carry the filter: ?q=...&status=...
    dom = chromium(tmp_path, "--dump-dom", page.as_uri() + "?q=curand&status=supported").stdout
    shown = re.findall(r'<tr data-api="([^"]+)"[^>]*data-status="(\w+)"(?![^>]*hidden)[^>]*>', dom)
    assert shown and all(name.lower().startswith("curand") or "curand" in name.lower() for name, _ in shown)
    assert {status for _, status in shown} == {"supported"}


def test_markdown_lists_every_api(tmp_path: Path) -> None:
    data = json.loads(report(tmp_path, "r.json").read_text())
    text = report(tmp_path, "r.md").read_text()
    assert "## Dependency inventory" in text and "## Where the work is" in text
    assert "| `ncclAllReduce` | `ncclAllReduce` |  | supported | 1 | 1 |" in text
    for api in data["apis"]:
        assert f"| `{api['name']}` |" in text, api["name"]
    for row in data["plan"]["files"]:
        assert f"| `{row['path']}` | {row['hours']} |" in text
    assert "Shortened to fit" not in text


def test_markdown_fits_a_pull_request_comment(tmp_path: Path, database) -> None:
    from test_cli_scan import _big_tree

    _big_tree(tmp_path / "tree", database)
    out = tmp_path / "r.md"
    assert main(["report", "--rocm-version", "6.2", str(tmp_path / "tree"), "-o", str(out)]) == 0
    text = out.read_text()
    assert 30_000 < len(text) <= 60_000
    assert "Shortened to fit a pull-request comment" in text and "`portkit report -o report.html`" in text
    assert re.search(r"\| … and \d+ more names \|", text) and re.search(r"\| … and \d+ more sites \|", text)


LAYER = "#pragma once\n#include <hip/hip_runtime.h>\n#define cudaStream_t hipStream_t\n"
LAYERED_UNIT = ("{test}\n#include \"{layer}\"\n#else\n#include <cuda_runtime.h>\n#endif\n"
                "__global__ void k(int *p) {{ p[threadIdx.x] = 1; }}\n"
                "void go(int *p, cudaStream_t s) {{ k<<<1, 32, 0, s>>>(p); }}\n")


def layered_tree(tree: Path, test: str, layer: str = "gpu/hip_layer.h") -> Path:
    (tree / layer).parent.mkdir(parents=True)
    (tree / layer).write_text(LAYER)
    (tree / "k.cu").write_text(LAYERED_UNIT.format(test=test, layer=layer))
    return tree


@pytest.mark.parametrize("test, switch", [
    ("#if defined(GGML_USE_HIP)", " (selected by GGML_USE_HIP)"),
    ("#ifdef GGML_USE_HIP  // llama.cpp's switch", " (selected by GGML_USE_HIP)"),
    ("#if GGML_USE_HIP", " (selected by GGML_USE_HIP)"),
    ("#if defined(GGML_USE_MUSA)\n#include <musa_runtime.h>\n#elif defined(GGML_USE_HIP)", " (selected by GGML_USE_HIP)"),
    ("#if defined(GGML_USE_HIP) && !defined(NDEBUG)", ""),  # more than a switch: the note names no macro
    ("#ifndef GGML_USE_CUDA", ""),
], ids=["if-defined", "ifdef", "if", "elif", "compound", "ifndef"])
def test_the_hip_layer_note_names_its_switch(tmp_path: Path, capsys, test: str, switch: str) -> None:
    """The note named vendors/hip.h but not GGML_USE_HIP, the macro that builds it: where the #if that includes the
    layer tests one macro, the note says so."""
    tree = layered_tree(tmp_path / "tree", test)
    assert main(["scan", "--no-cache", "-f", "json", str(tree)]) == 0
    layer = tree / "gpu" / "hip_layer.h"
    assert json.loads(capsys.readouterr().out)["notes"] == [
        f"the project already has a HIP path: {layer}{switch}; convert leaves it as written"]


def test_every_report_carries_the_notes(tmp_path: Path) -> None:
    """The text summary showed the notes (the tree has its own HIP layer), the Markdown and HTML reports did not.
    Each carries them now, escaped as the rest of its text is: a layer whose path reads as markup stays text."""
    tree = layered_tree(tmp_path / "tree", "#ifdef PROJECT_HIP", layer="a<b>&c/hip_layer.h")
    reports = {}
    for name in ("r.json", "r.md", "r.html"):
        assert main(["report", "--no-cache", str(tree), "-o", str(tmp_path / name)]) == 0
        reports[name] = (tmp_path / name).read_text()
    note = (f"the project already has a HIP path: {tree / 'a<b>&c' / 'hip_layer.h'} (selected by PROJECT_HIP); "
            "convert leaves it as written")
    assert json.loads(reports["r.json"])["notes"] == [note]
    assert f"\n## Notes\n\n- {markdown_text(note)}\n\n## Effort estimate\n" in reports["r.md"]
    assert "a&lt;b>&amp;c/hip_layer.h (selected by PROJECT_HIP)" in markdown_text(note)
    assert f"<li>{escape(note)}</li>" in reports["r.html"]
    dom = chromium(tmp_path, "--dump-dom", (tmp_path / "r.html").as_uri()).stdout
    shown = re.search(r'<ul id="notes">\s*<li>(.*?)</li>\s*</ul>', dom, re.S)
    assert shown is not None and unescape(shown.group(1)) == note and "<b>" not in shown.group(1)
