"""Helpers for the safety suite: run portkit as a real process, as root or as an unprivileged user.

Every test works in its own temporary directory; nothing here touches anything
outside it (the one exception, `shared_dir`, is a fresh directory the test makes
and removes, for a user who cannot enter pytest's private one).
"""
from __future__ import annotations

import dataclasses
import functools
import os
import shutil
import contextlib
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parents[2]
CUDA = b"void f(float* p) { cudaMalloc(&p, 4); cudaFree(p); }\n"
HIP = b"#include <hip/hip_runtime.h>\nvoid f(float* p) { hipMalloc(&p, 4); hipFree(p); }\n"
UNSUPPORTED = b"void g(ncclComm_t c) { ncclCommShrink(c, nullptr, 0, o, nullptr, 0); }\n"
NOBODY = 65534
# Root without the capabilities that let it ignore permission bits; it keeps CAP_CHOWN.
_DROPPED = "-dac_override,-dac_read_search,-fowner"


@dataclasses.dataclass
class Run:
    code: int
    out: str
    err: str

    @property
    def err_lines(self) -> list[str]:
        return self.err.splitlines()


def environment(tmp: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "PORTKIT_CACHE_DIR": str(tmp / ".cache"), "PYTHONPATH": str(ROOT), "PYTHONWARNINGS": "default"}
    env.pop("PORTKIT_DEBUG", None)
    env.update(extra)
    return env


def portkit(args: list[str], tmp: Path, *, as_user: list[str] | None = None, cwd: Path | None = None,
            stdout: object = subprocess.PIPE, timeout: float = 120, **env: str) -> Run:
    """`python -m portkit ARGS` in a child process (optionally behind a privilege-dropping prefix)."""
    command = [*(as_user or []), sys.executable, "-m", "portkit", *args]
    done = subprocess.run(command, cwd=cwd or tmp, env=environment(tmp, **env), stdout=stdout, stderr=subprocess.PIPE,
                          timeout=timeout)
    out = done.stdout.decode("utf-8", "replace") if isinstance(done.stdout, bytes) else ""
    return Run(done.returncode, out, done.stderr.decode("utf-8", "replace"))


def _works(prefix: list[str]) -> bool:
    probe = [*prefix, sys.executable, "-c", "import portkit.cli, typer, yaml, jinja2"]
    try:
        return subprocess.run(probe, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
                              timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@functools.lru_cache(maxsize=1)
def unprivileged() -> tuple[str, list[str]] | None:
    """How to run portkit without root's permission overrides: ("uid", prefix) as user nobody,
    ("caps", prefix) as root without DAC_OVERRIDE/DAC_READ_SEARCH/FOWNER (when nobody cannot
    reach this Python), ("self", []) when the tests already run unprivileged, or None."""
    if os.geteuid() != 0:
        return "self", []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    as_nobody = [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]
    if _works(as_nobody):
        return "uid", as_nobody
    without_caps = [setpriv, f"--inh-caps={_DROPPED}", f"--ambient-caps={_DROPPED}", f"--bounding-set={_DROPPED}", "--"]
    return ("caps", without_caps) if _works(without_caps) else None


def shared_dir(tmp: Path) -> Iterator[Path]:
    """A work directory the unprivileged user can enter: tmp itself, unless that user is
    nobody and pytest's base directory is private; then a fresh 0755 directory, removed after."""
    mode = unprivileged()
    if mode is None or mode[0] != "uid":
        yield tmp
        return
    path = Path(tempfile.mkdtemp(prefix="portkit-safety-"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def write(path: Path, data: bytes | str, mode: int | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    if mode is not None:
        path.chmod(mode)
    return path


def snapshot(root: Path) -> dict[str, bytes]:
    """Every regular file under root and its bytes: compare before and after a refused run."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and not p.is_symlink()}


@contextlib.contextmanager
def swapping(directory: Path, target: Path) -> Iterator[None]:
    """During the block, a thread swaps `directory` for a symlink to `target` and back, again and again
    (a race against every write that goes through `directory`)."""
    stop = threading.Event()
    stash = directory.with_name(directory.name + ".stash")

    def swap() -> None:
        while not stop.is_set():
            try:
                os.rename(directory, stash)
                os.symlink(target, directory)
                os.unlink(directory)
                os.rename(stash, directory)
            except OSError:
                continue

    swapper = threading.Thread(target=swap, daemon=True)
    swapper.start()
    try:
        yield
    finally:
        stop.set()
        swapper.join()
