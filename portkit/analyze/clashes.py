"""Project definitions that clash under hipcc: nvcc accepted them, hipcc reports a redefinition or an ambiguity.

Three kinds: a definition HIP's headers already have (the list is data, rules/_hip_defines.yaml),
and overloads on two CUDA types HIP names alike (CUresult and cudaError_t are both hipError_t):
the fix keeps the project's definition out of the HIP build, so one source tree still builds
for both vendors. And an overload of a <cmath> function for __half whose unqualified calls find
clang's HIP <cmath> templates too (rules/_hip_cmath.yaml): marked, the calls are the user's to qualify.
"""
from __future__ import annotations

import dataclasses
import functools
import re
from typing import Iterable

from portkit.analyze.findings import simple_finding
from portkit.analyze.registry import Context, analyzer
from portkit.codes import CODES, HALF_MATH_OVERLOAD, HIP_ALREADY_DEFINES, MERGED_OVERLOAD
from portkit.model import (Finding, Fix, FixAction, FunctionFacts, MacroFacts, NameFacts, Occurrence, ParsedFile, Role,
                           Span)
from portkit.resources import load_data

HIP_TEST = "!defined(__HIP_PLATFORM_AMD__)"


# CUDA's vector types (float4, uchar2, ulonglong3...): HIP's are classes with their own operators.
_VECTOR_TYPE = re.compile(r"(?:u?char|u?short|u?int|u?long|u?longlong|float|double)[1-4]")


def _parse(entries: list) -> dict[str, list[tuple[str, str]]]:
    """name -> [(param0, param1)]: a type, "*" for any, "vector" for a CUDA vector type, "param0" for the same."""
    known: dict[str, list[tuple[str, str]]] = {}
    for e in entries:
        if e.get("variable"):
            continue
        # Spaces do not count: "unsigned int" in the data, "unsignedint" as compared.
        known.setdefault(str(e["name"]), []).append((str(e["param0"]).replace(" ", ""),
                                                     str(e.get("param1", "*")).replace(" ", "")))
    return known


@functools.lru_cache(maxsize=1)
def hip_definitions() -> dict[str, list[tuple[str, str]]]:
    return load_data("_hip_defines.yaml", _parse)


# The types nvcc's built-in coordinates have, which a host-side declaration of one names: the parser keeps them.
COORDINATE_TYPES = frozenset({"dim3", "uint3"})


@functools.lru_cache(maxsize=1)
def hip_variables() -> frozenset[str]:
    """The variables HIP's headers define at file scope (threadIdx, warpSize)."""
    return load_data("_hip_defines.yaml", lambda entries: frozenset(str(e["name"]) for e in entries if e.get("variable")))


def _matches(pattern: str, found: str, param0: str) -> bool:
    if pattern == "vector":
        return _VECTOR_TYPE.fullmatch(found) is not None
    return pattern == "*" or found == (param0 if pattern == "param0" else pattern)


def _defined_by_hip(name: str, param0: str, param1: str) -> bool:
    param0, param1 = param0.replace(" ", ""), param1.replace(" ", "")
    return any(_matches(first, param0, param0) and _matches(second, param1, param0)
               for first, second in hip_definitions().get(name, ()))


def _guard(definition: Occurrence) -> Fix | None:
    """Keep a function definition out of the HIP build, from the start of its line. A template's
    `template <...>` line comes before the definition: that one is guarded by hand."""
    if definition.detail == "template":
        return None
    line_start = definition.span.start - (definition.position.column - 1)
    return Fix(FixAction.GUARD, Span(line_start, definition.span.end), HIP_TEST)


