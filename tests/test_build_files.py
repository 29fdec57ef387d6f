"""Build files: Makefiles, scripts and CMake rewritten from nvcc/CUDA to hipcc/HIP (portkit/convert/build_files.py)."""
from __future__ import annotations

from pathlib import Path

from portkit.rules.versions import Target

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


