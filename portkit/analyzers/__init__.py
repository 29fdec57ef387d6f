"""Analyzers turn parsed files into findings; each is small and registered here.

An analyzer is `analyze(parsed: ParsedFile, context: Context) -> Iterable[Finding]`.
Build-file analyzers take the file's text instead of a parse.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Iterable

from portkit.codes import CODES, STATUS_CODES
from portkit.model import Edit, Finding, Occurrence, OccurrenceKind, ParsedFile, Position, Span
from portkit.rules import Resolution, Rule, RuleDatabase, Target

# Statuses whose HIP spelling is written by convert (with a marker unless supported).
RENAMED_STATUSES = ("supported", "partial", "unavailable")


@dataclasses.dataclass(frozen=True)
class Context:
    rules: RuleDatabase
    target: Target
    project_names: frozenset[str]  # functions, macros, types the project defines
    project_declared: frozenset[str]  # its variables and parameters
    prefer_roc: bool = False  # write rocRAND/rocBLAS... names where a rule has both
    launch_syntax: str = "cuda"  # "hip": rewrite k<<<...>>>(...) as hipLaunchKernelGGL(k, ...)
    aliases: tuple[tuple[str, str], ...] = ()  # namespace aliases the project defines: (cg, cooperative_groups)


Analyzer = Callable[[ParsedFile, Context], Iterable[Finding]]
SOURCE_ANALYZERS: list[Analyzer] = []


def register(analyzer: Analyzer) -> Analyzer:
    SOURCE_ANALYZERS.append(analyzer)
    return analyzer


def _status_message(rule: Rule, name: str, status: str, hip: str, context: Context) -> str:
    library = context.rules.libraries.get(rule.library)
    title = library.title if library else rule.library
    target_lib = (library.hip_library if library else "") or "HIP"
    if status == "supported":
        return f"{name} ({title}) maps to {hip or rule.roc}"
    if status == "partial":
        return f"{name} ({title}) maps to {hip or rule.roc or target_lib} with differences"
    if status == "removed":
        return f"{name} ({title}) was removed from CUDA"
    if status == "unavailable":
        if hip:
            return f"{name} ({title}) is not in the targeted HIP; the nearest spelling is {hip}"
        return f"{name} ({title}) has a HIP equivalent, but not in the targeted ROCm version"
    return f"{name} ({title}) has no {target_lib} equivalent"


def _spelling(rule: Rule, resolution: Resolution, context: Context) -> str:
    if context.prefer_roc and rule.roc_available(context.target) and resolution.hip == rule.hip:
        return rule.roc
    return resolution.hip or (rule.roc if resolution.status in RENAMED_STATUSES else "")


def _edits(occurrence: Occurrence | None, spelling: str, resolution: Resolution, context: Context,
           rule: Rule) -> tuple[Edit, ...]:
    """The byte edits that write the HIP spelling of one use, or () when none applies."""
    if occurrence is None or not spelling or resolution.status not in RENAMED_STATUSES:
        return ()
    if occurrence.span.end == occurrence.span.start:
        return ()  # written through a macro (clang engine): nothing of its own to rename
    if occurrence.text in context.project_declared:
        return ()  # a local variable that happens to share the name
    if spelling == occurrence.text:
        return ()
    if occurrence.kind is OccurrenceKind.INCLUDE:
        return (Edit(occurrence.span, _include(spelling, occurrence.detail, rule.hip_requires).encode()),)
    edits = [Edit(occurrence.span, spelling.encode())]
    if resolution.drop_args:
        arguments = occurrence.parts
        if occurrence.kind is not OccurrenceKind.CALL or len(arguments) <= resolution.drop_args:
            return ()  # cannot drop arguments we cannot see (a macro body): leave it to the marker
        edits.append(Edit(Span(arguments[0].start, arguments[resolution.drop_args].start), b""))
    return tuple(edits)


def _include(path: str, style: str, requires: str) -> str:
    """The new include target; a header HIP needs first gets its own #include before it."""
    if requires:
        return f"<{requires}>\n#include {_delimited(path, style)}"
    return _delimited(path, style)


def _delimited(path: str, style: str) -> str:
    return f"<{path}>" if style == "system" else f'"{path}"'


def rule_finding(path: str, rule: Rule, name: str, span: Span, position: Position, context: Context,
                 occurrence_context: str = "", occurrence: Occurrence | None = None) -> Finding:
    """The finding for one use of a name that a rule knows, with the edits that port it."""
    resolution = rule.resolve(context.target)
    code = STATUS_CODES[resolution.status]
    spelling = _spelling(rule, resolution, context)
    return Finding(
        path=path, position=position, code=code, name=name,
        message=_status_message(rule, name, resolution.status, spelling, context),
        severity=CODES[code].severity, library=rule.library, status=resolution.status,
        hip=spelling, advice=resolution.advice, context=occurrence_context, span=span,
        edits=_edits(occurrence, spelling, resolution, context, rule),
    )


def simple_finding(path: str, occurrence: Occurrence, code: str, message: str, advice: str = "") -> Finding:
    return Finding(
        path=path, position=occurrence.position, code=code, name=occurrence.text, message=message,
        severity=CODES[code].severity, advice=advice, context=occurrence.context, span=occurrence.span,
    )


def analyze_file(parsed: ParsedFile, context: Context) -> list[Finding]:
    # Importing the modules registers their analyzers.
    from portkit.analyzers import hazards, inventory, names  # noqa: F401
    findings: list[Finding] = []
    for analyzer in SOURCE_ANALYZERS:
        findings.extend(analyzer(parsed, context))
    return findings
