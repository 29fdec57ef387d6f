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
from portkit.model import Finding, NameFacts, ParsedFile, Role, Span

# What hipcc cannot compile in a branch: names HIP lacks (or not in the target), CUDA names no rule knows.
_NVIDIA_ONLY = (Status.UNSUPPORTED, Status.REMOVED, Status.UNAVAILABLE)
_LEFT = ("left as CUDA's test: the branch it would switch on for AMD holds inline PTX or names HIP lacks, "
         "which hipcc rejects (under hipcc the original compiled the other branch)")


def _switched_on(facts: NameFacts) -> tuple[int, int] | None:
    """The bytes the rewritten test compiles for AMD device code where CUDA's left them out under hipcc:
    `>`/`>=` become true there (the #if's own branch), `<`/`<=` false (the rest of the group)."""
    operator = facts.compared.split()[0]
    return facts.branch if operator in (">", ">=") else facts.otherwise if operator in ("<", "<=") else None


def _switched_off(facts: NameFacts) -> tuple[int, int] | None:
    """The bytes the rewritten test leaves out of AMD device code (the other side of `_switched_on`)."""
    operator = facts.compared.split()[0]
    return facts.otherwise if operator in (">", ">=") else facts.branch


def keep_nvidia_branches_off(parsed: ParsedFile, findings: Iterable[Finding]) -> Iterator[Finding]:
    """`findings` with no rewrite of an architecture test whose switched-on branch holds NVIDIA-only code.

    Innermost tests first: code a nested test keeps out of AMD device code (its own test left as CUDA's, or the side
    its rewrite switches off) does not hold an enclosing test back (`#if __CUDA_ARCH__ >= 600` around a function
    whose `#if __CUDA_ARCH__ >= 700` branch is PTX and whose `#else` is atomicAdd)."""
    tests = {o.span: (on, _switched_off(facts)) for o in parsed.of(Role.IDENTIFIER)
             if (facts := o.facts(NameFacts)).compared and (on := _switched_on(facts))}
    if not tests:
        yield from findings
        return
    findings = list(findings)
    nvidia = [o.span.start for o in parsed.of(Role.INLINE_ASM)]
    nvidia += [f.span.start for f in findings if f.status in _NVIDIA_ONLY or f.code == API_UNKNOWN]
    rewritten = {f.span for f in findings if f.fix is not None and f.span in tests}
    left: set[Span] = set()
    skipped: list[tuple[int, int]] = []  # bytes AMD device code does not compile, as decided so far
    for span, (on, off) in sorted(tests.items(), key=lambda item: item[1][0][1] - item[1][0][0]):  # smallest first
        held = [x for x in nvidia if on[0] <= x < on[1] and not any(s <= x < e for s, e in skipped)]
        if span not in rewritten or held:
            left.add(span)
            skipped.append(on)
        elif off is not None:
            skipped.append(off)
    for finding in findings:
        if finding.span in left and finding.span in rewritten:
            finding = dataclasses.replace(finding, fix=None, message=f"{finding.message}; {_LEFT}")
        yield finding
