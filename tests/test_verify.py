"""`convert --verify` sorts what hipcc says per unit: builds, stops at a marked site (expected: the summary
already lists the work there), or fails unmarked (a conversion portkit got wrong: exit 1)."""
from __future__ import annotations

import io
from pathlib import Path

from conftest import require_tool
from portkit.cli import main
from portkit.convert import hipcc_check


def _verify(tmp_path: Path, files: dict[str, str]) -> int:
    tree = tmp_path / "in"
    tree.mkdir()
    for name, text in files.items():
        (tree / name).write_text(text)
    return main(["convert", "--verify", "--no-cache", "--rocm-version", "5.2", str(tree), "-o", str(tmp_path / "out")])


def test_a_unit_that_stops_at_a_marked_call_is_expected(tmp_path: Path, capsys) -> None:
    require_tool("hipcc")
    code = _verify(tmp_path, {"cluster.cu": "__global__ void k(int *f) {\n  __cluster_barrier_arrive();\n  *f = 1;\n}\n",
                              "fine.cu": "__global__ void z(int *f) { *f = 0; }\n"})
    report = capsys.readouterr().out
    assert code == 0, report
    assert "hipcc: 1 build, 1 stop at a marked site (expected), 0 fail unmarked, 0 not verifiable here" in report
    assert "cluster.cu: stops at a marked site (expected): " in report and "portkit bug" not in report


def test_a_unit_that_stops_at_a_marked_header_is_expected(tmp_path: Path, capsys) -> None:
    """A header portkit could not map, and marked, is not found: where the summary says the work is."""
    require_tool("hipcc")
    code = _verify(tmp_path, {"frontend.cu": "#include <cudnn_frontend.h>\n__global__ void k(int *f) { *f = 1; }\n"})
    report = capsys.readouterr().out
    assert code == 0, report
    assert "0 build, 1 stop at a marked site (expected), 0 fail unmarked, 0 not verifiable here" in report
    assert "file not found" in report


def test_an_unmarked_failure_is_a_portkit_bug(tmp_path: Path, capsys) -> None:
    require_tool("hipcc")
    code = _verify(tmp_path, {"bad.cu": "__global__ void k() { undeclared_thing(); }\n"})
    report = capsys.readouterr().out
    assert code == 1
    assert "bad.cu: fails unmarked: " in report and "undeclared_thing" in report
    assert "1 units fail where portkit left no marker: a portkit bug" in report


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_goes_to_a_terminal_only(monkeypatch) -> None:
    terminal, log = _Terminal(), io.StringIO()
    monkeypatch.setattr("sys.stderr", terminal)
    hipcc_check.terminal_progress(1, 2)
    hipcc_check.terminal_progress(2, 2)
    assert terminal.getvalue() == "\rportkit: verifying with hipcc: 1/2 units\rportkit: verifying with hipcc: 2/2 units\n"
    monkeypatch.setattr("sys.stderr", log)
    hipcc_check.terminal_progress(1, 2)
    assert log.getvalue() == ""


SHUFFLED_HALF = """#include <hip/hip_runtime.h>
// portkit: PK101 cooperative_groups.h: HIP cooperative groups cover thread blocks, tiles and grids.
#include <hip/hip_cooperative_groups.h>
#include <hip/hip_fp16.h>
namespace cg = cooperative_groups;
__global__ void k(__half *out) {
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    __half v = out[threadIdx.x];
{marker}    v = __hadd(v, warp.shfl_xor(v, 1));
    out[threadIdx.x] = v;
}
"""


def test_an_error_inside_a_hip_header_counts_only_a_marker_about_it(tmp_path: Path) -> None:
    """HIP 5.2's thread_block_tile::shfl_xor static_asserts on a __half: the error is inside HIP's header, and was
    called expected because the unit's #include of cooperative groups carried a generic marker. It is judged at
    the unit's line that instantiates the template: a marker there about a name the diagnostic spells counts; one
    about another name, or none, does not."""
    hipcc = require_tool("hipcc")
    cases = {"": hipcc_check.VerifyStatus.FAIL,
             "    // portkit: PK102 ncclCommShrink: No RCCL counterpart.\n": hipcc_check.VerifyStatus.FAIL,
             "    // portkit: PK104 cooperative_groups::thread_block_tile::shfl_xor: HIP 5.2 takes no __half.\n":
                 hipcc_check.VerifyStatus.MARKED}
    for index, (marker, status) in enumerate(cases.items()):
        unit = tmp_path / f"k{index}.cu"
        unit.write_text(SHUFFLED_HALF.replace("{marker}", marker))
        result = hipcc_check.verify_file(hipcc, unit, (), "gfx90a")
        assert result.status is status, (marker, result)
        assert "Neither an integer or float type" in result.message


