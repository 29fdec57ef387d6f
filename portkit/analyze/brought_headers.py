"""Type headers a CUDA library header brings and its HIP header does not: included beside the converted include.

nvcc's cublas_v2.h includes cuda_fp16.h and cuda_bf16.h (through cublas_api.h), so a file that includes only cuBLAS
may name `half` or `__nv_bfloat16`; hipblas.h includes neither hip/hip_fp16.h nor a bfloat16 header, and the
converted file fails where it names them. A header's rule lists the CUDA headers it brings (`cuda_brings`) and the
HIP headers its HIP header brings (`hip_brings`); the include's fix writes, before it, the HIP header (for the
target) of each type header HIP's lacks (`Fix.companions`, from `lacking`), unless the file includes that header
first. The names may be used by another file of a translation unit (a common header includes cuBLAS, the kernels
that name the types include it): over the project's include graph (a project analysis), a companion stays where a
file of a translation unit reaching the include uses a name its type header `declares`.
"""
from __future__ import annotations

import dataclasses
import os
from typing import Any, NamedTuple, Sequence

from portkit.analyze.include_graph import includes_both_ways, reachable, spelled_includes
from portkit.analyze.registry import Context, ProjectAnalysis, project_analysis
from portkit.codes import RENAMED_STATUSES
from portkit.model import Finding, FixAction, Occurrence, ParsedFile, Role
from portkit.rules import Rule

_NAME_ROLES = (Role.TYPE, Role.IDENTIFIER, Role.CALL, Role.QUALIFIED, Role.MACRO_BODY)


def _brought(rule: Rule, context: Context) -> dict[str, tuple[str, ...]]:
    """The HIP header, for the target, of each type header `rule`'s CUDA header brings and its HIP header does not,
    with the names that type header declares."""
    brought: dict[str, tuple[str, ...]] = {}
    for cuda in rule.cuda_brings:
        type_rule = context.rules.header(cuda)
        resolution = type_rule.resolve(context.target) if type_rule is not None else None
        if resolution is not None and resolution.status in RENAMED_STATUSES and resolution.hip \
                and resolution.hip not in rule.hip_brings:
            brought[resolution.hip] = type_rule.declares
    return brought


def lacking(rule: Rule, context: Context) -> tuple[str, ...]:
    """The companions of an include of `rule`'s header: what convert includes before its HIP header."""
    return tuple(_brought(rule, context))


def _included_before(header: str, occurrence: Occurrence, parsed: ParsedFile, context: Context) -> bool:
    """Whether an earlier #include of the file is `header`, or a CUDA header convert writes as it."""
    for o in parsed.of(Role.INCLUDE):
        if o.span.start >= occurrence.span.start:
            break
        rule = context.rules.header(o.text)
        if o.text == header or rule is not None and rule.resolve(context.target).hip == header:
            return True
    return False


def without_included(finding: Finding, occurrence: Occurrence, parsed: ParsedFile, context: Context) -> Finding:
    """An include's finding, its companions left out where an earlier #include of the file brings them."""
    fix = finding.fix
    if fix is None or not fix.companions:
        return finding
    kept = tuple(h for h in fix.companions if not _included_before(h, occurrence, parsed, context))
    return finding if kept == fix.companions else dataclasses.replace(finding, fix=dataclasses.replace(fix, companions=kept))


class TypeUses(NamedTuple):
    """One file's fact: what its #includes of project files spell, and the names of brought type headers it uses."""

    includes: tuple[str, ...] = ()
    used: tuple[str, ...] = ()


def _collect(parsed: ParsedFile, context: Context, findings: Sequence[Finding]) -> TypeUses:
    names = context.rules.brought_names()
    return TypeUses(spelled_includes(parsed, context), tuple(sorted({o.text for o in parsed.of(*_NAME_ROLES)
                                                                     if o.text in names})))


def _finish(files: Sequence[tuple[str, Any]], context: Context) -> list[Finding]:
    return []  # nothing to add: `_revise` keeps a companion where the project uses its names


def _revise(findings: list[Finding], files: Sequence[tuple[str, TypeUses | None]], context: Context) -> list[Finding]:
    """Each include's companions, those a file of a translation unit reaching it uses the names of: the files that
    reach the include's file, and every file those reach."""
    if not any(f.fix is not None and f.fix.companions for f in findings):
        return findings
    by_path = {os.path.normpath(path): uses for path, uses in files if uses is not None}
    included, includers = includes_both_ways(by_path)
    return [_used_companions(f, by_path, included, includers, context)
            if f.fix is not None and f.fix.action is FixAction.INCLUDE and f.fix.companions else f for f in findings]


def _used_companions(finding: Finding, by_path: dict[str, TypeUses], included: dict[str, set[str]],
                     includers: dict[str, set[str]], context: Context) -> Finding:
    rule = context.rules.header(finding.name)
    brought = _brought(rule, context) if rule is not None else {}
    units = reachable(reachable([os.path.normpath(finding.path)], includers), included)
    used = {name for path in units if path in by_path for name in by_path[path].used}
    kept = tuple(h for h in finding.fix.companions if used.intersection(brought.get(h, ())))
    return finding if kept == finding.fix.companions else \
        dataclasses.replace(finding, fix=dataclasses.replace(finding.fix, companions=kept))


def _pack(uses: TypeUses) -> list[list[str]]:
    return [list(uses.includes), list(uses.used)]


def _unpack(packed: list[list[str]], fixes: bool) -> TypeUses:
    return TypeUses(tuple(packed[0]), tuple(packed[1]))


BROUGHT_HEADERS = project_analysis(ProjectAnalysis("brought_headers", _collect, _finish, _pack, _unpack, revise=_revise))
