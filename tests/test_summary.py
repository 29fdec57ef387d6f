"""The text summary's run (portkit/tally.py, report/memo.py): counts instead of sites, the same numbers.

A summary-only run keeps each file's findings counted and reuses the last summary of a tree
while its fingerprint holds; both must give exactly what the full run gives, and a change to
any file must show.
"""
from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import EXAMPLES, ROOT, require_tool
from portkit.cli import main
from portkit.codes import Status
from portkit.run.project import run_project
from portkit.run.request import RunRequest
from portkit.report.data import scan_data
from portkit.report.plan import effort_model
from portkit.rules import Target
from portkit.settings import RunSettings
from portkit.store import encode

# Across files: a namespace alias one header defines, a CUDA-named function another file defines,
# a variable named like an unknown CUDA name; kernels, launches, hazards and a CMake architecture.
PROJECT = {
    "include/groups.cuh": "#pragma once\n#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n",
    "src/own.cpp": "int cudaProjectHelper(int x) { return x + 1; }\nint cudaDeviceSynchronizeAll() { return 0; }\n",
    "src/main.cu": (
        '#include "../include/groups.cuh"\n#include <cuda_runtime.h>\n#include <curand.h>\n'
        "__global__ void scale(float *x, int n) {\n"
        "  cg::thread_block block = cg::this_thread_block();\n"
        "  int lane = threadIdx.x % 32;\n"
        "  float v = __shfl_down_sync(0xffffffff, x[lane], 16);\n"
        "  if (lane < n) x[lane] = v;\n}\n"
        "template <typename T> __global__ void fill(T *x) { x[threadIdx.x] = T(); }\n"
        "int main() {\n  float *d; int cudaFancyOption = 3;\n  cudaMalloc(&d, 64 * sizeof(float));\n"
        "  scale<<<1, 32>>>(d, 32);\n  fill<float><<<1, 32>>>(d);\n  cudaProjectHelper(cudaFancyOption);\n"
        "  cudaDeviceSynchronizeAll();\n  cudaMemcpyToArrayAsync(0, 0, 0, 0, 0, cudaMemcpyHostToDevice);\n"
        "  curandGenerator_t g; curandCreateGenerator(&g, CURAND_RNG_PSEUDO_DEFAULT);\n"
        "  cudaFree(d);\n  return 0;\n}\n"),
    # A unit defining a macro before a header that uses CUDA gets the runtime header first (a project-wide finding).
    "include/typed.cuh": "#pragma once\n__device__ inline T twice(T x) { return x + x; }\n",
    "src/typed.cpp": '#define T float\n#include "../include/typed.cuh"\nint host_only() { return 1; }\n',
    "CMakeLists.txt": ("cmake_minimum_required(VERSION 3.18)\nproject(p LANGUAGES CXX CUDA)\n"
                       "set(CMAKE_CUDA_ARCHITECTURES 70 80)\nadd_executable(p src/main.cu src/own.cpp)\n"),
}


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _settings(path: Path, cache: bool) -> RunSettings:
    return RunSettings(paths=(str(path),), root=path, target=Target(rocm=(5, 2, 0)), jobs=1, cache=cache)


def _trees(tmp_path: Path) -> list[Path]:
    return [_write(tmp_path / "project", PROJECT), EXAMPLES / "option-pricer", EXAMPLES / "saxpy", ROOT / "tests" / "cases"]


@pytest.mark.parametrize("index", range(4))
def test_summary_only_data_is_the_full_data_without_sites(tmp_path: Path, index: int) -> None:
    tree = _trees(tmp_path)[index]
    full = scan_data(run_project(_settings(tree, cache=False)))
    sites = full.pop("findings")
    assert sites, "the tree has findings to count"
    cold = scan_data(run_project(_settings(tree, cache=False), RunRequest(summary_only=True)))
    filled = scan_data(run_project(_settings(tree, cache=True), RunRequest(summary_only=True)))
    warm = scan_data(run_project(_settings(tree, cache=True), RunRequest(summary_only=True)))
    assert "findings" not in cold  # nothing to read them back from
    assert cold == full
    # With a cache, the sites are read back from it whenever a report iterates them.
    assert list(filled.pop("findings")) == sites and list(warm["findings"]) == sites
    assert list(warm.pop("findings")) == sites
    assert filled == full
    assert warm == full


