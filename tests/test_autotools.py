"""autoconf and automake projects (ccminer's shape): configure.ac and Makefile.am are build files to scan and convert
(portkit/walk.py, analyze/builds.py, convert/build_files.py), and the port configures and builds with the real
autoreconf, configure and make."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import offload_targets, require_tool

CONFIGURE_AC = """\
AC_INIT([miner], [1.0])
AM_INIT_AUTOMAKE([foreign])
AC_PROG_CC
AC_PROG_CXX
dnl Setup CUDA paths
AC_ARG_WITH([cuda],
   [  --with-cuda=PATH    prefix where cuda is installed [default=/usr/local/cuda]])
NVCC="nvcc"
if test -n "$with_cuda" ; then
  CUDA_LIBS="-lcudart"
  CUDA_LDFLAGS="-L$with_cuda/lib"
  if test -x "$with_cuda/bin/nvcc" ; then
    NVCC="$with_cuda/bin/nvcc"
  fi
else
  CUDA_LIBS="-lcudart"
  CUDA_LDFLAGS="-L/usr/local/cuda/lib64"
fi
AC_CHECK_LIB([cudart], [cudaMalloc], [], [AC_MSG_ERROR([the CUDA runtime is required])], [$CUDA_LDFLAGS])
AC_SUBST(CUDA_LIBS)
AC_SUBST(CUDA_LDFLAGS)
AC_SUBST(NVCC)
AC_CONFIG_FILES([Makefile])
AC_OUTPUT
"""
MAKEFILE_AM = """\
bin_PROGRAMS = miner
miner_SOURCES = main.cpp kern.cu
miner_LDFLAGS = @CUDA_LDFLAGS@
miner_LDADD = @CUDA_LIBS@ -lcuda
nvcc_ARCH = -gencode=arch=compute_52,code=\\"sm_52,compute_52\\"

.cu.o:
\t$(NVCC) $(nvcc_ARCH) --maxrregcount=128 -o $@ -c $<

