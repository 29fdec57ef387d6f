"""The one analyzer registry: `@analyzer(file types...)` registers a function for those files.

A source analyzer is `fn(parsed: ParsedFile, context: Context) -> Iterable[Finding]`;
a text analyzer (build files, scripts, containers, Python projects) is
`fn(file: TextFile, context: Context) -> Iterable[Finding]`. Analyzers are pure:
they read occurrences and rules and return findings, never text edits.
"""
from __future__ import annotations

import dataclasses
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