def test_the_project_tree_exercises_what_only_the_project_shows(tmp_path: Path) -> None:
    data = scan_data(run_project(_settings(_write(tmp_path, PROJECT), cache=False), RunRequest(summary_only=True)))
    names = {api["name"] for api in data["apis"]}
    assert "cudaMalloc" in names and "cooperative_groups::this_thread_block" in names  # via the header's alias
    assert "cudaProjectHelper" not in names and "cudaDeviceSynchronizeAll" not in data["unknown_names"]
    assert "cudaFancyOption" not in data["unknown_names"]
    assert {k["name"] for k in data["kernels"]} == {"scale", "fill"}
    assert data["plan"]["architectures"] and data["summary"]["warp_level_sites"] >= 1
    assert any(row["code"].startswith("PK3") for row in data["codes"])


def _scan(tree: Path, cache: Path) -> str:
    env = {**os.environ, "PORTKIT_CACHE_DIR": str(cache), "COLUMNS": "120"}
    run = subprocess.run([sys.executable, "-m", "portkit", "scan", "--rocm-version", "5.2", str(tree)],
                         capture_output=True, text=True, env=env, check=True)
    return run.stdout


def test_a_warm_summary_is_reused_and_any_edit_shows(tmp_path: Path) -> None:
    tree, cache = _write(tmp_path / "project", PROJECT), tmp_path / "cache"
    first = _scan(tree, cache)
    assert _scan(tree, cache) == first
    [memo] = (cache / "summary").iterdir()
    # Plant a summary under the run's own fingerprint: shown as it is, so the second run read it.
    kept = json.loads(memo.read_bytes().split(b"\n", 1)[1])
    kept["data"]["summary"]["lines"] = 987654
    memo.write_bytes(encode(kept))
    assert "987654 lines" in _scan(tree, cache)
    # One more call in one file: a new fingerprint, a fresh summary with the new count.
    main = tree / "src" / "main.cu"
    main.write_text(main.read_text().replace("  cudaFree(d);\n", "  cudaFree(d);\n  cudaFree(d);\n"))
    edited = _scan(tree, cache)
    assert "987654" not in edited and edited != first
    assert edited == _scan(tree, tmp_path / "fresh-cache")


def test_a_damaged_summary_is_a_miss(tmp_path: Path) -> None:
    tree, cache = _write(tmp_path / "project", PROJECT), tmp_path / "cache"
    first = _scan(tree, cache)
    [memo] = (cache / "summary").iterdir()
    memo.write_bytes(memo.read_bytes()[:-20])
    assert _scan(tree, cache) == first


def _json(tree: Path, cache: Path | None) -> str:
    """The JSON of a scan with its own cache directory, or with --no-cache (None)."""
    env = dict(os.environ) if cache is None else {**os.environ, "PORTKIT_CACHE_DIR": str(cache)}
    options = ["--no-cache"] if cache is None else []
    run = subprocess.run([sys.executable, "-m", "portkit", "scan", "--rocm-version", "5.2", "-f", "json", *options,
                          str(tree)], capture_output=True, text=True, env=env, check=True)
    return run.stdout


@pytest.mark.parametrize("index", range(3))
def test_json_streamed_from_the_cache_is_the_json_of_a_full_run(tmp_path: Path, index: int) -> None:
    tree = _trees(tmp_path)[index]
    full = _json(tree, None)  # --no-cache: every finding held, as before streaming
    assert json.loads(full)["findings"]
    cache = tmp_path / "cache"
    assert _json(tree, cache) == full  # fills the cache, then reads the sites back
    assert _json(tree, cache) == full  # warm


def test_json_without_a_writable_cache_still_lists_every_finding(tmp_path: Path) -> None:
    tree = _write(tmp_path / "project", PROJECT)
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("")
    assert _json(tree, blocked) == _json(tree, None)


