"""The bench scripts run against the code they measure (their numbers are read in docs/performance.md, never here)."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from portkit.parse.queries import captures
from portkit.parse.treesitter import prepare_source
from portkit.rules import load_database

ROOT = Path(__file__).resolve().parents[1]


def test_parse_floor_parses_and_queries_every_source(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    files = {"a.cu": "__global__ void k(float* x) { x[threadIdx.x] = 0; }\n",
             "sub/b.cpp": "int main() { float* d; cudaMalloc(&d, 4); return 0; }\n",
             "notes.txt": "cudaFree\n"}  # not a source: not parsed
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    expected = sum(len(nodes) for name, text in files.items() if not name.endswith(".txt")
                   for nodes in captures(prepare_source(text.encode()).tree).values())
    result = subprocess.run([sys.executable, str(ROOT / "bench" / "parse_floor.py"), "-j", "2", str(tmp_path)],
                            capture_output=True, text=True, check=True)
    assert re.fullmatch(rf"2 files, 2 processes: parse \S+ s \(2 parses\) and query \S+ s of CPU, {expected} nodes "
                        r"captured\n", result.stdout)


def test_parse_floor_makes_the_parses_a_scan_makes(tmp_path: Path) -> None:
    """A scan parses a file again where its pre-parse fixes (with the project's macro table: a statement macro
    defined in a header fixes another file's parse) rewrite it. --save-prepared writes those bytes in a run of its
    own, so that the fixes (portkit's Python) are never timed as floor; --prepared parses them too and queries the
    tree the scan keeps."""
    import pickle  # nosec B403: what the test's own run wrote

    from portkit.run.project import run_project
    from portkit.settings import RunSettings

    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "check.h").write_text("#define CHECK_LAST { cudaError_t e = cudaGetLastError(); (void)e; }\n")
    (tree / "a.cu").write_text('#include "check.h"\nvoid f(float* d) {\n  CHECK_LAST\n  cudaFree(d);\n}\n')
    saved = tmp_path / "prepared.pickle"
    floor = [sys.executable, str(ROOT / "bench" / "parse_floor.py"), str(tree)]
    subprocess.run([*floor, "--save-prepared", str(saved)], check=True)
    macros = run_project(RunSettings(paths=(str(tree),), root=tmp_path, jobs=1, cache=False)).macros
    source = (tree / "a.cu").read_bytes()
    scanned = prepare_source(source, macros)
    assert scanned.text != source  # the scan parses a.cu again, fixed
    again, kept = pickle.loads(saved.read_bytes())[str(tree / "a.cu")]  # nosec B301
    assert kept >= 1 and again[kept - 1] == scanned.text and len(pickle.loads(saved.read_bytes())) == 1
    expected = sum(map(len, captures(scanned.tree).values())) + sum(
        map(len, captures(prepare_source((tree / "check.h").read_bytes(), macros).tree).values()))
    result = subprocess.run([*floor, "-j", "1", "--prepared", str(saved)], capture_output=True, text=True, check=True)
    assert re.fullmatch(rf"2 files, 1 processes: parse \S+ s \({2 + len(again)} parses\) and query \S+ s of CPU, "
                        rf"{expected} nodes captured\n", result.stdout)
    missing = subprocess.run([*floor, "--prepared", str(tmp_path / "none")], capture_output=True, text=True)
    assert missing.returncode != 0 and missing.stderr.strip().startswith(f"parse_floor.py: {tmp_path / 'none'}: ")


def test_parse_floor_refuses_a_missing_tree(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, str(ROOT / "bench" / "parse_floor.py"), str(tmp_path / "none")],
                            capture_output=True, text=True)
    assert result.returncode != 0 and result.stderr.strip() == f"parse_floor.py: {tmp_path / 'none'}: not a directory"


def test_parse_floor_looks_up_the_captured_names(tmp_path: Path) -> None:
    source = "__global__ void k(float* x) { x[threadIdx.x] = 0; }\nvoid h(float* d) { cudaMalloc(&d, 4); }\n"
    (tmp_path / "a.cu").write_text(source)
    known = {name.encode() for name in load_database().known_names()}
    found = captures(prepare_source(source.encode()).tree)
    expected = sum(node.text in known for capture in ("identifier", "type", "call") for node in found.get(capture, ()))
    result = subprocess.run([sys.executable, str(ROOT / "bench" / "parse_floor.py"), "-j", "1", "--names", str(tmp_path)],
                            capture_output=True, text=True, check=True)
    assert expected >= 2  # threadIdx, cudaMalloc
    assert re.search(rf", names \S+ s \({expected} kept\) of CPU", result.stdout)


def test_realworld_build_stage_builds_with_the_converted_makefile(tmp_path: Path) -> None:
    """bench/realworld.py --stage build: a CUDA program and its hand port, each built by its own Makefile (the
    CUDA one converted, unchanged), with the real hipcc: compile and link for gfx90a."""
    from tests.conftest import require_tool

    require_tool("hipcc")
    require_tool("make")
    repo = tmp_path / "mirror" / "me+tiny"
    kernel = "__global__ void k(float* a) { a[0] = 1; }\nint main() { float* a; {api}Malloc(&a, 4); k<<<1, 1>>>(a); }\n"
    files = {"cuda/saxpy/main.cu": kernel.replace("{api}", "cuda"),
             "cuda/saxpy/Makefile": "NVCC = $(CUDA_HOME)/bin/nvcc\nmain: main.cu\n\t$(NVCC) -arch=sm_80 -t=0 "
                                    "-Xptxas -v -o $@ $< -lcudart\n",
             "hip/saxpy/main.cu": "#include <hip/hip_runtime.h>\n" + kernel.replace("{api}", "hip"),
             "hip/saxpy/Makefile": "main: main.cu\n\thipcc -o $@ $<\n"}
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "tiny"], check=True)
    commit = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    (tmp_path / "bench.toml").write_text(
        f'[[corpus]]\nname = "unused"\nrepo = "me/tiny"\ncommit = "{commit}"\n\n'
        f'[[build]]\nname = "tiny"\nrepo = "me/tiny"\ncommit = "{commit}"\nsystem = "make"\n'
        'discover = {glob = "cuda/*/Makefile", twin = ["^cuda/", "hip/"]}\n')
    result = subprocess.run([sys.executable, str(ROOT / "bench" / "realworld.py"), "--stage", "build", "--config",
                             str(tmp_path / "bench.toml"), "--mirror", str(tmp_path / "mirror"), "--cache",
                             str(tmp_path / "cache")], capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr
    assert "  tiny (make, me/tiny @ " in result.stdout and "): 1/1 build (of 1 programs; 0 hand ports do not build)" \
        in result.stdout, result.stdout


def test_hipify_tests_scores_check_lines_as_filecheck_reads_them() -> None:
    """In order, after the previous match, never on a comment line (the CHECK lines are in the output);
    {{regex}} parts; blanks alike; includes by the file's name, anywhere."""
    sys.path.insert(0, str(ROOT / "bench"))
    from hipify_tests import score_file

    output = ('#include "hip/hip_runtime.h"\n// CHECK: hipFree(p);\ncudaFree(p);\nhipMalloc(&p,  4);\n'
              "hipLaunchKernelGGL(k, dim3(1), dim3(2), 0, 0);\n")
    checks = ["#include <hip/hip_runtime.h>", "hipMalloc(&p, 4);", "hipFree(p);",
              "hipLaunchKernelGGL(k, dim3({{[0-9]+}}), dim3(2), 0, 0);", "#include <hipblas/hipblas.h>"]
    assert score_file(checks, output) == ["hipFree(p);", "#include <hipblas/hipblas.h>"]
    assert score_file(["hipMalloc(&p, 4);", "hipLaunchKernelGGL(k"], output) == []
    assert score_file(["hipLaunchKernelGGL(k", "hipMalloc(&p, 4);"], output) == ["hipMalloc(&p, 4);"], "in order"


def test_scale_tree_is_the_pinned_commits_in_two_halves(tmp_path: Path) -> None:
    """bench.py's real tree: each pinned commit's directories, extracted from a mirror, in half A or B."""
    repo = tmp_path / "mirror" / "someone+proj" / "repo"
    (repo / "src" / "x-cuda").mkdir(parents=True)
    (repo / "src" / "x-hip").mkdir()
    (repo / "src" / "x-cuda" / "k.cu").write_text("__global__ void k() {}\n")
    (repo / "src" / "x-hip" / "k.cpp").write_text("// the port\n")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "c"], check=True)
    commit = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    config = tmp_path / "scale.toml"
    config.write_text(f'[[tree]]\nname = "proj"\nrepo = "someone/proj"\ncommit = "{commit}"\n'
                      f'paths = ["src/*-cuda"]\nhalf = "B"\n')
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import bench
        tree = bench.scale_tree(config, tmp_path / "mirror", tmp_path / "cache", tmp_path / "work")
    finally:
        sys.path.remove(str(ROOT / "bench"))
    assert sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*") if p.is_file()) == \
        ["B/proj/src/x-cuda/k.cu"]


