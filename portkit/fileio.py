"""Writing the user's files: atomically, keeping permissions."""
from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
from pathlib import Path
from typing import Iterator, TextIO

from portkit.errors import OutputError


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def atomic_write_bytes(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write via a temporary file in the same directory, then rename over the target.

    The file keeps its permissions; a new one gets `mode` (e.g. its source's), else
    the umask default. A reader sees the old bytes or the new, never a mix.
    """
    directory = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=".pk", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if path.exists():
            mode = path.stat().st_mode & 0o7777
        os.chmod(tmp, _default_mode() if mode is None else mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def output_stream(path: Path | None) -> Iterator[TextIO]:
    """stdout, or a file written atomically once the output is complete."""
    if path is None:
        yield sys.stdout
        return
    buffer = io.StringIO()
    yield buffer
    try:
        atomic_write_bytes(path, buffer.getvalue().encode("utf-8"))
    except OSError as exc:
        raise OutputError(f"{path}: cannot write: {exc.strerror or exc}") from None
