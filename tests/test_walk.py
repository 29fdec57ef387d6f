from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from portkit.errors import InputError
from portkit.walk import EXCLUDED, Excludes, TooLarge, all_files, discover, read_bytes, read_source


def tree(root: Path, files: dict[str, str | bytes]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return root


def paths(found) -> list[str]:
    return [Path(f.path).as_posix() for f in found[0]]


def test_extensions_and_build_files(tmp_path: Path) -> None:
    tree(tmp_path, {"a.cu": "", "b.cuh": "", "c.py": "", "d.txt": "", "CMakeLists.txt": "", "sub/Makefile": "", "e.CPP": "",
                    "Dockerfile": "", "gpu.Dockerfile": "", "requirements-dev.txt": "", "run.sh": "", "x.mk": ""})
    found = discover([str(tmp_path)])
    kinds = {Path(f.path).name: f.file_type for f in found[0]}
    assert kinds == {"a.cu": "source", "b.cuh": "source", "e.CPP": "source", "CMakeLists.txt": "cmake", "Makefile": "make",
                     "c.py": "python", "Dockerfile": "docker", "gpu.Dockerfile": "docker", "requirements-dev.txt": "requirements",
                     "run.sh": "script", "x.mk": "make"}


def test_files_a_makefile_includes_are_makefiles(tmp_path: Path) -> None:
    """`include ../common/make.defs`: a makefile whatever its name, and what it includes too; not a name made
    of variables or wildcards, a file the walk ignores, or one outside the walked tree."""
    tree(tmp_path, {
        "src/.gitignore": "ignored.defs\n",
        "src/Makefile": "include ../common/make.defs\n-include $(DEPS) *.d\nsinclude ignored.defs ../../outside.defs\n"
                        "k: k.cu\n\t$(NVCC) $< -o $@\n",
        "common/make.defs": "include flags.config  # the compiler's flags\nNVCC = nvcc\n",
        "common/flags.config": "CUDAFLAGS = -arch=sm_80\n", "common/unused.defs": "", "src/ignored.defs": "",
        "src/k.cu": "",
    })
    (tmp_path.parent / "outside.defs").write_text("NVCC = nvcc\n")
    kinds = {Path(f.path).relative_to(tmp_path).as_posix(): f.file_type for f in discover([str(tmp_path)])[0]}
    assert kinds == {"src/Makefile": "make", "common/make.defs": "make", "common/flags.config": "make",
                     "src/k.cu": "source"}
    only_src = {Path(f.path).relative_to(tmp_path).as_posix() for f in discover([str(tmp_path / "src")])[0]}
    assert only_src == {"src/Makefile", "src/k.cu"}  # ../common was not walked


def test_a_makefile_included_through_a_variable_and_its_template_are_makefiles(tmp_path: Path) -> None:
    """caffe: `CONFIG_FILE := Makefile.config` then `include $(CONFIG_FILE)`; the tree ships Makefile.config.example,
    which the user copies to Makefile.config. A variable of other words, or of none, names nothing."""
    tree(tmp_path, {
        "Makefile": "CONFIG_FILE := Makefile.config\nDEPS = $(OBJS:.o=.d)\ninclude $(CONFIG_FILE)\n-include $(DEPS)\n",
        "Makefile.config.example": "CUDA_DIR := /usr/local/cuda\n", "Makefile.config.unused": "", "k.d": "",
    })
    kinds = {Path(f.path).name: f.file_type for f in discover([str(tmp_path)])[0]}
    assert kinds == {"Makefile": "make", "Makefile.config.example": "make"}


def test_files_a_source_includes_are_sources_whatever_their_names(tmp_path: Path) -> None:
    """`#include "memory.nvidia.hpp.inc"`: a source, and what it includes too, found beside the includer or
    from a directory above it (a project root on the -I path); not a file the walk ignores or excludes, one
    in a directory it did not walk, or one no source includes."""
    tree(tmp_path, {
        ".gitignore": "ignored.inc\n",
        "cuda/k.cu": '#include "mem.hpp.inc"\n#include "common/ops.def"\n#include "ignored.inc"\n'
                     '#include "skipped.cuinc"\n#include <angled.inc>\n#include "../../outside.inc"\n',
        "cuda/mem.hpp.inc": '#include "nested.cuinc"\n', "cuda/nested.cuinc": "", "cuda/ignored.inc": "",
        "cuda/skipped.cuinc": "", "cuda/angled.inc": "", "cuda/unused.inc": "", "common/ops.def": "",
    })
    (tmp_path.parent / "outside.inc").write_text("")

    def includes_of(path: str) -> list[str]:
        return re.findall(r'#include "([^"]+)"', Path(path).read_text())

    found = discover([str(tmp_path)], excludes=[Excludes(("skipped.cuinc",))], includes_of=includes_of)
    kinds = {Path(f.path).relative_to(tmp_path).as_posix(): f.file_type for f in found[0]}
    assert kinds == {"cuda/k.cu": "source", "cuda/mem.hpp.inc": "source", "cuda/nested.cuinc": "source",
                     "common/ops.def": "source"}
    assert paths(discover([str(tmp_path)])) == [str(tmp_path / "cuda" / "k.cu")]  # the walk alone reads nothing


def test_gitignore_nested_and_exclude(tmp_path: Path) -> None:
    tree(tmp_path, {
        ".gitignore": "build/\n*.gen.cu\n",
        "src/keep.cu": "", "src/x.gen.cu": "", "build/out.cu": "",
        "third_party/.gitignore": "vendored.cu\n", "third_party/vendored.cu": "", "third_party/own.cu": "",
        "tests/t.cu": "",
    })
    found = paths(discover([str(tmp_path)], excludes=[Excludes(("tests/",))]))
    assert [Path(p).relative_to(tmp_path).as_posix() for p in found] == ["src/keep.cu", "third_party/own.cu"]


def test_a_mirror_keeps_excluded_files_and_leaves_ignored_ones(tmp_path: Path) -> None:
    """Excluded is "not scanned", not "not there": convert copies what the excludes name, never what git ignores."""
    tree(tmp_path, {".gitignore": "build/\n", "build/k.o": "", ".git/config": "", "a.cu": "", "vendor/v.h": "",
                    "vendor/sub/w.txt": "", "gen.cu": ""})
    found = all_files(str(tmp_path), [Excludes(("vendor/", "gen.cu"))])[0]
    assert {Path(f.path).relative_to(tmp_path).as_posix(): f.file_type for f in found} == {
        ".gitignore": "other", "a.cu": "other", "gen.cu": EXCLUDED, "vendor/v.h": EXCLUDED, "vendor/sub/w.txt": EXCLUDED}


def test_the_walk_keeps_what_git_keeps(tmp_path: Path) -> None:
    """Nested .gitignores with negations, anchored, directory-only and `**` patterns: the walk (which asks about
    each entry once, never entering an ignored directory) keeps exactly the files git does not ignore."""
    tree(tmp_path, {
        ".gitignore": "*.gen.cu\n!keep.gen.cu\n/top.cu\nout/\ndocs/**/x.cu\n",
        "top.cu": "", "a/top.cu": "", "a/b.gen.cu": "", "a/keep.gen.cu": "", "out/o.cu": "", "a/out/o.cu": "",
        "docs/x.cu": "", "docs/d/e/x.cu": "", "docs/y.cu": "",
        "lib/.gitignore": "*\n!*/\n!*.cuh\n", "lib/k.cu": "", "lib/k.cuh": "", "lib/deep/k.cuh": "",
        "lib/deep/k.cu": "", "src/.gitignore": "gen/\n!gen/\n", "src/gen/g.cu": "", "src/own.cu": "",
    })
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    listed = subprocess.run(["git", "-C", str(tmp_path), "ls-files", "--others", "--exclude-standard", "*.cu", "*.cuh"],
                            capture_output=True, text=True, check=True).stdout.split()
    walked = [Path(p).relative_to(tmp_path).as_posix() for p in paths(discover([str(tmp_path)]))]
    assert sorted(walked) == sorted(listed)


def test_custom_extensions(tmp_path: Path) -> None:
    tree(tmp_path, {"a.cu": "", "b.hip": ""})
    assert [Path(p).name for p in paths(discover([str(tmp_path)], extensions=("hip",)))] == ["b.hip"]


def test_missing_path_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file or directory"):
        discover([str(tmp_path / "nope")])


def test_symlink_loops_and_broken_links(tmp_path: Path) -> None:
    tree(tmp_path, {"a.cu": ""})
    os.symlink(tmp_path, tmp_path / "loop")
    os.symlink(tmp_path / "gone.cu", tmp_path / "dangling.cu")
    files, warnings = discover([str(tmp_path)])
    assert [Path(f.path).name for f in files] == ["a.cu"]
    assert warnings == [(str(tmp_path / "dangling.cu"), "broken symbolic link skipped", "skipped")]


def test_fifo_is_not_read(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.cu")
    assert discover([str(tmp_path)])[0] == []


def test_read_source_classifies_problems(tmp_path: Path) -> None:
    tree(tmp_path, {"bin.cu": b"\x7fELF\x00\x00", "latin.cu": b"// caf\xe9\nint x;\n", "ok.cu": b"int x;\n"})
    assert read_source(str(tmp_path / "bin.cu")).problem == "skipped"
    latin = read_source(str(tmp_path / "latin.cu"))
    assert (latin.problem, latin.encoding, latin.data) == ("encoding", "latin-1", b"// caf\xe9\nint x;\n")
    assert read_source(str(tmp_path / "ok.cu")).problem == ""
    vanished = read_source(str(tmp_path / "vanished.cu"))
    assert vanished.data is None and vanished.problem == "unreadable"


def test_a_file_longer_than_its_stat_said_is_read_whole_up_to_the_limit() -> None:
    # /proc files report a size of 0, as a file that grew after its stat would report too little.
    status = Path("/proc/self/status")
    if not status.exists() or status.stat().st_size != 0:
        pytest.skip("needs Linux /proc")
    data = read_bytes(str(status))
    assert data.startswith(b"Name:") and b"nonvoluntary_ctxt_switches" in data  # its first and last lines
    with pytest.raises(TooLarge):
        read_bytes(str(status), limit=64)
