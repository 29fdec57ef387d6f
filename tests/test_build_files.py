"""Build files: Makefiles, scripts and CMake rewritten from nvcc/CUDA to hipcc/HIP (portkit/convert/build_files.py)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from portkit.rules.versions import Target
from tests.conftest import require_tool

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
HIP52 = Target(rocm=(5, 2, 0))


def test_makefile_rewrite(database) -> None:
    from portkit.convert.build_files import convert_makefile

    text = ("NVCC = nvcc  # the nvcc compiler\n"
            "FLAGS = -O3 -gencode arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=sm_90 --use_fast_math "
            "-Xcompiler -fopenmp,-Wall -Xptxas -v -lineinfo\n"
            "app: app.cu\n\t$(NVCC) $(FLAGS) -arch=sm_70 -o $@ $< -lcurand -lcublas -lnccl -L/usr/local/cuda/lib64\n")
    result = convert_makefile(text, database)
    assert result.text == (
        "NVCC = hipcc  # the nvcc compiler\n"
        "# portkit: PK403 -Xptxas -v: ptxas options have no AMD equivalent (register limits: __launch_bounds__ on the "
        "kernels).\n"
        "FLAGS = -O3 --offload-arch=gfx90a --offload-arch=gfx942 -ffast-math -fopenmp -Wall -gline-tables-only\n"
        "app: app.cu\n"
        "# portkit: PK404 /usr/local/cuda: a CUDA install path; point it at ROCm (e.g. /opt/rocm or $(ROCM_PATH)).\n"
        "\t$(NVCC) $(FLAGS) --offload-arch=gfx906 -o $@ $< -lhiprand -lhipblas -lrccl -L/usr/local/cuda/lib64\n")
    assert [(n.line, n.message.split(":")[0]) for n in result.notes] == [(3, "-Xptxas -v"), (6, "/usr/local/cuda")]
    assert convert_makefile(result.text, database).text == result.text
    assert "--offload-arch=gfx1100" in convert_makefile("X = -arch=sm_89\n", database, ("gfx1100",)).text
    flags = convert_makefile("CUDAFLAGS = -O3\nk: k.cu\n\t$(NVCC) $(CUDAFLAGS) -I$(CUDA)/include -L${CUDA_HOME}/lib64 $<\n",
                             database)
    assert [n.message.split(":")[0] for n in flags.notes] == ["$(CUDA)", "${CUDA_HOME}"]  # not the flags variable


def test_build_files_keep_a_library_the_target_lacks(database) -> None:
    """hipBLASLt came with HIP 5.5: for an older target the cuBLASLt link stays CUDA's, with a note, in a Makefile
    and in CMake; for a newer one it is renamed like the others."""
    from portkit.convert.build_files import convert_cmake, convert_makefile

    make = "app: app.cu\n\t$(NVCC) $< -lcublas -lcublasLt -o $@\n"
    kept = convert_makefile(make, database, target=HIP52)
    assert kept.text == ("app: app.cu\n# portkit: PK104 -lcublasLt: hipblaslt needs HIP 5.5.0 or newer; upgrade ROCm or "
                         "rewrite.\n\t$(NVCC) $< -lhipblas -lcublasLt -o $@\n")
    assert [(n.line, n.code, n.message) for n in kept.notes] == [
        (3, "PK104", "-lcublasLt: hipblaslt needs HIP 5.5.0 or newer; upgrade ROCm or rewrite.")]
    assert convert_makefile(make, database, target=Target(rocm=(6, 2, 0))).text.endswith("-lhipblas -lhipblaslt -o $@\n")
    cmake = "target_link_libraries(app PRIVATE CUDA::cublas CUDA::cublasLt cublasLt)\n"
    kept = convert_cmake(cmake, database, target=HIP52)
    assert "target_link_libraries(app PRIVATE roc::hipblas CUDA::cublasLt cublasLt)" in kept.text
    assert [n.message.split(" needs")[0] for n in kept.notes] == ["CUDA::cublasLt: hipblaslt"]
    newer = convert_cmake(cmake, database, target=Target(rocm=(6, 2, 0))).text
    assert "target_link_libraries(app PRIVATE roc::hipblas roc::hipblaslt hipblaslt)" in newer


def test_makefile_architecture_variable(database) -> None:
    """`-arch=$(ARCH)` with `ARCH = sm_60`: the variable keeps choosing the architecture (`make ARCH=...`)."""
    from portkit.convert.build_files import convert_makefile

    text = "ARCH = sm_60\nSM ?= sm_70\nCFLAGS := -O3 -arch=$(ARCH)\nOTHER = -arch=${UNSET}\n"
    result = convert_makefile(text, database).text
    assert result == "ARCH = gfx906\nSM ?= sm_70\nCFLAGS := -O3 --offload-arch=$(ARCH)\nOTHER = --offload-arch=gfx90a\n"
    assert convert_makefile(result, database).text == result
    assert convert_makefile(text, database, ("gfx1100",)).text.startswith("ARCH = gfx1100\n")


def test_cmake_rewrite_of_the_example(database) -> None:
    from portkit.convert.build_files import convert_cmake

    result = convert_cmake((EXAMPLES / "option-pricer" / "CMakeLists.txt").read_text(), database)
    lines = result.text.splitlines()
    for expected in (
        "project(option_pricer LANGUAGES CXX HIP)",
        "set(CMAKE_HIP_STANDARD 17)",
        "set(CMAKE_HIP_ARCHITECTURES gfx90a gfx942)",
        'set(CMAKE_HIP_FLAGS "${CMAKE_HIP_FLAGS} -ffast-math -gline-tables-only")',
        "find_package(hip REQUIRED)", "find_package(hiprand REQUIRED)", "find_package(hipsolver REQUIRED)",
        "find_library(NCCL_LIBRARY rccl REQUIRED)",
        "set_source_files_properties(src/main.cu src/paths.cu src/regression.cu src/stats.cu PROPERTIES LANGUAGE HIP)",
        "set_source_files_properties(src/comm.cpp PROPERTIES LANGUAGE HIP)",
        "target_link_libraries(option_pricer PRIVATE hip::host hip::hiprand roc::hipsolver roctx64 rccl)",
    ):
        assert expected in lines
    assert "CUDA" not in result.text
    assert convert_cmake(result.text, database).text == result.text


def test_cmake_reports_what_it_cannot_rewrite(database) -> None:
    from portkit.convert.build_files import convert_cmake

    text = "set_target_properties(app PROPERTIES CUDA_SEPARABLE_COMPILATION ON CUDA_ARCHITECTURES \"70;80\")\n" \
           "target_link_libraries(app CUDA::cufft_static CUDA::cusparseLt)\n"
    result = convert_cmake(text, database)
    assert 'HIP_ARCHITECTURES gfx906 gfx90a' in result.text
    messages = [n.message for n in result.notes]
    assert any(m.startswith("CUDA_SEPARABLE_COMPILATION") for m in messages)
    assert any(m.startswith("CUDA::cusparseLt") for m in messages)


def test_cmake_architectures_are_rewritten_where_set_and_only_renamed_where_read(database) -> None:
    """tiny-cuda-nn sorts its list and reads its first entry: `COMPARE` and the index 0 are no architectures."""
    from portkit.convert.build_files import convert_cmake

    text = ("set(CMAKE_CUDA_ARCHITECTURES 80 70)\nlist(APPEND CMAKE_CUDA_ARCHITECTURES 90)\n"
            "list(SORT CMAKE_CUDA_ARCHITECTURES COMPARE NATURAL ORDER ASCENDING)\n"
            "list(GET CMAKE_CUDA_ARCHITECTURES 0 MIN_GPU_ARCH)\n"
            "if(CMAKE_CUDA_ARCHITECTURES STREQUAL \"80\")\nendif()\n"
            "get_target_property(found app CUDA_ARCHITECTURES)\n")
    lines = convert_cmake(text, database).text.splitlines()
    assert lines[:6] == ["set(CMAKE_HIP_ARCHITECTURES gfx90a gfx906)", "list(APPEND CMAKE_HIP_ARCHITECTURES gfx942)",
                         "list(SORT CMAKE_HIP_ARCHITECTURES COMPARE NATURAL ORDER ASCENDING)",
                         "list(GET CMAKE_HIP_ARCHITECTURES 0 MIN_GPU_ARCH)",
                         'if(CMAKE_HIP_ARCHITECTURES STREQUAL "80")', "endif()"]
    assert lines[6] == "get_target_property(found app HIP_ARCHITECTURES)"


def test_msvc_host_options_are_marked_and_gnu_ones_unwrapped(database) -> None:
    """`-Xcompiler "/EHsc /W0"` unwrapped would be file names to hipcc's clang driver (llm.c's Windows branch)."""
    from portkit.convert.build_files import convert_makefile

    text = 'NVCC_FLAGS += -Xcompiler "/std:c++20" -Xcompiler "/EHsc /W0" -Xcompiler -fPIC -Xcompiler=-Wall\n'
    result = convert_makefile(text, database)
    assert result.text.splitlines()[-1] == "NVCC_FLAGS += -fPIC -Wall"
    assert sorted(n.message.split(":")[0] for n in result.notes) == ['-Xcompiler "/EHsc /W0"', '-Xcompiler "/std']
    assert all("MSVC options" in n.message for n in result.notes)


def test_nvidia_tools_in_a_makefile_are_marked_as_scan_lists_them(database) -> None:
    """llm.c adds its --offload-arch only where `nvidia-smi` answers: on a ROCm machine that branch is not taken."""
    from portkit.convert.build_files import convert_makefile

    text = "ifneq ($(shell which nvidia-smi),)\n  CC := $(shell nvidia-smi --query-gpu=compute_cap --format=csv)\nendif\n"
    notes = [n for n in convert_makefile(text, database).notes if n.code == "PK411"]
    assert [n.message.split(":")[0] for n in notes] == ["nvidia-smi", "nvidia-smi"]


def test_cmake_nvcc_variables_get_their_own_advice(database) -> None:
    from portkit.convert.build_files import convert_cmake

    text = ('list(APPEND CUDA_NVCC_FLAGS "-Xcompiler=-fno-strict-aliasing")\n'
            "set_target_properties(app PROPERTIES CUDA_SEPARABLE_COMPILATION ON)\n")
    notes = {n.message.split(":")[0]: n.message for n in convert_cmake(text, database).notes}
    assert "FindCUDA's list of nvcc options" in notes["CUDA_NVCC_FLAGS"] and "-fgpu-rdc" not in notes["CUDA_NVCC_FLAGS"]
    assert "-fgpu-rdc" in notes["CUDA_SEPARABLE_COMPILATION"]


MAKEFILE = """CUDA_HOME ?= /usr/local/cuda
NVCC = $(CUDA_HOME)/bin/nvcc
FLAGS = -O3 --threads=0 -t=0 --generate-code arch=compute_80,code=[compute_80,sm_80] --machine 64 -ccbin g++ \\
  -Xptxas -v -maxrregcount=32 --default-stream per-thread -rdc=true -std c++17 -Werror all-warnings
