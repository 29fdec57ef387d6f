"""Compile converted translation units with the real HIP compiler (syntax only)."""
from __future__ import annotations

import dataclasses
import enum
import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from portkit.errors import ToolError

# hipcc compiles these whatever they hold; a host unit only when convert changed it (it calls HIP now):
# one it left alone is built by the host compiler, as before, and hipcc would read a C file as C++.
HIP_UNITS = (".cu", ".hip")
HOST_UNITS = (".cpp", ".cc", ".cxx", ".c")
_MISSING_HEADER = re.compile(r"fatal error: '([^']+)' file not found")


class VerifyStatus(str, enum.Enum):
    """What hipcc made of one converted unit."""

    PASS = "pass"
    FAIL = "fail"
    NOT_VERIFIABLE = "not verifiable here"  # a header it needs is not installed here


@dataclasses.dataclass(frozen=True, order=True)
class VerifyResult:
    path: str
    status: VerifyStatus
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


def is_unit(path: str, changed: bool) -> bool:
    """Whether hipcc should compile a converted file (HIP_UNITS, HOST_UNITS)."""
    suffix = os.path.splitext(path)[1].lower()
    return suffix in HIP_UNITS or changed and suffix in HOST_UNITS


def verify_file(hipcc: str, path: Path, include_dirs: tuple[Path, ...], offload_arch: str,
                flags: tuple[str, ...] = ()) -> VerifyResult:
    """hipcc -fsyntax-only on one unit: a C file as C (with the HIP platform macro its build would define),
    others as HIP C++17; the user's `flags` last, so they can override (-std=c++14)."""
    c = path.suffix.lower() == ".c"
    language = ["-x", "c", "-D__HIP_PLATFORM_AMD__"] if c else ["-x", "hip", "-std=c++17"]
    command = [hipcc, f"--offload-arch={offload_arch}", "-fsyntax-only", *language, "-w"]
    command += [f"-I{d}" for d in include_dirs] + [f for f in flags if _for_language(f, c)] + [str(path)]
    env = {**os.environ, "HIP_PLATFORM": "amd"}
    try:
        result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return VerifyResult(str(path), VerifyStatus.FAIL, f"hipcc could not run: {exc}")
    if result.returncode == 0:
        return VerifyResult(str(path), VerifyStatus.PASS)
    output = result.stderr + result.stdout
    missing = _MISSING_HEADER.search(output)
    if missing:
        return VerifyResult(str(path), VerifyStatus.NOT_VERIFIABLE,
                            f"needs <{missing.group(1)}>, which hipcc did not find (not installed, or in a directory "
                            "to add with --verify-flag=-IDIR)")
    return VerifyResult(str(path), VerifyStatus.FAIL, _first_error(output))


def _for_language(flag: str, c: bool) -> bool:
    """A -std= flag applies to the language it names (-std=c++14 to HIP units, -std=c11 to C units); others to all."""
    if not flag.startswith("-std="):
        return True
    return ("++" not in flag) == c


def verify_tree(units: list[Path], include_dirs: tuple[Path, ...], offload_arch: str, jobs: int,
                flags: tuple[str, ...] = (), hipcc: str | None = None) -> list[VerifyResult]:
    compiler = find_hipcc(hipcc)
    with ThreadPoolExecutor(max(1, jobs or os.cpu_count() or 1)) as pool:
        return sorted(pool.map(lambda f: verify_file(compiler, f, include_dirs, offload_arch, flags), units))
