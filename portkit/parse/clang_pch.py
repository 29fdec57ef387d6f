"""A precompiled header of what a unit includes from outside the project: built once per (arguments,
headers), reused across units and runs.

Most of a unit's parse time is headers that are not the project's: CUDA's (Thrust
alone takes seconds) and the system's (<bits/stdc++.h> as much). A precompiled
header holds them parsed, for every unit with the same arguments and includes, in
this run and the next. It is built with function bodies skipped: the engine needs
only their declarations, and templates such as thrust::sort then instantiate
without bodies, which is most of the gain.
Files live in the cache directory under a key of everything that shapes them;
clang refuses one whose headers changed since, and the engine then rebuilds it.
"""
from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
from pathlib import Path
from typing import Iterator

from portkit.parse.clang_headers import HeaderEnvironment, macro_names
from portkit.parse.clang_setup import libclang_identity, load_cindex
from portkit.store import cache_root, read_entry, write_entry

try:
    import fcntl
except ImportError:  # not POSIX: two runs may build the same header twice, which only costs time
    fcntl = None  # type: ignore[assignment]

_FORMAT = "2"  # bump when what a precompiled header holds changes
_KEEP_GOING = 0x200  # CXTranslationUnit_KeepGoing
_KEPT_BYTES = 2 << 30  # precompiled headers kept (tens of MB each); the least recently used go first


@dataclasses.dataclass(frozen=True)
class Precompiled:
    path: str
    macros: frozenset[str]  # the macros its CUDA headers define


def _key(arguments: list[str], headers: tuple[str, ...], env: HeaderEnvironment) -> str:
    text = "\0".join([_FORMAT, libclang_identity(), env.fingerprint, *arguments, "|", *headers])
    return hashlib.sha256(text.encode()).hexdigest()[:24]


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """One builder per header at a time, across worker processes and concurrent runs."""
    if fcntl is None:
        yield
        return
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _load(base: Path) -> Precompiled | None:
    entry = read_entry(base.with_suffix(".json"))
    pch = base.with_suffix(".pch")
    if not isinstance(entry, dict) or not isinstance(entry.get("macros"), list) or not pch.is_file():
        return None
    try:
        os.utime(pch)  # recently used: pruned last
    except OSError:
        pass
    return Precompiled(str(pch), frozenset(entry["macros"]))


def _prune(directory: Path) -> None:
    """Keep the most recently used precompiled headers, up to _KEPT_BYTES."""
    try:
        found = sorted(((p.stat().st_mtime, p.stat().st_size, p) for p in directory.glob("*.pch")), reverse=True)
    except OSError:
        return
    total = 0
    for _, size, pch in found:
        total += size
        if total > _KEPT_BYTES:
            discard(Precompiled(str(pch), frozenset()))


def _build(base: Path, arguments: list[str], headers: tuple[str, ...], env: HeaderEnvironment) -> Precompiled | None:
    cindex = load_cindex()
    prefix = base.with_suffix(".h")
    prefix.write_text("".join(f"#include {h}\n" for h in headers), encoding="utf-8")
    options = (cindex.TranslationUnit.PARSE_INCOMPLETE | cindex.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES
               | _KEEP_GOING)
    unit = cindex.Index.create().parse(str(prefix), args=arguments, options=options)
    if any(d.severity >= cindex.Diagnostic.Fatal for d in unit.diagnostics):
        return None  # the unit is parsed without a precompiled header
    included = {os.path.realpath(i.include.name) for i in unit.get_includes()}
    temporary = base.parent / f"{base.name}.{os.getpid()}.tmp"
    try:
        unit.save(str(temporary))
        os.replace(temporary, base.with_suffix(".pch"))
    except (cindex.TranslationUnitSaveError, OSError):
        temporary.unlink(missing_ok=True)
        return None
    candidates = sorted(macro_names(p for p in included if env.is_cuda(p)))
    macros = _defined(cindex, arguments, base.with_suffix(".pch"), candidates)
    write_entry(base.with_suffix(".json"), {"macros": macros})
    return Precompiled(str(base.with_suffix(".pch")), frozenset(macros))


def _defined(cindex, arguments: list[str], pch: Path, candidates: list[str]) -> list[str]:
    """The candidates that are macros once the headers are read: a textual scan cannot tell a #define under a
    false #if (cuda_runtime_api.h's per-thread-stream names) from one that holds."""
    probe = str(pch.with_suffix(".probe.cu"))
    text = "".join(f"#ifdef {name}\nint portkit_defined_{index};\n#endif\n" for index, name in enumerate(candidates))
    unit = cindex.Index.create().parse(probe, args=arguments + ["-include-pch", str(pch)], unsaved_files=[(probe, text)],
                                       options=_KEEP_GOING)
    found = [c.spelling for c in unit.cursor.get_children() if c.spelling.startswith("portkit_defined_")]
    return sorted(candidates[int(name.rsplit("_", 1)[1])] for name in found)


def precompiled(arguments: list[str], headers: tuple[str, ...], env: HeaderEnvironment) -> Precompiled | None:
    """The precompiled `headers` (include lines: `<cuda_runtime.h>`, `"/abs/x.h"`) for units parsed with
    `arguments`; None when they cannot be precompiled."""
    directory = cache_root() / "clang-pch"
    base = directory / _key(arguments, headers, env)
    found = _load(base)
    if found is not None:
        return found
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with _locked(base.with_suffix(".lock")):
            found = _load(base)
            if found is None:
                found = _build(base, arguments, headers, env)
                _prune(directory)
            return found
    except OSError:
        return None


def discard(found: Precompiled) -> None:
    """Forget a precompiled header (clang refused it: its headers changed since); the next unit rebuilds it."""
    for suffix in (".pch", ".json", ".h"):
        Path(found.path).with_suffix(suffix).unlink(missing_ok=True)
