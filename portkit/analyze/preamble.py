"""What a file needs before its first line of code under hipcc: the HIP runtime header, feature
macros, and portkit's helpers.

nvcc includes cuda_runtime.h in every .cu file by itself; hipcc includes nothing.
Some HIP names also need a macro defined before the first HIP header (rules'
`hip_define`): the rounding-mode intrinsics, the _sync warp builtins on ROCm 6.2-6.4.
A CUDA name whose HIP spelling is one of portkit's helpers (rules/_helpers.yaml) needs the
helper's block, which brings its own headers; so does a name whose rule names a helper that adds
overloads HIP lacks (`min`/`max` of mixed signedness in device code).

Where only the whole project decides whether a file needs the runtime header (its include graph),
analyze/runtime_include.py decides; a .cu file that defines a macro before its own first CUDA
include gets the runtime header first, here.

A file a host compiler may build (not .cu/.cuh) whose CUDA is all in `#ifdef __CUDACC__`-like
branches (ParsedFile.cuda_only) gets the header under `#ifdef __HIPCC__`, as its CUDA code is.
"""
from __future__ import annotations

import dataclasses
import os
import re
from typing import AbstractSet, Iterable

from portkit.analyze.findings import simple_finding
from portkit.analyze.hazards import device_code
from portkit.analyze.names import call_rule, in_role
from portkit.analyze.registry import Context, analyzer
from portkit.codes import HIP_PREAMBLE
from portkit.model import Finding, Fix, FixAction, NameFacts, Occurrence, ParsedFile, Position, Role, Span
from portkit.rules import Rule
from portkit.rules.snippets import HELPER_PREFIX, Helper, helper_named, helper_providing
from portkit.textutil import within

# What nvcc includes by itself; the rules say what it becomes (hip/hip_runtime.h).
IMPLICIT_CUDA_HEADER = "cuda_runtime.h"
# Libraries whose names come with the CUDA runtime that nvcc includes by itself.
RUNTIME_LIBRARIES = frozenset({"cuda-runtime", "cuda-driver", "cuda-device", "cooperative-groups", "cucomplex"})
_NAME_ROLES = (Role.CALL, Role.TYPE, Role.IDENTIFIER, Role.MACRO_BODY)
_COMPILER_MACRO = re.compile(r"__\w+__$")
CUDA_SUFFIXES = frozenset({".cu", ".cuh"})
# Libraries whose headers bring no runtime API, in CUDA as in HIP (nvml.h and rocm_smi.h, nvrtc.h and hiprtc.h,
# nvToolsExt.h and roctx.h, cupti.h): a file that includes only those still needs the runtime header.
_WITHOUT_RUNTIME = frozenset({"nvml", "nvrtc", "nvtx", "cupti"})


def runtime_reason(parsed: ParsedFile, context: Context, runtime: str, included: list[str],
                   host: bool = False) -> tuple[str, ...] | None:
    """Why the file needs the runtime header, or None: () for CUDA's language extensions, else the runtime
    names it uses without including any CUDA header (CUDA's library headers all bring the runtime API).
    Under nvcc they came with the implicit cuda_runtime.h (a .cu file, or a .cpp built as CUDA).
    `included`: the file's `cuda_includes`. `host`: only what a host compiler sees (outside
    `#ifdef __CUDACC__` and the like: ParsedFile.cuda_only)."""
    if runtime in included:
        return None
    if parsed.unguarded_device_syntax if host else parsed.device_syntax:
        return ()
    if any(included):
        return None
    device = parsed.device_functions
    names = tuple(dict.fromkeys(o.text for o in parsed.occurrences if _runtime_name(o, parsed, context, device, host)
                                and not (host and within(o.span.start, parsed.cuda_only))))
    return names or None


def cuda_includes(parsed: ParsedFile, context: Context) -> list[str]:
    """What convert makes of each of the file's includes that is not the project's ("" for no CUDA header, or one
    that brings no runtime: `_WITHOUT_RUNTIME`): the project's own cuda.h is no CUDA header, convert leaves it,
    so it brings no runtime."""
    return [_runtime_bringer(o.text, context) for o in parsed.of(Role.INCLUDE)
            if not context.project_header(o.text, parsed.path, o.detail == "system")]


def _runtime_bringer(header: str, context: Context) -> str:
    hip = context.rules.hip_header(header)
    if not hip:
        return ""
    rule = context.rules.header(header)
    return "" if rule is not None and rule.library in _WITHOUT_RUNTIME else hip


