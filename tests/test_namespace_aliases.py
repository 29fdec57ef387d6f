"""Qualified names another file's namespace alias resolves (portkit/analyze/namespace_aliases.py): a project analysis."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from conftest import require_tool
from portkit.cli import main

from portkit.analyze.namespace_aliases import NAMESPACE_ALIASES, AliasFacts
from portkit.analyze.registry import project_analyses
from portkit.rules import Target
from portkit.run.cache import pack_result, unpack_result
from portkit.run.plan import collect_run
from portkit.run.project import finish_run
from portkit.run.request import RunRequest
from portkit.settings import RunSettings

TREE = {
    "helpers.cuh": "#pragma once\n#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n",
    "k.cu": '#include "helpers.cuh"\n__global__ void k() {\n  cg::thread_block b = cg::this_thread_block();\n}\n',
    "plain.cu": "void f() { other::this_thread_block(); }\n",  # no alias names `other`: nothing to resolve
}


def _settings(tmp_path: Path, cache: bool) -> RunSettings:
    for name, text in TREE.items():
        (tmp_path / "src").mkdir(exist_ok=True)
        (tmp_path / "src" / name).write_text(text)
    return RunSettings(paths=(str(tmp_path / "src"),), root=tmp_path, target=Target(rocm=(5, 2, 0)), jobs=1, cache=cache)


def test_it_is_registered_by_its_module_alone() -> None:
    assert NAMESPACE_ALIASES in project_analyses()


@pytest.mark.parametrize("cache", [False, True], ids=["fresh", "cached"])
def test_the_project_resolves_names_through_another_files_alias(tmp_path: Path, cache: bool) -> None:
    settings = _settings(tmp_path, cache)
    collected = collect_run(settings)
    facts = {Path(r.file.path).name: r.facts[NAMESPACE_ALIASES.name] for r in collected.results}
    assert facts["helpers.cuh"] == AliasFacts((("cg", "cooperative_groups"),), ())
    assert [o.text for o in facts["k.cu"].pending] == ["cg::thread_block", "cg::this_thread_block"]
    for result in collected.results:
        assert unpack_result(result.file, pack_result(result)).facts == result.facts
    result = finish_run(collect_run(settings) if cache else collected)
    assert result.context.aliases == (("cg", "cooperative_groups"),)
    names = {(Path(f.path).name, f.name) for f in result.findings if f.name.startswith("cooperative_groups::")}
    assert names == {("k.cu", "cooperative_groups::thread_block"), ("k.cu", "cooperative_groups::this_thread_block")}


MEMBERS = {
    "cg_alias.h": "#pragma once\n#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n",
    "k.cu": '#include "cg_alias.h"\n__global__ void k(float *out, int n) {\n  cg::thread_block tb = cg::this_thread_block();\n'
            "  for (int i = tb.thread_index().x; i < n; i += tb.group_dim().x) out[i] = 0.f;\n}\n",
}


@pytest.mark.parametrize("cache", [False, True], ids=["fresh", "cached"])
def test_members_of_a_namespace_another_files_alias_names_are_found(tmp_path: Path, cache: bool) -> None:
    """DeepSpeed's quant_reduce.cu: `tb.group_dim()` where `namespace cg = cooperative_groups;` is in an included
    header was missed (group_dim needs HIP 5.7), while the same alias in the file found it."""
    (tmp_path / "src").mkdir()
    for name, text in MEMBERS.items():
        (tmp_path / "src" / name).write_text(text)
    settings = RunSettings(paths=(str(tmp_path / "src"),), root=tmp_path, target=Target(rocm=(5, 2, 0)), jobs=1,
                           cache=cache)
    if cache:
        collect_run(settings)  # the second run reads every fact back from the cache
    result = finish_run(collect_run(settings))
    members = [(Path(f.path).name, f.position.line, f.status.value) for f in result.findings
               if f.name == "cooperative_groups::thread_block::group_dim"]
    assert members == [("k.cu", 4, "unavailable")]
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(tmp_path / "src"), "-o", str(tmp_path / "out")]) == 0
    assert "// portkit: PK104 cooperative_groups::thread_block::group_dim: " in (tmp_path / "out" / "k.cu").read_text()


OWN_ALIAS = {
    "blocks.h": "#pragma once\nnamespace mylib { namespace blocks {\ninline int f() { return 1; }\n"
                "struct BlockReduce { int n; };\n} }\nnamespace cub = mylib::blocks;  // the project's own cub\n",
    "use.cu": '#include "blocks.h"\nint h() { cub::BlockReduce r{2}; return r.n + cub::f(); }\n',
}


@pytest.mark.parametrize("summary_only", [False, True], ids=["findings", "summary"])
def test_an_alias_to_the_projects_own_namespace_makes_its_names_the_projects(tmp_path: Path, summary_only: bool) -> None:
    """`namespace cub = mylib::blocks;` in a header: `cub::f()` in another file is the project's, no hipCUB rename."""
    (tmp_path / "src").mkdir()
    for name, text in OWN_ALIAS.items():
        (tmp_path / "src" / name).write_text(text)
    settings = RunSettings(paths=(str(tmp_path / "src"),), root=tmp_path, target=Target(rocm=(5, 2, 0)), jobs=1,
                           cache=False)
    result = finish_run(collect_run(settings, RunRequest(summary_only=summary_only)))
    sites = [s.name for tally in result.tallies.values() for s in tally.rows] if summary_only \
        else [f.name for f in result.findings]
    assert not [name for name in sites if name.startswith("cub")], sites


def test_the_converted_project_alias_builds_with_hipcc(tmp_path: Path) -> None:
    hipcc = require_tool("hipcc")
    (tmp_path / "src").mkdir()
    for name, text in OWN_ALIAS.items():
        (tmp_path / "src" / name).write_text(text)
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(tmp_path / "src"), "-o", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "use.cu").read_text() == OWN_ALIAS["use.cu"]
    built = subprocess.run([hipcc, "--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip", str(tmp_path / "out" / "use.cu")],
                           capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"})
    assert built.returncode == 0, built.stderr[-2000:]


def test_a_globally_qualified_name_is_read_as_the_name(tmp_path: Path, capsys) -> None:
    """`::thrust::made_up()` is as unknown as `thrust::made_up()`, and `::cub::BlockReduce` renamed as `cub::` is."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "g.cu").write_text(
        "#include <thrust/device_vector.h>\n#include <cub/cub.cuh>\n"
        "void g() { ::thrust::made_up(); }\ntypedef ::cub::BlockReduce<int, 128> Reduce;\n")
    assert main(["scan", "--no-cache", "--rocm-version", "5.2", "-v", str(tmp_path / "src")]) == 0
    assert "g.cu:3: ::thrust::made_up" in capsys.readouterr().out
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(tmp_path / "src"), "-o", str(tmp_path / "out")]) == 0
    assert "typedef ::hipcub::BlockReduce<int, 128> Reduce;" in (tmp_path / "out" / "g.cu").read_text()