app: app.cu
\t$(NVCC) $(FLAGS) -arch=sm_70 -o $@ $< -lcurand -lcublasLt -lnvidia-ml -lcudadevrt -lnvToolsExt -L$(CUDA_HOME)/lib64
"""
CMAKE = """cmake_minimum_required(VERSION 3.18)
project(app LANGUAGES CXX CUDA)
find_package(CUDAToolkit REQUIRED)
set(CMAKE_CUDA_ARCHITECTURES 80)
set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} --expt-relaxed-constexpr -Xptxas=-v --use_fast_math")
set(SOURCES src/main.cpp src/kernels.cu)
add_executable(app ${SOURCES})
set_target_properties(app PROPERTIES CUDA_SEPARABLE_COMPILATION ON)
target_compile_options(app PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--extended-lambda -lineinfo>)
target_link_libraries(app PRIVATE CUDA::cudart CUDA::cublasLt CUDA::curand)
"""


def _marked_names(text: str) -> set[tuple[str, str]]:
    """(code, what) of each marker; a link flag named as the rules name the library."""
    marked = set()
    for line in text.splitlines():
        if line.startswith("# portkit: "):
            code, rest = line.removeprefix("# portkit: ").split(" ", 1)
            marked.add((code, rest.split(": ", 1)[0].removeprefix("-l")))
    return marked


@pytest.mark.parametrize(("name", "text"), [("Makefile", MAKEFILE), ("CMakeLists.txt", CMAKE)], ids=["make", "cmake"])
def test_scan_lists_exactly_what_convert_marks(name: str, text: str, tmp_path: Path) -> None:
    """The build items scan reports as needing work are the ones convert writes a marker for."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / name).write_text(text)
    scan = subprocess.run([sys.executable, "-m", "portkit", "scan", str(tmp_path / "in"), "--format", "json",
                           "--rocm-version", "5.2", "--no-cache"], capture_output=True, text=True, check=True)
    listed = {(f["code"], f["name"]) for f in json.loads(scan.stdout)["findings"]
              if f["severity"] != "info" and f["code"] != "PK400"}
    subprocess.run([sys.executable, "-m", "portkit", "convert", str(tmp_path / "in"), "-o", str(tmp_path / "out"),
                    "--rocm-version", "5.2"], capture_output=True, check=True)
    converted = (tmp_path / "out" / name).read_text()
    assert listed == _marked_names(converted)
    assert listed  # the cases have items of each kind


