"""The project headers a named file includes: read for the names they define, never reported.

`portkit check a.cu` (what pre-commit runs on the staged files) walks only a.cu, so a
`#define cudaCheck(...)` in the project's "util.h" would be out of sight and its uses
would read as unknown CUDA names. Each quoted `#include` of a file named on the command
line is looked up as a compiler does (beside the including file, then at the project
root), transitively, inside the project root only, at most MAX_FILES files; every
`#if` branch counts, so a header is read whatever its conditions say.
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


def _resolve(name: str, includer: str, root: str) -> str | None:
    for base in (os.path.dirname(includer), root):
        candidate = os.path.realpath(os.path.join(base, name))
        if _inside(candidate, root) and os.path.isfile(candidate):
            return candidate
    return None


def included_headers(named: Iterable[str], walked: Iterable[SourceFile], root: str, limit: int) -> list[SourceFile]:
    """The project files the `named` files include, directly or not, that the walk did not find."""
    root = os.path.realpath(root)
    # A file named outside the project root has its own directory as its project.
    todo = [(path, root if _inside(path, root) else os.path.dirname(path))
            for path in (os.path.realpath(p) for p in named if os.path.isfile(p))]
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
