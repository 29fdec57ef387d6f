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


def converted(tmp_path: Path, name: str, *options: str) -> str:
    assert main(["convert", "--no-cache", *options, str(INPUTS / name), "-o", str(tmp_path / "out")]) == 0
    return (tmp_path / "out" / name).read_text()


def verified(tmp_path: Path, capsys, files: dict[str, str]) -> Path:
    """Write `files` into a tree, convert it for HIP 5.2 with --verify (its one unit must compile); the output tree."""
    require_tool("hipcc")
    tree, out = tmp_path / "in", tmp_path / "out"
    tree.mkdir()
    for name, text in files.items():
        (tree / name).write_text(text)
    assert main(["convert", "--verify", "--no-cache", "--rocm-version", "5.2", str(tree), "-o", str(out)]) == 0
    assert "hipcc: 1 build, 0 stop at a marked site (expected), 0 fail unmarked" in capsys.readouterr().out
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
             "#define SHFL_SYNC(mask, v, lane) __shfl((v), (lane))\n", " __ballot((pred) /* a vote, (not a mask) */)\n"]),
    ("6.2", ["#define HIP_ENABLE_WARP_SYNC_BUILTINS\n", "__shfl_down_sync(0xffffffffffffffffull, v, offset)",
             "__ballot_sync(__activemask(), v > 0.0f)", "__builtin_amdgcn_wave_barrier()"]),
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
    assert "#if defined(__HIP_DEVICE_COMPILE__) && defined(__HIP_DEVICE_COMPILE__)\n" in text  # the outer test
    assert "#if __CUDA_ARCH__ >= 700\n" in text and "#if __CUDA_ARCH__ >= 900\n" in text  # those guarding PTX
    assert "#if defined(__HIP_DEVICE_COMPILE__) && __CUDA_ARCH__ >= 300\n" in text  # PTX in a #define body


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
                   '  return "-arch=compute_" + std::to_string(10 * major + minor);\n}\n'})
    text = (out / "arch.cu").read_text()
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
