"""What convert writes for one use of a name under the target: decided here, once, as a typed `Fix`.

The spelling comes from the rule's resolution (portkit/rules/versions.py); this module decides
where it goes (the name, a comparison, a member access, an include target), which call arguments
change and how (`Cast`, `Replace`, `Drop`, `Append`), and which HIP header an include needs first: unless an earlier
#include of the file brings it (`include_finding`, in the file's analysis) or the file's preamble, final once
the project is known, inserts it first (`settle_prerequisites`, in the project's finish).
portkit/convert/edits.py only turns the decision into bytes.
"""
from __future__ import annotations

import dataclasses
import os
import re
from typing import Iterable

from portkit.analyze.arch_branches import amd_device_reading
from portkit.analyze.brought_headers import lacking
from portkit.analyze.registry import Context
from portkit.codes import RENAMED_STATUSES
from portkit.model import (
    C_CAST, Append, ArgEdit, CallFacts, Cast, Drop, Finding, Fix, FixAction, LaunchFacts, NameFacts, Occurrence, ParsedFile,
    Replace, Role, Span, Wrap,
)
from portkit.rules import Resolution, Rule

# What a call passes for "none" in a pointer argument.
NULL_POINTERS = frozenset({"NULL", "nullptr", "0"})
# A 32-bit "all lanes" mask and its 64-bit spelling: on a 64-lane wavefront it must name all 64.
FULL_MASKS_32 = frozenset({"0xffffffff", "0xFFFFFFFF", "0xffffffffu", "0xFFFFFFFFu", "0xffffffffU", "0xFFFFFFFFU",
                           "~0u", "~0U", "-1", "0xffffffffUL", "0xffffffffull", "~0"})
FULL_MASK_64 = "0xffffffffffffffffull"
_WIDE_MASK = "unsigned long long"


def _delimited(path: str, style: str) -> str:
    return f"<{path}>" if style == "system" else f'"{path}"'


def is_c_file(path: str) -> bool:
    """Whether a source is C (a .c file: nvcc hands it to the host compiler, and so does a HIP build): no named
    casts, no default arguments."""
    return os.path.splitext(path)[1] == ".c"


def _cast(index: int, type_name: str, c: bool) -> Cast:
    # A pointer to const pointers (NVRTC's `const char* const*` options, or a `char**`): only const_cast
    # changes the inner qualifier; another pointer; a value CUDA converts. C has its one cast for all three.
    cast = C_CAST if c else "const_cast" if type_name.startswith("const ") and type_name.endswith("**") \
        else "reinterpret_cast" if "*" in type_name else "static_cast"
    return Cast(index, cast, type_name)


def _cast_already(text: str, cast: Cast) -> bool:
    """Whether an argument is written cast to the type already (`(void **)&p`, spaced or not)."""
    compact = text.replace(" ", "")
    return compact.startswith((f"{cast.cast}<{cast.type}>".replace(" ", ""), f"({cast.type})".replace(" ", "")))


def _mask_edit(occurrence: Occurrence, rule: Rule, resolution: Resolution) -> ArgEdit | None:
    """A lane mask widened to 64 bits, where the HIP spelling takes one."""
    mask = occurrence.facts(CallFacts).arg(rule.mask_arg) if rule.mask_arg >= 0 and resolution.hip == rule.hip else ""
    if mask in FULL_MASKS_32:
        return Replace(rule.mask_arg, FULL_MASK_64)
    if mask and not mask.startswith((f"static_cast<{_WIDE_MASK}>", "__activemask()")) \
            and not mask.lower().endswith("ull") and mask != FULL_MASK_64:
        return Cast(rule.mask_arg, "static_cast", _WIDE_MASK)
    return None


