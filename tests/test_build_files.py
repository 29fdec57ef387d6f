"""Build files: Makefiles, scripts and CMake rewritten from nvcc/CUDA to hipcc/HIP (portkit/convert/build_files.py,
cmake_files.py, findcuda.py, cmake_sources.py, build_flags.py)."""
from __future__ import annotations

import collections
import difflib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from portkit.rules.versions import Target
from tests.conftest import offload_targets, require_tool

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
HIP52 = Target(rocm=(5, 2, 0))
# --cmake-hipcc: the architectures of a target's HIP_ARCHITECTURES as hipcc's options.
# What a converted Makefile whose nvcc became hipcc starts with (rules/_build.yaml's makefile_hip_platform).
HIP_PLATFORM_LINES = "# hipcc builds for AMD GPUs even where nvcc is installed too\nexport HIP_PLATFORM ?= amd\n"
# What --cmake-hipcc adds beside the link options: the C++ sources hipcc compiles keep g++'s narrowing warning.
HIPCC_CXX_OPTIONS = 'add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-Wno-error=c++11-narrowing>")'
OFFLOAD_ARCH_OPTIONS = ("$<$<BOOL:$<TARGET_PROPERTY:HIP_ARCHITECTURES>>:"
                        "--offload-arch=$<JOIN:$<TARGET_PROPERTY:HIP_ARCHITECTURES>,;--offload-arch=>>")


def test_makefile_rewrite(database) -> None:
    from portkit.convert.build_files import convert_makefile

    text = ("NVCC = nvcc  # the nvcc compiler\n"
            "FLAGS = -O3 -gencode arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=sm_90 --use_fast_math "
            "-Xcompiler -fopenmp,-Wall -Xptxas -v -lineinfo\n"
            "app: app.cu\n\t$(NVCC) $(FLAGS) -arch=sm_70 -o $@ $< -lcurand -lcublas -lnccl -L/usr/local/cuda/lib64\n")
    result = convert_makefile(text, database)
    assert result.text == (
        f"{HIP_PLATFORM_LINES}NVCC = hipcc  # the nvcc compiler\n"
        "# portkit: PK403 -Xptxas -v: ptxas options have no AMD equivalent (register limits: __launch_bounds__ on the "
        "kernels).\n"
        "FLAGS = -O3 --offload-arch=gfx90a --offload-arch=gfx942 -ffast-math -fopenmp -Wall -gline-tables-only\n"
        "app: app.cu\n"
        "# portkit: PK404 /usr/local/cuda: a CUDA install path; point it at ROCm (e.g. /opt/rocm or $(ROCM_PATH)).\n"
        "\t$(NVCC) $(FLAGS) --offload-arch=gfx906 -o $@ $< -lhiprand -lhipblas -lrccl -L/usr/local/cuda/lib64\n")
    assert [(n.line, n.message.split(":")[0]) for n in result.notes] == [(5, "-Xptxas -v"), (8, "/usr/local/cuda")]
    assert convert_makefile(result.text, database).text == result.text
    assert "--offload-arch=gfx1100" in convert_makefile("X = -arch=sm_89\n", database, ("gfx1100",)).text
    flags = convert_makefile("CUDAFLAGS = -O3\nk: k.cu\n\t$(NVCC) $(CUDAFLAGS) -I$(CUDA)/include -L${CUDA_HOME}/lib64 $<\n",
                             database)
    assert [n.message.split(":")[0] for n in flags.notes] == ["$(CUDA)", "${CUDA_HOME}"]  # not the flags variable


# A program's own options that share a spelling with nvcc's (llm.c's scripts/run_gpt2_124M.sh: `-t 1024`, the
# sequence length), on commands that run no nvcc, beside an nvcc command whose options hipcc must get.
PROGRAM_OPTIONS_SCRIPT = """#!/bin/bash
NVCC_OPTIONS="-G --use_fast_math"
nvcc $NVCC_OPTIONS -t 4 -c k.cu -o k.o
./train_model -b 64 -t 1024 -o out
mpirun -np 8 ./train_model \\
    -b 64 -t 1024 \\
    -o out
python train.py --use_fast_math -t 4 -G 2
"""
# A pure-gcc Makefile (gcc's -G, a program's -t), and a flags variable named for nvcc, which the Makefile that includes
# this one passes to nvcc.
PROGRAM_OPTIONS_MAKEFILE = """CC = gcc
CFLAGS = -O3 -G
NVCCFLAGS = -G -lineinfo
prog: prog.c
\t$(CC) $(CFLAGS) -o prog prog.c
run:
\t./prog.sh -b 4 -t 1024 -G 2
"""


def test_options_of_commands_that_are_not_nvcc_stay(tmp_path: Path) -> None:
    """convert rewrote nvcc's options wherever their words were: `./train_model -t 1024` lost its `-t 1024` (nvcc's
    --threads), `python train.py --use_fast_math -G 2` became `-ffast-math -g 2`, gcc's CFLAGS `-G` became `-g`, all
    silently. Now a Makefile's or script's option is rewritten only where nvcc gets it: on a command running it, in a
    variable such a command expands, or in a variable named for nvcc's flags (NVCCFLAGS); scan lists the same."""
    source = tmp_path / "in"
    source.mkdir()
    (source / "run.sh").write_text(PROGRAM_OPTIONS_SCRIPT)
    (source / "Makefile").write_text(PROGRAM_OPTIONS_MAKEFILE)
    _portkit_convert(source, tmp_path / "out")
    script = (tmp_path / "out" / "run.sh").read_text()
    assert 'NVCC_OPTIONS="-g -ffast-math"\nhipcc $NVCC_OPTIONS -c k.cu -o k.o\n' in script
    assert script.endswith(PROGRAM_OPTIONS_SCRIPT.split("-o k.o\n", 1)[1])  # the program's lines as written
    makefile = (tmp_path / "out" / "Makefile").read_text()
    assert makefile == PROGRAM_OPTIONS_MAKEFILE.replace("NVCCFLAGS = -G -lineinfo", "NVCCFLAGS = -g -gline-tables-only")
    listed = _scan_lines(source, "run.sh")
    assert [name for line in sorted(listed) for name in listed[line] if name.startswith("PK408")] == [
        "PK408 -G", "PK408 --use_fast_math", "PK408 -t 4"]
    assert "PK408" not in str(_scan_lines(source, "Makefile").get(2))
    # make runs the program with its options as written.
    require_tool("make")
    (tmp_path / "out" / "prog.sh").write_text('#!/bin/sh\necho "args: $*"\n')
    (tmp_path / "out" / "prog.sh").chmod(0o755)
    assert "args: -b 4 -t 1024 -G 2" in _run(["make", "-s", "run"], tmp_path / "out").stdout


# A program's own -arch and -gencode (trial17's t-flag/run3.sh), on commands and in a variable that run no nvcc, beside
# nvcc's, which hipcc must get as --offload-arch.
PROGRAM_ARCH_SCRIPT = """#!/bin/bash
nvcc -arch=sm_80 -c k.cu -o k.o
./prog -lineinfo -arch=sm_80
python sweep.py -gencode arch=compute_80,code=sm_80
"""
PROGRAM_ARCH_MAKEFILE = """NVCC = nvcc
GPU_FLAGS = -arch=sm_80
RUN_ARGS = -gencode arch=compute_80,code=sm_80
k: k.cu
\t$(NVCC) $(GPU_FLAGS) -gencode=arch=compute_70,code=sm_70 -o k k.cu
run:
\t./args.sh -arch=sm_80 $(RUN_ARGS)
"""


def test_architectures_of_commands_that_are_not_nvcc_stay(tmp_path: Path) -> None:
    """convert wrote every -arch=sm_80 and -gencode as --offload-arch, on any command: `./prog -arch=sm_80` became
    `./prog --offload-arch=gfx90a`, silently. Now they are rewritten only where the GPU compiler gets them, as nvcc's
    other options are; make runs the program with its own, and hipcc gets the AMD GPUs."""
    source = tmp_path / "in"
    source.mkdir()
    (source / "run.sh").write_text(PROGRAM_ARCH_SCRIPT)
    (source / "Makefile").write_text(PROGRAM_ARCH_MAKEFILE)
    (source / "k.cu").write_text("__global__ void k(float* x) { x[0] = 1.0f; }\n")
    _portkit_convert(source, tmp_path / "out")
    assert (tmp_path / "out" / "run.sh").read_text() == PROGRAM_ARCH_SCRIPT.replace(
        "nvcc -arch=sm_80", "hipcc --offload-arch=gfx90a")
    makefile = (tmp_path / "out" / "Makefile").read_text()
    assert makefile == HIP_PLATFORM_LINES + PROGRAM_ARCH_MAKEFILE.replace("nvcc", "hipcc").replace(
        "GPU_FLAGS = -arch=sm_80", "GPU_FLAGS = --offload-arch=gfx90a").replace(
        "-gencode=arch=compute_70,code=sm_70", "--offload-arch=gfx906")
    require_tool("make")
    (tmp_path / "out" / "args.sh").write_text('#!/bin/sh\necho "args: $*"\n')
    (tmp_path / "out" / "args.sh").chmod(0o755)
    assert "hipcc --offload-arch=gfx90a --offload-arch=gfx906 -o k k.cu" in _run(["make", "-n", "k"], tmp_path / "out").stdout
    assert "args: -arch=sm_80 -gencode arch=compute_80,code=sm_80" in _run(["make", "-s", "run"], tmp_path / "out").stdout


# CMake's commands that run a program: its own options that share a spelling with nvcc's stay; a command running the
# GPU compiler (by a variable naming it, by path, after another command) gets hipcc's; what follows another keyword
# of the command (COMMENT) is no program's.
PROGRAM_OPTIONS_CMAKE = """cmake_minimum_required(VERSION 3.18)
project(t LANGUAGES CXX)
enable_testing()
set(ARGS_OF ${CMAKE_CURRENT_SOURCE_DIR}/args.sh)
add_test(NAME t COMMAND ${ARGS_OF} -b 4 -t 1024 -G 2)
ADD_TEST(old ${ARGS_OF} -lineinfo -G 1)
add_custom_target(run ALL ${ARGS_OF} --use_fast_math -t 4
                  COMMAND ${ARGS_OF} -G 3 COMMENT "args of -G")
add_custom_command(OUTPUT k.o COMMAND ${ARGS_OF} -t 2
                   COMMAND ${CMAKE_CUDA_COMPILER} -G -lineinfo -c k.cu -o k.o
                   COMMAND "/usr/local/cuda/bin/nvcc" --use_fast_math -c k.cu -o k.o DEPENDS k.cu)
execute_process(COMMAND ${ARGS_OF} -G -t 8 OUTPUT_VARIABLE configured)
message(STATUS "configured ${configured}")
"""


def test_cmake_commands_that_run_a_program_keep_its_options(tmp_path: Path) -> None:
    """convert rewrote nvcc's options in any CMake command: `add_test(NAME t COMMAND app -b 4 -t 1024 -G 2)` became
    `app -b 4 -g 2`, `add_custom_target(run COMMAND python train.py --use_fast_math -t 4)` got -ffast-math, silently.
    In add_test, add_custom_target, add_custom_command and execute_process they are rewritten (and listed by scan) only
    where the program after COMMAND is the GPU compiler; cmake, ctest and make run the others with their options."""
    source = tmp_path / "in"
    source.mkdir()
    (source / "CMakeLists.txt").write_text(PROGRAM_OPTIONS_CMAKE)
    (source / "args.sh").write_text('#!/bin/sh\necho "args: $*"\n')
    (source / "args.sh").chmod(0o755)
    _portkit_convert(source, tmp_path / "out")
    converted = (tmp_path / "out" / "CMakeLists.txt").read_text()
    assert converted == PROGRAM_OPTIONS_CMAKE.replace(
        "${CMAKE_CUDA_COMPILER} -G -lineinfo", "${CMAKE_HIP_COMPILER} -g -gline-tables-only").replace(
        "--use_fast_math -c k.cu", "-ffast-math -c k.cu")
    listed = _scan_lines(source, "CMakeLists.txt")
    assert [name for line in sorted(listed) for name in listed[line] if name.startswith("PK408")] == [
        "PK408 -G", "PK408 -lineinfo", "PK408 --use_fast_math"]
    assert {line for line in listed if any(name.startswith("PK408") for name in listed[line])} == {10, 11}
    require_tool("cmake")
    build = tmp_path / "build"
    configured = _run(["cmake", "-S", str(tmp_path / "out"), "-B", str(build)], tmp_path).stdout
    assert "configured args: -G -t 8" in configured
    assert "args: --use_fast_math -t 4" in _run(["cmake", "--build", ".", "--target", "run"], build).stdout
    tests = _run(["ctest", "-V"], build).stdout
    assert "args: -b 4 -t 1024 -G 2" in tests and "args: -lineinfo -G 1" in tests


def test_build_files_keep_a_library_the_target_lacks(database) -> None:
    """hipBLASLt came with HIP 5.5: for an older target the cuBLASLt link stays CUDA's, with a note, in a Makefile
    and in CMake; for a newer one it is renamed like the others."""
    from portkit.convert.build_files import convert_makefile
    from portkit.convert.cmake_files import convert_cmake

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
    from portkit.convert.cmake_files import convert_cmake

    result = convert_cmake((EXAMPLES / "option-pricer" / "CMakeLists.txt").read_text(), database)
    lines = [line.strip() for line in result.text.splitlines()]  # the architectures' set() is in a guard
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
    from portkit.convert.cmake_files import convert_cmake

    text = "set_target_properties(app PROPERTIES CUDA_SEPARABLE_COMPILATION ON CUDA_ARCHITECTURES \"70;80\")\n" \
           "target_link_libraries(app CUDA::cufft_static CUDA::cusparseLt)\n"
    result = convert_cmake(text, database)
    assert 'HIP_ARCHITECTURES "gfx906;gfx90a"' in result.text
    messages = [n.message for n in result.notes]
    assert any(m.startswith("CUDA_SEPARABLE_COMPILATION") for m in messages)
    assert any(m.startswith("CUDA::cusparseLt") for m in messages)


def test_cmake_architectures_are_rewritten_where_set_and_only_renamed_where_read(database) -> None:
    """tiny-cuda-nn sorts its list and reads its first entry: `COMPARE` and the index 0 are no architectures."""
    from portkit.convert.cmake_files import convert_cmake

    text = ("set(CMAKE_CUDA_ARCHITECTURES 80 70)\nlist(APPEND CMAKE_CUDA_ARCHITECTURES 90)\n"
            "list(SORT CMAKE_CUDA_ARCHITECTURES COMPARE NATURAL ORDER ASCENDING)\n"
            "list(GET CMAKE_CUDA_ARCHITECTURES 0 MIN_GPU_ARCH)\n"
            "if(CMAKE_CUDA_ARCHITECTURES STREQUAL \"80\")\nendif()\n"
            "get_target_property(found app CUDA_ARCHITECTURES)\n")
    lines = [line for line in convert_cmake(text, database).text.splitlines() if not line.startswith("# portkit: PK401")]
    assert lines[2:9] == ["  set(CMAKE_HIP_ARCHITECTURES gfx90a gfx906)", "endif()",  # inside the guard for -D
                          "list(APPEND CMAKE_HIP_ARCHITECTURES gfx942)",
                          "list(SORT CMAKE_HIP_ARCHITECTURES COMPARE NATURAL ORDER ASCENDING)",
                          "list(GET CMAKE_HIP_ARCHITECTURES 0 MIN_GPU_ARCH)",
                          'if(CMAKE_HIP_ARCHITECTURES STREQUAL "80")', "endif()"]
    assert lines[9] == "get_target_property(found app HIP_ARCHITECTURES)"


# tiny-cuda-nn's CMakeLists.txt: the architectures from the user's variable, the environment, a GPU query of its own,
# and the lowest or highest architecture the CUDA release supports.
VARIABLE_ARCHITECTURES = """function(DETECT_ARCHITECTURES OUT)
\tset(${OUT} "75;86" PARENT_SCOPE)
endfunction()
set(LATEST_SUPPORTED_CUDA_ARCHITECTURE 90)
if (DEFINED ENV{TCNN_CUDA_ARCHITECTURES})
\tset(CMAKE_CUDA_ARCHITECTURES $ENV{TCNN_CUDA_ARCHITECTURES})
elseif (TCNN_CUDA_ARCHITECTURES)
\tset(CMAKE_CUDA_ARCHITECTURES ${TCNN_CUDA_ARCHITECTURES})
else()
\tDETECT_ARCHITECTURES(CMAKE_CUDA_ARCHITECTURES)
endif()
if (NOT CMAKE_CUDA_ARCHITECTURES)
\tlist(APPEND CMAKE_CUDA_ARCHITECTURES ${LATEST_SUPPORTED_CUDA_ARCHITECTURE})
endif()
list(APPEND CMAKE_CUDA_ARCHITECTURES ${CMAKE_CUDA_ARCHITECTURES})
"""


def test_architectures_from_variables_are_marked(database) -> None:
    """tiny-cuda-nn: `set(CMAKE_CUDA_ARCHITECTURES ${TCNN_CUDA_ARCHITECTURES})`, its GPU query and
    `list(APPEND ... ${LATEST_SUPPORTED_CUDA_ARCHITECTURE})` became CMAKE_HIP_ARCHITECTURES fed NVIDIA numbers (75,
    86, 90), unmarked: hipcc got --offload-arch=86. Each is marked; the literal numbers convert rewrites are not."""
    from portkit.convert.cmake_files import convert_cmake

    result = convert_cmake(VARIABLE_ARCHITECTURES, database, target=HIP52)
    marked = [(n.input_line, n.message.split(":")[0]) for n in result.notes if n.code == "PK401"]
    assert marked == [(6, "CMAKE_CUDA_ARCHITECTURES $ENV{TCNN_CUDA_ARCHITECTURES}"),
                      (8, "CMAKE_CUDA_ARCHITECTURES ${TCNN_CUDA_ARCHITECTURES}"),
                      (10, "DETECT_ARCHITECTURES(CMAKE_CUDA_ARCHITECTURES)"),
                      (13, "CMAKE_CUDA_ARCHITECTURES ${LATEST_SUPPORTED_CUDA_ARCHITECTURE}")], result.text
    assert convert_cmake(result.text, database, target=HIP52).text == result.text


def test_architectures_given_to_cmake_win_over_the_projects(tmp_path: Path, database) -> None:
    """`cmake -DCMAKE_HIP_ARCHITECTURES=gfx942` on a converted project built for gfx1030: the project's set() hid
    the user's cache entry. The converted set() applies only where the user gave none, or where the entry is the one
    CMake's HIP language writes itself (the help string the installed CMake module gives it)."""
    from portkit.convert.cmake_files import convert_cmake
    from portkit.rules.build_facts import build_facts

    require_tool("cmake")
    modules = Path(_run(["cmake", "--system-information"], tmp_path).stdout.split('CMAKE_ROOT "')[1].split('"')[0])
    determine = (modules / "Modules" / "CMakeDetermineHIPCompiler.cmake").read_text()
    # The help string of the entry CMake's HIP language writes itself, not the user.
    default_help = re.search(r'set\(CMAKE_HIP_ARCHITECTURES "[^"]*" CACHE STRING "([^"]*)"\)', determine).group(1)
    converted = convert_cmake(VARIABLE_ARCHITECTURES + "set(CMAKE_CUDA_ARCHITECTURES 75 86)\n", database,
                              target=HIP52).text
    (tmp_path / "arch.cmake").write_text(converted + 'message("archs=${CMAKE_HIP_ARCHITECTURES}")\n')

    def architectures(*options: str) -> str:
        return _run(["cmake", *options, "-P", "arch.cmake"], tmp_path).stderr.split("archs=")[1].strip()

    assert architectures() == "gfx1030"
    assert architectures("-DCMAKE_HIP_ARCHITECTURES=gfx942") == "gfx942;gfx942"  # the list appended to itself
    # In a configure, where CMake's HIP language wrote the machine's GPUs in the cache before (emulated here with
    # its help string), the project's architectures apply, as they did over CUDA's default.
    (tmp_path / "CMakeLists.txt").write_text(
        f'cmake_minimum_required(VERSION 3.21)\nproject(p NONE)\nif(NOT DEFINED CMAKE_HIP_ARCHITECTURES)\n'
        f'  set(CMAKE_HIP_ARCHITECTURES gfx803 CACHE STRING "{default_help}")\nendif()\ninclude(arch.cmake)\n')
    assert "archs=gfx1030\n" in _run(["cmake", "-S", ".", "-B", "b1"], tmp_path).stderr
    given = _run(["cmake", "-S", ".", "-B", "b2", "-DCMAKE_HIP_ARCHITECTURES=gfx942"], tmp_path).stderr
    assert "archs=gfx942;gfx942\n" in given
    assert build_facts().cmake_architectures_default_help == default_help


def test_a_quoted_architecture_list_stays_one_argument(tmp_path: Path, database) -> None:
    """diff-gaussian-rasterization: `set_target_properties(x PROPERTIES CUDA_ARCHITECTURES "70;75;86")` became
    `HIP_ARCHITECTURES gfx906 gfx1030`, two arguments, and CMake stopped ("set_target_properties called with
    incorrect number of arguments"). A list written as one quoted argument stays one."""
    from portkit.convert.cmake_files import convert_cmake

    require_tool("cmake")
    text = ('set_target_properties(t PROPERTIES CUDA_ARCHITECTURES "70;75;86" POSITION_INDEPENDENT_CODE ON)\n'
            'set(CMAKE_CUDA_ARCHITECTURES "70;86")\n')
    converted = convert_cmake(text, database, target=HIP52).text
    assert 'HIP_ARCHITECTURES "gfx906;gfx1030" POSITION_INDEPENDENT_CODE ON' in converted, converted
    assert convert_cmake(converted, database, target=HIP52).text == converted
    (tmp_path / "a.cpp").write_text("int f() { return 0; }\n")
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.20)\nproject(p LANGUAGES CXX)\nadd_library(t STATIC a.cpp)\n" + converted
        + 'get_target_property(archs t HIP_ARCHITECTURES)\nmessage(STATUS "archs=${archs} all=${CMAKE_HIP_ARCHITECTURES}")\n')
    configured = _run(["cmake", "-S", ".", "-B", "build"], tmp_path)
    assert "archs=gfx906;gfx1030 all=gfx906;gfx1030" in configured.stdout, configured.stdout


def test_cmake_cuda_variables_become_hips_only_where_cmake_defines_them(tmp_path: Path, database) -> None:
    """`${CMAKE_CUDA_TOOLKIT_INCLUDE_DIRECTORIES}` became `${CMAKE_HIP_TOOLKIT_INCLUDE_DIRECTORIES}`, a variable CMake
    does not define. A CMAKE_CUDA_ variable becomes CMAKE_HIP_'s only where CMake's HIP language has one; the others
    stay, with a marker, as scan lists them."""
    from portkit.convert.cmake_files import convert_cmake

    require_tool("cmake")
    text = ("set(CMAKE_CUDA_STANDARD 17)\nset(CMAKE_CUDA_FLAGS_RELEASE -O3)\nset(CMAKE_CUDA_SEPARABLE_COMPILATION ON)\n"
            "message(STATUS \"dirs=${CMAKE_CUDA_TOOLKIT_INCLUDE_DIRECTORIES} std=${CMAKE_CUDA_STANDARD}\")\n")
    result = convert_cmake(text, database, target=HIP52)
    code = [line for line in result.text.splitlines() if not line.startswith("# portkit: ")]
    assert code == ["set(CMAKE_HIP_STANDARD 17)", "set(CMAKE_HIP_FLAGS_RELEASE -O3)",
                    "set(CMAKE_CUDA_SEPARABLE_COMPILATION ON)",
                    'message(STATUS "dirs=${CMAKE_CUDA_TOOLKIT_INCLUDE_DIRECTORIES} std=${CMAKE_HIP_STANDARD}")']
    assert [(n.code, n.message.split(":")[0]) for n in result.notes] == [
        ("PK403", "CMAKE_CUDA_SEPARABLE_COMPILATION"), ("PK403", "CMAKE_CUDA_TOOLKIT_INCLUDE_DIRECTORIES")]
    assert convert_cmake(result.text, database, target=HIP52).text == result.text
    (tmp_path / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.20)\nproject(p LANGUAGES NONE)\n"
                                             + result.text)
    configured = _run(["cmake", "-S", ".", "-B", "build", "--warn-uninitialized"], tmp_path)
    assert "dirs= std=17" in configured.stdout, configured.stdout
    assert "CMAKE_HIP_TOOLKIT" not in configured.stdout + configured.stderr


