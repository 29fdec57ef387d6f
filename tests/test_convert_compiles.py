"""Each class of failure seen converting real CUDA projects, in a file written for this repo,
converted and compiled with the real hipcc (HIP 5.2 here), in both launch syntaxes."""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from conftest import require_tool
from portkit.cli import main
from portkit.rules.build_facts import build_facts

INPUTS = Path(__file__).parent / "convert" / "compiles"
CASES = Path(__file__).parent / "cases"
UNITS = sorted(p.name for p in INPUTS.glob("*.cu"))


@pytest.mark.parametrize("launch_syntax", ["cuda", "hip"])
def test_every_class_compiles_with_hipcc(launch_syntax: str, tmp_path: Path, capsys) -> None:
    require_tool("hipcc")
    out = tmp_path / "out"
    code = main(["convert", "--verify", "--no-cache", "--rocm-version", "5.2", "--launch-syntax", launch_syntax,
                 str(INPUTS), "-o", str(out)])
    report = capsys.readouterr().out
    assert code == 0, report
    assert f"hipcc: {len(UNITS)} build, 0 stop at a marked site (expected), 0 fail unmarked, 0 not verifiable here" in report
    # Converting the output again changes nothing.
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", "--launch-syntax", launch_syntax, str(out),
                 "-o", str(tmp_path / "again")]) == 0
    for unit in UNITS + ["header_only_uses.cuh"]:
        assert (tmp_path / "again" / unit).read_bytes() == (out / unit).read_bytes(), unit


def nvcc_builds(tmp_path: Path, name: str) -> None:
    """nvcc compiles the input `name` for sm_80: the code the conversion must keep meaning what it meant."""
    nvidia = subprocess.run([require_tool("nvcc"), "-arch=sm_80", "-c", str(INPUTS / name), "-o", str(tmp_path / "nvidia.o")],
                            capture_output=True, text=True)
    assert nvidia.returncode == 0, nvidia.stderr[-3000:]


def hipcc_builds(tmp_path: Path, name: str) -> None:
    """hipcc compiles `name` as converted into tmp_path/out for gfx90a in full: AMD's device and host passes."""
    amd = subprocess.run([require_tool("hipcc"), "--offload-arch=gfx90a", "-c", "-x", "hip", str(tmp_path / "out" / name),
                          "-o", str(tmp_path / "amd.o")], capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"})
    assert amd.returncode == 0, amd.stderr[-3000:]


def converted(tmp_path: Path, name: str, *options: str) -> str:
    assert main(["convert", "--no-cache", *options, str(INPUTS / name), "-o", str(tmp_path / "out")]) == 0
    return (tmp_path / "out" / name).read_text()


def converted_case(tmp_path: Path, name: str, header: str, rocm: str) -> Path:
    """tests/cases/`name`, with the include/`header` it includes, converted for HIP `rocm`: the converted unit (hipcc
    must be installed: the tests that convert a case this way compile it)."""
    require_tool("hipcc")
    tree = tmp_path / "in"
    (tree / "include").mkdir(parents=True)
    (tree / name).write_text((CASES / name).read_text())
    (tree / "include" / header).write_text((CASES / "include" / header).read_text())
    assert main(["convert", "--no-cache", "--rocm-version", rocm, str(tree), "-o", str(tmp_path / "out")]) == 0
    return tmp_path / "out" / name


def compiles_for_amd(unit: Path, *flags: str) -> None:
    """hipcc for gfx90a reads `unit` (syntax only) with `flags` and finds no error."""
    built = subprocess.run([require_tool("hipcc"), "--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip", *flags, str(unit)],
                           capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"})
    assert built.returncode == 0, built.stderr[-3000:]


def verified(tmp_path: Path, capsys, files: dict[str, str]) -> Path:
    """Write `files` into a tree, convert it for HIP 5.2 with --verify (its one unit must compile); the output tree."""
    return verified_units(tmp_path, capsys, files, 1)


def verified_units(tmp_path: Path, capsys, files: dict[str, str], units: int) -> Path:
    """`verified`, for a tree of `units` units, each of which must compile."""
    require_tool("hipcc")
    tree, out = tmp_path / "in", tmp_path / "out"
    tree.mkdir()
    for name, text in files.items():
        (tree / name).write_text(text)
    assert main(["convert", "--verify", "--no-cache", "--rocm-version", "5.2", str(tree), "-o", str(out)]) == 0
    report = capsys.readouterr().out
    assert f"hipcc: {units} build, 0 stop at a marked site (expected), 0 fail unmarked" in report, report
    return out


def test_runtime_include_goes_after_the_comments_and_the_guard(tmp_path: Path) -> None:
    text = converted(tmp_path, "header_only_uses.cuh", "--rocm-version", "5.2")
    assert text.startswith("// A header that uses CUDA's language extensions and includes nothing.\n"
                           "#ifndef HEADER_ONLY_USES_CUH\n#define HEADER_ONLY_USES_CUH\n#include <hip/hip_runtime.h>\n")


def test_spaced_chevrons_and_launch_configurations(tmp_path: Path) -> None:
    cuda = converted(tmp_path, "launches.cu", "--rocm-version", "5.2")
    assert "plain<<<1, 32>>>(d);" in cuda
    hip = converted(tmp_path / "h", "launches.cu", "--rocm-version", "5.2", "--launch-syntax", "hip")
    assert "hipLaunchKernelGGL(HIP_KERNEL_NAME(scale<float>), dim3(2), dim3(64), 0, s, d, 2.0f);" in hip
    assert "hipLaunchKernelGGL(ops::zero, dim3((256 + 127) / 128), dim3(128), 0, 0, i);" in hip
    assert "CHECK((plain<<<1, 32>>>(d), hipGetLastError()));" in hip, "hipLaunchKernelGGL is no expression"


def test_statement_macros_do_not_hide_api_calls(tmp_path: Path) -> None:
    text = converted(tmp_path, "statement_macros.cu", "--rocm-version", "5.2")
    assert text.count("hipMemcpy(") == 2 and text.count("hipMemcpyHostToDevice") == 2
    assert "hipDeviceSynchronize()" in text and "cudaMemcpy" not in text


@pytest.mark.parametrize("version, expected", [
    ("5.2", ["__shfl_down(v, offset)", "__ballot(v > 0.0f)", "__builtin_amdgcn_wave_barrier()",
             "#define SHFL_SYNC(mask, v, lane) __shfl((v), (lane))\n", " __ballot((pred) /* a vote, (not a mask) */)\n",
             "(::__ballot(true) & 1u)", "::__any(p) && !::__all(p)"]),
    ("6.2", ["#define HIP_ENABLE_WARP_SYNC_BUILTINS\n", "__shfl_down_sync(0xffffffffffffffffull, v, offset)",
             "__ballot_sync(__activemask(), v > 0.0f)", "__builtin_amdgcn_wave_barrier()",
             "::__ballot_sync(0xffffffffffffffffull, true)"]),
    ("7.0", ["__shfl_down_sync(0xffffffffffffffffull, v, offset)", "__syncwarp()"]),
])
def test_warp_intrinsics_per_target(version: str, expected: list[str], tmp_path: Path) -> None:
    text = converted(tmp_path, "warp_sync.cu", "--rocm-version", version)
    for piece in expected:
        assert piece in text, (version, piece)
    assert ("HIP_ENABLE_WARP_SYNC_BUILTINS" in text) == (version == "6.2")


def test_arch_comparisons_keep_their_meaning_on_amd(tmp_path: Path) -> None:
    text = converted(tmp_path, "device_functions.cu", "--rocm-version", "5.2")
    assert "#if !defined(__HIP_DEVICE_COMPILE__) || defined(__HIP_DEVICE_COMPILE__)\n" in text
    assert "#if defined(__HIP_DEVICE_COMPILE__)\n" in text
    assert "min(u[1], u[2]) + max(u[1], u[2])" in text and "(3.141592654F)" in text


def test_a_nested_ptx_branch_does_not_hold_back_the_test_around_it(tmp_path: Path) -> None:
    text = converted(tmp_path, "arch_guarded_ptx.cu", "--rocm-version", "5.2")
    # The outer test only declares a device function: AMD's host pass takes it too (arch_guarded_declarations.cu).
    assert "#if defined(__HIP__) || defined(__HIP_DEVICE_COMPILE__)\n__device__ void add_twice(" in text
    assert "#if __CUDA_ARCH__ >= 700\n" in text and "#if __CUDA_ARCH__ >= 900\n" in text  # those guarding PTX
    assert "#if defined(__HIP_DEVICE_COMPILE__) && __CUDA_ARCH__ >= 300\n" in text  # PTX in a #define body


def test_arch_tests_around_device_functions_hold_in_amds_host_pass(tmp_path: Path) -> None:
    """nvcc builds the original; clang's host pass instantiates the kernel templates that call the functions, so the
    converted tests must hold there too (a full compile: the failure was the host pass's), written once each."""
    require_tool("hipcc")
    require_tool("nvcc")
    name = "arch_guarded_declarations.cu"
    nvcc_builds(tmp_path, name)
    text = converted(tmp_path, name, "--rocm-version", "5.2")
    both = "#if defined(__HIP__) || defined(__HIP_DEVICE_COMPILE__)"
    assert text.count(f"{both}  // atomicAdd(double) needs sm_60\n") == 1
    assert f"{both}\n__device__ inline void add_float(" in text and f"{both}\n__device__ float add_max(" in text
    assert "#if __CUDA_ARCH__ >= 700\n" in text  # PTX: left as CUDA's
    assert "#if defined(__HIP_DEVICE_COMPILE__)\n__host__ __device__ double add_or_store(" in text, "the host keeps its fallback"
    assert "defined(__HIP_DEVICE_COMPILE__) && defined(__HIP_DEVICE_COMPILE__)" not in text
    hipcc_builds(tmp_path, name)


def test_lone_arch_tests_around_device_functions_hold_in_amds_host_pass(tmp_path: Path) -> None:
    """`#ifdef __CUDA_ARCH__`, `#if defined(...)`, `#ifndef ... #else` around device functions only: as for the compared
    tests, the rewritten test holds in both of AMD's passes (a full compile: the host pass failed), written once."""
    require_tool("hipcc")
    require_tool("nvcc")
    name = "arch_defined_declarations.cu"
    nvcc_builds(tmp_path, name)
    text = converted(tmp_path, name, "--rocm-version", "5.2")
    both = "defined(__HIP__) || defined(__HIP_DEVICE_COMPILE__)"
    assert f"#if {both}\n__device__ void add_to(" in text and f"#if {both}\ntemplate <typename T>" in text
    assert f"#if !({both})\n__device__ float halve(" in text
    assert f"#if !({both})\n__device__ double add_slowly(" in text, "the `!defined(X) ||` said once"
    assert "#ifdef __HIP_DEVICE_COMPILE__\n__host__ __device__ float scale(" in text, "the host keeps its fallback"
    hipcc_builds(tmp_path, name)


def test_device_functions_with_host_twins_are_callable_from_both_sides(tmp_path: Path) -> None:
    """A __device__ function under a __CUDA_ARCH__ test and a host function or function-like macro of the same name
    in the other branch (ccminer's swab32): nvcc builds the original; in a full hipcc compile the device pass
    type-checks host code and the host pass kernels, so both definitions are written __host__ __device__."""
    require_tool("hipcc")
    require_tool("nvcc")
    name = "arch_host_twins.cu"
    nvcc_builds(tmp_path, name)
    text = converted(tmp_path, name, "--rocm-version", "5.2")
    assert "#ifdef __HIP_DEVICE_COMPILE__\n__host__ __device__ __forceinline__ unsigned swap_halves(" in text
    assert "#else\n#define swap_halves(x) (((x) << 16)" in text, "a function-like macro needs nothing"
    assert "#if defined(__HIP_DEVICE_COMPILE__)\n__host__ __device__ int bits_set(" in text
    assert "#else\n__host__ __device__ static inline int bits_set(" in text
    assert "#ifndef __HIP_DEVICE_COMPILE__\n__device__ __host__ float half_of(" in text, "its own __host__ kept"
    assert "#else\n__host__ __device__ float half_of(" in text
    assert "template <typename T> __host__ __device__ T loaded(const T *p) { return __ldg(p); }" in text
    assert "template <typename T> __host__ __device__ T loaded(const T *p) { return *p; }" in text
    hipcc_builds(tmp_path, name)


def test_a_host_twin_no_space_can_change_is_marked(tmp_path: Path) -> None:
    """The other branch names the function by an object-like macro: nothing convert can write, so a marker at the
    test says what to do, and the device function is left as written."""
    source = tmp_path / "renamed.cu"
    source.write_text(
        "#ifdef __CUDA_ARCH__\n__device__ unsigned low(unsigned x) { return __byte_perm(x, 0, 0x4410); }\n#else\n"
        "#define low host_low\n#endif\nstatic unsigned host_low(unsigned x) { return x & 0xffffu; }\n"
        "__global__ void k(unsigned *p) { p[0] = low(p[0]); }\n"
        "unsigned on_host(unsigned v) { return low(v); }\n")
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(source), "-o", str(tmp_path / "out")]) == 0
    text = (tmp_path / "out" / "renamed.cu").read_text()
    assert "// portkit: PK345 low: host code calling low finds only the __device__ function" in text
    assert "#ifdef __HIP_DEVICE_COMPILE__\n__device__ unsigned low(" in text


