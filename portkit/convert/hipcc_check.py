"""Compile converted translation units with the real HIP compiler (syntax only), and sort the failures.

A unit that stops where portkit left a marker (its first error on a marked line, or a header it could not
map and marked) stops where the summary already says work remains: expected. A unit that stops anywhere
else is a conversion portkit got wrong: "fail", which the command reports as a portkit bug. A marked header
that is not found stops hipcc before the rest of the unit: the unit is compiled again with an empty stand-in
for it, so that a wrong conversion further down is not hidden behind it.
"""
from __future__ import annotations

import dataclasses
import enum
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Callable

from portkit.analyze.unused_headers import COMMENTED_OUT
from portkit.errors import InputError, ToolError

# hipcc compiles these whatever they hold; a host unit only when convert changed it (it calls HIP now):
# one it left alone is built by the host compiler, as before, and hipcc would read a C file as C++.
HIP_UNITS = (".cu", ".hip")
HOST_UNITS = (".cpp", ".cc", ".cxx", ".c")
_MISSING_HEADER = re.compile(r"fatal error: '([^']+)' file not found")
_ERROR_AT = re.compile(r"^(.+?):(\d+):(?:\d+:)? (?:fatal )?error:", re.M)
_INCLUDED_FROM = re.compile(r"^In file included from (.+?):(\d+):$")
# Where the unit meets a header's template: it instantiates it, or deduces a call's arguments for it (an overload
# the call also finds: clang's HIP <cmath> fma for a __half).
_REQUESTED_HERE = re.compile(r"^(.+?):(\d+):\d+: note: (?:.* requested here|while substituting deduced template .*)$",
                             re.M)
# The compiler driver's own error (`clang: error: unsupported option '--bogus'`, `clang-14: error: unknown argument`):
# it rejected its command line before reading the unit, so no unit failed.
_DRIVER_ERROR = re.compile(r"^(?:\S*/)?clang(?:\+\+)?(?:-\d+)?: error: .*$", re.M)
_MARKER = "portkit: "
# What a header's absence causes, past its empty stand-in: a name it declared is unknown. Such an error is the
# missing header's, which its marker covers, wherever it shows.
_UNDECLARED = re.compile(r"error: (?:use of undeclared identifier|unknown type name|no (?:template|type|member) named"
                         r"|unknown template name|use of undeclared)")
_STAND_INS = 8  # marked headers a unit is compiled past, at most
_MARKED_NAME = re.compile(r"portkit: PK\d+ ([^:\s]+(?:::[^:\s]+)*):")  # the name a marker is about


class VerifyStatus(str, enum.Enum):
    """What hipcc made of one converted unit."""

    PASS = "pass"
    MARKED = "marked"  # its first error is at a line portkit marked: where the summary says work remains
    FAIL = "fail"  # anywhere else: a conversion portkit got wrong
    NOT_VERIFIABLE = "not verifiable here"  # a header it needs is not installed here
    REJECTED = "rejected"  # hipcc refused its own command line (a flag given for the check): no unit was read


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
    try:
        output = _compiled(command)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return VerifyResult(str(path), VerifyStatus.FAIL, f"hipcc could not run: {exc}")
    if output is None:
        return VerifyResult(str(path), VerifyStatus.PASS)
    rejected = _DRIVER_ERROR.search(output)
    if rejected:
        return VerifyResult(str(path), VerifyStatus.REJECTED, rejected.group().strip())
    error = _first_error(output)
    if _at_marker(output, str(path)):
        past = _past_marked_headers(command, output, str(path))
        if past is not None:
            return VerifyResult(str(path), VerifyStatus.FAIL, past)
        return VerifyResult(str(path), VerifyStatus.MARKED, error)
    missing = _MISSING_HEADER.search(output)
    if missing:
        return VerifyResult(str(path), VerifyStatus.NOT_VERIFIABLE,
                            f"needs <{missing.group(1)}>, which hipcc did not find (not installed, or in a directory "
                            "to add with --verify-flag=-IDIR)")
    return VerifyResult(str(path), VerifyStatus.FAIL, error)


def _compiled(command: list[str]) -> str | None:
    """hipcc's diagnostics for `command`; None when it compiled."""
    result = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"},
                            timeout=600)
    return None if result.returncode == 0 else result.stderr + result.stdout


