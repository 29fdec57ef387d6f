"""The project headers a named file includes: read for the names they define, never reported.

`portkit check a.cu` (what pre-commit runs on the staged files) walks only a.cu, so a
`#define cudaCheck(...)` in the project's "util.h" would be out of sight and its uses
would read as unknown CUDA names. Each quoted `#include` of a file named on the command
line is looked up as a compiler does, transitively, inside the project (its root, or the
git repository's if that is above it or the file is outside the root) only, at most
MAX_FILES files; every `#if` branch counts, so a header is read whatever its conditions say.
Beside the including file first, then in each directory above it up to the project root:
the include directories a build passes (`-I src` for colmap's "colmap/util/cuda.h" from
src/colmap/mvs/) are most often such an ancestor, and a scan of the whole tree takes a
quoted path that ends one of the project's files for that file (analyze/registry.py), so
a run on one file agrees with it. A few stat calls per include: pre-commit stays fast.
"""
from __future__ import annotations

import os
import re
from typing import Iterable

from portkit.textutil import line_matches
from portkit.walk import SourceFile, TooLarge, read_bytes

MAX_FILES = 2000  # headers read for one run's named files: a bound on the work, not a project size
_QUOTED_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.M)


def quoted_includes(source: bytes) -> tuple[bytes, ...]:
    """The names a file's quoted `#include`s spell, in order."""
    return tuple(match.group(1) for match in line_matches(source, b"include", _QUOTED_INCLUDE))


def _inside(path: str, root: str) -> bool:
    return os.path.commonpath([root, path]) == root


def _search_dirs(includer: str, root: str) -> Iterable[str]:
    """The includer's directory and those above it, up to and with `root` (which holds the includer)."""
    directory = os.path.dirname(includer)
    while _inside(directory, root):
        yield directory
        if directory == root:
            return
        directory = os.path.dirname(directory)


def _resolve(name: str, includer: str, root: str) -> str | None:
    for base in _search_dirs(includer, root):
        candidate = os.path.realpath(os.path.join(base, name))
        if _inside(candidate, root) and os.path.isfile(candidate):
            return candidate
    return None


def _repository_root(directory: str) -> str | None:
    """The nearest directory at or above `directory` with a .git: the repository the file is in."""
    while not os.path.exists(os.path.join(directory, ".git")):
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent
    return directory


def _project_tops(paths: list[str], root: str) -> list[str]:
    """How far up each named file's includes are looked for: the higher of the project root and the file's repository
    root that hold it (`portkit check` run in a subdirectory, or given a file of another tree); else its directory."""
    repositories: dict[str, str | None] = {}  # by directory: pre-commit may name thousands of files
    tops = []
    for path in paths:
        directory = os.path.dirname(path)
        if directory not in repositories:
            repositories[directory] = _repository_root(directory)
        held = [top for top in (repositories[directory], root) if top is not None and _inside(path, top)]
        tops.append(min(held, key=len) if held else directory)
    return tops


def included_headers(named: Iterable[str], walked: Iterable[SourceFile], root: str, limit: int) -> list[SourceFile]:
    """The project files the `named` files include, directly or not, that the walk did not find."""
    root = os.path.realpath(root)
    paths = [os.path.realpath(p) for p in named if os.path.isfile(p)]
    todo = list(zip(paths, _project_tops(paths, root)))
    if not todo:
        return []  # only directories named: the walk found their files (resolving each would cost 0.3 s on 1M lines)
    seen = {os.path.realpath(f.path) for f in walked}
    found: list[SourceFile] = []
    while todo and len(found) < MAX_FILES:
        includer, top = todo.pop()
        try:
            data = read_bytes(includer, limit)
        except (OSError, TooLarge):
            continue  # the walk reports an unreadable named file; an included one is only context
        for name in quoted_includes(data):
            target = _resolve(os.fsdecode(name), includer, top)
            if target is not None and target not in seen:
                seen.add(target)
                found.append(SourceFile(os.path.relpath(target), "source"))
                todo.append((target, top))
    return sorted(found[:MAX_FILES])
