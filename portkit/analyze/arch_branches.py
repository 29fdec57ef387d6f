"""Architecture tests that convert must leave as they are: the branch a rewrite would switch on holds NVIDIA-only code.

`#if __CUDA_ARCH__ >= 900` becomes `#if defined(__HIP_DEVICE_COMPILE__)` (rules: `compare_as`), so AMD device
code takes the branch meant for new NVIDIA GPUs. Where that branch holds inline PTX or names HIP lacks
(`multimem.ld_reduce`, a Hopper intrinsic), hipcc rejects it, while the original, where `__CUDA_ARCH__` is
undefined under hipcc, compiled the other branch: then the test stays CUDA's, and its marker says why.
"""
from __future__ import annotations

import dataclasses
from typing import Iterable, Iterator

from portkit.codes import API_UNKNOWN, Status
from portkit.model import Finding, NameFacts, Occurrence, ParsedFile, Role

# What hipcc cannot compile in a branch: names HIP lacks (or not in the target), CUDA names no rule knows.
_NVIDIA_ONLY = (Status.UNSUPPORTED, Status.REMOVED, Status.UNAVAILABLE)
_LEFT = ("left as CUDA's test: the branch it would switch on for AMD holds inline PTX or names HIP lacks, "
         "which hipcc rejects (under hipcc the original compiled the other branch)")


def _switched_on(occurrence: Occurrence) -> tuple[int, int] | None:
    """The bytes the rewritten test compiles for AMD device code where CUDA's left them out under hipcc:
    `>`/`>=` become true there (the #if's own branch), `<`/`<=` false (the rest of the group)."""
    facts = occurrence.facts(NameFacts)
    operator = facts.compared.split()[0]
    return facts.branch if operator in (">", ">=") else facts.otherwise if operator in ("<", "<=") else None


def keep_nvidia_branches_off(parsed: ParsedFile, findings: Iterable[Finding]) -> Iterator[Finding]:
    """`findings` with no rewrite of an architecture test whose switched-on branch holds NVIDIA-only code."""
    switched = {o.span: on for o in parsed.of(Role.IDENTIFIER) if o.facts(NameFacts).compared and (on := _switched_on(o))}
    if not switched:
        yield from findings
        return
    findings = list(findings)
    nvidia = [o.span.start for o in parsed.of(Role.INLINE_ASM)]
    nvidia += [f.span.start for f in findings if f.status in _NVIDIA_ONLY or f.code == API_UNKNOWN]
    for finding in findings:
        on = switched.get(finding.span) if finding.fix is not None else None
        if on is not None and any(on[0] <= offset < on[1] for offset in nvidia):
            finding = dataclasses.replace(finding, fix=None, message=f"{finding.message}; {_LEFT}")
        yield finding
