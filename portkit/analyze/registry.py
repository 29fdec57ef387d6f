"""The one analyzer registry, with two kinds of analyzer.

File analyzers: `@analyzer(file types...)` registers a function for those files. A source
analyzer is `fn(parsed: ParsedFile, context: Context) -> Iterable[Finding]`; a text analyzer
(build files, scripts, containers, Python projects) is `fn(file: TextFile, context: Context)
-> Iterable[Finding]`.

Project analyzers (`project_analysis(ProjectAnalysis(...))`): what only the whole project decides.
Each collects a small fact from every source file (in the worker that analyses the file; the cache and
the shard documents keep it with the file's result, packed by the analysis's own `pack`), then
decides over every file's fact at the end of the run, adding findings.

Analyzers are pure: they read occurrences and rules and return findings, never text edits. Every
module of portkit/analyze/ is imported (analyze/__init__.py), so a new one registers itself.
"""
from __future__ import annotations

import dataclasses
import functools
import os
import posixpath
import re
from typing import Any, Callable, Collection, Iterable, Sequence, Union

from portkit.model import Finding, ParsedFile, Role
from portkit.rules import RuleDatabase, Target
from portkit.textutil import AUTOCONF_COMMENT, HASH_COMMENT, SHELL_COMMENT

CUDA_SAMPLES = "cuda-samples"  # the library of the CUDA Samples' helper headers, which projects ship copies of


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
    project_files: frozenset[str] = frozenset()  # every scanned file's path as walked, normalized (project_files)
    fixes: bool = True  # False: nothing will rewrite the files, so findings need not say what to write

    def project_header(self, include: str, includer: str, angled: bool = False) -> bool:
        """Whether `#include "include"` (`<include>` if `angled`) in the file `includer` names one of the project's files.

        A CUDA toolkit header's name (`cuda.h`) is the project's only where a quoted include finds the file at that
        path from the includer's directory: one program's util/cuda/cuda.h is not its neighbour's `<cuda.h>`, nor a
        `#include "cuda.h"` with none beside it, and never an angled include, which does not look there (llama.cpp's
        vendors/cuda.h includes `<cuda.h>`). Nor where a quoted path, directories and all, ends one of the project's
        files and the header's name is only its last part: colmap includes its colmap/util/cuda.h as
        "colmap/util/cuda.h" through -Isrc (a vendored CUB's "cub/cub.cuh" stays CUB's, and TensorFlow's
        "third_party/gpus/cuda/include/cuda.h", in no scanned tree, NVIDIA's). Any other name (a CUDA Samples
        helper a project ships in its include directory) is the project's wherever a file ends with it."""
        spelled = include.replace("\\", "/")
        rule = self.rules.header(spelled)
        if rule is not None and rule.library != CUDA_SAMPLES:
            if angled:
                return False
            beside = posixpath.normpath(posixpath.join(posixpath.dirname(includer.replace(os.sep, "/")), spelled))
            return beside in self.project_files or (
                self.rules.header_by_file_name_only(spelled.lstrip("./")) and spelled.lstrip("./") in self.project_paths)
        return spelled.lstrip("./") in self.project_paths


def project_files(paths: Iterable[str]) -> frozenset[str]:
    """Each path with `/` separators, normalized: what an include resolved from its includer's directory is."""
    return frozenset(posixpath.normpath(path.replace(os.sep, "/")) for path in paths)


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

    @property
    def comment(self) -> re.Pattern[str]:
        """Its comments, as convert reads them: a script's start only where a word does (`$#`, the number of its
        arguments, is no comment), configure.ac's are m4's too."""
        return {"script": SHELL_COMMENT, "autoconf": AUTOCONF_COMMENT}.get(self.file_type, HASH_COMMENT)


Analyzer = Callable[[Any, Context], Iterable[Finding]]
Names = Union[Collection[str], re.Pattern[str]]  # names, or a pattern they match
# Whether to run an analyzer, from the codes its findings may carry and whether they may carry a fix.
Select = Callable[[frozenset[str], bool], bool]


@dataclasses.dataclass(frozen=True)
class Registration:
    function: Analyzer
    codes: frozenset[str]  # every code its findings may carry (tests/test_registry.py checks them)
    fixes: bool  # whether its findings may say what convert writes
    reads: frozenset[Role]  # the parser's optional roles it reads (parse.queries.OPTIONAL_ROLES; tests/test_registry.py)
    arguments_of: Names  # the calls whose argument texts it reads besides those the rules ask for (the same tests)
    strings_of: frozenset[str] = frozenset()  # the calls that make it read the file's string literals (Role.STRING)