@analyzer("source", codes=(HIP_ALREADY_DEFINES,), fixes=True)
def analyze_clashes(parsed: ParsedFile, context: Context) -> Iterable[Finding]:
    for o in parsed.of(Role.DEVICE_FUNCTION):
        signature = o.facts(FunctionFacts)
        if signature.guarded or not _defined_by_hip(o.text, signature.param(0), signature.param(1)):
            continue
        finding = simple_finding(parsed.path, o, HIP_ALREADY_DEFINES,
                                 f"{o.text}({signature.param(0) or '...'}) is defined by HIP's headers too",
                                 CODES[HIP_ALREADY_DEFINES].fix)
        yield dataclasses.replace(finding, fix=_guard(o))


@dataclasses.dataclass(frozen=True)
class HipCmath:
    functions: dict[str, str]  # name -> the parameter count of clang's template, as FunctionFacts counts
    types: frozenset[str]  # the parameter types that make its result type ambiguous


@functools.lru_cache(maxsize=1)
def hip_cmath() -> HipCmath:
    return load_data("_hip_cmath.yaml", lambda data: HipCmath({str(k): str(v) for k, v in data["functions"].items()},
                                                              frozenset(str(t) for t in data["types"])))


@analyzer("source", codes=(HALF_MATH_OVERLOAD,))
def analyze_half_math_overloads(parsed: ParsedFile, context: Context) -> Iterable[Finding]:
    """`namespace tcnn { __device__ __half fma(__half, __half, __half) }`: an unqualified call finds clang's global
    fma template by argument-dependent lookup, and hipcc stops inside its <cmath> header. Reported at the overload,
    where the user decides between qualifying its calls and renaming it, and at the file's unqualified calls of it,
    where hipcc says the header's template was instantiated (a qualified one is no call of the template)."""
    cmath = hip_cmath()
    overloads: dict[str, str] = {}  # name -> the half type
    for o in parsed.of(Role.DEVICE_FUNCTION):
        signature = o.facts(FunctionFacts)
        types = {signature.param(i).replace(" ", "").removeprefix("::") for i in (0, 1)}
        if signature.guarded or cmath.functions.get(o.text) != signature.params or not types & cmath.types:
            continue
        half = overloads.setdefault(o.text, min(types & cmath.types))
        yield simple_finding(parsed.path, o, HALF_MATH_OVERLOAD,
                             f"{o.text}({signature.param(0)}, ...) overloads HIP's <cmath> {o.text}, whose global "
                             f"template an unqualified call also finds for {half}", _half_math_advice(o.text, half))
    for o in parsed.of(Role.CALL):
        if o.text in overloads:
            yield simple_finding(parsed.path, o, HALF_MATH_OVERLOAD,
                                 f"an unqualified call of the file's own {o.text}({overloads[o.text]}, ...)",
                                 _half_math_advice(o.text, overloads[o.text]))


def _half_math_advice(name: str, half: str) -> str:
    return (f"call it qualified with its namespace (ns::{name}(...)), or rename it: an unqualified call with a {half} "
            f"also finds the global {name} template of HIP's <cmath>, where hipcc stops (call to '__test' is ambiguous).")


def _lines_of(declaration: Occurrence, extent: Span) -> Span:
    """A declaration's lines: from the start of its type's line to its end."""
    return Span(declaration.span.start - (declaration.position.column - 1), extent.end)


@analyzer("source", codes=(HIP_ALREADY_DEFINES,), fixes=True)
def analyze_builtin_variables(parsed: ParsedFile, context: Context) -> Iterable[Finding]:
    """`extern const dim3 blockDim;` at file scope, for host code to name the coordinates (nvcc's host pass has
    none): HIP's headers define them for both passes, so under hipcc it is a redeclaration with another type."""
    for o in parsed.of(Role.TYPE):
        declared = set(o.facts(NameFacts).declares.split(",")) & hip_variables()
        if not declared or o.function or not o.parts or o.parts[0].start > o.span.start:
            continue  # a function's local shadows HIP's variable; the extent starts at the type or before it
        finding = simple_finding(parsed.path, o, HIP_ALREADY_DEFINES,
                                 f"{', '.join(sorted(declared))} is defined by HIP's headers too (here declared as {o.text})",
                                 CODES[HIP_ALREADY_DEFINES].fix)
        yield dataclasses.replace(finding, fix=Fix(FixAction.GUARD, _lines_of(o, o.parts[0]), HIP_TEST))


