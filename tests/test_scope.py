"""Which of the project's definitions each file sees (portkit/run/scope.py): one tree, several programs."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from portkit.cli import main
from portkit.run.scope import ProjectNames


@dataclasses.dataclass(frozen=True)
class Defines:
    definitions: frozenset[str] = frozenset()
    internal: frozenset[str] = frozenset()
    includes: tuple[str, ...] = ()
    declared: frozenset[str] = frozenset()
    vendor_layer: str = ""
    alternative_includes: frozenset[str] = frozenset()


def names(**files: Defines) -> ProjectNames:
    """The project of these files, where the names a CUDA header declares too are those spelled `cuda...`, `CUDA...`."""
    return ProjectNames(((path.replace("__", "/").replace("_dot_", "."), result) for path, result in files.items()),
                        lambda defined: {name for name in defined if name.startswith(("cuda", "CUDA"))})


def test_a_header_is_seen_by_the_files_that_include_it_however_deep() -> None:
    project = names(
        a__copy_dot_h=Defines(frozenset({"CUtexObject"})),
        a__wrap_dot_h=Defines(includes=("copy.h",)),
        a__main_dot_cu=Defines(includes=("wrap.h",)),
        b__other_dot_cu=Defines(includes=("cuda.h",)),
    )
    assert "CUtexObject" in project.seen_by("a/main.cu") and "CUtexObject" in project.seen_by("a/wrap.h")
    assert "CUtexObject" not in project.seen_by("b/other.cu")
    assert "CUtexObject" in project.any_file()


def test_a_translation_units_names_are_seen_where_it_is_compiled_a_lonely_headers_everywhere() -> None:
    project = names(
        util_dot_cu=Defines(frozenset({"cudaDeviceReset", "cudaDeviceSynchronize", "projectHelper"})),
        util_dot_h=Defines(frozenset({"cudaDeviceReset"})),  # declares one of them
        main_dot_cu=Defines(includes=("util.h",)),
        other_dot_cu=Defines(includes=("cuda_runtime.h",)),
        lonely_dot_h=Defines(frozenset({"cudaFree", "umin"}), internal=frozenset({"umin"})),  # maybe forced in with -include
        kernel_dot_cu=Defines(frozenset({"cudaMalloc"})),
        host_dot_cu=Defines(includes=("kernel.cu",)),
        unity_dot_cu=Defines(frozenset({"CUDA_VERSION", "clamp"}), internal=frozenset({"clamp"}), includes=("wrap.h",)),
        wrap_dot_h=Defines(includes=("part.cu",)),
        part_dot_cu=Defines(),
    )
    seen = project.seen_by("main.cu")
    assert "cudaDeviceReset" in seen and "cudaDeviceSynchronize" not in seen
    other = project.seen_by("other.cu")
    assert not {"cudaDeviceReset", "cudaDeviceSynchronize", "cudaMalloc", "CUDA_VERSION"} & {n for n in project.any_file() if n in other}
    assert "cudaFree" in other and "umin" not in other
    assert "projectHelper" in other  # no CUDA name: linked, whatever declares it (a header outside the tree)
    assert "cudaMalloc" in project.seen_by("host.cu") and "cudaMalloc" not in seen
    part = project.seen_by("part.cu")  # included by the unit through a header: compiled as part of it
    assert "CUDA_VERSION" in part and "clamp" in part
    assert "CUDA_VERSION" in project.any_file() and "clamp" not in project.any_file()


def test_include_cycles_end() -> None:
    project = names(x_dot_h=Defines(frozenset({"cudaFree"}), includes=("y.h",)), y_dot_h=Defines(includes=("x.h",)),
                    z_dot_cu=Defines(includes=("y.h",)))
    assert "cudaFree" in project.seen_by("z.cu")


def _tree(tmp_path: Path) -> Path:
    """Two programs in one tree: the first ships its own copy of a driver API typedef."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "driver_copy.h").write_text("typedef unsigned long long CUtexObject;\n")
    (tmp_path / "a" / "wrap.h").write_text('#include "driver_copy.h"\n')
    (tmp_path / "a" / "a.cu").write_text('#include "wrap.h"\n__global__ void ka(CUtexObject t) {}\n')
    (tmp_path / "b" / "b.cu").write_text("#include <cuda.h>\n__global__ void kb(CUtexObject t) {}\n")
    return tmp_path


