"""Includes of CUDA headers the target lacks whose names nothing uses: commented out, no work.

A file often includes more of CUDA than it uses: diff-gaussian-rasterization's units include
cooperative_groups/reduce.h and call no cg::reduce. HIP 5.2 ships no such header, so hipcc stops at the include,
though no line needs it. A header's rule lists the names only it brings (`declares`); an include of it in a file
that uses none of them is PK212, no API site, and convert comments it out. A header's includers may rely on what
it includes, though: over the project's include graph (a project analysis), the include stays as written where
a file of a translation unit that reaches the file uses one of the names.
"""
from __future__ import annotations

import dataclasses
import os
from typing import Any, Iterable, Iterator, NamedTuple, Sequence

from portkit.analyze.findings import simple_finding
from portkit.analyze.registry import Context, ProjectAnalysis, project_analysis
from portkit.analyze.include_graph import includes_both_ways, reachable, spelled_includes
from portkit.codes import CODES, UNUSED_HEADER, Status
from portkit.model import Finding, Fix, FixAction, ParsedFile, Role
from portkit.rules import Rule

_MISSING = (Status.UNSUPPORTED, Status.UNAVAILABLE, Status.REMOVED)  # no HIP header at the target: no fix
_KEPT = "kept as written: {} uses its names, in a translation unit that reaches this include"
# What the include commented out becomes (after "// portkit: "): convert's done work, no marker of work left.
COMMENTED_OUT = f"{UNUSED_HEADER} unused here, and the targeted HIP lacks it: "


def comment_out_unused(parsed: ParsedFile, findings: Iterable[Finding], context: Context) -> Iterator[Finding]:
    """`findings` with each include of a header the target lacks, none of whose `declares` the file uses, a PK212
    whose fix comments the include out."""
    includes = {o.span: o for o in parsed.of(Role.INCLUDE) if o.parts}
    findings = list(findings)
    used = {f.name for f in findings}
    for finding in findings:
        occurrence = includes.get(finding.span) if finding.fix is None and finding.status in _MISSING else None
        rule = context.rules.header(occurrence.text) if occurrence is not None else None
        # No HIP header written for it at the target (asked of the rule: a summary's findings carry no fixes at all)
        if occurrence is not None and rule is not None and not rule.resolve(context.target).hip and rule.declares \
                and not used.intersection(rule.declares):
            spelled = f"#include <{occurrence.text}>" if occurrence.detail == "system" else f'#include "{occurrence.text}"'
            finding = simple_finding(parsed.path, occurrence, UNUSED_HEADER, _message(rule), CODES[UNUSED_HEADER].fix)
            text = f"// portkit: {COMMENTED_OUT}{spelled}"
            finding = dataclasses.replace(finding, library=rule.library,
                                          fix=Fix(FixAction.RENAME, occurrence.parts[0], text))
        yield finding


def _message(rule: Rule) -> str:
    shown = ", ".join(rule.declares[:3]) + (", ..." if len(rule.declares) > 3 else "")
    return f"{rule.cuda} is included, and none of its names ({shown}) used; the targeted HIP has no such header"


class HeaderUses(NamedTuple):
    """One file's fact: what its #includes of project files spell, and the names of headers' `declares` it uses."""

    includes: tuple[str, ...] = ()
    used: tuple[str, ...] = ()


def _collect(parsed: ParsedFile, context: Context, findings: Sequence[Finding]) -> HeaderUses:
    names = context.rules.header_names()
    return HeaderUses(spelled_includes(parsed, context), tuple(sorted({f.name for f in findings if f.name in names})))


def _finish(files: Sequence[tuple[str, Any]], context: Context) -> list[Finding]:
    return []  # nothing to add: `_revise` keeps an include where the project needs it


def _revise(findings: list[Finding], files: Sequence[tuple[str, HeaderUses | None]], context: Context) -> list[Finding]:
    """Each commented-out include left as written where a file of a translation unit reaching it uses the header's
    names: the files that reach the include's file, and every file those reach, are the units' files."""
    if not any(f.code == UNUSED_HEADER and f.fix is not None for f in findings):
        return findings
    by_path = {os.path.normpath(path): uses for path, uses in files if uses is not None}
    included, includers = includes_both_ways(by_path)
    return [_kept_where_used(f, by_path, included, includers, context) if f.code == UNUSED_HEADER and f.fix else f
            for f in findings]


def _kept_where_used(finding: Finding, by_path: dict[str, HeaderUses], included: dict[str, set[str]],
                     includers: dict[str, set[str]], context: Context) -> Finding:
    rule = context.rules.header(finding.name)
    declares = set(rule.declares) if rule is not None else set()
    units = reachable(reachable([os.path.normpath(finding.path)], includers), included)
    user = next((path for path in sorted(units) if path in by_path and declares.intersection(by_path[path].used)), None)
    if user is None:
        return finding
    kept = _KEPT.format(os.path.basename(user))  # a file name: the same when the output is converted again
    return dataclasses.replace(finding, fix=None, message=f"{finding.message}; {kept}", advice=kept)


def _pack(uses: HeaderUses) -> list[list[str]]:
    return [list(uses.includes), list(uses.used)]


def _unpack(packed: list[list[str]], fixes: bool) -> HeaderUses:
    return HeaderUses(tuple(packed[0]), tuple(packed[1]))


UNUSED_HEADERS = project_analysis(ProjectAnalysis("unused_headers", _collect, _finish, _pack, _unpack, revise=_revise))