def _past_marked_headers(command: list[str], output: str, unit_path: str) -> str | None:
    """The first unmarked error hipcc finds past the marked headers it could not find, each read as an empty
    stand-in (the unit's own -I directories first); None when there is none: the unit builds past them, or stops
    at another marked site, or at a name a missing header would declare."""
    names: list[str] = []
    with tempfile.TemporaryDirectory(prefix="portkit-stand-ins-") as stand_ins:
        for _ in range(_STAND_INS):
            missing = _MISSING_HEADER.search(output)
            if missing is None or missing.group(1) not in _first_error(output) or not _plain(missing.group(1)) \
                    or missing.group(1) in names:
                return None
            names.append(missing.group(1))
            stand_in = Path(stand_ins, missing.group(1))
            stand_in.parent.mkdir(parents=True, exist_ok=True)
            stand_in.touch()
            try:
                output = _compiled([*command[:-1], f"-I{stand_ins}", command[-1]])
            except (OSError, subprocess.TimeoutExpired):
                return None
            first = _first_error(output) if output is not None else ""
            if output is None or _DRIVER_ERROR.search(output) or _UNDECLARED.search(first) \
                    or "file not found" in first and not _at_marker(output, unit_path):
                return None  # builds past them, or needs a header not installed here (not verifiable, as before)
            if not _at_marker(output, unit_path):
                shown = ", ".join(f"<{name}>" for name in names)
                return f"{_first_error(output)} (past the marked {shown}, read as empty)"
    return None


def _plain(header: str) -> bool:
    """A header name a stand-in may be written for: relative, and inside its directory."""
    return not os.path.isabs(header) and ".." not in Path(header).parts


def _at_marker(output: str, unit_path: str = "") -> bool:
    """Whether hipcc's first error is at a line portkit marked: a block marker on it, or line markers right above
    (a missing header's error is at its #include, which the marker of a header portkit could not map is above).
    An error inside a header is judged where the unit meets it: at the unit's line that instantiates the header's
    template (`warp.shfl_xor(v, i)` on a __half, HIP 5.2's static_assert) only a marker about a name the diagnostic
    or that line spells counts, not a generic one (cooperative groups' at their #include); without such a line, at
    the unit's #include that brings the header in, whose marker is about that header (a HIP header that is not C)."""
    where = _ERROR_AT.search(output)
    if where is None:
        return False
    if _marked(where.group(1), int(where.group(2))):
        return True
    following = _ERROR_AT.search(output, where.end())
    diagnostic = output[where.start():following.start() if following else len(output)]
    requested = next((m for m in _REQUESTED_HERE.finditer(diagnostic) if m.group(1) == unit_path), None)
    if requested is not None:
        return _marked(requested.group(1), int(requested.group(2)), diagnostic)
    unit = None
    for line in reversed(output[:where.start()].splitlines()):  # the "In file included from" lines right above
        included = _INCLUDED_FROM.match(line)  # the error, from the header's includer up to the unit's line
        if included is None:
            break
        unit = included
    return unit is not None and _marked(unit.group(1), int(unit.group(2)))


def _marked(path: str, line: int, diagnostic: str | None = None) -> bool:
    """Whether line `line` (1-based) of `path` carries a block marker, or has line markers right above; with a
    `diagnostic`, one about a name it or the line spells (the last part of a qualified name)."""
    try:
        lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return False
    index = line - 1
    if not 0 <= index < len(lines):
        return False
    markers = [lines[index]] if "/* " + _MARKER in lines[index] else []
    above = index - 1
    while above >= 0 and lines[above].strip().startswith("// " + _MARKER):
        if not lines[above].strip().startswith(f"// {_MARKER}{COMMENTED_OUT}"):  # an include convert took out
            markers.append(lines[above])
        above -= 1
    if diagnostic is None or not markers:
        return bool(markers)
    names = {m.group(1).rpartition("::")[2] for marker in markers for m in _MARKED_NAME.finditer(marker)}
    return any(name in diagnostic or name in lines[index] for name in names)


def _for_language(flag: str, c: bool) -> bool:
    """A -std= flag applies to the language it names (-std=c++14 to HIP units, -std=c11 to C units); others to all."""
    if not flag.startswith("-std="):
        return True
    return ("++" not in flag) == c


Progress = Callable[[int, int], None]


def terminal_progress(done: int, total: int) -> None:
    """A line on stderr, rewritten as units finish (only on a terminal: a log gets none)."""
    if sys.stderr.isatty():
        sys.stderr.write(f"\rportkit: verifying with hipcc: {done}/{total} units" + ("\n" if done == total else ""))
        sys.stderr.flush()


def verify_tree(units: list[Path], include_dirs: tuple[Path, ...], offload_arch: str, jobs: int,
                flags: tuple[str, ...] = (), hipcc: str | None = None,
                progress: Progress | None = None) -> list[VerifyResult]:
    compiler = find_hipcc(hipcc)
    results = []
    with ThreadPoolExecutor(max(1, jobs or os.cpu_count() or 1)) as pool:
        futures = [pool.submit(verify_file, compiler, f, include_dirs, offload_arch, flags) for f in units]
        for future in as_completed(futures):
            results.append(future.result())
            if progress is not None:
                progress(len(results), len(units))
    rejected = next((r for r in sorted(results) if r.status is VerifyStatus.REJECTED), None)
    if rejected is not None:  # a usage error, not a conversion's: the same for every unit
        raise InputError(f"hipcc rejected its command line ({rejected.message}): check the flags given for the check; "
                         "the converted files are written, unverified")
    return sorted(results)