def test_one_programs_copy_of_a_cuda_name_is_not_its_neighbours(tmp_path: Path, capsys) -> None:
    (tmp_path / "in").mkdir()
    tree = _tree(tmp_path / "in")
    for extra in (["--no-cache"], [], []):  # cold, filling the cache, from the cache (summary-only tallies too)
        assert main(["scan", "-f", "json", *extra, str(tree)]) == 0
        findings = json.loads(capsys.readouterr().out)["findings"]
        assert [(Path(f["path"]).name, f["line"]) for f in findings if f["name"] == "CUtexObject"] == [("b.cu", 2)]
        assert main(["scan", *extra, str(tree)]) == 0  # counted in the workers: b.cu's include and CUtexObject
        out = capsys.readouterr().out
        assert "readiness 100%" in out and "API sites: supported 2, partial 0," in out
    assert main(["convert", "--no-cache", str(tree), "-o", str(tmp_path / "out")]) == 0
    assert "void ka(CUtexObject t)" in (tmp_path / "out" / "a" / "a.cu").read_text()
    assert "void kb(hipTextureObject_t t)" in (tmp_path / "out" / "b" / "b.cu").read_text()


def test_a_headers_use_of_its_includers_macro_is_no_unknown_cuda_name(tmp_path: Path, capsys) -> None:
    """llm.c's zero.cuh calls `cudaCheck`, which common.h defines; zero.cuh does not include common.h, the
    units that include both do (first common.h). Some file defines it: the project's, never PK105."""
    tree = tmp_path / "in"
    tree.mkdir()
    (tree / "common.h").write_text("#pragma once\n#include <cuda_runtime.h>\n"
                                   "#define cudaCheck(err) (cudaCheck_(err, __FILE__, __LINE__))\n"
                                   "void cudaCheck_(cudaError_t e, const char *f, int l);\n")
    (tree / "zero.cuh").write_text("#pragma once\ninline void zeroInit() { cudaCheck(cudaSetDevice(0)); cudaFooBar(); }\n")
    (tree / "train.cu").write_text('#include "common.h"\n#include "zero.cuh"\nint main() { zeroInit(); }\n')
    for extra in (["--no-cache"], [], []):  # cold, filling the cache, from the cache (summary-only tallies too)
        assert main(["scan", "-f", "json", *extra, str(tree)]) == 0
        unknown = [f["name"] for f in json.loads(capsys.readouterr().out)["findings"] if f["code"] == "PK105"]
        assert unknown == ["cudaFooBar"]  # the one CUDA-looking name no file defines
        assert main(["scan", *extra, str(tree)]) == 0
        assert "CUDA-looking names no rule knows (1): cudaFooBar" in capsys.readouterr().out


def test_a_name_in_a_namespace_the_project_defines_is_no_unknown_cuda_name(tmp_path: Path, capsys) -> None:
    """AMGX's memory.h: `namespace amgx { namespace thrust { namespace global_thread_handle = amgx::memory; } }`, and
    profile.cu calls `thrust::global_thread_handle::get_stream()` inside amgx: the project's namespace and function,
    no CUDA name. A Thrust name the project does not define stays unknown, the project's `thrust` namespace or not."""
    tree = tmp_path / "in"
    tree.mkdir()
    (tree / "handle.h").write_text("#pragma once\n#include <cuda_runtime.h>\nnamespace mylib {\n"
                                   "namespace memory { inline cudaStream_t get_stream() { return 0; } }\n"
                                   "namespace thrust { namespace global_thread_handle = mylib::memory;\n"
                                   "template <class T> struct wrapped { static T unwrap(T t) { return t; } }; }\n}\n")
    (tree / "use.cu").write_text('#include "handle.h"\nnamespace mylib {\n__global__ void k() {}\n'
                                 "void launch() { k<<<1, 1, 0, thrust::global_thread_handle::get_stream()>>>(); }\n"
                                 "void other() { thrust::made_up_name(); thrust::wrapped<int>::unwrap(1); }\n}\n")
    for extra in (["--no-cache"], [], []):  # cold, filling the cache, from the cache (summary-only tallies too)
        assert main(["scan", "-f", "json", *extra, str(tree)]) == 0
        unknown = [f["name"] for f in json.loads(capsys.readouterr().out)["findings"] if f["code"] == "PK105"]
        assert unknown == ["thrust::made_up_name"]
        assert main(["scan", *extra, str(tree)]) == 0
        assert "CUDA-looking names no rule knows (1): thrust::made_up_name" in capsys.readouterr().out


