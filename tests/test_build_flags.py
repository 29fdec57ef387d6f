"""Each nvcc option, converted, is accepted by the real hipcc (compile, and link where the option is about linking).

The cases spell every option of rules/_build.yaml at least once (a test checks), in the forms
projects write them; what a converted option must become is hipcc's business: the test fails if
hipcc rejects it. Options hipcc has nothing for must be gone, with a marker above the line.
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from portkit.rules.build_facts import build_facts
from tests.conftest import require_tool

KERNEL = """#include <hip/hip_runtime.h>
__global__ void k(float* a) { a[threadIdx.x] = 1.0f; }
int main() { float* a = nullptr; hipMalloc(&a, 64 * sizeof(float)); k<<<1, 64>>>(a); hipFree(a); return 0; }
"""

# nvcc as projects write it -> link too (the option is about linking or relocatable code)
TRANSLATED = [
    ("--use_fast_math", False), ("-use_fast_math", False), ("-lineinfo", False), ("--generate-line-info", False),
    ("-G", False), ("--device-debug", False), ("-rdc=true", True), ("--relocatable-device-code=true", True),
    ("-rdc true", True), ("-rdc=false", True), ("-dc", False), ("--device-c", False), ("-dw", False),
    ("--device-w", False), ("--expt-relaxed-constexpr", False), ("-expt-relaxed-constexpr", False),
    ("--extended-lambda", False), ("-extended-lambda", False), ("--expt-extended-lambda", False),
    ("-expt-extended-lambda", False), ("--threads=0", False), ("-t=0", False), ("-t 4", False),
    ("--threads 2", False), ("--split-compile=0", False), ("-split-compile 4", False), ("--machine 64", True),
    ("-m 64", True), ("--machine=64", True), ("-m64", True), ("--optimize 3", False), ("-O 2", False), ("-O3", False),
    ("--std c++17", False), ("-std c++14", False), ("--std=c++17", False), ("-std=c++17", False), ("-std=c++03", False),
    ("--std c++03", False), ("-std=gnu++98", False), ("-x cu", False),
    ("--x cu", False), ("-Xcompiler -fopenmp,-Wall", True), ("-Xcompiler=-fPIC", False),
    ("--compiler-options '-Wall -Wextra'", False), ("-Xcompiler \"-O3,-Wno-unused\"", False),
    ("-Xlinker --as-needed", True), ("--linker-options=-z,now", True),
    ("--display-error-number", False), ("-err-no", False), ("--no-display-error-number", False),
    ("-no-err-no", False), ("--resource-usage", False), ("-res-usage", False), ("--keep", False), ("-keep", False),
    ("--default-stream per-thread", True), ("-default-stream=per-thread", True), ("--default-stream legacy", False),
    ("-default-stream null", False), ("-cudart shared", True), ("--cudart=none", True), ("--ftz=true", False),
    ("-ftz=false", False), ("--fmad=true", False), ("-fmad=false", False), ("--prec-div=true", False),
    ("-prec-sqrt=true", False), ("--prec-sqrt true", False), ("-prec-div true", False), ("-Werror all-warnings", False),
    ("--Werror=all-warnings", False), ("--dopt on", False), ("-dopt=off", False),
    ("-Wno-deprecated-gpu-targets", False), ("--Wno-deprecated-gpu-targets", False),
    ("--Wno-deprecated-declarations", False), ("--forward-unknown-to-host-compiler", False),
    ("-forward-unknown-to-host-compiler", False), ("--allow-unsupported-compiler", False),
    ("-allow-unsupported-compiler", False), ("--use-local-env", False), ("-use-local-env", False),
    ("--source-in-ptx", False), ("-src-in-ptx", False), ("--restrict", False), ("-restrict", False),
    ("-arch=sm_80", True), ("-arch sm_70", True), ("--gpu-architecture=compute_80", False), ("-code=sm_80", False),
    ("--gpu-code sm_90", False), ("-arch=native", False), ("-arch=all", False),
    ("-gencode arch=compute_80,code=sm_80", True), ("-gencode=arch=compute_80,code=\\\"sm_80,compute_80\\\"", False),
    ("--generate-code arch=compute_80,code=[compute_80,sm_80]", True),
    ("--generate-code=arch=compute_90,code=[sm_90]", False), ("-arch=compute_$(subst .,,$(CC))", False),
    ("-fatbin", True), ("--fatbin", True), ("-cubin", True), ("--cubin", True),
]
# Converted, and marked: what hipcc takes instead does something the step around it may not expect.
NOTED = ["-ptx", "--ptx"]
# nvcc options hipcc has nothing for: removed, with a marker above the line.
REMOVED = [
    "-Xptxas -v", "-Xptxas=-O3,-v", "--ptxas-options=-v", "--ptxas-options -dlcm=cg", "-Xnvlink --suppress-stack-size-warning",
    "--nvlink-options=-v", "-Xarchive -x", "--archive-options=-x", "-Xcudafe --diag_suppress=esa_on_defaulted_function_ignored",
    "--diag-suppress 177", "-diag-suppress=20012", "--diag_suppress=550", "--diag-warn 177", "-diag-warn=177",
    "--diag-error 177", "-diag-error=177", "-maxrregcount=32", "--maxrregcount 64", "-maxrregcount $(REGS)",
    "-ccbin g++", "--compiler-bindir=/usr/bin/g++-12", "-ccbin=$(CXX)", "--keep-dir /tmp/k", "-keep-dir=build",
    "-dlink", "--device-link", "--machine 32", "-cudart static", "--prec-div=false", "-prec-sqrt false",
    "-Werror cross-execution-space-call", "--Werror reorder,deprecated-declarations", "-optix-ir",
    "--optix-ir", "-dlto", "--dlink-time-opt", "-cuda", "--cuda",
    "-deviceemu", "--device-emulation", "-odir $(@D)", "--output-directory=build",
]
# CUDA link libraries: what the converted link line must let hipcc link on HIP 5.2 (Debian's packages).
LIBRARIES = ["-lcudart", "-lcudart_static", "-lcuda", "-lcurand", "-lcudadevrt", "-lculibos"]


def _convert(flags: str, database) -> str:
    from portkit.convert.build_files import convert_makefile
    from portkit.rules.versions import Target

    # Given to nvcc: an option rewritten only where hipcc gets it (-std=c++03) is rewritten.
    return convert_makefile(f"FLAGS = {flags}\nk: k.cu\n\tnvcc $(FLAGS) -c $<\n", database,
                            target=Target(rocm=(5, 2, 0))).text


def _converted_flags(text: str) -> list[str]:
    line = next(line for line in text.splitlines() if line.startswith("FLAGS ="))
    return shlex.split(line.removeprefix("FLAGS =").replace("\\\"", "\""))


def _hipcc(tmp_path: Path, flags: list[str], link: bool) -> subprocess.CompletedProcess:
    hipcc = require_tool("hipcc")
    (tmp_path / "k.cu").write_text(KERNEL)
    target = ["-o", "k"] if link else ["-c", "-o", "k.o"]
    if "-c" in flags:  # -dc, -dw compile only
        target = ["-o", "k.o"]
    return subprocess.run([hipcc, "--offload-arch=gfx90a", *flags, "k.cu", *target], cwd=tmp_path, capture_output=True,
                          text=True, env={**os.environ, "HIP_PLATFORM": "amd"}, timeout=300, check=False)


@pytest.mark.parametrize(("nvcc", "link"), TRANSLATED, ids=[case for case, _ in TRANSLATED])
def test_a_translated_option_is_accepted_by_hipcc(nvcc: str, link: bool, tmp_path: Path, database) -> None:
    text = _convert(nvcc, database)
    assert "portkit:" not in text, text
    assert _convert_file_twice(text, database) == text  # converting twice changes nothing
    result = _hipcc(tmp_path, _converted_flags(text), link)
    assert result.returncode == 0, f"{nvcc} -> {_converted_flags(text)}: {result.stderr[-2000:]}"


@pytest.mark.parametrize("nvcc", NOTED)
def test_a_translated_option_with_a_note_is_accepted_and_marked(nvcc: str, tmp_path: Path, database) -> None:
    text = _convert(f"-O2 {nvcc} -DX=1", database)
    assert text.splitlines()[2].startswith(f"# portkit: PK403 {nvcc}:"), text  # after the HIP_PLATFORM lines
    assert _convert_file_twice(text, database) == text
    assert _converted_flags(text) == ["-O2", "--genco", "-DX=1"]
    result = _hipcc(tmp_path, _converted_flags(text), link=False)
    assert result.returncode == 0, f"{nvcc} -> {_converted_flags(text)}: {result.stderr[-2000:]}"


@pytest.mark.parametrize("nvcc", REMOVED)
def test_an_option_hipcc_lacks_is_removed_with_a_marker(nvcc: str, tmp_path: Path, database) -> None:
    text = _convert(f"-O2 {nvcc} -DX=1", database)
    assert text.splitlines()[2].startswith(f"# portkit: PK403 {nvcc}:"), text  # after the HIP_PLATFORM lines
    assert _converted_flags(text) == ["-O2", "-DX=1"]
    assert _convert_file_twice(text, database) == text
    # scan lists the option once, as convert marks it: not again for an option inside it (-Xcudafe --diag_suppress=1)
    assert [edit.written for edit in build_facts().edits(f"FLAGS = -O2 {nvcc} -DX=1\n")] == [nvcc]


def _convert_file_twice(text: str, database) -> str:
    from portkit.convert.build_files import convert_makefile
    from portkit.rules.versions import Target

    return convert_makefile(text, database, target=Target(rocm=(5, 2, 0))).text


def test_link_libraries_link_with_hipcc(tmp_path: Path, database) -> None:
    text = _convert(" ".join(LIBRARIES), database)
    flags = _converted_flags(text)
    assert not any("cuda" in flag for flag in flags), flags
    assert "# portkit: PK102 -lcudadevrt:" in text
    result = _hipcc(tmp_path, flags, link=True)
    assert result.returncode == 0, f"{flags}: {result.stderr[-2000:]}"


def test_every_option_of_the_table_has_a_case() -> None:
    spelled = {re.split(r"[= ]", case)[0] for case in [c for c, _ in TRANSLATED] + NOTED + REMOVED}
    missing = [name for option in build_facts().nvcc_options for name in option.names if name not in spelled]
    assert not missing


def test_an_older_hips_gpu_is_named_by_its_own_label() -> None:
    """Before HIP 6.0 sm_90's pair is the older gfx90a: its label is gfx90a's (MI210/MI250), not MI300X's."""
    from portkit.rules import Target

    older = build_facts().for_target(Target(rocm=(5, 2, 0)))
    assert older.describe("90") == "sm_90 (H100/H200) -> gfx90a (MI210/MI250)"
    assert build_facts().for_target(Target(rocm=(6, 2, 0))).describe("90") == "sm_90 (H100/H200) -> gfx942 (MI300X)"