def test_bench_times_creating_files_and_leaves_them_for_the_work_tree(tmp_path: Path) -> None:
    """The convert row prints what creating a file costs where it writes: deleting the probe's files would slow
    the file creations after it, so they stay until the bench removes its work tree."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import bench
        seconds = bench.creation_cost(tmp_path / "probe", count=20)
    finally:
        sys.path.remove(str(ROOT / "bench"))
    assert 0 < seconds < 1
    assert len(list((tmp_path / "probe").iterdir())) == 20


def test_the_pinned_scale_trees_fill_both_halves() -> None:
    import tomllib
    trees = tomllib.loads((ROOT / "bench" / "scale.toml").read_text())["tree"]
    assert {tree["half"] for tree in trees} == {"A", "B"}
    assert all(re.fullmatch(r"[0-9a-f]{40}", tree["commit"]) for tree in trees)


def test_effort_residual_ignores_what_is_no_port_work(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    import effort_fit
    import effort_residual

    converted, hand = tmp_path / "converted", tmp_path / "hand"
    (converted / "src").mkdir(parents=True)
    (hand / "src").mkdir(parents=True)
    (converted / "src" / "k.cu").write_text(
        "#include <hip/hip_runtime.h>\n#include <vector>\n#include \"util.cuh\"\n// portkit: PK101 marker\n"
        "#ifndef PORTKIT_HELPER_X\n#define PORTKIT_HELPER_X\nint portkit_x();\n#endif /* PORTKIT_HELPER_X */\n"
        "void checkCuda(int e) {  /* portkit: note */\n  use(e);\n}\nint lanes = 32;\n"
        "k<float><<<grid,\n  block>>>(a, f(b, c));\nk2<<<g, b, 0, s>>>(x);\nhipMemcpyToSymbol(c, h, 4);\n"
        "hipHostMalloc(&p, 4);\nint i = threadIdx.x;\nprintf(\"cuBLAS failed\");\ncudaLeftAlone(p);\n")
    (hand / "src" / "k.hip").write_text(
        "#include \"util.h\"\n#include \"hip/hip_runtime.h\"\n#include <vector>\nvoid  checkHip(int e) {\n"
        "  use(e);   // checked\n}\nint lanes = 64;\nint extra = 1;\n"
        "hipLaunchKernelGGL(HIP_KERNEL_NAME(k<float>), dim3(grid), dim3(block), 0, 0, a, f(b, c));\n"
        "hipLaunchKernelGGL(k2, g, b, 0, s, x);\nhipMemcpyToSymbol(HIP_SYMBOL(c), h, 4);\nhipMallocHost(&p, 4);\n"
        "int i = hipThreadIdx_x;\nprintf(\"hipBLAS failed\");\nhipLeftAlone(p);\n")
    known = {"cudaLeftAlone"}  # a CUDA name with a HIP counterpart, which convert did not write: port work
    # The warp width, the line the port added, and the CUDA name convert left; all the rest is spelling.
    original = tmp_path / "cuda"  # the CUDA program: no file of it is in the hand port
    assert effort_residual.residual(converted, hand, original, known.__contains__) == (3, 1)
    assert effort_residual.residual(converted, hand, original, set().__contains__) == (2, 1)
    (hand / "src" / "k.hip").write_text((hand / "src" / "k.hip").read_text().replace("dim3(block), 0, 0", "dim3(block), 8, 0"))
    assert effort_residual.residual(converted, hand, original, set().__contains__) == (3, 1)  # a shared-memory size is real
    assert effort_fit.spearman([1, 2, 3, 4], [10, 20, 20, 40]) > 0.9
    assert effort_fit.ranks([5, 1, 5, 2]) == [3.5, 1.0, 3.5, 2.0]


def test_effort_file_pairs_diff_each_file_against_its_twin(tmp_path: Path) -> None:
    """RAJAPerf's kernels: NAME-Cuda.cpp and the hand-written NAME-Hip.cpp beside it, among other variants."""
    sys.path.insert(0, str(ROOT / "bench"))
    import effort
    import effort_residual
    import realworld

    basic = tmp_path / "src" / "basic"
    basic.mkdir(parents=True)
    (basic / "DAXPY-Cuda.cpp").write_text('#include "common/CudaDataUtils.hpp"\nRAJA_CUDA_run(y);\ncudaFree(y);\n')
    (basic / "DAXPY-Hip.cpp").write_text('#include "common/HipDataUtils.hpp"\nRAJA_HIP_run(y);\nhipFree(y);\n')
    (basic / "DAXPY-Seq.cpp").write_text("run(y);\n")
    (basic / "COPY-Cuda.cpp").write_text("copy();\n")  # no twin: no program
    corpus = realworld.Corpus("rajaperf", "LLNL/RAJAPerf", "0" * 40, [], [], root=tmp_path)
    [program] = effort.expand_pairs(corpus, [{"glob": "src/*/*-Cuda.cpp", "twin": ["-Cuda\\.cpp$", "-Hip.cpp"],
                                              "files": True}])
    assert (program.name, program.cuda, program.hip, program.files) == (
        "basic/DAXPY", "src/basic", "src/basic/DAXPY-Hip.cpp", ["DAXPY-Cuda.cpp"])
    cuda, hip = basic / "DAXPY-Cuda.cpp", basic / "DAXPY-Hip.cpp"
    assert effort_residual.residual(cuda, hip, cuda, {"cudaFree"}.__contains__) == (1, 1)  # only the call convert does
    assert effort_residual.residual(cuda, basic, cuda, set().__contains__) == (0, 0)  # a file and a tree: nothing to diff
    (tmp_path / "app" / "CUDA").mkdir(parents=True)  # Velocity-Bench: NAME/CUDA and NAME/HIP, named by NAME
    (tmp_path / "app" / "HIP").mkdir()
    [app] = effort.expand_pairs(corpus, [{"glob": "*/CUDA", "twin": ["CUDA$", "HIP"]}])
    assert (app.name, app.cuda, app.hip) == ("app", "app/CUDA", "app/HIP")


