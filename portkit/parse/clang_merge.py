"""clang's names merged into tree-sitter's occurrences, for a unit and the project headers it includes.

tree-sitter keeps everything that is not a name (includes, kernels, launches,
asm, conditions, macro bodies) and the syntax of each name it saw (a call's
arguments, the enclosing function). clang decides which names are CUDA uses:
a name tree-sitter saw is kept when clang resolved it to a CUDA declaration
there, when it is a CUDA macro used in active code, or when clang found no
declaration for it at all (tree-sitter's view then stands); names only clang
saw (through a macro, a using-directive, a template) are added. Preprocessor
lines are tree-sitter's: clang does not see `#if __CUDA_ARCH__` as a use.
"""
from __future__ import annotations

import dataclasses
import os
import re
from typing import TYPE_CHECKING, Callable

from portkit.model import ClangFacts, Occurrence, ParsedFile, Position, Role, Span

if TYPE_CHECKING:  # libclang's modules load only when the engine runs
    from portkit.parse.clang import FileNames, UnitNames
    from portkit.parse.clang_headers import HeaderEnvironment, Prefix

# Marks occurrences clang resolved to a CUDA declaration: no name-based shadowing applies.
RESOLVED = ClangFacts()
_NAME_ROLES = (Role.CALL, Role.TYPE, Role.IDENTIFIER, Role.QUALIFIED)
_DIRECTIVE = re.compile(rb"^[ \t]*#(?:[^\n]*\\\r?\n)*[^\n]*", re.MULTILINE)
_CONDITIONAL = re.compile(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b([^\n]*)", re.MULTILINE)


@dataclasses.dataclass(frozen=True)
class ClangParse:
    """The unit and each project header it includes, with clang's names; `problem` when it fell back."""

    unit: ParsedFile
    headers: tuple[ParsedFile, ...] = ()
    depends: tuple[str, ...] = ()  # the project files it read (real paths)
    problem: str = ""


def _directive_lines(data: bytes) -> set[int]:
    lines: set[int] = set()
    for match in _DIRECTIVE.finditer(data):
        first = data.count(b"\n", 0, match.start()) + 1
        lines.update(range(first, first + match.group().count(b"\n") + 1))
    return lines


def _device_branches(data: bytes, skipped: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The inactive branches that are device code (`#if __CUDA_ARCH__ >= 800`): a host-side parse cannot see them."""
    device_lines = set()
    groups: list[bytes] = []
    for match in _CONDITIONAL.finditer(data):
        keyword, condition = match.group(1), match.group(2)
        if keyword == b"endif":
            groups = groups[:-1]
            continue
        if keyword.startswith(b"if"):
            groups.append(b"")
        if groups:
            groups[-1] += condition
            if b"__CUDA_ARCH__" in groups[-1]:
                device_lines.add(data.count(b"\n", 0, match.start()) + 1)
    return [(a, b) for a, b in skipped if data.count(b"\n", 0, a) + 1 in device_lines]


def _resolved(occurrence: Occurrence) -> Occurrence:
    return dataclasses.replace(occurrence, clang=RESOLVED)


def _kept(occurrence: Occurrence, names: FileNames, macros: frozenset[str], unseen: set[int],
          device: list[tuple[int, int]]) -> Occurrence | None:
    """A tree-sitter name clang did not resolve: a CUDA macro in active code (clang records no use of a macro
    from the precompiled header), or where clang cannot see (a line with a name it knows no declaration of,
    which can hide the call around it; device-only code)."""
    start = occurrence.span.start
    active = not any(a <= start < b for a, b in names.skipped)
    if occurrence.text in macros and active:
        return _resolved(occurrence)
    if occurrence.position.line in unseen or any(a <= start < b for a, b in device):
        return occurrence
    return None


def _added(reference) -> Occurrence:
    return Occurrence(Span(reference.start, reference.end), reference.role, reference.text,
                      Position(reference.line, reference.column), reference.function,
                      clang=ClangFacts(reference.macro) if reference.macro else RESOLVED)


def merge_names(parsed: ParsedFile, data: bytes, names: FileNames, macros: frozenset[str]) -> ParsedFile:
    """tree-sitter's parse of one file with its names decided by clang."""
    directives = _directive_lines(data)
    device = _device_branches(data, names.skipped)
    unseen = {data.count(b"\n", 0, offset) + 1 for offset in names.undeclared}
    references = {}
    for reference in names.references:
        references.setdefault((reference.start, reference.text), reference)
    matched: set[tuple[int, str]] = set()
    occurrences = []
    for occurrence in parsed.occurrences:
        if occurrence.role not in _NAME_ROLES or occurrence.position.line in directives:
            occurrences.append(occurrence)
            continue
        key = (occurrence.span.start, occurrence.text.partition("<")[0])
        if key in references and references[key].end > references[key].start:
            matched.add(key)
            occurrences.append(_resolved(occurrence))
            continue
        kept = _kept(occurrence, names, macros, unseen, device)
        if kept is not None:
            occurrences.append(kept)
    occurrences += [_added(r) for key, r in references.items() if key not in matched]
    return dataclasses.replace(parsed, occurrences=tuple(sorted(occurrences, key=lambda o: (o.span.start, o.span.end))))


def _headers(names: UnitNames, project_headers: dict[str, str],
             parse: Callable[[str, bytes], ParsedFile], unit_path: str) -> tuple[ParsedFile, ...]:
    parsed = []
    for real, found in names.files.items():
        if real == unit_path or real not in project_headers:
            continue
        data = names.sources[real]
        parsed.append(merge_names(parse(project_headers[real], data), data, found, names.macros))
    return tuple(parsed)


def with_clang_names(parsed: ParsedFile, data: bytes, flags: list[str], env: HeaderEnvironment,
                     project_headers: dict[str, str], parse: Callable[[str, bytes], ParsedFile],
                     prefix: Prefix | None = None) -> ClangParse:
    """The unit's parse with clang's names, and its project headers' (`project_headers`: real path -> path as
    walked; `parse` is tree-sitter's); unchanged, with the reason, when clang cannot parse it."""
    from portkit.parse.clang import parse_unit

    names = parse_unit(parsed.path, data, flags, env, frozenset(project_headers), prefix)
    if names.problem:
        return ClangParse(parsed, problem=f"{names.problem}; fell back to tree-sitter for this file")
    unit_path = os.path.realpath(parsed.path)
    unit = merge_names(parsed, data, names.files[unit_path], names.macros)
    return ClangParse(unit, _headers(names, project_headers, parse, unit_path), names.depends)
