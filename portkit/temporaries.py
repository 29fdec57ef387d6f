"""portkit's temporary files: their name, and the removal of those a stopped run left behind.

Every file portkit writes is first a temporary file beside it, `.pk-PID-XXXXXXXX.tmp`
(the writing process's id, 8 random characters), renamed into place when whole.
A run stopped by SIGTERM or Ctrl-C removes its own: each is registered before it
exists, so however late the signal comes, `remove_mine` knows it. One killed
outright (SIGKILL, a power cut) cannot, so the next run removes those whose process
is gone. The process id in the name is what makes that safe: a temporary file of a
run still going on beside this one is never touched, and nothing named otherwise ever is.
"""
from __future__ import annotations

import contextlib
import errno
import os
import random
import re
import stat
from pathlib import Path
from typing import Iterable

SUFFIX = ".tmp"
_CHARACTERS = "abcdefghijklmnopqrstuvwxyz0123456789_"
_NAME = re.compile(r"\.pk-([1-9][0-9]{0,9})-[a-z0-9_]{8}\.tmp")
_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_mine: set[str] = set()  # this process's temporary files not yet placed (or about to be made)


def create(directory: Path, descriptor: int | None = None) -> tuple[int, str, str]:
    """A new temporary file in `directory`, open for writing (mode 0600): its descriptor, how calls name it (its
    name in the directory's `descriptor`, when given: made through it; else its path), and its path. Registered
    by its path before it is made, so that `remove_mine` removes it even if a signal comes mid-way; the caller
    `forget`s that path once the file is placed or removed."""
    for _ in range(100):
        name = f".pk-{os.getpid()}-{''.join(random.choices(_CHARACTERS, k=8))}{SUFFIX}"
        path = os.path.join(directory, name)
        called = name if descriptor is not None else path
        _mine.add(path)
        try:
            return os.open(called, _FLAGS, 0o600, dir_fd=descriptor), called, path
        except FileExistsError:
            _mine.discard(path)
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(directory))


def forget(path: str) -> None:
    _mine.discard(path)


def remove_mine() -> None:
    """Remove this process's temporary files that were never placed (a run stopped by a signal)."""
    for path in list(_mine):
        with contextlib.suppress(OSError):
            os.unlink(path)
        _mine.discard(path)


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # someone else's process (or no pid at all): leave its files alone
    return True


def remove_stray(directories: Iterable[Path]) -> list[Path]:
    """Remove, in each directory, the regular files named as portkit's temporaries whose process is gone;
    the paths removed. A directory that cannot be read, or a file that cannot be removed, is left."""
    removed = []
    for directory in dict.fromkeys(directories):
        try:
            names = os.listdir(directory)
        except OSError:
            continue
        for name in names:
            match = _NAME.fullmatch(name)
            if match is None or _running(int(match.group(1))):
                continue
            path = directory / name
            try:
                if stat.S_ISREG(os.lstat(path).st_mode):
                    os.unlink(path)
                    removed.append(path)
            except OSError:
                continue
    return removed