def test_a_tree_with_its_own_hip_layer_says_so(tmp_path: Path) -> None:
    """A header that includes HIP's runtime for the project's own HIP build (llama.cpp's vendors/hip.h under
    GGML_USE_HIP): the summary says the tree already has a HIP path, cold and from the kept summary; a tree without
    one says nothing of it."""
    tree = _write(tmp_path / "layered", {
        "gpu/hip_names.h": "#pragma once\n#include <hip/hip_runtime.h>\n#define cudaStream_t hipStream_t\n",
        "gpu/cuda_names.h": "#pragma once\n#include <cuda_runtime.h>\n",
        "k.cu": '#ifdef PROJECT_HIP\n#include "gpu/hip_names.h"\n#else\n#include "gpu/cuda_names.h"\n#endif\n'
                "__global__ void k(int *p) { p[threadIdx.x] = 1; }\n"
                "void go(int *p, cudaStream_t s) { k<<<1, 32, 0, s>>>(p); }\n"})
    cache = tmp_path / "cache"
    note = (f"note: the project already has a HIP path: {tree / 'gpu' / 'hip_names.h'} (selected by PROJECT_HIP); "
            "convert leaves it as written")
    shown = [" ".join(_scan(tree, cache).split()) for _ in range(2)]  # the line wraps between its parts
    assert note in shown[0] and note in shown[1]
    assert "note:" not in _scan(_write(tmp_path / "project", PROJECT), cache)


def _case_scanned_both_ways(case: Path, tmp_path: Path) -> dict:
    """The scan data of a case file alone, which a summary-only run must give as the full one does (its findings
    aside)."""
    shutil.copy(case, tmp_path / case.name)
    full = scan_data(run_project(_settings(tmp_path, cache=False)))
    full.pop("findings")
    summary = scan_data(run_project(_settings(tmp_path, cache=False), RunRequest(summary_only=True)))
    assert summary == full
    return full


def test_what_convert_leaves_beside_the_projects_hip_branch_is_billed_nowhere(tmp_path: Path) -> None:
    """A CUDA test convert keeps beside the project's own HIP branch, and the CUDA branch it keeps as written (its
    names, its hazards, an architecture test), are right as they are: listed, but the estimate bills none of it, in
    the full run and in the summary's counts alike. (The test of __CUDACC__ was billed as partial work, 0.33 h, and
    its PK203 0.32 h; the branch's __ballot_sync, warp-size literal and __CUDA_ARCH__ test 4.3 h more.)"""
    case = ROOT / "tests" / "cases" / "own_hip_branch.cu"
    full = _case_scanned_both_ways(case, tmp_path)
    apis = {api["name"]: (api["sites"], api["billed"], api["hours"]) for api in full["apis"]}
    assert {name: apis[name] for name in ("__CUDACC__", "__CUDA_ARCH__", "__ballot_sync")} == {
        "__CUDACC__": (1, 0, 0.0), "__CUDA_ARCH__": (1, 0, 0.0), "__ballot_sync": (1, 0, 0.0)}
    codes = {row["code"]: (row["sites"], row["billed"]) for row in full["codes"]}
    assert {code: codes[code] for code in ("PK203", "PK300", "PK301", "PK320")} == {
        "PK203": (2, 0), "PK300": (1, 0), "PK301": (1, 0), "PK320": (1, 0)}
    effort = full["plan"]["effort"]
    assert all(row["hours"] == 0.0 for row in effort["by_status"].values())
    assert {item["code"] for item in effort["inventory"]} == {"PK202", "PK204"}  # what convert writes: ~0 h
    model = effort_model()  # the file's own cost and its runtime header's, which convert writes: no host lines
    assert effort["hours"] == 0.0 and [f["hours"] for f in full["plan"]["files"]] == [
        round(model["per_file"]["api"] + model["inventory"]["PK204"], 2)]


