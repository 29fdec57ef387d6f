"""A content-addressed cache of per-file scan results.

Keyed by the SHA-256 of a file's path and bytes under a salt made of portkit's version,
the rule database's content, the target and the analysis options, so any change
to those starts a fresh cache. Entries are pickles in the user's cache directory
(written atomically); a corrupt or unreadable entry is a miss, never an error.
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
import pickle
import sys
import tempfile
from pathlib import Path
from typing import Any

from portkit import __version__
from portkit.model import Edit, Finding, Position, Severity, Span


def default_cache_dir() -> Path:
    if os.environ.get("PORTKIT_CACHE_DIR"):
        return Path(os.environ["PORTKIT_CACHE_DIR"]) / "scan"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "portkit" / "scan"


def cache_salt(rules: Any, target: Any, options: Any) -> str:
    digest = hashlib.sha256()
    digest.update(f"{__version__}|{sys.version_info[:2]}|{target}|{options.prefer_roc}|{options.launch_syntax}|"
                  f"{options.engine}|{options.compile_database}".encode())
    for source in sorted({lib.source for lib in rules.libraries.values()}):
        try:
            digest.update(source.encode() + Path(source).read_bytes())
        except OSError:
            digest.update(source.encode())
    return digest.hexdigest()[:16]


def _pack(f: Finding) -> tuple:
    """Findings as plain tuples: unpickling a dataclass per finding is several times slower."""
    return (f.path, f.position.line, f.position.column, f.code, f.name, f.message, f.severity.value, f.library, f.status,
            f.hip, f.advice, f.context, f.span.start, f.span.end,
            tuple((e.span.start, e.span.end, e.replacement) for e in f.edits), f.shadowable)


def _unpack(t: tuple) -> Finding:
    return Finding(t[0], Position(t[1], t[2]), t[3], t[4], t[5], Severity(t[6]), t[7], t[8], t[9], t[10], t[11],
                   Span(t[12], t[13]), tuple(Edit(Span(a, b), r) for a, b, r in t[14]), t[15])


class ScanCache:
    def __init__(self, root: Path, salt: str):
        self.root = root / salt
        self.hits = 0
        self.misses = 0
        self._pending: dict[str, tuple[str, bytes]] = {}  # path -> (digest, bytes) of a miss

    def _entry(self, digest: str) -> Path:
        return self.root / digest[:2] / f"{digest}.pickle"

    def lookup(self, path: str) -> tuple[Any | None, bytes | None]:
        """(cached result or None, the file's bytes or None when unreadable)."""
        try:
            data = Path(path).read_bytes()
        except OSError:
            return None, None
        # The path is part of the key: results carry it (findings, diagnostics).
        digest = hashlib.sha256(path.encode("utf-8", "surrogateescape") + b"\0" + data).hexdigest()
        try:
            with open(self._entry(digest), "rb") as handle:
                result, packed = pickle.load(handle)  # noqa: S301 - the user's own cache directory
            self.hits += 1
            return dataclasses.replace(result, findings=tuple(_unpack(f) for f in packed)), data
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, IndexError, TypeError, ValueError):
            self.misses += 1
            self._pending[path] = (digest, data)
            return None, data

    def put(self, result: Any) -> None:
        pending = self._pending.pop(result.file.path, None)
        if pending is None:
            return
        entry = self._entry(pending[0])
        try:
            entry.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=entry.parent, suffix=".tmp")
            with os.fdopen(fd, "wb") as handle:
                entry_value = (dataclasses.replace(result, data=None, findings=()), [_pack(f) for f in result.findings])
                pickle.dump(entry_value, handle, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, entry)
        except OSError:
            pass  # a cache that cannot be written only costs time