def test_effort_pairs_of_one_kernel_are_named_apart(tmp_path: Path) -> None:
    """Two CUDA variants of one kernel (PRK's nstream-cuda.cu and nstream-cublas.cu) would both be named
    `nstream` by their twins' patterns: the rules keep the whole path with `strip = ""`, and a clash is an error."""
    sys.path.insert(0, str(ROOT / "bench"))
    import effort
    import realworld

    kernels = tmp_path / "Cxx11"
    kernels.mkdir()
    for name in ("nstream-cuda.cu", "nstream-hip.cc", "nstream-cublas.cu", "nstream-hipblas.cc"):
        (kernels / name).write_text("run();\n")
    corpus = realworld.Corpus("prk", "ParRes/Kernels", "0" * 40, [], [], root=tmp_path)
    rules = [{"glob": "Cxx11/*-cuda.cu", "twin": ["-cuda\\.cu$", "-hip.cc"], "files": True},
             {"glob": "Cxx11/*-cublas.cu", "twin": ["-cublas\\.cu$", "-hipblas.cc"], "files": True}]
    with pytest.raises(realworld.BadInput, match="nstream"):
        effort.expand_pairs(corpus, rules)
    named = effort.expand_pairs(corpus, [{**rule, "strip": ""} for rule in rules])
    assert sorted((p.name, p.hip) for p in named) == [("nstream-cublas.cu", "Cxx11/nstream-hipblas.cc"),
                                                      ("nstream-cuda.cu", "Cxx11/nstream-hip.cc")]


