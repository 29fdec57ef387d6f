"""What a terminal shows: NO_COLOR, a headline that fits 80 columns, names that stay distinct when cut,
progress on stderr whenever stderr is a terminal, and reports that survive a reader of stdout going away."""
from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from portkit.cli import main
from portkit.textutil import cut_column, wrap_points
from conftest import EXAMPLES, ROOT

COLOUR = re.compile(r"\x1b\[[0-9;]*?(?:3[0-7]|9[0-7]|38;[0-9;]+)m")  # a foreground colour, plain or 256/true colour
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
COOPERATIVE = """#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(int *out) {
  cg::thread_block_tile<32> t = cg::tiled_partition<32>(cg::this_thread_block());
  out[0] = t.meta_group_size();
  out[1] = t.meta_group_rank();
}
"""


def _on_terminal(argv: list[str], tmp: Path, *, columns: int = 80, stdout_file: Path | None = None,
                 **env: str) -> tuple[int, str]:
    """`python -m portkit ARGV` with stderr (and stdout, unless `stdout_file`) on a pseudo-terminal
    `columns` wide; its exit code and what the terminal received."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "PORTKIT_CACHE_DIR": str(tmp / ".cache"),
                   "TERM": "xterm-256color", **env}
    for name in ("COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR", "TERM_PROGRAM"):
        if name not in env:
            environment.pop(name, None)
    with open(stdout_file, "wb") if stdout_file else open(os.devnull, "wb") as sink:
        child = subprocess.Popen([sys.executable, "-m", "portkit", *argv], stdin=slave,
                                 stdout=sink if stdout_file else slave, stderr=slave, env=environment, cwd=tmp)
        os.close(slave)
        received = bytearray()
        while True:
            ready, _, _ = select.select([master], [], [], 120)
            try:
                chunk = os.read(master, 65536) if ready else b""
            except OSError:  # EIO: the child closed the terminal
                chunk = b""
            if not chunk:
                break
            received += chunk
        code = child.wait(timeout=120)
    os.close(master)
    return code, received.decode("utf-8", "replace")


def test_colour_on_a_terminal_and_none_with_no_color(tmp_path: Path) -> None:
    argv = ["scan", "--rocm-version", "5.2", str(EXAMPLES / "option-pricer")]
    code, shown = _on_terminal(argv, tmp_path)
    assert code == 0 and COLOUR.search(shown), shown[:300]  # the test can fail: colour is there by default
    code, shown = _on_terminal(argv, tmp_path, NO_COLOR="1")
    assert code == 0 and "readiness" in shown and not COLOUR.search(shown), shown[:300]
    code, shown = _on_terminal([*argv[:1], "--color", *argv[1:]], tmp_path, NO_COLOR="1")
    assert code == 0 and COLOUR.search(shown)  # an explicit --color wins over the environment


EFFORT = re.compile(r"readiness \d+%, effort \d+(\.\d+)? person-days \(\d+(\.\d+)? h\)")


def test_headline_fits_80_columns_without_cutting_a_number(tmp_path: Path) -> None:
    code, shown = _on_terminal(["scan", "--rocm-version", "5.2", str(EXAMPLES / "option-pricer")], tmp_path, NO_COLOR="1")
    lines = [ANSI.sub("", line) for line in shown.replace("\r", "").splitlines()]
    assert code == 0 and max(len(line) for line in lines) <= 80, lines
    assert EFFORT.search(lines[1]) and "…" not in "".join(lines[:6]), lines[:6]


@pytest.mark.parametrize("columns", [50, 64])
def test_headline_wraps_between_its_parts_when_narrower(columns: int, capsys, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", str(columns))
    assert main(["scan", "--no-color", "--rocm-version", "5.2", str(EXAMPLES / "option-pricer")]) == 0
    lines = capsys.readouterr().out.splitlines()
    head = lines[:lines.index(next(line for line in lines if line.startswith("CUDA libraries")))]
    assert max(len(line) for line in head) <= columns and "…" not in "".join(head), head
    joined = " ".join(line.strip() for line in head)
    assert EFFORT.search(joined) and "unsupported 0, removed 0, unavailable 2" in joined, head
    assert all(line.startswith("  ") for line in head if not line.startswith(("portkit", "at ", "API", "hazards", "CUDA")))


def test_a_table_title_wider_than_its_table_stays_on_one_line(tmp_path: Path, capsys, monkeypatch) -> None:
    """A narrow table (a build file's few columns) kept its title to its own width: "Hazards and build items (0 hazards,
    1 build and environment" broke before "items)"."""
    (tmp_path / "CMakeLists.txt").write_text("project(p LANGUAGES CXX CUDA)\n")
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["scan", "--no-color", "--rocm-version", "5.2", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "Hazards and build items (0 hazards, 1 build and environment items)" in lines, lines


def test_cut_names_stay_distinct() -> None:
    names = ["cooperative_groups::thread_block_tile::meta_group_size",
             "cooperative_groups::thread_block_tile::meta_group_rank", "cooperative_groups::thread_block_tile::shfl",
             "cudaMalloc"]
    assert cut_column(names, 30) == ["cooperative_…::meta_group_size", "cooperative_…::meta_group_rank",
                                     "cooperative_…_block_tile::shfl", "cudaMalloc"]
    assert cut_column(["x" * 40, "x" * 39 + "y"], 10) == ["xxx…xxxxxx", "xxx…xxxxxy"]
    assert cut_column(["advice that is long " + "a", "advice that is long " + "b"], 10) == ["advice th…"] * 2  # prose


def test_cut_names_stay_distinct_in_the_summary(tmp_path: Path, capsys, monkeypatch) -> None:
    (tmp_path / "k.cu").write_text(COOPERATIVE)
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["scan", "--no-color", "--rocm-version", "5.2", str(tmp_path)]) == 0
    rows = [line.split()[0] for line in capsys.readouterr().out.splitlines() if line.startswith("cooperative_")]
    assert "cooperative_…::meta_group_rank" in rows and "cooperative_…::meta_group_size" in rows
    assert len(rows) == len(set(rows)) == 5, rows


