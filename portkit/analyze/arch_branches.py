"""Architecture tests that convert must leave as they are: the branch a rewrite would switch on holds NVIDIA-only code.

`#if __CUDA_ARCH__ >= 900` becomes `#if defined(__HIP_DEVICE_COMPILE__)` (rules: `compare_as`), so AMD device
code takes the branch meant for new NVIDIA GPUs. Where that branch holds inline PTX or names HIP lacks
(`multimem.ld_reduce`, a Hopper intrinsic), hipcc rejects it, while the original, where `__CUDA_ARCH__` is
undefined under hipcc, compiled the other branch: then the test stays CUDA's, and its marker says why. So does a
branch that defines a function HIP's headers declare (a template `__shfl_down` would shadow HIP's and call itself),
and every test of the same comparison in the file (warp-ctc guards `bfe_ptx`'s PTX and its calls by one test). A
name convert rewrites to an older HIP spelling (`__shfl_down_sync` on HIP 5.2) builds, so it holds nothing back:
converting the converted tree decides the same.

Nor is a comparison rewritten where it is a value in a #define body (`#define HAS_BF16 (__CUDA_ARCH__ >= 800)`, then
`#if HAS_BF16`): the branches it selects are not in sight, and `__HIP_DEVICE_COMPILE__` there compares 1 with 800.
In code (`__CUDA_ARCH__ >= 800 ? a : b`), which nvcc compiles in device code only, it is written as the value AMD's
device pass has when AMD counts as newer than any NVIDIA generation, as the #if rewrite reads it (`true /* ... */`:
`amd_device_reading`, analyze/rewrite.py). Nor a range (`#elif __CUDA_ARCH__ >= 860 && __CUDA_ARCH__ <= 890`): as written it holds
on AMD in neither pass, which is what the rewrite would mean, and converting again finds the same test. Nor the
macro read as a number in code (`int a = __CUDA_ARCH__;`): AMD has no compute capability to write there, and
`__HIP_DEVICE_COMPILE__` would read 1; left as written, hipcc stops at its marker.
"""
from __future__ import annotations

import dataclasses
from typing import Iterable, Iterator, NamedTuple

from portkit.analyze.registry import Context
from portkit.codes import API_UNKNOWN, Status
from portkit.model import Finding, NameFacts, ParsedFile, Role, Span
from portkit.parse.hipcc_branch import kept_test_value

# What hipcc cannot compile in a branch: names HIP lacks (or not in the target), CUDA names no rule knows.
_NVIDIA_ONLY = (Status.UNSUPPORTED, Status.REMOVED, Status.UNAVAILABLE)
_LEFT = ("left as CUDA's test: the branch it would switch on for AMD holds inline PTX or names HIP lacks, "
         "which hipcc rejects (under hipcc the original compiled the other branch)")


# What a test left as CUDA's reads under hipcc for AMD, and so which branch AMD compiles: its marker says it, so the
# user knows the code of the other branch is dead there until it is ported.
_LEFT_READS = ("Left as CUDA's test: {} under hipcc for AMD ({} undefined there), so AMD compiles {}. Port the "
               "NVIDIA-only code, then test AMD targets (`__gfx90a__`).")
_BRANCHES = {0: ("false", "the #elif/#else, not this branch"), 1: ("true", "this branch")}


_VALUE_LEFT = ("left as written: a value (#define body, code) whose tests are out of sight, where __HIP_DEVICE_COMPILE__ "
               "compares 1 with the number; test AMD targets (`__gfx90a__`)")
_READ_LEFT = ("left as written, undeclared under hipcc: an NVIDIA compute capability read as a number, which AMD has "
              "none of (__HIP_DEVICE_COMPILE__ reads 1); write what your AMD targets need (`__gfx90a__`)")
_RANGE_LEFT = ("left as written: a range of NVIDIA generations, false on AMD as written and as rewritten (newer than "
               "any); test AMD targets (`__gfx90a__`)")


# What AMD's device pass reads for `__CUDA_ARCH__ <op> N` under the #if rewrite's reading (`compare_as`): newer than
# any NVIDIA generation, and none of them.
_READ_ON_AMD = {">": "true", ">=": "true", "<": "false", "<=": "false", "==": "false", "!=": "true"}


def amd_device_reading(valued: str) -> tuple[str, str] | None:
    """For a comparison read in code (NameFacts.valued, `>= 800`): the value AMD's device pass has under the #if
    rewrite's reading (`true`), and why; None for an operator that is no comparison."""
    operator = valued.split()[0] if valued else ""
    if operator not in _READ_ON_AMD:
        return None
    why = "AMD is no NVIDIA generation" if operator in ("==", "!=") else "AMD reads as newer than any NVIDIA generation"
    return _READ_ON_AMD[operator], why


def _written_value(valued: str) -> str:
    value, why = amd_device_reading(valued) or ("", "")
    return (f"written as AMD's device pass reads it, {value} ({why}): nvcc compiles it in device code only; test AMD "
            "targets (`__gfx90a__`) where the generation matters")


def explain_kept_values(parsed: ParsedFile, findings: Iterable[Finding], context: Context) -> Iterator[Finding]:
    """`findings`, a comparison convert leaves as written because it is a value or a range saying so, not advising
    `__HIP_DEVICE_COMPILE__` (analyze/rewrite.py: no fix for either); one in code, written as the value AMD's device
    pass reads (analyze/rewrite.py), saying that."""
    kept = {o.span: _VALUE_LEFT if facts.valued else _READ_LEFT if facts.read else _RANGE_LEFT
            for o in parsed.of(Role.IDENTIFIER, Role.MACRO_BODY) if (facts := o.facts(NameFacts)).valued or facts.ranged or facts.read}
    written = {o.span: _written_value(facts.valued) for o in parsed.of(Role.IDENTIFIER)
               if amd_device_reading((facts := o.facts(NameFacts)).valued)}
    for finding in findings:
        unsettled = not finding.settled
        why = (kept.get(finding.span) if finding.fix is None else written.get(finding.span)) if kept and unsettled \
            else None
        rule = context.rules.lookup(finding.name) if why else None
        if why and rule is not None and rule.compare_as:
            finding = dataclasses.replace(finding, message=f"{finding.message}; {why}", advice=why)
        yield finding


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
    conditions = [(o.span, o.text) for o in parsed.of(Role.PREPROCESSOR_CONDITION)]
    for finding in findings:
        if finding.span in left and finding.span in rewritten:
            reads = _left_reads(finding, conditions)
            finding = dataclasses.replace(finding, fix=None, message=f"{finding.message}; {_LEFT}",
                                          advice=reads or finding.advice)
        yield finding


def _left_reads(finding: Finding, conditions: list[tuple[Span, str]]) -> str:
    """What the marker of a test left as CUDA's says: which branch hipcc for AMD compiles, where its test decides it
    (kept_test_value); "" otherwise."""
    test = next((text for span, text in conditions if span.start <= finding.span.start < span.end), None)
    value = kept_test_value(test) if test is not None else None
    return "" if value is None else _LEFT_READS.format(_BRANCHES[value][0], finding.name, _BRANCHES[value][1])


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
