"""`portkit scan` end to end: through main(argv) and the installed console script."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from portkit.cli import main
from conftest import EXAMPLES


def scan_json(*args: str) -> dict:
    portkit = shutil.which("portkit")
    assert portkit, "the portkit console script must be installed (pip install .)"
    out = subprocess.run([portkit, "scan", "--format", "json", "--rocm-version", "5.2", *args],
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def test_saxpy_ports_cleanly() -> None:
    data = scan_json(str(EXAMPLES / "saxpy"))
    s = data["summary"]
    assert (s["source_files"], s["build_files"], s["kernels"], s["launches"], s["inline_asm"]) == (1, 1, 1, 1, 0)
    assert s["sites_by_status"] == {"supported": 25, "partial": 0, "unsupported": 0, "removed": 0, "unavailable": 0}
    assert [lib["id"] for lib in data["libraries"]] == ["cuda-runtime"]
    runtime = data["libraries"][0]
    assert (runtime["apis"], runtime["sites"]) == (17, 25)
    assert s["unknown_names"] == 0


def test_option_pricer_inventory() -> None:
    data = scan_json(str(EXAMPLES / "option-pricer"))
    s = data["summary"]
    assert (s["source_files"], s["build_files"], s["kernels"], s["launches"], s["device_functions"]) == (7, 1, 6, 6, 2)
    assert (s["inline_asm"], s["preprocessor_branches"], s["unknown_names"]) == (1, 1, 0)
    libraries = {lib["id"]: lib for lib in data["libraries"]}
    assert set(libraries) == {"cuda-runtime", "cuda-device", "curand", "cusolver", "cublas", "nccl", "ptx",
                              "cooperative-groups", "nvtx", "thrust"}
    assert (libraries["thrust"]["apis"], libraries["thrust"]["sites"]) == (9, 11)
    assert (libraries["nvtx"]["apis"], libraries["nvtx"]["sites"]) == (4, 4)
    assert (libraries["nccl"]["apis"], libraries["nccl"]["sites"]) == (13, 14)  # find_library(NCCL_LIBRARY nccl) too
    assert (libraries["curand"]["apis"], libraries["curand"]["sites"]) == (15, 15)
    assert (libraries["cusolver"]["apis"], libraries["cusolver"]["sites"]) == (11, 13)
    attention = sorted((f["name"], f["status"], Path(f["path"]).name, f["line"]) for f in data["findings"]
                       if f["status"] not in (None, "supported"))
    assert attention == [
        ("%laneid", "partial", "reduce.cuh", 9),
        ("__CUDA_ARCH__", "partial", "paths.cu", 36),
        ("__CUDA_ARCH__", "partial", "paths.cu", 36),
        ("__ballot_sync", "unavailable", "reduce.cuh", 35),
        ("__shfl_down_sync", "unavailable", "reduce.cuh", 15),
        ("cooperative_groups.h", "partial", "stats.cu", 3),
        ("cooperative_groups::thread_block_tile", "partial", "stats.cu", 16),
        ("cooperative_groups::tiled_partition", "partial", "stats.cu", 16),
    ]


def test_newer_rocm_makes_sync_intrinsics_available() -> None:
    data = scan_json("--rocm-version", "6.2", str(EXAMPLES / "option-pricer" / "src" / "reduce.cuh"))
    statuses = {f["name"]: f["status"] for f in data["findings"]
                if f["name"] in ("__shfl_down_sync", "__ballot_sync") and f["code"].startswith("PK1")}
    assert statuses == {"__shfl_down_sync": "partial", "__ballot_sync": "partial"}


def test_text_output_lists_attention_items(capsys, monkeypatch) -> None:
    monkeypatch.chdir(EXAMPLES)
    assert main(["scan", "--rocm-version", "5.2", "--no-color", "option-pricer"]) == 0
    out = capsys.readouterr().out
    assert "unavailable: 2 APIs, 2 sites" in out and "__shfl_down_sync" in out
    assert "Every API site" not in out  # sites are for --details
    assert main(["scan", "--rocm-version", "5.2", "--no-color", "--details", "option-pricer"]) == 0
    out = capsys.readouterr().out
    assert "unavailable __shfl_down_sync -> __shfl_down (cuda-device, 1 sites)\n" in out
    assert "  option-pricer/src/reduce.cuh:15\n" in out
    assert "block_sum_kernel <template>" in out


def test_output_file_is_written(tmp_path: Path) -> None:
    target = tmp_path / "scan.json"
    assert main(["scan", "-f", "json", "-o", str(target), str(EXAMPLES / "saxpy")]) == 0
    assert json.loads(target.read_text())["schema_version"] == 1


@pytest.mark.parametrize("argv, message", [
    (["scan", "/no/such/dir"], "portkit: error: /no/such/dir: no such file or directory"),
    (["scan", "--rocm-version", "six", "."], "portkit: error: unknown ROCm version 'six'; known: 1.5-1.9, 2.0-2.10, "
                                             "3.0-3.10, 4.0-4.5, 5.0-5.7, 6.0-6.4, 7.0-7.1 (any patch level), or latest"),
    (["scan", "--rules", "/no/rules.yaml", "."], "portkit: error: /no/rules.yaml: no such rule file or directory"),
])
def test_bad_input_is_one_line_and_exit_2(argv: list[str], message: str, capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.strip() == message


def test_malformed_user_rules(tmp_path: Path, capsys) -> None:
    rules = tmp_path / "r.yaml"
    rules.write_text("library: r\nentries:\n  - {cuda: x, kind: nonsense}\n")
    assert main(["scan", "--rules", str(rules), str(EXAMPLES / "saxpy")]) == 2
    assert capsys.readouterr().err.strip() == (f"portkit: error: {rules}: entry 1 (x): key 'kind': 'nonsense' is not one of "
                                               "function, type, enum, macro, header, link, intrinsic, asm, field")


OLD_KEYS = [  # (entry, what the one error line says after the entry, the entry respelt)
    ("hip_added: '9.0', fallback: z", "key 'fallback' is now 'older_hip' (the spelling for an older HIP): rename it",
     "hip_added: '9.0', older_hip: z"),
    ("hip_for_args: {3: z}", "key 'hip_for_args' now goes under 'shape' (shape: {hip_for_args: ...}): move it",
     "shape: {hip_for_args: {3: z}}"),
]


@pytest.mark.parametrize("old, error, new", OLD_KEYS, ids=["fallback", "shape"])
def test_user_rules_with_an_old_key_are_refused_naming_the_new_spelling(
        tmp_path: Path, capsys, old: str, error: str, new: str) -> None:
    """`fallback` was renamed `older_hip` (the spelling for an older HIP), and the keys for a few rules each
    (compare_as, hip_for_args...) moved under `shape`: one line, exit code 2, the new spelling."""
    rules = tmp_path / "r.yaml"
    rules.write_text(f"library: r\nentries:\n  - {{cuda: x, kind: function, hip: y, {old}}}\n")
    assert main(["scan", "--rules", str(rules), str(EXAMPLES / "saxpy")]) == 2
    assert capsys.readouterr().err.strip() == f"portkit: error: {rules}: entry 1 (x): {error}"
    rules.write_text(rules.read_text().replace(old, new))
    assert main(["scan", "--rules", str(rules), str(EXAMPLES / "saxpy")]) == 0


def test_empty_tree_says_so(tmp_path: Path, capsys) -> None:
    assert main(["scan", "--no-color", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "No CUDA/C++ sources found." in out and "Every CUDA API found" not in out


def test_a_scan_of_nothing_scannable_fails(tmp_path: Path, capsys) -> None:
    """A binary file named alone: no report of nothing with exit 0, which a script would read as all clear."""
    (tmp_path / "bin.cu").write_bytes(b"\x00\x01\x02binary")
    for options in ([], ["-f", "json"]):
        assert main(["scan", *options, str(tmp_path / "bin.cu")]) == 2
        assert capsys.readouterr().err.strip().endswith("portkit: error: nothing was scanned: "
                                                        f"{tmp_path / 'bin.cu'}: binary file skipped")


def test_bad_files_are_reported_not_fatal(tmp_path: Path) -> None:
    (tmp_path / "bin.cu").write_bytes(b"\x00\x01\x02binary")
    (tmp_path / "latin.cu").write_bytes(b"// r\xe9sum\xe9\nvoid f() { cudaFree(0); }\n")
    (tmp_path / "broken.cu").write_text("void f( { cudaMalloc(0, 1);\n")
    data = scan_json(str(tmp_path))
    s = data["summary"]
    assert (s["source_files"], s["files_skipped"], s["files_not_utf8"], s["files_with_parse_errors"]) == (2, 1, 1, 1)
    assert {d["kind"] for d in data["diagnostics"]} == {"skipped", "encoding", "parse-error"}
    assert {f["name"] for f in data["findings"] if f["library"]} == {"cudaFree", "cudaMalloc"}


def test_help_and_version() -> None:
    out = subprocess.run([shutil.which("portkit") or "portkit", "scan", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "--rocm-version" in out.stdout
    out = subprocess.run([shutil.which("portkit") or "portkit", "--version"], capture_output=True, text=True)
    assert out.stdout.strip().startswith("portkit ")


def test_unknown_option_is_a_usage_error(capsys) -> None:
    assert main(["scan", "--bogus", "."]) == 2
    err = capsys.readouterr().err
    assert "--bogus" in err and "Traceback" not in err  # the words are click's; the option named is the user's


def _big_tree(root: Path, database, files: int = 300) -> None:
    """A tree of `files` sources with hundreds of distinct APIs of every status, hazards,
    long paths and long names: what the default text output must still fit on a screen."""
    by_status: dict[str, list[str]] = {}
    for rule in database.all_rules():
        if rule.kind == "function" and "::" not in rule.cuda and rule.cuda.isidentifier():
            by_status.setdefault(rule.status.value, []).append(rule.cuda)
    names = [n for status in sorted(by_status) for n in by_status[status][:120]]
    deep = root / "a_rather_long_directory_name" / "with_more_nesting_below_it" / "and_even_more_levels"
    deep.mkdir(parents=True)
    for i in range(files):
        calls = "\n".join(f"  {names[(i * 7 + j) % len(names)]}(x);" for j in range(6))
        (deep / f"kernel_file_number_{i:04d}_with_a_long_name.cu").write_text(
            f"__global__ void k{i}(float* x) {{\n  int lane = threadIdx.x % 32;\n  __shared__ float t[32];\n"
            f"  x[lane] = __shfl_down_sync(0xffffffff, x[lane], 1);\n}}\n"
            f"void host{i}(float* x) {{\n{calls}\n  k{i}<<<1, 32>>>(x);\n}}\n")
    (root / "requirements.txt").write_text("cupy-cuda12x\ntorch==2.3.0+cu121\n")
    (root / "Dockerfile").write_text("FROM nvidia/cuda:12.4.0-devel-ubuntu22.04\nRUN nvidia-smi\n")


def test_default_text_fits_a_screen(tmp_path: Path, database, monkeypatch, capsys) -> None:
    _big_tree(tmp_path / "tree", database)
    monkeypatch.setenv("COLUMNS", "100")
    assert main(["scan", "--no-color", "--rocm-version", "6.2", str(tmp_path / "tree")]) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    assert len(lines) <= 60, text
    assert max(len(line.rstrip()) for line in lines) <= 100, text  # no row is wider, so none wraps
    assert main(["scan", "-f", "json", "--rocm-version", "6.2", str(tmp_path / "tree")]) == 0
    data = json.loads(capsys.readouterr().out)
    s, plan = data["summary"], data["plan"]
    assert len(data["apis"]) > 300 and sum(s["sites_by_status"].values()) > 1000 and s["hazards"] >= 600
    assert lines[0] == (f"portkit scan: {s['files']} files ({s['source_files']} sources, {s['build_files']} build, "
                        f"{s['other_files']} other), {s['lines']} lines")
    assert lines[1] == (f"at HIP 6.2.0: readiness {plan['readiness']['score']}%, effort "
                        f"{plan['effort']['person_days']} person-days ({plan['effort']['hours']} h)")
    status_line = lines[3] if plan["newest"] else lines[2]
    for status, count in s["sites_by_status"].items():
        assert f"{status} {count}" in status_line
    assert "more APIs (--details lists them)" in text and "Files with the most work (5 of 300)" in text
    assert lines[-1].startswith("Every site: portkit scan --details")


def test_the_headline_names_its_target_and_the_newest_rocm_in_80_columns(tmp_path: Path, monkeypatch, capsys) -> None:
    (tmp_path / "k.cu").write_text("#include <cuda_runtime.h>\n__global__ void k(float* p) {\n"
                                   "  p[0] = __shfl_down_sync(0xffffffffull, p[0], 1);\n"
                                   "  p[1] = __shfl_xor_sync(0xffffffffull, p[1], 2);\n}\n"
                                   "void f(float** p) { cudaMalloc(p, 4); cudaFree(*p); }\n")
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["scan", "--no-color", "--rocm-version", "5.2", str(tmp_path)]) == 0
    old = capsys.readouterr().out.splitlines()
    assert main(["scan", "--no-color", "--rocm-version", "6.2", str(tmp_path)]) == 0
    new = capsys.readouterr().out.splitlines()
    assert re.fullmatch(r"at HIP 5\.2\.0: readiness \d+%, effort [\d.]+ person-days \([\d.]+ h\)", old[1]), old
    # At HIP 5.2 the _sync intrinsics are spelled the old way; at ROCm 6.2 they port better. The
    # names are resolved again (the inventory is the target's: 6.2 also needs a feature macro, PK204).
    assert old[2].startswith(new[1].replace("at HIP 6.2.0", "at ROCm 6.2.0").split(", effort")[0] + ", effort ")
    assert re.fullmatch(r"at ROCm 6\.2\.0: readiness \d+%, effort [\d.]+ person-days \([\d.]+ h\)", old[2]), old
    assert new[2].startswith("API sites: ")  # nothing ports better at a newer ROCm: no such line
    assert max(len(line) for line in old[:6]) <= 80, old


@pytest.mark.parametrize("columns", ["wide", "0", "-5"])
def test_a_columns_value_that_is_no_width_is_ignored(columns: str, tmp_path: Path, database, monkeypatch, capsys) -> None:
    """COLUMNS is the user's environment: a value that is not a positive number means the default width."""
    _big_tree(tmp_path / "tree", database, files=20)
    monkeypatch.setenv("COLUMNS", columns)
    assert main(["scan", "--no-color", "--rocm-version", "6.2", str(tmp_path / "tree")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line.rstrip()) for line in lines) == 100


