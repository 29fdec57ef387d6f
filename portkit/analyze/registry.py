"""The one analyzer registry: `@analyzer(file types...)` registers a function for those files.

A source analyzer is `fn(parsed: ParsedFile, context: Context) -> Iterable[Finding]`;
a text analyzer (build files, scripts, containers, Python projects) is
`fn(file: TextFile, context: Context) -> Iterable[Finding]`. Analyzers are pure:
they read occurrences and rules and return findings, never text edits.
"""
from __future__ import annotations

import dataclasses
import os
from typing import Any, Callable, Iterable

from portkit.model import Finding
from portkit.rules import RuleDatabase, Target


@dataclasses.dataclass(frozen=True)
class Context:
    """What analysis knows besides the file itself: the rules, the target and the project."""

    rules: RuleDatabase
    target: Target
    project_names: frozenset[str] = frozenset()  # functions, macros, types the project defines
    project_declared: frozenset[str] = frozenset()  # its variables and parameters
    prefer_roc: bool = False  # spell rocRAND/rocBLAS... names where a rule has both
    aliases: tuple[tuple[str, str], ...] = ()  # namespace aliases the project defines: (cg, cooperative_groups)
    project_paths: frozenset[str] = frozenset()  # every tail of every scanned file's path: a/b.h -> b.h, a/b.h
    fixes: bool = True  # False: nothing will rewrite the files, so findings need not say what to write

    def project_header(self, include: str) -> bool:
        """Whether `#include "include"` names one of the project's files."""
        return include.replace("\\", "/").lstrip("./") in self.project_paths


def path_tails(paths: Iterable[str]) -> frozenset[str]:
    """Each path's tails (`src/a/b.h` -> `b.h`, `a/b.h`, `src/a/b.h`): what an #include may spell."""
    tails = set()
    for path in paths:
        parts = path.replace(os.sep, "/").split("/")
        tails.update("/".join(parts[i:]) for i in range(len(parts)))
    return frozenset(tails)


@dataclasses.dataclass(frozen=True)
class TextFile:
    path: str
    file_type: str
    text: str


Analyzer = Callable[[Any, Context], Iterable[Finding]]
_ANALYZERS: dict[str, list[Analyzer]] = {}


def analyzer(*file_types: str) -> Callable[[Analyzer], Analyzer]:
    def register(function: Analyzer) -> Analyzer:
        for file_type in file_types:
            _ANALYZERS.setdefault(file_type, []).append(function)
        return function
    return register


def analyzers_for(file_type: str) -> list[Analyzer]:
    return _ANALYZERS.get(file_type, [])
