"""Qualified names another file's namespace alias resolves (portkit/analyze/namespace_aliases.py): a project analysis."""
from __future__ import annotations

from pathlib import Path

import pytest

from portkit.analyze.namespace_aliases import NAMESPACE_ALIASES, AliasFacts
from portkit.analyze.registry import project_analyses
from portkit.rules import Target
from portkit.run.cache import pack_result, unpack_result
from portkit.run.plan import collect_run
from portkit.run.project import finish_run
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
