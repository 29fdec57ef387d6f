"""Which files under a directory git tracks: `.gitignore` rules apply only to untracked files.

A header a project commits though its .gitignore names it (darknet's src/version.h, "managed by CMake")
is part of the project: git keeps it, so the walk keeps it too. The answer comes from `git ls-files`;
without git, or outside a work tree, there is none and the .gitignore rules alone decide. The tree may
be someone else's: its own configuration must not run a command (core.fsmonitor is switched off).
"""
from __future__ import annotations

import dataclasses
import os
import subprocess

_LS_FILES = ["git", "-c", "core.fsmonitor=false", "ls-files", "-z", "--cached", "--recurse-submodules"]
_TIMEOUT = 120  # seconds; a work tree git cannot list in this time is walked by its .gitignore rules alone


@dataclasses.dataclass(frozen=True)
class Tracked:
    """What git tracks below a walk's root: `files`, and the `directories` holding them (from the root,
    excluded, down); `known` False where git could not say (then nothing counts as tracked)."""

    files: frozenset[str]
    directories: frozenset[str]
    known: bool

    def holds(self, path: str, is_dir: bool) -> bool:
        """Whether git tracks the file `path`, or (`is_dir`) a file below the directory `path`."""
        return os.path.normpath(path) in (self.directories if is_dir else self.files)


def tracked(root: str) -> Tracked:
    """What git tracks below `root`, paths joined onto it as a walk joins them."""
    files = tracked_files(root)
    return Tracked(files or frozenset(), directories_of(files or frozenset(), root), files is not None)


def tracked_files(root: str) -> frozenset[str] | None:
    """The tracked files below `root`, as paths joined onto `root` (normalised); None when git cannot say
    (no git on PATH, `root` not in a work tree, a repository git refuses to read)."""
    try:
        done = subprocess.run(_LS_FILES, cwd=root, capture_output=True, check=False, timeout=_TIMEOUT,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return frozenset(os.path.normpath(os.path.join(root, os.fsdecode(name)))
                     for name in done.stdout.split(b"\0") if name)


def directories_of(files: frozenset[str], root: str) -> frozenset[str]:
    """Every directory from `root` (excluded) down to each of `files`: those an ignored directory
    must still be walked into, for the tracked files it holds."""
    top = os.path.normpath(root)
    found: set[str] = set()
    for path in files:
        parent = os.path.dirname(path)
        while parent and parent != top and parent not in found:
            found.add(parent)
            parent = os.path.dirname(parent)
    return frozenset(found)