def test_a_negated_defined_before_an_older_than_test_is_said_once(tmp_path: Path) -> None:
    """`!defined(__CUDA_ARCH__) || __CUDA_ARCH__ < 600` was `!defined(X) || !defined(X)`: now written whole, once."""
    source = tmp_path / "older.cu"
    source.write_text("#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ < 600\n#define SLOW 1\n#endif\n"
                      "#if defined(__CUDACC__) && (!defined(__CUDA_ARCH__) || __CUDA_ARCH__ < 600)\n#define OLD 1\n#endif\n"
                      "__global__ void k(int *p) { p[0] = 1; }\n")
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(source), "-o", str(tmp_path / "out")]) == 0
    text = (tmp_path / "out" / "older.cu").read_text()
    assert "#if !defined(__HIP_DEVICE_COMPILE__)\n#define SLOW" in text
    assert "#if defined(__HIPCC__) && (!defined(__HIP_DEVICE_COMPILE__))\n#define OLD" in text


def test_a_member_named_max_brings_no_min_max_helper(tmp_path: Path) -> None:
    """`std::numeric_limits<T>::max()` is a member of another scope, not CUDA's `max`: no mixed-signedness helper."""
    source = tmp_path / "limits.cuh"
    source.write_text("#pragma once\n#include <limits>\n"
                      "template <typename T> __device__ T lowest() { return std::numeric_limits<T>::lowest(); }\n"
                      "template <typename T> __device__ T highest() { return std::numeric_limits<T>::max(); }\n"
                      "__device__ unsigned int pick(int a, unsigned int b) { return max(a, b); }\n")
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(source), "-o", str(tmp_path / "out")]) == 0
    assert "PORTKIT_HELPER_MIXED_MIN_MAX" in (tmp_path / "out" / "limits.cuh").read_text(), "CUDA's max(int, unsigned)"
    source.write_text("".join(source.read_text().splitlines(keepends=True)[:4]))
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(source), "-o", str(tmp_path / "out2")]) == 0
    assert "PORTKIT_HELPER_MIXED_MIN_MAX" not in (tmp_path / "out2" / "limits.cuh").read_text()


def test_the_cuda_branch_beside_a_projects_hip_branch_stays_as_written(tmp_path: Path, capsys) -> None:
    """Its test stays CUDA's, so hipcc never compiles it for AMD; nvcc (HIP on NVIDIA) builds it as the original did:
    HIP 5.2's `__shfl_down` and `hip/hip_fp16.h` written there stopped that build."""
    hipcc, nvcc = require_tool("hipcc"), require_tool("nvcc")
    name = "own_cuda_branch.cu"
    text = converted(tmp_path, name, "--rocm-version", "5.2")
    original = (INPUTS / name).read_text()
    branch = original[original.index("#if defined(__CUDACC__)"):original.index("#elif defined(__HIP__)")]
    assert branch in "\n".join(line for line in text.splitlines() if not line.startswith("// portkit:"))
    assert "left as written: the project's CUDA branch" in text
    assert "hipMalloc(&d" in text, "outside the chain, names are HIP's as before"
    assert "PORTKIT_HELPER_MIXED_MIN_MAX" not in text, "no helper for a min hipcc never compiles"
    # Its 32-bit mask is right for nvcc, which alone compiles the branch: no hazard marker there, and none counted.
    assert "PK301" not in text and "PK301" not in capsys.readouterr().out
    unit = tmp_path / "out" / name
    amd = subprocess.run([hipcc, "--offload-arch=gfx90a", "-c", "-x", "hip", str(unit), "-o", str(tmp_path / "amd.o")],
                         capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"})
    assert amd.returncode == 0, amd.stderr[-3000:]
    nvidia = subprocess.run([nvcc, "-arch=sm_80", "-c", "-x", "cu", "-I", str(DATA / "hip-on-nvidia"), str(unit),
                             "-o", str(tmp_path / "nvidia.o")], capture_output=True, text=True)
    assert nvidia.returncode == 0, nvidia.stderr[-3000:]


def test_hips_older_platform_macros_take_their_rocm_6_names(tmp_path: Path, capsys) -> None:
    """ROCm 6.0 dropped __HIP_PLATFORM_HCC__/__HIP_PLATFORM_NVCC__: reported with the replacement, and written as
    __HIP_PLATFORM_AMD__/__HIP_PLATFORM_NVIDIA__ (ROCm 4.2's), which read the same, where the target has them."""
    require_tool("hipcc")
    name = "hip_platform_macros.cu"
    text = converted(tmp_path, name, "--rocm-version", "5.2")
    report = capsys.readouterr().out
    assert "PK103 __HIP_PLATFORM_HCC__: removed in ROCm 6.0.0. Test __HIP_PLATFORM_AMD__" in report
    assert "PK103 __HIP_PLATFORM_NVCC__: removed in ROCm 6.0.0. Test __HIP_PLATFORM_NVIDIA__" in report
    code = "\n".join(line for line in text.splitlines() if not line.startswith("// portkit:"))
    assert "#if defined(__HIP_PLATFORM_AMD__)\n" in code and "#elif defined(__HIP_PLATFORM_NVIDIA__)\n" in code
    assert "#ifdef __HIP_PLATFORM_AMD__\n" in code and "PLATFORM_HCC" not in code and "PLATFORM_NVCC" not in code
    hipcc_builds(tmp_path, name)  # the static_assert: hipcc took the AMD branch
    older = converted(tmp_path / "older", name, "--rocm-version", "4.0")  # before ROCm 4.2: the old names stay
    assert "#if defined(__HIP_PLATFORM_HCC__)\n" in older
    # A shim's `#define __HIP_PLATFORM_NVCC__ __HIP_PLATFORM_NVIDIA__` would make the NVIDIA test true on AMD.
    assert main(["shim", str(INPUTS / name), "-o", str(tmp_path / "shim.h")]) == 0
    assert "#define __HIP_PLATFORM" not in (tmp_path / "shim.h").read_text()


def test_a_cuda_version_compared_in_if_stays_cudas(tmp_path: Path) -> None:
    """`HIP_VERSION >= 12000` holds on every HIP: the comparison stays as written, other uses are renamed."""
    text = converted(tmp_path, "cuda_version_tests.cu", "--rocm-version", "5.2")
    assert "#if CUDART_VERSION >= 12000\n" in text and "#if CUDART_VERSION < 11000\n" in text
    assert "#if CUDART_VERSION >= CUDART_TENSOR_CORES\n" in text
    assert "return HIP_VERSION;" in text
    assert "#if defined(CUDART_VERSION) && CUDART_VERSION >= 11000  //" in text
    # Each test left as written says which branch AMD builds (thundersvm's SpMM code sat under a test false there).
    reads = "// portkit: PK203 {}: CUDA's version reads 0 under hipcc: this test is {} there, so AMD builds {}."
    assert reads.format("CUDART_VERSION >= 12000", "false", "the #elif/#else branch") in text
    assert reads.format("CUDART_VERSION < 11000", "true", "this branch") in text


def test_a_pragma_in_a_macro_body_becomes_the_pragma_operator(tmp_path: Path) -> None:
    text = converted(tmp_path, "pragma_in_macro.cu", "--rocm-version", "5.2")
    assert '#define PRAGMA_UNROLL _Pragma("unroll")\n' in text and '  _Pragma("unroll 4")\n' in text
    assert '#define LABEL "#pragma is text here"' in text


def test_launch_configurations_are_deterministic(tmp_path: Path, capsys, monkeypatch) -> None:
    """Each launch keeps its own configuration, cold or cached, and the bytes are the same every time."""
    import json

    monkeypatch.setenv("PORTKIT_CACHE_DIR", str(tmp_path / "cache"))
    source = tmp_path / "many.cu"
    source.write_text("__global__ void a(int *x) {}\n__global__ void b(int *x) {}\n"
                      "void run(int *d, int n) {\n  a<<<(n+7)/8, 256>>>(d);\n  b<<<(n+255)/256, 128, 0>>>(d);\n"
                      "  a<<<1, 1>>>(d);\n}\n")
    runs = []
    for _ in range(3):
        assert main(["scan", "-f", "json", "--rocm-version", "5.2", str(source)]) == 0
        runs.append(capsys.readouterr().out)
    assert runs[0] == runs[1] == runs[2]
    launches = [f["message"] for f in json.loads(runs[0])["findings"] if f["code"] == "PK201"]
    assert launches == ["launch of a<<<(n+7)/8, 256>>>", "launch of b<<<(n+255)/256, 128, 0>>>", "launch of a<<<1, 1>>>"]
    outputs = set()
    for cache in ("--no-cache", None, None):
        out = tmp_path / f"out{len(outputs)}"
        assert main(["convert", "--rocm-version", "5.2", "--launch-syntax", "hip", *([cache] if cache else []),
                     str(source), "-o", str(out)]) == 0
        outputs.add((out / "many.cu").read_bytes())
    assert len(outputs) == 1


def test_a_static_definition_shadows_its_own_file_only(tmp_path: Path) -> None:
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(INPUTS), "-o", str(tmp_path / "out")]) == 0
    assert "positions[i] = min(positions[i] + 1u, limit);" in (tmp_path / "out" / "internal_linkage.cu").read_text()
    host = (tmp_path / "out" / "internal_linkage_host.cu").read_text()
    assert "unsigned clamped = umin(value + 1u, limit);" in host and "static unsigned umin(" in host


def test_arguments_cuda_defaults_and_hip_requires_are_written(tmp_path: Path) -> None:
    text = converted(tmp_path, "signatures.cu", "--rocm-version", "5.2")
    assert text.count("hipStreamWaitEvent(stream, done, 0);") == 2  # added once, never twice
    assert "hipMalloc3DArray(&volume, &channel, make_hipExtent(8, 8, 8), 0);" in text
    assert "#define CUDART_CB\n" in text and "void CUDART_CB on_done(hipStream_t stream" in text


def test_built_in_coordinates_in_min_and_max_are_cast(tmp_path: Path) -> None:
    text = converted(tmp_path, "device_functions.cu", "--rocm-version", "5.2")
    assert ("u[3] = min(u[1], static_cast<unsigned int>(blockDim.x)) + max(static_cast<unsigned int>(threadIdx.x), "
            "static_cast<unsigned int>(blockDim.x)) + min(u[2], static_cast<unsigned int>(gridDim.x));") in text