platform:
\t@echo $$HIP_PLATFORM
"""
KERNEL = """\
#include <cuda_runtime.h>
__global__ void fill(int *p) { p[threadIdx.x] = 1; }
int run(void) {
    int *p = 0;
    if (cudaMalloc(&p, 32 * sizeof(int)) != cudaSuccess) return 1;
    fill<<<1, 32>>>(p);
    return cudaFree(p) != cudaSuccess;
}
"""
MAIN = "int run(void);\nint main() { return run(); }\n"
# What a converted Makefile.am whose commands run configure's compiler starts with (rules/_build.yaml).
HIP_PLATFORM_LINES = "# hipcc builds for AMD GPUs even where nvcc is installed too\nexport HIP_PLATFORM ?= amd\n"


def _project(root: Path) -> Path:
    root.mkdir()
    for name, text in (("configure.ac", CONFIGURE_AC), ("Makefile.am", MAKEFILE_AM), ("kern.cu", KERNEL),
                       ("main.cpp", MAIN)):
        (root / name).write_text(text)
    return root


def _portkit(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "portkit", *arguments, "--rocm-version", "5.2"], capture_output=True,
                          text=True, check=True)


def _run(command: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env={**os.environ, **env}, timeout=600,
                            check=False)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


def test_configure_ac_and_makefile_am_are_scanned_as_build_files(tmp_path: Path) -> None:
    source = _project(tmp_path / "in")
    report = json.loads(_portkit("scan", str(source), "--format", "json").stdout)
    kinds = {Path(f["path"]).name: f["kind"] for f in report["files"]}
    assert kinds["configure.ac"] == "autoconf" and kinds["Makefile.am"] == "make", kinds
    found = {(Path(f["path"]).name, f["code"], f["name"]) for f in report["findings"]}
    assert {("configure.ac", "PK404", "cuda"), ("configure.ac", "PK404", "/usr/local/cuda"),
            ("Makefile.am", "PK403", "--maxrregcount=128"), ("Makefile.am", "PK401", "sm_52")} <= {
        (n, c, name) for n, c, name in found}, found
    cudart = [f for f in report["findings"] if f["name"] == "cudart"]
    assert len(cudart) == 3, cudart  # two -lcudart and AC_CHECK_LIB's


def test_an_autotools_project_configures_and_builds_with_hipcc(tmp_path: Path) -> None:
    """ccminer's configure.ac and Makefile.am were copied as they were: nvcc, -lcudart and sm_52's -gencode. The
    Makefile.am's $(NVCC), hipcc once configure.ac's nvcc is, built for NVIDIA where nvcc is installed too, unless the
    user set HIP_PLATFORM=amd: the converted Makefile.am sets it as a converted Makefile does, and the environment
    still chooses."""
    for tool in ("autoreconf", "automake", "make", "hipcc"):
        require_tool(tool)
    source = _project(tmp_path / "in")
    out = tmp_path / "out"
    _portkit("convert", str(source), "-o", str(out))
    configure_ac, makefile_am = (out / "configure.ac").read_text(), (out / "Makefile.am").read_text()
    assert 'NVCC="hipcc"' in configure_ac and 'test -x "$(command -v hipcc)"' in configure_ac, configure_ac
    assert "AC_CHECK_LIB([amdhip64], [hipMalloc]," in configure_ac, configure_ac
    assert "# portkit: PK404 cuda: configure's --with-cuda=PATH" in configure_ac, configure_ac
    assert makefile_am.startswith(HIP_PLATFORM_LINES + "bin_PROGRAMS = miner\n"), makefile_am
    assert "miner_LDADD = @CUDA_LIBS@ -lamdhip64\n" in makefile_am, makefile_am
    assert "nvcc_ARCH = --offload-arch=gfx90a\n" in makefile_am, makefile_am
    assert "# portkit: PK403 --maxrregcount=128" in makefile_am, makefile_am
    # The option's help text is configure --help's, no code: no marker inside it, none for its default path.
    assert "\nAC_ARG_WITH([cuda],\n   [  --with-cuda=PATH " in configure_ac, configure_ac
    assert configure_ac.count("# portkit: PK404 /usr/local/cuda") == 1, configure_ac
    _run(["autoreconf", "-i"], out)
    assert "portkit" not in _run(["./configure", "--help"], out).stdout
    # Debian's HIP is installed under /usr: the prefix the marker says to give configure.
    _run(["./configure", "--with-cuda=/usr"], out)
    assert "NVCC = hipcc" in (out / "Makefile").read_text()
    unset = {k: v for k, v in os.environ.items() if k != "HIP_PLATFORM"}
    made = subprocess.run(["make"], cwd=out, capture_output=True, text=True, env=unset, timeout=600)
    assert made.returncode == 0, made.stdout[-3000:] + made.stderr[-3000:]
    assert offload_targets(out / "kern.o")[1:] == ["hipv4-amdgcn-amd-amdhsa--gfx90a"]  # after the host's entry
    needed = _run(["readelf", "-d", "miner"], out).stdout
    assert "libamdhip64" in needed and "libcudart" not in needed, needed
    chosen = subprocess.run(["make", "-s", "platform"], cwd=out, capture_output=True, text=True, check=True,
                            env={**unset, "HIP_PLATFORM": "nvidia"}).stdout
    assert chosen == "nvidia\n"


# The project's CUDA check in a macro file of its own (autoconf-archive's ax_check_cuda.m4 shape), another macro in
# acinclude.m4: configure.ac only calls them.
CHECK_CUDA_M4 = """\
# AX_CHECK_CUDA: the project's CUDA check, kept out of configure.ac.
AC_DEFUN([AX_CHECK_CUDA], [
AC_ARG_WITH([cuda-dir],
  [AS_HELP_STRING([--with-cuda-dir=DIR], [CUDA install prefix])],
  [], [with_cuda_dir=/usr/local/cuda])
AC_ARG_WITH([cuda-libdir],
  [AS_HELP_STRING([--with-cuda-libdir=DIR], [CUDA library directory])],
  [], [with_cuda_libdir=$with_cuda_dir/lib64])
NVCC=nvcc
if test -x "$with_cuda_dir/bin/nvcc" ; then
  NVCC="$with_cuda_dir/bin/nvcc"
fi
CUDA_LDFLAGS="-L$with_cuda_libdir"
AC_CHECK_LIB([cudart], [cudaMalloc], [CUDA_LIBS="-lcudart"], [AC_MSG_ERROR([the CUDA runtime is required])], [$CUDA_LDFLAGS])
AC_SUBST(NVCC)
AC_SUBST(CUDA_LDFLAGS)
AC_SUBST(CUDA_LIBS)
])
"""
ACINCLUDE_M4 = """\
dnl AX_CUDA_ARCH: the GPU the kernels are built for.
AC_DEFUN([AX_CUDA_ARCH], [
NVCC_ARCH="-arch=sm_70"
AC_SUBST(NVCC_ARCH)
])
"""
MACRO_CALLING_CONFIGURE_AC = """\
AC_INIT([miner], [1.0])
AC_CONFIG_MACRO_DIRS([m4])
AM_INIT_AUTOMAKE([foreign])
AC_PROG_CXX
AX_CHECK_CUDA
AX_CUDA_ARCH
AC_CONFIG_FILES([Makefile])
AC_OUTPUT
"""
MACRO_MAKEFILE_AM = """\
bin_PROGRAMS = miner
miner_SOURCES = main.cpp kern.cu
miner_LDFLAGS = @CUDA_LDFLAGS@
miner_LDADD = @CUDA_LIBS@

