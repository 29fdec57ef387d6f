"""C++ that nvcc accepts and hipcc rejects.

`register` was deprecated in C++11 and removed in C++17: nvcc warns and goes on, clang
(C++17 by default) stops. It asks nothing of the compiler either way, so convert deletes it.
In C it is still part of the language and stays.

CUDA's dim3 converts from a uint3; HIP's has no such constructor, so a `make_uint3(...)` that
becomes a dim3 (initialising or assigned to a variable the file declares dim3, or a launch's
grid or block) does not compile. `dim3(...)` takes the same three values under both compilers.

`extern "C"__global__`: clang reads a string literal with a user-defined suffix; a space after the
linkage string is what nvcc read.

`x = {}` for a half or half2 variable: HIP's __half and __half2 have several assignment
operators the empty list fits equally, so hipcc calls it ambiguous; `x = half2{}` is the same zero.

`#pragma nv_diag_suppress 177` and nvcc's other own pragmas (the list is data, rules/_nvcc_pragmas.yaml): clang
ignores them with a warning under -Wall; under a test that only hipcc on AMD fails they keep their meaning on NVIDIA.
"""
from __future__ import annotations

import dataclasses
import functools
import os
from typing import Iterable, NamedTuple

from portkit.analyze.findings import simple_finding
from portkit.analyze.registry import Context, analyzer
from portkit.codes import (
    CODES, HALF_EMPTY_BRACES, HANDLE_ARITHMETIC, LINKAGE_SPACE, MACRO_PRAGMA, NVCC_PRAGMA, REGISTER_STORAGE, UINT3_AS_DIM3,
)
from portkit.model import (
    CallFacts, Finding, Fix, FixAction, HandleFacts, MacroFacts, NameFacts, Occurrence, ParsedFile, Role, Span,
)
from portkit.resources import load_data

# Kept by the parser for the analyzers below (no rule names them: they are spelled the same in HIP).
DIMENSION_NAMES = frozenset({"dim3", "make_uint3"})
HALF_TYPES = frozenset({"half", "half2", "__half", "__half2"})


@analyzer("source", codes=(REGISTER_STORAGE,), fixes=True)
def analyze_register(parsed: ParsedFile, context: Context) -> Iterable[Finding]:
    if os.path.splitext(parsed.path)[1] == ".c":
        return
    for o in parsed.of(Role.STORAGE_CLASS):
        if o.text == "register" and o.parts:
            finding = simple_finding(parsed.path, o, REGISTER_STORAGE, "register: C++17 removed it; hipcc rejects it",
                                     CODES[REGISTER_STORAGE].fix)
            yield dataclasses.replace(finding, fix=Fix(FixAction.RENAME, o.parts[0], ""))


@analyzer("source", codes=(LINKAGE_SPACE,), fixes=True)
def analyze_linkage_space(parsed: ParsedFile, context: Context) -> Iterable[Finding]:
    for o in parsed.of(Role.STORAGE_CLASS):
        if o.text.startswith('"') and o.parts:
            finding = simple_finding(parsed.path, o, LINKAGE_SPACE, f"extern {o.text} against the next word: clang reads "
                                     "a string literal with a user-defined suffix", CODES[LINKAGE_SPACE].fix)
            yield dataclasses.replace(finding, fix=Fix(FixAction.RENAME, o.parts[0], " "))


@analyzer("source", codes=(MACRO_PRAGMA,), fixes=True)
def analyze_macro_pragmas(parsed: ParsedFile, context: Context) -> Iterable[Finding]:
    for o in parsed.of(Role.MACRO_PRAGMA):
        finding = simple_finding(parsed.path, o, MACRO_PRAGMA, f"#pragma {o.text} in a #define body: clang rejects it "
                                 "where the macro is used", CODES[MACRO_PRAGMA].fix)
        spelled = o.text.replace("\\", "\\\\").replace('"', '\\"')
        yield dataclasses.replace(finding, fix=Fix(FixAction.RENAME, o.span, f'_Pragma("{spelled}")'))


class NvccPragmas(NamedTuple):
    names: frozenset[str]  # a pragma's first word
    guard: str  # the #if test convert puts one under


@functools.lru_cache(maxsize=1)
def nvcc_pragmas() -> NvccPragmas:
    return load_data("_nvcc_pragmas.yaml", lambda data: NvccPragmas(frozenset(data["pragmas"]), data["guard"]))


@analyzer("source", codes=(NVCC_PRAGMA,), fixes=True)
def analyze_nvcc_pragmas(parsed: ParsedFile, context: Context) -> Iterable[Finding]:
    pragmas = parsed.of(Role.PRAGMA)
    known = nvcc_pragmas() if pragmas else None
    for o in pragmas:
        if not _nvcc_only(o.text, known) or o.facts(MacroFacts).guarded:
            continue  # another compiler's pragma, or one the project (or convert) already keeps from hipcc
        spelled = f"#pragma {o.text}" if not o.detail else f'_Pragma("{_escaped(o.text)}")'
        fix = _pragma_guard(o, pragmas, known)
        advice = CODES[NVCC_PRAGMA].fix if fix is not None else (
            f"the #define holds more than pragmas: define the macro twice, under #if {known.guard} as it is and in "
            f"its #else without {spelled}")
        finding = simple_finding(parsed.path, o, NVCC_PRAGMA, f"{spelled}: only nvcc knows it; hipcc ignores it "
                                 "and warns under -Wall", advice)
        yield dataclasses.replace(finding, fix=fix)