def test_details_lists_every_site(tmp_path: Path, database, capsys) -> None:
    _big_tree(tmp_path / "tree", database, files=40)
    assert main(["scan", "--no-color", "-v", "--rocm-version", "6.2", str(tmp_path / "tree")]) == 0
    text = capsys.readouterr().out
    assert main(["scan", "-f", "json", "--rocm-version", "6.2", str(tmp_path / "tree")]) == 0
    data = json.loads(capsys.readouterr().out)
    for f in data["findings"]:
        assert f"{f['path']}:{f['line']}" in text
    assert "Every API site, by API" in text


def test_the_command_exits_without_teardown_yet_loses_nothing(tmp_path: Path) -> None:
    """`run` ends the process with os._exit: every byte printed still arrives, the exit code is main's, and the
    interpreter's exit handlers (temporary directories, logging) still run."""
    tree = tmp_path / "tree"
    tree.mkdir()
    for i in range(40):
        (tree / f"k{i}.cu").write_text("".join(f"void f{j}() {{ cudaDeviceSynchronize(); cudaFree(0); }}\n"
                                               for j in range(50)))
    script = ("import atexit, sys; atexit.register(lambda: print('exit handlers ran', file=sys.stderr)); "
              f"sys.argv = ['portkit', 'scan', '--no-cache', '-f', 'json', {str(tree)!r}]; "
              "from portkit.cli import run; run()")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    names = [f["name"] for f in json.loads(done.stdout)["findings"]]
    assert (names.count("cudaDeviceSynchronize"), names.count("cudaFree")) == (40 * 50, 40 * 50)
    assert done.stderr.strip().endswith("exit handlers ran")
    missing = subprocess.run([sys.executable, "-m", "portkit", "scan", str(tmp_path / "missing")],
                             capture_output=True, text=True)
    assert (missing.returncode, missing.stdout, missing.stderr.count("\n")) == (2, "", 1)
    # What a command leaves for the process's end to free is kept only under `run`: in-process, it is freed.
    assert main(["convert", "--no-cache", str(tree), "-o", str(tmp_path / "out")]) == 0
    assert sys.modules["portkit.cli.app"]._left_for_exit is None


