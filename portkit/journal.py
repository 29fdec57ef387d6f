"""The journal of an output tree being written: a run cut short still leaves a directory portkit knows.

While `convert -o OUTDIR` writes, OUTDIR/.portkit-journal grows by one line per
file, appended right before the file takes its name: the file's path and the
SHA-256 of its new bytes. A run killed at any moment (SIGKILL, a power cut, a full
disk) leaves each file either as the manifest recorded it or as a journal line
says, so the next run takes the directory as portkit's and finishes the job
instead of refusing it. The manifest, written when a run ends, replaces the journal.
"""
from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
from pathlib import Path, PurePosixPath

from portkit.errors import OutputError
from portkit.fileio import Refused, read_bytes, write_tree_file

JOURNAL = ".portkit-journal"
_HEADER = {"tool": "portkit", "journal": 1}
_LIMIT = 64 << 20  # bytes: a line per file of a very large tree, written many times over


def read_journal(path: Path) -> list[tuple[str, str]] | None:
    """The (path, SHA-256) lines of a journal, oldest first; None when there is none (or it is not portkit's).
    A line cut short by a kill in the middle of its write is left out."""
    try:
        if os.path.islink(path):
            return None
        lines = read_bytes(path, _LIMIT).split(b"\n")
        if json.loads(lines[0]) != _HEADER:
            return None
    except (OSError, ValueError, RecursionError):
        return None
    entries = []
    for line in lines[1:]:
        with contextlib.suppress(ValueError, RecursionError):
            entry = json.loads(line)
            if isinstance(entry, list) and len(entry) == 2 and all(isinstance(e, str) for e in entry) \
                    and _inside(entry[0]):
                entries.append((entry[0], entry[1]))
    return entries


def _inside(relative: str) -> bool:
    """Whether a recorded path stays in the output directory (a planted journal names no other file)."""
    path = PurePosixPath(relative)
    return bool(relative) and not path.is_absolute() and ".." not in path.parts


class Journal:
    """OUTDIR's journal, open for appending while a run writes there."""

    def __init__(self, path: Path):
        self.path = path
        self.started = False  # made by this run (an interrupted run's journal is carried on)
        self._fd: int | None = None
        self._cut = False  # a line was written in part
        self.recorded: list[tuple[str, str]] = []  # the lines this run wrote

    def start(self) -> None:
        """Carry on the journal there is, or make one (whole, with its header: never over another file)."""
        # Noted before the file is placed, so that a signal right after it still has the journal removed.
        self.started = not os.path.lexists(self.path)
        try:
            write_tree_file(self.path, (json.dumps(_HEADER) + "\n").encode("ascii"), new=True)
        except Refused:
            self.started = False
            if read_journal(self.path) is None:  # appeared meanwhile, and not as a journal
                raise OutputError(f"{self.path}: not portkit's journal; move it or choose another directory") from None
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError as exc:
            raise OutputError(f"{self.path}: cannot write: {exc.strerror or exc}") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise OutputError(f"{self.path}: not a regular file; left as it is")
        self._fd = fd

    def record(self, relative: str, sha256: str) -> None:
        """Say that `relative` is about to hold bytes with this SHA-256: an OSError, and the file is not
        placed, unless the whole line was written. After a line cut short (a full disk) nothing more is
        recorded, so nothing more is placed: a line appended to it would be lost with it."""
        if self._fd is None:
            return
        if self._cut:
            raise OSError(errno.ENOSPC, "the output's journal could not be written", str(self.path))
        line = (json.dumps([relative, sha256]) + "\n").encode("ascii")
        if os.write(self._fd, line) < len(line):
            self._cut = True
            raise OSError(errno.ENOSPC, "the output's journal could not be written", str(self.path))
        self.recorded.append((relative, sha256))

    def close(self, remove: bool) -> None:
        """Stop appending; `remove` the journal (the manifest now says it all, or nothing was written)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if remove:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path)
