"""--verify's include flags, pointed at the converted tree hipcc compiles.

`--verify-flag=-Iinclude` names a directory of the project, not of the shell's directory (where hipcc would
look, find nothing, and call every unit "not verifiable"); and a directory inside an input tree holds the
headers as they were before converting. Each include directory is resolved into the converted tree: a
relative one against each converted input directory, then against the shell's directory; one inside an input
directory becomes its converted copy, with a note.
"""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Iterable

INCLUDE_FLAGS = ("-isystem", "-iquote", "-idirafter", "-I")  # each takes a directory, joined or as the next word


@dataclasses.dataclass(frozen=True)
class ConvertedRoot:
    """An input directory and where its converted copy is (itself, converted in place)."""

    source: Path
    converted: Path


@dataclasses.dataclass(frozen=True)
class VerifyFlags:
    flags: tuple[str, ...]
    notes: tuple[str, ...] = ()


def _inside(path: Path, root: Path) -> Path | None:
    """`path` relative to `root`, when it lies inside it."""
    try:
        return path.relative_to(root)
    except ValueError:
        return None


def _resolved(directory: str, roots: list[ConvertedRoot], flag: str) -> tuple[str, str | None]:
    """Where hipcc should look for `directory`, and a note when that is not where it was written."""
    written = Path(os.path.abspath(directory))
    if not os.path.isabs(directory):
        for root in roots:
            if (root.converted / directory).is_dir():
                return str(root.converted / directory), None
    for root in roots:
        relative = _inside(written, root.source.resolve())
        if relative is not None and root.converted != root.source:
            copy = root.converted / relative
            return str(copy), (f"--verify-flag {flag}{directory} points into the input tree, whose headers are not "
                               f"converted: hipcc was given its converted copy {copy}")
    if not written.is_dir():
        return directory, f"--verify-flag {flag}{directory}: no such directory in the converted tree nor here"
    return str(written), None


def verify_flags(flags: Iterable[str], roots: list[ConvertedRoot]) -> VerifyFlags:
    """`flags` with each include directory resolved (`_resolved`), the notes for those that moved or are missing."""
    words = list(flags)
    out: list[str] = []
    notes: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        flag = next((f for f in INCLUDE_FLAGS if word.startswith(f)), None)
        separate = word == flag and index + 1 < len(words)
        directory = words[index + 1] if separate else word[len(flag):] if flag else ""
        if not directory:
            out.append(word)
            index += 1
            continue
        resolved, note = _resolved(directory, roots, flag)
        out += [flag, resolved] if separate else [flag + resolved]
        notes += [note] if note else []
        index += 2 if separate else 1
    return VerifyFlags(tuple(out), tuple(notes))