def test_the_projects_nvidia_side_is_no_work_for_amd(tmp_path: Path) -> None:
    """The #else of the project's own `#if defined(__HIP_PLATFORM_AMD__)`: HIP on NVIDIA builds it, AMD never does. Its
    names are renamed as anywhere, but neither they nor its warp-size code are work for the port, in the full run and
    the summary's counts alike; convert writes no hazard marker there. (1.1 h billed before, with PK300/PK301 markers.)"""
    case = ROOT / "tests" / "cases" / "projects_nvidia_side.cu"
    full = _case_scanned_both_ways(case, tmp_path)
    apis = {api["name"]: (api["sites"], api["billed"]) for api in full["apis"]}
    assert apis["__ballot_sync"] == (1, 0) and apis["cuda_runtime.h"] == (1, 1)
    codes = {row["code"]: (row["sites"], row["billed"]) for row in full["codes"]}
    assert {code: codes[code] for code in ("PK300", "PK301", "PK302")} == {"PK300": (1, 0), "PK301": (1, 0), "PK302": (1, 0)}
    out = tmp_path / "out"
    assert main(["convert", "--no-cache", str(tmp_path / case.name), "-o", str(out)]) == 0
    text = (out / case.name).read_text()
    assert "__ballot(p)" in text and "portkit: PK30" not in text


def test_the_projects_nvidia_side_drives_neither_readiness_nor_the_newest_rocm_nor_markers(tmp_path: Path) -> None:
    """What sits in the project's NVIDIA side is listed (its sites, its names' statuses at the target), but no build
    for AMD compiles it: it does not lower the readiness, a name only it uses (__ballot_sync, HIP 6.2) brings no line
    for the newest ROCm, and convert writes it no marker. (r5 of trial 14: `#ifndef __HIP_PLATFORM_AMD__` around
    cublasSetMathMode read 50% ready, added "at ROCm 6.1.0: readiness 100%", and got PK104 markers.)"""
    case = ROOT / "tests" / "cases" / "projects_nvidia_side.cu"
    full = _case_scanned_both_ways(case, tmp_path)
    assert {api["name"]: (api["sites"], api["counted"]) for api in full["apis"]}["__ballot_sync"] == (1, 0)
    assert full["summary"]["sites_by_status"]["unavailable"] == 1
    assert full["plan"]["readiness"]["score"] == 100 and full["plan"]["newest"] is None
    out = tmp_path / "out"
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(tmp_path / case.name), "-o", str(out)]) == 0
    assert "portkit: PK" not in (out / case.name).read_text()


def test_what_the_projects_own_hip_switch_covers_is_no_work(tmp_path: Path) -> None:
    """`#ifdef USE_AMD_ROCM` around the project's HIP code: the CUDA branch beside it is no work for a build with the
    switch, so its names and asm are billed nowhere (full and summary alike); convert still converts and marks it,
    for a build without the switch; the note names the switch, not `HAVE_GPU` around both."""
    case = ROOT / "tests" / "cases" / "projects_hip_switch.cu"
    full = _case_scanned_both_ways(case, tmp_path)
    apis = {api["name"]: (api["sites"], api["billed"]) for api in full["apis"]}
    assert {name: apis[name] for name in ("%laneid", "__ballot_sync", "cudaDeviceSynchronize")} == {
        "%laneid": (1, 0), "__ballot_sync": (1, 0), "cudaDeviceSynchronize": (1, 1)}
    assert [n for n in full["notes"] if "HIP switch" in n] == [
        "the project has its own HIP switch: USE_AMD_ROCM (in 1 file); the CUDA branches beside its HIP branches are "
        "no work for a build with it and are not billed (convert still converts and marks them, for a build without "
        "it)"]
    out = tmp_path / "out"
    assert main(["convert", "--no-cache", str(tmp_path / case.name), "-o", str(out)]) == 0
    text = (out / case.name).read_text()
    assert "portkit: PK101 %laneid" in text and "return __ballot(p); }  // expect: PK202 PK104" in text


def test_a_negated_test_of_the_projects_hip_switch_is_the_switch(tmp_path: Path) -> None:
    """causal-conv1d's `#ifndef USE_ROCM` (and `#if !defined(USE_ROCM)`) holds its CUDA code, the #else its HIP code:
    the switch with its sides swapped. The CUDA branch is billed nowhere and the note names the switch. (It was not
    recognised: the CUDA side was billed, causal-conv1d's whole 2.0 h headline.)"""
    case = ROOT / "tests" / "cases" / "projects_hip_switch_negated.cu"
    full = _case_scanned_both_ways(case, tmp_path)
    apis = {api["name"]: (api["sites"], api["billed"]) for api in full["apis"]}
    assert {name: apis[name] for name in ("cuda_bf16.h", "__shfl_xor_sync", "__ballot_sync", "cudaDeviceSynchronize")} \
        == {"cuda_bf16.h": (1, 0), "__shfl_xor_sync": (1, 0), "__ballot_sync": (1, 0), "cudaDeviceSynchronize": (1, 1)}
    assert [n for n in full["notes"] if "HIP switch" in n][0].startswith("the project has its own HIP switch: USE_ROCM")


