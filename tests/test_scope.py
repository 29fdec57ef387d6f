"""Which of the project's definitions each file sees (portkit/scope.py): one tree, several programs."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from portkit.cli import main
from portkit.scope import ProjectNames


@dataclasses.dataclass(frozen=True)
class Defines:
    definitions: frozenset[str] = frozenset()
    internal: frozenset[str] = frozenset()
    includes: tuple[str, ...] = ()


def names(**files: Defines) -> ProjectNames:
    return ProjectNames((path.replace("__", "/").replace("_dot_", "."), result) for path, result in files.items())


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


def test_linked_definitions_are_seen_everywhere_static_ones_only_at_home() -> None:
    project = names(
        util_dot_cu=Defines(frozenset({"cudaDeviceReset", "umin"}), internal=frozenset({"umin"})),
        main_dot_cu=Defines(),
        lonely_dot_h=Defines(frozenset({"cudaFree"})),  # nobody includes it: maybe forced in with -include
        kernel_dot_cu=Defines(frozenset({"cudaMalloc"})),
        host_dot_cu=Defines(includes=("kernel.cu",)),
    )
    seen = project.seen_by("main.cu")
    assert "cudaDeviceReset" in seen and "umin" not in seen and "cudaFree" in seen
    assert "cudaMalloc" in project.seen_by("host.cu") and "cudaMalloc" not in seen


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
        assert "(2 of 2 API sites port by renaming)" in capsys.readouterr().out
    assert main(["convert", "--no-cache", str(tree), "-o", str(tmp_path / "out")]) == 0
    assert "void ka(CUtexObject t)" in (tmp_path / "out" / "a" / "a.cu").read_text()
    assert "void kb(hipTextureObject_t t)" in (tmp_path / "out" / "b" / "b.cu").read_text()
