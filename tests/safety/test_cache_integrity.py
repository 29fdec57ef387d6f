"""The caches are data behind a checksum: a changed, truncated or planted entry is a miss,
never a result and never code."""
from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from portkit.cli import main
from safety_kit import CUDA, HIP, write


class _Boom:
    def __reduce__(self):  # what a planted pickle would run on load
        return (os.system, ("touch PLANTED",))


def _entries(cache: Path) -> list[Path]:
    return sorted(p for p in cache.rglob("*.json") if p.is_file())


def _convert(tmp_path: Path, cache: Path, name: str) -> bytes:
    out = tmp_path / name
    assert main(["convert", str(tmp_path / "src"), "-o", str(out)]) == 0
    return (out / "k.cu").read_bytes()


@pytest.mark.parametrize("tamper", ["one byte", "truncated", "pickle", "valid checksum, wrong shape", "empty",
                                    "directory", "fifo", "symlink to /dev/zero"])
def test_a_tampered_cache_entry_is_a_miss(tamper: str, tmp_path: Path, monkeypatch) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("PORTKIT_CACHE_DIR", str(cache))
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "src" / "k.cu", CUDA)
    assert _convert(tmp_path, cache, "first") == HIP
    entries = _entries(cache)
    assert entries, "the run writes cache entries"
    for entry in entries:
        blob = entry.read_bytes()
        if tamper == "one byte":
            entry.write_bytes(blob.replace(b"hipMalloc", b"hipMallox").replace(b"hipFree", b"hipFrex"))
        elif tamper == "truncated":
            entry.write_bytes(blob[: len(blob) // 2])
        elif tamper == "pickle":
            entry.write_bytes(pickle.dumps(_Boom()))
        elif tamper == "valid checksum, wrong shape":
            from portkit.store import encode

            entry.write_bytes(encode({"lines": "many", "findings": [["x"]], "libraries": 1, "rules": None}))
        elif tamper == "empty":
            entry.write_bytes(b"")
        elif tamper == "directory":
            entry.unlink()
            entry.mkdir()
        elif tamper == "fifo":  # reading it would block for ever
            entry.unlink()
            os.mkfifo(entry)
        else:  # reading it would never end
            entry.unlink()
            os.symlink("/dev/zero", entry)
    assert _convert(tmp_path, cache, "second") == HIP
    assert not (tmp_path / "PLANTED").exists()


def test_bundled_data_files_are_read_from_the_cache_by_their_content(tmp_path: Path, monkeypatch) -> None:
    from portkit import resources

    monkeypatch.setenv("PORTKIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(resources, "rules_dir", lambda: tmp_path)
    parsed: list[Path] = []
    read_yaml = resources.read_yaml
    monkeypatch.setattr(resources, "read_yaml", lambda path: parsed.append(path) or read_yaml(path))
    data = tmp_path / "_facts.yaml"
    data.write_text("facts: {sm_80: gfx90a}\n")
    assert [resources.load_data("_facts.yaml", dict) for _ in "12"] == [{"facts": {"sm_80": "gfx90a"}}] * 2
    assert len(parsed) == 1  # the second from the cache
    data.write_text("facts: {sm_90: gfx942}\n")  # new bytes, a new entry
    assert resources.load_data("_facts.yaml", dict) == {"facts": {"sm_90": "gfx942"}} and len(parsed) == 2
    for entry in (tmp_path / "cache").glob("data-*.json"):
        entry.write_bytes(entry.read_bytes().replace(b"gfx", b"GFX"))  # tampered: a miss, parsed again
    assert resources.load_data("_facts.yaml", dict) == {"facts": {"sm_90": "gfx942"}} and len(parsed) == 3
    data.write_text("facts: {80: gfx90a}\n")  # a number as a key: JSON would make it a string, so never cached
    assert [resources.load_data("_facts.yaml", dict) for _ in "12"] == [{"facts": {80: "gfx90a"}}] * 2
    assert len(parsed) == 5