def test_the_cuda_side_of_the_projects_hip_switch_drives_neither_readiness_nor_the_newest_rocm(tmp_path: Path) -> None:
    """Beside `#ifdef USE_AMD_ROCM` the CUDA branch is code a build for AMD (with the switch) does not compile: billed
    nowhere, and so no part of the readiness either, nor of the newest ROCm's line (its __ballot_sync, HIP 6.2). It was
    60% ready at HIP 5.2 with "at ROCm 6.2.0: readiness 60%", for 0 h of work."""
    case = ROOT / "tests" / "cases" / "projects_hip_switch.cu"
    full = _case_scanned_both_ways(case, tmp_path)
    counted = {api["name"]: (api["sites"], api["billed"], api["counted"]) for api in full["apis"]}
    assert {name: counted[name] for name in ("%laneid", "__ballot_sync", "cudaDeviceSynchronize")} == {
        "%laneid": (1, 0, 0), "__ballot_sync": (1, 0, 0), "cudaDeviceSynchronize": (1, 1, 1)}
    assert full["plan"]["readiness"]["score"] == 100 and full["plan"]["newest"] is None


def test_what_the_projects_hip_layer_settles_is_ready(tmp_path: Path) -> None:
    """mamba's alias.cuh: a use of `cuda::std` the project's own HIP layer aliases is settled (no work, its HIP build
    compiles it as std's), so readiness counts it ready, not unsupported; the libcu++ include beside the switch's HIP
    branch is out of it as no build for AMD compiles it. Only __nanosleep is work: 50%, in the full run and the
    summary's counts alike, cold and from a filled cache. (0%: three unsupported sites, for the one billed.)"""
    case = ROOT / "tests" / "cases" / "hip_layer_readiness.cuh"
    shutil.copy(case, tmp_path / case.name)
    full = scan_data(run_project(_settings(tmp_path, cache=False)))
    full.pop("findings")
    for cache in (False, True, True):  # cold, filling the cache, from it (the layer's files read back)
        summary = scan_data(run_project(_settings(tmp_path, cache=cache), RunRequest(summary_only=True)))
        summary.pop("findings", None)
        assert summary == full
    counted = {api["name"]: (api["sites"], api["billed"], api["counted"], api["ready"]) for api in full["apis"]}
    assert counted == {"cuda/std/type_traits": (1, 0, 0, 0), "cuda::std": (1, 0, 1, 1), "__nanosleep": (1, 1, 1, 0)}
    readiness = full["plan"]["readiness"]
    assert (readiness["score"], readiness["clean_sites"], readiness["total_sites"]) == (50, 1, 2)
    assert full["plan"]["newest"] is None


def test_a_hip_header_the_projects_hip_branch_needs_and_the_target_lacks_is_noted(tmp_path: Path) -> None:
    """causal-conv1d's HIP branch (the #else of `#ifndef USE_ROCM`) includes <hip/hip_bf16.h>, which HIP has from 5.7:
    a note says its own HIP build needs that ROCm, where the target is older (nothing said so)."""
    case = ROOT / "tests" / "cases" / "projects_hip_switch_negated.cu"
    full = _case_scanned_both_ways(case, tmp_path)
    assert [n for n in full["notes"] if "own HIP branches" in n] == [
        "the project's own HIP branches need ROCm 5.7.0 or newer: they include <hip/hip_bf16.h> (HIP 5.7.0, in 1 file), "
        "which the targeted HIP 5.2.0 lacks"]
    later = scan_data(run_project(dataclasses.replace(_settings(tmp_path, cache=False), target=Target(rocm=(6, 2, 0)))))
    assert not [n for n in later["notes"] if "own HIP branches" in n]