def test_cmake_forms(database) -> None:
    from portkit.convert.build_files import convert_cmake

    result = convert_cmake(CMAKE, database, target=HIP52).text
    for expected in ("project(app LANGUAGES CXX HIP)", "find_package(hip REQUIRED)", "set(CMAKE_HIP_ARCHITECTURES gfx90a)",
                     'set(CMAKE_HIP_FLAGS "${CMAKE_HIP_FLAGS} -ffast-math")',
                     "set_source_files_properties(src/kernels.cu PROPERTIES LANGUAGE HIP)",
                     "target_compile_options(app PRIVATE $<$<COMPILE_LANGUAGE:HIP>: -gline-tables-only>)",
                     "target_link_libraries(app PRIVATE hip::host CUDA::cublasLt hip::hiprand)"):
        assert expected in result.splitlines(), result
    assert convert_cmake(result, database, target=HIP52).text == result
    hipcc = convert_cmake(CMAKE, database, target=HIP52, hipcc_as_cxx=True).text
    for expected in ("project(app LANGUAGES CXX)", 'set(CMAKE_CXX_FLAGS "${CMAKE_CXX_FLAGS} -ffast-math")',
                     "set_source_files_properties(src/kernels.cu PROPERTIES LANGUAGE CXX COMPILE_OPTIONS -xhip)",
                     "target_compile_options(app PRIVATE $<$<COMPILE_LANGUAGE:CXX>: -gline-tables-only>)"):
        assert expected in hipcc.splitlines(), hipcc
    assert convert_cmake(hipcc, database, target=HIP52, hipcc_as_cxx=True).text == hipcc