def test_a_test_of_nvccs_compiler_macro_is_no_driver_api_use() -> None:
    """`#if defined(__CUDACC__) || __HIP__ == 1` in a file with no driver call: __CUDACC__ is the CUDA language's
    compiler macro, listed with __CUDA_ARCH__ among the device language's names, not a "CUDA driver API" row; and the
    test accepts hipcc too, so it is no CUDA-only branch; nor is one that tests the project's HIP switch beside HIP's
    platform macro."""
    data = scan_json(str(Path(__file__).parent / "cases" / "hip_accepting_tests.cu"))
    assert [lib["id"] for lib in data["libraries"]] == ["cuda-device", "cuda-runtime"]
    assert sorted(f["line"] for f in data["findings"] if f["code"] == "PK203") == [13, 16, 22]


def test_nvccs_version_and_compiler_macros_are_no_runtime_api_use() -> None:
    """__NVCC__, __CUDACC_VER_MAJOR__/MINOR__/BUILD__ and NVRTC's __CUDACC_RTC__ are macros the CUDA compiler
    predefines, as __CUDACC__ is: in a file that calls nothing of CUDA's runtime, they add no "CUDA runtime API" row
    to the inventory."""
    data = scan_json(str(Path(__file__).parent / "cases" / "nvcc_compiler_macros.cu"))
    assert [lib["id"] for lib in data["libraries"]] == ["cuda-device"]
    macros = {"__NVCC__", "__CUDACC_RTC__", "__CUDACC_VER_MAJOR__", "__CUDACC_VER_MINOR__", "__CUDACC_VER_BUILD__"}
    assert {api["name"] for api in data["apis"]} == macros