def test_a_build_switch_the_preprocessor_tests_is_no_unknown_cuda_name(tmp_path: Path, capsys) -> None:
    """darknet's `#ifdef CUDNN`, nccl-tests' `#if defined(NCCL_OS_LINUX)`: switches the build files set with -D, which
    no source defines. Testing one is no use of a CUDA name; the same name used as a value still is."""
    source = tmp_path / "switches.cu"
    source.write_text("#include <cuda_runtime.h>\n#ifdef CUDNN\nint a;\n#elif defined(NCCL_OS_LINUX)\nint b;\n"
                      "#endif\n#if CUDA_DEBUG\nint c;\n#endif\n#ifndef CUDNN_HALF\nint d = CUDNN_HALF_LEVEL;\n#endif\n")
    assert main(["scan", "-f", "json", "--no-cache", str(source)]) == 0
    unknown = [f["name"] for f in json.loads(capsys.readouterr().out)["findings"] if f["code"] == "PK105"]
    assert unknown == ["CUDNN_HALF_LEVEL"]


def test_another_vendors_alias_of_a_cuda_name_leaves_it_cudas(tmp_path: Path, capsys) -> None:
    """llama.cpp's vendors/musa.h (`#define cudaMalloc musaMalloc`), included for Moore Threads builds only, is a port's
    alias as a HIP shim's line is: the uses stay CUDA's and convert writes HIP's. So is any other definition there of a
    CUDA name (only MUSA's compiler reads the header). A project's own wrapper, in a header of its own, is its own."""
    tree = tmp_path / "in"
    (tree / "vendors").mkdir(parents=True)
    (tree / "vendors" / "musa.h").write_text("#pragma once\n#include <musa_runtime.h>\n#define cudaMalloc musaMalloc\n"
                                             "#define cudaStream_t musaStream_t\n#define cudaFree tracked_free\n"
                                             "#define cudaMemset myCudaMemset\n")
    (tree / "wrap.h").write_text("#pragma once\n#define cudaMemcpy tracked_copy\n")
    (tree / "main.cu").write_text('#ifdef USE_MUSA\n#include "vendors/musa.h"\n#else\n#include <cuda_runtime.h>\n#endif\n'
                                  '#include "wrap.h"\n'
                                  "int main() { float *p; cudaStream_t s; cudaMalloc(&p, 16); cudaMemset(p, 0, 16); "
                                  "cudaMemcpy(p, p, 16, cudaMemcpyDefault); cudaFree(p); return 0; }\n")
    assert main(["convert", "--no-cache", str(tree), "-o", str(tmp_path / "out")]) == 0
    text = (tmp_path / "out" / "main.cu").read_text()
    assert "hipStream_t s; hipMalloc(&p, 16); hipMemset(p, 0, 16); cudaMemcpy(p, p, 16, hipMemcpyDefault); hipFree(p);" \
        in text