def test_converted_cmake_builds_with_hipcc_as_the_cxx_compiler(tmp_path: Path, database) -> None:
    """Debian 12's CMake 3.25 cannot use its HIP 5.2 as CMake's HIP language (docs/convert.md): the converted
    CMake builds, and links for gfx90a, with hipcc as the C++ compiler."""
    from portkit.convert.build_files import convert_cmake

    require_tool("cmake")
    require_tool("hipcc")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.cpp").write_text("void run();\nint main() { run(); return 0; }\n")
    (tmp_path / "src" / "kernels.cu").write_text(
        "#include <hip/hip_runtime.h>\n__global__ void k(float* a) { a[0] = 1.0f; }\n"
        "void run() { float* a; hipMalloc(&a, 4); k<<<1, 1>>>(a); hipFree(a); }\n")
    text = CMAKE.replace(" CUDA::cublasLt", "")  # HIP 5.2 has no hipBLASLt
    (tmp_path / "CMakeLists.txt").write_text(convert_cmake(text, database, target=HIP52, hipcc_as_cxx=True).text)
    env = {**os.environ, "HIP_PLATFORM": "amd", "HCC_AMDGPU_TARGET": "gfx90a"}
    for command in (["cmake", "-S", ".", "-B", "build", "-DCMAKE_CXX_COMPILER=hipcc"], ["cmake", "--build", "build"]):
        result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600, check=False)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert (tmp_path / "build" / "app").is_file()


def test_a_c_file_that_gets_the_runtime_header_still_compiles_with_the_host_compiler(tmp_path: Path) -> None:
    """nvcc hands a .c file to the host compiler, and so do the converted build files (rodinia's b+tree: gcc
    builds main.c, which calls cudaSetDevice with no include). The runtime header it gets needs a HIP platform,
    which hipcc defines and gcc does not."""
    gcc = require_tool("gcc")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "main.c").write_text("#include <stdio.h>\nint main(void) {\n  cudaSetDevice(0);\n  return 0;\n}\n")
    for source, out in ((tmp_path / "in", tmp_path / "out"), (tmp_path / "out", tmp_path / "again")):
        subprocess.run([sys.executable, "-m", "portkit", "convert", str(source), "-o", str(out), "--rocm-version", "5.2"],
                       capture_output=True, check=True)
    converted = (tmp_path / "out" / "main.c").read_text()
    assert (tmp_path / "again" / "main.c").read_text() == converted
    assert "#define __HIP_PLATFORM_AMD__" in converted and "hipSetDevice(0)" in converted
    result = subprocess.run([gcc, "-c", "main.c", "-o", "main.o"], cwd=tmp_path / "out", capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