@pytest.mark.parametrize("command", ["scan", "report", "merge"])
def test_markdown_names_the_md_format(command: str, tmp_path: Path, capsys) -> None:
    """`report -o r.markdown` wrote Markdown but `scan -f markdown` was refused: the name is md's everywhere."""
    if command == "merge":
        assert main(["scan", "--no-cache", "--shard", "1/1", "-o", str(tmp_path / "shard.json"), str(EXAMPLES / "saxpy")]) == 0
        paths = [str(tmp_path / "shard.json")]
    else:
        paths = ["--no-cache", str(EXAMPLES / "saxpy")]
    capsys.readouterr()
    outputs = []
    for fmt in ("md", "markdown"):
        assert main([command, "-f", fmt, *paths]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0].startswith("# ") and outputs[0] == outputs[1]


def test_a_launch_through_a_local_name_counts_for_the_kernel_it_was_initialised_from(tmp_path: Path, capsys) -> None:
    """`auto kernel = &k<T>; kernel<<<g, b>>>(...)` (DeepSpeed, flash-attention) was listed as a launch of `kernel`,
    and k's row of the kernel table read 0 launches. A choice between kernels, or a name kernels are assigned to,
    counts for each of them (it read 0 launches for both)."""
    source = tmp_path / "src" / "launch.cu"
    source.parent.mkdir()
    source.write_text("template <typename T, int N>\n__global__ void scale(T* x) { x[threadIdx.x] *= N; }\n"
                      "__global__ void zero(float* x) { x[threadIdx.x] = 0; }\n"
                      "void run(float* x, bool big) {\n"
                      "  auto kernel = &scale<float, 4>;\n  kernel<<<1, 64>>>(x);\n"
                      "  void (*other)(float*) = zero;\n  other<<<1, 64>>>(x);\n"
                      "  auto pick = big ? &zero : &scale<float, 2>;\n  pick<<<1, 64>>>(x);\n"
                      "  {\n    auto kernel = zero;\n    kernel<<<1, 64>>>(x);\n  }\n"
                      "  void (*set)(float*);\n  if (big) set = zero; else set = &scale<float, 8>;\n  set<<<1, 64>>>(x);\n}\n")
    assert main(["scan", "--no-cache", "--format", "json", "--rocm-version", "5.2", str(source.parent)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {k["name"]: k["launches"] for k in data["kernels"]} == {"scale": 3, "zero": 4}
    launches = [(f["name"], f["message"]) for f in data["findings"] if f["code"] == "PK201"]
    assert launches == [("scale", "launch of kernel<<<1, 64>>> (kernel is scale)"),
                        ("zero", "launch of other<<<1, 64>>> (other is zero)"),
                        ("scale", "launch of pick<<<1, 64>>> (pick is zero or scale)"),
                        ("zero", "launch of pick<<<1, 64>>> (pick is zero or scale)"),
                        ("zero", "launch of kernel<<<1, 64>>> (kernel is zero)"),
                        ("scale", "launch of set<<<1, 64>>> (set is zero or scale)"),
                        ("zero", "launch of set<<<1, 64>>> (set is zero or scale)")]
    if shutil.which("hipcc"):  # the launches convert writes through the local names compile
        assert main(["convert", "--no-cache", "--rocm-version", "5.2", "--launch-syntax", "hip", "--verify",
                     str(source.parent), "-o", str(tmp_path / "out")]) == 0
        assert "hipcc: 1 build," in capsys.readouterr().out
        assert "hipLaunchKernelGGL(kernel, dim3(1), dim3(64), 0, 0, x);" in (tmp_path / "out" / "launch.cu").read_text()


def test_details_count_the_unknown_names_as_the_summary_does(tmp_path: Path, capsys) -> None:
    """The summary counts names no rule knows; --details lists their sites: each count says what it counts."""
    source = tmp_path / "mon.cu"
    source.write_text("void f() { cudaFooBar(1); cudaFooBar(2); cudaBazQux(); }\n")
    assert main(["scan", "--no-cache", "--no-color", "--details", str(source)]) == 0
    out = capsys.readouterr().out
    assert "CUDA-looking names no rule knows (2):" in out
    assert "CUDA-looking names no rule knows (2 names, 3 sites)" in out


def test_a_launch_through_a_choice_of_kernels_is_one_launch_site(tmp_path: Path, capsys) -> None:
    """`auto k = c ? &a : &b; k<<<...>>>` is a launch of a and of b (a finding each, their rows of the kernel table 1
    launch each) but one launch site: the summary said "launches 3" for two sites, the codes table 3 PK201 sites, and
    --details listed the site twice."""
    source = tmp_path / "pick.cu"
    source.write_text("__global__ void a(int* p) { *p = 1; }\n__global__ void b(int* p) { *p = 2; }\n"
                      "void run(bool c, int* p) {\n  auto k = c ? &a : &b;\n  k<<<1, 1>>>(p);\n  a<<<1, 1>>>(p);\n}\n")
    assert main(["scan", "--no-cache", "--format", "json", str(source)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {k["name"]: k["launches"] for k in data["kernels"]} == {"a": 2, "b": 1}
    assert [f["name"] for f in data["findings"] if f["code"] == "PK201"] == ["a", "b", "a"]
    assert data["summary"]["launches"] == 2
    assert [(c["sites"], c["billed"]) for c in data["codes"] if c["code"] == "PK201"] == [(2, 2)]
    assert main(["scan", "--no-cache", "--no-color", "--details", str(source)]) == 0
    out = capsys.readouterr().out
    assert "kernels 2, launches 2," in out
    listed = out.split("Kernels (2)\n")[1]
    assert listed.startswith(f"  {source}:1: a (2 launches)\n  {source}:2: b (1 launch)\nKernel launches (2)\n"
                             f"  {source}:5: launch of k<<<1, 1>>> (k is a or b)\n  {source}:6: launch of a<<<1, 1>>>\n")


def test_a_named_file_of_no_known_kind_is_refused_as_a_directory_leaves_it_out(tmp_path: Path, capsys) -> None:
    """`portkit scan notes.txt` read a text file as a CUDA source (its cudaMalloc counted, exit 0) though a scan of
    its directory leaves it out; now it is a one-line error, exit 2, unless the extensions name .txt. A named
    source's headline counts it in the singular ("1 file (1 source, ...)", not "1 files (1 sources")."""
    notes = tmp_path / "notes.txt"
    notes.write_text("cudaMalloc(&p, 4);\n")
    (tmp_path / "k.cu").write_text("__global__ void k() {}\n")
    assert main(["scan", "--no-color", str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith("portkit scan: 1 file (1 source, 0 build, 0 other), 1 line\n")
    assert main(["scan", str(notes)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == (f"portkit: error: {notes}: not a source or build file: .txt is not a source extension "
                                 "(the source extensions are .cu,.cuh,.cpp,.cc,.cxx,.c,.h,.hpp,.hh,.hxx,.inl); add it to "
                                 "extensions to read the file as a source\n")
    assert main(["scan", "--no-color", "--extensions", ".txt", str(notes)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("portkit scan: 1 file (1 source, 0 build, 0 other), 1 line\n") and "supported 1," in out
    assert main(["scan", "--no-color", "--extensions", ".txt", str(tmp_path)]) == 0  # the directory reads it too
    assert capsys.readouterr().out.startswith("portkit scan: 1 file (1 source, 0 build, 0 other), 1 line\n")
    (tmp_path / "CMakeLists.txt").write_text("project(p LANGUAGES CUDA)\n")  # a build file's name is a kind
    assert main(["scan", "--no-color", str(tmp_path / "CMakeLists.txt"), str(tmp_path / "k.cu")]) == 0
    assert capsys.readouterr().out.startswith("portkit scan: 2 files (1 source, 1 build, 0 other), 2 lines\n")