def test_vector_compound_assignments_hip_has_stay_out_of_the_hip_build(tmp_path: Path) -> None:
    text = converted(tmp_path, "vector_operators.cu", "--rocm-version", "5.2")
    guarded = "#if !defined(__HIP_PLATFORM_AMD__)\ninline __host__ __device__ void operator+=(float4 &a, float4 b) {"
    assert guarded in text and "#if !defined(__HIP_PLATFORM_AMD__)\ninline __host__ __device__ void operator*=(int2 &a" in text
    assert "#endif\ninline __host__ __device__ void operator+=(float4 &a, float b)" in text  # a scalar: the project's
    assert "#if !defined(__HIP_PLATFORM_AMD__)\n__host__ __device__ inline float2 &operator-=(float2 &a, const float2 &b)" in text
    assert text.count("#if !defined(__HIP_PLATFORM_AMD__)") == 3


def test_coordinates_are_cast_for_the_projects_own_min_and_max_too(tmp_path: Path) -> None:
    """The project's templates live in another file; the call was ambiguous under hipcc all the same."""
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(INPUTS), "-o", str(tmp_path / "out")]) == 0
    text = (tmp_path / "out" / "coordinate_arguments.cu").read_text()
    assert "k < min(remaining, static_cast<unsigned int>(blockDim.x));" in text
    assert "rows[k] = max(static_cast<unsigned int>(threadIdx.x), remaining)" in text
    assert "float host_side(float a, float b) { return min(a, b); }" in text


def test_overloads_hip_merges_keep_the_first(tmp_path: Path) -> None:
    text = converted(tmp_path, "merged_overloads.cu", "--rocm-version", "5.2")
    assert "static const char *errorName(hipError_t error) { return hipGetErrorName(error); }" in text
    assert "#ifdef WITH_DRIVER_API\n#if !defined(__HIP_PLATFORM_AMD__)\nstatic const char *errorName(hipError_t error) {" in text
    assert "#else\nstatic void describe(hipStream_t stream)" in text  # alternatives of one #if: left alone
    assert text.count("#if !defined(__HIP_PLATFORM_AMD__)") == 1


def test_register_is_deleted_from_cpp_and_kept_in_c(tmp_path: Path, capsys) -> None:
    text = converted(tmp_path, "register_storage.cu", "--rocm-version", "5.2")
    assert "  unsigned long long samples[8];\n  unsigned lane = threadIdx.x;\n  for (int i = 0;" in text
    c_file = tmp_path / "old.c"
    c_file.write_text("int sum(const int *v, int n) { register int s = 0; for (int i = 0; i < n; ++i) s += v[i]; return s; }\n")
    assert main(["convert", "--no-cache", "--diff", str(c_file)]) == 0
    assert "register" not in capsys.readouterr().out  # nothing to change: C still has it


def test_macros_mapping_old_shuffles_to_sync_stay_out_of_the_hip_build(tmp_path: Path) -> None:
    text = converted(tmp_path, "legacy_shuffle_macros.cu", "--rocm-version", "5.2")
    lines = text.splitlines()
    for define in ("#define __shfl_down(v, d) __shfl_down_sync(0xffffffff, v, d)", "#define __shfl_xor(v, m) __shfl_xor_sync("):
        at = next(i for i, line in enumerate(lines) if line.startswith(define))
        assert "#if !defined(__HIP_PLATFORM_AMD__)" in lines[at - 2:at] and lines[at + 1] == "#endif", define
    assert text.count("#if !defined(__HIP_PLATFORM_AMD__)") == 2


def test_memory_locations_get_the_helper_and_device_ids_keep_the_hip_call(tmp_path: Path) -> None:
    """CUDA 13's location form (a cudaMemLocation variable, parameter, member or initialiser) is written with
    portkit's helper; CUDA 12's device-id form stays hipMemPrefetchAsync/hipMemAdvise, without the helper."""
    text = converted(tmp_path, "memory_locations.cu", "--rocm-version", "5.2")
    assert text.count("portkit_hipMemPrefetchAsync_v2(data, bytes, ") == 4
    assert "portkit_hipMemAdvise_v2(data, bytes, hipMemAdviseSetPreferredLocation, device_location)" in text
    assert not re.search(r"\bcuda\w*\(", text)
    old = tmp_path / "device_ids.cu"
    old.write_text("#include <cuda_runtime.h>\n"
                   "void place(float *p, size_t n, int device, cudaStream_t s) {\n"
                   "  cudaMemAdvise(p, n, cudaMemAdviseSetReadMostly, device);\n"
                   "  cudaMemPrefetchAsync(p, n, device, s);\n"
                   "  cudaMemPrefetchAsync(p, n, cudaCpuDeviceId);\n}\n")
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(old), "-o", str(tmp_path / "old")]) == 0
    text = (tmp_path / "old" / "device_ids.cu").read_text()
    assert "hipMemAdvise(p, n, hipMemAdviseSetReadMostly, device);" in text
    assert "hipMemPrefetchAsync(p, n, device, s);" in text and "hipMemPrefetchAsync(p, n, hipCpuDeviceId);" in text
    assert "portkit" not in text


def test_statement_macro_after_a_statement_hides_no_call(tmp_path: Path) -> None:
    text = converted(tmp_path, "trailing_statement_macros.cu", "--rocm-version", "5.2")
    assert "hipMalloc(&buffers.values, bytes); CUERR" in text
    assert "hipHostMalloc(&buffers.staging, bytes); CUERR" in text and "hipDeviceSynchronize(); CUERR" in text


def test_nvrtc_options_driver_fields_and_hxx_headers(tmp_path: Path, capsys) -> None:
    """NVRTC's options (const char* const*) are cast for hiprtc's const char**; CUmemAllocationProp's
    requestedHandleTypes is HIP's requestedHandleType; a .hxx header is converted like any other."""
    out = verified(tmp_path, capsys, {
        "alloc.hxx": "#pragma once\n#include <cuda.h>\n"
                     "inline CUmemAllocationProp pinned(CUdevice dev) {\n"
                     "  CUmemAllocationProp prop = {};\n  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;\n"
                     "  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;\n"
                     "  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;\n  prop.location.id = dev;\n"
                     "  return prop;\n}\n",
        "jit.cu": '#include <nvrtc.h>\n#include "alloc.hxx"\n'
                  "nvrtcResult build(nvrtcProgram program) {\n"
                  '  char *options[2] = {(char *)"--std=c++17", (char *)"-default-device"};\n'
                  "  return nvrtcCompileProgram(program, 2, options);\n}\n"})
    assert "hiprtcCompileProgram(program, 2, const_cast<const char**>(options))" in (out / "jit.cu").read_text()
    assert "prop.requestedHandleType = hipMemHandleTypePosixFileDescriptor;" in (out / "alloc.hxx").read_text()


def test_compute_capability_read_through_device_attributes_is_marked(tmp_path: Path, capsys) -> None:
    """A compute capability read through a device attribute (runtime or driver API) holds the gfx generation on
    AMD, as cudaDeviceProp::major does (PK335): the renamed read is marked, and the file builds."""
    out = verified(tmp_path, capsys, {
        "arch.cu": "#include <cuda.h>\n#include <cuda_runtime.h>\n#include <string>\n"
                   "std::string arch(int d, CUdevice dev) {\n  int major = 0, minor = 0;\n"
                   "  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, d);\n"
                   "  cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);\n"
                   "  cuDeviceComputeCapability(&major, &minor, dev);\n"
                   '  return "-arch=compute_" + std::to_string(10 * major + minor);\n}\n'})
    text = (out / "arch.cu").read_text()
    assert "// portkit: PK335 cuDeviceComputeCapability: Identify the GPU with gcnArchName" in text
    assert "// portkit: PK335 cudaDevAttrComputeCapabilityMajor: Identify the GPU with gcnArchName" in text
    assert "// portkit: PK335 CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: Identify the GPU with gcnArchName" in text
    assert "hipDeviceGetAttribute(&major, hipDeviceAttributeComputeCapabilityMajor, d);" in text


def test_nvrtc_kernel_text_and_options_are_marked(tmp_path: Path, capsys) -> None:
    """A kernel NVRTC compiles from a string stays CUDA text after convert, and NVIDIA's options stay in theirs: each is
    marked with what it holds or what hiprtc takes (PK342, PK343), nvrtcGetPTX's code object too (PK101); it builds."""
    kernel = ('R"(\nextern "C" __global__ void red(float* x) {\n  float v = x[threadIdx.x];\n'
              "  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);\n"
              '  if (threadIdx.x % 32 == 0) x[threadIdx.x / 32] = v;\n})"')
    out = verified(tmp_path, capsys, {
        "jit.cpp": "#include <nvrtc.h>\n#include <cuda.h>\n#include <string>\n"
                   f"static const char* kSrc = {kernel};\n"
                   "CUfunction build(int cc) {\n  nvrtcProgram p;\n"
                   '  nvrtcCreateProgram(&p, kSrc, "red.cu", 0, nullptr, nullptr);\n'
                   '  std::string arch = "--gpu-architecture=compute_" + std::to_string(cc);\n'
                   '  const char* opts[] = {arch.c_str(), "--use_fast_math", "-default-device"};\n'
                   "  nvrtcCompileProgram(p, 3, opts);\n  size_t n; nvrtcGetPTXSize(p, &n);\n"
                   "  std::string ptx(n, '\\0'); nvrtcGetPTX(p, &ptx[0]);\n"
                   "  CUmodule m; cuModuleLoadDataEx(&m, ptx.c_str(), 0, nullptr, nullptr);\n"
                   '  CUfunction f; cuModuleGetFunction(&f, m, "red");\n  return f;\n}\n'})
    text = (out / "jit.cpp").read_text()
    assert f"static const char* kSrc = {kernel};" in text  # the string as it was
    assert ("// portkit: PK342 kSrc: hiprtc compiles this text as written: port it to HIP (CUDA names hiprtc needs as "
            "HIP's: __shfl_xor_sync -> __shfl_xor; hazards: PK300 warp-size-literal (lines 7, 8), PK301 full-warp-mask "
            "(line 7))\nstatic const char* kSrc") in text
    assert "// portkit: PK343 --gpu-architecture=compute_: hiprtc reads --gpu-architecture=X as --offload-arch=X" in text
    assert "// portkit: PK343 --use_fast_math -default-device: --use_fast_math: clang spells it -ffast-math;" in text
    assert "// portkit: PK101 nvrtcGetPTX: hiprtcGetCode gives an AMD code object (binary), not PTX text" in text
    assert 'const char* opts[] = {arch.c_str(), "--use_fast_math", "-default-device"};' in text


def test_kernel_text_held_in_a_file_that_does_not_compile_it_is_marked(tmp_path: Path, capsys) -> None:
    """The kernel's text in a header (a raw string, and a plain one with `extern "C" __global__`), compiled by NVRTC in
    another file: each literal that defines a kernel is analysed as a source wherever it is held (PK342); a string
    of options in a file that does not call NVRTC is no NVRTC option (PK343)."""
    out = verified(tmp_path, capsys, {
        "kernels.h": "#pragma once\n"
                     'inline const char* kReduce = R"(\n__global__ void red(float* x) {\n'
                     "  float v = x[threadIdx.x];\n  v += __shfl_xor_sync(0xffffffff, v, 16);\n  x[0] = v;\n})\";\n"
                     'inline const char* kFill = "extern \\"C\\" __global__ void fill(float* x) '
                     '{ x[threadIdx.x] = __shfl_down_sync(0xffffffff, 1.0f, 1); }";\n'
                     'inline const char* kFlags = "-O3 --use_fast_math";\n',
        "jit.cpp": '#include <nvrtc.h>\n#include "kernels.h"\n'
                   "nvrtcResult build(const char* src) {\n  nvrtcProgram p;\n"
                   '  nvrtcCreateProgram(&p, src, "k.cu", 0, nullptr, nullptr);\n'
                   '  const char* options[] = {"-default-device"};\n'
                   "  if (nvrtcCompileProgram(p, 0, nullptr) == NVRTC_SUCCESS) return NVRTC_SUCCESS;\n"
                   "  return nvrtcCompileProgram(p, 1, options);\n}\n"})
    text = (out / "kernels.h").read_text()
    assert ("// portkit: PK342 kReduce: hiprtc compiles this text as written: port it to HIP (CUDA names hiprtc needs "
            "as HIP's: __shfl_xor_sync -> __shfl_xor; hazards: PK301 full-warp-mask (line 5))\ninline const char* kReduce")\
        in text
    assert "// portkit: PK342 kFill: hiprtc compiles this text as written: port it to HIP (CUDA names hiprtc needs as " \
        "HIP's: __shfl_down_sync -> __shfl_down" in text
    assert "PK343" not in text
    # No options: a null pointer needs no cast to hiprtc's const char** (const_cast rejects nullptr's type).
    assert "hiprtcCompileProgram(p, 0, nullptr)" in (out / "jit.cpp").read_text()