def _runtime_name(occurrence: Occurrence, parsed: ParsedFile, context: Context, device: AbstractSet[str],
                  host: bool = False) -> bool:
    """Whether the occurrence is a use of a runtime name. `host`: as a host compiler reads it, where a C library
    name (abs, floorf) is C's: in a function literally `__device__` a host compiler would already meet CUDA's
    syntax, so such a name only counts in one a project macro makes a device function for GPU compilers alone."""
    if occurrence.role not in _NAME_ROLES or occurrence.text in context.project_names:
        return False
    if occurrence.facts(NameFacts).scoped and occurrence.clang is None:
        return False  # `X::name`, or a definition misread as one (glm's `mat<C, R, T, Q> abs(...)`): not CUDA's
    rule = context.rules.lookup(occurrence.text)
    if rule is None or rule.library not in RUNTIME_LIBRARIES or rule.kind == "macro" and _COMPILER_MACRO.match(rule.cuda):
        return False  # nvcc defines __CUDACC__ itself: a file that tests it needs no header
    return not (host and rule.c_library) and in_role(rule, occurrence, parsed, device)


def _may_be_helper(rule: Rule) -> bool:
    """Whether a helper may be what the rule's name becomes (most names: no helper can be their spelling)."""
    return rule.hip.startswith(HELPER_PREFIX) or rule.older_hip.startswith(HELPER_PREFIX) or bool(rule.helper)


def _defines_and_helpers(parsed: ParsedFile, context: Context) -> tuple[list[str], list[Helper]]:
    """The macros the file's CUDA names need on the target, not yet defined, and the helpers their HIP
    spellings are, not yet there: each in first-use order, from one look-up per name."""
    defines: dict[str, None] = {}
    helpers: dict[str, Helper] = {}
    language = "c" if os.path.splitext(parsed.path)[1] == ".c" else "c++"
    plain: set[str] = set()  # names with no rule, or whose rule in any form asks for neither: most, looked up once
    for occurrence in parsed.occurrences:
        if occurrence.role not in _NAME_ROLES or occurrence.text in plain or within(occurrence.span.start, parsed.cuda_side):
            continue  # (the project's CUDA branch beside its HIP branch stays as written: analyze/own_hip_branches.py)
        rule = context.rules.lookup(occurrence.text)
        if rule is None or not (rule.form_rule or rule.hip_define or _may_be_helper(rule)):
            plain.add(occurrence.text)
            continue
        rule = call_rule(rule, occurrence, parsed, context)
        if rule.hip_define and rule.resolve(context.target).hip == rule.hip:  # not when an older fallback is written
            define = rule.define_for(context.target)
            if define and define not in parsed.definitions:
                defines[define] = None
        if not _may_be_helper(rule) or occurrence.text in context.project_names:
            continue  # most names: no helper can be their spelling
        if occurrence.facts(NameFacts).scoped and occurrence.clang is None:
            continue  # `std::numeric_limits<T>::max()`: a member of another scope, no use of CUDA's name
        helper = helper_named(rule.helper) if rule.helper else helper_providing(rule.resolve(context.target).hip)
        if helper is None or helper.guard in parsed.definitions or not helper.fits(language):
            continue
        if in_role(rule, occurrence, parsed, parsed.device_functions):
            helpers.setdefault(helper.name, helper)
    return list(defines), list(helpers.values())


def preamble_finding(parsed: ParsedFile, lines: list[str], needed: str, advice: str) -> Finding:
    """An insertion of `lines` where the file's code starts."""
    text = "".join(line + parsed.newline for line in lines)
    span = Span(parsed.preamble_end, parsed.preamble_end)
    where = Occurrence(span, Role.INCLUDE, needed, Position(parsed.preamble_line, 1))
    finding = simple_finding(parsed.path, where, HIP_PREAMBLE, f"hipcc needs {needed} before the code", advice)
    return dataclasses.replace(finding, fix=Fix(FixAction.INSERT, span, text))


