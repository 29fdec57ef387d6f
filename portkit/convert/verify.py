"""Compile converted translation units with the real HIP compiler (syntax only)."""
from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from portkit.errors import ToolError

TRANSLATION_UNITS = (".cu", ".cpp", ".cc", ".cxx", ".c", ".hip")
_MISSING_HEADER = re.compile(r"fatal error: '([^']+)' file not found")


@dataclasses.dataclass(frozen=True, order=True)
class VerifyResult:
    path: str
    status: str  # "pass", "fail" or "not verifiable here"
    message: str = ""


def find_hipcc(explicit: str | None = None) -> str:
    hipcc = explicit or shutil.which("hipcc")
    if not hipcc:
        raise ToolError("verifying needs hipcc: install it (Debian: apt-get install hipcc libamdhip64-dev) or put it on PATH")
    return hipcc


def _first_error(output: str) -> str:
    for line in output.splitlines():
        if "error:" in line:
            return line.strip()
    return output.strip().splitlines()[-1] if output.strip() else "failed"


def verify_file(hipcc: str, path: Path, include_dirs: tuple[Path, ...], offload_arch: str) -> VerifyResult:
    command = [hipcc, f"--offload-arch={offload_arch}", "-fsyntax-only", "-x", "hip", "-std=c++17", "-w"]
    command += [f"-I{d}" for d in include_dirs] + [str(path)]
    env = {**os.environ, "HIP_PLATFORM": "amd"}
    try:
        result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return VerifyResult(str(path), "fail", f"hipcc could not run: {exc}")
    if result.returncode == 0:
        return VerifyResult(str(path), "pass")
    output = result.stderr + result.stdout
    missing = _MISSING_HEADER.search(output)
    if missing:
        return VerifyResult(str(path), "not verifiable here", f"needs <{missing.group(1)}>, which is not installed")
    return VerifyResult(str(path), "fail", _first_error(output))


def verify_tree(files: list[Path], include_dirs: tuple[Path, ...], offload_arch: str, jobs: int,
                hipcc: str | None = None) -> list[VerifyResult]:
    compiler = find_hipcc(hipcc)
    units = [f for f in files if f.suffix.lower() in TRANSLATION_UNITS]
    with ThreadPoolExecutor(max(1, jobs or os.cpu_count() or 1)) as pool:
        return sorted(pool.map(lambda f: verify_file(compiler, f, include_dirs, offload_arch), units))