def _tree(root: Path, files: int = 60) -> Path:
    for index in range(files):
        (root / "src" / f"k{index}.cu").parent.mkdir(parents=True, exist_ok=True)
        (root / "src" / f"k{index}.cu").write_text(f"void f{index}() {{ cudaDeviceSynchronize(); }}\n")
    return root / "src"


def test_progress_on_stderr_whenever_it_is_a_terminal(tmp_path: Path) -> None:
    _tree(tmp_path)
    out = tmp_path / "scan.json"
    code, shown = _on_terminal(["scan", "--no-cache", "--format", "json", "src"], tmp_path, stdout_file=out)
    assert code == 0 and "scanning" in shown, shown
    assert json.loads(out.read_text())["summary"]["source_files"] == 60
    done = subprocess.run([sys.executable, "-m", "portkit", "scan", "--no-cache", "src"], cwd=tmp_path, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(ROOT), "PORTKIT_CACHE_DIR": str(tmp_path / "c")})
    assert done.returncode == 0 and "scanning" not in done.stderr  # not a terminal: nothing drawn


@pytest.mark.parametrize("argv", [["scan", "--report", "r.html", "--report", "r.md"],
                                  ["scan", "-f", "json", "--report", "r.html", "--report", "r.md"]])
def test_reports_are_written_when_the_reader_of_stdout_goes_away(argv: list[str], tmp_path: Path) -> None:
    read, write = os.pipe()
    os.close(read)  # `| head -1` gone before portkit writes
    done = subprocess.run([sys.executable, "-m", "portkit", *argv, str(EXAMPLES / "option-pricer")], cwd=tmp_path,
                          stdout=write, stderr=subprocess.PIPE, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "PORTKIT_CACHE_DIR": str(tmp_path / "c")})
    os.close(write)
    assert done.returncode == 141 and done.stderr == ""
    assert (tmp_path / "r.html").read_text().rstrip().endswith("</html>")
    assert "option-pricer" in (tmp_path / "r.md").read_text()


HIP_SWITCH = ("#ifdef USE_ROCM\n#include <hip/hip_runtime.h>\n#include <hip/hip_bf16.h>\n#else\n#include <cuda_runtime.h>\n"
              "#include <cuda_bf16.h>\n#endif\n__global__ void k(int *p) { p[threadIdx.x] = 1; }\n"
              "void go(int *p) { k<<<1, 32>>>(p); }\n")


@pytest.mark.parametrize("columns", [None, "60", "80"])
def test_a_note_wraps_between_words_in_a_pipe(columns: str | None, tmp_path: Path, capsys, monkeypatch) -> None:
    """`portkit scan DIR | cat`: a note longer than a line wrapped where rich folded it: 'not billed ' then '(convert
    still...' on a line of its own, unindented, and 'HIP ' at one line's end with '5.7.0,' on the next."""
    (tmp_path / "a.cu").write_text(HIP_SWITCH)
    if columns:
        monkeypatch.setenv("COLUMNS", columns)
    else:
        monkeypatch.delenv("COLUMNS", raising=False)
    assert main(["scan", "--no-color", "--rocm-version", "5.2", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    first = [i for i, line in enumerate(lines) if line.startswith("note: ")]
    end = next(i for i, line in enumerate(lines) if line.startswith("CUDA libraries"))
    assert len(first) == 2, lines
    shown = lines[first[0]:end]
    width = int(columns or 100)
    assert all(len(line) <= width and line == line.rstrip() for line in shown), shown
    assert all(line.startswith(("note: ", "  ")) and not line.startswith("   ") for line in shown), shown
    notes = [" ".join(" ".join(shown[a - first[0]:b - first[0]]).split()) for a, b in zip(first, first[1:] + [end])]
    assert notes[1] == ("note: the project's own HIP branches need ROCm 5.7.0 or newer: they include <hip/hip_bf16.h> "
                        "(HIP 5.7.0, in 1 file), which the targeted HIP 5.2.0 lacks"), shown
    assert notes[0].endswith("are not billed (convert still converts and marks them, for a build without it)"), shown
    for line in shown:  # a number stays beside its word
        assert not re.search(r"(HIP|ROCm|in)$", line) and not re.match(r"\s*\(?\d", line), shown


def test_wrap_points_never_split_a_word() -> None:
    text = "note: a " + "x" * 30 + " word, wider than the line, stays whole; 12 files"
    cuts = wrap_points(text, 20)
    lines = [text[a:b].rstrip() for a, b in zip([0] + cuts, cuts + [len(text)])]
    assert "".join(line + " " for line in lines).split() == text.split()
    assert ("x" * 30) in lines and all(len(line) <= 18 for line in lines[2:]), lines
    assert wrap_points("short", 20) == []
