"""What a file needs before its first line of code under hipcc: the HIP runtime header, and feature macros.

nvcc includes cuda_runtime.h in every .cu file by itself; hipcc includes nothing.
Some HIP names also need a macro defined before the first HIP header (rules'
`hip_define`): the rounding-mode intrinsics, the _sync warp builtins on ROCm 6.2-6.4.
"""
from __future__ import annotations

import dataclasses
from typing import Iterable

from portkit.analyze.findings import simple_finding
from portkit.analyze.registry import Context, analyzer
from portkit.codes import HIP_PREAMBLE
from portkit.model import Finding, Fix, FixAction, Occurrence, ParsedFile, Position, Role, Span

HIP_RUNTIME = "hip/hip_runtime.h"
# nvcc compiles these as CUDA and includes the runtime in them.
CUDA_SOURCE_SUFFIXES = (".cu", ".cuh")
_NAME_ROLES = (Role.CALL, Role.TYPE, Role.IDENTIFIER, Role.MACRO_BODY)


def _includes_runtime(parsed: ParsedFile, context: Context) -> bool:
    """Whether the file includes the HIP runtime header, or a CUDA header convert turns into it."""
    for occurrence in parsed.occurrences:
        if occurrence.role is Role.INCLUDE:
            rule = context.rules.header(occurrence.text)
            if occurrence.text == HIP_RUNTIME or rule is not None and rule.hip == HIP_RUNTIME:
                return True
    return False


def _needs_runtime(parsed: ParsedFile, context: Context) -> bool:
    if _includes_runtime(parsed, context):
        return False
    return parsed.device_syntax or parsed.path.lower().endswith(CUDA_SOURCE_SUFFIXES) and any(
        o.role in _NAME_ROLES and context.rules.lookup(o.text) is not None for o in parsed.occurrences)


def _defines(parsed: ParsedFile, context: Context) -> list[str]:
    """The macros the file's CUDA names need on the target, in first-use order, not yet defined."""
    found: dict[str, None] = {}
    for occurrence in parsed.occurrences:
        rule = context.rules.lookup(occurrence.text) if occurrence.role in _NAME_ROLES else None
        if rule is None or not rule.hip_define or rule.resolve(context.target).hip != rule.hip:
            continue  # only when the HIP name itself is written (not an older fallback)
        define = rule.define_for(context.target)
        if define and define not in parsed.definitions:
            found[define] = None
    return list(found)


@analyzer("source")
def analyze_preamble(parsed: ParsedFile, context: Context) -> Iterable[Finding]:
    defines = _defines(parsed, context)
    runtime = _needs_runtime(parsed, context)
    if not defines and not runtime:
        return
    lines = [f"#define {d}" for d in defines] + ([f"#include <{HIP_RUNTIME}>"] if runtime else [])
    text = "".join(line + parsed.newline for line in lines)
    needed = ", ".join(defines + ([f"<{HIP_RUNTIME}>"] if runtime else []))
    span = Span(parsed.preamble_end, parsed.preamble_end)
    where = Occurrence(span, Role.INCLUDE, needed, Position(parsed.preamble_line, 1))
    finding = simple_finding(parsed.path, where, HIP_PREAMBLE, f"hipcc needs {needed} before the code",
                             "nvcc includes the CUDA runtime by itself; hipcc does not.")
    yield dataclasses.replace(finding, fix=Fix(FixAction.INSERT, span, text))