def test_tests_of_macros_hips_platform_decides_are_the_projects_nvidia_side(tmp_path: Path) -> None:
    """DeepSpeed's PTX_AVAILABLE, defined only in the #else of `#ifdef __HIP_PLATFORM_AMD__`, and bitsandbytes'
    BNB_HIP (1 under a HIP platform test, 0 in its #else), tested in another file: `#ifdef PTX_AVAILABLE` / asm,
    `#if !BNB_HIP`, the #else of `#if BNB_HIP` are code hipcc never compiles for AMD. Listed, billed nowhere, in the
    full run and the summary's counts alike; no HIP switch note. (DeepSpeed's memory_access_utils.h, 55 of its 62 asm
    under PTX_AVAILABLE / ASYNC_COPY_AVAILABLE, was billed 19.6 h.)"""
    case = ROOT / "tests" / "cases" / "projects_platform_macros.cu"
    (tmp_path / "include").mkdir()
    shutil.copy(case.parent / "include" / "platform_macros.h", tmp_path / "include")
    full = _case_scanned_both_ways(case, tmp_path)
    apis = {api["name"]: (api["sites"], api["billed"]) for api in full["apis"]}
    assert {name: apis[name] for name in ("%laneid", "__ballot_sync", "__any_sync", "cuda_runtime.h")} == {
        "%laneid": (1, 0), "__ballot_sync": (1, 0), "__any_sync": (1, 0), "cuda_runtime.h": (1, 1)}
    assert {row["code"]: row["billed"] for row in full["codes"]}["PK301"] == 0
    assert not [n for n in full["notes"] if "HIP switch" in n]


def test_what_the_projects_own_hip_layer_defines_is_no_work(tmp_path: Path) -> None:
    """kaldi's hip/hipify.h, included under its own switch, defines CUDA's names as HIP's (`#define cudaMemcpyAsync
    hipMemcpyAsync`): its HIP build compiles HIP's names there already. Their uses are listed, naming the layer, and
    billed nowhere, in the full run and the summary's counts alike (cold and from a filled cache); a name the layer
    does not define is billed as ever. (Each use was billed: kaldi's cudamatrix with hip/ came to 22.1 person-days.)"""
    case = ROOT / "tests" / "cases" / "own_hip_layer.cu"
    shutil.copy(case, tmp_path / case.name)
    (tmp_path / "include").mkdir()
    shutil.copy(case.parent / "include" / "own_hip_layer.h", tmp_path / "include")
    full = scan_data(run_project(_settings(tmp_path, cache=False)))
    sites = full.pop("findings")
    for cache in (False, True, True):  # cold, filling the cache, from it
        summary = scan_data(run_project(_settings(tmp_path, cache=cache), RunRequest(summary_only=True)))
        summary.pop("findings", None)  # (a run with a cache reads its sites back)
        assert summary == full
    apis = {api["name"]: (api["sites"], api["billed"]) for api in full["apis"]}
    assert {name: apis[name] for name in ("cudaMemcpyAsync", "cudaStream_t", "cudaSuccess", "cudaStreamCreate")} == {
        "cudaMemcpyAsync": (1, 0), "cudaStream_t": (2, 0), "cudaSuccess": (3, 0), "cudaStreamCreate": (1, 1)}
    layer = [s for s in sites if s["name"] == "cudaMemcpyAsync"]
    assert len(layer) == 1 and "the project's own HIP layer" in layer[0]["message"] \
        and "own_hip_layer.h" in layer[0]["message"]


# mamba's alias.cuh shape: libcu++ for nvcc, and under its HIP switch the project's own `cuda::std` (with HIP's header
# beside it, or the alias alone).
CUDA_STD_ALIAS = ("#pragma once\n#ifndef USE_ROCM\n#include <cuda/std/atomic>\n#include <cuda/std/type_traits>\n#else\n"
                  "{hip}#include <atomic>\n#include <type_traits>\nnamespace cuda {{ namespace std = ::std; }}\n#endif\n"
                  "template <typename T, typename U>\n__host__ __device__ void put(T *p, U &&v) "
                  "{{ *p = ::cuda::std::forward<U>(v); }}\n"
                  "inline bool is_lock_free(const cuda::std::atomic<int> &a) {{ return a.is_lock_free(); }}\n")