_HIPRTC_PROGRAM = """#include <hip/hiprtc.h>
int main(int argc, char** argv) {
  const char* source = "extern \\"C\\" __global__ void k(float* x) { x[threadIdx.x] = 0; }";
  hiprtcProgram program;
  hiprtcCreateProgram(&program, source, "k.cu", 0, nullptr, nullptr);
  const char* options[] = {"--gpu-architecture=gfx90a", argv[1]};
  return hiprtcCompileProgram(program, 2, options) != HIPRTC_SUCCESS;
}
"""


def test_the_nvrtc_options_marked_are_those_hiprtc_rejects(tmp_path: Path) -> None:
    """hiprtc (HIP 5.2's, offline for gfx90a) compiles a kernel with the options PK343 leaves alone and with the
    spelling its advice gives, and refuses the NVRTC spellings it marks."""
    require_tool("hipcc")
    (tmp_path / "rtc.cpp").write_text(_HIPRTC_PROGRAM)
    environment = {**os.environ, "HIP_PLATFORM": "amd"}
    subprocess.run(["hipcc", "--offload-arch=gfx90a", str(tmp_path / "rtc.cpp"), "-o", str(tmp_path / "rtc")],
                   check=True, capture_output=True, env=environment)

    def compiles(option: str) -> bool:
        return subprocess.run([str(tmp_path / "rtc"), option], capture_output=True, timeout=120).returncode == 0

    facts = build_facts()
    for option in ("-O3", "--std=c++17", "-DN=4", "--gpu-architecture=gfx90a"):
        assert facts.nvrtc_advice(option) is None and compiles(option), option
    for option in ("--use_fast_math", "--fmad=false", "--extra-device-vectorization", "--expt-relaxed-constexpr"):
        advice = facts.nvrtc_advice(option)
        assert advice is not None and not compiles(option), option
        if advice.startswith("clang spells it "):
            assert compiles(advice.removeprefix("clang spells it ")), advice


def test_struct_spelled_cuda_types_get_hips_struct_tag(tmp_path: Path, capsys) -> None:
    """`struct cudaGraphicsResource` (how CUDA declares it): HIP's hipGraphicsResource is a typedef, and
    `struct hipGraphicsResource` an error; its struct tag serves, as in the shim's macro."""
    out = verified(tmp_path, capsys, {
        "interop.cu": "#include <cuda_runtime.h>\nstruct cudaGraphicsResource;\n"
                      "struct cudaGraphicsResource *resource;\n"
                      "void map(cudaStream_t s) { cudaGraphicsMapResources(1, &resource, s); }\n"})
    assert "struct _hipGraphicsResource *resource;" in (out / "interop.cu").read_text()
    assert main(["shim", str(tmp_path / "in"), "-o", str(tmp_path / "shim.h")]) == 0
    assert "#define cudaGraphicsResource _hipGraphicsResource" in (tmp_path / "shim.h").read_text()


def test_device_properties_older_hip_lacks(tmp_path: Path, capsys) -> None:
    """hipDeviceProp_t before HIP 6.0 lacks sharedMemPerMultiprocessor under that name (HIP 5.2 calls it
    maxSharedMemoryPerMultiProcessor: the member is renamed) and deviceOverlap (a value for the access)."""
    out = verified(tmp_path, capsys, {
        "query.cu": "#include <cstdio>\n#include <cuda_runtime.h>\nint main() {\n  cudaDeviceProp prop;\n"
                    "  cudaGetDeviceProperties(&prop, 0);\n"
                    '  std::printf("%zu %d\\n", prop.sharedMemPerMultiprocessor, prop.deviceOverlap);\n  return 0;\n}\n'})
    assert 'std::printf("%zu %d\\n", prop.maxSharedMemoryPerMultiProcessor, 1);' in (out / "query.cu").read_text()
    assert main(["convert", "--no-cache", "--rocm-version", "6.2", str(tmp_path / "in"), "-o", str(tmp_path / "new")]) == 0
    assert "prop.sharedMemPerMultiprocessor, prop.deviceOverlap" in (tmp_path / "new" / "query.cu").read_text()


@pytest.mark.parametrize("files", [
    {"common.hpp": "#pragma once\n#include <cmath>\nvoid copy(void* d, const void* s, unsigned long n, cudaStream_t st);\n",
     "layer.cpp": '#include "common.hpp"\nbool bad(double base) { return isnan(log(base)); }\n'},
    {"guarded.cpp": "#include <cmath>\n#ifdef __CUDACC__\n__global__ void k(float* x) { x[0] = 1; }\n#endif\n"
                    "bool bad(double base) { return isnan(log(base)); }\n"},
], ids=["project-wide", "under-hipcc"])
def test_a_runtime_include_brings_math_h_with_it_in_one_pass(files: dict[str, str], tmp_path: Path, capsys) -> None:
    """The runtime header decided for the whole project (a unit reaching a header that uses CUDA), or added under
    `#ifdef __HIPCC__`, comes with <math.h> where host code calls isnan: hipcc's host pass finds no isnan(double)
    with HIP's header alone, and a second convert (which sees a HIP include) added <math.h> then."""
    out = verified(tmp_path, capsys, files)
    unit = next(name for name in files if name.endswith(".cpp"))
    assert "#include <math.h>\n" in (out / unit).read_text()
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(out), "-o", str(tmp_path / "again")]) == 0
    for name in files:
        assert (tmp_path / "again" / name).read_bytes() == (out / name).read_bytes(), name


def test_names_hip_declares_alike_are_not_marked_missing(tmp_path: Path) -> None:
    text = converted(tmp_path, "classification_intrinsics.cu", "--rocm-version", "5.2")
    assert "portkit:" not in text and "__isnanf(x[i])" in text and "make_half2(" in text


def test_arch_tests_stay_off_where_they_guard_nvidia_only_code(tmp_path: Path) -> None:
    """The original compiled with hipcc (__CUDA_ARCH__ undefined: the other branch); so must the converted file."""
    text = converted(tmp_path, "arch_guarded_ptx.cu", "--rocm-version", "5.2")
    assert text.count("#if __CUDA_ARCH__ >= 900") == 1 and text.count("#if __CUDA_ARCH__ < 900") == 1
    assert "#if defined(__HIP_DEVICE_COMPILE__)\n  atomicAdd(sum, v);" in text, "plain code: AMD counts as new enough"
    assert "// portkit: PK101 __CUDA_ARCH__" in text
    assert text.count("#if __CUDA_ARCH__ >= 200") == 2, "a helper's test and its call's agree"
    assert "#if defined(__HIP_DEVICE_COMPILE__) && __CUDA_ARCH__ >= 350" in text, "HIP's __shfl_down is not shadowed"


def test_a_test_left_as_cudas_says_which_branch_amd_compiles(tmp_path: Path) -> None:
    """hipcc for AMD does not define __CUDA_ARCH__: a test convert leaves as CUDA's reads as written there, so its marker
    says what (`>= 900` false: the NVIDIA-only branch is dead on AMD; `< 900` true), as mamba's `#if __CUDA_ARCH__ >=
    800` bf16 path at HIP 5.2 needs. (It said only "Use __HIP_DEVICE_COMPILE__", as where convert rewrites the test.)"""
    lines = converted(tmp_path, "arch_guarded_ptx.cu", "--rocm-version", "5.2").splitlines()

    def marker_above(test: str) -> str:
        index = lines.index(test)
        return next(line for line in reversed(lines[:index]) if line.startswith("// portkit: PK101 __CUDA_ARCH__"))

    marker = ("// portkit: PK101 __CUDA_ARCH__: Left as CUDA's test: {} under hipcc for AMD (__CUDA_ARCH__ undefined "
              "there), so AMD compiles {}.")
    assert marker_above("#if __CUDA_ARCH__ >= 900").startswith(marker.format("false", "the #elif/#else, not this branch"))
    assert marker_above("#if __CUDA_ARCH__ < 900").startswith(marker.format("true", "this branch"))
    assert "Use __HIP_DEVICE_COMPILE__" in marker_above("#if defined(__HIP_DEVICE_COMPILE__)"), "rewritten: as before"


def test_linkage_string_gets_its_space(tmp_path: Path) -> None:
    text = converted(tmp_path, "extern_c_no_space.cu", "--rocm-version", "5.2")
    assert text.count('extern "C" __global__ void scale(') == 1 and 'extern "C" __device__ float twice(' in text
    assert '"C"__' not in text.split("\n", 2)[2], "comments keep their text"


def test_a_library_header_without_the_runtime_does_not_count_as_one(tmp_path: Path) -> None:
    text = converted(tmp_path, "runtime_with_nvml.cu", "--rocm-version", "5.2")
    assert "#include <hip/hip_runtime.h>\n#include <cstdio>\n" in text and "hipMalloc(" in text


def test_symbols_casts_and_dim3_configurations(tmp_path: Path) -> None:
    """HIPIFY's spelling (tests/unit_tests: device_symbols.cu, reinterpret_cast.cu, kernel_launch_syntax.cu)."""
    text = converted(tmp_path, "symbols_and_casts.cu", "--rocm-version", "5.2", "--launch-syntax", "hip")
    assert "hipMemcpyToSymbol(HIP_SYMBOL(table), host, sizeof(table));" in text
    assert "hipMemcpyToSymbolAsync(HIP_SYMBOL(counter), start," in text and "hipMemcpyFromSymbol(back, HIP_SYMBOL(table)," in text
    assert "hipGetSymbolAddress(&address, HIP_SYMBOL(counter));" in text and "hipGetSymbolSize(&size, HIP_SYMBOL(table));" in text
    assert "hipDeviceptr_t base = hipDeviceptr_t(address);" in text
    assert "hipLaunchKernelGGL(fill, dim3(1, 1, 1), dim3(4), 0, 0, reinterpret_cast<float *>(base));" in text


NVCC_PRAGMAS = """\
// nvcc's own pragmas around a kernel
#pragma nv_diag_suppress 940
#include <cstdio>
#pragma nv_diagnostic push
  #  pragma diag_suppress 550  // set but never used
#pragma hd_warning_disable

__global__ void fill(int *p) {
#pragma nv_diag_suppress 177
    int unused;
    p[threadIdx.x] = 0;
}
#pragma nv_diagnostic pop
"""
_PRAGMAS = ("nv_diag_suppress 940", "nv_diagnostic push", "diag_suppress 550", "hd_warning_disable", "nv_diag_suppress 177",
            "nv_diagnostic pop")


def test_nvcc_pragmas_build_without_a_warning_on_amd_and_stay_for_nvidia(tmp_path: Path) -> None:
    """hipcc on AMD ignores nvcc's pragmas with "unknown pragma ignored" under -Wall (an error with -Werror): convert
    keeps them from it, and nvcc (HIP on NVIDIA runs it) still reads them."""
    hipcc = require_tool("hipcc")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "pragmas.cu").write_text(NVCC_PRAGMAS)
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(tmp_path / "in"), "-o", str(tmp_path / "out")]) == 0
    unit = tmp_path / "out" / "pragmas.cu"
    amd = subprocess.run([hipcc, "--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip", "-Wunknown-pragmas",
                          "-Werror=unknown-pragmas", str(unit)], capture_output=True, text=True,
                         env={**os.environ, "HIP_PLATFORM": "amd"})
    assert amd.returncode == 0, amd.stderr[-3000:]
    nvidia = subprocess.run([require_tool("nvcc"), "-E", "-x", "cu", str(unit)], capture_output=True, text=True)
    assert nvidia.returncode == 0, nvidia.stderr[-3000:]
    kept = nvidia.stdout.split("pragmas.cu", 1)[-1]  # the unit's own lines, after its headers'
    for pragma in _PRAGMAS:
        assert re.search(rf"#\s*pragma\s+{pragma}", kept), pragma
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(tmp_path / "out"), "-o", str(tmp_path / "again")]) == 0
    assert (tmp_path / "again" / "pragmas.cu").read_text() == unit.read_text()


