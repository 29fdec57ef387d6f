"""`--format csv`: one RFC 4180 row per scanned file, and the same per-file counts in the Markdown and HTML reports."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from conftest import EXAMPLES
from portkit.cli import main
from portkit.report.files import CSV_COLUMNS

MIXED = """void f(float* p) { cudaMalloc(&p, 4); cudaFree(p); }
__global__ void k(unsigned* o) {
  o[0] = __ballot_sync(0xffffffff, 1);
  o[1] = threadIdx.x % 32;
}
"""


def scan(tmp_path: Path, fmt: str, *paths: str | Path) -> str:
    out = tmp_path / f"r.{fmt}"
    assert main(["scan", "--rocm-version", "5.2", "-f", fmt, "-o", str(out), *map(str, paths)]) == 0
    return out.read_bytes().decode("utf-8")


def rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text, newline="")))


def test_csv_has_one_row_per_file_in_path_order(tmp_path: Path) -> None:
    text = scan(tmp_path, "csv", EXAMPLES / "option-pricer")
    data = json.loads(scan(tmp_path, "json", EXAMPLES / "option-pricer"))
    assert text.startswith(",".join(CSV_COLUMNS) + "\r\n")
    assert text.count("\r\n") == text.count("\n") == len(data["files"]) + 1  # RFC 4180 line ends, header + a row per file
    found = rows(text)
    assert [r["path"] for r in found] == sorted(f["path"] for f in data["files"])
    hours = {f["path"]: f["hours"] for f in data["plan"]["files"]}
    for row in found:
        mine = [f for f in data["findings"] if f["path"] == row["path"]]
        for status in ("supported", "partial", "unsupported", "removed", "unavailable"):
            assert int(row[status]) == sum(f["status"] == status for f in mine), (row, status)
        assert int(row["api_sites"]) == sum(bool(f["status"]) for f in mine)
        assert float(row["hours"]) == hours.get(row["path"], 0.0)
        assert int(row["lines"]) == next(f["lines"] for f in data["files"] if f["path"] == row["path"])
    assert sum(float(r["hours"]) for r in found) == pytest.approx(data["plan"]["effort"]["hours"], abs=0.1)


def test_mechanical_share_counts_lines_whose_every_site_is_a_clean_rename(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "k.cu").write_text(MIXED)
    (row,) = rows(scan(tmp_path, "csv", tmp_path / "src"))
    # line 1: two clean renames; line 3: __ballot_sync (unavailable on 5.2) and a 32-bit mask; line 4: a warp-size literal
    assert (row["supported"], row["unavailable"], row["cuda_lines"], row["mechanical_lines"], row["mechanical_percent"]) == (
        "2", "1", "3", "1", "33.3")
    assert int(row["hazards"]) >= 2


def test_csv_quotes_what_must_be_quoted(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / 'a,"b" c.cu').write_text(MIXED)
    (src / "plain.txt").write_text("no CUDA here\n")
    text = scan(tmp_path, "csv", src)
    assert f'"{src}/a,""b"" c.cu",source,5,' in text
    found = rows(text)
    assert [Path(r["path"]).name for r in found] == ['a,"b" c.cu']  # .txt is not scanned
    assert found[0]["mechanical_percent"] == "33.3"


def test_csv_report_by_extension_and_an_empty_share_without_cuda(tmp_path: Path) -> None:
    out = tmp_path / "files.csv"
    assert main(["scan", "--rocm-version", "5.2", "-f", "json", "-o", str(tmp_path / "s.json"), "--report", str(out),
                 str(EXAMPLES / "option-pricer")]) == 0
    docker = next(r for r in rows(out.read_bytes().decode()) if r["path"].endswith("Dockerfile"))
    assert (docker["cuda_lines"], docker["mechanical_percent"]) == ("0", "")


def test_markdown_and_html_show_the_per_file_table(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "k.cu").write_text(MIXED)
    markdown = scan(tmp_path, "md", tmp_path / "src")
    assert "| file | hours | lines | supported | partial | unsupported | removed | unavailable | hazards | mechanical |" in markdown
    assert f"| `{tmp_path}/src/k.cu` |" in markdown and "| 5 | 2 | 0 | 0 | 0 | 1 |" in markdown
    assert "| 33.3% (1 of 3) |" in markdown
    html = scan(tmp_path, "html", tmp_path / "src")
    assert 'data-lines="5" data-supported="2" data-partial="0" data-unsupported="0" data-removed="0" data-unavailable="1"' in html
    assert 'data-mechanical="33.3"' in html and "33.3% <span class=\"muted\">(1 of 3)</span>" in html