def argument_edits(occurrence: Occurrence, rule: Rule, resolution: Resolution, c: bool = False) -> tuple[ArgEdit, ...]:
    """Casts (of anything but a null pointer) where HIP takes void* and CUDA a template, or where HIP's overloads make CUDA's one conversion
    ambiguous; const cast away where the targeted HIP declares without const a pointer CUDA takes const; lane masks
    widened to 64 bits; a device symbol as HIP_SYMBOL(x); the trailing arguments CUDA defaults and HIP requires,
    written after the last one given (in C, `c`, also those only HIP's C++ overload defaults); an argument HIP's
    signature lacks, passed empty, dropped. In C each cast is C's."""
    edits: list[ArgEdit] = []
    for index, type_name in rule.cast_args:
        text = occurrence.facts(CallFacts).arg(index)
        cast = _cast(index, type_name, c)
        # A null pointer converts to any pointer type as it is (and const_cast rejects nullptr's type).
        if text and text not in NULL_POINTERS and not _cast_already(text, cast):
            edits.append(cast)
    for index, type_name in resolution.const_casts:  # the HIP declaration lacks CUDA's const before some release
        cast = const_cast_of(index, type_name, occurrence.facts(CallFacts).arg(index), c)
        if cast is not None:
            edits.append(cast)
    mask = _mask_edit(occurrence, rule, resolution)
    if mask is not None:
        edits.append(mask)
    symbol = occurrence.facts(CallFacts).arg(rule.symbol_arg) if rule.symbol_arg >= 0 and resolution.hip == rule.hip else ""
    if symbol and not symbol.startswith("HIP_SYMBOL"):  # X on AMD, &X on NVIDIA: the source ports to both
        edits.append(Wrap(rule.symbol_arg, "HIP_SYMBOL"))
    defaulted = _defaulted(occurrence, rule, c) if resolution.hip == rule.hip else None
    if defaulted is not None and all(edit.index != defaulted.index for edit in edits):
        edits.append(defaulted)
    extra = extra_argument(occurrence, rule)
    if extra is not None and extra[1] in NULL_POINTERS:
        edits.append(Drop(extra[0]))
    return tuple(edits)


def const_cast_of(index: int, type_name: str, text: str, c: bool = False) -> Cast | None:
    """The const cast a `const_args` argument needs, as written (`text`): none for a null pointer or one cast already;
    C's cast in C (`c`)."""
    cast = Cast(index, C_CAST if c else "const_cast", type_name)
    if text and text not in NULL_POINTERS and not _cast_already(text, cast):
        return cast
    return None


def extra_argument(occurrence: Occurrence, rule: Rule) -> tuple[int, str] | None:
    """For a call of a `null_args` count: the index and text of the argument HIP's signature lacks."""
    index = dict(rule.null_args).get(len(occurrence.parts)) if rule.null_args else None
    return (index, occurrence.facts(CallFacts).arg(index)) if index is not None else None


def _defaulted(occurrence: Occurrence, rule: Rule, c: bool) -> Append | None:
    """`cudaStreamWaitEvent(s, e)` -> `hipStreamWaitEvent(s, e, 0)`: HIP declares no default for flags. In C
    (`c`), `cudaMallocHost(p, n)` -> `hipHostMalloc(p, n, hipHostMallocDefault)`: only HIP's C++ overload defaults it."""
    given = len(occurrence.parts)
    defaults = sorted(rule.default_args + rule.c_default_args) if c else rule.default_args
    missing = [value for index, value in defaults if index >= given]
    if not given or not missing or defaults[0][0] > given:
        return None  # nothing to write after, nothing left out, or more left out than CUDA defaults
    return Append(given - 1, ", " + ", ".join(missing))


def _comparison_fix(occurrence: Occurrence, rule: Rule) -> Fix | None:
    """`__CUDA_ARCH__ >= 600` asks for a device new enough: AMD device code counts as new enough
    (`defined(__HIP_DEVICE_COMPILE__)`), and as not older than anything (`<` becomes its negation).
    Host code keeps CUDA's meaning, where the macro is undefined and compares as 0; but for a branch that only
    declares device functions AMD's host pass counts too (`declares_for_both_passes`). A `defined(X) &&` before
    a `>` comparison of X, or a `!defined(X) ||` before a `<` one, is rewritten with it: the rewritten comparison
    says it already."""
    facts = occurrence.facts(NameFacts)
    operator = facts.compared.split()[0]
    comparison = occurrence.parts[0]
    rewritten = occurrence.parts[1] if len(occurrence.parts) > 1 else comparison
    whole = len(occurrence.parts) > 2 and rewritten == occurrence.parts[2]
    test = rule.compare_as_declarations if rule.compare_as_declarations and declares_for_both_passes(facts) \
        else rule.compare_as
    if operator in (">", ">="):
        return Fix(FixAction.RENAME, rewritten, test if whole else _grouped(test))
    if operator in ("<", "<="):
        return Fix(FixAction.RENAME, rewritten, f"!{_grouped(test)}")
    return None  # == and != name one NVIDIA generation: the marker says what to do


