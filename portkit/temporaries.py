"""portkit's temporary files: their name, and the removal of those an interrupted run left behind.

Every file portkit writes is first a temporary file beside it, `.pk-PID-XXXXXXXX.tmp`
(the writing process's id, 8 random characters), renamed into place when whole.
A run stopped by SIGTERM or Ctrl-C removes its own; one killed outright (SIGKILL,
a power cut) cannot, so the next run removes those whose process is gone. The
process id in the name is what makes that safe: a temporary file of a run still
going on beside this one is never touched, and nothing named otherwise ever is.
"""
from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Iterable

SUFFIX = ".tmp"
_NAME = re.compile(r"\.pk-([1-9][0-9]{0,9})-[a-z0-9_]{8}\.tmp")  # tempfile's 8 characters: a-z, 0-9 and _


def prefix() -> str:
    """The start of this process's temporary names (tempfile adds the random characters and SUFFIX)."""
    return f".pk-{os.getpid()}-"


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
