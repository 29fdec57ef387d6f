"""Pieces every command shares: the target, the rules, where output goes."""
from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
from pathlib import Path
from typing import Iterator, TextIO

from portkit.errors import UsageError
from portkit.rules import RuleDatabase, Target, load_database, parse_version
from portkit.toolchain import installed_hip_version


def make_target(rocm: str | None, cuda: str | None) -> Target:
    """--rocm-version (default: the installed HIP, else the newest ROCm) and --cuda-version."""
    try:
        rocm_version = parse_version(rocm) if rocm and rocm != "latest" else None
        cuda_version = parse_version(cuda) if cuda else None
    except ValueError as exc:
        raise UsageError(f"{exc}; give a version like 6.2 or 5.2.0") from None
    if rocm is None:
        rocm_version = installed_hip_version()
    return Target(rocm=rocm_version, cuda=cuda_version)


def load_rules(extra: list[Path] | None) -> RuleDatabase:
    return load_database(extra or ())


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
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
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
        raise UsageError(f"{path}: cannot write: {exc.strerror or exc}") from None