def test_an_option_removed_beside_another_keeps_both_markers_and_converts_once(tmp_path: Path) -> None:
    """nccl: `--ptxas-options=-maxrregcount=96 -Xcompiler /Zc:preprocessor`: the MSVC option's removal left its note's
    tag where the ptxas option's value then took it in; the tag went into the ptxas marker's text (invisible
    characters), the MSVC marker was lost, and the next convert read the tag as its own first note (a CUDA_VERSION
    marker above the ptxas one). Now both markers are written, with no tag, and converting again changes nothing."""
    require_tool("cmake")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.20)\nproject(p LANGUAGES NONE)\nif(CUDA_VERSION VERSION_LESS 12)\nendif()\n"
        'set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} --compress-mode=balance --ptxas-options=-maxrregcount=96 '
        '-Xcompiler /Zc:preprocessor")\nmessage(STATUS "flags=${CMAKE_HIP_FLAGS}")\n')
    converted = _converted_twice(tmp_path / "in", tmp_path)
    assert all(ord(char) < 0xE000 for char in converted), ascii(converted)
    markers = [line.split(":")[1].strip() for line in converted.splitlines() if line.startswith("# portkit: ")]
    assert markers == ["PK405 CUDA_VERSION", "PK403 CUDA_VERSION VERSION_LESS 12", "PK403 --ptxas-options=-maxrregcount=96",
                       "PK403 -Xcompiler /Zc"], converted
    configured = _run(["cmake", "-S", "out", "-B", "build"], tmp_path)
    assert "flags= --compress-mode=balance" in configured.stdout, configured.stdout


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
    from portkit.convert.cmake_files import convert_cmake

    text = ('list(APPEND CUDA_NVCC_FLAGS "-Xcompiler=-fno-strict-aliasing")\n'
            "set_target_properties(app PROPERTIES CUDA_SEPARABLE_COMPILATION ON)\n")
    notes = {n.message.split(":")[0]: n.message for n in convert_cmake(text, database).notes}
    assert "FindCUDA's list of nvcc options" in notes["CUDA_NVCC_FLAGS"] and "-fgpu-rdc" not in notes["CUDA_NVCC_FLAGS"]
    assert "-fgpu-rdc" in notes["CUDA_SEPARABLE_COMPILATION"]


MAKEFILE = """CUDA_HOME ?= /usr/local/cuda
NVCC = $(CUDA_HOME)/bin/nvcc
FLAGS = -O3 --threads=0 -t=0 --generate-code arch=compute_80,code=[compute_80,sm_80] --machine 64 -ccbin g++ \\
  -Xptxas -v -maxrregcount=32 --default-stream per-thread -rdc=true -std c++17 -Werror all-warnings -ptx
app: app.cu
\t$(NVCC) $(FLAGS) -arch=sm_70 -o $@ $< -lcurand -lcublasLt -lnvidia-ml -lcudadevrt -lnvToolsExt -L$(CUDA_HOME)/lib64 \\
\t  $(LIBS:%=-l%)
LIBS = cufft cupti
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

# The old FindCUDA module (warp-ctc): its variables, which find_package(hip) does not set.
FINDCUDA_CMAKE = """cmake_minimum_required(VERSION 3.10)
project(app LANGUAGES CXX)
FIND_PACKAGE(CUDA 6.5)
option(WITH_GPU "compile with CUDA." ${CUDA_FOUND})
IF (WITH_GPU)
    MESSAGE(STATUS "GPU ON (CUDA ${CUDA_VERSION})")
    CUDA_ADD_LIBRARY(app SHARED k.cu)
    TARGET_LINK_LIBRARIES(app ${CUDA_curand_LIBRARY} ${CUDA_CUBLAS_LIBRARIES} ${CUDA_cupti_LIBRARY})
    include_directories(${CUDA_INCLUDE_DIRS})
    if(CUDA_VERSION VERSION_LESS 9.0 AND CUDA_curand_LIBRARY)
        message(STATUS "old CUDA")
    endif()
ELSE()
    MESSAGE(STATUS "GPU OFF")
    add_library(app SHARED cpu.cpp)
ENDIF()
set(CUDA_HAS_FP16 ON)  # the project's own variable, whatever its name
message(STATUS "fp16 ${CUDA_HAS_FP16} $ENV{CUDA_VERSION}")
"""


def _marked_names(text: str) -> set[tuple[str, str]]:
    """(code, what) of each marker; a link flag named as the rules name the library."""
    marked = set()
    for line in text.splitlines():
        if line.strip().startswith("# portkit: "):  # indented as the line it is above
            code, rest = line.strip().removeprefix("# portkit: ").split(" ", 1)
            marked.add((code, rest.split(": ", 1)[0].removeprefix("-l")))
    return marked


# llm.c's dev/cuda/Makefile: nvcc's helper __nvcc_device_query chooses the architecture, as nvidia-smi could.
LLMC_DEVICE_QUERY = """GPU_CC = $(shell __nvcc_device_query)
ifeq ($(GPU_CC),)
  CFLAGS = -O3
else
  CFLAGS = -O3 --generate-code arch=compute_$(GPU_CC),code=sm_$(GPU_CC)