def declares_for_both_passes(facts: NameFacts) -> bool:
    """Whether an architecture test may hold in AMD's host pass too: the branch its rewrite switches on (`>`,
    `#ifdef`, `defined`: its own; `<`, `#ifndef`, `!defined`: the rest of the group) only declares device functions,
    and the side it switches off declares no function the other does not and holds nothing else. clang parses
    kernel bodies in the host pass (nvcc's does not), so a kernel calling such a function needs its declaration
    there; the host never emits it."""
    own = facts.alone in ("#ifdef", "defined") if facts.alone else facts.compared.split()[0] in (">", ">=")
    on, off = (facts.branch_functions, facts.otherwise_functions) if own else \
        (facts.otherwise_functions, facts.branch_functions)
    return bool(on) and off is not None and set(off) <= set(on or ())


def _value_fix(occurrence: Occurrence, facts: NameFacts) -> Fix | None:
    """`__CUDA_ARCH__ >= 800` read in code (`... ? a : b`, an enum's value): nvcc compiles it only where the macro is
    defined, device code, so it is written as the value AMD's device pass has under the #if rewrite's reading, a
    literal that compiles in either pass and says where it came from (`__HIP_DEVICE_COMPILE__ >= 800` read 1 >= 800).
    A #define body's comparison stays as written: its uses are out of sight."""
    reading = amd_device_reading(facts.valued)
    if reading is None:
        return None
    value, why = reading
    return Fix(FixAction.RENAME, occurrence.parts[0], f"{value} /* {occurrence.text} {facts.valued}: {why} */")


# How a test that holds in both passes is written over a macro that is its directive's whole test.
_ALONE = {"#ifdef": "#if {}", "#ifndef": "#if !({})", "defined": "{}", "!defined": "!({})"}


def _grouped(test: str) -> str:
    """A test in parentheses where it has an operator of its own and stands inside a larger one."""
    return f"({test})" if "||" in test or "&&" in test else test


def rule_fix(occurrence: Occurrence | None, spelling: str, resolution: Resolution, context: Context,
             rule: Rule, c: bool = False) -> Fix | None:
    """What convert may write for one use of a rule's name: the HIP spelling over it, or None; in C (`c`), C's."""
    if rule.drop and occurrence is not None and not occurrence.span.empty and resolution.status in RENAMED_STATUSES \
            and occurrence.text not in context.project_declared:
        return Fix(FixAction.INSERT, occurrence.span, "")  # a qualifier HIP has no use for: nothing in its place
    if occurrence is None or not spelling or resolution.status not in RENAMED_STATUSES:
        return None
    if occurrence.span.empty:
        return None  # written through a macro (clang engine): nothing of its own to rename
    if occurrence.text in context.project_declared:
        return None  # a local variable that happens to share the name
    if occurrence.role is Role.INCLUDE:
        if spelling == occurrence.text:
            return None
        return Fix(FixAction.INCLUDE, occurrence.span, _delimited(spelling, occurrence.detail),
                   prerequisite=rule.hip_requires, companions=lacking(rule, context))
    facts = occurrence.facts(NameFacts)
    if facts.alone and rule.compare_as_declarations and occurrence.parts and declares_for_both_passes(facts):
        return Fix(FixAction.RENAME, occurrence.parts[0], _ALONE[facts.alone].format(rule.compare_as_declarations))
    if (facts.macro_name or facts.tested) and not spelling.isidentifier():
        return None  # `#ifndef CUDART_NAN_F` / `#define CUDART_NAN_F ...` stay names: uses become HIP's expression
    compared = facts.compared
    if compared and rule.keep_compared:
        return None
    if facts.valued and rule.compare_as and occurrence.role is Role.IDENTIFIER and occurrence.parts:
        return _value_fix(occurrence, facts)
    if (facts.valued or facts.ranged or facts.read) and rule.compare_as:
        return None  # the macro's value read (`(__CUDA_ARCH__ >= 800)`, `int a = __CUDA_ARCH__;`), or a range: the
        # device pass flag would read 1 (arch_branches.py says why)
    if compared and rule.compare_as:
        return _comparison_fix(occurrence, rule)
    if occurrence.role is Role.FIELD and rule.older_hip and spelling == rule.older_hip and occurrence.parts \
            and not spelling.isidentifier():  # a name is the member older HIP calls it: renamed below
        return Fix(FixAction.RENAME, occurrence.parts[0], spelling)  # a member HIP lacks: its value, for the whole access
    if rule.hip_struct and spelling == rule.hip and occurrence.facts(NameFacts).elaborated:
        spelling = rule.hip_struct
    call = occurrence.role is Role.CALL
    edits = argument_edits(occurrence, rule, resolution, c) if call else ()
    if call and rule.hip_for_args and spelling == rule.hip:  # counted as written: without a dropped argument
        spelling = dict(rule.hip_for_args).get(len(occurrence.parts) - sum(isinstance(e, Drop) for e in edits), spelling)
    if spelling == occurrence.text and not edits:
        return None
    # A call passes its arguments (a mask CUDA defaults may be absent); elsewhere none can be seen, but in a #define
    # body, where the lexer found a call's parentheses (`__shfl_sync((a), (b), (c))`).
    if occurrence.role is Role.MACRO_BODY and resolution.drop_args:
        if len(occurrence.parts) < resolution.drop_args or spelling == occurrence.detail:
            return None  # not a call here, or the macro's own name (`#define __shfl_down(v, d) __shfl_down_sync(...)`)
        return Fix(FixAction.RENAME, occurrence.span, spelling, occurrence.parts, resolution.drop_args)
    drop = min(resolution.drop_args, len(occurrence.parts)) if call else resolution.drop_args
    return Fix(FixAction.RENAME, occurrence.span, spelling, occurrence.parts if call else (), drop, args=edits)


