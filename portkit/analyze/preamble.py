"""What a file needs before its first line of code under hipcc: the HIP runtime header, feature
macros, and portkit's helpers.

nvcc includes cuda_runtime.h in every .cu file by itself; hipcc includes nothing.
Some HIP names also need a macro defined before the first HIP header (rules'
`hip_define`): the rounding-mode intrinsics, the _sync warp builtins on ROCm 6.2-6.4.
A CUDA name whose HIP spelling is one of portkit's helpers (rules/_helpers.yaml) needs the
helper's block, which brings its own headers.
"""
from __future__ import annotations

import dataclasses
from pathlib import PurePath
from typing import AbstractSet, Iterable

from portkit.analyze.findings import simple_finding
from portkit.analyze.names import in_role
from portkit.analyze.registry import Context, analyzer
from portkit.codes import HIP_PREAMBLE
from portkit.model import Finding, Fix, FixAction, Occurrence, ParsedFile, Position, Role, Span
from portkit.rules.helpers import HELPER_PREFIX, Helper, helper_providing

# What nvcc includes by itself; the rules say what it becomes (hip/hip_runtime.h).
IMPLICIT_CUDA_HEADER = "cuda_runtime.h"
# Libraries whose names come with the CUDA runtime that nvcc includes by itself.
RUNTIME_LIBRARIES = frozenset({"cuda-runtime", "cuda-driver", "cuda-device", "cooperative-groups", "cucomplex"})
_NAME_ROLES = (Role.CALL, Role.TYPE, Role.IDENTIFIER, Role.MACRO_BODY)


def _needs_runtime(parsed: ParsedFile, context: Context, runtime: str) -> bool:
    """A file that uses CUDA's language extensions, or runtime names without including any CUDA
    header (CUDA's library headers all bring the runtime API): under nvcc they came with the
    implicit cuda_runtime.h (a .cu file, or a .cpp built as CUDA)."""
    # The project's own cuda.h is no CUDA header: convert leaves it, so it brings no runtime.
    included = [context.rules.hip_header(o.text) for o in parsed.occurrences
                if o.role is Role.INCLUDE and not context.project_header(o.text)]
    if runtime in included:
        return False
    if parsed.device_syntax:
        return True
    device = parsed.device_functions
    return not any(included) and any(_runtime_name(o, parsed, context, device) for o in parsed.occurrences)


def _runtime_name(occurrence: Occurrence, parsed: ParsedFile, context: Context, device: AbstractSet[str]) -> bool:
    if occurrence.role not in _NAME_ROLES or occurrence.text in context.project_names:
        return False
    rule = context.rules.lookup(occurrence.text)
    return rule is not None and rule.library in RUNTIME_LIBRARIES and in_role(rule, occurrence, parsed, device)


def _defines_and_helpers(parsed: ParsedFile, context: Context) -> tuple[list[str], list[Helper]]:
    """The macros the file's CUDA names need on the target, not yet defined, and the helpers their HIP
    spellings are, not yet there: each in first-use order, from one look-up per name."""
    defines: dict[str, None] = {}
    helpers: dict[str, Helper] = {}
    language = "c" if PurePath(parsed.path).suffix == ".c" else "c++"
    for occurrence in parsed.occurrences:
        rule = context.rules.lookup(occurrence.text) if occurrence.role in _NAME_ROLES else None
        if rule is None:
            continue
        if rule.hip_define and rule.resolve(context.target).hip == rule.hip:  # not when an older fallback is written
            define = rule.define_for(context.target)
            if define and define not in parsed.definitions:
                defines[define] = None
        if not (rule.hip.startswith(HELPER_PREFIX) or rule.fallback.startswith(HELPER_PREFIX)) \
                or occurrence.text in context.project_names:
            continue  # most names: no helper can be their spelling
        helper = helper_providing(rule.resolve(context.target).hip)
        if helper is None or helper.guard in parsed.definitions or not helper.fits(language):
            continue
        if in_role(rule, occurrence, parsed, parsed.device_functions):
            helpers.setdefault(helper.name, helper)
    return list(defines), list(helpers.values())


def in_cpp_block(finding: Finding, runtime: str) -> Finding:
    """The preamble of a file that another includes inside `extern "C" { }`: the runtime header is C++
    (templates need C++ linkage), so it goes in an `extern "C++"` block of its own. nvcc's implicit
    include came first in the translation unit, outside any block."""
    fix, line = finding.fix, f"#include <{runtime}>"
    if fix is None or line not in fix.text:
        return finding
    newline = "\r\n" if "\r\n" in fix.text else "\n"
    block = newline.join(["#ifdef __cplusplus", 'extern "C++" {', "#endif", line, "#ifdef __cplusplus", "}", "#endif"])
    return dataclasses.replace(finding, fix=dataclasses.replace(fix, text=fix.text.replace(line, block, 1)))


@analyzer("source")
def analyze_preamble(parsed: ParsedFile, context: Context) -> Iterable[Finding]:
    defines, helpers = _defines_and_helpers(parsed, context)
    runtime = context.rules.hip_header(IMPLICIT_CUDA_HEADER)
    headers = [runtime] if runtime and _needs_runtime(parsed, context, runtime) else []
    if not defines and not headers and not helpers:
        return
    lines = [f"#define {d}" for d in defines] + [f"#include <{h}>" for h in headers]
    lines += [h.text.rstrip("\n").replace("\n", parsed.newline) for h in helpers]
    text = "".join(line + parsed.newline for line in lines)
    needed = ", ".join(defines + [f"<{h}>" for h in headers] + [f"portkit's {h.name} helper" for h in helpers])
    span = Span(parsed.preamble_end, parsed.preamble_end)
    where = Occurrence(span, Role.INCLUDE, needed, Position(parsed.preamble_line, 1))
    finding = simple_finding(parsed.path, where, HIP_PREAMBLE, f"hipcc needs {needed} before the code",
                             "nvcc includes the CUDA runtime by itself; hipcc does not.")
    yield dataclasses.replace(finding, fix=Fix(FixAction.INSERT, span, text))