PRAGMA_OPERATORS = """\
// nvcc's pragmas as _Pragma operators: in code, and in #defines of pragmas only
#define SUPPRESS_177 _Pragma("nv_diag_suppress 177")
#define PUSH_QUIET _Pragma("nv_diagnostic push") \\
    _Pragma("nv_diag_suppress 550") _Pragma("GCC diagnostic ignored \\"-Wunused-variable\\"")
#define POP_QUIET _Pragma("nv_diagnostic pop")
_Pragma("nv_diag_suppress 940")
PUSH_QUIET
__global__ void fill(int *p) {
    SUPPRESS_177
    _Pragma("nv_diag_suppress 186") int unused;
    for (int i = 0; i < 4; ++i) p[i] = 0;
}
POP_QUIET
"""
_OPERATOR_PRAGMAS = ("nv_diag_suppress 177", "nv_diagnostic push", "nv_diag_suppress 550", "nv_diag_suppress 940",
                     "nv_diag_suppress 186", "nv_diagnostic pop")


def test_nvcc_pragma_operators_build_without_a_warning_on_amd_and_stay_for_nvidia(tmp_path: Path) -> None:
    """`_Pragma("nv_diag_suppress 177")` is the directive: hipcc on AMD warns on it, in code or where a macro
    expands it. Convert guards the operator in code, and a #define of pragmas only is defined twice: as it was for
    nvcc, and on AMD without nvcc's pragmas (the others kept), so that its uses still expand."""
    hipcc = require_tool("hipcc")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "operators.cu").write_text(PRAGMA_OPERATORS)
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(tmp_path / "in"), "-o", str(tmp_path / "out")]) == 0
    unit = tmp_path / "out" / "operators.cu"
    assert '#else\n#define PUSH_QUIET _Pragma("GCC diagnostic ignored \\"-Wunused-variable\\"")\n#endif' in unit.read_text()
    amd = subprocess.run([hipcc, "--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip", "-Wunknown-pragmas",
                          "-Werror=unknown-pragmas", str(unit)], capture_output=True, text=True,
                         env={**os.environ, "HIP_PLATFORM": "amd"})
    assert amd.returncode == 0, amd.stderr[-3000:]
    nvidia = subprocess.run([require_tool("nvcc"), "-E", "-x", "cu", str(unit)], capture_output=True, text=True)
    assert nvidia.returncode == 0, nvidia.stderr[-3000:]
    kept = nvidia.stdout.split("operators.cu", 1)[-1]
    for pragma in _OPERATOR_PRAGMAS:
        assert re.search(rf"#\s*pragma\s+{pragma}", kept), pragma
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(tmp_path / "out"), "-o", str(tmp_path / "again")]) == 0
    assert (tmp_path / "again" / "operators.cu").read_text() == unit.read_text()


HOST_RAND = """\
#include <stdio.h>
#include <curand.h>

int main(void) {
    curandGenerator_t gen;
    float *data = 0;
    curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT);
    curandSetPseudoRandomGeneratorSeed(gen, 1234ULL);
    curandGenerateUniform(gen, data, 100);
    curandDestroyGenerator(gen);
    printf("done\\n");
    return 0;
}
"""


def test_hiprand_from_c_is_marked_and_builds_as_cxx(tmp_path: Path, capsys) -> None:
    """On AMD hipRAND's host header is C++ (`typedef __half half;`, HIP's __half a C++ class; HIP 5.2's hiprand_hcc.h
    also names a struct without its tag): a C unit stops in the header. Convert marks its include, --verify counts
    the stop as marked, and the unit builds as C++ as the marker says. A C++ unit's include is no work."""
    hipcc = require_tool("hipcc")
    tree = tmp_path / "in"
    tree.mkdir()
    (tree / "gen.c").write_text(HOST_RAND)
    (tree / "gen_cxx.cpp").write_text(HOST_RAND)
    out = tmp_path / "out"
    assert main(["convert", "--verify", "--no-cache", "--rocm-version", "5.2", str(tree), "-o", str(out)]) == 0
    report = capsys.readouterr().out
    assert "hipcc: 1 build, 1 stop at a marked site (expected), 0 fail unmarked" in report
    text = (out / "gen.c").read_text()
    assert ("// portkit: PK101 curand.h: hiprand/hiprand.h does not compile as C on AMD: build this file as C++ "
            "(hipcc -x c++ -D__HIP_PLATFORM_AMD__)") in text
    assert "portkit:" not in (out / "gen_cxx.cpp").read_text()
    built = subprocess.run([hipcc, "--offload-arch=gfx90a", "-x", "c++", "-D__HIP_PLATFORM_AMD__", str(out / "gen.c"),
                            "-x", "none", "-lhiprand", "-o", str(tmp_path / "gen")],
                           capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"})
    assert built.returncode == 0, built.stderr[-3000:]
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(out), "-o", str(tmp_path / "again")]) == 0
    assert (tmp_path / "again" / "gen.c").read_text() == text


def test_cuda_tests_stay_where_their_chain_has_a_hip_branch(tmp_path: Path, capsys) -> None:
    """`#if defined(__CUDACC__)` ... `#elif defined(__HIP__)` (glm's platform.h): hipcc compiles the project's HIP
    branch as written; `__HIPCC__` there would send it into the CUDA branch and its CUDA_VERSION `#error`. A chain
    with no HIP test of its own still gets `__HIPCC__`, and a HIP test nested in a branch is no test of the chain."""
    out = verified(tmp_path, capsys, {
        "platform.h": "#pragma once\n"
                      "#if defined(__CUDACC__)\n#  if CUDA_VERSION >= 8000\n#    define MYLIB_COMPILER 80\n"
                      '#  else\n#    error "mylib requires CUDA 8.0 or higher"\n#  endif\n'
                      "#elif defined(__HIP__)\n#  define MYLIB_COMPILER 1000\n#else\n#  define MYLIB_COMPILER 0\n#endif\n"
                      "#if defined(__HIP_PLATFORM_AMD__)\n#  define MYLIB_LANES 64\n"
                      "#elif defined(__CUDACC__)\n#  define MYLIB_LANES 32\n#endif\n"
                      "#ifdef __CUDACC__\n#  define MYLIB_GPU 1\n#  ifdef __HIP__\n#    define MYLIB_HIP 1\n#  endif\n#endif\n",
        "k.cu": '#include "platform.h"\n'
                'static_assert(MYLIB_COMPILER == 1000 && MYLIB_LANES == 64 && MYLIB_HIP == 1, "the HIP branches");\n'
                "__device__ int lanes() {\n#if __CUDA_ARCH__ >= 700\n  return 32;\n"
                "#elif defined(__HIP_DEVICE_COMPILE__)\n  return warpSize;\n#else\n  return 0;\n#endif\n}\n"
                "__global__ void k(int* x) { x[0] = MYLIB_COMPILER + MYLIB_GPU + lanes(); }\n"})
    header, unit = (out / "platform.h").read_text(), (out / "k.cu").read_text()
    assert header.count("defined(__CUDACC__)") == 2 and "#ifdef __HIPCC__\n#  define MYLIB_GPU 1" in header
    assert "#if __CUDA_ARCH__ >= 700\n" in unit
    assert "// portkit: PK101 __CUDACC__: left as CUDA's test: its #if/#elif chain tests for HIP too" in header
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(out), "-o", str(tmp_path / "again")]) == 0
    for name in ("platform.h", "k.cu"):
        assert (tmp_path / "again" / name).read_bytes() == (out / name).read_bytes(), name


UNUSED_REDUCE = ("#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\nnamespace cg = cooperative_groups;\n"
                 "__global__ void k(float* x) {\n  auto block = cg::this_thread_block();\n  x[block.thread_rank()] = 0.f;\n"
                 "  block.sync();\n}\n")


def test_an_unused_header_the_target_lacks_is_commented_out(tmp_path: Path, capsys) -> None:
    """diff-gaussian-rasterization's units include cooperative_groups/reduce.h and call no cg::reduce: HIP 5.2 ships
    no such header, and hipcc stopped at the include. Converting the output again changes nothing."""
    out = verified(tmp_path, capsys, {"k.cu": UNUSED_REDUCE})
    text = (out / "k.cu").read_text()
    assert "\n// portkit: PK212 unused here, and the targeted HIP lacks it: #include <cooperative_groups/reduce.h>\n" in text
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(out), "-o", str(tmp_path / "again")]) == 0
    assert (tmp_path / "again" / "k.cu").read_text() == text


def test_a_header_keeps_an_include_its_includer_uses(tmp_path: Path) -> None:
    """A header that includes cooperative_groups/reduce.h for the units that include it: commented out there, a unit's
    cg::reduce would lose its declaration. Where no unit that reaches the header uses its names, it goes."""
    tree, out = tmp_path / "in", tmp_path / "out"
    tree.mkdir()
    (tree / "reduce_all.cuh").write_text("#pragma once\n#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\n")
    (tree / "quiet.cuh").write_text("#pragma once\n#include <cooperative_groups/reduce.h>\n")
    (tree / "sum.cu").write_text('#include "reduce_all.cuh"\nusing namespace cooperative_groups;\n'
                                 "__global__ void k(float* x) {\n  auto warp = tiled_partition<32>(this_thread_block());\n"
                                 "  x[0] = reduce(warp, x[1], plus<float>());\n}\n")
    (tree / "zero.cu").write_text('#include "quiet.cuh"\n__global__ void z(float* x) { x[0] = 0.f; }\n')
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(tree), "-o", str(out)]) == 0
    assert ("// portkit: PK212 cooperative_groups/reduce.h: kept as written: sum.cu uses its names, in a translation unit "
            "that reaches this include\n#include <cooperative_groups/reduce.h>\n") in (out / "reduce_all.cuh").read_text()
    assert "// portkit: PK212 unused here" in (out / "quiet.cuh").read_text()
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(out), "-o", str(tmp_path / "again")]) == 0
    for name in ("reduce_all.cuh", "quiet.cuh", "sum.cu", "zero.cu"):
        assert (tmp_path / "again" / name).read_bytes() == (out / name).read_bytes(), name


OWN_HIP_BRANCHES = """\
#include <cuda_runtime.h>
#include <thrust/execution_policy.h>

#if defined(__HIP_PLATFORM_AMD__)
#define POLICY thrust::hip::par
#else
#define POLICY thrust::cuda::par
#endif

void run(float **d, int n, cudaStream_t stream)
{
    auto on_stream = POLICY.on(stream);
#if defined(__HIP_PLATFORM_AMD__)
    auto plain = thrust::hip::par;
#else
    auto plain = thrust::cuda::par;
#endif
#if !defined(__HIP_PLATFORM_AMD__)
    auto nvidia_only = thrust::cuda::par.on(stream);
    (void)nvidia_only;
#endif
    (void)on_stream;
    (void)plain;
    cudaMalloc((void **)d, n * sizeof(float));
}
"""
DATA = Path(__file__).parent / "data"