@pytest.mark.parametrize("hip", ["#include <hip/hip_runtime.h>\n", ""], ids=["with-hip-header", "alias-alone"])
def test_a_cuda_namespace_the_projects_hip_branch_aliases_is_no_work(hip: str, tmp_path: Path) -> None:
    """mamba's alias.cuh: `#ifndef USE_ROCM` libcu++ `#else namespace cuda { namespace std = ::std; }`: its HIP build
    compiles `::cuda::std::forward` as std's (hipcc builds it with -DUSE_ROCM). `cuda::std` was billed all the same
    (3.27 h for a 10-line file), and with the alias alone in the branch USE_ROCM was no HIP switch at all. The alias is
    the project's HIP layer's definition of the CUDA namespace, HIP content of its branch: the uses of the namespace
    and of its members are settled, listed with the layer and billed nowhere, in the full run and the summary's
    counts alike."""
    hipcc = require_tool("hipcc")
    (tmp_path / "alias.cuh").write_text(CUDA_STD_ALIAS.format(hip=hip))
    (tmp_path / "use.cu").write_text('#include "alias.cuh"\n__global__ void k(int *p) { put(p, 1); }\n')
    compiled = subprocess.run([hipcc, "--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip", "-DUSE_ROCM", "-std=c++17",
                               "-include", "hip/hip_runtime.h", str(tmp_path / "use.cu")], capture_output=True,
                              text=True, env={**os.environ, "HIP_PLATFORM": "amd"}, check=False)
    assert compiled.returncode == 0, compiled.stderr
    full = scan_data(run_project(_settings(tmp_path, cache=False)))
    sites = full.pop("findings")
    for cache in (False, True, True):
        summary = scan_data(run_project(_settings(tmp_path, cache=cache), RunRequest(summary_only=True)))
        summary.pop("findings", None)
        assert summary == full
    aliased = [s for s in sites if s["name"].startswith("cuda::std") and s["line"] > 8]
    assert {s["name"] for s in aliased} >= {"cuda::std", "cuda::std::atomic"}, aliased
    assert all("the project's own HIP layer" in s["message"] for s in aliased), aliased
    billed = {api["name"]: api["billed"] for api in full["apis"]}
    assert all(billed[s["name"]] == 0 for s in aliased), billed
    assert full["plan"]["effort"]["hours"] == 0.0


@pytest.mark.parametrize("cuda, billed", [(None, 0), ((12, 0), 1), ((11, 0), 1), ((9, 0), 3)])
def test_a_branch_no_cudnn_for_the_targeted_cuda_builds_is_billed_nothing(tmp_path: Path, cuda, billed: int) -> None:
    """`#if CUDNN_MAJOR >= 8` ... `#else` cuDNN 7's enums: no cuDNN built for CUDA 11 or newer (nor the newest CUDA's,
    without --cuda-version) compiles the #else, so its removed enums (9.7 h each) are listed but not billed; for CUDA 9
    (cuDNN 7.0-7.6) they are work. A test cuDNN 8 and 9 read otherwise (`CUDNN_VERSION < 9000`) decides nothing for
    CUDA 11 or 12: its branch's enum is billed; the newest CUDA's cuDNN (9 on) never builds it. (39.4 h for the file's
    first function alone before, with any CUDA, under model 15.)"""
    shutil.copy(ROOT / "tests" / "cases" / "cudnn_version_branches.cu", tmp_path)
    settings = dataclasses.replace(_settings(tmp_path, cache=False), target=Target(rocm=(5, 2, 0), cuda=cuda))
    data = scan_data(run_project(settings))
    apis = {api["name"]: api["billed"] for api in data["apis"] if api["status"] == "removed"}
    assert sum(apis.values()) == billed, apis
    assert apis["CUDNN_CONVOLUTION_BWD_DATA_PREFER_FASTEST"] == (cuda is not None)
    model = effort_model()  # a removed name billed costs its name's hours and its site's
    each = model["per_name"][Status.REMOVED] + model["per_site"][Status.REMOVED.value]
    assert (data["plan"]["effort"]["hours"] >= 3 * each) == (billed == 3), data["plan"]["effort"]
    assert "PK203" not in {row["code"] for row in data["codes"]}
