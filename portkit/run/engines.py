"""What the clang engine needs for a whole run, and what it adds to one.

Before the files: the header environment (stand-ins, written from the rule
database, for the CUDA headers this machine lacks), each unit's flags, and one
precompiled header per compile flags. After: each project header's findings
from the units that include it, and what the run says on stderr (which units
fell back, and why). run/ runs the files; this module keeps the engine's
part of a run out of it.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import logging
import os
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

from portkit.fileio import read_bytes
from portkit.run.cache import FileResult
from portkit.model import Finding
from portkit.rules import RuleDatabase
from portkit.settings import RunSettings
from portkit.walk import SourceFile

if TYPE_CHECKING:  # the clang modules load only when the engine runs
    from portkit.parse.clang_headers import HeaderEnvironment, Prefix

CLANG_UNITS = (".cu", ".cpp", ".cc", ".cxx", ".c")
# What the run says about itself (the clang engine's flags, and the units retried with tree-sitter); the CLI shows it
# on stderr.
log = logging.getLogger("portkit")


@dataclasses.dataclass(frozen=True)
class ClangJob:
    """What the clang engine needs for every unit: the headers, the flags, the project's headers."""

    env: HeaderEnvironment
    compile_flags: dict[str, list[str]] | None  # from compile_commands.json, by resolved path
    project_headers: dict[str, str]  # the walked headers: real path -> path as walked
    prefixes: dict[str, Prefix] = dataclasses.field(default_factory=dict)  # by real path: a precompiled header's

    def flags(self, path: str) -> list[str]:
        from portkit.parse.clang_flags import default_flags, nearest_flags

        if self.compile_flags is None:
            return default_flags(path)
        return nearest_flags(self.compile_flags, os.path.realpath(path)) or default_flags(path)


def digests(paths: Iterable[str]) -> tuple[tuple[str, str], ...]:
    found = []
    for path in paths:
        try:
            found.append((path, hashlib.sha256(read_bytes(path)).hexdigest()))
        except OSError:
            found.append((path, ""))
    return tuple(found)


def clang_job(settings: RunSettings, rules: RuleDatabase, files: list[SourceFile]) -> ClangJob:
    """The header environment (stand-ins written from the rules for what this machine lacks) and the flags."""
    from portkit.parse.clang_flags import find_compile_database, read_compile_database
    from portkit.parse.clang_headers import header_environment, included_names, shared_prefixes
    from portkit.parse.clang_setup import load_cindex, resource_dir
    from portkit.rules.declarations import header_libraries, library_declarations, library_for_header

    load_cindex()
    database = find_compile_database(list(settings.paths), settings.compile_database)
    where = f"flags from {database}" if database else "no compile_commands.json found; default flags (the files' include/ directories)"
    log.info("clang engine: %s; clang resource directory: %s", where, resource_dir())
    sources = [f.path for f in files if f.file_type == "source"]
    libraries = header_libraries(rules)
    for name in included_names(sources):
        library = libraries.get(name) or library_for_header(rules, name)
        if library:
            libraries[name] = library
    env = header_environment(libraries, functools.partial(library_declarations, rules))
    headers = {os.path.realpath(path): path for path in sources if not path.lower().endswith(CLANG_UNITS)}
    job = ClangJob(env, read_compile_database(database) if database is not None else None, headers)
    units = {os.path.realpath(path): (job.flags(path), data) for path, data in _read_units(sources)}
    return dataclasses.replace(job, prefixes=shared_prefixes(units, env))


def _read_units(paths: list[str]) -> Iterator[tuple[str, bytes]]:
    for path in paths:
        if path.lower().endswith(CLANG_UNITS):
            try:
                yield path, read_bytes(path)
            except OSError:
                continue


def log_engine(results: list[FileResult], is_unit: Callable[[str], bool]) -> None:
    """Say how many units clang parsed and which fell back to tree-sitter, and why."""
    units = [r for r in results if is_unit(r.file.path) and r.lines is not None]
    retried = [r for r in units if r.problem == "engine"]  # clang failed on them: retried with tree-sitter
    log.info("clang engine: %d unit%s, %d parsed by clang, %d fell back to tree-sitter", len(units),
             "" if len(units) == 1 else "s", len(units) - len(retried), len(retried))
    for result in retried:
        log.warning("clang engine: %s: %s", result.file.path, result.warning)


def findings_of_headers(results: list[FileResult]) -> dict[str, list[Finding]]:
    """Each project header's findings from the units that include it, each finding once."""
    merged: dict[str, dict[tuple[int, int, str, str], Finding]] = {}
    for result in results:
        for path, findings in result.headers:
            bucket = merged.setdefault(path, {})
            for finding in findings:
                bucket.setdefault((finding.position.line, finding.position.column, finding.code, finding.name), finding)
    return {path: list(bucket.values()) for path, bucket in merged.items()}