def test_a_projects_own_nvidia_side_keeps_nvidias_thrust(tmp_path: Path) -> None:
    """A project with HIP branches of its own: the branches hipcc never compiles for AMD are its NVIDIA side, which HIP
    on NVIDIA builds with NVIDIA's Thrust. thrust::cuda::par stays there (rocThrust's thrust::hip::par broke it);
    cudaMalloc becomes hipMalloc, which HIP on NVIDIA maps back. The AMD side builds with hipcc, the NVIDIA side with
    nvcc (stand-ins: rocThrust's policy, HIP on NVIDIA's runtime header)."""
    hipcc, nvcc = require_tool("hipcc"), require_tool("nvcc")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "policies.cu").write_text(OWN_HIP_BRANCHES)
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(tmp_path / "in"), "-o", str(tmp_path / "out")]) == 0
    unit = tmp_path / "out" / "policies.cu"
    text = unit.read_text()
    code = "\n".join(line for line in text.splitlines() if "// portkit:" not in line)
    assert code.count("thrust::cuda::par") == 3 and code.count("thrust::hip::par") == 2, text
    assert "hipMalloc((void **)d" in code and text.count("// portkit: PK101 thrust::cuda::par: Left as written") == 3
    amd = subprocess.run([hipcc, "--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip", "-std=c++17",
                          "-I", str(DATA / "rocthrust-stand-in"), str(unit)], capture_output=True, text=True,
                         env={**os.environ, "HIP_PLATFORM": "amd"})
    assert amd.returncode == 0, amd.stderr[-3000:]
    nvidia = subprocess.run([nvcc, "-x", "cu", "-cuda", "-I", str(DATA / "hip-on-nvidia"), str(unit),
                             "-o", str(tmp_path / "policies.ii")], capture_output=True, text=True)
    assert nvidia.returncode == 0, nvidia.stderr[-3000:]
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(tmp_path / "out"), "-o", str(tmp_path / "again")]) == 0
    assert (tmp_path / "again" / "policies.cu").read_text() == text


def test_a_projects_header_whose_path_ends_in_a_cuda_headers_name_is_its_own(tmp_path: Path, capsys) -> None:
    """colmap includes its colmap/util/cuda.h as "colmap/util/cuda.h" through -Isrc: the project's header, kept, not
    NVIDIA's cuda.h made hip/hip_runtime.h (which lost its declarations: an unmarked compile failure)."""
    require_tool("hipcc")
    tree, out = tmp_path / "in", tmp_path / "out"
    for path, text in {
        "CMakeLists.txt": "cmake_minimum_required(VERSION 3.18)\nproject(mylib LANGUAGES CXX CUDA)\n"
                          "include_directories(src)\nadd_library(mylib src/mylib/mvs/use.cc src/mylib/mvs/tf.cc)\n",
        "src/mylib/util/cuda.h": "#pragma once\nint GetNumGpus();\n",
        "src/mylib/mvs/use.cc": '#include "mylib/util/cuda.h"\n#include <cuda_runtime.h>\n'
                                "int n() { cudaDeviceSynchronize(); return GetNumGpus(); }\n",
        # TensorFlow's spelling of NVIDIA's header, which no file of the tree ends with: still NVIDIA's.
        "src/mylib/mvs/tf.cc": '#include "third_party/gpus/cuda/include/cuda.h"\nint d() { return (int)CU_DEVICE_ATTRIBUTE_WARP_SIZE; }\n',
    }.items():
        (tree / path).parent.mkdir(parents=True, exist_ok=True)
        (tree / path).write_text(text)
    assert main(["convert", "--verify", "--no-cache", "--rocm-version", "5.2", str(tree), "-o", str(out)]) == 0
    assert "hipcc: 2 build, 0 stop at a marked site (expected), 0 fail unmarked" in capsys.readouterr().out
    assert (out / "src/mylib/mvs/tf.cc").read_text().startswith('#include "hip/hip_runtime.h"\n')
    assert (out / "src/mylib/mvs/use.cc").read_text().startswith('#include "mylib/util/cuda.h"\n#include <hip/hip_runtime.h>\n')
    assert main(["scan", "--no-cache", "--rocm-version", "5.2", "--details", str(tree)]) == 0
    report = capsys.readouterr().out
    assert "third_party/gpus/cuda/include/cuda.h -> hip/hip_runtime.h (cuda-driver" in report
    assert "mylib/util/cuda.h" not in report


COMPAT_HEADER = """#pragma once
#if defined(__HIP_PLATFORM_AMD__) || defined(USE_HIP)
#include <hip/hip_runtime.h>
using cudaError_t = hipError_t;
typedef hipEvent_t cudaEvent_t;
#define cudaSuccess hipSuccess
#define cudaDeviceSynchronize() hipDeviceSynchronize()
#else
#include <cuda_runtime.h>
#endif
"""


def test_a_projects_own_cuda_to_hip_aliases_are_left_as_written(tmp_path: Path, capsys) -> None:
    """colmap's util/cuda_to_hip.h defines CUDA's names as HIP's under its own HIP test: the project's compat layer.
    Renamed, it defined each HIP name as itself (`using hipError_t = hipError_t;`, `#define hipSuccess hipSuccess`);
    each alias is left as written and is no site to port, while the uses elsewhere are renamed as ever."""
    out = verified(tmp_path, capsys, {
        "cuda_to_hip.h": COMPAT_HEADER,
        "use.cu": '#include "cuda_to_hip.h"\n'
                  "int sync_all() { cudaError_t e = cudaDeviceSynchronize(); return e == cudaSuccess ? 0 : 1; }\n"})
    kept = COMPAT_HEADER.split("#else")[0]
    assert (out / "cuda_to_hip.h").read_text().startswith(kept)
    assert "hipError_t e = hipDeviceSynchronize(); return e == hipSuccess" in (out / "use.cu").read_text()
    assert main(["scan", "--no-cache", "--rocm-version", "5.2", "--details", str(tmp_path / "in")]) == 0
    assert set(re.findall(r"cuda_to_hip\.h:(\d+)", capsys.readouterr().out)) == {"9"}  # the #else's include only


THRUST_ERRORS = {
    "category.cu": "#include <thrust/system/cuda/error.h>\n#include <thrust/system_error.h>\n#include <string>\n"
                   "std::string describe(cudaError_t code) { return thrust::system_error(code, thrust::cuda_category()).what(); }\n"
                   "std::string in_system(cudaError_t code) {\n"
                   "  return thrust::system_error(code, thrust::system::cuda_category()).what();\n}\n",
    # No rule knows Thrust's CUDA backend namespace: left as written, and marked (rocThrust's is spelled hip_rocprim).
    "backend.cu": "#include <thrust/system/cuda/error.h>\n"
                  "void check(cudaError_t code) { thrust::cuda_cub::throw_on_error(code, \"check\"); }\n",
}


def test_thrusts_cuda_backend_names_are_renamed_or_marked(tmp_path: Path, capsys) -> None:
    """thrust::cuda_category() was left as written and unmarked once its header became thrust/system/hip/error.h,
    which declares hip_category: a qualified thrust:: name no rule knew was taken for one rocThrust mirrors, even
    where it names CUDA's backend. The category is renamed; an unknown backend name is marked (stand-in: rocThrust's
    declarations)."""
    require_tool("hipcc")
    for name, text in THRUST_ERRORS.items():
        (tmp_path / "in" / name).parent.mkdir(exist_ok=True)
        (tmp_path / "in" / name).write_text(text)
    assert main(["convert", "--verify", "--no-cache", "--rocm-version", "5.2", str(tmp_path / "in"), "-o", str(tmp_path / "out"),
                 f"--verify-flag=-I{DATA / 'rocthrust-stand-in'}"]) == 0
    assert "hipcc: 1 build, 1 stop at a marked site (expected), 0 fail unmarked" in capsys.readouterr().out
    assert "thrust::hip_category()" in (tmp_path / "out" / "category.cu").read_text()
    assert "thrust::system::hip_category()" in (tmp_path / "out" / "category.cu").read_text()
    assert "// portkit: PK105 thrust::cuda_cub::throw_on_error" in (tmp_path / "out" / "backend.cu").read_text()


def test_a_hip_define_a_header_already_set_is_not_defined_again(tmp_path: Path) -> None:
    """A project header that sets HIP_ENABLE_WARP_SYNC_BUILTINS to 1 (llama.cpp's vendors/hip.h), included before a
    converted header that needs it: the converted header's #define stands back (hipcc -E, -Werror=macro-redefined)."""
    hipcc = require_tool("hipcc")
    tree, out = tmp_path / "in", tmp_path / "out"
    tree.mkdir()
    (tree / "config.h").write_text("#pragma once\n#define HIP_ENABLE_WARP_SYNC_BUILTINS 1\n")
    (tree / "warp.cuh").write_text("#pragma once\n__device__ inline float down(float v) {\n"
                                   "  return __shfl_down_sync(0xffffffff, v, 1);\n}\n")
    (tree / "k.cu").write_text('#include "config.h"\n#include "warp.cuh"\n'
                               "__global__ void k(float *p) { p[0] = down(p[0]); }\n")
    assert main(["convert", "--no-cache", "--rocm-version", "6.2", str(tree), "-o", str(out)]) == 0
    assert "#define HIP_ENABLE_WARP_SYNC_BUILTINS\n" in (out / "warp.cuh").read_text()
    compiled = subprocess.run([hipcc, "--offload-arch=gfx90a", "-E", "-Werror=macro-redefined", "-x", "hip",
                               str(out / "k.cu"), "-o", os.devnull], capture_output=True, text=True,
                              env={**os.environ, "HIP_PLATFORM": "amd"})
    assert compiled.returncode == 0, compiled.stderr


def test_nvcc_host_defines_qualifiers_and_host_side_coordinates(tmp_path: Path, capsys) -> None:
    """nvcc's host_defines.h qualifiers HIP lacks go (`__device_builtin__`) or become HIP's (`__builtin_align__` is
    `__align__`); a file-scope declaration of a built-in coordinate for host code stays out of the AMD build."""
    out = verified(tmp_path, capsys, {"qualifiers.cu": (
        "#include <cuda_runtime.h>\n"
        "typedef struct __builtin_align__(16) { unsigned int a, b, c, d; } quad;\n"
        "typedef __device_builtin__ struct pair_s { int x, y; } pair_t;\n"
        "extern __device__ __device_builtin__ void __syncthreads(void);\n"
        "#ifndef __CUDA_ARCH__\n"
        "extern const dim3 blockDim;\n"
        "extern const uint3 threadIdx;\n"
        "#endif\n"
        "__global__ void fill(quad *q, pair_t *p) {\n"
        "  q[threadIdx.x].a = blockDim.x; p[threadIdx.x].x = 1; __syncthreads();\n"
        "}\n"
        "int host_threads() { dim3 blockDim(64); return (int)blockDim.x; }\n")})
    text = (out / "qualifiers.cu").read_text()
    assert "__device_builtin__" not in text and "__builtin_align__" not in text
    assert "struct __align__(16)" in text
    assert "#if !defined(__HIP_PLATFORM_AMD__)\nextern const dim3 blockDim;\n#endif" in text
    assert "#if !defined(__HIP_PLATFORM_AMD__)\nextern const uint3 threadIdx;\n#endif" in text
    assert "{ dim3 blockDim(64);" in text  # a function's own variable shadows HIP's: no clash


def test_nvcc_qualifier_names_no_rule_knows_are_listed(tmp_path: Path, capsys) -> None:
    (tmp_path / "k.cu").write_text("#include <cuda_runtime.h>\n"
                                   "struct __device_builtin_vector__ v2 { int x, y; };\n"
                                   "__global__ void k(int *p) { p[0] = __builtin_expect(p[1], 0); }\n")
    main(["scan", "--no-cache", str(tmp_path)])
    assert "CUDA-looking names no rule knows (1): __device_builtin_vector__" in capsys.readouterr().out


