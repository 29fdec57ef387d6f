"""What each file's bytes were when portkit last read them, found by the file's stat.

A warm run asks the file system for each file's size, times and inode; when they
match the index, the file's SHA-256, its #define lines and the names its quoted
#includes spell come from the index,
and the file is not read at all unless its result must be computed again. As git
does ("racy git"), a file modified within two seconds before it was read is not
trusted: an edit that keeps the size within the file system's timestamp
granularity would otherwise go unseen. The index is one checksummed JSON entry
(portkit/store.py) per set of scanned roots; a damaged one is an empty index.
"""
from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path
from typing import Any, Callable, Iterable

from portkit.included import quoted_includes
from portkit.parse.macros import Definition, FileDefinitions, file_definitions
from portkit.store import cache_root, read_entry, roots_key, write_entry

_RACY_NS = 2_000_000_000
_FORMAT = 4  # 3: no #defines from branches no build of the port takes; 4: each #define's side for AMD

Stat = tuple[int, int, int, int]  # size, mtime_ns, ctime_ns, inode
Scanned = tuple[FileDefinitions, tuple[bytes, ...]]  # what a plan reads of a file: its #defines, its quoted includes


def scan_text(data: bytes) -> Scanned:
    return file_definitions(data), quoted_includes(data)


def _stat(path: str) -> Stat | None:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_size, found.st_mtime_ns, found.st_ctime_ns, found.st_ino


def _pack_definitions(defined: FileDefinitions) -> list[Any]:
    return [[name.decode("latin-1"), None if d.parameters is None else [p.decode("latin-1") for p in d.parameters],
             d.body.decode("latin-1"), d.side] for name, d in defined]


def _unpack_definitions(packed: list[Any]) -> FileDefinitions:
    return tuple((name.encode("latin-1"), Definition(None if params is None else tuple(p.encode("latin-1") for p in params),
                                                     body.encode("latin-1"), side))
                 for name, params, body, side in packed)


class StatIndex:
    """path -> (stat, SHA-256 of the bytes, #defines, when read, quoted includes), for the files of one set of roots."""

    def __init__(self, roots: Iterable[str], root: Path | None = None):
        self.path = (root or cache_root() / "index") / f"{roots_key(roots)}.json"
        entry = read_entry(self.path)
        valid = isinstance(entry, dict) and entry.get("format") == _FORMAT and isinstance(entry.get("files"), dict)
        self._files: dict[str, list[Any]] = entry["files"] if valid else {}
        self._changed = False

    def known(self, path: str) -> tuple[str, Scanned] | None:
        """The SHA-256 of the file's bytes and what `scan_text` read of them, when its stat says they are unchanged."""
        record = self._files.get(os.path.abspath(path))
        stat = _stat(path)
        try:
            if record is None or stat is None or tuple(record[0]) != stat or stat[1] >= record[3] - _RACY_NS:
                return None  # changed, gone, or modified too close to when it was read
            return record[1], (_unpack_definitions(record[2]), tuple(name.encode("latin-1") for name in record[4]))
        except (TypeError, ValueError, IndexError, AttributeError, UnicodeError):
            return None

    def record(self, path: str, read: Callable[[str], bytes]) -> tuple[str, Scanned, bytes]:
        """Read the file (with `read`), and remember what its bytes were under the stat they had."""
        before, when = _stat(path), time.time_ns()
        data = read(path)
        digest, scanned = hashlib.sha256(data).hexdigest(), scan_text(data)
        if before is not None and _stat(path) == before:  # not changing while read
            self._files[os.path.abspath(path)] = [list(before), digest, _pack_definitions(scanned[0]), when,
                                                  [name.decode("latin-1") for name in scanned[1]]]
            self._changed = True
        return digest, scanned, data

    def save(self, keep: Iterable[str]) -> None:
        """Write the index (atomically), keeping only the files of this run."""
        wanted = {os.path.abspath(p) for p in keep}
        if not self._changed and set(self._files) <= wanted:
            return
        files = {p: r for p, r in self._files.items() if p in wanted}
        write_entry(self.path, {"format": _FORMAT, "files": files})
