"""The stat index: a warm run reads only what changed, and never trusts a stat it cannot."""
from __future__ import annotations

import os
from pathlib import Path

import portkit.run.plan as plan
from portkit.parse.macros import file_definitions
from portkit.run.project import run_project
from portkit.rules import Target
from portkit.settings import RunSettings
from portkit.run.statindex import StatIndex

OLD = 10**18  # ns: a modification time long before the file was read


def _reader(log: list[str]):
    def read(path: str) -> bytes:
        log.append(path)
        return Path(path).read_bytes()
    return read


def _aged(path: Path, text: str) -> str:
    path.write_text(text)
    os.utime(path, ns=(OLD, OLD))
    return str(path)


def test_unchanged_file_is_known_without_reading(tmp_path: Path) -> None:
    source = _aged(tmp_path / "k.cu", '#define CHECK(x) x\n#include "mem.hpp.inc"\nint a;\n')
    reads: list[str] = []
    index = StatIndex([str(tmp_path)], root=tmp_path / "cache")
    digest, scanned, _ = index.record(source, _reader(reads))
    index.save([source])
    again = StatIndex([str(tmp_path)], root=tmp_path / "cache").known(source)
    assert again == (digest, scanned) and scanned == (file_definitions(Path(source).read_bytes()), (b"mem.hpp.inc",))
    assert reads == [source]


def test_changed_size_or_time_is_not_known(tmp_path: Path) -> None:
    source = _aged(tmp_path / "k.cu", "int a;\n")
    index = StatIndex([str(tmp_path)], root=tmp_path / "cache")
    index.record(source, _reader([]))
    _aged(tmp_path / "k.cu", "int ab;\n")
    assert index.known(source) is None
    index.record(source, _reader([]))
    os.utime(source, ns=(OLD + 1, OLD + 1))
    assert index.known(source) is None


def test_file_modified_just_before_it_was_read_is_read_again(tmp_path: Path) -> None:
    """Racy: a same-size edit within the timestamp's granularity would keep the stat."""
    source = tmp_path / "k.cu"
    source.write_text("int a;\n")  # modified now, read now
    index = StatIndex([str(tmp_path)], root=tmp_path / "cache")
    index.record(str(source), _reader([]))
    assert index.known(str(source)) is None


def test_damaged_index_is_empty(tmp_path: Path) -> None:
    source = _aged(tmp_path / "k.cu", "int a;\n")
    index = StatIndex([str(tmp_path)], root=tmp_path / "cache")
    index.record(source, _reader([]))
    index.save([source])
    index.path.write_bytes(index.path.read_bytes()[:-3] + b"xx}")
    assert StatIndex([str(tmp_path)], root=tmp_path / "cache").known(source) is None


def test_a_warm_scan_reads_no_unchanged_file(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PORTKIT_CACHE_DIR", str(tmp_path / "cache"))
    tree = tmp_path / "src"
    tree.mkdir()
    for name in ("a.cu", "b.cu"):
        _aged(tree / name, "__global__ void k() {}\nvoid f() { cudaDeviceSynchronize(); }\n")
    _aged(tree / "a.cu", '#include "part.inc"\n')  # the walk follows it from the index too, reading nothing
    _aged(tree / "part.inc", "void g() { cudaDeviceReset(); }\n")
    settings = RunSettings(paths=(str(tree),), root=tmp_path, target=Target(rocm=(5, 2, 0)), jobs=1)
    first = run_project(settings)
    reads: list[str] = []
    real = plan.read_bytes
    monkeypatch.setattr(plan, "read_bytes", lambda path, limit: reads.append(path) or real(path, limit))
    second = run_project(settings)
    assert "cudaDeviceReset" in {f.name for f in first.findings}
    assert second.findings == first.findings and reads == []  # neither for the macros nor for the cache key
    _aged(tree / "b.cu", "void f() { cudaFree(0); }\n")
    third = run_project(settings)
    assert [Path(p).name for p in reads] == ["b.cu"]
    names = {f.name for f in third.findings if f.path.endswith("b.cu")}
    assert "cudaFree" in names and "cudaDeviceSynchronize" not in names


def test_a_defines_side_for_amd_is_kept(tmp_path: Path) -> None:
    """What a #define reads as under hipcc for AMD (parse/platform_macros.py) comes back from the index as read."""
    source = _aged(tmp_path / "k.cu", "#ifdef __HIP_PLATFORM_AMD__\n#define ON_HIP 1\n#else\n#define ON_HIP 0\n#endif\n")
    index = StatIndex([str(tmp_path)], root=tmp_path / "cache")
    _, scanned, _ = index.record(source, _reader([]))
    index.save([source])
    assert [d.side for _, d in scanned[0]] == ["amd", "nvidia"]
    assert StatIndex([str(tmp_path)], root=tmp_path / "cache").known(source)[1] == scanned