def test_a_flag_hipcc_rejects_is_a_usage_error_not_a_portkit_bug(tmp_path: Path, capsys) -> None:
    """`--verify-flag=--bogus`: hipcc refuses its command line before it reads a unit. That was counted as every unit
    failing unmarked, a portkit bug, exit 1; it is the user's flag: said so, exit 2 (the converted files are written)."""
    require_tool("hipcc")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "fine.cu").write_text("__global__ void z(int *f) { *f = 0; }\n")
    code = main(["convert", "--verify", "--verify-flag=--bogus", "--no-cache", str(tmp_path / "in"), "-o", str(tmp_path / "out")])
    captured = capsys.readouterr()
    assert code == 2, captured.out + captured.err
    assert "hipcc rejected its command line (clang: error: unsupported option '--bogus')" in captured.err
    assert "portkit bug" not in captured.out + captured.err and "fails unmarked" not in captured.out
    assert (tmp_path / "out" / "fine.cu").is_file()


PAST_A_HEADER = """#include <hip/hip_runtime.h>
// portkit: PK102 cooperative_groups/reduce.h: Write the reduction with __shfl_down and LDS.
#include <cooperative_groups/reduce.h>
{second}__global__ void k(float *out) {{
{line}
}}
"""


def test_a_unit_is_verified_past_a_marked_header_it_cannot_find(tmp_path: Path) -> None:
    """hipcc stops at the first missing header, so every unit of llm.c "stopped at a marked site" and its unmarked
    errors further down went unseen. The unit is compiled again with an empty stand-in for each marked header it
    cannot find: an unmarked error past them is a portkit bug; a name the missing header would declare is not."""
    hipcc = require_tool("hipcc")
    second = "// portkit: PK104 cublasLt.h: needs HIP 5.5.\n#include <cublasLt.h>\n"
    cases = [("  out[0] = 1.0f;", "", hipcc_check.VerifyStatus.MARKED, None),
             ('  int n = "text";', "", hipcc_check.VerifyStatus.FAIL, "past the marked <cooperative_groups/reduce.h>"),
             ('  int n = "text";', second, hipcc_check.VerifyStatus.FAIL, "<cooperative_groups/reduce.h>, <cublasLt.h>"),
             ("  out[0] = cooperative_groups::reduce(out[1]);", "", hipcc_check.VerifyStatus.MARKED, None),
             ("  // portkit: PK300 32: lanes.\n  int n = \"text\";", "", hipcc_check.VerifyStatus.MARKED, None),
             ('  int n = "text";', "#include <not_installed_here.h>\n", hipcc_check.VerifyStatus.MARKED, None)]
    for index, (line, extra, status, said) in enumerate(cases):
        unit = tmp_path / f"k{index}.cu"
        unit.write_text(PAST_A_HEADER.format(second=extra, line=line))
        result = hipcc_check.verify_file(hipcc, unit, (), "gfx90a")
        assert result.status is status, (line, result)
        if said:
            assert said in result.message and "cannot initialize" in result.message, result
        else:
            assert "file not found" in result.message, result


def test_an_include_convert_commented_out_marks_nothing_below_it(tmp_path: Path) -> None:
    """The comment convert leaves for an unused include it took out (PK212) is done work, not a marker: an error on
    the line below it was called expected (llm.c's `hipEventCreate(&ev, flags)`)."""
    hipcc = require_tool("hipcc")
    unit = tmp_path / "k.cu"
    unit.write_text("#include <hip/hip_runtime.h>\n"
                    "// portkit: PK212 unused here, and the targeted HIP lacks it: #include <cooperative_groups/reduce.h>\n"
                    'void f() { int n = "text"; }\n')
    assert hipcc_check.verify_file(hipcc, unit, (), "gfx90a").status is hipcc_check.VerifyStatus.FAIL


def test_a_rejected_flag_still_sums_up_what_was_written_and_says_nothing_was_verified(tmp_path: Path, capsys) -> None:
    """hipcc refusing a --verify-flag stopped convert before its summary: the files were written, but stdout said
    nothing of them (the edits, the markers) nor of the check. The summary is printed, then a line that no unit
    was verified; the error still says why, exit 2."""
    require_tool("hipcc")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "fine.cu").write_text("__global__ void z(int *f) { *f = 0; }\n"
                                             "void g(int *p) { cudaMalloc(&p, 4); cudaFree(p); }\n")
    code = main(["convert", "--verify", "--verify-flag=--bogus", "--no-cache", str(tmp_path / "in"), "-o", str(tmp_path / "out")])
    out, err = capsys.readouterr()
    assert code == 2, out + err
    assert out == "portkit convert: 1 file analysed, 1 changed, 3 edits, 0 markers\nhipcc: nothing verified (the error below says why)\n"
    assert err.strip().endswith("portkit: error: hipcc rejected its command line (clang: error: unsupported option '--bogus'): "
                                "check the flags given for the check; the converted files are written, unverified")
    assert "hipMalloc(&p, 4)" in (tmp_path / "out" / "fine.cu").read_text()
