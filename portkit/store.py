"""A checksummed on-disk store for portkit's caches (the validated rules, the bundled data files, per-file results).

Entries are data only (JSON, never pickles) behind a SHA-256 of their bytes, so a
truncated, corrupted or planted entry reads as a miss and never changes a result
or runs code. An unwritable cache only costs time.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any, Iterable

from portkit import __version__
from portkit.errors import OutputError
from portkit.fileio import write_tree_file

_DIGEST = 64  # hex characters of SHA-256
_ENTRY_LIMIT = 256 << 20  # bytes; no real entry comes near


def cache_root() -> Path:
    """$PORTKIT_CACHE_DIR, else $XDG_CACHE_HOME/portkit, else ~/.cache/portkit."""
    if os.environ.get("PORTKIT_CACHE_DIR"):
        return Path(os.environ["PORTKIT_CACHE_DIR"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "portkit"


def roots_key(roots: Iterable[str]) -> str:
    """A name for a set of scanned roots, wherever the run starts: what is kept per tree is kept under it."""
    key = "\0".join(sorted(os.path.abspath(r) for r in roots)).encode("utf-8", "surrogateescape")
    return hashlib.sha256(key).hexdigest()[:24]


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """portkit's version and a hash of its own source: a cache written by other code is stale,
    even between two development checkouts of the same version."""
    digest = hashlib.sha256(__version__.encode())
    for path in sorted(Path(__file__).resolve().parent.rglob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def encode(value: Any) -> bytes:
    payload = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")
    return hashlib.sha256(payload).hexdigest().encode("ascii") + b"\n" + payload


def decode(blob: bytes) -> Any | None:
    """The value, or None when the checksum or the JSON is wrong."""
    digest, payload = blob[:_DIGEST], blob[_DIGEST + 1:]
    if len(blob) <= _DIGEST or blob[_DIGEST:_DIGEST + 1] != b"\n":
        return None
    if hashlib.sha256(payload).hexdigest().encode("ascii") != digest:
        return None
    try:
        return json.loads(payload.decode("utf-8", "surrogatepass"))
    except (UnicodeDecodeError, ValueError):
        return None


def read_entry(path: Path) -> Any | None:
    """An entry's value; None for a miss, and for anything that is not a regular file of
    sane size (a planted symlink, FIFO or device is never followed, blocked on or read)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode) or found.st_size > _ENTRY_LIMIT:
            return None
        with open(fd, "rb", closefd=False) as handle:
            return decode(handle.read(_ENTRY_LIMIT + 1))
    except OSError:
        return None
    finally:
        os.close(fd)


def write_entry(path: Path, value: Any) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_tree_file(path, encode(value))  # atomic, and never through a symlink planted at the entry's name
    except (OSError, OutputError):
        pass  # a cache that cannot be written only costs time
