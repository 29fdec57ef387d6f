"""Member functions declared host-only in their class and defined `__device__` outside it.

nvcc takes the definition's execution spaces; clang, and so hipcc, rejects the
redeclaration. The fix writes the definition's spaces, spelled as the definition
spells them (`HOST_DEVICE`), before the declaration, which both compilers accept.
Overloads are told apart by their parameter count; a name with any in-class
declaration that already has a device space is left alone.
"""
from __future__ import annotations

import collections
import dataclasses
from typing import Iterable

from portkit.analyze.findings import simple_finding
from portkit.analyze.registry import Context, analyzer
from portkit.codes import CODES, EXECUTION_SPACE_MISMATCH
from portkit.model import Finding, Fix, FixAction, FunctionFacts, Occurrence, ParsedFile, Role, Span

_DEVICE_SPACES = ("__device__", "__global__")


def _device(spaces: str) -> bool:
    return any(space in spaces.split() for space in _DEVICE_SPACES)


def _declarations(parsed: ParsedFile) -> dict[str, list[Occurrence]]:
    """In-class member declarations by their unqualified `Class::name`."""
    found: dict[str, list[Occurrence]] = collections.defaultdict(list)
    for occurrence in parsed.of(Role.MEMBER_DECLARATION):
        found[occurrence.text].append(occurrence)
    return found


@analyzer("source", codes=(EXECUTION_SPACE_MISMATCH,), fixes=True)
def analyze_redeclarations(parsed: ParsedFile, context: Context) -> Iterable[Finding]:
    declarations = _declarations(parsed)
    if not declarations:
        return
    for definition in parsed.of(Role.DEVICE_FUNCTION, Role.KERNEL):
        if "::" not in definition.text:
            continue
        owner_and_name = "::".join(definition.text.rsplit("::", 2)[-2:])  # ns::Class::f -> Class::f
        declared = declarations.get(owner_and_name, [])
        if not declared or any(_device(d.detail) for d in declared):
            continue
        spelled = definition.facts(FunctionFacts).spelled or definition.facts(FunctionFacts).spaces
        for declaration in (d for d in declared if d.facts(FunctionFacts).params == definition.facts(FunctionFacts).params):
            finding = simple_finding(
                parsed.path, declaration, EXECUTION_SPACE_MISMATCH,
                f"{declaration.text} is declared without __device__ here but defined {spelled} at line "
                f"{definition.position.line}: hipcc rejects the redeclaration", CODES[EXECUTION_SPACE_MISMATCH].fix)
            start = declaration.span.start
            yield dataclasses.replace(finding, fix=Fix(FixAction.INSERT, Span(start, start), f"{spelled} "))