.cu.o:
\t$(NVCC) $(NVCC_ARCH) -o $@ -c $<
"""


def test_the_cuda_checks_of_m4_macro_files_are_scanned_and_converted_and_the_port_builds(tmp_path: Path) -> None:
    """Only configure.ac and configure.in were autoconf's files: m4/ax_check_cuda.m4 and acinclude.m4, where projects
    keep their CUDA checks, were neither scanned nor converted, so the port's configure still looked for nvcc and
    cudart (and failed without them) and built for NVIDIA's architecture. Now every *.m4 file is autoconf's, scanned
    and converted as configure.ac is, and the port goes through the real autoreconf, configure and make: hipcc,
    the given AMD GPU, libamdhip64. --with-cuda-dir and --with-cuda-libdir, variants of --with-cuda, are marked."""
    for tool in ("autoreconf", "automake", "make", "hipcc"):
        require_tool(tool)
    source = tmp_path / "in"
    (source / "m4").mkdir(parents=True)
    for name, text in (("configure.ac", MACRO_CALLING_CONFIGURE_AC), ("Makefile.am", MACRO_MAKEFILE_AM),
                       ("m4/ax_check_cuda.m4", CHECK_CUDA_M4), ("acinclude.m4", ACINCLUDE_M4), ("kern.cu", KERNEL),
                       ("main.cpp", MAIN)):
        (source / name).write_text(text)
    report = json.loads(_portkit("scan", str(source), "--format", "json", "--no-cache").stdout)
    kinds = {Path(f["path"]).name: f["kind"] for f in report["files"]}
    assert kinds["ax_check_cuda.m4"] == "autoconf" and kinds["acinclude.m4"] == "autoconf", kinds
    found = {(Path(f["path"]).name, f["line"], f["code"], f["name"]) for f in report["findings"]}
    assert {("ax_check_cuda.m4", 3, "PK404", "cuda-dir"), ("ax_check_cuda.m4", 6, "PK404", "cuda-libdir"),
            ("ax_check_cuda.m4", 13, "PK404", "$with_cuda_libdir"), ("ax_check_cuda.m4", 9, "PK407", "nvcc"),
            ("ax_check_cuda.m4", 14, "PK100", "cudaMalloc"), ("acinclude.m4", 3, "PK401", "sm_70")} <= found, found
    out = tmp_path / "out"
    _portkit("convert", str(source), "-o", str(out), "--offload-arch", "gfx90a")
    check_cuda, acinclude = (out / "m4" / "ax_check_cuda.m4").read_text(), (out / "acinclude.m4").read_text()
    assert "AC_CHECK_LIB([amdhip64], [hipMalloc], [CUDA_LIBS=\"-lamdhip64\"]" in check_cuda, check_cuda
    assert "\nNVCC=hipcc\n" in check_cuda and "# portkit: PK404 cuda-libdir: configure's option names" in check_cuda
    assert 'NVCC_ARCH="--offload-arch=gfx90a"' in acinclude, acinclude
    _run(["autoreconf", "-i"], out)
    assert "portkit" not in _run(["./configure", "--help"], out).stdout
    # Debian's HIP is installed under /usr: the directories the markers say to give configure.
    _run(["./configure", "--with-cuda-dir=/usr", "--with-cuda-libdir=/usr/lib/x86_64-linux-gnu"], out)
    assert "NVCC = hipcc" in (out / "Makefile").read_text()
    unset = {k: v for k, v in os.environ.items() if k != "HIP_PLATFORM"}
    made = subprocess.run(["make"], cwd=out, capture_output=True, text=True, env=unset, timeout=600)
    assert made.returncode == 0, made.stdout[-3000:] + made.stderr[-3000:]
    assert offload_targets(out / "kern.o")[1:] == ["hipv4-amdgcn-amd-amdhsa--gfx90a"]
    needed = _run(["readelf", "-d", "miner"], out).stdout
    assert "libamdhip64" in needed and "libcudart" not in needed, needed


def test_with_cuda_options_naming_a_directory_of_cudas_are_marked_as_with_cuda_is(tmp_path: Path) -> None:
    """`AC_ARG_WITH([cuda])` had a PK404 marker, `[cuda-home]`, `[cuda_dir]` and `[cuda-libdir]` none, nor their
    values read as paths (`$with_cuda_home`). Now each is marked and listed; `[cuda-arch]`, no directory, is not."""
    require_tool("autoconf")
    source = tmp_path / "in"
    source.mkdir()
    (source / "configure.ac").write_text(
        "AC_INIT([demo], [1.0])\n"
        "AC_ARG_WITH([cuda-home], [AS_HELP_STRING([--with-cuda-home=DIR], [CUDA prefix])])\n"
        "AC_ARG_WITH(cuda_dir, [AS_HELP_STRING([--with-cuda_dir=DIR], [CUDA prefix])])\n"
        "AC_ARG_WITH([cuda-libdir], [AS_HELP_STRING([--with-cuda-libdir=DIR], [CUDA libraries])])\n"
        "AC_ARG_WITH([cuda-arch], [AS_HELP_STRING([--with-cuda-arch=SM], [GPU])])\n"
        "CUDA_CPPFLAGS=\"-I${with_cuda_home}/include\"\n"
        "AC_SUBST([CUDA_CPPFLAGS])\nAC_OUTPUT\n")
    report = json.loads(_portkit("scan", str(source), "--format", "json", "--no-cache").stdout)
    found = {(f["line"], f["code"], f["name"]) for f in report["findings"]}
    assert {(2, "PK404", "cuda-home"), (3, "PK404", "cuda_dir"), (4, "PK404", "cuda-libdir"),
            (6, "PK404", "${with_cuda_home}")} <= found, found
    assert not any(line == 5 for line, _, _ in found), found
    _portkit("convert", str(source), "-o", str(tmp_path / "out"))
    converted = (tmp_path / "out" / "configure.ac").read_text()
    for name in ("cuda-home", "cuda_dir", "cuda-libdir", "${with_cuda_home}"):
        assert f"# portkit: PK404 {name}: " in converted, converted
    assert "cuda-arch:" not in converted
    _run(["autoconf"], tmp_path / "out")
    assert "portkit" not in _run(["./configure", "--help"], tmp_path / "out").stdout