_ANALYZERS: dict[str, list[Registration]] = {}


def analyzer(*file_types: str, codes: Iterable[str], fixes: bool = False, reads: Iterable[Role] = (),
             arguments_of: Names = frozenset(), strings_of: Iterable[str] = ()) -> Callable[[Analyzer], Analyzer]:
    """Register a function for `file_types`; `codes` and `fixes` say what its findings may be, so that a caller
    acting on some findings only (convert without a cache to fill) runs only the analyzers that can make them;
    `reads`, which of the occurrences the parser makes only when asked it reads, so that such a run asks only
    for those; `arguments_of`, the calls whose argument texts (and what they initialise) it reads, so that the
    parser spells out no others (the rules' own: `RuleDatabase.reads_arguments`); `strings_of`, the calls a file
    must make for it to read the file's string literals, so that the parser reads no other file's."""
    names = arguments_of if isinstance(arguments_of, re.Pattern) else frozenset(arguments_of)

    def register(function: Analyzer) -> Analyzer:
        for file_type in file_types:
            _ANALYZERS.setdefault(file_type, []).append(
                Registration(function, frozenset(codes), fixes, frozenset(reads), names, frozenset(strings_of)))
        analyzers_for.cache_clear()
        roles_read.cache_clear()
        arguments_read.cache_clear()
        strings_read.cache_clear()
        return function
    return register


def registrations(file_type: str) -> list[Registration]:
    return _ANALYZERS.get(file_type, [])


def _selected(file_type: str, select: Select | None) -> list[Registration]:
    """The registrations of a file type whose analyzers `select` keeps (all without it)."""
    return [r for r in registrations(file_type) if select is None or select(r.codes, r.fixes)]


@functools.lru_cache(maxsize=16)
def analyzers_for(file_type: str, select: Select | None = None) -> tuple[Analyzer, ...]:
    """The analyzers of a file type, those `select` keeps (all without it); asked once per file, answered once."""
    return tuple(r.function for r in _selected(file_type, select))


@functools.lru_cache(maxsize=16)
def roles_read(select: Select | None) -> frozenset[Role] | None:
    """The optional roles the source analyzers `select` keeps read; None (every role) when all of them run."""
    return None if select is None else frozenset().union(*(r.reads for r in _selected("source", select)))


@functools.lru_cache(maxsize=16)
def arguments_read(select: Select | None) -> tuple[Names, ...]:
    """The calls whose argument texts the source analyzers `select` keeps (all without it) read besides the rules'."""
    return tuple(r.arguments_of for r in _selected("source", select) if r.arguments_of)


@functools.lru_cache(maxsize=16)
def strings_read(select: Select | None) -> frozenset[str]:
    """The calls that make the source analyzers `select` keeps (all without it) read a file's string literals."""
    return frozenset().union(*(r.strings_of for r in _selected("source", select)))


@dataclasses.dataclass(frozen=True)
class ProjectAnalysis:
    """A decision over the whole project: `collect` takes each source file's fact (parsed file, its context and
    own findings -> a small value), `finish` decides over every reported file's (path, fact) (None for a file with
    no fact: not a source, or unreadable) and returns the findings only the project shows. `pack` makes a fact JSON
    (lists, strings, numbers; findings and occurrences as portkit/packing.py rows) and `unpack(packed, fixes)` reads
    it back (`fixes=False`: findings without their fixes).

    Two optional steps see the facts of every file the run read, those read only for their definitions too:
    `share(facts)` returns the `Context` fields the project's facts decide (before any `finish`), and
    `revise(findings, files, context)` returns the findings of a run that keeps them (every file's, after every
    `finish`) with what the project decides about their fixes."""

    name: str
    collect: Callable[[ParsedFile, Context, Sequence[Finding]], Any]
    finish: Callable[[Sequence[tuple[str, Any]], Context], Iterable[Finding]]
    pack: Callable[[Any], Any]
    unpack: Callable[[Any, bool], Any]
    share: Callable[[Sequence[Any]], dict[str, Any]] | None = None
    revise: Callable[[list[Finding], Sequence[tuple[str, Any]], Context], list[Finding]] | None = None


_PROJECT_ANALYSES: dict[str, ProjectAnalysis] = {}


def project_analysis(analysis: ProjectAnalysis) -> ProjectAnalysis:
    """Register a project analysis (its name keys its facts in results, caches and shards)."""
    _PROJECT_ANALYSES[analysis.name] = analysis
    return analysis


def project_analyses() -> tuple[ProjectAnalysis, ...]:
    """Every registered project analysis, in registration order."""
    return tuple(_PROJECT_ANALYSES.values())