def test_effort_residual_counts_statements_and_skips_the_cuda_original(tmp_path: Path) -> None:
    """Line breaks and braces are layout; a hand file with the CUDA file's bytes is that file, not a port."""
    sys.path.insert(0, str(ROOT / "bench"))
    import effort_residual

    original, converted, hand = tmp_path / "cuda", tmp_path / "converted", tmp_path / "hand"
    for tree in (original, converted, hand):
        tree.mkdir()
    (converted / "k.cpp").write_text("void f(int a,\n       int b) {\n  if (a) {\n    g(b);\n  }\n}\n#define N 32\n")
    (hand / "k.cpp").write_text("void f(int a, int b)\n{\n  if (a) g(b);\n}\n#define N 64\n")
    assert effort_residual.residual(converted, hand, original, set().__contains__) == (1, 1)  # only the #define
    (original / "u.h").write_text("cudaFree(p);\n")  # same directory for both ports: u.h is no port
    (converted / "u.h").write_text("hipFree(p);\n")
    (hand / "u.h").write_text("cudaFree(p);\n")
    assert effort_residual.residual(converted, hand, original, {"cudaFree"}.__contains__) == (1, 1)
    (hand / "u.h").write_text("hipFree(p);  // ported\n")
    assert effort_residual.residual(converted, hand, original, {"cudaFree"}.__contains__) == (1, 2)
    (converted / "k-cuda.cu").write_text("hipFree(q);\n")  # a unit and the one its port builds, named apart
    (hand / "k-hip.cpp").write_text("hipFree(q);\nextra();\n")
    assert effort_residual.residual(converted, hand, original, {"cudaFree"}.__contains__) == (1, 2)
    assert effort_residual.residual(converted, hand, original, {"cudaFree"}.__contains__,
                                    [("k-cuda.cu", "k-hip.cpp")]) == (2, 3)


