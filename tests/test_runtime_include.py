"""The runtime include only the project decides (portkit/analyze/runtime_include.py): a project analysis."""
from __future__ import annotations

from pathlib import Path

import pytest

from portkit.analyze.registry import project_analyses
from portkit.analyze.runtime_include import RUNTIME_INCLUDE, RuntimeNeeds
from portkit.codes import HIP_PREAMBLE
from portkit.rules import Target
from portkit.run.cache import pack_result, unpack_result
from portkit.run.plan import collect_run
from portkit.run.project import finish_run, run_project
from portkit.settings import RunSettings

TREE = {
    "common.h": "#pragma once\n#ifdef WITH_CUDA\n#include <cuda_runtime.h>\n#else\ntypedef void* cudaStream_t;\n#endif\n",
    "host.cpp": '#include "common.h"\nvoid run(cudaStream_t s) { (void)s; }\n',  # the project's guarded definition covers it
    "lonely.cpp": "void plain(cudaStream_t s);\n",  # reaches no guarded definition: nvcc's runtime it is
    "lib/kernels.cuh": "#pragma once\n__global__ void zero(T* x) { x[threadIdx.x] = T(); }\n",
    "app/main.cpp": '#define T float\n#include "../lib/kernels.cuh"\nint f() { return 0; }\n',  # reaches a CUDA header
    "other/use.cpp": "#define T int\nint g() { return 0; }\n",  # reaches none
}


def _settings(tmp_path: Path, cache: bool) -> RunSettings:
    for name, text in TREE.items():
        (tmp_path / "src" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "src" / name).write_text(text)
    return RunSettings(paths=(str(tmp_path / "src"),), root=tmp_path, target=Target(rocm=(5, 2, 0)), jobs=1, cache=cache)


def _runtime_includes(findings) -> set[str]:
    return {Path(f.path).name for f in findings if f.code == HIP_PREAMBLE and "hip_runtime" in f.name}


def test_it_is_registered_by_its_module_alone() -> None:
    assert RUNTIME_INCLUDE in project_analyses()


def test_the_project_decides_which_files_get_the_runtime_header(tmp_path: Path) -> None:
    found = _runtime_includes(run_project(_settings(tmp_path, cache=False)).findings)
    assert found == {"lonely.cpp", "main.cpp", "kernels.cuh"}


@pytest.mark.parametrize("cache", [False, True], ids=["fresh", "cached"])
def test_each_file_carries_its_fact_and_a_packed_result_carries_it_back(tmp_path: Path, cache: bool) -> None:
    """Collected in the worker, kept with the file's result: the cache and the shard documents pack it generically."""
    settings = _settings(tmp_path, cache)
    collected = collect_run(settings)
    by_name = {Path(r.file.path).name: r for r in collected.results}
    needs = by_name["lonely.cpp"].facts[RUNTIME_INCLUDE.name]
    assert isinstance(needs, RuntimeNeeds) and needs.names == ("cudaStream_t",) and needs.candidate is not None
    assert by_name["common.h"].facts[RUNTIME_INCLUDE.name].guarded == ("cudaStream_t",)
    for result in collected.results:
        assert unpack_result(result.file, pack_result(result)).facts == result.facts
    if cache:  # a second run reads every fact back from the cache, and decides the same
        assert _runtime_includes(finish_run(collect_run(settings)).findings) == _runtime_includes(
            finish_run(collected).findings)


def _run(tmp_path: Path, files: dict[str, str]):
    for name, text in files.items():
        (tmp_path / "src" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "src" / name).write_text(text)
    return run_project(RunSettings(paths=(str(tmp_path / "src"),), root=tmp_path, target=Target(rocm=(5, 2, 0)),
                                   jobs=1, cache=False))


def test_the_finish_puts_the_runtime_include_of_a_c_included_header_in_a_cpp_block(tmp_path: Path) -> None:
    """main.cpp includes api.h inside `extern "C" { }`: the fact is main.cpp's, the preamble api.h's."""
    found = _run(tmp_path, {"api.h": "__global__ void z(float* x);\n",
                            "main.cpp": 'extern "C" {\n#include "api.h"\n}\nint main() { return 0; }\n',
                            "other.h": "__global__ void y(float* x);\n"}).findings
    texts = {Path(f.path).name: f.fix.text for f in found if f.code == HIP_PREAMBLE}
    assert 'extern "C++" {' in texts["api.h"] and 'extern "C++"' not in texts["other.h"]


def test_the_finish_settles_each_include_prerequisite_so_convert_only_applies_it(tmp_path: Path) -> None:
    """co.cu's preamble brings hip_runtime.h first: its cooperative groups include needs nothing before it. A
    header without a preamble keeps the prerequisite. Decided in the finish: the findings say it already."""
    found = _run(tmp_path, {"co.cu": "#include <cooperative_groups.h>\n__global__ void g(float *x) { x[0] = 1; }\n",
                            "h.cuh": "#pragma once\n#include <cooperative_groups.h>\n"}).findings
    includes = {Path(f.path).name: f.fix.prerequisite for f in found
                if f.fix is not None and f.name == "cooperative_groups.h"}
    assert includes == {"co.cu": "", "h.cuh": "hip/hip_runtime.h"}