def test_a_cuda_header_name_is_the_projects_only_beside_its_includer(tmp_path: Path, monkeypatch) -> None:
    """Rodinia: b+tree's util/cuda/cuda.h is its own, and no other program's `<cuda.h>` or `"cuda.h"`; a CUDA
    Samples helper the tree ships (common/helper_cuda.h) is the project's wherever it is included from."""
    tree = tmp_path / "in"
    for path, text in {
        "btree/util/cuda.h": "int device_setup(int);\n",
        "btree/util/cuda.cu": '#include "cuda.h"\nint device_setup(int d) { return d; }\n',
        "btree/kernel/wrap.cu": '#include "../util/cuda.h"\nint wrap() { return device_setup(0); }\n',
        "backprop/bp.cu": "#include <cuda.h>\nint main() { float *d; cudaMalloc(&d, 4); return 0; }\n",
        "gaussian/g.cu": '#include "cuda.h"\nint main() { float *d; cudaMalloc(&d, 4); return 0; }\n',
        "common/helper_cuda.h": "#pragma once\n#define checkCudaErrors(x) (x)\n",
        "vendors/cuda.h": "#pragma once\n#include <cuda.h>\n",  # llama.cpp's: an angled include never looks beside
        "cfd/e.cu": "#include <helper_cuda.h>\nint main() { checkCudaErrors(cudaDeviceSynchronize()); return 0; }\n",
    }.items():
        (tree / path).parent.mkdir(parents=True, exist_ok=True)
        (tree / path).write_text(text)
    monkeypatch.setenv("PORTKIT_CACHE_DIR", str(tmp_path / "cache"))
    for run, inputs in enumerate(([tree], [tree / "backprop" / "bp.cu"], [tree])):  # the cache knows which it saw
        out = tmp_path / f"out{run}"
        assert main(["convert", *map(str, inputs), "-o", str(out)]) == 0
        bp = (out / "backprop" / "bp.cu") if run != 1 else (out / "bp.cu")
        assert "<cuda.h>" not in bp.read_text() and "#include <hip/hip_runtime.h>" in bp.read_text()
        if run != 1:
            assert '#include "cuda.h"' in (out / "btree" / "util" / "cuda.cu").read_text()
            assert "#include <hip/hip_runtime.h>" in (out / "vendors" / "cuda.h").read_text()
            assert '#include "../util/cuda.h"' in (out / "btree" / "kernel" / "wrap.cu").read_text()
            assert '"cuda.h"' not in (out / "gaussian" / "g.cu").read_text()
            assert "#include <helper_cuda.h>" in (out / "cfd" / "e.cu").read_text()  # the tree's own copy


def test_a_cached_result_does_not_outlive_the_cuda_header_its_project_adds(tmp_path: Path, monkeypatch) -> None:
    """main.cu's `#include "cuda.h"` is CUDA's until the program ships its own cuda.h beside it: main.cu's bytes do not
    change, so its cached result must not be the answer of the tree without that file."""
    tree = tmp_path / "in"
    tree.mkdir()
    (tree / "main.cu").write_text('#include "cuda.h"\nint main() { float *d; cudaMalloc(&d, 4); return 0; }\n')
    monkeypatch.setenv("PORTKIT_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["convert", str(tree), "-o", str(tmp_path / "before")]) == 0
    assert '"cuda.h"' not in (tmp_path / "before" / "main.cu").read_text()
    (tree / "cuda.h").write_text("#pragma once\nint cudaMalloc(float **p, int n);\n")  # the program's own stand-in
    assert main(["convert", str(tree), "-o", str(tmp_path / "after")]) == 0
    assert '#include "cuda.h"' in (tmp_path / "after" / "main.cu").read_text()


DYNLINK_H = """#ifdef _WIN32
#define CUDAAPI __stdcall
#else
#define CUDAAPI
#endif
typedef int CUresult;
typedef CUresult CUDAAPI tcuDeviceGet(int *device, int ordinal);
extern CUresult CUDAAPI cuInit(unsigned int, int cudaVersion);
extern tcuDeviceGet *cuDeviceGet;
"""


def test_one_programs_copy_of_the_driver_api_is_not_its_neighbours(tmp_path: Path) -> None:
    """A samples tree: one program loads the driver API at run time, declaring and defining it; the others call
    CUDA's."""
    tree = tmp_path / "in"
    (tree / "dynlink").mkdir(parents=True)
    (tree / "plain").mkdir()
    (tree / "dynlink" / "dynlink.h").write_text(DYNLINK_H)
    (tree / "dynlink" / "dynlink.c").write_text('#include "dynlink.h"\ntcuDeviceGet *cuDeviceGet;\n'
                                                "CUresult CUDAAPI cuInit(unsigned int f, int v) { return 0; }\n")
    (tree / "dynlink" / "main.cpp").write_text('#include "dynlink.h"\n'
                                               "int main() { int d; cuDeviceGet(&d, 0); return cuInit(0, 12000); }\n")
    (tree / "plain" / "main.cpp").write_text("#include <cuda.h>\n"
                                             "int main() { int d; cuDeviceGet(&d, 0); return cuInit(0); }\n")
    assert main(["convert", "--no-cache", str(tree), "-o", str(tmp_path / "out")]) == 0
    assert "int d; cuDeviceGet(&d, 0); return cuInit(0, 12000); }" in (tmp_path / "out" / "dynlink" / "main.cpp").read_text()
    assert "int d; hipDeviceGet(&d, 0); return hipInit(0); }" in (tmp_path / "out" / "plain" / "main.cpp").read_text()
