"""The optional hipify-perl backend: run an installed hipify-perl on each file.

hipify-perl's contract: `hipify-perl [options] FILE` prints the translated file
on stdout and exits 0; `-quiet-warnings` silences unknown-name warnings, `-roc`
prefers roc* libraries, `-hip-kernel-execution-syntax` emits hipLaunchKernelGGL.
It is third-party code and never shipped with portkit.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

from portkit.errors import ToolError


class HipifyFailure(Exception):
    pass


def find_hipify_perl(explicit: str | None) -> str:
    if explicit:
        if not (os.path.isfile(explicit) and os.access(explicit, os.X_OK)):
            raise ToolError(f"hipify-perl {explicit}: not an executable file")
        return explicit
    found = shutil.which("hipify-perl")
    if not found:
        raise ToolError("hipify-perl not found on PATH; install ROCm's HIPIFY or pass --hipify-perl PATH")
    return found


def hipify_file(hipify_perl: str, path: str, roc: bool, hip_launch: bool) -> bytes:
    command = [hipify_perl, "-quiet-warnings"]
    command += ["-roc"] if roc else []
    command += ["-hip-kernel-execution-syntax"] if hip_launch else []
    command.append(path)
    try:
        result = subprocess.run(command, capture_output=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise HipifyFailure(f"{path}: hipify-perl could not run: {exc}") from None
    if result.returncode != 0:
        reason = result.stderr.decode("utf-8", "replace").strip().splitlines()
        raise HipifyFailure(f"{path}: hipify-perl exited {result.returncode}: {reason[-1] if reason else 'no message'}")
    return result.stdout


def hipify_files(hipify_perl: str, paths: list[str], roc: bool, hip_launch: bool, jobs: int) -> dict[str, bytes | HipifyFailure]:
    def one(path: str) -> tuple[str, bytes | HipifyFailure]:
        try:
            return path, hipify_file(hipify_perl, path, roc, hip_launch)
        except HipifyFailure as exc:
            return path, exc

    with ThreadPoolExecutor(max(1, jobs or os.cpu_count() or 1)) as pool:
        return dict(pool.map(one, paths))
