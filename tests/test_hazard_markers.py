"""Hazards stay visible in the converted tree: one marker per hazard site (its line and code), idempotent,
never inside a raw string or after a line continuation, and none with --no-hazard-markers."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from portkit.cli import main
from portkit.codes import CODES, in_group
from portkit.model import Severity

CASES = Path(__file__).parent / "cases"
HAZARD_CASES = sorted(CASES.glob("hazards_*.cu"))
_EXPECT = re.compile(r"\bexpect:\s*((?:PK\d{3}\s*)+)")
_LISTED = re.compile(r"^  .*?:(\d+): (PK3\d\d) ", re.M)


def _hazard_sites(path: Path) -> set[tuple[int, str]]:
    """(line, code) of each hazard the case file expects that convert leaves to a person (not an error it repairs)."""
    sites = set()
    for number, line in enumerate(path.read_text().splitlines(), 1):
        for match in _EXPECT.finditer(line):
            sites |= {(number, code) for code in match.group(1).split() if in_group(code, "hazard")}
    return sites


@pytest.mark.parametrize("case", HAZARD_CASES, ids=lambda p: p.name)
def test_one_marker_per_hazard_site(case: Path, tmp_path: Path, capsys) -> None:
    expected = _hazard_sites(case)
    assert expected and not any(CODES[code].severity is Severity.ERROR and code in ("PK338", "PK339", "PK340")
                                for _, code in expected)
    out = tmp_path / "out"
    assert main(["convert", "--no-cache", "--details", "--rocm-version", "6.3", str(case), "-o", str(out)]) == 0
    listed = [(int(line), code) for line, code in _LISTED.findall(capsys.readouterr().out)]
    assert sorted(listed) == sorted(expected), "each site listed once, at its line"
    text = (out / case.name).read_text()
    assert len(re.findall(r"portkit: PK3\d\d ", text)) == len(expected), "each site marked once in the code"
    assert main(["convert", "--no-cache", "--rocm-version", "6.3", str(out), "-o", str(tmp_path / "again")]) == 0
    assert (tmp_path / "again" / case.name).read_text() == text, "converting again adds nothing"


def test_no_hazard_markers_leaves_only_the_names(tmp_path: Path, capsys) -> None:
    case = CASES / "hazards_warps.cu"
    out = tmp_path / "out"
    assert main(["convert", "--no-cache", "--no-hazard-markers", "--rocm-version", "6.3", str(case), "-o", str(out)]) == 0
    text = (out / case.name).read_text()
    assert "portkit: PK3" not in text and "portkit: PK10" in text


def test_markers_stay_out_of_raw_strings_and_continued_lines(tmp_path: Path) -> None:
    tree = tmp_path / "in"
    tree.mkdir()
    (tree / "k.cu").write_text('__global__ void k(int *out) {\n  const char *s = R"(text\n)"; int lane = threadIdx.x % 32;\n'
                               "  out[lane] = s[0];\n  int w = threadIdx.x / 32; out[w] = 1; \\\n"
                               "  out[threadIdx.x & 31] = 2;\n}\n")
    assert main(["convert", "--no-cache", str(tree), "-o", str(tmp_path / "out")]) == 0
    text = (tmp_path / "out" / "k.cu").read_text()
    assert 'R"(text\n)"; int lane = threadIdx.x % /* portkit: PK300 32: ' in text, "not inside the raw string"
    assert "\\\n  out[threadIdx.x & /* portkit: PK300 31: " in text, "not a line comment after a continuation"
    assert text.count("portkit: PK300") == 3
    assert main(["convert", "--no-cache", str(tmp_path / "out"), "-o", str(tmp_path / "again")]) == 0
    assert (tmp_path / "again" / "k.cu").read_text() == text
    if shutil.which("hipcc"):
        from portkit.convert.hipcc_check import VerifyStatus, verify_file
        assert verify_file(shutil.which("hipcc"), tmp_path / "out" / "k.cu", (), "gfx90a").status is VerifyStatus.PASS


def test_a_long_marker_is_cut_between_words(tmp_path: Path) -> None:
    """A marker longer than a line's budget ends at a word, not inside one ('... as `dim3(warpSi...')."""
    source = tmp_path / "k.cu"
    source.write_text("__global__ void k(float *x) { int lane = threadIdx.x % 32; x[lane] = 0; }\n")
    assert main(["scan", "--no-cache", "-f", "json", "-o", str(tmp_path / "scan.json"), str(source)]) == 0
    advice = {" ".join(f["advice"].split()) for f in json.loads((tmp_path / "scan.json").read_text())["findings"]
              if f["code"] == "PK300"}
    assert main(["convert", "--no-cache", str(source), "-o", str(tmp_path / "out")]) == 0
    markers = [line.strip() for line in (tmp_path / "out" / "k.cu").read_text().splitlines() if "portkit: PK300" in line]
    assert markers and len(advice) == 1 and all(m.endswith("...") for m in markers), markers
    full = advice.pop()
    for marker in markers:
        shown = marker.removeprefix("// portkit: ").removesuffix("...").split(": ", 1)[1]
        assert full.startswith(shown) and not full[len(shown)].isalnum(), marker