def test_effort_pairs_are_diffed_at_the_commit_of_their_port(tmp_path: Path) -> None:
    """The HIP version's first commit (a move adds no code), the CUDA version as it was then; a pair
    whose two versions came in one commit stays at the pinned commit."""
    sys.path.insert(0, str(ROOT / "bench"))
    import effort_history

    repo = tmp_path / "repo"

    def commit(files: dict[str, str | None], message: str) -> str:
        for name, text in files.items():
            if text is None:  # "OLD>NEW": a move
                old, new = name.split(">")
                (repo / new).parent.mkdir(parents=True, exist_ok=True)
                subprocess.run(["git", "-C", str(repo), "mv", old, new], check=True)
                continue
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            (repo / name).write_text(text)
        subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
        subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message],
                       check=True)
        return subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()

    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    commit({"a-cuda/main.cu": "cudaFree(p);\n", "b-cuda/main.cu": "cudaFree(q);\n", "b-hip/main.cu": "hipFree(q);\n"},
           "CUDA a; b in both versions at once")
    port = commit({"a-hip/main.cu": "hipFree(p);\n"}, "the port of a")
    commit({"a-cuda/main.cu": "cudaFree(p);\ntime();\n"}, "drift: timing in the CUDA version only")
    commit({"a-cuda>src/a-cuda": None, "a-hip>src/a-hip": None, "b-cuda>src/b-cuda": None, "b-hip>src/b-hip": None}, "move")
    head = commit({"src/a-hip/extra.cu": "more();\n"}, "a file added later")
    git_dir = repo / ".git"
    assert effort_history.port_commit(git_dir, head, "src/a-cuda", "src/a-hip") == (port, "a-cuda", "a-hip")
    assert effort_history.port_commit(git_dir, head, "src/b-cuda", "src/b-hip") is None
    assert effort_history.port_commit(git_dir, head, "src/a-cuda", "src/none") is None
    root = tmp_path / "at-port"
    effort_history.extract(git_dir, port, [("a-cuda", "src/a-cuda"), ("a-hip/main.cu", "src/a-hip/main.cu")], root)
    assert (root / "src" / "a-cuda" / "main.cu").read_text() == "cudaFree(p);\n"  # without the later drift
    assert sorted(p.name for p in (root / "src" / "a-hip").iterdir()) == ["main.cu"]
