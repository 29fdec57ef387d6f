"""Text from sources and file names never becomes markup, terminal control or broken lines:
Markdown and HTML are escaped, SARIF URIs percent-encoded, control characters escaped in
every text output (terminal, check lines, convert summary, error messages)."""
from __future__ import annotations

import json
import os
import re
import urllib.parse
from pathlib import Path

import pytest

from portkit.cli import main
from safety_kit import CUDA, UNSUPPORTED, portkit, write

ESC = "\x1b"
HOSTILE_NAMES = [f"e{ESC}[31mred.cu", "new\nline.cu", "a|b`c`[x](javascript:alert(1)).cu", "<script>x</script>.cu",
                 "**bold**_x_.cu", "bi\u202edi.cu", "car\rriage.cu"]
UNDECODABLE = b"l\xffatin.cu"


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    for name in HOSTILE_NAMES:
        write(src / name, CUDA + UNSUPPORTED + b"__global__ void k() {}\nvoid h() { k<<<1, 1>>>(); }\n")
    os.makedirs(src, exist_ok=True)
    with open(os.path.join(os.fsencode(src), UNDECODABLE), "wb") as handle:
        handle.write(CUDA + UNSUPPORTED)
    write(src / "Dockerfile", "FROM nvidia/cuda:12.2.0-devel<script>alert(1)</script>\n"
                              "RUN echo '<img src=x onerror=alert(1)>' | tee /x\n")
    return src


def _raw_control(text: str) -> list[str]:
    return [c for c in text if (ord(c) < 32 and c not in "\n") or 0x7f <= ord(c) < 0xa0 or c in "\u202e"
            or 0xd800 <= ord(c) < 0xe000]


@pytest.mark.parametrize("fmt", ["md", "html", "json", "sarif", "text"])
def test_reports_render_hostile_names_and_sources(fmt: str, hostile: Path, tmp_path: Path) -> None:
    out = tmp_path / f"r.{'txt' if fmt == 'text' else fmt}"
    assert main(["scan", "-f", fmt, "-o", str(out), str(hostile)]) == 0
    data = out.read_bytes()
    text = data.decode("utf-8")  # always valid UTF-8, whatever the names
    assert not _raw_control(text), _raw_control(text)
    if fmt == "md":  # code spans are literal text in Markdown; everything else must hold no markup
        prose = re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "CODE", text)
        prose = re.sub(r"</?(details|summary|b)>", "", prose)  # the report's own collapsible sections
        assert "<" not in prose.replace("&lt;", "") and not re.search(r"(?<!\\)\]\(", prose), prose
        for line in text.splitlines():
            if line.startswith("| ") and "PK102" in line:
                assert line.count(" | ") == 5, line  # no name splits a table row
    if fmt == "html":
        assert "<img" not in text and text.count("<script>") == 1  # the report's own
        assert "&lt;script&gt;" in text


def test_sarif_uris_are_percent_encoded_and_name_the_real_files(hostile: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(hostile)
    out = tmp_path / "r.sarif"
    assert main(["scan", "-f", "sarif", "-o", str(out), "."]) == 0
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in json.loads(out.read_text())["runs"][0]["results"]}
    assert uris
    for uri in uris:
        assert all(c.isalnum() or c in "-._~/%" for c in uri), uri
        assert os.path.exists(urllib.parse.unquote_to_bytes(uri)), uri
    assert "l%FFatin.cu" in uris and "a%7Cb%60c%60%5Bx%5D%28javascript%3Aalert%281%29%29.cu" in uris


def test_markdown_code_spans_hold_backticks_and_pipes(tmp_path: Path) -> None:
    from portkit.templating import code, markdown_text

    assert code("a`b") == "``a`b``" and code("`x") == "`` `x ``" and code("a|b") == "`a\\|b`"
    assert markdown_text("<b>&amp;") == "&lt;b>&amp;amp;"
    assert markdown_text("[x](y) *z* __init__ sm_90 a|b") == "\\[x\\](y) \\*z\\* \\_\\_init\\_\\_ sm_90 a\\|b"


def test_terminal_check_convert_and_errors_escape_control_characters(hostile: Path, tmp_path: Path) -> None:
    runs = [
        portkit(["scan", str(hostile)], tmp_path),
        portkit(["check", str(hostile)], tmp_path),
        portkit(["convert", str(hostile), "-o", str(tmp_path / "out")], tmp_path),
        portkit(["convert", "--diff", str(hostile)], tmp_path),
        portkit(["scan", str(hostile / f"gone{ESC}[2J\nx.cu")], tmp_path),
        portkit(["check", f"--diff=x{ESC}]0;title\x07"], tmp_path),
    ]
    runs[3].out = "".join(line for line in runs[3].out.splitlines(True) if line.startswith(("---", "+++")))  # headers
    for run in runs:
        assert ESC not in run.out + run.err and "\r" not in run.out + run.err and "\u202e" not in run.out + run.err
    assert runs[1].code == 1 and runs[1].out.count("\n") == runs[1].out.count("PK102")  # one line per finding
    assert "\\x1b[31mred.cu" in runs[1].out and "new\\nline.cu" in runs[1].out
    for failed in runs[4:]:
        assert failed.code == 2 and len(failed.err_lines) == 1, failed.err


def test_markdown_escapes_what_rule_files_bring(tmp_path: Path) -> None:
    rules = write(tmp_path / "mine.yaml", "library: mine\ntitle: '<iframe src=x>'\nentries:\n"
                                          "  - cuda: myCall\n    kind: function\n    status: unsupported\n"
                                          "    note: '<script>alert(1)</script> | [x](javascript:1)'\n")
    write(tmp_path / "src" / "k.cu", "void f() { myCall(); }\n")
    out = tmp_path / "r.md"
    assert main(["report", "--rules", str(rules), "-o", str(out), str(tmp_path / "src")]) == 0
    text = out.read_text()
    assert "<iframe" not in text
    assert "<script" not in text
    assert not re.search(r"(?<!\\)\]\(", text)  # "[x](y)" only with its brackets escaped