endif
SMI := $(shell nvidia-smi --query-gpu=name --format=csv,noheader)
k: k.cu
\tnvcc $(CFLAGS) k.cu -o k
"""


# A build script testing its arguments' count, `$#`, with nvcc after it on the line: no comment starts there.
ARGUMENT_COUNT_SCRIPT = """#!/bin/sh
# builds k.o; any argument keeps device line info
if [ $# -gt 0 ]; then nvcc -Xptxas -v -G -arch=sm_80 -c k.cu -o k.o -lcufft; else nvcc -O2 -c k.cu -o k.o; fi
"""


# nccl-tests' src/Makefile: the CUDA version read from what nvcc --version prints, a C++ standard chosen by it.
VERSION_CHECK_MAKEFILE = """NVCC ?= nvcc
CUDA_VERSION = $(strip $(shell $(NVCC) --version | grep release | sed 's/.*release //' | sed 's/\\,.*//'))
CUDA_MAJOR = $(shell echo $(CUDA_VERSION) | cut -d "." -f 1)
ifeq ($(shell test "0$(CUDA_MAJOR)" -ge 12; echo $$?),0)
  CXXSTD ?= -std=c++17
else
  CXXSTD ?= -std=c++14
endif
PLATFORM := $(shell test -n "$(NVCC)" && ${NVCC} --version 2>/dev/null | grep -c clang)
all: k.cu
\t$(NVCC) $(CXXSTD) -arch=sm_80 -c k.cu
show:
\t@echo "version=[$(CUDA_VERSION)] std=[$(CXXSTD)] clang=[$(PLATFORM)]"
"""


# nvcc's -odir: on the dependency step of `$<` convert writes -MT (no marker), on a compile a marker; g++'s stays.
OUTPUT_DIRECTORY_MAKEFILE = """build/%.o: %.cu
\tnvcc -M $< -o $(@:.o=.d) -odir build/dependencies
\tnvcc -c $< -o $@ -odir build/objects
build/%.o: %.cpp
\tg++ -c $< -o $@ -odir build/host
"""


# CMake's CUDA language in the forms convert writes as HIP's: the language's variables, a generator expression, the
# properties, .cu sources named and globbed; a CUDA library's file imported by its path (the project's IMPORTED target);
# a test of the compiler's id against nvcc's.
LANGUAGE_CMAKE = """cmake_minimum_required(VERSION 3.18)
project(p LANGUAGES CXX CUDA)
include(CheckLanguage)
check_language(CUDA)
set(CMAKE_CUDA_STANDARD 17)
set(CMAKE_CUDA_ARCHITECTURES 70 72)
set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} -DFROM_FLAGS=1 -gencode arch=compute_70,code=sm_70 -lineinfo -gencode arch=compute_72,code=sm_72")
file(GLOB KERNELS kernels/*.cu)
add_library(kernels STATIC ${KERNELS})
add_executable(app main.cpp k.cu)
target_compile_definitions(app PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:FROM_GENEX=1>)
set_target_properties(app PROPERTIES CUDA_STANDARD 17)
add_library(nccl SHARED IMPORTED)
set_target_properties(nccl PROPERTIES IMPORTED_LOCATION /usr/lib/x86_64-linux-gnu/libnccl.so.2)
target_link_libraries(app PRIVATE kernels)
if(CMAKE_CUDA_COMPILER_ID STREQUAL "NVIDIA")
  target_compile_options(app PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr>)
endif()
"""
# FindCUDA's targets, which convert writes as add_* with their sources HIP.
FINDCUDA_TARGETS_CMAKE = """cmake_minimum_required(VERSION 3.18)
project(p CXX)
find_package(CUDA REQUIRED)
cuda_add_executable(app main.cpp k.cu OPTIONS -O3)
get_target_property(standard app CUDA_STANDARD)
"""
# configure.ac's switch and prefix for the CUDA build (UCX's and hwloc's shapes), its library test.
CUDA_CONFIGURE = """AC_INIT([demo], [1.0])
AC_PROG_CXX
AC_ARG_ENABLE([cuda],
  [AS_HELP_STRING([--enable-cuda], [build the GPU kernels])],
  [], [enable_cuda=no])
AC_ARG_VAR([CUDA_PATH], [CUDA install prefix])
AC_ARG_WITH([cuda], [AS_HELP_STRING([--with-cuda=DIR], [CUDA prefix])], [], [with_cuda=/usr/local/cuda])
AS_IF([test "x$enable_cuda" = xyes], [
  AC_PATH_PROG([NVCC], [nvcc], [no])
  CUDA_CPPFLAGS="-I$with_cuda/include"
  AC_CHECK_LIB([cudart], [cudaMalloc], [], [AC_MSG_ERROR([no cudart])])
])
AC_SUBST([NVCC])
AC_SUBST([CUDA_CPPFLAGS])
AC_OUTPUT
"""
GENCODE_MAKEFILE = """NVCC = nvcc
GENCODE = -gencode arch=compute_70,code=sm_70 -gencode arch=compute_72,code=sm_72 \\
  -gencode arch=compute_80,code=sm_80 \\
  -gencode arch=compute_80,code=compute_80
LIBS = /usr/local/cuda/lib64/libcudart_static.a
k.o: k.cu
\t$(NVCC) $(GENCODE) -c $< -o $@; $(NVCC) -arch=sm_72 -c $< -o again.o
"""


@pytest.mark.parametrize(("name", "text"), [("Makefile", MAKEFILE), ("CMakeLists.txt", CMAKE), ("CMakeLists.txt", FINDCUDA_CMAKE),
                                            ("CMakeLists.txt", "find_package(CUDA)\ncuda_compile_ptx(P k.cu)\n"
                                             "cuda_add_library(a k.cu OPTIONS -Xptxas -v)\ncuda_build_clean_target()\n"),
                                            ("Makefile", LLMC_DEVICE_QUERY), ("Makefile", OUTPUT_DIRECTORY_MAKEFILE),
                                            ("Makefile", VERSION_CHECK_MAKEFILE), ("CMakeLists.txt", LANGUAGE_CMAKE),
                                            ("configure.ac", CUDA_CONFIGURE), ("Makefile", GENCODE_MAKEFILE),
                                            ("build.sh", ARGUMENT_COUNT_SCRIPT)],
                         ids=["make", "cmake", "cmake-findcuda", "cmake-findcuda-commands", "make-device-query",
                              "make-output-directory", "make-version-check", "cmake-imported-library", "configure",
                              "make-library-file", "script-argument-count"])
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
    for tool in ("nvidia-smi", "__nvcc_device_query"):  # not on a ROCm machine
        assert tool not in text or ("PK411", tool) in listed


def test_a_scripts_argument_count_hides_nothing_after_it_from_scan(tmp_path: Path) -> None:
    """`if [ $# -gt 0 ]; then nvcc -Xptxas -v -G -arch=sm_80 ... -lcufft`: scan read `$#` as a comment's start (the
    build and environment analyzers blanked '#' comments in scripts as in Makefiles), so of that line it listed only
    nvcc (found with the shell's comments) and none of what convert rewrites or marks there. Now a script's comments
    are the shell's, as convert reads them; the converted script compiles for AMD."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "build.sh").write_text(ARGUMENT_COUNT_SCRIPT)
    (tmp_path / "in" / "k.cu").write_text('extern "C" __global__ void k(float *x) { x[threadIdx.x] = 1; }\n')
    listed = _scan_lines(tmp_path / "in", "build.sh")
    assert sorted(listed[3]) == ["PK100 cufft", "PK401 sm_80", "PK403 -Xptxas -v", "PK407 nvcc", "PK407 nvcc",
                                 "PK408 -G"], listed
    assert 2 not in listed  # the comment line
    _portkit_convert(tmp_path / "in", tmp_path / "out")
    converted = (tmp_path / "out" / "build.sh").read_text()
    assert "if [ $# -gt 0 ]; then hipcc -g --offload-arch=gfx90a -c k.cu -o k.o -lhipfft; else" in converted
    require_tool("hipcc")
    # -lhipfft is a link flag of a compile-only command: clang ignores it (no hipFFT here to link).
    _run(["sh", "build.sh", "debug"], tmp_path / "out", HIP_PLATFORM="amd")
    assert (tmp_path / "out" / "k.o").stat().st_size > 0


def test_cmake_forms(database) -> None:
    from portkit.convert.cmake_files import convert_cmake

    result = convert_cmake(CMAKE, database, target=HIP52).text
    for expected in ("project(app LANGUAGES CXX HIP)", "find_package(hip REQUIRED)", "  set(CMAKE_HIP_ARCHITECTURES gfx90a)",
                     'set(CMAKE_HIP_FLAGS "${CMAKE_HIP_FLAGS} -ffast-math")',
                     "set_source_files_properties(src/kernels.cu PROPERTIES LANGUAGE HIP)",
                     "target_compile_options(app PRIVATE $<$<COMPILE_LANGUAGE:HIP>: -gline-tables-only>)",
                     "target_link_libraries(app PRIVATE hip::host CUDA::cublasLt hip::hiprand)"):
        assert expected in result.splitlines(), result
    assert convert_cmake(result, database, target=HIP52).text == result
    hipcc = convert_cmake(CMAKE, database, target=HIP52, hipcc_as_cxx=True).text
    for expected in ("project(app LANGUAGES CXX)", 'set(CMAKE_CXX_FLAGS "${CMAKE_CXX_FLAGS} -ffast-math")',
                     "set_source_files_properties(src/kernels.cu PROPERTIES LANGUAGE CXX COMPILE_OPTIONS "
                     f'"-xhip;{OFFLOAD_ARCH_OPTIONS}")', f'add_link_options("{OFFLOAD_ARCH_OPTIONS}")',
                     "target_compile_options(app PRIVATE $<$<COMPILE_LANGUAGE:CXX>: -gline-tables-only>)"):
        assert expected in hipcc.splitlines(), hipcc
    assert convert_cmake(hipcc, database, target=HIP52, hipcc_as_cxx=True).text == hipcc


def test_findcuda_variables_become_find_package_hips_or_get_a_marker(database) -> None:
    """warp-ctc: find_package(CUDA) becomes find_package(hip), so FindCUDA's variables would be empty: the HIP
    package's own where it has one, the HIP library for a library's variable, a marker for the rest."""
    from portkit.convert.cmake_files import convert_cmake

    result = convert_cmake(FINDCUDA_CMAKE, database, target=HIP52)
    lines = [line for line in result.text.splitlines() if "# portkit:" not in line]
    assert lines[2:17] == [
        "find_package(hip)", 'option(WITH_GPU "compile with CUDA." ${hip_FOUND})', "IF (WITH_GPU)",
        '    MESSAGE(STATUS "GPU ON (CUDA ${CUDA_VERSION})")', "    enable_language(HIP)",
        "    add_library(app SHARED k.cu)", "    set_source_files_properties(k.cu PROPERTIES LANGUAGE HIP)",
        "    target_link_libraries(app hip::host)", "    TARGET_LINK_LIBRARIES(app hiprand hipblas ${CUDA_cupti_LIBRARY})",
        "    include_directories(${hip_INCLUDE_DIRS})",
        "    if((CUDA_VERSION AND CUDA_VERSION VERSION_LESS 9.0) AND CUDA_curand_LIBRARY)", '        message(STATUS "old CUDA")',
        "    endif()",
        "ELSE()", '    MESSAGE(STATUS "GPU OFF")']
    assert lines[-2:] == ["set(CUDA_HAS_FP16 ON)  # the project's own variable, whatever its name",
                          'message(STATUS "fp16 ${CUDA_HAS_FP16} $ENV{CUDA_VERSION}")']
    assert sorted((n.line, n.code, n.message.split(":")[0]) for n in result.notes) == [
        (7, "PK405", "CUDA_VERSION"), (13, "PK102", "CUDA_cupti_LIBRARY"),
        (18, "PK403", "CUDA_VERSION VERSION_LESS 9.0"), (18, "PK405", "CUDA_VERSION"),
        (18, "PK405", "CUDA_curand_LIBRARY")]  # lines of the converted file
    assert "hip_VERSION" in next(n.message for n in result.notes if n.line == 7)
    assert convert_cmake(result.text, database, target=HIP52).text == result.text


# colmap's cmake/FindDependencies.cmake: FindCUDA for CMake before 3.17, FindCUDAToolkit after, where the project sets
# CUDA_FOUND itself as FindCUDA would, and tests it after both.
LEGACY_AND_TOOLKIT_CMAKE = """cmake_minimum_required(VERSION 3.21)
project(demo LANGUAGES CXX)
if(LEGACY)
    find_package(CUDA QUIET)
    if(CUDA_FOUND)
        message(STATUS "legacy=found")
    endif()
else()
    find_package(CUDAToolkit QUIET)
    if(CUDAToolkit_FOUND)
        set(CUDA_FOUND ON)
    endif()
endif()
if(CUDA_FOUND)
    message(STATUS "gpu=on")
endif()
"""


def test_a_findcuda_variable_the_project_sets_too_is_hips_where_the_file_finds_the_module(tmp_path: Path, database) -> None:
    """colmap: `set(CUDA_FOUND ON)` in the FindCUDAToolkit branch made CUDA_FOUND the project's own, so its legacy
    branch's `if(CUDA_FOUND)`, right after find_package(CUDA) (now find_package(hip)), stayed CUDA's: never set, the
    branch was skipped ("Disabling CUDA support"), half converted. Where the file finds the module that sets the
    variable, its reads are find_package(hip)'s (hip_FOUND) in both branches; the set() stays the project's."""
    from portkit.convert.cmake_files import convert_cmake

    require_tool("cmake")
    result = convert_cmake(LEGACY_AND_TOOLKIT_CMAKE, database, target=HIP52)
    lines = result.text.splitlines()
    assert [lines[4], lines[10], lines[13]] == ["    if(hip_FOUND)", "        set(CUDA_FOUND ON)", "if(hip_FOUND)"], lines
    assert convert_cmake(result.text, database, target=HIP52).text == result.text
    listed = _scan_cmake(tmp_path, LEGACY_AND_TOOLKIT_CMAKE)
    assert [f for f in listed[5] if "CUDA_FOUND" in f] and [f for f in listed[14] if "CUDA_FOUND" in f], listed
    assert not [f for f in listed.get(11, []) if "CUDA_FOUND" in f], listed
    (tmp_path / "CMakeLists.txt").write_text(result.text)
    configured = _run(["cmake", "-S", ".", "-B", "build", "-DLEGACY=ON"], tmp_path).stdout
    assert "legacy=found" in configured and "gpu=on" in configured, configured


def test_a_findcuda_project_configures_with_its_gpu_option_on(tmp_path: Path) -> None:
    """warp-ctc: `option(WITH_GPU ... ${CUDA_FOUND})` was off after convert, and the project configured without
    its GPU library; now it is on and the library links hiprand. Converting the output again changes nothing."""
    source = _cmake_project(tmp_path, FINDCUDA_CMAKE.replace(" ${CUDA_cupti_LIBRARY}", ""), {
        "k.cu": "__global__ void k() {}\nvoid run() { k<<<1, 1>>>(); }\n", "cpu.cpp": "void run() {}\n"})
    _converted_twice(source, tmp_path, "--cmake-hipcc")
    configured = _run(["cmake", "-S", "out", "-B", "build", "-DCMAKE_CXX_COMPILER=hipcc"], tmp_path, HIP_PLATFORM="amd")
    assert "-- GPU ON" in configured.stdout and "GPU OFF" not in configured.stdout, configured.stdout
    link = (tmp_path / "build" / "CMakeFiles" / "app.dir" / "link.txt").read_text()
    assert " -lhiprand " in f"{link} " or "libhiprand" in link, link


def test_cuda_add_commands_in_any_case_and_inserted_lines_indented_as_their_block(database) -> None:
    """warp-ctc: CUDA_ADD_LIBRARY became `add_LIBRARY`, and its .cu file's property line was written at column 0."""
    from portkit.convert.cmake_files import convert_cmake

    text = "IF (WITH_GPU)\n    CUDA_ADD_LIBRARY(a SHARED k.cu)\n\tCuda_Add_Executable(b m.cu)\nENDIF()\n"
    result = convert_cmake(text, database, target=HIP52).text
    assert result.splitlines() == [
        "IF (WITH_GPU)", "    enable_language(HIP)", "    add_library(a SHARED k.cu)",
        "    set_source_files_properties(k.cu PROPERTIES LANGUAGE HIP)", "    target_link_libraries(a hip::host)",
        "\tadd_executable(b m.cu)", "\tset_source_files_properties(m.cu PROPERTIES LANGUAGE HIP)",
        "\ttarget_link_libraries(b hip::host)", "ENDIF()"]
    assert convert_cmake(result, database, target=HIP52).text == result


# FindCUDA's targets (thundersvm): cuda_add_library compiled the .cu sources with nvcc and linked the CUDA runtime.
FINDCUDA_TARGETS = """cmake_minimum_required(VERSION 3.10)
project(svm LANGUAGES C CXX)
find_package(CUDA REQUIRED QUIET)
file(GLOB SRC *.cpp kernel/*.cu)
list(REMOVE_ITEM SRC "${CMAKE_CURRENT_LIST_DIR}/main.cpp")
cuda_add_library(svm ${SRC})
cuda_add_executable(svm-train main.cpp)
target_link_libraries(svm-train svm)
"""
# The property lines for the .cu sources of a variable, picked out when CMake runs.
GLOBBED_CU = ["set(portkit_cu_sources ${SRC})", 'list(FILTER portkit_cu_sources INCLUDE REGEX "\\\\.cu$")',
              "set_source_files_properties(${portkit_cu_sources} PROPERTIES LANGUAGE HIP)"]


def test_findcuda_targets_get_the_hip_language_and_hip_host(database) -> None:
    """thundersvm: cuda_add_library became add_library and nothing more: CMake skipped its globbed .cu file, and g++
    compiled the .cpp files that include HIP's headers without HIP's platform define. Now the targets get what
    the CUDA language's path gives them; --cmake-hipcc makes that hipcc's C++ with -xhip."""
    from portkit.convert.cmake_files import convert_cmake

    hip = convert_cmake(FINDCUDA_TARGETS, database, target=HIP52).text
    assert hip.splitlines()[5:] == [
        "enable_language(HIP)", "add_library(svm ${SRC})", "target_link_libraries(svm hip::host)", *GLOBBED_CU,
        "add_executable(svm-train main.cpp)", "target_link_libraries(svm-train hip::host)",
        "target_link_libraries(svm-train svm)"]
    assert convert_cmake(hip, database, target=HIP52).text == hip
    hipcc = convert_cmake(FINDCUDA_TARGETS, database, target=HIP52, hipcc_as_cxx=True).text
    assert hipcc.splitlines()[5:12] == [
        "enable_language(CXX)", f'add_link_options("{OFFLOAD_ARCH_OPTIONS}")', HIPCC_CXX_OPTIONS,
        "add_library(svm ${SRC})", "target_link_libraries(svm hip::host)", *GLOBBED_CU[:2]]
    assert hipcc.splitlines()[12] == GLOBBED_CU[2].replace("LANGUAGE HIP", "LANGUAGE CXX COMPILE_OPTIONS "
                                                           f'"-xhip;{OFFLOAD_ARCH_OPTIONS}"')
    assert convert_cmake(hipcc, database, target=HIP52, hipcc_as_cxx=True).text == hipcc


def test_findcuda_targets_sources_named_kept_unseen_marked(database) -> None:
    """A list the file writes out gets its property where it is named (no second one at the target); a keyword the
    project links the target with is kept (CMake refuses both signatures on one target); a generator expression's
    variables are marked; a project that enables the language already is not enabled again."""
    from portkit.convert.cmake_files import convert_cmake

    text = ("project(p LANGUAGES CXX CUDA)\nfind_package(CUDA)\nset(KSRC k.cu)\n"
            "cuda_add_library(a ${KSRC} $<$<CONFIG:Debug>:${DEBUG_SRC}>)\ntarget_link_libraries(a PRIVATE m)\n")
    result = convert_cmake(text, database, target=HIP52)
    assert result.text.splitlines()[2:] == [
        "set(KSRC k.cu)", "set_source_files_properties(k.cu PROPERTIES LANGUAGE HIP)",
        result.text.splitlines()[4], "add_library(a ${KSRC} $<$<CONFIG:Debug>:${DEBUG_SRC}>)",
        "target_link_libraries(a PRIVATE hip::host)", "target_link_libraries(a PRIVATE m)"]
    assert [(n.code, n.message.split(":")[0]) for n in result.notes] == [("PK400", "$<$<CONFIG")]
    assert convert_cmake(result.text, database, target=HIP52).text == result.text


@pytest.mark.parametrize("sources", ["${SRC}", "mem.cpp kernel/k.cu"], ids=["glob", "named"])
def test_a_findcuda_project_builds_and_links_its_kernels_with_hipcc(sources: str, tmp_path: Path) -> None:
    """thundersvm with --cmake-hipcc: a globbed k.cu was never compiled ("undefined reference to run_scale"), and
    the link had no architecture. Now k.cu is HIP for gfx90a, and the executable links for it. Converting the output
    again changes nothing."""
    source = _cmake_project(tmp_path, FINDCUDA_TARGETS.replace("${SRC}", sources), {
        "kernel/k.cu": "__global__ void scale(float* x, float a, int n) { int i = threadIdx.x; if (i < n) x[i] *= a; }\n"
                       "void run_scale(float* x, float a, int n) { scale<<<1, 256>>>(x, a, n); }\n",
        "mem.cpp": "#include <cuda_runtime.h>\nfloat* dev_alloc(int n) { float* p = nullptr; cudaMalloc(&p, n * 4); return p; }\n",
        "main.cpp": "float* dev_alloc(int n);\nvoid run_scale(float* x, float a, int n);\n"
                    "int main() { run_scale(dev_alloc(16), 2.f, 16); return 0; }\n"})
    _converted_twice(source, tmp_path, "--cmake-hipcc")
    out = tmp_path / "out"
    _run(["cmake", "-S", ".", "-B", "build", "-DCMAKE_CXX_COMPILER=hipcc", "-DCMAKE_HIP_ARCHITECTURES=gfx90a"], out,
         HIP_PLATFORM="amd")
    built = _run(["make", "-C", "build", "VERBOSE=1"], out, HIP_PLATFORM="amd")
    compile_line = next(line for line in built.stdout.splitlines() if " -c " in line and "k.cu" in line)
    assert "-xhip --offload-arch=gfx90a" in compile_line, compile_line
    link_line = next(line for line in built.stdout.splitlines() if " -o svm-train " in f"{line} ")
    assert "--offload-arch=gfx90a" in link_line, link_line  # else hipcc asks the machine's GPU
    assert (out / "build" / "svm-train").is_file()


# FindCUDA's OPTIONS: nvcc's options for the target's .cu sources, those after a build type's name for that type only.
FINDCUDA_OPTIONS = """cmake_minimum_required(VERSION 3.10)
project(opts LANGUAGES CXX)
find_package(CUDA REQUIRED)
cuda_add_library(k k.cu STATIC OPTIONS -DSCALE=3 --use_fast_math -Xptxas -v RELEASE -DFAST DEBUG -G)
cuda_add_executable(app main.cpp OPTIONS -DUNUSED_BY_HOST)
target_link_libraries(app k)
"""


def test_findcuda_options_become_the_hip_sources_compile_options(tmp_path: Path) -> None:
    """`cuda_add_library(k k.cu OPTIONS -DSCALE=3 ...)` became `add_library(k k.cu OPTIONS -DSCALE=3 ...)`: CMake
    stopped at "Cannot find source file: OPTIONS". Now the options are the target's HIP compile options, nvcc's
    converted (-Xptxas removed, with a marker), a build type's only for it; the project builds with hipcc."""
    source = _cmake_project(tmp_path, FINDCUDA_OPTIONS, {
        "k.cu": "#if SCALE != 3 || !defined(FAST) || defined(DEBUG_ONLY)\n#error options not given\n#endif\n"
                "__global__ void scale(float* x) { x[threadIdx.x] *= SCALE; }\n"
                "void run(float* x) { scale<<<1, 32>>>(x); }\n",
        "main.cpp": "void run(float* x);\nint main() { run(nullptr); return 0; }\n"})
    converted = _converted_twice(source, tmp_path, "--cmake-hipcc")
    assert " OPTIONS " not in converted and "# portkit: PK403 -Xptxas -v:" in converted, converted
    out = tmp_path / "out"
    _run(["cmake", "-S", ".", "-B", "build", "-DCMAKE_CXX_COMPILER=hipcc", "-DCMAKE_HIP_ARCHITECTURES=gfx90a",
          "-DCMAKE_BUILD_TYPE=Release"], out, HIP_PLATFORM="amd")
    built = _run(["make", "-C", "build", "VERBOSE=1"], out, HIP_PLATFORM="amd")
    compile_line = next(line for line in built.stdout.splitlines() if " -c " in line and "k.cu" in line)
    assert "-DSCALE=3 -ffast-math" in compile_line and "-DFAST" in compile_line, compile_line
    assert "-Xptxas" not in compile_line and " -g " not in compile_line, compile_line
    assert (out / "build" / "app").is_file()


# FindCUDA's other commands, which find_package(hip) does not define.
FINDCUDA_COMMANDS = """cmake_minimum_required(VERSION 3.10)
project(cmds LANGUAGES CXX)
find_package(CUDA REQUIRED)
cuda_select_nvcc_arch_flags(ARCH_FLAGS Auto)
list(APPEND CUDA_NVCC_FLAGS ${ARCH_FLAGS})
cuda_include_directories(${CMAKE_CURRENT_SOURCE_DIR}/inc)
cuda_compile(KERNEL_OBJECTS k.cu OPTIONS -DSCALE=2 DEBUG -G)
add_executable(app main.cpp ${KERNEL_OBJECTS})
cuda_add_cublas_to_target(app)
CUDA_ADD_CUFFT_TO_TARGET(app)
cuda_build_clean_target()
"""


def test_findcuda_commands_become_hips_or_get_a_marker(database) -> None:
    """cuda_compile, cuda_include_directories, cuda_add_cublas_to_target... were left as they were, and CMake stopped
    at the first ("Unknown CMake command"). Now each becomes its HIP equivalent, or gets a PK406 marker: kept where
    the project needs another step (PTX files), removed where HIP needs nothing in its place. A command the file
    defines itself is the project's."""
    from portkit.convert.cmake_files import convert_cmake

    text = FINDCUDA_COMMANDS + ("cuda_compile_ptx(PTX_FILES k.cu)\ncuda_wrap_srcs(app PTX PTX_FILES k.cu)\n"
                                "function(cuda_compile_fatbin out)\nendfunction()\ncuda_compile_fatbin(F k.cu)\n")
    result = convert_cmake(text, database, target=HIP52)
    lines = result.text.splitlines()
    assert lines[2:6] == ["find_package(hip REQUIRED)", "find_package(hipblas REQUIRED)", "find_package(hipfft REQUIRED)",
                          lines[5]]
    assert lines[5].startswith("# portkit: PK406 cuda_select_nvcc_arch_flags: ") and lines[6] == ""
    assert lines[8:] == [
        "list(APPEND CUDA_NVCC_FLAGS ${ARCH_FLAGS})", "include_directories(${CMAKE_CURRENT_SOURCE_DIR}/inc)",
        "enable_language(HIP)", "set(KERNEL_OBJECTS k.cu)",
        "set_source_files_properties(k.cu PROPERTIES LANGUAGE HIP)",
        'set_property(SOURCE k.cu APPEND_STRING PROPERTY COMPILE_FLAGS " $<$<COMPILE_LANGUAGE:HIP>:-DSCALE=2 $<$<CONFIG:DEBUG>:-g>>")',
        "add_executable(app main.cpp ${KERNEL_OBJECTS})", "target_link_libraries(app roc::hipblas)",
        "target_link_libraries(app hip::hipfft)", lines[17], "", lines[19], "cuda_compile_ptx(PTX_FILES k.cu)",
        lines[21], "cuda_wrap_srcs(app PTX PTX_FILES k.cu)", "function(cuda_compile_fatbin out)", "endfunction()",
        "cuda_compile_fatbin(F k.cu)"]
    assert [(n.code, n.message.split(":")[0]) for n in result.notes] == [
        ("PK406", "cuda_select_nvcc_arch_flags"), ("PK403", "CUDA_NVCC_FLAGS"), ("PK406", "cuda_build_clean_target"),
        ("PK406", "cuda_compile_ptx"), ("PK406", "cuda_wrap_srcs")]
    assert convert_cmake(result.text, database, target=HIP52).text == result.text
    text = "project(p CXX)\nfile(GLOB KS k/*.cu)\ncuda_compile(OBJS ${KS} main.cu SHARED OPTIONS -DA)\n"
    globbed = convert_cmake(text, database, target=HIP52).text
    assert globbed.splitlines()[2:] == [
        "enable_language(HIP)", "set(OBJS ${KS} main.cu)", "set_source_files_properties(main.cu PROPERTIES LANGUAGE HIP)",
        *[line.replace("${SRC}", "${KS}") for line in GLOBBED_CU],
        'set_property(SOURCE main.cu ${portkit_cu_sources} APPEND_STRING PROPERTY COMPILE_FLAGS " $<$<COMPILE_LANGUAGE:HIP>:-DA>")']


def test_a_project_of_findcuda_commands_builds_with_hipcc(tmp_path: Path) -> None:
    """The commands above, converted: CMake configures (hipBLAS's and hipFFT's packages stand-ins that define the
    targets the rules give) and hipcc builds k.cu with its options and include directory, linked into app with the
    libraries' targets. Converting the output again changes nothing."""
    source = _cmake_project(tmp_path, FINDCUDA_COMMANDS, {
        "inc/factor.h": "#define FACTOR SCALE\n",
        "k.cu": "#include \"factor.h\"\n#if SCALE != 2\n#error no options\n#endif\n__global__ void k(int* x) { *x *= FACTOR; }\n"
                "int scaled(int x) { k<<<1, 1>>>(nullptr); return x * FACTOR; }\n",
        "main.cpp": "#if !defined(HIPBLAS_STANDIN) || !defined(HIPFFT_STANDIN)\n#error not linked\n"
                    "#endif\nint scaled(int x);\nint main() { return scaled(1) == 2 ? 0 : 1; }\n"})
    packages = []
    for package, target in (("hipblas", "roc::hipblas"), ("hipfft", "hip::hipfft")):
        (tmp_path / package).mkdir()
        (tmp_path / package / f"{package}-config.cmake").write_text(
            f"add_library({target} INTERFACE IMPORTED)\n"
            f"set_target_properties({target} PROPERTIES INTERFACE_COMPILE_DEFINITIONS {package.upper()}_STANDIN)\n")
        packages.append(f"-D{package}_DIR={tmp_path / package}")
    _converted_twice(source, tmp_path, "--cmake-hipcc")
    out = tmp_path / "out"
    _run(["cmake", "-S", ".", "-B", "build", "-DCMAKE_CXX_COMPILER=hipcc", "-DCMAKE_HIP_ARCHITECTURES=gfx90a",
          "-DCMAKE_BUILD_TYPE=Release", *packages], out, HIP_PLATFORM="amd")
    built = _run(["make", "-C", "build", "VERBOSE=1"], out, HIP_PLATFORM="amd")
    compile_line = next(line for line in built.stdout.splitlines() if " -c " in line and "k.cu" in line)
    assert "-DSCALE=2" in compile_line and "/inc" in compile_line and " -g " not in compile_line, compile_line
    assert (out / "build" / "app").is_file()


FINDCUDA_MACROS = """cmake_minimum_required(VERSION 3.16)
project(demo C CXX)
find_package(CUDA 5.5 QUIET)
cuda_unset_include_and_libraries()
find_cuda_helper_libs(curand)
cuda_find_library_local_first(CUDA_cusparse_LIBRARY cusparse "cusparse library")
if(NOT CUDA_FOUND)
  return()
endif()
cuda_compile(objs k.cu)
add_executable(demo main.cpp ${objs})
target_link_libraries(demo ${CUDA_curand_LIBRARY} ${CUDA_cusparse_LIBRARY})
"""


def test_a_findcuda_library_variable_read_as_a_path_becomes_the_hip_librarys_path(tmp_path: Path, database) -> None:
    """`get_filename_component(CUDA_LIB_DIR ${CUDA_CUDART_LIBRARY} PATH)` became `get_filename_component(... amdhip64
    PATH)`: the library's name where its path was read, an empty directory. A command that reads the variable as a
    path gets the HIP library's path in HIP's library directory; a link still gets the name."""
    from portkit.convert.cmake_files import convert_cmake

    require_tool("cmake")
    require_tool("hipcc")
    text = ("cmake_minimum_required(VERSION 3.16)\nproject(p CXX)\nfind_package(CUDA REQUIRED)\n"
            "get_filename_component(CUDA_LIB_DIR ${CUDA_CUDART_LIBRARY} PATH)\n"
            "get_filename_component(RAND ${CUDA_curand_LIBRARY} NAME)\n"
            "add_library(x SHARED x.cpp)\ntarget_link_libraries(x ${CUDA_CUDART_LIBRARY})\n"
            'message(STATUS "dir=${CUDA_LIB_DIR};rand=${RAND}")\n')
    converted = convert_cmake(text, database, target=HIP52).text
    assert "target_link_libraries(x amdhip64)" in converted, converted
    assert convert_cmake(converted, database, target=HIP52).text == converted
    (tmp_path / "CMakeLists.txt").write_text(converted)
    (tmp_path / "x.cpp").write_text("int f() { return 0; }\n")
    configured = _run(["cmake", "-S", ".", "-B", "build", "-DCMAKE_CXX_COMPILER=hipcc"], tmp_path, HIP_PLATFORM="amd")
    line = next(line for line in configured.stdout.splitlines() if "dir=" in line)
    directory, name = line.split("dir=")[1].split(";rand=")
    assert (Path(directory) / "libamdhip64.so").exists(), line
    assert name == "libhiprand.so", line


def test_findcuda_internal_macros_a_project_calls_become_hips_or_get_a_marker(tmp_path: Path, database) -> None:
    """caffe's Cuda.cmake calls FindCUDA's own macros: find_cuda_helper_libs(nppi) was left after find_package(CUDA)
    became find_package(hip), and CMake stopped ("Unknown CMake command"). Now a library found that way is the HIP
    one found into the same variable, a HIP-less one is marked, and the cache reset goes."""
    from portkit.convert.cmake_files import convert_cmake

    require_tool("cmake")
    require_tool("hipcc")
    marked = convert_cmake("find_cuda_helper_libs(nppi)\ncuda_find_helper_file(run_nvcc cmake)\n", database,
                           target=HIP52)
    assert [(n.code, n.message.split(": ")[0]) for n in marked.notes] == [
        ("PK406", "find_cuda_helper_libs"), ("PK406", "cuda_find_helper_file")]
    source = _cmake_project(tmp_path, FINDCUDA_MACROS, {"k.cu": "__global__ void k() {}\nvoid run() { k<<<1, 1>>>(); }\n",
                                                        "main.cpp": "void run();\nint main() { run(); return 0; }\n"})
    converted = _converted_twice(source, tmp_path, "--cmake-hipcc")
    assert "find_library(CUDA_curand_LIBRARY hiprand)" in converted, converted
    out = tmp_path / "out"
    _run(["cmake", "-S", ".", "-B", "build", "-DCMAKE_CXX_COMPILER=hipcc", "-DCMAKE_HIP_ARCHITECTURES=gfx90a"], out,
         HIP_PLATFORM="amd")
    _run(["make", "-C", "build"], out, HIP_PLATFORM="amd")
    link = (out / "build" / "CMakeFiles" / "demo.dir" / "link.txt").read_text()
    assert "libhiprand" in link and "libhipsparse" in link, link


def test_the_hip_language_is_enabled_at_file_scope_not_in_a_definition(tmp_path: Path, database) -> None:
    """caffe's Cuda.cmake: `caffe_cuda_compile` (a macro; a function alike) calls cuda_compile, and convert enabled
    the HIP language inside the definition, where CMake sets the language's variables in the function's scope only
    (enable_language must be called at file scope). Now it is enabled before the definition. Debian's CMake cannot
    enable HIP 5.2 as a language, so CMake runs the output with C in HIP's place: enabled in the function, the
    compiler is not loaded at file scope."""
    from portkit.convert.cmake_files import convert_cmake

    require_tool("cmake")
    text = ("cmake_minimum_required(VERSION 3.16)\nproject(p NONE)\nfind_package(CUDA)\n"
            "function(my_cuda_compile out)\n  # cuda_compile in a comment\n  cuda_compile(objs ${ARGN})\n"
            "  set(${out} ${objs} PARENT_SCOPE)\nendfunction()\nmy_cuda_compile(kernels k.cu)\n")
    converted = convert_cmake(text, database, target=HIP52).text
    lines = converted.splitlines()
    assert lines.index("enable_language(HIP)") == lines.index("function(my_cuda_compile out)") - 1, converted
    assert converted.count("enable_language(HIP)") == 1
    assert convert_cmake(converted, database, target=HIP52).text == converted
    runnable = converted.replace("enable_language(HIP)", "enable_language(C)").replace("find_package(hip)", "")
    (tmp_path / "CMakeLists.txt").write_text(runnable + 'message(STATUS "k=${kernels} C=${CMAKE_C_COMPILER_LOADED}")\n')
    configured = _run(["cmake", "-S", ".", "-B", "build"], tmp_path)
    assert "k=k.cu C=1" in configured.stdout, configured.stdout


def test_a_cuda_language_project_that_globs_its_sources_builds_them_as_hip(tmp_path: Path) -> None:
    """`project(... CUDA)`, `file(GLOB SRC src/*.cu src/*.cpp)`, `add_executable(app ${SRC})`: CMake's CUDA language
    compiled the globbed .cu files; HIP's takes only .hip files, and nothing gave them LANGUAGE HIP, so CMake left
    them out. Now their .cu files are picked out when CMake runs, as a FindCUDA target's are, in the project's file
    and in a subdirectory's that globs .cu files (target_sources); hipcc builds both for gfx90a. Converting the
    output again changes nothing."""
    kernels = {name: f"__global__ void {function}_k(float* x) {{ x[threadIdx.x] = 1.f; }}\n"
                     f"void {function}(float* x) {{ {function}_k<<<1, 32>>>(x); }}\n"
               for name, function in (("src/a.cu", "run_a"), ("sub/b.cu", "run_b"))}
    source = _cmake_project(tmp_path, (
        "cmake_minimum_required(VERSION 3.18)\nproject(globbed LANGUAGES CXX CUDA)\nset(CMAKE_CUDA_ARCHITECTURES 80)\n"
        "file(GLOB SRC src/*.cu src/*.cpp)\nadd_subdirectory(sub)\nadd_executable(app ${SRC})\n"
        "target_link_libraries(app sub)\n"), {
        "sub/CMakeLists.txt": "file(GLOB_RECURSE SUB_SOURCES *.cu)\nadd_library(sub STATIC)\n"
                              "target_sources(sub PRIVATE ${SUB_SOURCES})\n",
        **kernels,
        "src/main.cpp": "void run_a(float*);\nvoid run_b(float*);\nint main() { run_a(nullptr); run_b(nullptr); return 0; }\n"})
    out = _converted_builds_as_hip(source, tmp_path, ("CMakeLists.txt", "sub/CMakeLists.txt"), ("a.cu", "b.cu"))
    assert (out / "build" / "app").is_file()


def test_a_macro_of_an_included_module_builds_its_cu_sources_as_hip(tmp_path: Path) -> None:
    """colmap's COLMAP_ADD_LIBRARY, defined in the cmake/CMakeHelper.cmake its CMakeLists.txt include()s: the .cu
    files a call passes reach add_library() as the macro's argument, and the module enables no language itself, so
    nothing picked them out; CMake configured and built the library without its kernels and the link failed
    ("undefined reference to run"). The same macro in the file that enables the language worked. A module runs in
    its includer's scope: its targets' variables get their .cu files picked out too; hipcc builds the kernel for
    gfx90a and the program links. Converting the output again changes nothing."""
    source = _cmake_project(tmp_path, (
        "cmake_minimum_required(VERSION 3.18)\nproject(helped LANGUAGES CXX CUDA)\nset(CMAKE_CUDA_ARCHITECTURES 80)\n"
        "include(cmake/helper.cmake)\nMY_ADD_LIBRARY(NAME kern SRCS kern.cu host.cc)\n"
        "add_executable(app main.cpp)\ntarget_link_libraries(app kern)\n"), {
        "cmake/helper.cmake": "macro(MY_ADD_LIBRARY)\n  cmake_parse_arguments(MY \"\" \"NAME\" \"SRCS\" ${ARGN})\n"
                              "  add_library(${MY_NAME} STATIC ${MY_SRCS})\nendmacro()\n",
        "kern.cu": "__global__ void run_k(float* x) { x[threadIdx.x] = 1.f; }\nvoid run(float* x) { run_k<<<1, 32>>>(x); }\n",
        "host.cc": "void run(float*);\nvoid host(float* x) { run(x); }\n",
        "main.cpp": "void host(float*);\nint main() { host(nullptr); return 0; }\n"})
    out = _converted_builds_as_hip(source, tmp_path, ("CMakeLists.txt", "cmake/helper.cmake"), ("kern.cu",))
    assert (out / "build" / "app").is_file()


def test_cuda_language_targets_of_variables_get_their_cu_files_picked_out(database) -> None:
    """Where the file enables the language, each target's variables that the file does not fill with names written
    out; elsewhere, those a glob of .cu files fills. Not an imported target's; not a second time."""
    from portkit.convert.cmake_files import convert_cmake

    text = ("project(p LANGUAGES CXX CUDA)\nset(NAMED k.cu)\nfile(GLOB SRC *.cu)\nadd_library(a ${NAMED} ${SRC})\n"
            "add_library(b IMPORTED ${SRC})\n")
    result = convert_cmake(text, database, target=HIP52).text
    assert result.splitlines()[4:] == ["add_library(a ${NAMED} ${SRC})", *GLOBBED_CU, "add_library(b IMPORTED ${SRC})"]
    assert convert_cmake(result, database, target=HIP52).text == result
    sub = "file(GLOB K *.cu)\nfile(GLOB H *.cpp)\nadd_executable(x ${K} ${H})\n"
    assert convert_cmake(sub, database, target=HIP52).text.splitlines()[2:] == [
        "add_executable(x ${K} ${H})", *[line.replace("${SRC}", "${K}") for line in GLOBBED_CU]]
    assert convert_cmake("file(GLOB H *.cpp)\nadd_executable(x ${H})\n", database, target=HIP52).text.count("\n") == 2


def test_a_findcuda_target_of_a_glob_and_other_variables_converts_once(database) -> None:
    """Velocity-Bench's ethash-cuda: `cuda_add_library(x ${sources} ${headers})`, with only `sources` globbing .cu
    files, got its variables picked out; converted again with --cmake-hipcc (no HIP language in the file by then),
    `${sources}` alone was picked out a second time."""
    from portkit.convert.cmake_files import convert_cmake

    text = ('find_package(CUDA)\nfile(GLOB sources "*.cpp" "*.cu")\nfile(GLOB headers "*.h")\n'
            "cuda_add_library(x STATIC ${sources} ${headers})\n")
    for hipcc_as_cxx in (False, True):
        once = convert_cmake(text, database, target=HIP52, hipcc_as_cxx=hipcc_as_cxx).text
        assert once.count("set(portkit_cu_sources") == 1, once
        assert convert_cmake(once, database, target=HIP52, hipcc_as_cxx=hipcc_as_cxx).text == once


def test_converted_cmake_builds_with_hipcc_as_the_cxx_compiler(tmp_path: Path, database) -> None:
    """Debian 12's CMake 3.25 cannot use its HIP 5.2 as CMake's HIP language (docs/convert.md): the converted
    CMake builds, and links for gfx90a, with hipcc as the C++ compiler."""
    from portkit.convert.cmake_files import convert_cmake

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


def _cmake_project(tmp_path: Path, cmake_lists: str, files: dict[str, str] | None = None) -> Path:
    """tmp_path/in: a CUDA project of `cmake_lists` and `files` (path in the project -> text), which a test converts
    and then configures or builds with cmake and hipcc (it is skipped where either is missing)."""
    require_tool("cmake")
    require_tool("hipcc")
    source = tmp_path / "in"
    for name, text in {"CMakeLists.txt": cmake_lists, **(files or {})}.items():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text(text)
    return source


def _converted_twice(source: Path, tmp_path: Path, *options: str) -> str:
    """The CMakeLists.txt convert writes from `source` into tmp_path/out, once converting that output again (into
    tmp_path/again) has been seen to change nothing."""
    _portkit_convert(source, tmp_path / "out", *options)
    _portkit_convert(tmp_path / "out", tmp_path / "again", *options)
    converted = (tmp_path / "out" / "CMakeLists.txt").read_text()
    assert (tmp_path / "again" / "CMakeLists.txt").read_text() == converted
    return converted


def _portkit_convert(source: Path, out: Path, *options: str) -> None:
    subprocess.run([sys.executable, "-m", "portkit", "convert", str(source), "-o", str(out), "--rocm-version", "5.2",
                    *options], capture_output=True, check=True)


def _run(command: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env={**os.environ, **env}, timeout=600,
                            check=False)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


def test_a_gencode_in_a_cmake_string_keeps_the_string_closed(tmp_path: Path, database) -> None:
    """gpu-burn's win/CMakeLists.txt: the quote after `code=sm_${ARCH}` closes CMake's string, not the option."""
    from portkit.convert.cmake_files import convert_cmake

    text = ('cmake_minimum_required(VERSION 3.18)\nproject(t LANGUAGES CXX)\nset(ARCHS 75 80)\nset(NVCC_FLAGS "")\n'
            'foreach(ARCH IN LISTS ARCHS)\n    list(APPEND NVCC_FLAGS "-gencode=arch=compute_${ARCH},code=sm_${ARCH}")\n'
            'endforeach()\nmessage(STATUS "flags: ${NVCC_FLAGS}")\n')
    converted = convert_cmake(text, database, target=HIP52).text
    assert '    list(APPEND NVCC_FLAGS "--offload-arch=gfx90a")' in converted.splitlines()
    quoted = convert_makefile_line('F = -gencode "arch=compute_70,code=sm_70" -gencode=arch=compute_80,code=\\"sm_80\\"',
                                   database)
    assert quoted == "F = --offload-arch=gfx906 --offload-arch=gfx90a"
    require_tool("cmake")
    (tmp_path / "CMakeLists.txt").write_text(converted)
    configured = _run(["cmake", "-S", ".", "-B", "build"], tmp_path)
    assert "flags: --offload-arch=gfx90a;--offload-arch=gfx90a" in configured.stdout


def convert_makefile_line(line: str, database) -> str:
    from portkit.convert.build_files import convert_makefile

    return convert_makefile(line + "\n", database, target=HIP52).text.splitlines()[-1]


@pytest.mark.parametrize("hipcc_as_cxx", [False, True], ids=["hip", "cmake-hipcc"])
def test_a_flag_removed_inside_a_generator_expression_leaves_it_closed(hipcc_as_cxx: bool, database) -> None:
    """nccl-tests: the `>` that closes `$<...:-Xcompiler=/FS>` is CMake's, not the option's value."""
    from portkit.convert.cmake_files import convert_cmake

    text = ("target_compile_options(t PRIVATE\n    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=/FS>\n"
            "    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-fPIC>\n    $<$<COMPILE_LANGUAGE:CUDA>:-Xptxas=-v>)\n")
    result = convert_cmake(text, database, target=HIP52, hipcc_as_cxx=hipcc_as_cxx)
    language = "CXX" if hipcc_as_cxx else "HIP"
    lines = [line.strip() for line in result.text.splitlines() if not line.strip().startswith("# portkit:")]
    assert lines == ["target_compile_options(t PRIVATE", f"$<$<COMPILE_LANGUAGE:{language}>:>",
                     f"$<$<COMPILE_LANGUAGE:{language}>:-fPIC>", f"$<$<COMPILE_LANGUAGE:{language}>:>)"]
    assert sorted(n.message.split(":")[0] for n in result.notes) == ["-Xcompiler=/FS", "-Xptxas=-v"]


def test_host_options_quoted_inside_a_cmake_string_lose_their_quotes(database) -> None:
    """darknet: `\\"` inside a CMake string quotes nvcc's value; kept, hipcc would get the flags as one argument."""
    from portkit.convert.cmake_files import convert_cmake

    text = ('set(HOSTFLAGS "--compiler-options \\" -fPIC -Wall \\"")\n'
            'set(MORE "-Wno-deprecated-declarations -Xcompiler=\\"${COMMA_LIST}\\"")\n')
    assert convert_cmake(text, database, target=HIP52).text.splitlines() == [
        'set(HOSTFLAGS " -fPIC -Wall ")', 'set(MORE "-Wno-deprecated-declarations ${COMMA_LIST}")']


CHECKED_LANGUAGE = """cmake_minimum_required(VERSION 3.18)
project(t LANGUAGES CXX)
include(CheckLanguage)
check_language(CUDA)
if(NOT CMAKE_CUDA_COMPILER)
  message(FATAL_ERROR "CUDA not found")
endif()
enable_language(CUDA)
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES all-major)
endif()
if(70 IN_LIST CMAKE_CUDA_ARCHITECTURES OR
   80 IN_LIST CMAKE_CUDA_ARCHITECTURES)
  message(STATUS "half")
endif()
add_executable(t k.cu)
"""


def test_check_language_follows_the_language_and_all_major_becomes_the_target(database) -> None:
    """darknet: check_language(CUDA) then `if(NOT CMAKE_CUDA_COMPILER)`; `all-major` and NVIDIA numbers in a test of
    the architectures mean nothing to HIP."""
    from portkit.convert.cmake_files import convert_cmake

    hip = convert_cmake(CHECKED_LANGUAGE, database, target=HIP52)
    lines = hip.text.splitlines()
    for expected in ("check_language(HIP)", "if(NOT CMAKE_HIP_COMPILER)", "    set(CMAKE_HIP_ARCHITECTURES gfx90a)"):
        assert expected in lines
    assert [(n.code, n.message.split(":")[0]) for n in hip.notes] == [("PK401", "70 IN_LIST CMAKE_CUDA_ARCHITECTURES")]
    assert lines[lines.index("if(70 IN_LIST CMAKE_HIP_ARCHITECTURES OR") - 1].startswith("# portkit: PK401")
    hipcc = convert_cmake(CHECKED_LANGUAGE, database, target=HIP52, hipcc_as_cxx=True).text.splitlines()
    for expected in ("check_language(CXX)", "if(NOT CMAKE_CXX_COMPILER)"):
        assert expected in hipcc
    assert convert_cmake(hip.text, database, target=HIP52).text == hip.text


def test_cmake_hipcc_project_configures_builds_and_targets_its_architecture(tmp_path: Path) -> None:
    """--cmake-hipcc: the sources are CXX, so CMake passes no HIP architectures itself: the compile and link lines
    get them from HIP_ARCHITECTURES (no HCC_AMDGPU_TARGET, no GPU: hipcc would ask rocm_agent_enumerator). The
    project also checks for the compiler (darknet), quotes host options (darknet) and drops an MSVC option from a
    generator expression (nccl-tests)."""
    _cmake_project(tmp_path, CHECKED_LANGUAGE.replace("all-major", "80")
                   + 'set(HOSTFLAGS "--compiler-options \\" -fPIC -Wall \\"")\nset(CMAKE_CUDA_FLAGS "${HOSTFLAGS} ${CMAKE_CUDA_FLAGS}")\n'
                   + "target_compile_options(t PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=/FS>)\n",
                   {"k.cu": "__global__ void k() {}\nint main() { k<<<1, 1>>>(); return 0; }\n"})
    _portkit_convert(tmp_path / "in", tmp_path / "out", "--cmake-hipcc")
    out = tmp_path / "out"
    _run(["cmake", "-S", ".", "-B", "build", "-DCMAKE_CXX_COMPILER=hipcc"], out, HIP_PLATFORM="amd")
    built = _run(["make", "-C", "build", "VERBOSE=1"], out, HIP_PLATFORM="amd")
    compile_line = next(line for line in built.stdout.splitlines() if " -c " in line and "k.cu" in line)
    assert "--offload-arch=gfx90a" in compile_line and " -fPIC -Wall " in compile_line, compile_line
    link_line = next(line for line in built.stdout.splitlines() if line.rstrip().endswith("-o t"))
    assert "--offload-arch=gfx90a" in link_line, link_line
    assert (out / "build" / "t").is_file()


def test_makefile_nvcc_test_architecture_expression_and_fatbin(tmp_path: Path, database) -> None:
    """gpu-burn: `$(wildcard /usr/bin/nvcc)` asks whether nvcc is installed, `-arch=compute_$(subst ...)` is an
    architecture, and `-fatbin` makes a code object for the driver API (hipcc: --genco)."""
    make = ('ifneq ("$(wildcard /usr/bin/nvcc)", "")\nCUDAPATH ?= /usr\nendif\nCOMPUTE ?= 75\n'
            "NVCCFLAGS += -arch=compute_$(subst .,,${COMPUTE})\n\n%.fatbin: %.cu\n"
            "\t$(CUDAPATH)/bin/nvcc $(NVCCFLAGS) -fatbin $< -o $@\n")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "Makefile").write_text(make)
    (tmp_path / "in" / "k.cu").write_text('extern "C" __global__ void k(float *x) { x[threadIdx.x] = 1; }\n')
    _portkit_convert(tmp_path / "in", tmp_path / "out")
    converted = (tmp_path / "out" / "Makefile").read_text()
    assert converted == (f'{HIP_PLATFORM_LINES}ifneq ("$(shell command -v hipcc)", "")\nCUDAPATH ?= /usr\nendif\nCOMPUTE ?= 75\n'
                         "NVCCFLAGS += --offload-arch=gfx90a\n\n%.fatbin: %.cu\n\thipcc $(NVCCFLAGS) --genco $< -o $@\n")
    script = "if [ -x /usr/local/cuda/bin/nvcc ]; then echo y; fi\n"
    from portkit.convert.build_files import convert_makefile
    assert convert_makefile(script, database, shell=True).text == 'if [ -x "$(command -v hipcc)" ]; then echo y; fi\n'
    require_tool("hipcc")
    _run(["make", "k.fatbin"], tmp_path / "out")
    assert (tmp_path / "out" / "k.fatbin").read_bytes().startswith(b"__CLANG_OFFLOAD_BUNDLE__")
    assert "CUDAPATH = /usr" in _run(["make", "-pn", "k.fatbin"], tmp_path / "out", HIP_PLATFORM="amd").stdout


def test_a_makefiles_shell_calls_run_hipcc_for_amd_and_a_version_read_from_nvccs_output_is_marked(tmp_path: Path) -> None:
    """GNU make 4.3 does not export HIP_PLATFORM to $(shell ...): hipcc run there, where nvcc is installed too, hands
    the job to nvcc. Each such command gets the Makefile's HIP_PLATFORM; the environment or the command line still
    chooses. The version read from `--version | grep release` is nvcc's: hipcc's has none (a marker says so)."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "Makefile").write_text(VERSION_CHECK_MAKEFILE)
    _portkit_convert(tmp_path / "in", tmp_path / "out")
    converted = (tmp_path / "out" / "Makefile").read_text()
    assert "CUDA_VERSION = $(strip $(shell HIP_PLATFORM=$(HIP_PLATFORM) $(NVCC) --version | grep release" in converted
    assert 'PLATFORM := $(shell test -n "$(NVCC)" && HIP_PLATFORM=$(HIP_PLATFORM) ${NVCC} --version' in converted
    assert "$(shell echo $(CUDA_VERSION)" in converted  # runs no compiler
    assert [m for m in _marked_names(converted) if m[0] == "PK403"] == [("PK403", "$(NVCC) --version")]
    _portkit_convert(tmp_path / "out", tmp_path / "again")
    assert (tmp_path / "again" / "Makefile").read_text() == converted
    require_tool("hipcc")
    require_tool("make")
    environment = {name: value for name, value in os.environ.items() if name != "HIP_PLATFORM"}
    shown = subprocess.run(["make", "-s", "show"], cwd=tmp_path / "out", capture_output=True, text=True, env=environment,
                           timeout=300, check=True).stdout
    assert shown == "version=[] std=[-std=c++14] clang=[1]\n"  # HIP_PLATFORM=amd: hipcc is clang
    assert _run(["make", "-s", "show"], tmp_path / "out", HIP_PLATFORM="nvidia").stdout.endswith("clang=[0]\n")


def test_shell_calls_run_hipcc_for_amd_where_an_included_makefile_sets_hip_platform(tmp_path: Path) -> None:
    """`include ../common.mk`, whose `NVCC ?= nvcc` convert makes hipcc with `export HIP_PLATFORM ?= amd` above it:
    the including Makefile's `$(shell $(NVCC) ...)` got no HIP_PLATFORM (only a Makefile setting it itself counted),
    so GNU make 4.3 ran hipcc there in NVIDIA mode. A HIP_PLATFORM an included project file sets (directly, or
    through a file it includes, named from where make runs) counts too."""
    (tmp_path / "in" / "app").mkdir(parents=True)
    (tmp_path / "in" / "common.mk").write_text("include compiler.mk\nNVCCFLAGS ?= -O2\n")
    (tmp_path / "in" / "app" / "compiler.mk").write_text("NVCC ?= nvcc\n")
    (tmp_path / "in" / "app" / "Makefile").write_text(
        "include ../common.mk\nPLATFORM := $(shell $(NVCC) --version 2>/dev/null | grep -c clang)\n"
        "show:\n\t@echo \"clang=[$(PLATFORM)]\"\n")
    _portkit_convert(tmp_path / "in", tmp_path / "out")
    converted = (tmp_path / "out" / "app" / "Makefile").read_text()
    assert "PLATFORM := $(shell HIP_PLATFORM=$(HIP_PLATFORM) $(NVCC) --version 2>/dev/null | grep -c clang)" in converted
    assert (tmp_path / "out" / "app" / "compiler.mk").read_text() == f"{HIP_PLATFORM_LINES}NVCC ?= hipcc\n"
    _portkit_convert(tmp_path / "out", tmp_path / "again")
    assert (tmp_path / "again" / "app" / "Makefile").read_text() == converted
    # An included file that does not set it: no prefix (the Makefile's $(HIP_PLATFORM) would be empty).
    (tmp_path / "in" / "app" / "compiler.mk").write_text("NVCC ?= hipcc\n")
    _portkit_convert(tmp_path / "in", tmp_path / "plain")
    assert "HIP_PLATFORM" not in (tmp_path / "plain" / "app" / "Makefile").read_text()
    require_tool("hipcc")
    require_tool("make")
    environment = {name: value for name, value in os.environ.items() if name != "HIP_PLATFORM"}
    shown = subprocess.run(["make", "-s", "show"], cwd=tmp_path / "out" / "app", capture_output=True, text=True,
                           env=environment, timeout=300, check=True).stdout
    assert shown == "clang=[1]\n"  # HIP_PLATFORM=amd: hipcc is clang


def test_makefile_of_ptx_per_architecture_builds_code_objects(tmp_path: Path, database) -> None:
    """mumax3's cuda/Makefile: `-std=c++03` (HIP's headers need C++11), `-arch=compute_$$cc -code=sm_$$cc` in a shell
    loop over compute capabilities, and `-ptx`, which loads like a code object (hipcc: --genco, not a link)."""
    make = ("NVCC = nvcc\nCUDA_CC = 50 70\nNVCCFLAGS = -std=c++03 -ptx\nCXXFLAGS = -std=c++98\n\nall: k.ptx\n\n"
            "k.ptx: k.cu\n\tfor cc in $(CUDA_CC); do \\\n"
            "\t    $(NVCC) $(NVCCFLAGS) -arch=compute_$$cc -code=sm_$$cc $< -o k_$$cc.ptx ;\\\n\tdone\n\ttouch k.ptx\n\n"
            "host.o: host.cpp\n\t$(CXX) $(CXXFLAGS) -c $<\n")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "Makefile").write_text(make)
    (tmp_path / "in" / "k.cu").write_text(
        'extern "C" __global__ void scale(float *x, float a, int n) {\n'
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) x[i] *= a;\n}\n")
    _portkit_convert(tmp_path / "in", tmp_path / "out")
    converted = (tmp_path / "out" / "Makefile").read_text()
    assert converted == (
        f"{HIP_PLATFORM_LINES}NVCC = hipcc\nCUDA_CC = 50 70\n"
        "# portkit: PK403 -ptx: the file written is an AMD code object (hipModuleLoad or hipModuleLoadData loads it), "
        "not PTX text: a step that reads or embeds the PTX as text needs a look.\n"
        "NVCCFLAGS = -std=c++11 --genco\nCXXFLAGS = -std=c++98\n\nall: k.ptx\n\nk.ptx: k.cu\n"
        "# portkit: PK401 for cc in $(CUDA_CC): the loop's values are NVIDIA architectures for -arch/-code; AMD GPUs are "
        "gfx names (gfx90a, gfx942), so each pass now builds the same --offload-arch targets: loop over gfx names given "
        "to --offload-arch, or build once.\n"
        "\tfor cc in $(CUDA_CC); do \\\n\t    $(NVCC) $(NVCCFLAGS) --offload-arch=gfx90a $< -o k_$$cc.ptx ;\\\n"
        "\tdone\n\ttouch k.ptx\n\nhost.o: host.cpp\n\t$(CXX) $(CXXFLAGS) -c $<\n")
    from portkit.convert.build_files import convert_makefile
    assert convert_makefile(converted, database, target=HIP52).text == converted
    require_tool("hipcc")
    _run(["make"], tmp_path / "out", HIP_PLATFORM="amd")
    for cc in ("50", "70"):
        assert (tmp_path / "out" / f"k_{cc}.ptx").read_bytes().startswith(b"__CLANG_OFFLOAD_BUNDLE__")  # no executable


@pytest.mark.parametrize(("line", "expected", "offload_arch"), [
    ("F = -arch=compute_$$cc -code=sm_$$cc", "F = --offload-arch=gfx90a", ()),
    ("F = -arch=sm_$${cc}", "F = --offload-arch=gfx90a", ()),
    ("F = -gencode arch=compute_$$cc,code=sm_$$cc", "F = --offload-arch=gfx90a", ()),
    ("F = --gpu-architecture=compute_$(CC) --gpu-code=sm_$$cc", "F = --offload-arch=gfx90a", ()),
    ("F = -arch=compute_$$cc -code=sm_$$cc", "F = --offload-arch=gfx906 --offload-arch=gfx90a", ("gfx906", "gfx90a")),
    ("F = -march=$$cc -DARCH=sm_$$cc", "F = -march=$$cc -DARCH=sm_$$cc", ()),  # no nvcc architecture option
    ("F = $$arch -arch", "F = $$arch -arch", ()),
], ids=["recipe", "braces", "gencode", "long-names", "targets", "host-march", "no-value"])
def test_an_architecture_of_a_shell_variable_is_the_offload_targets(line: str, expected: str,
                                                                    offload_arch: tuple[str, ...], database) -> None:
    """`$$cc` in a recipe (`$cc`, `${cc}` in a script) holds an NVIDIA architecture, as `$(CC)` does: the option becomes
    the --offload-arch targets."""
    from portkit.convert.build_files import convert_makefile

    assert convert_makefile(line + "\n", database, offload_arch, target=HIP52).text == expected + "\n"
    script = convert_makefile(line.replace("$$", "$") + "\n", database, offload_arch, shell=True, target=HIP52).text
    assert script == expected.replace("$$", "$") + "\n"


def test_a_loop_over_nvidia_architectures_is_marked(database) -> None:
    """A loop's values fed to -arch/-code are NVIDIA architectures; a loop over sources is no such loop."""
    from portkit.convert.build_files import convert_makefile

    make = ("all:\n\tfor cc in $(CUDA_CC); do \\\n\t  nvcc -arch=compute_$$cc -code=sm_$$cc -c k.cu -o k_$$cc.o; \\\n"
            "\tdone\n\tfor f in $(SRC); do nvcc -arch=sm_80 -c $$f; done\n")
    result = convert_makefile(make, database, target=HIP52)
    assert [(n.line, n.code, n.message.split(":")[0]) for n in result.notes] == [(5, "PK401", "for cc in $(CUDA_CC)")]
    assert "\tfor f in $(SRC); do hipcc --offload-arch=gfx90a -c $$f; done\n" in result.text
    assert convert_makefile(result.text, database, target=HIP52).text == result.text
    script = "for arch in 70 80\ndo\n  nvcc -gencode arch=compute_${arch},code=sm_${arch} -c k.cu\ndone\n"
    notes = convert_makefile(script, database, shell=True, target=HIP52).notes
    assert [(n.line, n.code, n.message.split(":")[0]) for n in notes] == [(2, "PK401", "for arch in 70 80")]


@pytest.mark.parametrize(("text", "expected"), [
    ("NVCCFLAGS = -std=c++03\nk: k.cu\n\t$(NVCC) $(NVCCFLAGS) -c $<\n", "NVCCFLAGS = -std=c++11\n"),
    ("F = --std c++03 \\\n  -O3\nk: k.cu\n\t$(NVCC) $(F) -c $<\n", "F = -std=c++11 \\\n  -O3\n"),
    ("K = -std=gnu++98\nF = $(K) -O3\nk: k.cu\n\t$(NVCC) $(F) -c $<\n", "K = -std=gnu++11\n"),  # through F
    ("CUCC ?= /usr/local/cuda/bin/nvcc\nF = -std=c++03\nk: k.cu\n\t$(CUCC) $F -c $<\n", "F = -std=c++11\n"),
    ("k: k.cu\n\tg++ -std=c++98 -c h.cpp && nvcc -std=c++03 -c k.cu\n",
     "\tg++ -std=c++98 -c h.cpp && hipcc -std=c++11 -c k.cu\n"),
    ("CXXFLAGS = -std=c++98\nh.o: h.cpp\n\t$(CXX) $(CXXFLAGS) -c $<\n", "CXXFLAGS = -std=c++98\n"),  # g++'s
    ("NVCCFLAGS = -std=c++14\nk: k.cu\n\t$(NVCC) $(NVCCFLAGS) -c $<\n", "NVCCFLAGS = -std=c++14\n"),
], ids=["flags-variable", "continued", "nested-variable", "compiler-variable", "one-command", "host", "c++14"])
def test_a_standard_before_cxx11_is_raised_where_hipcc_gets_it(text: str, expected: str, database) -> None:
    """HIP's headers need C++11: `-std=c++03` for hipcc becomes `-std=c++11`; the host compiler's stays its own."""
    from portkit.convert.build_files import convert_makefile

    result = convert_makefile(text, database, target=HIP52).text
    assert expected in result, result
    assert "portkit:" not in result
    assert convert_makefile(result, database, target=HIP52).text == result


def test_a_standard_before_cxx11_in_scripts_and_cmake(database) -> None:
    from portkit.convert.build_files import convert_makefile
    from portkit.convert.cmake_files import convert_cmake

    script = 'FLAGS="-std=c++03 -O2"\nHOST="-std=c++98"\nnvcc $FLAGS -c k.cu\ng++ $HOST -c h.cpp\n'
    assert convert_makefile(script, database, shell=True, target=HIP52).text == (
        'FLAGS="-std=c++11 -O2"\nHOST="-std=c++98"\nhipcc $FLAGS -c k.cu\ng++ $HOST -c h.cpp\n')
    cmake = ('set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} -std=c++03")\nset(CMAKE_CXX_FLAGS "-std=c++98")\n'
             "target_compile_options(t PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-std=c++03> $<$<COMPILE_LANGUAGE:CUDA>:-std=c++03>)\n")
    assert convert_cmake(cmake, database, target=HIP52).text == (
        'set(CMAKE_HIP_FLAGS "${CMAKE_HIP_FLAGS} -std=c++11")\nset(CMAKE_CXX_FLAGS "-std=c++98")\n'
        "target_compile_options(t PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-std=c++03> $<$<COMPILE_LANGUAGE:HIP>:-std=c++11>)\n")


def test_host_compiles_given_cuda_headers_get_the_hip_platform(tmp_path: Path, database) -> None:
    """gpu-burn, darknet: g++ builds host files with CUDA's include directory; they include HIP's runtime header now,
    which stops without the platform hipcc defines by itself."""
    gxx = require_tool("g++")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "Makefile").write_text(
        "CFLAGS = -O2 -I/usr/local/cuda/include\nLDFLAGS = -L/usr/local/cuda/lib64 -lcudart\n"
        f"app: host.o\n\t{gxx} -o $@ $^ $(LDFLAGS)\n%.o: %.cpp\n\t{gxx} $(CFLAGS) -c $<\n")
    (tmp_path / "in" / "host.cpp").write_text(
        "#include <cuda_runtime.h>\nint main() { void *p; cudaMalloc(&p, 16); cudaFree(p); return 0; }\n")
    _portkit_convert(tmp_path / "in", tmp_path / "out")
    converted = (tmp_path / "out" / "Makefile").read_text()
    assert "CFLAGS = -O2 -I/usr/local/cuda/include -D__HIP_PLATFORM_AMD__\n" in converted
    assert convert_makefile_line("F += -I${CUDAPATH}/include -I$(CUDA_HOME)/include/", database) == \
        "F += -I${CUDAPATH}/include -D__HIP_PLATFORM_AMD__ -I$(CUDA_HOME)/include/ -D__HIP_PLATFORM_AMD__"
    require_tool("hipcc")  # HIP's headers
    _run(["make"], tmp_path / "out")
    assert (tmp_path / "out" / "app").is_file()


def test_library_names_held_in_make_variables(tmp_path: Path, database) -> None:
    """nccl-tests: `-l$(CUDARTLIB)` and `$(LIBRARIES:%=-l%)` link what the variables name."""
    from portkit.convert.build_files import convert_makefile

    make = ("CUDARTLIB ?= cudart\nLIBRARIES += nccl\nEXTRA = cublasLt cudadevrt m\nOTHER = cudart\n"
            "NVLDFLAGS := -l$(CUDARTLIB) $(LIBRARIES:%=-l%) $(addprefix -l,$(EXTRA))\nall:\n\t@echo $(NVLDFLAGS)\n")
    result = convert_makefile(make, database, target=HIP52)
    assert result.text.splitlines()[:6] == [
        "CUDARTLIB ?= amdhip64", "LIBRARIES += rccl",
        "# portkit: PK104 cublasLt: hipblaslt needs HIP 5.5.0 or newer; upgrade ROCm or rewrite.",
        "# portkit: PK102 cudadevrt: Drop the library once no kernel launches kernels.",
        "EXTRA = cublasLt  m", "OTHER = cudart"]  # OTHER is no library
    assert convert_makefile(result.text, database, target=HIP52).text == result.text
    (tmp_path / "Makefile").write_text(result.text)
    assert _run(["make", "-s"], tmp_path).stdout.split() == ["-lamdhip64", "-lrccl", "-lcublasLt", "-lm"]


# caffe's Makefile, cut down: its settings come from Makefile.config, which the user copies from the
# Makefile.config.example the project ships; libraries are linked from a variable of names; `$(Q)` is make's quiet `@`.
CAFFE_MAKEFILE = """CONFIG_FILE := Makefile.config
include $(CONFIG_FILE)
LIBRARIES := cudart curand
LDFLAGS += $(foreach library,$(LIBRARIES),-l$(library))
build/%.o: %.cu
\t@mkdir -p $(@D)
\t$(Q)$(CUDA_DIR)/bin/nvcc $(CUDA_ARCH) -M $< -o ${@:.o=.d} -odir $(@D)
\t$(Q)$(CUDA_DIR)/bin/nvcc $(CUDA_ARCH) -c $< -o $@
app: build/k.o
\t$(CUDA_DIR)/bin/nvcc $^ -o $@ $(LDFLAGS)
"""
CAFFE_CONFIG = "CUDA_DIR := /usr/local/cuda\nCUDA_ARCH := -gencode arch=compute_80,code=sm_80\nQ ?= @\n"


def test_a_config_makefile_libraries_listed_in_a_variable_and_nvcc_options_of_the_dependency_step(tmp_path: Path) -> None:
    """caffe: `include $(CONFIG_FILE)` names Makefile.config, whose template Makefile.config.example is a makefile too;
    `$(foreach library,$(LIBRARIES),-l$(library))` links the names in LIBRARIES; nvcc's -odir (clang reads `-o dir`)
    becomes the -MT of the target it named; `$(Q)` before nvcc's path stays. The converted tree builds with make and hipcc."""
    require_tool("hipcc")
    require_tool("make")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "Makefile").write_text(CAFFE_MAKEFILE)
    (tmp_path / "in" / "Makefile.config.example").write_text(CAFFE_CONFIG)
    (tmp_path / "in" / "k.cu").write_text("#include <curand_kernel.h>\n__global__ void k(float* x) { x[0] = 1.0f; }\n"
                                          "int main() { float* x; cudaMalloc(&x, 4); k<<<1, 1>>>(x); return 0; }\n")
    scan = subprocess.run([sys.executable, "-m", "portkit", "scan", str(tmp_path / "in"), "--format", "json",
                           "--rocm-version", "5.2", "--no-cache"], capture_output=True, text=True, check=False)
    found = {(Path(f["path"]).name, f["line"], f["name"]) for f in json.loads(scan.stdout)["findings"]}
    assert {("Makefile", 3, "cudart"), ("Makefile", 3, "curand"),
            ("Makefile.config.example", 1, "/usr/local/cuda"), ("Makefile.config.example", 2, "sm_80")} <= found, found
    odir = [f["code"] for f in json.loads(scan.stdout)["findings"] if f["name"] == "-odir $(@D)"]
    assert odir == ["PK408"], odir  # convert writes it as -MT: an edit, nothing to do
    _portkit_convert(tmp_path / "in", tmp_path / "out")
    out = tmp_path / "out"
    makefile = (out / "Makefile").read_text()
    assert "LIBRARIES := amdhip64 hiprand\n" in makefile
    assert "\t$(Q)hipcc $(CUDA_ARCH) -M $< -o ${@:.o=.d} -MT $(@D)/$(basename $(notdir $<)).o\n" in makefile
    config = (out / "Makefile.config.example").read_text()
    assert "CUDA_ARCH := --offload-arch=gfx90a\n" in config and "# portkit: PK404 /usr/local/cuda: " in config
    (out / "Makefile.config").write_text(config)  # what the user does
    result = _run(["make", "app"], out, HIP_PLATFORM="amd")
    assert result.stdout.splitlines()[-1].startswith("hipcc build/k.o -o app ")  # the compiles are quiet: $(Q)
    assert (out / "app").is_file() and (out / "build" / "k.d").read_text().startswith("build/k.o:")


def test_findcuda_target_options_reach_its_cu_sources_only(tmp_path: Path) -> None:
    """`cuda_add_library(k k.cu host.cpp OPTIONS -DKERNEL_ONLY)` with --cmake-hipcc: the options became the target's
    `$<COMPILE_LANGUAGE:CXX>` options, and host.cpp, C++ too there, got them. FindCUDA gives OPTIONS to nvcc's .cu
    sources only: now they are those sources' compile flags, named or picked out of a variable."""
    kernel = ("#if !defined(KERNEL_ONLY) || !defined(FAST)\n#error options not given\n#endif\n"
              "__global__ void {0}(float* x) {{ x[threadIdx.x] = 1.f; }}\n")
    host = "#ifdef KERNEL_ONLY\n#error nvcc's options reached a host source\n#endif\nint {0}() {{ return 0; }}\n"
    source = _cmake_project(tmp_path, (
        "cmake_minimum_required(VERSION 3.10)\nproject(p LANGUAGES CXX)\nfind_package(CUDA REQUIRED)\n"
        "set(MORE more.cu more_host.cpp)\n"
        "cuda_add_library(k STATIC k.cu host.cpp ${MORE} OPTIONS -DKERNEL_ONLY RELEASE -DFAST)\n"), {
        "k.cu": kernel.format("k"), "more.cu": kernel.format("more"),
        "host.cpp": host.format("host"), "more_host.cpp": host.format("more_host")})
    _converted_twice(source, tmp_path, "--cmake-hipcc")
    out = tmp_path / "out"
    _run(["cmake", "-S", ".", "-B", "build", "-DCMAKE_CXX_COMPILER=hipcc", "-DCMAKE_HIP_ARCHITECTURES=gfx90a",
          "-DCMAKE_BUILD_TYPE=Release"], out, HIP_PLATFORM="amd")
    built = _run(["make", "-C", "build", "VERBOSE=1"], out, HIP_PLATFORM="amd")
    compiles = [line for line in built.stdout.splitlines() if " -c " in line]
    assert len(compiles) == 4 and all(("-DKERNEL_ONLY" in line) == (".cu" in line) for line in compiles), compiles


def test_cuda_compile_options_get_hipccs_rewrites(tmp_path: Path, database) -> None:
    """cuda_compile's OPTIONS became the source's COMPILE_FLAGS, which translate_flags did not read as hipcc's: nvcc's
    `-std=c++03` stayed (HIP's headers need C++11) and hipcc stopped. Now the flags name the HIP language, and hipcc's
    rewrites apply; COMPILE_FLAGS, not COMPILE_OPTIONS, whose `SHELL:` CMake 3.25 leaves unexpanded for a source."""
    from portkit.convert.cmake_files import convert_cmake

    require_tool("cmake")
    require_tool("hipcc")
    text = ("cmake_minimum_required(VERSION 3.10)\nproject(p LANGUAGES CXX)\nfind_package(CUDA REQUIRED)\n"
            'cuda_compile(OBJS k.cu OPTIONS -std=c++03 -Xcompiler "-DHOST_A -DHOST_B" DEBUG -G)\n'
            "add_executable(app main.cpp ${OBJS})\n")
    hip = convert_cmake(text, database, target=HIP52).text
    assert ('set_property(SOURCE k.cu APPEND_STRING PROPERTY COMPILE_FLAGS '
            '" $<$<COMPILE_LANGUAGE:HIP>:-std=c++11 -DHOST_A -DHOST_B $<$<CONFIG:DEBUG>:-g>>")') in hip.splitlines()
    (tmp_path / "CMakeLists.txt").write_text(convert_cmake(text, database, target=HIP52, hipcc_as_cxx=True).text)
    (tmp_path / "k.cu").write_text("#if !defined(HOST_A) || !defined(HOST_B)\n#error options not given\n#endif\n"
                                   "#include <hip/hip_runtime.h>\n__global__ void k() {}\n"
                                   "int run() { k<<<1, 1>>>(); return 0; }\n")
    (tmp_path / "main.cpp").write_text("int run();\nint main() { return run(); }\n")
    _run(["cmake", "-S", ".", "-B", "build", "-DCMAKE_CXX_COMPILER=hipcc", "-DCMAKE_HIP_ARCHITECTURES=gfx90a"],
         tmp_path, HIP_PLATFORM="amd")
    built = _run(["make", "-C", "build", "VERBOSE=1"], tmp_path, HIP_PLATFORM="amd")
    compile_line = next(line for line in built.stdout.splitlines() if " -c " in line and "k.cu" in line)
    assert "-std=c++11 -DHOST_A -DHOST_B" in compile_line and "c++03" not in compile_line, compile_line
    assert (tmp_path / "build" / "app").is_file()


def test_a_cuda_version_the_project_parses_from_a_string_is_its_own(tmp_path: Path, database) -> None:
    """NCCL-style `string(REGEX MATCH "^[0-9]+\\.[0-9]+" CUDA_VERSION "${...}")` sets the project's own CUDA_VERSION
    from a string, as set() does: its uses got FindCUDA's PK405 marker. Now they are the project's (scan agrees); a
    file that reads FindCUDA's version without setting it still gets the marker."""
    from portkit.convert.cmake_files import convert_cmake

    require_tool("cmake")
    text = ('cmake_minimum_required(VERSION 3.10)\nproject(p LANGUAGES CXX)\nset(NVCC_REPORT "release 12.4, V12.4.131")\n'
            'string(REGEX MATCH "[0-9]+\\\\.[0-9]+" CUDA_VERSION "${NVCC_REPORT}")\n'
            'string(REGEX REPLACE "\\\\..*" "" CUDA_VERSION_MAJOR "${CUDA_VERSION}")\n'
            'message(STATUS "parsed ${CUDA_VERSION} major ${CUDA_VERSION_MAJOR}")\n')
    converted = convert_cmake(text, database, target=HIP52)
    assert converted.text == text and not converted.notes, converted.text
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "CMakeLists.txt").write_text(text)
    (tmp_path / "in" / "Reads.cmake").write_text("if(CUDA_VERSION VERSION_LESS 9.0)\nendif()\n")
    scan = subprocess.run([sys.executable, "-m", "portkit", "scan", str(tmp_path / "in"), "--format", "json",
                           "--rocm-version", "5.2", "--no-cache"], capture_output=True, text=True, check=False)
    found = {(Path(f["path"]).name, f["code"]) for f in json.loads(scan.stdout)["findings"]}
    assert ("CMakeLists.txt", "PK405") not in found and ("Reads.cmake", "PK405") in found, found
    read = convert_cmake("if(CUDA_VERSION VERSION_LESS 9.0)\nendif()\n", database, target=HIP52)
    assert [(n.code, n.message.split(":")[0]) for n in read.notes] == [("PK403", "CUDA_VERSION VERSION_LESS 9.0"),
                                                                       ("PK405", "CUDA_VERSION")]
    configured = _run(["cmake", "-S", "in", "-B", "build"], tmp_path)
    assert "parsed 12.4 major 12" in configured.stdout


def test_a_library_found_local_first_that_hip_lacks_is_marked(tmp_path: Path, database) -> None:
    """`cuda_find_library_local_first(VAR nppi "doc")` became a plain find_library of nppi, unmarked, though HIP has no
    NPP. Now a library the rules give a HIP one is that one (nvidia-ml: rocm_smi64, a name find_library's word rename
    missed); one without is marked (PK406, which scan lists too); CMake configures the result."""
    from portkit.convert.cmake_files import convert_cmake

    require_tool("cmake")
    text = ("cmake_minimum_required(VERSION 3.10)\nproject(p LANGUAGES CXX)\n"
            'cuda_find_library_local_first(CUDA_nppi_LIBRARY nppi "NPP library")\n'
            'cuda_find_library_local_first(CUDA_nvml_LIBRARY nvidia-ml "NVML library")\n'
            'message(STATUS "npp=${CUDA_nppi_LIBRARY}")\n')
    converted = convert_cmake(text, database, target=HIP52)
    lines = converted.text.splitlines()
    assert lines[2].startswith("# portkit: PK406 cuda_find_library_local_first: ")
    assert lines[3:5] == ['find_library(CUDA_nppi_LIBRARY nppi "NPP library")',
                          'find_library(CUDA_nvml_LIBRARY rocm_smi64 "NVML library")']
    assert convert_cmake(converted.text, database, target=HIP52).text == converted.text
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "CMakeLists.txt").write_text(text)
    scan = subprocess.run([sys.executable, "-m", "portkit", "scan", str(tmp_path / "in"), "--format", "json",
                           "--rocm-version", "5.2", "--no-cache"], capture_output=True, text=True, check=False)
    found = {(f["line"], f["code"]) for f in json.loads(scan.stdout)["findings"]}
    assert (3, "PK406") in found, found
    (tmp_path / "CMakeLists.txt").write_text(converted.text)
    configured = _run(["cmake", "-S", ".", "-B", "build"], tmp_path)
    assert "npp=CUDA_nppi_LIBRARY-NOTFOUND" in configured.stdout


def test_nvccs_path_goes_whole_after_other_variables_and_a_quiet_prefix_stays(tmp_path: Path, database) -> None:
    """`$(DESTDIR)$(PREFIX)/bin/nvcc` became `$(DESTDIR)hipcc` (only the variable before /bin/nvcc went): with DESTDIR
    set, make ran a hipcc in no directory. Now the path's variables go with it; a quiet prefix before it (`$(Q)`, the
    rules' names or one the file sets to `@`) stays. The converted Makefile builds with hipcc."""
    from portkit.convert.build_files import convert_makefile

    require_tool("hipcc")
    require_tool("make")
    text = ("DESTDIR = /staging\nPREFIX = /opt/nvidia\nAT = @\nMUTE ?= @\nARCH = -arch=sm_80\n"
            "app: k.o main.o\n\t$(Q)$(DESTDIR)$(PREFIX)/bin/nvcc $(ARCH) $^ -o $@\n"
            "k.o: k.cu\n\t$(MUTE)$(DESTDIR)$(CUDA_HOME)/bin/nvcc $(ARCH) -c $< -o $@\n"
            "main.o: main.cu\n\t$(AT)${DESTDIR}${PREFIX}/bin/nvcc $(ARCH) -c $< -o $@\n")
    converted = convert_makefile(text, database, target=HIP52).text
    assert converted.splitlines()[7:] == [
        "app: k.o main.o", "\t$(Q)hipcc $(ARCH) $^ -o $@", "k.o: k.cu", "\t$(MUTE)hipcc $(ARCH) -c $< -o $@",
        "main.o: main.cu", "\t$(AT)hipcc $(ARCH) -c $< -o $@"], converted
    (tmp_path / "Makefile").write_text(converted)
    (tmp_path / "k.cu").write_text("#include <hip/hip_runtime.h>\n__global__ void k() {}\nvoid run() { k<<<1, 1>>>(); }\n")
    (tmp_path / "main.cu").write_text("void run();\nint main() { run(); return 0; }\n")
    built = _run(["make", "app"], tmp_path, HIP_PLATFORM="amd")
    assert built.stdout == "hipcc --offload-arch=gfx90a k.o main.o -o app\n", built.stdout  # MUTE and AT are `@`
    assert (tmp_path / "app").is_file()


def test_nvccs_output_directory_of_the_dependency_step_becomes_the_rules_target(tmp_path: Path, database) -> None:
    """nvcc's `-odir DIR` with -M names the dependency rule's target DIR/NAME.o (`nvcc -M src/k.cu -odir build` writes
    `build/k.o : src/k.cu`); clang has no -odir, so it went with a marker and make's rule for build/k.o got a .d file
    for k.o. In a Makefile recipe of `$<` it is now `-MT DIR/$(basename $(notdir $<)).o`; elsewhere the marker stays."""
    from portkit.convert.build_files import convert_makefile

    require_tool("hipcc")
    require_tool("make")
    text = ("build/%.o: src/%.cu\n\t@mkdir -p $(@D)\n\tnvcc -arch=sm_80 -M $< -o $(@:.o=.d) -odir $(@D)\n"
            "\tnvcc -arch=sm_80 -c $< -o $@ -odir $(@D)\n")
    converted = convert_makefile(text, database, target=HIP52).text
    assert converted.splitlines()[4] == "\thipcc --offload-arch=gfx90a -M $< -o $(@:.o=.d) -MT $(@D)/$(basename $(notdir $<)).o"
    assert converted.splitlines()[5].startswith("# portkit: PK403 -odir $(@D): ")  # no -M: nvcc ignores it
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "k.cu").write_text("#include <hip/hip_runtime.h>\n__global__ void k() {}\n")
    (tmp_path / "Makefile").write_text(converted)
    _run(["make", "build/k.o"], tmp_path, HIP_PLATFORM="amd")
    assert (tmp_path / "build" / "k.d").read_text().startswith("build/k.o: src/k.cu"), (tmp_path / "build" / "k.d").read_text()


CUDATOOLKIT_CMAKE = """cmake_minimum_required(VERSION 3.18)
project(p LANGUAGES CXX)
find_package(CUDAToolkit REQUIRED)
message(STATUS "toolkit ${CUDAToolkit_VERSION} at ${CUDAToolkit_TARGET_DIR} ${CUDAToolkit_CUPTI_INCLUDE_DIR}")
add_custom_command(OUTPUT k.fatbin COMMAND "${CUDAToolkit_NVCC_EXECUTABLE}" -fatbin ${CMAKE_CURRENT_SOURCE_DIR}/k.cu -o k.fatbin
                   DEPENDS k.cu)
add_executable(app main.cpp k.fatbin)
target_include_directories(app PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
target_link_directories(app PRIVATE ${CUDAToolkit_LIBRARY_DIR})
target_link_libraries(app PRIVATE cuda)
"""


def test_find_cudatoolkits_variables_become_hips_or_get_a_marker(tmp_path: Path) -> None:
    """gpu-burn: find_package(CUDAToolkit) became find_package(hip) but ${CUDAToolkit_NVCC_EXECUTABLE} stayed, empty:
    CMake configured and the fatbin's command ran nothing. find_package(hip)'s variable of the same meaning is written
    (hipcc, the include, library and bin directories); a version or the toolkit's root gets a marker, as any other
    CUDAToolkit_* variable, and scan lists the same. The converted project builds its code object with hipcc."""
    _cmake_project(tmp_path, CUDATOOLKIT_CMAKE, {"k.cu": 'extern "C" __global__ void k(float* x) { x[threadIdx.x] = 1.f; }\n',
                                                 "main.cpp": "int main() { return 0; }\n"})
    scan = subprocess.run([sys.executable, "-m", "portkit", "scan", str(tmp_path / "in"), "--format", "json",
                           "--rocm-version", "5.2", "--no-cache"], capture_output=True, text=True, check=True)
    listed = {(f["code"], f["name"]) for f in json.loads(scan.stdout)["findings"] if f["code"] == "PK405"}
    _portkit_convert(tmp_path / "in", tmp_path / "out")
    converted = (tmp_path / "out" / "CMakeLists.txt").read_text()
    assert 'COMMAND "${hip_HIPCC_EXECUTABLE}" --genco ' in converted
    assert "${hip_INCLUDE_DIRS}" in converted and "${hip_LIB_INSTALL_DIR}" in converted
    assert {name for code, name in _marked_names(converted) if code == "PK405"} == {
        "CUDAToolkit_VERSION", "CUDAToolkit_TARGET_DIR", "CUDAToolkit_CUPTI_INCLUDE_DIR"}
    assert listed == {("PK405", "CUDAToolkit_VERSION"), ("PK405", "CUDAToolkit_TARGET_DIR"),
                      ("PK405", "CUDAToolkit_CUPTI_INCLUDE_DIR")}
    _run(["cmake", "-S", "out", "-B", "build"], tmp_path, HIP_PLATFORM="amd")
    _run(["make", "-C", "build"], tmp_path, HIP_PLATFORM="amd")
    assert (tmp_path / "build" / "k.fatbin").read_bytes().startswith(b"__CLANG_OFFLOAD_BUNDLE__")


CCCL_CMAKE = """cmake_minimum_required(VERSION 3.21)
project(p LANGUAGES CXX CUDA)
find_package(CUDAToolkit REQUIRED)
find_package(CCCL CONFIG REQUIRED HINTS ${CUDAToolkit_LIBRARY_DIR}/cmake)
find_package(Thrust CONFIG QUIET)
thrust_create_target(Thrust HOST CPP DEVICE CUDA)
add_executable(app k.cu)
target_link_libraries(app PRIVATE CCCL::CCCL Thrust)
"""


def test_cccls_packages_and_targets_become_rocms(tmp_path: Path, database) -> None:
    """xgboost: find_package(CCCL|Thrust CONFIG) and thrust_create_target(... DEVICE CUDA) stayed, unmarked, and the
    converted tree stopped at configure. ROCm's packages are found instead (once each, REQUIRED and QUIET kept), the
    targets linked are theirs (roc::rocthrust, hip::hipcub) and thrust_create_target's an INTERFACE library linking
    rocThrust: the tree configures (with stand-in packages of ROCm's targets: rocThrust and hipCUB are not installed
    here). libcudacxx has no HIP package: marked."""
    from portkit.convert.cmake_files import convert_cmake

    _cmake_project(tmp_path, CCCL_CMAKE, {"k.cu": "int main() { return 0; }\n"})
    _portkit_convert(tmp_path / "in", tmp_path / "out", "--cmake-hipcc")
    converted = (tmp_path / "out" / "CMakeLists.txt").read_text()
    assert [line for line in converted.splitlines() if line.startswith("find_package")] == [
        "find_package(hip REQUIRED)", "find_package(rocthrust REQUIRED)", "find_package(hipcub REQUIRED)"]
    assert "add_library(Thrust INTERFACE)\ntarget_link_libraries(Thrust INTERFACE roc::rocthrust)\n" in converted
    assert "target_link_libraries(app PRIVATE roc::rocthrust hip::hipcub Thrust)" in converted
    for package, target in (("rocthrust", "roc::rocthrust"), ("hipcub", "hip::hipcub")):
        (tmp_path / package).mkdir()
        (tmp_path / package / f"{package}-config.cmake").write_text(f"add_library({target} INTERFACE IMPORTED)\n")
    _run(["cmake", "-S", "out", "-B", "build", "-DCMAKE_CXX_COMPILER=hipcc", f"-Drocthrust_DIR={tmp_path / 'rocthrust'}",
          f"-Dhipcub_DIR={tmp_path / 'hipcub'}"], tmp_path, HIP_PLATFORM="amd")
    marked = convert_cmake("find_package(libcudacxx CONFIG QUIET)\ntarget_link_libraries(a libcudacxx::libcudacxx)\n",
                           database, target=HIP52)
    assert [(n.code, n.message.split(": ")[0]) for n in marked.notes] == [
        ("PK102", "libcudacxx"), ("PK102", "libcudacxx::libcudacxx")]
    # colmap: find_package(CUDA QUIET) lost its QUIET.
    assert convert_cmake("find_package(CUDA QUIET)\n", database, target=HIP52).text == "find_package(hip QUIET)\n"


def test_a_converted_makefile_builds_with_hipcc_where_nvcc_is_installed_too(tmp_path: Path, database) -> None:
    """hipcc on a machine with nvcc too handed the job to nvcc ("Unknown option '--offload-arch'") unless the user set
    HIP_PLATFORM=amd: the Makefile sets it, and the environment still chooses."""
    require_tool("hipcc")
    require_tool("make")
    source = tmp_path / "in"
    source.mkdir()
    (source / "k.cu").write_text("__global__ void fill(int *p) { p[threadIdx.x] = 1; }\n"
                                 "int main() { int *p; cudaMalloc(&p, 4); fill<<<1, 1>>>(p); return 0; }\n")
    (source / "Makefile").write_text("# the kernel\nNVCC = nvcc\n\nk: k.cu\n\t$(NVCC) -arch=sm_80 -o $@ $<\n\n"
                                     "platform:\n\t@echo $$HIP_PLATFORM\n")
    _portkit_convert(source, tmp_path / "out")
    out = tmp_path / "out"
    makefile = (out / "Makefile").read_text()
    assert makefile.startswith("# the kernel\n# hipcc builds for AMD GPUs even where nvcc is installed too\n"
                               "export HIP_PLATFORM ?= amd\nNVCC = hipcc\n"), makefile
    _portkit_convert(out, tmp_path / "again")
    assert (tmp_path / "again" / "Makefile").read_text() == makefile
    environment = {k: v for k, v in os.environ.items() if k != "HIP_PLATFORM"}
    built = subprocess.run(["make", "k"], cwd=out, capture_output=True, text=True, env=environment, timeout=600)
    assert built.returncode == 0 and (out / "k").exists(), built.stdout + built.stderr
    chosen = subprocess.run(["make", "-s", "platform"], cwd=out, capture_output=True, text=True, check=True,
                            env={**environment, "HIP_PLATFORM": "nvidia"}).stdout
    assert chosen == "nvidia\n"


# A Makefile and a build script that run nvcc by name, by path (after a quiet prefix, which stays) and as a shell
# default; the nvcc in comments is no command.
NVCC_MAKEFILE = """# the program: nvcc compiles the kernels and links
NVCC = nvcc
Q ?= @
app: k.o main.o
\t$(NVCC) -arch=sm_80 -o $@ k.o main.o
k.o: k.cu
\tnvcc -O2 -arch=sm_80 -c k.cu -o k.o
main.o: main.cpp
\t$(CXX) -O2 -c main.cpp -o main.o
again.o: k.cu
\t$(Q)$(TOOLKIT)/bin/nvcc -arch=sm_80 -c k.cu -o again.o  # nvcc by its path
"""
NVCC_SCRIPT = """#!/bin/sh
# builds the kernel with nvcc
"${NVCC:-nvcc}" -arch=sm_80 -c k.cu -o script.o
echo "$# arguments" && nvcc --version
"""


def test_scan_lists_each_nvcc_convert_writes_as_hipcc_and_the_port_links(tmp_path: Path) -> None:
    """A bare nvcc (`NVCC = nvcc`, a recipe's `nvcc -c`, a script's) was renamed hipcc by convert, but scan listed
    nothing ("build items 0"), nor a script's -arch=sm_80, which convert rewrites too. Now each nvcc convert writes
    as hipcc is a PK407 item where it is written, a script's architectures PK401s, and the port compiles and links
    with the real make and hipcc for gfx90a, where nvcc is installed too."""
    source = tmp_path / "in"
    source.mkdir()
    (source / "Makefile").write_text(NVCC_MAKEFILE)
    (source / "build.sh").write_text(NVCC_SCRIPT)
    (source / "k.cu").write_text("__global__ void fill(int *p) { p[threadIdx.x] = 1; }\n"
                                 "int run() { int *p; cudaMalloc(&p, 4); fill<<<1, 1>>>(p); return cudaFree(p); }\n")
    (source / "main.cpp").write_text("int run();\nint main() { return run(); }\n")
    scan = subprocess.run([sys.executable, "-m", "portkit", "scan", str(source), "--format", "json", "--rocm-version",
                           "5.2", "--no-cache"], capture_output=True, text=True, check=True)
    report = json.loads(scan.stdout)
    listed = sorted((Path(f["path"]).name, f["line"], f["column"], f["name"]) for f in report["findings"]
                    if f["code"] == "PK407")
    assert listed == [("Makefile", 2, 8, "nvcc"), ("Makefile", 7, 2, "nvcc"), ("Makefile", 11, 6, "$(TOOLKIT)/bin/nvcc"),
                      ("build.sh", 3, 10, "nvcc"), ("build.sh", 4, 24, "nvcc")], listed
    architectures = sorted((Path(f["path"]).name, f["line"]) for f in report["findings"] if f["code"] == "PK401")
    assert architectures == [("Makefile", 5), ("Makefile", 7), ("Makefile", 11), ("build.sh", 3)], architectures
    assert report["summary"]["environment"] == len(listed) + len(architectures)
    out = tmp_path / "out"
    _portkit_convert(source, out)
    makefile, script = (out / "Makefile").read_text(), (out / "build.sh").read_text()
    assert makefile.startswith(NVCC_MAKEFILE.splitlines()[0] + "\n" + HIP_PLATFORM_LINES)
    converted = {"Makefile": makefile.replace(HIP_PLATFORM_LINES, "").splitlines(), "build.sh": script.splitlines()}
    for name, line, column, _ in listed:  # each nvcc listed is hipcc now, where scan said; the others are comments'
        assert converted[name][line - 1][column - 1:].startswith("hipcc"), converted[name][line - 1]
    left = [line for text in converted.values() for line in text if "nvcc" in line]
    assert left == [NVCC_MAKEFILE.splitlines()[0], "\t$(Q)hipcc --offload-arch=gfx90a -c k.cu -o again.o  # nvcc by its path",
                    "# builds the kernel with nvcc"], left
    require_tool("hipcc")
    require_tool("make")
    environment = {k: v for k, v in os.environ.items() if k != "HIP_PLATFORM"}
    built = subprocess.run(["make", "app", "again.o", "TOOLKIT=/usr"], cwd=out, capture_output=True, text=True,
                           env=environment, timeout=600)
    assert built.returncode == 0 and (out / "app").exists(), built.stdout + built.stderr
    for obj in ("k.o", "again.o"):
        assert offload_targets(out / obj)[1:] == ["hipv4-amdgcn-amd-amdhsa--gfx90a"]  # after the host's entry


def test_tests_for_two_nvcc_paths_that_became_one_for_hipcc_are_marked(database) -> None:
    """gpu-burn: `ifneq ("$(wildcard /usr/bin/nvcc)", "")` ... `else ifneq ("$(wildcard /usr/local/cuda/bin/nvcc)",
    "")` both test for hipcc now; the second branch can never be taken."""
    from portkit.convert.build_files import convert_makefile

    text = ('ifneq ("$(wildcard /usr/bin/nvcc)", "")\nCUDAPATH ?= /usr\n'
            'else ifneq ("$(wildcard /usr/local/cuda/bin/nvcc)", "")\nCUDAPATH ?= /opt/cuda\nendif\n'
            'ifdef DEBUG\nX = 1\nelse ifneq ("$(wildcard /usr/local/cuda/bin/nvcc)", "")\nX = 2\nendif\n')
    lines = convert_makefile(text, database, target=HIP52).text.splitlines()
    marked = [n for n, line in enumerate(lines) if line.startswith("# portkit: PK404 else ifneq")]
    assert [lines[n + 1] for n in marked] == ['else ifneq ("$(shell command -v hipcc)", "")'], lines
    assert lines[marked[0] - 2] == 'ifneq ("$(shell command -v hipcc)", "")', lines


def test_host_sources_hipcc_compiles_keep_g_plus_pluss_narrowing_warning(tmp_path: Path) -> None:
    """cudpp with --cmake-hipcc: a host .cpp, which g++ built with a -Wnarrowing warning (nvcc: #2361-D), went through
    hipcc's clang, where narrowing in a braced initializer is an error; the C++ sources hipcc compiles keep it a
    warning."""
    source = _cmake_project(tmp_path, (
        "cmake_minimum_required(VERSION 3.18)\nproject(app LANGUAGES CXX CUDA)\nadd_executable(app main.cpp k.cu)\n"), {
        "k.cu": "__global__ void k() {}\nvoid run() { k<<<1, 1>>>(); }\n",
        "main.cpp": "struct S { char bit; };\nvoid run();\n"
                    "int main(int argc, char **) { S s = { argc & 1 ? 1 : 0 }; run(); return s.bit; }\n"})
    converted = _converted_twice(source, tmp_path, "--cmake-hipcc")
    out = tmp_path / "out"
    assert converted.splitlines()[3] == HIPCC_CXX_OPTIONS
    _run(["cmake", "-S", ".", "-B", "build", "-DCMAKE_CXX_COMPILER=hipcc", "-DCMAKE_HIP_ARCHITECTURES=gfx90a"], out,
         HIP_PLATFORM="amd")
    built = _run(["make", "-C", "build"], out, HIP_PLATFORM="amd")
    assert "[-Wc++11-narrowing]" in built.stdout + built.stderr  # a warning still, as g++'s was
    assert (out / "build" / "app").is_file()


def test_a_library_a_cxx_target_links_by_name_becomes_the_hip_target_g_plus_plus_compiles_with(tmp_path: Path) -> None:
    """A C++-only project's `target_link_libraries(app PRIVATE cuda)` became `amdhip64`, which gives no compile
    definitions: g++ stopped at HIP's headers in main.cpp without __HIP_PLATFORM_AMD__. With the package found it is
    hip::host now; find_library() still looks for the library's file."""
    source = _cmake_project(tmp_path, (
        "cmake_minimum_required(VERSION 3.18)\nproject(p LANGUAGES CXX)\nfind_package(CUDAToolkit REQUIRED)\n"
        "find_library(DRIVER cuda)\nadd_executable(app main.cpp)\ntarget_link_libraries(app PRIVATE cuda)\n"),
        {"main.cpp": "#include <cuda.h>\nint main() { return cuInit(0); }\n"})
    _portkit_convert(source, tmp_path / "out")
    out = tmp_path / "out"
    converted = (out / "CMakeLists.txt").read_text()
    assert converted.splitlines()[3:] == ["find_library(DRIVER amdhip64)", "add_executable(app main.cpp)",
                                          "target_link_libraries(app PRIVATE hip::host)"], converted
    _run(["cmake", "-S", ".", "-B", "build"], out)
    _run(["make", "-C", "build"], out)
    assert (out / "build" / "app").is_file()


def test_c_sources_of_a_target_linking_the_runtime_by_name_get_the_hip_platform(tmp_path: Path) -> None:
    """`target_link_libraries(demo PRIVATE cudart)` with no CUDA package: it becomes amdhip64, a name, which gives
    no compile definitions, and gcc stopped at the HIP runtime header main.c includes now (`#error "Must define
    exactly one of __HIP_PLATFORM_AMD__..."`). The target gets what hip::host would give, in the link's scope, as
    a Makefile's host compile does; converting again adds nothing. Built with cmake and make (hipcc as C++)."""
    source = _cmake_project(tmp_path, (
        "cmake_minimum_required(VERSION 3.21)\nproject(demo C CXX CUDA)\nadd_executable(demo main.c k.cu)\n"
        "target_link_libraries(demo PRIVATE cudart)\n"), {
        "main.c": "#include <cuda_runtime.h>\nvoid launch(float *d);\n"
                  "int main(void) { float *d; cudaMalloc((void **)&d, 4); launch(d); return 0; }\n",
        "k.cu": "#include <cuda_runtime.h>\n__global__ void k(float *d) { d[0] = 1.f; }\n"
                'extern "C" void launch(float *d) { k<<<1, 1>>>(d); }\n'})
    out, again = tmp_path / "out", tmp_path / "again"
    _portkit_convert(source, out, "--cmake-hipcc")
    converted = (out / "CMakeLists.txt").read_text()
    assert converted.endswith("target_link_libraries(demo PRIVATE amdhip64)\n"
                              "target_compile_definitions(demo PRIVATE __HIP_PLATFORM_AMD__)\n"), converted
    _portkit_convert(out, again, "--cmake-hipcc")
    assert (again / "CMakeLists.txt").read_text() == converted
    _run(["cmake", "-S", ".", "-B", "build", "-DCMAKE_CXX_COMPILER=hipcc", "-DCMAKE_HIP_ARCHITECTURES=gfx90a"], out,
         HIP_PLATFORM="amd")
    _run(["make", "-C", "build"], out, HIP_PLATFORM="amd")
    assert (out / "build" / "demo").is_file()


def test_a_cuda_compiler_version_test_is_marked_not_made_clangs(tmp_path: Path, database) -> None:
    """`if(CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.0)` became CMAKE_HIP_COMPILER_VERSION, clang's version
    (15 here), so the converted project took CUDA 12's path silently (xgboost's trial). It stays, marked, and reads
    empty under HIP: the test is false, as for any CUDA release HIP is not."""
    from portkit.convert.cmake_files import convert_cmake

    require_tool("cmake")
    text = ("if(CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.0)\n  message(STATUS \"path=cuda12\")\n"
            "else()\n  message(STATUS \"path=older\")\nendif()\n")
    result = convert_cmake(text, database, target=HIP52)
    code = [line for line in result.text.splitlines() if not line.startswith("# portkit: ")]
    assert code == text.splitlines()
    assert [(n.code, n.message.split(":")[0]) for n in result.notes] == [("PK403", "CMAKE_CUDA_COMPILER_VERSION")]
    assert "clang's version" in result.text
    # What CMake's HIP language sets (clang's version), given here: Debian's HIP has no hip-lang CMake package.
    (tmp_path / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.21)\nproject(p LANGUAGES NONE)\n"
                                             + result.text)
    configured = _run(["cmake", "-S", ".", "-B", "build", "-DCMAKE_HIP_COMPILER_VERSION=15.0.0"], tmp_path)
    assert "path=older" in configured.stdout, configured.stdout


def test_the_cuda_compiler_version_generator_expression_is_marked_and_listed(tmp_path: Path, database) -> None:
    """`$<CUDA_COMPILER_VERSION>` stayed as written, unmarked and unlisted: empty in the HIP project, so
    `$<VERSION_GREATER_EQUAL:$<CUDA_COMPILER_VERSION>,12.0>` silently took the older CUDA's path. It stays (HIP's would
    be clang's version, not a CUDA release), with the PK403 marker CMAKE_CUDA_COMPILER_VERSION gets, and scan lists it."""
    from portkit.convert.cmake_files import convert_cmake

    require_tool("cmake")
    text = ("add_library(app INTERFACE)\n"
            'file(GENERATE OUTPUT v.txt CONTENT "new=$<VERSION_GREATER_EQUAL:$<CUDA_COMPILER_VERSION>,12.0>" TARGET app)\n')
    result = convert_cmake(text, database, target=HIP52)
    assert [(n.input_line, n.code, n.message.split(":")[0]) for n in result.notes] == [
        (2, "PK403", "$<CUDA_COMPILER_VERSION>")], result.notes
    assert "clang's version" in result.notes[0].message
    assert [line for line in result.text.splitlines() if not line.startswith("# portkit: ")] == text.splitlines()
    assert convert_cmake(result.text, database, target=HIP52).text == result.text
    assert "PK403 $<CUDA_COMPILER_VERSION>" in _scan_cmake(tmp_path, text)[2]
    (tmp_path / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.21)\nproject(p LANGUAGES NONE)\n"
                                             + result.text)
    _run(["cmake", "-S", ".", "-B", "build", "-DCMAKE_HIP_COMPILER_VERSION=15.0.0"], tmp_path)
    assert (tmp_path / "build" / "v.txt").read_text() == "new=0"  # the test the marker is about: false under HIP


def test_a_version_picked_by_place_from_nvccs_output_is_marked(tmp_path: Path) -> None:
    """`$(shell $(NVCC) --version | tail -1)` (nvcc's "Build cuda_12.4.r12.4/compiler...") was not marked: only a read
    of the word `release` counted. A part taken by its place (tail, head, cut, awk, sed) is nvcc's version too, and
    hipcc prints another; a test for a word of hipcc's (`| grep -c clang`) is still none."""
    require_tool("make")
    require_tool("hipcc")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "Makefile").write_text(
        "NVCC = nvcc\nBUILD := $(shell $(NVCC) --version | tail -1)\nMAJOR := $(shell $(NVCC) --version | awk '{print $$5}')\n"
        "CLANG := $(shell $(NVCC) --version 2>/dev/null | grep -c clang)\nshow:\n\t@echo \"build=[$(BUILD)] clang=[$(CLANG)]\"\n")
    _portkit_convert(tmp_path / "in", tmp_path / "out")
    converted = (tmp_path / "out" / "Makefile").read_text()
    marked = [i for i, line in enumerate(converted.splitlines()) if line.startswith("# portkit: PK403 $(NVCC) --version")]
    assert [converted.splitlines()[i + 1].split(" :=")[0] for i in marked] == ["BUILD", "MAJOR"], converted
    listed = _scan_lines(tmp_path / "in", "Makefile")
    assert "PK403 $(NVCC) --version" in listed[2] and "PK403 $(NVCC) --version" in listed[3], listed
    assert not any(f.startswith("PK403") for f in listed.get(4, [])), listed
    shown = _run(["make", "-s", "show"], tmp_path / "out").stdout
    assert "clang=[1]" in shown and "build=[Build cuda" not in shown, shown  # hipcc's last line, not nvcc's


def test_a_test_of_the_cuda_compiler_id_against_nvidia_is_marked_and_listed(tmp_path: Path, database) -> None:
    """`if(CMAKE_CUDA_COMPILER_ID STREQUAL "NVIDIA")` became `CMAKE_HIP_COMPILER_ID STREQUAL "NVIDIA"`, silently false
    under HIP, whose compiler id is Clang: the nvcc branch was skipped unmarked. Now each such test (either operand
    order, `${...}` quoted or not) has a PK403 marker saying what to do, and scan lists it; a test against Clang, or a
    read of the id, is no such test."""
    from portkit.convert.cmake_files import convert_cmake

    require_tool("cmake")
    text = ('if(CMAKE_CUDA_COMPILER_ID STREQUAL "NVIDIA")\n  message(STATUS "branch=nvcc")\nelse()\n'
            '  message(STATUS "branch=other")\nendif()\n'
            'if(NOT "NVIDIA" STREQUAL "${CMAKE_CUDA_COMPILER_ID}")\n  message(STATUS "not-nvcc")\nendif()\n'
            'if(CMAKE_CUDA_COMPILER_ID STREQUAL "Clang")\n  message(STATUS "clang=${CMAKE_CUDA_COMPILER_ID}")\nendif()\n')
    result = convert_cmake(text, database, target=HIP52)
    assert [(n.code, n.message.split(":")[0]) for n in result.notes] == [
        ("PK403", 'CMAKE_CUDA_COMPILER_ID STREQUAL "NVIDIA"'), ("PK403", '"NVIDIA" STREQUAL "${CMAKE_CUDA_COMPILER_ID}"')]
    assert ('# portkit: PK403 CMAKE_CUDA_COMPILER_ID STREQUAL "NVIDIA": CMake\'s HIP language sets CMAKE_HIP_COMPILER_ID '
            'to Clang') in result.text, result.text
    assert 'if(CMAKE_HIP_COMPILER_ID STREQUAL "NVIDIA")' in result.text.splitlines(), result.text
    listed = _scan_cmake(tmp_path, text)
    assert 'PK403 CMAKE_CUDA_COMPILER_ID STREQUAL "NVIDIA"' in listed[1], listed
    assert 'PK403 "NVIDIA" STREQUAL "${CMAKE_CUDA_COMPILER_ID}"' in listed[6], listed
    assert not any(f.startswith("PK403") for f in listed.get(8, [])), listed
    # The marked test is false: the marker is what tells the user the nvcc branch is skipped.
    configured = _configured_as_hip(tmp_path, result.text)
    assert "branch=other" in configured and "not-nvcc" in configured and "clang=Clang" in configured, configured


def test_the_cuda_compiler_id_in_a_generator_expression_or_a_regex_is_hips_and_marked(tmp_path: Path, database) -> None:
    """`$<$<CUDA_COMPILER_ID:NVIDIA>:--expt-relaxed-constexpr>` became `$<$<CUDA_COMPILER_ID:NVIDIA>:>`: a CUDA
    generator expression in a HIP project, which CMake evaluates as false whatever it lists (Clang too), unmarked; and
    `CMAKE_CUDA_COMPILER_ID MATCHES "NVIDIA|Clang"` was not marked (only a whole value counted), though under HIP it is
    true where it was nvcc's. Now the generator expression is HIP's, and each test that holds for nvcc's NVIDIA is
    marked (PK403) and listed by scan, with the advice for a test false under HIP or true there too."""
    from portkit.convert.cmake_files import convert_cmake

    require_tool("cmake")
    text = ('add_library(app INTERFACE)\n'
            'target_compile_options(app INTERFACE $<$<CUDA_COMPILER_ID:NVIDIA>:--expt-relaxed-constexpr>)\n'
            'file(GENERATE OUTPUT ids.txt CONTENT "nvcc=$<$<CUDA_COMPILER_ID:NVIDIA>:yes> '
            'both=$<$<CUDA_COMPILER_ID:NVIDIA,Clang>:yes> id=$<CUDA_COMPILER_ID>" TARGET app)\n'
            'if(CMAKE_CUDA_COMPILER_ID MATCHES "NVIDIA|Clang")\n  message(STATUS "regex=both")\nendif()\n'
            'if(CMAKE_CUDA_COMPILER_ID MATCHES "^NV")\n  message(STATUS "regex=nvcc")\nendif()\n'
            'if(CMAKE_CUDA_COMPILER_ID MATCHES "Clang")\n  message(STATUS "regex=clang")\nendif()\n')
    result = convert_cmake(text, database, target=HIP52)
    assert not any("$<CUDA_" in line for line in result.text.splitlines() if not line.startswith("# portkit: ")), result.text
    assert sorted((n.input_line, n.code, n.message.split(": ")[0], "never NVIDIA" in n.message) for n in result.notes) == [
        (2, "PK403", "$<CUDA_COMPILER_ID:NVIDIA>", True), (3, "PK403", "$<CUDA_COMPILER_ID:NVIDIA,Clang>", False),
        (3, "PK403", "$<CUDA_COMPILER_ID:NVIDIA>", True),
        (4, "PK403", 'CMAKE_CUDA_COMPILER_ID MATCHES "NVIDIA|Clang"', False),
        (7, "PK403", 'CMAKE_CUDA_COMPILER_ID MATCHES "^NV"', True)], result.notes
    assert "target_compile_options(app INTERFACE $<$<HIP_COMPILER_ID:NVIDIA>:>)" in result.text.splitlines()
    assert convert_cmake(result.text, database, target=HIP52).text == result.text
    listed = _scan_cmake(tmp_path, text)
    assert "PK403 $<CUDA_COMPILER_ID:NVIDIA>" in listed[2] and "PK403 $<CUDA_COMPILER_ID:NVIDIA,Clang>" in listed[3]
    assert 'PK403 CMAKE_CUDA_COMPILER_ID MATCHES "NVIDIA|Clang"' in listed[4], listed
    assert 'PK403 CMAKE_CUDA_COMPILER_ID MATCHES "^NV"' in listed[7], listed
    assert not any(f.startswith("PK403") for f in listed.get(10, [])), listed
    configured = _configured_as_hip(tmp_path, result.text)
    assert "regex=both" in configured and "regex=clang" in configured and "regex=nvcc" not in configured, configured
    assert (tmp_path / "build" / "ids.txt").read_text() == "nvcc= both=yes id=Clang"


def test_a_note_below_an_added_line_keeps_its_own_input_line(tmp_path: Path, database) -> None:
    """convert adds `set_source_files_properties(k.cu ...)` after `add_library(k k.cu)`; where the lines after that were
    rewritten too, the added line took the first one's input line, and each note below it was reported one line too
    far down the original (the marker on `CMAKE_CUDA_FLAGS`'s line 4 said line 5, where scan lists line 4). Now each
    rewritten line is paired with the original line most like it, and the notes' lines are the lines scan lists."""
    from portkit.convert.cmake_files import convert_cmake

    text = ("cmake_minimum_required(VERSION 3.21)\nproject(demo LANGUAGES CXX CUDA)\nadd_library(k SHARED k.cu)\n"
            'set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} -Xptxas -v")\n'
            'message(STATUS "CUDA ${CUDAToolkit_INCLUDE_DIRS} ${CUDAToolkit_VERSION} ${CMAKE_CUDA_HOST_COMPILER}")\n'
            "target_link_libraries(k PRIVATE CUDA::cudart ${CUDA_cupti_LIBRARY})\n")
    result = convert_cmake(text, database, target=HIP52)
    lines = result.text.splitlines()
    assert lines[3] == "set_source_files_properties(k.cu PROPERTIES LANGUAGE HIP)", result.text
    noted = {(n.input_line, n.message.split(":")[0]) for n in result.notes}
    assert noted == {(4, "-Xptxas -v"), (5, "CUDAToolkit_VERSION"), (5, "CMAKE_CUDA_HOST_COMPILER"),
                     (6, "CUDA_cupti_LIBRARY")}, result.notes
    assert all(text.splitlines()[n.input_line - 1].split("(")[0] == lines[n.line - 1].split("(")[0]
               for n in result.notes), result.notes
    listed = _scan_cmake(tmp_path, text)
    assert all(any(name in finding for finding in listed.get(line, [])) for line, name in noted), listed


def test_an_nvidia_compiler_id_test_stays_off_for_clang_in_both_generator_expressions(tmp_path: Path, database) -> None:
    """`$<COMPILE_LANG_AND_ID:CUDA,NVIDIA>` became `$<COMPILE_LANG_AND_ID:HIP,Clang>`, unmarked, so the nvcc-only option
    it guards went to clang (hipcc stopped: "unknown argument"), while `$<CUDA_COMPILER_ID:NVIDIA>` became
    `$<HIP_COMPILER_ID:NVIDIA>`, off, with a marker. One policy now (docs/convert.md): the language is HIP's, the id
    NVIDIA stays, so both are false under hipcc, and both are marked (PK403) and listed by scan; a test that lists
    Clang too is true there, with the advice to check the branch."""
    from portkit.convert.cmake_files import convert_cmake

    require_tool("cmake")
    require_tool("hipcc")
    text = ("cmake_minimum_required(VERSION 3.21)\nproject(demo LANGUAGES CXX CUDA)\nadd_library(k SHARED k.cu)\n"
            "target_compile_options(k PRIVATE $<$<COMPILE_LANG_AND_ID:CUDA,NVIDIA>:--keep-device-functions>)\n"
            "target_compile_options(k PRIVATE $<$<CUDA_COMPILER_ID:NVIDIA>:--keep-device-functions>)\n"
            "target_compile_options(k PRIVATE $<$<COMPILE_LANG_AND_ID:CUDA,NVIDIA,Clang>:-DBOTH=1>)\n")
    result = convert_cmake(text, database, target=HIP52)
    assert sorted((n.input_line, n.code, n.message.split(": ")[0], "never NVIDIA" in n.message) for n in result.notes) == [
        (4, "PK403", "$<COMPILE_LANG_AND_ID:CUDA,NVIDIA>", True), (5, "PK403", "$<CUDA_COMPILER_ID:NVIDIA>", True),
        (6, "PK403", "$<COMPILE_LANG_AND_ID:CUDA,NVIDIA,Clang>", False)], result.notes
    assert "target_compile_options(k PRIVATE $<$<COMPILE_LANG_AND_ID:HIP,NVIDIA>:--keep-device-functions>)" in result.text
    assert convert_cmake(result.text, database, target=HIP52).text == result.text
    listed = _scan_cmake(tmp_path, text)
    assert "PK403 $<COMPILE_LANG_AND_ID:CUDA,NVIDIA>" in listed[4] and "PK403 $<CUDA_COMPILER_ID:NVIDIA>" in listed[5]
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "CMakeLists.txt").write_text(text)
    (tmp_path / "src" / "k.cu").write_text("__global__ void k(float *x) { x[threadIdx.x] = BOTH; }\n")
    _portkit_convert(tmp_path / "src", tmp_path / "out", "--cmake-hipcc")
    _run(["cmake", "-S", "out", "-B", "build", "-DCMAKE_CXX_COMPILER=hipcc", "-DCMAKE_HIP_ARCHITECTURES=gfx90a"],
         tmp_path, HIP_PLATFORM="amd")
    built = _run(["make", "-C", "build", "VERBOSE=1"], tmp_path, HIP_PLATFORM="amd")
    assert "-DBOTH=1" in built.stdout and "--keep-device-functions" not in built.stdout, built.stdout


# bitsandbytes' shape: a CUDA branch convert rewrites beside the project's own HIP branch, which finds and links its
# HIP libraries itself, with a comment that names one it leaves out.
CUDA_AND_OWN_HIP_BRANCH = """cmake_minimum_required(VERSION 3.21)
project(demo LANGUAGES CXX)
option(BUILD_HIP "the project's own HIP build" OFF)
if(NOT BUILD_HIP)
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
endif()
add_library(demo SHARED k.cu)
if(NOT BUILD_HIP)
    target_link_libraries(demo PUBLIC CUDA::cudart CUDA::curand)
else()
    ## hip::amdhip64 is left out on purpose
    find_package(hiprand REQUIRED)
    find_package(hipblaslt REQUIRED)
    target_link_libraries(demo PUBLIC hip::host hip::hiprand roc::hipblaslt)
endif()
"""


def test_find_package_is_written_for_the_targets_convert_wrote_only(tmp_path: Path, database) -> None:
    """bitsandbytes: a `## ... hip::amdhip64 ...` comment made convert write `find_package(amdhip64 REQUIRED)` (no
    such package: configure failed), and the packages of the project's own HIP branch (hipblaslt) were found in its
    CUDA branch too, at column 0. Now the CUDA branch finds the packages of the targets convert wrote there (hip,
    hiprand), indented as its block, and the converted project configures."""
    from portkit.convert.cmake_files import convert_cmake

    converted = convert_cmake(CUDA_AND_OWN_HIP_BRANCH, database, target=HIP52).text
    assert converted.splitlines()[3:8] == ["if(NOT BUILD_HIP)", "    enable_language(HIP)",
                                           "    find_package(hip REQUIRED)", "    find_package(hiprand REQUIRED)",
                                           "endif()"], converted
    assert converted.split("else()")[1] == CUDA_AND_OWN_HIP_BRANCH.split("else()")[1]
    _cmake_project(tmp_path, CUDA_AND_OWN_HIP_BRANCH, {"k.cu": "__global__ void k(float *x) { x[threadIdx.x] = 0; }\n"})
    _portkit_convert(tmp_path / "in", tmp_path / "out", "--cmake-hipcc")
    configured = _run(["cmake", "-S", "out", "-B", "build", "-DCMAKE_CXX_COMPILER=hipcc",
                       "-DCMAKE_HIP_ARCHITECTURES=gfx90a"], tmp_path, HIP_PLATFORM="amd")
    assert "Generating done" in configured.stdout, configured.stdout


# The project's own HIP branch in CMake's HIP language (bitsandbytes): hip-lang::host is defined by that language.
CUDA_AND_OWN_HIP_LANGUAGE = """cmake_minimum_required(VERSION 3.21)
project(demo LANGUAGES CXX)
option(BUILD_HIP "the project's own HIP build" OFF)
if(BUILD_HIP)
    enable_language(HIP)
    message(STATUS "HIP compiler ${CMAKE_HIP_COMPILER}")
else()
    enable_language(CUDA)
    set(CMAKE_CUDA_STANDARD 17)
    find_package(CUDAToolkit REQUIRED)
endif()
set(GPU_FILES k.cu)
add_library(demo SHARED ${GPU_FILES})
if(BUILD_HIP)
    find_package(hip REQUIRED)
    set_target_properties(hip-lang::host PROPERTIES INTERFACE_LINK_LIBRARIES "")
    set_source_files_properties(${GPU_FILES} PROPERTIES LANGUAGE HIP)
else()
    target_link_libraries(demo PUBLIC CUDA::cudart)
endif()
"""


def test_cmake_hipcc_leaves_the_projects_own_hip_language_build_alone(tmp_path: Path, database) -> None:
    """bitsandbytes with --cmake-hipcc: the project's own `enable_language(HIP)` became CXX while its
    `set_target_properties(hip-lang::host ...)` stayed, and its HIP build failed to configure ("Can not find target
    hip-lang::host"). What the project wrote in the HIP language stays as it is (it is HIP already); the CUDA branch
    convert rewrote becomes hipcc's C++ and configures, and the HIP branch configures as the original's does."""
    from portkit.convert.cmake_files import convert_cmake

    converted = convert_cmake(CUDA_AND_OWN_HIP_LANGUAGE, database, target=HIP52, hipcc_as_cxx=True).text
    for own in ("    enable_language(HIP)\n", '${CMAKE_HIP_COMPILER}")\n', "    set_target_properties(hip-lang::host",
                "    set_source_files_properties(${GPU_FILES} PROPERTIES LANGUAGE HIP)\n"):
        assert own in converted, converted
    assert "    set(CMAKE_CXX_STANDARD 17)\n" in converted and "    enable_language(CXX)\n" in converted, converted
    assert convert_cmake(converted, database, target=HIP52, hipcc_as_cxx=True).text == converted
    pure_hip = CUDA_AND_OWN_HIP_LANGUAGE.split("else()")[0] + "endif()\n"
    assert convert_cmake(pure_hip, database, target=HIP52, hipcc_as_cxx=True).text == pure_hip
    _cmake_project(tmp_path, CUDA_AND_OWN_HIP_LANGUAGE, {"k.cu": "__global__ void k(float *x) { x[threadIdx.x] = 0; }\n"})
    _portkit_convert(tmp_path / "in", tmp_path / "out", "--cmake-hipcc")
    _run(["cmake", "-S", "out", "-B", "cuda", "-DCMAKE_CXX_COMPILER=hipcc", "-DCMAKE_HIP_ARCHITECTURES=gfx90a"],
         tmp_path, HIP_PLATFORM="amd")
    hip_branch = ["-DBUILD_HIP=ON", "-DCMAKE_HIP_ARCHITECTURES=gfx90a"]
    original = subprocess.run(["cmake", "-S", "in", "-B", "hip-in", *hip_branch], cwd=tmp_path, capture_output=True,
                              text=True, timeout=600, check=False)
    own = subprocess.run(["cmake", "-S", "out", "-B", "hip-out", *hip_branch], cwd=tmp_path, capture_output=True,
                         text=True, timeout=600, check=False)
    assert (own.returncode, "Can not find target" in own.stderr) == (original.returncode, False), own.stderr


# nvcc options convert writes in hipcc's spelling, drops or removes, each between words it leaves (so a word diff
# sees each edit alone), on commands that run nvcc and on a host compiler's, whose options stay.
OPTIONS_MAKEFILE = """NVCC = nvcc
NVFLAGS = -O2 -use_fast_math -std=c++17 --expt-relaxed-constexpr -I. -Xcompiler -fPIC
app: k.o main.o x.o
\t$(NVCC) -rdc=true -o app k.o main.o x.o
k.o: k.cu k.d
\t$(NVCC) $(NVFLAGS) -rdc=true -c -lineinfo k.cu -o k.o
k.d: k.cu
\t$(NVCC) -M $< -o $@ -odir build
main.o: main.cpp
\t$(CXX) -O2 -std=c++17 -x c++ -c main.cpp -o main.o
x.o: x.cpp
\t$(NVCC) -x cu -O2 -rdc=true -g -maxrregcount=32 -c x.cpp -o x.o
"""
OPTIONS_CMAKE = """cmake_minimum_required(VERSION 3.21)
project(p LANGUAGES CXX CUDA)
set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} -O2 --use_fast_math -std=c++17 -g --extended-lambda")
add_executable(app k.cu main.cpp)
target_compile_options(app PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo -O2 --expt-relaxed-constexpr -Wall -Xcompiler -fPIC -g -Xptxas -v>)
target_compile_options(app PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-O2 -std=c++17>)
"""
# The words of a build file's line: an option from its `-` on; CMake's generator expressions and strings apart.
_WORD = re.compile(r"-[^\s\"()<>;]+|[^\s\"()<>;:-][^\s\"()<>;:]*")


def _option_edits(original: str, converted: str) -> collections.Counter:
    """The option edits convert made, counted by the original's line: each run of words that differ (a word diff)
    where the original had an option or its value (`-x cu`). The lines convert adds (markers, HIP_PLATFORM, CMake's HIP source property)
    are skipped: each original line is the next converted line that starts with its first word."""
    edits: collections.Counter = collections.Counter()
    converted_lines = iter(converted.splitlines())
    for number, line in enumerate(original.splitlines(), 1):
        first = _WORD.findall(line)[:1]
        after = next(c for c in converted_lines if _WORD.findall(c)[:1] == first)
        before_words, after_words = _WORD.findall(line), _WORD.findall(after)
        for tag, i1, i2, _, _ in difflib.SequenceMatcher(None, before_words, after_words, autojunk=False).get_opcodes():
            if tag != "equal" and any(word.startswith("-") for word in before_words[max(0, i1 - 1):i2]):
                edits[number] += 1
    return edits


@pytest.mark.parametrize(("name", "text", "build"), [
    ("Makefile", OPTIONS_MAKEFILE, [["make", "app", "k.d"]]),
    ("CMakeLists.txt", OPTIONS_CMAKE.replace(" -Xptxas -v", ""),  # -Xptxas: a marker only hipcc_check reads
     [["cmake", "-S", ".", "-B", "build", "-DCMAKE_CXX_COMPILER=hipcc"], ["cmake", "--build", "build"]]),
    ("CMakeLists.txt", OPTIONS_CMAKE, [])], ids=["make", "cmake", "cmake-removed"])
def test_scan_lists_each_nvcc_option_convert_rewrites(name: str, text: str, build: list, tmp_path: Path) -> None:
    """convert wrote -use_fast_math as -ffast-math, -rdc=true as -fgpu-rdc, -x cu as -x hip, dropped
    --expt-relaxed-constexpr, unwrapped -Xcompiler, but scan listed none of these (only the options removed with a
    marker, PK403). Now each option edit convert makes is a finding of scan's on its line (PK408, or PK403 for those
    with a marker): as many on each line as convert's edits there; the port builds with the real make or cmake and
    hipcc (Debian's CMake has no HIP language: --cmake-hipcc)."""
    source = tmp_path / "in"
    source.mkdir()
    (source / name).write_text(text)
    (source / "k.cu").write_text("__global__ void fill(int *p) { p[threadIdx.x] = 1; }\n"
                                 "int run() { int *p; cudaMalloc(&p, 4); fill<<<1, 1>>>(p); return cudaFree(p); }\n")
    (source / "x.cpp").write_text("__global__ void other(int *p) { p[threadIdx.x] = 2; }\n")
    (source / "main.cpp").write_text("int run();\nint main() { return run(); }\n")
    scan = subprocess.run([sys.executable, "-m", "portkit", "scan", str(source), "--format", "json", "--rocm-version",
                           "5.2", "--no-cache"], capture_output=True, text=True, check=True)
    listed = collections.Counter(f["line"] for f in json.loads(scan.stdout)["findings"]
                                 if Path(f["path"]).name == name and f["name"].startswith("-"))
    out = tmp_path / "out"
    _portkit_convert(source, out, *(["--cmake-hipcc"] if build and name == "CMakeLists.txt" else []))
    made = _option_edits(text, (out / name).read_text())
    assert listed == made, (listed, made)
    assert sum(made.values()) >= 5  # the case has edits of each kind
    for command in build:
        require_tool(command[0])
        require_tool("hipcc")
        _run(command, out, HIP_PLATFORM="amd")


# A project's own imported target for NCCL, from its find_path and find_library (nccl-tests' shape).
IMPORTED_NCCL_CMAKE = """cmake_minimum_required(VERSION 3.18)
project(p LANGUAGES CXX CUDA)
find_package(CUDAToolkit REQUIRED)
find_path(NCCL_INCLUDE_DIR NAMES nccl.h HINTS ${NCCL_HOME}/include)
find_library(NCCL_LIBRARY NAMES nccl HINTS ${NCCL_HOME}/lib)
add_library(nccl UNKNOWN IMPORTED)
set_target_properties(nccl PROPERTIES IMPORTED_LOCATION "${NCCL_LIBRARY}" INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}")
add_executable(app app.cu)
target_link_libraries(app PRIVATE nccl CUDA::cudart)
"""


def _stand_in_rccl(prefix: Path) -> None:
    """RCCL's include/rccl/rccl.h (ncclGetVersion as RCCL declares it) and a lib/librccl.so that defines it."""
    (prefix / "include" / "rccl").mkdir(parents=True)
    (prefix / "include" / "rccl" / "rccl.h").write_text(
        "#pragma once\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n"
        "typedef enum { ncclSuccess = 0, ncclUnhandledCudaError = 1 } ncclResult_t;\n"
        "ncclResult_t ncclGetVersion(int *version);\n#ifdef __cplusplus\n}\n#endif\n")
    (prefix / "lib").mkdir()
    (prefix / "rccl.c").write_text('#include "rccl/rccl.h"\nncclResult_t ncclGetVersion(int *v) { *v = 21804; '
                                   "return ncclSuccess; }\n")
    _run(["gcc", "-shared", "-fPIC", "-Iinclude", "rccl.c", "-o", "lib/librccl.so"], prefix)


def test_a_project_target_named_as_a_library_keeps_its_name_and_finds_rccl(tmp_path: Path) -> None:
    """nccl-tests: `target_link_libraries(app PRIVATE nccl)` became `rccl`, while the project's own `add_library(nccl
    UNKNOWN IMPORTED)` (its IMPORTED_LOCATION and include directory from find_library(NAMES nccl), find_path(NAMES
    nccl.h)) stayed: `rccl` linked as a bare -lrccl without the include directory, and the build failed at
    'rccl/rccl.h' file not found. Now the project's target keeps its name, its find_library looks for rccl and its
    find_path for rccl/rccl.h, the header the sources include now, and scan lists those two, not the target. The
    port configures and builds with the real cmake and hipcc against a stand-in RCCL."""
    require_tool("gcc")
    source = _cmake_project(tmp_path, IMPORTED_NCCL_CMAKE, {
        "app.cu": "#include <nccl.h>\nint main() { int v; ncclGetVersion(&v); return v == 21804 ? 0 : 1; }\n"})
    scan = subprocess.run([sys.executable, "-m", "portkit", "scan", str(source), "--format", "json", "--rocm-version",
                           "5.2", "--no-cache"], capture_output=True, text=True, check=True)
    listed = sorted((f["line"], f["name"], f["hip"]) for f in json.loads(scan.stdout)["findings"]
                    if Path(f["path"]).name == "CMakeLists.txt" and f["library"] == "nccl")
    assert listed == [(4, "nccl.h", "rccl/rccl.h"), (5, "nccl", "rccl")], listed
    out = tmp_path / "out"
    _portkit_convert(source, out, "--cmake-hipcc")  # Debian's CMake has no HIP language
    converted = (out / "CMakeLists.txt").read_text()
    assert "find_path(NCCL_INCLUDE_DIR NAMES rccl/rccl.h HINTS ${NCCL_HOME}/include)" in converted, converted
    assert "find_library(NCCL_LIBRARY NAMES rccl HINTS ${NCCL_HOME}/lib)" in converted, converted
    assert "add_library(nccl UNKNOWN IMPORTED)" in converted and "target_link_libraries(app PRIVATE nccl " in converted
    prefix = tmp_path / "rccl"
    prefix.mkdir()
    _stand_in_rccl(prefix)
    _run(["cmake", "-S", ".", "-B", "build", "-DCMAKE_CXX_COMPILER=hipcc", f"-DNCCL_HOME={prefix}"], out,
         HIP_PLATFORM="amd")
    built = _run(["cmake", "--build", "build", "--verbose"], out, HIP_PLATFORM="amd")
    assert f"{prefix}/lib/librccl.so" in built.stdout and f"-isystem {prefix}/include" in built.stdout, built.stdout
    assert subprocess.run([str(out / "build" / "app")], timeout=60).returncode == 0  # the stand-in's version


def _scan_lines(source: Path, name: str) -> dict[int, list[str]]:
    """The findings scan lists in the file `name` of `source`, by line: code and name."""
    scan = subprocess.run([sys.executable, "-m", "portkit", "scan", str(source), "--format", "json", "--rocm-version",
                           "5.2", "--no-cache"], capture_output=True, text=True, check=True)
    lines: dict[int, list[str]] = {}
    for finding in json.loads(scan.stdout)["findings"]:
        if Path(finding["path"]).name == name:
            lines.setdefault(finding["line"], []).append(f"{finding['code']} {finding['name']}")
    return lines


def _converted_builds_as_hip(source: Path, tmp_path: Path, build_files: tuple[str, ...], units: tuple[str, ...]) -> Path:
    """Convert `source` (--cmake-hipcc), check that converting again changes none of `build_files`, configure and
    build the output with real cmake, make and hipcc, and check that each of `units` compiles as HIP for gfx90a."""
    out = tmp_path / "out"
    _portkit_convert(source, out, "--cmake-hipcc")
    _portkit_convert(out, tmp_path / "again", "--cmake-hipcc")
    for name in build_files:
        assert (tmp_path / "again" / name).read_text() == (out / name).read_text()
    _run(["cmake", "-S", ".", "-B", "build", "-DCMAKE_CXX_COMPILER=hipcc"], out, HIP_PLATFORM="amd")
    built = _run(["make", "-C", "build", "VERBOSE=1"], out, HIP_PLATFORM="amd")
    for name in units:
        compile_line = next(line for line in built.stdout.splitlines() if " -c " in line and name in line)
        assert "-xhip --offload-arch=gfx90a" in compile_line, compile_line
    return out


def _scan_cmake(tmp_path: Path, text: str) -> dict[int, list[str]]:
    """What scan lists on each line of a CMakeLists.txt of `text`."""
    source = tmp_path / "in"
    source.mkdir()
    (source / "CMakeLists.txt").write_text(text)
    return _scan_lines(source, "CMakeLists.txt")


def _configured_as_hip(tmp_path: Path, converted: str) -> str:
    """cmake's output for a converted CMakeLists.txt, with what CMake's HIP language sets (Clang) given: Debian's
    HIP has no hip-lang CMake package."""
    (tmp_path / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.21)\nproject(p LANGUAGES NONE)\n"
                                             + converted)
    return _run(["cmake", "-S", ".", "-B", "build", "-DCMAKE_HIP_COMPILER_ID=Clang"], tmp_path).stdout


def _edited_lines(original: str, converted: str) -> dict[int, list[str]]:
    """The lines of `original` convert rewrote, or added lines after, with what it wrote there (markers aside)."""
    before = original.splitlines()
    after = [line for line in converted.splitlines() if not line.strip().startswith("# portkit: ")]
    edited: dict[int, list[str]] = {}
    for operation, start, end, out_start, out_end in difflib.SequenceMatcher(None, before, after,
                                                                             autojunk=False).get_opcodes():
        if operation != "equal":  # an added line follows the original line before it
            for number in range(start + 1, end + 1) if end > start else [start]:
                edited.setdefault(number, []).extend(after[out_start:out_end])
    return edited


@pytest.mark.parametrize(("name", "text"), [("CMakeLists.txt", LANGUAGE_CMAKE), ("CMakeLists.txt", FINDCUDA_TARGETS_CMAKE),
                                            ("configure.ac", CUDA_CONFIGURE), ("Makefile", GENCODE_MAKEFILE)],
                         ids=["cmake-language", "cmake-findcuda-targets", "configure", "make-gencode"])
def test_scan_lists_a_finding_on_every_line_convert_edits_in_a_build_file(name: str, text: str, tmp_path: Path) -> None:
    """convert wrote CMAKE_CUDA_FLAGS as CMAKE_HIP_FLAGS, $<COMPILE_LANGUAGE:CUDA> as HIP, CUDA_STANDARD as
    HIP_STANDARD, check_language(CUDA) as HIP's, cuda_add_executable as add_executable, added
    set_source_files_properties(... LANGUAGE HIP) after the commands naming .cu files (and the lines that pick a
    glob's out), and wrote configure.ac's cudaMalloc test as hipMalloc's: scan listed none of these. Now every line
    convert rewrites, or adds lines after, has a finding of scan's (PK409 for CMake's language, PK402 for FindCUDA's
    targets, the function's rule), as PK407/PK408 are for Makefiles' nvcc and options."""
    source = tmp_path / "in"
    source.mkdir()
    (source / name).write_text(text)
    listed = _scan_lines(source, name)
    _portkit_convert(source, tmp_path / "out")
    edited = _edited_lines(text, (tmp_path / "out" / name).read_text())
    assert edited  # the case has edits
    unlisted = {number: written for number, written in edited.items() if number not in listed}
    assert not unlisted, unlisted
    if name == "CMakeLists.txt" and "CUDA_FLAGS" in text:
        assert {"PK409 CMAKE_CUDA_FLAGS", "PK409 $<COMPILE_LANGUAGE:CUDA>", "PK409 k.cu", "PK409 ${KERNELS}",
                "PK409 CUDA_STANDARD", "PK409 check_language(CUDA)"} <= {f for found in listed.values() for f in found}


def test_a_cmake_project_of_cuda_language_forms_builds_with_hipcc_and_its_imported_cuda_library_is_marked(
        tmp_path: Path) -> None:
    """The forms scan now lists (CMAKE_CUDA_FLAGS, the generator expression, the .cu sources given the language, named
    and globbed) build with the real cmake and hipcc after convert (--cmake-hipcc: Debian's CMake has no HIP
    language), each define reaching the kernel. The project's `add_library(nccl SHARED IMPORTED)` with
    `IMPORTED_LOCATION /usr/lib/x86_64-linux-gnu/libnccl.so.2` was kept unmarked and unlisted; now it has a PK404
    marker naming RCCL's library, which scan lists on that line. The --offload-arch targets are each given once."""
    check = ("#if !defined(FROM_FLAGS) || !defined(FROM_GENEX)\n#error the CUDA flags or the generator expression "
             "did not reach the kernel\n#endif\n")
    source = _cmake_project(tmp_path, LANGUAGE_CMAKE, {
        "k.cu": check + "__global__ void fill(int *p) { p[threadIdx.x] = 1; }\n"
                        "int run() { int *p; cudaMalloc(&p, 4); fill<<<1, 1>>>(p); return cudaFree(p); }\n",
        "kernels/g.cu": "#ifndef FROM_FLAGS\n#error no CUDA flags\n#endif\n__global__ void other(int *p) { p[threadIdx.x] = 2; }\n",
        "main.cpp": "int run();\nint main() { return run(); }\n"})
    listed = _scan_lines(source, "CMakeLists.txt")
    assert any(f.startswith("PK404 libnccl.so.2") for f in listed[14]), listed
    out = tmp_path / "out"
    _portkit_convert(source, out, "--cmake-hipcc")
    converted = (out / "CMakeLists.txt").read_text()
    assert ("# portkit: PK404 libnccl.so.2: CUDA's nccl library by its file, which a ROCm machine does not have: use "
            "HIP's rccl") in converted, converted
    assert ('set(CMAKE_CXX_FLAGS "${CMAKE_CXX_FLAGS} -DFROM_FLAGS=1 --offload-arch=gfx906 -gline-tables-only")'
            in converted.splitlines()), converted
    _run(["cmake", "-S", ".", "-B", "build", "-DCMAKE_CXX_COMPILER=hipcc"], out, HIP_PLATFORM="amd")
    built = _run(["make", "-C", "build", "VERBOSE=1"], out, HIP_PLATFORM="amd")
    for unit in ("k.cu", "g.cu"):
        assert any(" -c " in line and unit in line for line in built.stdout.splitlines()), built.stdout
    assert (out / "build" / "app").is_file()


def test_offload_targets_a_gencode_list_pairs_with_one_gpu_are_written_once_and_the_port_builds(tmp_path: Path) -> None:
    """`-gencode arch=compute_70,code=sm_70 -gencode arch=compute_72,code=sm_72` (both gfx906), and compute_80 beside
    sm_80 on a backslash-continued line, gave `--offload-arch=gfx906 --offload-arch=gfx906 ... --offload-arch=gfx90a
    --offload-arch=gfx90a`: each -gencode became its target, and only targets side by side were merged. Now a target
    is written once in a logical line, a command or a CMake list (the continuation before a repeat goes with it); a
    second command on the line keeps its own. The port builds with the real make and hipcc for both GPUs."""
    require_tool("make")
    require_tool("hipcc")
    source = tmp_path / "in"
    source.mkdir()
    (source / "Makefile").write_text(GENCODE_MAKEFILE)
    (source / "k.cu").write_text("__global__ void fill(int *p) { p[threadIdx.x] = 1; }\n")
    _portkit_convert(source, tmp_path / "out")
    out = tmp_path / "out"
    converted = (out / "Makefile").read_text()
    assert "GENCODE = --offload-arch=gfx906 \\\n  --offload-arch=gfx90a\n# portkit: PK404" in converted, converted
    assert "\t$(NVCC) $(GENCODE) -c $< -o $@; $(NVCC) --offload-arch=gfx906 -c $< -o again.o\n" in converted, converted
    _portkit_convert(out, tmp_path / "again")
    assert (tmp_path / "again" / "Makefile").read_text() == converted
    built = _run(["make", "k.o"], out, HIP_PLATFORM="amd")
    command = next(line for line in built.stdout.splitlines() if "hipcc" in line)
    assert command.split().count("--offload-arch=gfx906") == 2 and command.count("--offload-arch=gfx90a") == 1, command
    assert offload_targets(out / "k.o") == ["host-x86_64-unknown-linux", "hipv4-amdgcn-amd-amdhsa--gfx906",
                                            "hipv4-amdgcn-amd-amdhsa--gfx90a"]
    from portkit.convert.cmake_files import convert_cmake
    from portkit.rules import load_database

    listed = convert_cmake('list(APPEND FLAGS "-gencode arch=compute_70,code=sm_70" "-gencode arch=compute_72,code=sm_72"'
                           ";-gencode arch=compute_70,code=compute_70)\n", load_database()).text
    assert listed == 'list(APPEND FLAGS "--offload-arch=gfx906")\n'


def test_the_convert_summary_counts_the_lines_it_writes_in_build_files(tmp_path: Path) -> None:
    """A project of build files alone: the summary said "0 edits" however many lines convert rewrote. Now its edits
    count each line of a build file convert rewrote or added (its markers aside), and say how many of them are."""
    source = tmp_path / "in"
    source.mkdir()
    for name, text in (("Makefile", GENCODE_MAKEFILE), ("CMakeLists.txt", LANGUAGE_CMAKE), ("configure.ac", CUDA_CONFIGURE)):
        (source / name).write_text(text)
    result = subprocess.run([sys.executable, "-m", "portkit", "convert", str(source), "-o", str(tmp_path / "out"),
                             "--rocm-version", "5.2"], capture_output=True, text=True, check=True)
    written = 0
    for name in ("Makefile", "CMakeLists.txt", "configure.ac"):
        before = (source / name).read_text().splitlines()
        after = [line for line in (tmp_path / "out" / name).read_text().splitlines() if not line.startswith("# portkit: ")
                 and not line.lstrip().startswith("# portkit: ")]
        written += sum(end - start for operation, _, _, start, end in
                       difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes() if operation != "equal")
    assert written >= 15
    assert f"3 changed, {written} edits ({written} of them build-file lines), 0 markers" in result.stdout, result.stdout


def test_configures_cuda_switch_prefix_and_library_test_are_marked_and_listed_and_it_configures_hipcc(
        tmp_path: Path) -> None:
    """configure.ac's `AC_ARG_ENABLE([cuda], ...)`, `AC_ARG_VAR([CUDA_PATH], ...)` and `-I$with_cuda/include` were
    neither marked nor listed, nor the cudaMalloc of `AC_CHECK_LIB([cudart], [cudaMalloc])`, which convert writes
    as hipMalloc. Now the switch has a PK414 marker (configure with --enable-cuda, or rename it), the prefix's variable
    and value PK404 ones, and scan lists those and the function. The converted configure.ac goes through the real
    autoconf, and `./configure --enable-cuda` finds hipcc."""
    source = tmp_path / "in"
    source.mkdir()
    (source / "configure.ac").write_text(CUDA_CONFIGURE)
    listed = _scan_lines(source, "configure.ac")
    for line, finding in ((3, "PK414 cuda"), (6, "PK404 CUDA_PATH"), (7, "PK404 cuda"), (10, "PK404 $with_cuda"),
                          (11, "PK100 cudaMalloc")):
        assert finding in listed.get(line, []), (line, finding, listed)
    _portkit_convert(source, tmp_path / "out")
    converted = (tmp_path / "out" / "configure.ac").read_text()
    assert "# portkit: PK414 cuda: configure's --enable-cuda turns the GPU build on" in converted, converted
    assert "# portkit: PK404 CUDA_PATH: configure reads this variable" in converted, converted
    assert "  # portkit: PK404 $with_cuda: the value of configure's --with-cuda=PATH" in converted, converted
    assert "AC_CHECK_LIB([amdhip64], [hipMalloc]" in converted
    autoconf = require_tool("autoconf")
    _run([autoconf], tmp_path / "out")
    configured = _run(["./configure", "--enable-cuda", "--with-cuda=/opt/rocm"], tmp_path / "out", HIP_PLATFORM="amd")
    assert "checking for hipcc... /usr/bin/hipcc" in configured.stdout, configured.stdout


def test_a_makefile_named_after_nvcc_keeps_its_name(tmp_path: Path) -> None:
    """`include nvcc.mk` became `include hipcc.mk` while the file kept its name: make stopped at once ("No such file").
    A name with an extension is a file's, not the compiler's; the nvcc inside the file is hipcc all the same."""
    require_tool("make")
    source = tmp_path / "in"
    source.mkdir()
    (source / "nvcc.mk").write_text("NVCC = nvcc\n")
    (source / "Makefile").write_text("include nvcc.mk\nall:\n\t$(NVCC) -c k.cu -o k.o\n")
    (source / "k.cu").write_text("__global__ void k(float *p) { p[threadIdx.x] = 0; }\n")
    _portkit_convert(source, tmp_path / "out")
    assert "include nvcc.mk\n" in (tmp_path / "out" / "Makefile").read_text()
    assert "NVCC = hipcc\n" in (tmp_path / "out" / "nvcc.mk").read_text()
    assert "hipcc -c k.cu -o k.o" in _run(["make", "-n"], tmp_path / "out").stdout


CUDA_VERSION_REQUIREMENT_CMAKE = """cmake_minimum_required(VERSION 3.21)
project(demo CXX)
include(CheckLanguage)
check_language(CUDA)
if(CMAKE_CUDA_COMPILER)
  enable_language(CUDA)
  if(CMAKE_CUDA_COMPILER_VERSION VERSION_LESS "9.0")
    message(FATAL_ERROR "Unsupported CUDA version")
  endif()
endif()
if(CMAKE_CUDA_COMPILER_ID STREQUAL "NVIDIA" AND CMAKE_CUDA_COMPILER_VERSION MATCHES "^([0-9]+\\\\.[0-9]+)")
  set(CUDA_VERSION "${CMAKE_MATCH_1}")
endif()
if (CUDA_VERSION VERSION_LESS 11.0)
  set(LATEST 75)
elseif (CUDA_VERSION VERSION_LESS 12.8)
  set(LATEST 90)
else()
  set(LATEST 120)
endif()
if (NOT "${CUDAToolkit_VERSION}" VERSION_GREATER_EQUAL 10.2)
  message(FATAL_ERROR "CUDA version too low: ${CUDAToolkit_VERSION}")
endif()
if (CUDA_VERSION VERSION_GREATER_EQUAL 11.0)
  set(SHAMPOO ON)
endif()
message(STATUS "latest=${LATEST} shampoo=${SHAMPOO}")
add_executable(demo k.cu)
"""


def test_a_cuda_version_requirement_does_not_stop_a_hip_configure(tmp_path: Path) -> None:
    """trial16: `if(CMAKE_CUDA_COMPILER_VERSION VERSION_LESS "9.0") message(FATAL_ERROR ...)` stayed as written, and
    CMake's HIP language sets no CUDA version: an unset version is older than any, so every configure of the port
    stopped (tiny-cuda-nn's own CUDA_VERSION, set only for nvcc, the same). A test an unset version passes is written
    `(VAR AND <test>)`, false under HIP, with a marker saying so; one it fails (VERSION_GREATER_EQUAL) stays; scan
    lists the rewritten ones. The operators CMake lets an unset version pass are those rules/_build.yaml names."""
    from portkit.rules.build_facts import build_facts

    require_tool("cmake")
    require_tool("hipcc")
    require_tool("make")
    tests = build_facts().cuda_version_tests
    probe = "".join(f'if({"NOT " * negated}UNSET_CUDA_VERSION {op} "9.0")\n  message("{negated}:{op}")\nendif()\n'
                    for op in tests.operators for negated in (0, 1))
    (tmp_path / "probe.cmake").write_text(probe)
    passed = set(_run(["cmake", "-P", "probe.cmake"], tmp_path).stderr.split())
    assert passed == {f"{negated}:{op}" for op in tests.operators for negated in (0, 1)
                      if tests.passes_unset(bool(negated), op)}, passed
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "CMakeLists.txt").write_text(CUDA_VERSION_REQUIREMENT_CMAKE)
    (tmp_path / "in" / "k.cu").write_text("__global__ void k() {}\nint main() { k<<<1, 1>>>(); return 0; }\n")
    converted = _converted_twice(tmp_path / "in", tmp_path, "--cmake-hipcc")
    assert "if((CMAKE_CUDA_COMPILER_VERSION AND CMAKE_CUDA_COMPILER_VERSION VERSION_LESS \"9.0\"))" in converted
    assert "if (CUDA_VERSION VERSION_GREATER_EQUAL 11.0)" in converted, converted
    lines = converted.splitlines()
    guarded = [lines[i - 1] for i, line in enumerate(lines) if " AND " in line and "VERSION" in line and "((" in line]
    assert len(guarded) == 4 and all("convert made it false where the version is unset" in m for m in guarded), lines
    listed = _scan_lines(tmp_path / "in", "CMakeLists.txt")
    assert [(n, f) for n, found in sorted(listed.items()) for f in found if f.startswith("PK403") and "VERSION_" in f] == [
        (7, 'PK403 CMAKE_CUDA_COMPILER_VERSION VERSION_LESS "9.0"'), (14, "PK403 CUDA_VERSION VERSION_LESS 11.0"),
        (16, "PK403 CUDA_VERSION VERSION_LESS 12.8"), (21, 'PK403 NOT "${CUDAToolkit_VERSION}" VERSION_GREATER_EQUAL 10.2')
    ], listed
    configured = _run(["cmake", "-S", "out", "-B", "build", "-DCMAKE_CXX_COMPILER=hipcc"], tmp_path, HIP_PLATFORM="amd")
    assert "latest=120 shampoo=\n" in configured.stdout, configured.stdout
    _run(["make", "-C", "build"], tmp_path, HIP_PLATFORM="amd")


TRY_RUN_CMAKE = """cmake_minimum_required(VERSION 3.21)
project(query CXX CUDA)
set(file "${PROJECT_BINARY_DIR}/detect_gpus.cu")
file(WRITE ${file} "#include <cstdio>\\nint main() { std::printf(\\"75\\"); return 0; }\\n")
try_run(run_result compile_result ${PROJECT_BINARY_DIR} ${file} RUN_OUTPUT_VARIABLE out)
message(STATUS "compiled=${compile_result} ran=${run_result} out=${out}")
"""


def test_a_cu_source_try_run_builds_gets_hips_extension(tmp_path: Path, database) -> None:
    """tiny-cuda-nn's GPU query: a program written with file(WRITE ... x.cu) and built by try_run stopped configure
    ("Unknown extension .cu ... try_compile() works only for enabled languages"): try_run picks the language by the
    extension, and a LANGUAGE property does not reach it. The source gets HIP's extension (.cpp where hipcc is the C++
    compiler, .hip for the HIP language), where the call names it or a set() of its variable does, with a PK415 marker
    (its CUDA calls are text convert does not rewrite), which scan lists; hipcc compiles it."""
    from portkit.convert.cmake_files import convert_cmake

    converted = _converted_twice(_cmake_project(tmp_path, TRY_RUN_CMAKE), tmp_path, "--cmake-hipcc")
    assert 'set(file "${PROJECT_BINARY_DIR}/detect_gpus.cpp")\n' in converted, converted
    assert "# portkit: PK415 try_run(... ${file}): convert gave the source HIP's extension (.cpp)" in converted
    assert _scan_lines(tmp_path / "in", "CMakeLists.txt")[5] == ["PK415 try_run(... ${file})"]
    hip = convert_cmake(TRY_RUN_CMAKE.replace("${file}", '"${PROJECT_BINARY_DIR}/detect_gpus.cu"'), database).text
    assert [line.split("(")[0] for line in hip.splitlines() if "detect_gpus.hip" in line] == ["set", "file", "try_run"], hip
    configured = _run(["cmake", "-S", "out", "-B", "build", "-DCMAKE_CXX_COMPILER=hipcc"], tmp_path, HIP_PLATFORM="amd")
    assert "compiled=TRUE ran=0 out=75" in configured.stdout, configured.stdout


def test_cuda_libraries_with_one_hip_library_link_it_once(tmp_path: Path, database) -> None:
    """-lcudart -lcuda both become -lamdhip64: the converted line had it twice. Now once a stretch (as an AMD target
    several -gencode flags pair with), the project's own repeats elsewhere left; hipcc builds and links the result."""
    from portkit.convert.build_files import convert_makefile

    make = ("LIBS = -lcudart -lcuda -lm\napp: app.cu\n\tnvcc -o app app.cu $(LIBS) -lcudart_static -lcuda\n"
            "echo:\n\t@echo $(LIBS) -lcudart\n")
    result = convert_makefile(make, database, target=HIP52)
    assert "LIBS = -lamdhip64 -lm\n" in result.text and "\thipcc -o app app.cu $(LIBS) -lamdhip64\n" in result.text
    assert convert_makefile(result.text, database, target=HIP52).text == result.text
    (tmp_path / "Makefile").write_text(result.text)
    assert _run(["make", "-s", "echo"], tmp_path).stdout.split() == ["-lamdhip64", "-lm", "-lamdhip64"]
    require_tool("hipcc")
    (tmp_path / "app.cu").write_text("#include <hip/hip_runtime.h>\n__global__ void k(int *p) { *p = 1; }\n"
                                     "int main() { int *p; hipMalloc(&p, 4); k<<<1, 1>>>(p); return 0; }\n")
    _run(["make", "app"], tmp_path, HIP_PLATFORM="amd")
    assert (tmp_path / "app").is_file()


def test_converting_cmake_for_the_hip_language_says_when_to_use_cmake_hipcc(tmp_path: Path) -> None:
    """The default CMake output needs CMake's HIP language, which Debian 12's CMake and HIP cannot configure: convert
    said nothing of --cmake-hipcc (docs/convert.md). Now one note says when to use it; with it, none, and the output
    configures with hipcc as the C++ compiler, as the note says."""
    _cmake_project(tmp_path, "cmake_minimum_required(VERSION 3.18)\nproject(p LANGUAGES CXX CUDA)\nadd_executable(app k.cu)\n",
                   {"k.cu": "__global__ void k() {}\nint main() { k<<<1, 1>>>(); return 0; }\n"})
    notes = []
    for mode in ((), ("--cmake-hipcc",)):
        done = subprocess.run([sys.executable, "-m", "portkit", "convert", "--no-cache", str(tmp_path / "in"), "-o",
                               str(tmp_path / f"out{len(mode)}"), *mode], capture_output=True, text=True, check=True)
        notes.append([line for line in done.stderr.splitlines() if "--cmake-hipcc" in line])
    assert len(notes[0]) == 1 and notes[0][0].startswith("portkit: note: the converted CMake files use CMake's HIP language")
    assert notes[1] == []
    _run(["cmake", "-S", str(tmp_path / "out1"), "-B", str(tmp_path / "build"), "-DCMAKE_CXX_COMPILER=hipcc"], tmp_path,
         HIP_PLATFORM="amd")
