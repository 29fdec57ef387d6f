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
