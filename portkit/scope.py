"""Which of the project's own definitions each file sees.

A name the project defines is its own, not CUDA's, where the definition is visible:
- a file no other file #includes is compiled on its own and linked, so every file sees
  its definitions, except those with internal linkage (`static`), which only it sees;
- a file others #include (a header, or a .cu included by another) is seen by the files
  that include it, directly or through other includes.
One tree often holds several programs (a benchmark suite, a samples collection): one
program's copy of cuda.h does not make CUDA's names its neighbour's own. Includes are
matched by file name (what an #include names, without its directories), so an include
of a name several files have reaches each of them.
"""
from __future__ import annotations

import os
from typing import Iterable, Protocol


class Defining(Protocol):
    """What scoping needs of a file's result (portkit.cache.FileResult has it)."""

    @property
    def definitions(self) -> frozenset[str]: ...

    @property
    def internal(self) -> frozenset[str]: ...

    @property
    def includes(self) -> tuple[str, ...]: ...


class ProjectNames:
    """The project's definitions, and which files see each."""

    def __init__(self, files: Iterable[tuple[str, Defining]]):
        files = list(files)
        included = {name for _, result in files for name in result.includes}
        everywhere: set[str] = set()
        in_included: dict[str, set[str]] = {}
        self._includes: dict[str, tuple[str, ...]] = {}
        self._by_name: dict[str, list[str]] = {}
        for path, result in files:
            name = os.path.basename(path)
            self._includes[path] = result.includes
            self._by_name.setdefault(name, []).append(path)
            if name in included:
                for defined in result.definitions:
                    in_included.setdefault(defined, set()).add(name)
            else:
                everywhere.update(result.definitions - result.internal)
        self.everywhere = frozenset(everywhere)
        self.in_included = {defined: frozenset(names) for defined, names in in_included.items()}
        self._seen: dict[str, FileNames] = {}

    def any_file(self) -> frozenset[str]:
        """Every name some file sees as the project's own."""
        return self.everywhere.union(self.in_included)

    def seen_by(self, path: str) -> FileNames:
        seen = self._seen.get(path)
        if seen is None:
            seen = self._seen[path] = FileNames(self, path)
        return seen

    def reached(self, path: str) -> frozenset[str]:
        """The file names `path` includes, directly or through the files those name."""
        reached: set[str] = set()
        frontier = list(self._includes.get(path, ()))
        while frontier:
            name = frontier.pop()
            if name in reached:
                continue
            reached.add(name)
            for other in self._by_name.get(name, ()):
                frontier.extend(self._includes.get(other, ()))
        return frozenset(reached)


class FileNames:
    """The project's names one file sees: `name in seen` is all a filter asks."""

    def __init__(self, project: ProjectNames, path: str):
        self._project = project
        self._path = path
        self._reached: frozenset[str] | None = None

    def __contains__(self, name: object) -> bool:
        if name in self._project.everywhere:
            return True
        defining = self._project.in_included.get(name) if isinstance(name, str) else None
        if not defining:
            return False
        if self._reached is None:  # only for the few names defined in included files
            self._reached = self._project.reached(self._path)
        return not defining.isdisjoint(self._reached)