def test_architecture_values_and_ranges_stay_as_written(tmp_path: Path) -> None:
    """`#define HAS_BF16 (__CUDA_ARCH__ >= 800)` became `(__HIP_DEVICE_COMPILE__ >= 800)`, 1 >= 800 on AMD, and
    `__CUDA_ARCH__ >= 860 && __CUDA_ARCH__ <= 890` became `defined(__HIP_DEVICE_COMPILE__) &&
    !defined(__HIP_DEVICE_COMPILE__)`, which a second convert took for the project's own HIP branch."""
    text = converted(tmp_path, "arch_values.cu", "--rocm-version", "5.2")
    assert "__HIP_DEVICE_COMPILE__ >=" not in text and "!defined(__HIP_DEVICE_COMPILE__)" not in text
    for kept in ("#define HAS_BF16 (__CUDA_ARCH__ >= 800)\n", "#define HAS_FP8 (__CUDA_ARCH__ >= CC_ADA)\n",
                 "#elif __CUDA_ARCH__ >= 860 && __CUDA_ARCH__ <= 890\n"):
        above = text[:text.index(kept)].splitlines()[-2:]
        assert any(line.startswith("// portkit: PK320 ") for line in above), (kept, above)
        assert any(line.startswith("// portkit: PK101 __CUDA_ARCH__: left as written") for line in above), (kept, above)
    assert "#define ON_DEVICE defined(__HIP_DEVICE_COMPILE__)\n" in text
    # In code, where nvcc reads it in device code only: the value AMD's device pass has (AMD newer than any).
    assert "    COUNT = ((true /* __CUDA_ARCH__ >= 200: AMD reads as newer than any NVIDIA generation */) ? 32 : 16),\n" \
        in text


def test_an_architecture_comparison_in_code_is_written_as_amds_device_value(tmp_path: Path, capsys) -> None:
    """In code, `__CUDA_ARCH__ >= 800 ? a : b` (rodinia dwt2d's `SHM_BANKS = ((__CUDA_ARCH__ >= 200) ? 32 : 16)` in an
    enum) compiles under nvcc only where the macro is defined, device code. Left as written, hipcc's device pass found
    it undeclared (the #ifdef around it is rewritten); as `__HIP_DEVICE_COMPILE__ >= 800` it read 1 >= 800. It is
    written as the value AMD's device pass has when AMD counts as newer than any NVIDIA generation, as the #if
    rewrite reads it, and reported as PK320 saying so."""
    out = verified(tmp_path, capsys, {"pick.cu": (
        "__device__ int pick(int a, int b) {\n#ifdef __CUDA_ARCH__\n"
        "  enum { BANKS = ((__CUDA_ARCH__ >= 200) ? 32 : 16), OLD = (__CUDA_ARCH__ < 700), SM75 = __CUDA_ARCH__ == 750 };\n"
        "  return 800 <= __CUDA_ARCH__ ? a + BANKS + OLD + SM75 : b;\n#else\n  return b;\n#endif\n}\n"
        "__global__ void k(int *p) { p[0] = pick(p[1], p[2]); }\n")})
    lines = (out / "pick.cu").read_text().splitlines()
    newer = "AMD reads as newer than any NVIDIA generation"
    at = lines.index(f"  enum {{ BANKS = ((true /* __CUDA_ARCH__ >= 200: {newer} */) ? 32 : 16), "
                     f"OLD = (false /* __CUDA_ARCH__ < 700: {newer} */), "
                     "SM75 = false /* __CUDA_ARCH__ == 750: AMD is no NVIDIA generation */ };")
    assert "  // portkit: PK320 __CUDA_ARCH__: written as AMD's device pass reads it, true (AMD reads as newer than any " \
        "NVIDIA generation); Test the AMD targets you support" in "\n".join(lines[at - 4:at])
    assert f"  return true /* __CUDA_ARCH__ >= 800: {newer} */ ? a + BANKS + OLD + SM75 : b;" in lines
    again = tmp_path / "again"
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(out), "-o", str(again)]) == 0
    assert (again / "pick.cu").read_bytes() == (out / "pick.cu").read_bytes()


def test_a_project_hip_layers_defines_keep_their_names(tmp_path: Path) -> None:
    text = converted(tmp_path, "project_hip_defines.cu", "--rocm-version", "5.2")
    assert ("#ifdef __HIPCC__\n#define __CUDA_ARCH__ 800\n#undef __CUDACC__\n#define __fdiv_rd __fdiv_rn\n"
            "#define cudaMemcpyDeviceToDevice hipMemcpyDefault\n#endif\n") in text
    # The layer defines them as other names than convert writes, in a branch every hipcc build takes: their uses are
    # left to it (renamed, `__fdiv_rd` would round otherwise than the layer has it).
    assert "__fdiv_rd(x[threadIdx.x], 2.0f)" in text and "cudaMemcpyDeviceToDevice);" in text


def test_a_cuda_enumerator_mapped_to_another_librarys_compiles_for_the_projects_hip_build(tmp_path: Path) -> None:
    """kaldi's HIP layer: a CUDA enumerator #defined as a hipSOLVER one, before hipBLAS's header. Renamed, the #define
    made hipBLAS's enumerator a macro: its enum no longer compiled. The use is left to the layer: hipSOLVER's value,
    as the project's HIP build has it."""
    tree, out = tmp_path / "in", tmp_path / "out"
    tree.mkdir()
    (tree / "solve.cc").write_text(
        "#ifdef __IS_HIP_COMPILE__\n#include <hipsolver/hipsolver.h>\n"
        "#define CUBLAS_FILL_MODE_LOWER HIPSOLVER_FILL_MODE_LOWER\n#endif\n"
        "#include <cublas_v2.h>\nint lower() { return CUBLAS_FILL_MODE_LOWER; }\n")
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(tree), "-o", str(out)]) == 0
    text = (out / "solve.cc").read_text()
    assert "#define CUBLAS_FILL_MODE_LOWER HIPSOLVER_FILL_MODE_LOWER\n" in text
    assert "#include <hipblas/hipblas.h>\nint lower() { return CUBLAS_FILL_MODE_LOWER; }" in text
    data = Path(__file__).parent / "data"
    hipcc = subprocess.run([require_tool("hipcc"), "--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip", "-w",
                            "-D__IS_HIP_COMPILE__", "-I", str(data / "hipblas-5.2"), "-I", str(data / "hipsolver-5.2"),
                            str(out / "solve.cc")], capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"})
    assert hipcc.returncode == 0, hipcc.stderr


def test_names_the_projects_own_hip_layer_defines_compile_both_ways(tmp_path: Path) -> None:
    """Convert renames the uses of the names the project's own HIP layer defines (settled: no work) all the same: the
    converted unit compiles for AMD with the project's switch (its layer then reads `#define cudaMemcpyAsync
    hipMemcpyAsync` beside `hipMemcpyAsync`) and without it."""
    unit = converted_case(tmp_path, "own_hip_layer.cu", "own_hip_layer.h", "5.2")
    assert "hipMemcpyAsync(dst, src" in unit.read_text()
    for switch in ([], ["-DPROJECT_HIP"]):
        compiles_for_amd(unit, *switch)


def test_what_the_projects_own_hip_layer_defines_as_more_than_a_rename_is_left_to_it(tmp_path: Path) -> None:
    """kaldi's hip/hipify.h defines `cublasStrsm_v2(a, ..., l)` as hipblasStrsm with a const_cast (hipBLAS before ROCm
    5.6 takes A without const), `cudaMemcpy2DAsync(...)` as a workaround for zero-size copies, and `__fdiv_rd` as
    `__fdiv_rn`: convert renamed the uses anyway (for a newer target without the cast), so the project's HIP build
    skipped its own workarounds and, against the hipBLAS it builds with, did not compile. Such uses are left to the
    layer: the unit builds with the project's switch against the hipBLAS the layer was written for (5.2's
    declarations), whatever the target."""
    unit = converted_case(tmp_path, "own_hip_layer_macros.cu", "own_hip_layer_macros.h", "6.2")
    text = unit.read_text()
    for call in ("cudaMemcpy2DAsync(dst, pitch", "curandSetGeneratorOrdering(g, ", "cublasStrsm_v2(h, HIPBLAS_SIDE_LEFT",
                 "__fdiv_rd(x[threadIdx.x], 3.0f)"):
        assert call in text
    compiles_for_amd(unit, "-DPROJECT_HIP", "-I", str(Path(__file__).parent / "data" / "hipblas-5.2"))


def test_a_cast_goes_around_a_macro_use_not_into_it(tmp_path: Path) -> None:
    """DeepSpeed's `cudaFuncSetAttribute(ROCM_ONLY((void *)) kernel, ...)`, with ROCM_ONLY(x) empty for CUDA: the parse
    reads the identity macro's use as its argument, and the cast HIP's `const void*` needs went inside the macro's
    parentheses, which neither expansion compiles. It goes around the whole argument; both expansions build."""
    require_tool("hipcc")
    tree = tmp_path / "in"
    tree.mkdir()
    (tree / "attr.cu").write_text(
        "#ifndef USE_ROCM\n#define ROCM_ONLY(x)\n#else\n#define ROCM_ONLY(x) x\n#endif\n"
        "__global__ void k(float *p) { extern __shared__ float s[]; p[0] = s[0]; }\n"
        "void launch(float *p, int smem) {\n    auto kernel = &k;\n"
        "    cudaFuncSetAttribute(ROCM_ONLY((void *)) kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);\n"
        "    kernel<<<1, 64, smem>>>(p);\n}\n")
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(tree), "-o", str(tmp_path / "out")]) == 0
    unit = tmp_path / "out" / "attr.cu"
    assert "hipFuncSetAttribute(reinterpret_cast<const void*>(ROCM_ONLY((void *)) kernel), " in unit.read_text()
    for switch in ([], ["-DUSE_ROCM"]):
        compiles_for_amd(unit, *switch)


def test_code_under_a_macro_hips_platform_decides_is_left_unmarked_and_compiles_for_amd(tmp_path: Path) -> None:
    """`#ifdef PTX_AVAILABLE` (defined only in the #else of `#ifdef __HIP_PLATFORM_AMD__`, in another header) and
    `#if !PROJECT_ON_HIP` hold code hipcc never compiles for AMD: convert writes no marker there (the PTX asm got a
    PK101, the _sync votes PK104s), and the converted unit compiles for AMD as it is."""
    unit = converted_case(tmp_path, "projects_platform_macros.cu", "platform_macros.h", "5.2")
    assert "portkit: PK" not in unit.read_text()
    compiles_for_amd(unit)


def test_the_architecture_read_as_a_number_in_code_is_not_the_device_pass_flag(tmp_path: Path, capsys) -> None:
    """`static_assert(__CUDA_ARCH__ >= MIN * 10)` under `#if defined(__CUDA_ARCH__)`: renamed, it compared 1 (the
    device pass flag) with 700 and stopped AMD's build. A comparison in code, whatever it compares with and even
    inside an #if's branch, is written as the value AMD's device pass reads, with its marker."""
    out = verified(tmp_path, capsys, {"arch_value.cu": (
        "#include <cuda_runtime.h>\n#define MIN_ARCH 70\n#if defined(__CUDA_ARCH__)\n"
        "static_assert(__CUDA_ARCH__ >= MIN_ARCH * 10, \"too old\");\n#endif\n"
        "__global__ void k(int *p) {\n#ifdef __CUDA_ARCH__\n    p[0] = __CUDA_ARCH__ >= 800 ? 2 : 1;\n#endif\n}\n")})
    text = (out / "arch_value.cu").read_text()
    assert "static_assert(true /* __CUDA_ARCH__ >= MIN_ARCH * 10: AMD reads as newer" in text
    assert "p[0] = true /* __CUDA_ARCH__ >= 800: AMD reads as newer" in text
    assert "__HIP_DEVICE_COMPILE__ >=" not in text
    assert "// portkit: PK320 __CUDA_ARCH__: written as AMD's device pass reads it, true" in text