@analyzer("source", codes=(HIP_PREAMBLE,), fixes=True)
def analyze_preamble(parsed: ParsedFile, context: Context) -> Iterable[Finding]:
    defines, helpers = _defines_and_helpers(parsed, context)
    runtime = context.rules.hip_header(IMPLICIT_CUDA_HEADER)
    included = cuda_includes(parsed, context)
    reason = runtime_reason(parsed, context, runtime, included) if runtime else None
    early = reason is None and bool(runtime) and _defined_before_cuda(parsed, context)
    reason = () if early else reason
    cuda_file = os.path.splitext(parsed.path)[1] in CUDA_SUFFIXES
    if reason is not None and not cuda_file and not defines and not helpers \
            and runtime_reason(parsed, context, runtime, included, host=True) is None:
        # Its CUDA is all in `#ifdef __CUDACC__` branches (convert writes __HIPCC__): a host compiler builds
        # the rest, and must not meet the runtime header (it refuses to compile without a HIP platform).
        # <math.h> as a second convert would add it: hipcc's host pass finds no isnan(double) without it.
        math = ["math.h"] if host_classification(parsed, context) else []
        yield preamble_finding(parsed, [f"#ifdef {_HIP_COMPILER}", f"#include <{runtime}>", "#endif",
                                        *(f"#include <{h}>" for h in math)],
                               ", ".join([f"<{runtime}> (under {_HIP_COMPILER})", *(f"<{h}>" for h in math)]),
                               _GUARDED_ADVICE)
        return
    # Runtime names alone, outside a CUDA file, may be ones the project defines for compilers without CUDA:
    # decided project-wide. A .cu file is CUDA's, whatever its names: nvcc gave it the runtime.
    deferred = bool(reason) and not defines and not helpers and not cuda_file
    headers = [runtime] if reason is not None and not deferred else []
    math = (cuda_file or any(included)) and host_classification(parsed, context)
    if not defines and not headers and not helpers and not math:
        return
    advice = _MATH_ADVICE if math and not (defines or headers or helpers) else _DEFINE_ADVICE if early else RUNTIME_ADVICE
    headers += ["math.h"] if math else []
    # Under #ifndef: a header the file includes first may define it already (llama.cpp's vendors/hip.h, as 1).
    lines = [line for d in defines for line in (f"#ifndef {d}", f"#define {d}", "#endif")]
    lines += [f"#include <{h}>" for h in headers]
    lines += [h.text.rstrip("\n").replace("\n", parsed.newline) for h in helpers]
    needed = ", ".join(defines + [f"<{h}>" for h in headers] + [f"portkit's {h.name} helper" for h in helpers])
    yield preamble_finding(parsed, lines, needed, advice)


# C's classification functions: CUDA's runtime header brings <math.h>'s to host code; HIP's declares only
# device overloads at global scope, so hipcc finds no host `isfinite(float)` without <math.h>.
_HOST_MATH = frozenset({"isfinite", "isnan", "isinf", "signbit"})
_MATH_ADVICE = ("CUDA's runtime header brings <math.h>, and with it isfinite, isnan, isinf and signbit for host code; "
                "HIP's declares only their device versions.")


def host_classification(parsed: ParsedFile, context: Context) -> bool:
    """Whether host code calls one of C's classification functions, unqualified, in a file without <math.h>: the
    file needs <math.h> wherever it gets a HIP header (here, or from the project-wide runtime include)."""
    calls = [o for o in parsed.of(Role.CALL) if o.text in _HOST_MATH and not o.facts(NameFacts).scoped
             and o.text not in context.project_names]
    if not calls or any(os.path.basename(o.text) == "math.h" for o in parsed.of(Role.INCLUDE)):
        return False
    device_only = device_code(parsed, host_too=False)
    return any(not device_only(o) for o in calls)


def _defined_before_cuda(parsed: ParsedFile, context: Context) -> bool:
    """A .cu file that #defines a macro before its first CUDA include: nvcc's implicit runtime include came
    before both, but HIP's headers, included where CUDA's were, would come after the macro (`#define T float`
    then rewrites their templates)."""
    if parsed.first_define < 0 or os.path.splitext(parsed.path)[1] != ".cu":
        return False
    first = next((o.span.start for o in parsed.of(Role.INCLUDE)
                  if not context.project_header(o.text, parsed.path, o.detail == "system") and context.rules.hip_header(o.text)), None)
    return first is not None and parsed.first_define < first


RUNTIME_ADVICE = "nvcc includes the CUDA runtime by itself; hipcc does not."
_DEFINE_ADVICE = ("nvcc includes the CUDA runtime before the file's first line, before the macros it defines; "
                  "HIP's headers, included where CUDA's were, would come after them.")
_HIP_COMPILER = "__HIPCC__"
_GUARDED_ADVICE = ("nvcc includes the CUDA runtime by itself; hipcc does not. The file's CUDA code is only for GPU "
                   "compilers, so the header is too: a host compiler still builds the file without it.")
