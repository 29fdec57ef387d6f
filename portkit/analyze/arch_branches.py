"""Architecture tests that convert must leave as they are: the branch a rewrite would switch on holds NVIDIA-only code.

`#if __CUDA_ARCH__ >= 900` becomes `#if defined(__HIP_DEVICE_COMPILE__)` (rules: `compare_as`), so AMD device
code takes the branch meant for new NVIDIA GPUs. Where that branch holds inline PTX or names HIP lacks
(`multimem.ld_reduce`, a Hopper intrinsic), hipcc rejects it, while the original, where `__CUDA_ARCH__` is
undefined under hipcc, compiled the other branch: then the test stays CUDA's, and its marker says why. So does a
branch that defines a function HIP's headers declare (a template `__shfl_down` would shadow HIP's and call itself),
and every test of the same comparison in the file (warp-ctc guards `bfe_ptx`'s PTX and its calls by one test). A
name convert rewrites to an older HIP spelling (`__shfl_down_sync` on HIP 5.2) builds, so it holds nothing back:
converting the converted tree decides the same.
"""
from __future__ import annotations

import dataclasses
from typing import Iterable, Iterator, NamedTuple

from portkit.analyze.registry import Context
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


def keep_nvidia_branches_off(parsed: ParsedFile, findings: Iterable[Finding], context: Context) -> Iterator[Finding]:
    """`findings` with no rewrite of an architecture test whose switched-on branch holds NVIDIA-only code.

    Innermost tests first: code a nested test keeps out of AMD device code (its own test left as CUDA's, or the side
    its rewrite switches off) does not hold an enclosing test back (`#if __CUDA_ARCH__ >= 600` around a function
    whose `#if __CUDA_ARCH__ >= 700` branch is PTX and whose `#else` is atomicAdd). A test left as CUDA's leaves
    each test of the same comparison in the file too: a project guards a definition and its calls alike."""
    tests = {o.span: _Test(on, _switched_off(facts), (o.text, facts.compared)) for o in parsed.of(Role.IDENTIFIER)
             if (facts := o.facts(NameFacts)).compared and (on := _switched_on(facts))}
    if not tests:
        yield from findings
        return
    findings = list(findings)
    nvidia = [o.span.start for o in parsed.of(Role.INLINE_ASM)]
    nvidia += [f.span.start for f in findings if f.status in _NVIDIA_ONLY and not f.hip or f.code == API_UNKNOWN]
    nvidia += [o.span.start for o in parsed.of(Role.DEVICE_FUNCTION) if _declared_by_hip(o.text, context)]
    rewritten = {f.span for f in findings if f.fix is not None and f.span in tests}
    kept: set[tuple[str, str]] = set()
    while True:  # a comparison left in one place may hold back a test that held back another: a few rounds
        left = _left(tests, rewritten, nvidia, kept)
        comparisons = {tests[span].comparison for span in left}
        if comparisons <= kept:
            break
        kept |= comparisons
    for finding in findings:
        if finding.span in left and finding.span in rewritten:
            finding = dataclasses.replace(finding, fix=None, message=f"{finding.message}; {_LEFT}")
        yield finding


class _Test(NamedTuple):
    on: tuple[int, int]  # the bytes its rewrite switches on for AMD device code
    off: tuple[int, int] | None  # the bytes its rewrite switches off
    comparison: tuple[str, str]  # the macro and its comparison: (`__CUDA_ARCH__`, `>= 200`)


def _left(tests: dict[Span, _Test], rewritten: set[Span], nvidia: list[int], kept: set[tuple[str, str]]) -> set[Span]:
    """The tests left as CUDA's: not rewritten, of a comparison `kept`, or holding NVIDIA-only code that AMD device
    code would compile."""
    left: set[Span] = set()
    skipped: list[tuple[int, int]] = []  # bytes AMD device code does not compile, as decided so far
    for span, test in sorted(tests.items(), key=lambda item: item[1].on[1] - item[1].on[0]):  # smallest first
        on, off = test.on, test.off
        held = any(on[0] <= x < on[1] and not any(s <= x < e for s, e in skipped) for x in nvidia)
        if span not in rewritten or held or test.comparison in kept:
            left.add(span)
            skipped.append(on)
        elif off is not None:
            skipped.append(off)
    return left


def _declared_by_hip(name: str, context: Context) -> bool:
    """A CUDA name HIP spells the same: its headers declare it, so a project's definition shadows it."""
    rule = context.rules.lookup(name)
    return rule is not None and rule.resolve(context.target).hip == name
