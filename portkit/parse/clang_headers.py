"""The headers the clang engine parses against: the CUDA toolkit's, and stand-ins for what it lacks.

clang's CUDA wrapper headers include files that newer toolkits dropped
(texture_fetch_functions.h, curand_mtgp32_kernel.h), and projects include library
headers (curand.h, nccl.h) that a machine without NVIDIA's library packages lacks.
Rather than give up on such a unit, the engine parses it against stand-ins: an
empty file for what the wrapper wants, and for a library header the library's
real headers when the toolkit has some (nvtx3/ for nvToolsExt.h), else
declarations written from the rule database. The stand-in directory is searched
last and is a CUDA header root: names declared there are CUDA's. Stand-ins are
written once per header environment into the cache directory, never shipped.
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Callable, Iterable

from portkit.fileio import read_bytes
from portkit.parse.clang_flags import search_dirs
from portkit.parse.clang_setup import cuda_include_dirs, libclang_identity, load_cindex, resource_dir
from portkit.store import cache_root

_FORMAT = "1"  # bump when what a stand-in says changes
_QUOTED_INCLUDE = re.compile(rb'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)
_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.MULTILINE)
_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.MULTILINE)
_DECLARATIONS = "portkit/declarations.h"  # the rules' declarations of the libraries this machine has no header of
# Declares libraries' names: (libraries, names already declared) -> C++ text.
Declare = Callable[[list[str], frozenset], str]


@dataclasses.dataclass(frozen=True)
class HeaderEnvironment:
    """Where the CUDA headers are, which ones are stand-ins, and a fingerprint of all of it (for caches)."""

    include_dirs: tuple[str, ...]
    standin_dir: str
    resource_dir: str
    standins: tuple[str, ...]  # the header names a stand-in answers
    fingerprint: str

    @property
    def roots(self) -> tuple[str, ...]:
        """Path prefixes of CUDA declarations: the toolkit, the stand-ins, clang's CUDA wrapper headers."""
        wrappers = os.path.join(self.resource_dir, "include", "__clang_cuda_")
        return tuple(d + os.sep for d in self.include_dirs) + (self.standin_dir + os.sep, wrappers)

    def is_cuda(self, path: str) -> bool:
        return path.startswith(self.roots)

    def arguments(self, flags: list[str]) -> list[str]:
        """clang's arguments for a unit with `flags`: CUDA host side, the project's flags, then the CUDA headers."""
        toolkit = next((str(Path(d).parent) for d in self.include_dirs if (Path(d) / "cuda_runtime.h").exists()), "")
        return (["-x", "cuda", "--cuda-host-only", "-nocudalib", "-std=c++17", "-resource-dir", self.resource_dir,
                 "-Wno-unknown-cuda-version", "-ferror-limit=0"] + ([f"--cuda-path={toolkit}"] if toolkit else [])
                + list(flags) + [f for d in self.include_dirs for f in ("-isystem", d)] + ["-idirafter", self.standin_dir])


def _found(name: str, dirs: Iterable[str]) -> bool:
    return any(os.path.isfile(os.path.join(d, name)) for d in dirs)


def _wrapper_includes(resource: str) -> list[str]:
    """The toolkit headers clang's CUDA wrapper headers include ("cuda_runtime.h", "curand_mtgp32_kernel.h"...)."""
    names: set[str] = set()
    for wrapper in Path(resource, "include").glob("__clang_cuda_*.h"):
        names.update(m.decode() for m in _QUOTED_INCLUDE.findall(wrapper.read_bytes()) if not m.startswith(b"__clang"))
    return sorted(names)


def _standin_texts(libraries: dict[str, str], dirs: tuple[str, ...], wrapper: list[str], declare: Declare,
                   declared: frozenset[str]) -> dict[str, str]:
    """Relative path -> text of every stand-in: empty for the wrapper's, a library's real headers, or declarations.

    A library without any real header is declared from the rules, together with every other such library
    (cusolverDn.h brings cuBLAS's names, as the real one does), each name once.
    """
    texts = {name: "// portkit: an empty stand-in; clang's CUDA wrapper includes it, this CUDA toolkit has none.\n"
             for name in wrapper if not _found(name, dirs)}
    missing = {name: library for name, library in sorted(libraries.items()) if name not in texts and not _found(name, dirs)}
    declared_here = sorted({library for name, library in missing.items()
                            if not any(lib == library and _found(h, dirs) for h, lib in libraries.items())})
    if declared_here:
        texts[_DECLARATIONS] = declare(declared_here, declared)
    for name, library in missing.items():
        real = sorted(h for h, lib in libraries.items() if lib == library and _found(h, dirs))
        includes = [f"<{h}>" for h in real] if real else [f'"{_DECLARATIONS}"']
        texts[name] = "#pragma once\n" + "".join(f"#include {i}\n" for i in includes)
    return texts


