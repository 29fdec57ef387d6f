"""Analyzers turn parsed files into findings; each is small and registered here.

An analyzer is `analyze(parsed: ParsedFile, context: Context) -> Iterable[Finding]`.
Build-file analyzers take the file's text instead of a parse.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Iterable

from portkit.codes import CODES, STATUS_CODES
from portkit.model import Finding, Occurrence, ParsedFile, Position, Span
from portkit.rules import Rule, RuleDatabase, Target


@dataclasses.dataclass(frozen=True)
class Context:
    rules: RuleDatabase
    target: Target
    project_names: frozenset[str]  # functions, macros, types the project defines
    project_declared: frozenset[str]  # its variables and parameters


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
        return f"{name} ({title}) maps to {hip}, which the targeted ROCm lacks"
    return f"{name} ({title}) has no {target_lib} equivalent"


def rule_finding(path: str, rule: Rule, name: str, span: Span, position: Position, context: Context,
                 occurrence_context: str = "") -> Finding:
    """The finding for one use of a name that a rule knows."""
    resolution = rule.resolve(context.target)
    code = STATUS_CODES[resolution.status]
    return Finding(
        path=path, position=position, code=code, name=name,
        message=_status_message(rule, name, resolution.status, resolution.hip, context),
        severity=CODES[code].severity, library=rule.library, status=resolution.status,
        hip=resolution.hip or rule.roc, advice=resolution.advice, context=occurrence_context, span=span,
    )


def simple_finding(path: str, occurrence: Occurrence, code: str, message: str, advice: str = "") -> Finding:
    return Finding(
        path=path, position=occurrence.position, code=code, name=occurrence.text, message=message,
        severity=CODES[code].severity, advice=advice, context=occurrence.context, span=occurrence.span,
    )


def analyze_file(parsed: ParsedFile, context: Context) -> list[Finding]:
    # Importing the modules registers their analyzers.
    from portkit.analyzers import inventory, names  # noqa: F401
    findings: list[Finding] = []
    for analyzer in SOURCE_ANALYZERS:
        findings.extend(analyzer(parsed, context))
    return findings