def _nvcc_only(text: str, known: NvccPragmas) -> bool:
    return text.split(" ", 1)[0] in known.names


def _escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _pragma_guard(pragma: Occurrence, pragmas: tuple[Occurrence, ...], known: NvccPragmas) -> Fix | None:
    """The guard that keeps nvcc's pragma from hipcc. A directive: its line. A `_Pragma` in code: its line where it
    is alone on it, else the operator itself, on lines of its own. A `_Pragma` in a #define of `_Pragma`s only: the
    #define, whose #else defines the macro with the others only (a use must still expand on AMD). One in a #define
    that holds more: no fix (the finding says what to do)."""
    if not pragma.detail:
        line_start = pragma.span.start - (pragma.position.column - 1)
        return Fix(FixAction.GUARD, Span(line_start, pragma.span.end), known.guard)
    if pragma.detail == "operator":
        if pragma.parts:
            return Fix(FixAction.GUARD, pragma.parts[0], known.guard)
        return Fix(FixAction.RENAME, pragma.span, f'\n#if {known.guard}\n_Pragma("{_escaped(pragma.text)}")\n#endif\n')
    if not pragma.parts:
        return None
    kept = [f'_Pragma("{_escaped(o.text)}")' for o in pragmas
            if o.parts == pragma.parts and o.detail == "define" and not _nvcc_only(o.text, known)]
    definition = " ".join([pragma.facts(MacroFacts).definition] + kept)
    return Fix(FixAction.GUARD, pragma.parts[0], known.guard, otherwise=definition)


@analyzer("source", codes=(UINT3_AS_DIM3,), fixes=True, arguments_of=("make_uint3",))
def analyze_uint3_dimensions(parsed: ParsedFile, context: Context) -> Iterable[Finding]:
    calls = [o for o in parsed.of(Role.CALL) if o.text == "make_uint3"]
    if not calls:
        return
    dims = parsed.declared_as("dim3")
    launch_dims = {part.start for o in parsed.of(Role.LAUNCH) for part in o.parts[2:-2]}  # grid, block (not shared, stream)
    for o in calls:
        became = _dim3_from(o, dims, launch_dims)
        if became:
            finding = simple_finding(parsed.path, o, UINT3_AS_DIM3, f"make_uint3 {became}: HIP's dim3 has no conversion "
                                     "from uint3", CODES[UINT3_AS_DIM3].fix, shadowable=True)
            yield dataclasses.replace(finding, fix=Fix(FixAction.RENAME, o.span, "dim3"))


def _dim3_from(call: Occurrence, dims: set[str], launch_dims: set[int]) -> str:
    """How a make_uint3 call's value becomes a dim3, or "" when it does not (as far as the file shows)."""
    if call.facts(CallFacts).assigned_type == "dim3":  # the declaration's type, its qualifiers apart
        return "initialises a dim3"
    if call.facts(CallFacts).assigned_to in dims:
        return f"assigned to the dim3 {call.facts(CallFacts).assigned_to}"
    if call.span.start in launch_dims:
        return "as a launch dimension"
    return ""


@analyzer("source", codes=(HALF_EMPTY_BRACES,), fixes=True)
def analyze_half_empty_braces(parsed: ParsedFile, context: Context) -> Iterable[Finding]:
    assigned = parsed.of(Role.EMPTY_BRACES)
    if not assigned:
        return
    # Declared in the same function (or at file scope): a name another function declares otherwise is not this one.
    types = {(o.function, name): o.text for o in parsed.of(Role.TYPE) if o.text in HALF_TYPES
             for name in o.facts(NameFacts).declares.split(",") if name}
    for o in assigned:
        kind = types.get((o.function, o.text)) or types.get(("", o.text))
        if kind and o.parts:
            finding = simple_finding(parsed.path, o, HALF_EMPTY_BRACES, f"{o.text} = {{}}: hipcc finds {kind}'s assignment "
                                     "ambiguous", CODES[HALF_EMPTY_BRACES].fix, shadowable=True)
            # Named by its type, like an API: the variable is the project's, and a fix on it would be dropped.
            yield dataclasses.replace(finding, name=kind, fix=Fix(FixAction.RENAME, o.parts[0], f"{kind}{{}}"))


@analyzer("source", codes=(HANDLE_ARITHMETIC,))
def analyze_handle_arithmetic(parsed: ParsedFile, context: Context) -> Iterable[Finding]:
    for o in parsed.of(Role.HANDLE_ARITHMETIC):
        rule = context.rules.lookup(o.detail)
        hip = rule.resolve(context.target).hip if rule is not None else ""
        if not hip or o.detail in context.project_names:
            continue  # not renamed: CUDA's integer stays
        operator = o.facts(HandleFacts).operator
        finding = simple_finding(parsed.path, o, HANDLE_ARITHMETIC, f"{o.text} {operator} ...: {o.detail} is an integer "
                                 f"in CUDA, HIP's {hip} a pointer", CODES[HANDLE_ARITHMETIC].fix, shadowable=True)
        yield dataclasses.replace(finding, name=o.detail)  # named by its type, like an API: the variable is the project's