def _toolkit_names(dirs: tuple[str, ...], resource: str, wrapper_dir: str) -> frozenset[str]:
    """The names the CUDA runtime headers declare (what a unit sees before its own includes): not declared again."""
    cindex = load_cindex()
    env = HeaderEnvironment(dirs, wrapper_dir, resource, (), "")
    empty = os.path.join(wrapper_dir, "portkit-empty.cu")
    unit = cindex.Index.create().parse(empty, args=env.arguments([]), unsaved_files=[(empty, "")],
                                       options=cindex.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
    names = set()
    stack = list(unit.cursor.get_children())
    while stack:
        cursor = stack.pop()
        names.add(cursor.spelling)
        if cursor.kind in (cindex.CursorKind.ENUM_DECL, cindex.CursorKind.TYPEDEF_DECL):
            stack.extend(cursor.get_children())
    return frozenset(names)


def _write_tree(root: Path, texts: dict[str, str]) -> None:
    for name, text in texts.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def _key(dirs: tuple[str, ...], resource: str, texts: dict[str, str]) -> str:
    digest = hashlib.sha256(f"{_FORMAT}|{resource}|{libclang_identity()}".encode())
    for directory in dirs:
        digest.update(f"|{directory}:{os.stat(directory).st_mtime_ns}".encode())
    for name, text in sorted(texts.items()):
        digest.update(f"|{name}\0{text}".encode())
    return digest.hexdigest()[:20]


def header_environment(libraries: dict[str, str], declare: Declare) -> HeaderEnvironment:
    """The environment for this machine, its stand-ins written (once) to the cache directory.

    `libraries` maps each CUDA library header a unit may include to its library.
    """
    dirs, resource = tuple(cuda_include_dirs()), os.path.realpath(resource_dir())
    wrapper = _wrapper_includes(resource)
    draft = _standin_texts(libraries, dirs, wrapper, declare, frozenset())
    key = _key(dirs, resource, draft)
    final = cache_root() / "clang-headers" / key
    standins = tuple(sorted(n for n in draft if n != _DECLARATIONS))
    if not final.is_dir():
        final.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(dir=final.parent, prefix=".tmp-"))
        _write_tree(work, {n: t for n, t in draft.items() if n in wrapper})
        declared = _toolkit_names(dirs, resource, str(work))
        _write_tree(work, _standin_texts(libraries, dirs, wrapper, declare, declared))
        try:
            work.rename(final)
        except OSError:  # another run wrote it first
            shutil.rmtree(work, ignore_errors=True)
    return HeaderEnvironment(dirs, os.path.realpath(final), resource, standins, key)


def _resolve(name: str, directory: str | None, dirs: list[tuple[str, bool]]) -> tuple[str | None, bool]:
    """Where an include is found, and whether it is a system header (-isystem, CUDA's), as a compiler sees it."""
    for candidate, system in ([(directory, False)] if directory else []) + dirs:
        path = os.path.join(candidate, name)
        if os.path.isfile(path):
            return os.path.realpath(path), system
    return None, True


@dataclasses.dataclass(frozen=True)
class Prefix:
    """What a unit includes from outside the project, in order: the headers its precompiled header holds."""

    lines: tuple[str, ...]  # `<curand.h>`, `<vector>`, `"/opt/lib/include/x.h"`
    files: tuple[str, ...]  # those that are files outside the CUDA headers: a change to one changes the result


def prefix_of(path: str, data: bytes, flags: list[str], env: HeaderEnvironment) -> Prefix:
    """The headers a unit includes, itself or through the project's headers, that are not the project's:
    CUDA's and the system's (-isystem directories, and what the search path does not find: the compiler's).
    A textual scan: conditions are not evaluated, and an include nothing finds stays in (an error, not a
    fatal one, in the precompiled header). User headers (found next to the includer or through -I) are
    followed: they are the project's, parsed with each unit."""
    dirs = search_dirs(flags) + [(d, True) for d in env.include_dirs] + [(env.standin_dir, True)]
    lines: dict[str, None] = {}
    files: dict[str, None] = {}
    seen = {os.path.realpath(path)}

    def visit(directory: str, text: bytes) -> None:
        for delimiter, raw in _INCLUDE.findall(text):
            name = raw.decode("utf-8", "replace").strip()
            resolved, system = _resolve(name, directory if delimiter == b'"' else None, dirs)
            if resolved in seen:
                continue
            if resolved is not None:
                seen.add(resolved)
            if resolved is None or env.is_cuda(resolved):
                lines.setdefault(f"<{name}>")
            elif system:
                lines.setdefault(f'"{resolved}"')
                files.setdefault(resolved)
            else:
                try:
                    visit(os.path.dirname(resolved), read_bytes(resolved))
                except OSError:
                    pass

    visit(os.path.dirname(os.path.realpath(path)), data)
    return Prefix(tuple(lines), tuple(files))


def shared_prefixes(units: dict[str, tuple[list[str], bytes]], env: HeaderEnvironment) -> dict[str, Prefix]:
    """One prefix for all the units with the same flags (`units`: path -> (flags, bytes)): the union of what each
    includes, so that one precompiled header serves them all, not one per unit's own set of includes."""
    groups: dict[tuple[str, ...], list[str]] = {}
    found: dict[str, Prefix] = {}
    for path in sorted(units):
        flags, data = units[path]
        groups.setdefault(tuple(flags), []).append(path)
        found[path] = prefix_of(path, data, flags, env)
    shared = {}
    for members in groups.values():
        union = Prefix(tuple(dict.fromkeys(line for m in members for line in found[m].lines)),
                       tuple(dict.fromkeys(file for m in members for file in found[m].files)))
        shared.update((member, union) for member in members)
    return shared


def included_names(paths: Iterable[str]) -> set[str]:
    """Every header the files include with angle brackets (`curand.h`): those a stand-in may have to answer."""
    names: set[str] = set()
    for path in paths:
        try:
            text = read_bytes(path)
        except OSError:
            continue
        names.update(raw.decode("utf-8", "replace").strip() for delimiter, raw in _INCLUDE.findall(text)
                     if delimiter == b"<")
    return names


def macro_names(paths: Iterable[str]) -> frozenset[str]:
    """Every macro the files #define: a CUDA macro's use leaves no reference in clang's tree, only its name."""
    names: set[str] = set()
    for path in paths:
        try:
            names.update(m.decode() for m in _DEFINE.findall(read_bytes(path)))
        except OSError:
            continue
    return frozenset(names)