def test_a_cuda_version_test_split_across_a_statement_stays_cudas_like_the_others(tmp_path: Path, capsys) -> None:
    """darknet's `#if CUDART_VERSION >= 10000` around `if (...) {...} else`, closed before the else's block: the
    parse blanks that #if, and its name was renamed to HIP_VERSION (true on HIP) while the #if around the kernel kept
    CUDA's (false): the launch was built, its kernel not. Both stay as written, and each marker says it reads 0."""
    out = verified(tmp_path, capsys, {"split_version.cu": (
        "#include <cuda_runtime.h>\n#if CUDART_VERSION >= 10000\n__global__ void k_new(int *p) { p[0] = 1; }\n#endif\n"
        "void run(int *p) {\n#if CUDART_VERSION >= 10000\n    if (p)\n    {\n        k_new<<<1, 1>>>(p);\n    }\n"
        "    else\n#endif\n    {\n    }\n}\n")})
    text = (out / "split_version.cu").read_text()
    assert text.count("#if CUDART_VERSION >= 10000\n") == 2 and "HIP_VERSION >=" not in text
    reads = "// portkit: PK203 CUDART_VERSION >= 10000: CUDA's version reads 0 under hipcc: this test is false there"
    assert text.count(reads) == 2


PINNED = """\
#include <cuda_runtime.h>
float *pinned(size_t n, float **mapped) {
    float *p = 0;
    if (cudaHostAlloc((void **)&p, n * sizeof(float), cudaHostAllocMapped) != cudaSuccess) return 0;
    if (cudaHostAlloc(mapped, n * sizeof(float), cudaHostAllocMapped) != cudaSuccess) return 0;
    float *staging = 0;
    cudaMallocHost((void **)&staging, n * sizeof(float));
    cudaFreeHost(staging);
    return p;
}
"""


def test_a_c_file_gets_c_casts_and_the_flags_only_cs_hip_lacks(tmp_path: Path, capsys) -> None:
    """A .c file is C (a HIP build hands it to the C compiler, as nvcc did): no reinterpret_cast, and
    hipHostMalloc's flags, which only HIP's C++ template defaults, written out. A C++ unit keeps C++'s casts
    and HIP's default. Both build: hipcc (--verify) and gcc as C."""
    gcc = require_tool("gcc")
    out = verified_units(tmp_path, capsys, {"pinned.c": PINNED, "pinned_cxx.cpp": PINNED}, 2)
    c_text = (out / "pinned.c").read_text()
    assert "hipHostAlloc((void **)&p, n * sizeof(float), hipHostMallocMapped)" in c_text  # cast already: as written
    assert "hipHostAlloc((void**)(mapped), n * sizeof(float), hipHostMallocMapped)" in c_text
    assert "hipHostMalloc((void **)&staging, n * sizeof(float), hipHostMallocDefault);" in c_text
    assert "_cast" not in c_text
    cxx_text = (out / "pinned_cxx.cpp").read_text()
    assert "hipHostAlloc(reinterpret_cast<void**>(mapped), n * sizeof(float), hipHostMallocMapped)" in cxx_text
    assert "hipHostMalloc((void **)&staging, n * sizeof(float));" in cxx_text
    built = subprocess.run([gcc, "-x", "c", "-std=c99", "-Werror=incompatible-pointer-types", "-D__HIP_PLATFORM_AMD__",
                            "-c", str(out / "pinned.c"), "-o", str(tmp_path / "pinned.o")], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-3000:]
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(out), "-o", str(tmp_path / "again")]) == 0
    assert (tmp_path / "again" / "pinned.c").read_text() == c_text


HALF_ATOMICS = """#include <cuda_fp16.h>
struct Grads { __half2 *values; };
__device__ void add_h2(__half2 *dst, __half2 v) { atomicAdd(dst, v); }
__device__ void add_h(half *dst, half v, int i) { atomicAdd(dst + i, v); }
__device__ void add_cast(__half *dst, __half2 v, int i) { atomicAdd((__half2 *)(dst + i), v); }
__device__ void add_member(Grads g, __half2 v, int i) { atomicAdd(&g.values[i], v); }
__global__ void add_shared(__half2 v) {
  __shared__ __half2 sums[4];
  __half2 total;
  atomicAdd(&sums[threadIdx.x % 4], v);
  atomicAdd(&total, v);
}
"""
# Named like halves, typed otherwise: HIP has these overloads.
OTHER_ATOMICS = """#include <cuda_runtime.h>
__global__ void count(float *half_sums, int *halves, unsigned int *half2_hits, float *h) {
  atomicAdd(half_sums, 1.0f);
  atomicAdd(&halves[threadIdx.x], 1);
  atomicAdd(half2_hits + 1, 1u);
  atomicAdd((float *)h, 2.0f);
}
"""


def test_atomic_add_of_a_half_is_marked(tmp_path: Path, capsys) -> None:
    """HIP has no atomicAdd(__half*, __half) or atomicAdd(__half2*, __half2) (HIP 5.2 through ROCm 6.3's headers), and
    scan called every atomicAdd supported: hipcc stopped unmarked. A call whose first argument points to a half or
    half2 (a pointer or array declared so, `&v`, a cast) is marked; atomicAdd on other types stays unmarked."""
    require_tool("hipcc")
    tree, out = tmp_path / "in", tmp_path / "out"
    tree.mkdir()
    (tree / "half_atomics.cu").write_text(HALF_ATOMICS)
    (tree / "other_atomics.cu").write_text(OTHER_ATOMICS)
    assert main(["convert", "--verify", "--no-cache", "--rocm-version", "5.2", str(tree), "-o", str(out)]) == 0
    assert "hipcc: 1 build, 1 stop at a marked site (expected), 0 fail unmarked" in capsys.readouterr().out
    lines = (out / "half_atomics.cu").read_text().splitlines()
    marker = "// portkit: PK101 atomicAdd: HIP has no atomicAdd for __half or __half2"
    calls = [i for i, line in enumerate(lines) if "atomicAdd(" in line and not line.lstrip().startswith("//")]
    assert len(calls) == 6
    assert all(lines[i - 1].lstrip().startswith(marker) for i in calls), "\n".join(lines)
    assert "portkit:" not in (out / "other_atomics.cu").read_text()


def test_the_architecture_read_as_a_number_in_code_is_left_and_marked(tmp_path: Path, capsys) -> None:
    """`int arch = __CUDA_ARCH__;` and `printf("%d", __CUDA_ARCH__)` were renamed to __HIP_DEVICE_COMPILE__, so AMD's
    build read 1 for the compute capability, silently. AMD has none: the value is left as written with its marker, and
    hipcc stops there; a comparison beside it is still written as AMD's device pass reads it."""
    require_tool("hipcc")
    tree, out = tmp_path / "in", tmp_path / "out"
    tree.mkdir()
    (tree / "arch_read.cu").write_text(
        "#include <cstdio>\n#include <cuda_runtime.h>\n__global__ void k(int *p) {\n#ifdef __CUDA_ARCH__\n"
        "  int arch = __CUDA_ARCH__;\n  p[0] = arch / 10;\n  printf(\"sm_%d\\n\", __CUDA_ARCH__ / 10);\n"
        "  p[1] = __CUDA_ARCH__ >= 800 ? 2 : 1;\n#endif\n}\n")
    assert main(["convert", "--verify", "--no-cache", "--rocm-version", "5.2", str(tree), "-o", str(out)]) == 0
    assert "hipcc: 0 build, 1 stop at a marked site (expected), 0 fail unmarked" in capsys.readouterr().out
    lines = (out / "arch_read.cu").read_text().splitlines()
    marker = "// portkit: PK101 __CUDA_ARCH__: left as written, undeclared under hipcc: an NVIDIA compute capability"
    for kept in ("  int arch = __CUDA_ARCH__;", '  printf("sm_%d\\n", __CUDA_ARCH__ / 10);'):
        assert lines[lines.index(kept) - 1].lstrip().startswith(marker), "\n".join(lines)
    assert "  p[1] = true /* __CUDA_ARCH__ >= 800: AMD reads as newer than any NVIDIA generation */ ? 2 : 1;" in lines
    assert "__HIP_DEVICE_COMPILE__;" not in "\n".join(lines) and "#ifdef __HIP_DEVICE_COMPILE__" in lines


def test_a_projects_overload_of_a_cuda_intrinsic_for_its_own_type_hides_no_other_call(tmp_path: Path, capsys) -> None:
    """pytorch_scatter's utils.cuh overloads __shfl_down_sync for its own half type. Read as the project's own name,
    every __shfl_down_sync call, in its files and in those that include it, was left CUDA's: unmarked, and no HIP 5.2
    function of that name. The overload keeps its name; CUDA's calls are converted (__shfl_down, marked) and build."""
    overload = ("#pragma once\n#include <cuda_runtime.h>\n"
                "struct Half16 { unsigned short x; __device__ operator float() const { return x; } };\n"
                "__device__ inline Half16 __shfl_down_sync(const unsigned mask, const Half16 var, const unsigned delta) {\n"
                "  return Half16{static_cast<unsigned short>(__shfl_down_sync(mask, static_cast<float>(var), delta))};\n"
                "}\n"
                "__device__ inline float sum_down(float v) { return v + __shfl_down_sync(__activemask(), v, 1); }\n")
    kernel = ('#include "utils.cuh"\n'
              "__global__ void k(float *x) { x[threadIdx.x] = __shfl_down_sync(__activemask(), sum_down(x[0]), 2); }\n")
    out = verified(tmp_path, capsys, {"utils.cuh": overload, "k.cu": kernel})
    header = (out / "utils.cuh").read_text()
    assert "__device__ inline Half16 __shfl_down_sync(const unsigned mask, const Half16 var, const unsigned delta)" in header
    assert "__shfl_down(static_cast<float>(var), delta)" in header and "v + __shfl_down(v, 1)" in header
    assert "x[threadIdx.x] = __shfl_down(sum_down(x[0]), 2);" in (out / "k.cu").read_text()
    assert "PK104 __shfl_down_sync" in (out / "k.cu").read_text()


HALF_MATH = """#include <cuda_fp16.h>
namespace mine {
__device__ inline __half fma(__half a, __half b, __half c) { return __hfma(a, b, c); }
__host__ __device__ inline __half fmax(const __half& a, const __half& b) { return __hgt(a, b) ? a : b; }
__device__ inline __half sqrt(__half a) { return hsqrt(a); }
__device__ __half axpy(__half a, __half x, __half y) { return fma(a, x, sqrt(y)); }
__device__ __half top(__half a, __half b) { return mine::fmax(a, b); }
}
__global__ void k(__half* out, const __half* in) { out[0] = mine::axpy(in[0], in[1], in[2]); out[1] = mine::top(in[0], in[1]); }
"""


def test_a_half_overload_of_a_cmath_function_is_marked_where_hipcc_stops(tmp_path: Path, capsys) -> None:
    """tiny-cuda-nn's `tcnn::fma(__half, __half, __half)`, called unqualified: nvcc builds it, hipcc stops in clang's
    HIP <cmath> ("call to '__test' is ambiguous": its global fma template, found by argument-dependent lookup on
    the global __half), unmarked. Marked at the overloads (fma, fmax; not sqrt, of one argument) and at the
    unqualified call, where hipcc reports it; qualified as the marker says, it builds."""
    require_tool("hipcc")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "half_math.cu").write_text(HALF_MATH)
    out = tmp_path / "out"
    assert main(["convert", "--verify", "--no-cache", "--rocm-version", "5.2", str(tmp_path / "in"), "-o", str(out)]) == 0
    report = capsys.readouterr().out
    assert "hipcc: 0 build, 1 stop at a marked site (expected), 0 fail unmarked" in report, report
    assert "call to '__test' is ambiguous" in report
    lines = (out / "half_math.cu").read_text().splitlines()
    marked = [lines[i + 1].split("(")[0].split()[-1] for i, line in enumerate(lines) if "PK346" in line]
    assert marked == ["fma", "fmax", "axpy"], lines  # the two overloads, and the function with the unqualified call
    qualified = tmp_path / "qualified.hip"
    qualified.write_text("\n".join(lines).replace("return fma(", "return mine::fma("))
    built = subprocess.run(["hipcc", "--offload-arch=gfx90a", "-c", str(qualified), "-o", str(tmp_path / "q.o")],
                           capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"})
    assert built.returncode == 0, built.stderr[-3000:]