def coordinate_fix(occurrence: Occurrence, coordinates: Iterable[int], cast_to: str) -> Fix:
    """threadIdx.x and its kin passed where HIP's overloads make their proxy type ambiguous: each cast.
    Only the arguments change: the name itself is the rule's (umin -> min) or the project's."""
    keep_name = Span(occurrence.span.start, occurrence.span.start)
    return Fix(FixAction.RENAME, keep_name, "", occurrence.parts,
               args=tuple(Cast(i, "static_cast", cast_to) for i in coordinates))


def launch_fix(occurrence: Occurrence) -> Fix:
    """A launch, with the facts that decide how it may be written: `<< <` spacing, use as a value, and a grid
    or block written `dim3(...)` already."""
    facts = occurrence.facts(LaunchFacts)
    return Fix(FixAction.LAUNCH, occurrence.span, occurrence.text, occurrence.parts, spaced_chevrons=facts.spaced,
               launch_as_value=facts.value, grid_is_dim3=facts.grid_dim3, block_is_dim3=facts.block_dim3)


def _included_before(header: str, occurrence: Occurrence, parsed: ParsedFile, context: Context) -> bool:
    """Whether an earlier #include of the file already brings the HIP `header` (converted or as it is)."""
    return any(o.span.start < occurrence.span.start and context.rules.hip_header(o.text) == header
               for o in parsed.of(Role.INCLUDE))


def include_finding(finding: Finding, occurrence: Occurrence, parsed: ParsedFile, context: Context) -> Finding:
    """An include's finding, its prerequisite left out where an earlier #include of the file brings it."""
    fix = finding.fix
    if fix is None or not fix.prerequisite or not _included_before(fix.prerequisite, occurrence, parsed, context):
        return finding
    return dataclasses.replace(finding, fix=dataclasses.replace(fix, prerequisite=""))


_INCLUDE_LINE = re.compile(r"^#include <([^>]+)>", re.M)


def settle_prerequisites(findings: list[Finding]) -> list[Finding]:
    """Findings once their files' preambles are final (decided over the whole project, after each file's
    analysis: analyze/runtime_include.py), each include's prerequisite left out where its file's preamble
    inserts that header before it: one #include of it, not two. Convert writes what is left."""
    inserted: dict[str, list[tuple[int, str]]] = {}
    for f in findings:
        if f.fix is not None and f.fix.action is FixAction.INSERT:
            inserted.setdefault(f.path, []).extend((f.fix.span.start, header) for header in _INCLUDE_LINE.findall(f.fix.text))
    if not any(inserted.values()):
        return findings
    return [_prerequisite_met(f, inserted[f.path]) if f.path in inserted else f for f in findings]


def _prerequisite_met(finding: Finding, inserted: list[tuple[int, str]]) -> Finding:
    fix = finding.fix
    if fix is not None and fix.prerequisite and any(
            header == fix.prerequisite and start <= fix.span.start for start, header in inserted):
        return dataclasses.replace(finding, fix=dataclasses.replace(fix, prerequisite=""))
    return finding