_WORD = re.compile(r"[A-Za-z_]\w*")


def _on_hip(type_text: str, context: Context) -> str:
    """A parameter type as HIP spells it: `CUresult` and `cudaError_t` are both `hipError_t`."""
    def spelled(match: re.Match) -> str:
        word = match.group()
        rule = None if word in context.project_names else context.rules.lookup(word)
        return (rule.resolve(context.target).hip if rule is not None and rule.kind == "type" else "") or word
    return _WORD.sub(spelled, type_text)


def _overloads(parsed: ParsedFile) -> dict[str, list[Occurrence]]:
    """Each function the file defines more than once, with one or two parameters, outside #else branches."""
    groups: dict[str, list[Occurrence]] = {}
    for o in parsed.of(Role.OVERLOAD, Role.DEVICE_FUNCTION):
        signature = o.facts(FunctionFacts)
        if signature.params in ("1", "2") and not signature.guarded and not signature.alternative:
            groups.setdefault(o.text, []).append(o)
    return {name: found for name, found in groups.items() if len(found) > 1}


def _signature(function: Occurrence) -> tuple[str, str, str]:
    """A definition's parameter count and first two parameter types."""
    facts = function.facts(FunctionFacts)
    return facts.params, facts.param(0), facts.param(1)


@analyzer("source", codes=(MERGED_OVERLOAD,), fixes=True)
def analyze_merged_overloads(parsed: ParsedFile, context: Context) -> Iterable[Finding]:
    """Overloads on two CUDA types that HIP names alike (a driver and a runtime error type) are one
    function twice under hipcc: the later definition is kept out of the HIP build."""
    for name, definitions in _overloads(parsed).items():
        first_of: dict[tuple[str, ...], Occurrence] = {}
        for o in definitions:
            cuda = _signature(o)
            first = first_of.setdefault((cuda[0], *(_on_hip(t, context) for t in cuda[1:])), o)
            if first is o or cuda == _signature(first):
                continue  # the first of its kind, or a twin nvcc saw too (a preprocessor choice)
            finding = simple_finding(parsed.path, o, MERGED_OVERLOAD,
                                     f"{name}({cuda[1]}) is {name}({_signature(first)[1]}) under HIP: "
                                     f"both are {name}({_on_hip(cuda[1], context)})", CODES[MERGED_OVERLOAD].fix)
            yield dataclasses.replace(finding, fix=_guard(o))


@analyzer("source", codes=(HIP_ALREADY_DEFINES,), fixes=True)
def analyze_legacy_macros(parsed: ParsedFile, context: Context) -> Iterable[Finding]:
    """A macro that spells a warp intrinsic's old name with its _sync form (`#define __shfl_down(v, d)
    __shfl_down_sync(0xffffffff, v, d)`): HIP has the old name itself, so the macro stays out of its build
    (on HIP before 6.2 its body names what HIP lacks). Which old names HIP has is the rules' `older_hip`."""
    for o in parsed.of(Role.MACRO_DEFINITION):
        if not o.parts or o.facts(MacroFacts).guarded:
            continue
        rule = context.rules.lookup(o.text + "_sync")
        line = o.parts[0]
        if rule is None or rule.older_hip != o.text or not any(
                b.role is Role.MACRO_BODY and b.text == rule.cuda and line.start <= b.span.start < line.end
                for b in parsed.occurrences):
            continue
        finding = simple_finding(parsed.path, o, HIP_ALREADY_DEFINES,
                                 f"{o.text} is HIP's own; this macro maps it to {rule.cuda}", CODES[HIP_ALREADY_DEFINES].fix)
        yield dataclasses.replace(finding, fix=Fix(FixAction.GUARD, line, HIP_TEST))
