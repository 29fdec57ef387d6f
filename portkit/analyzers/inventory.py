"""Inventory of GPU code: kernels, device functions, launches, inline asm, CUDA-only branches."""
from __future__ import annotations

import dataclasses
from typing import Iterable

from portkit.analyzers import Context, register, rule_finding, simple_finding
from portkit.model import Edit, Finding, Occurrence, OccurrenceKind, ParsedFile, Span

GENERIC_ASM_ADVICE = ("PTX is NVIDIA's ISA and no AMD compiler accepts it: rewrite the block in HIP C++ "
                      "(builtins such as __lane_id, __ballot, __shfl) or in AMDGCN inline asm.")


@register
def analyze_inventory(parsed: ParsedFile, context: Context) -> Iterable[Finding]:
    for occurrence in parsed.occurrences:
        kind = occurrence.kind
        if kind is OccurrenceKind.KERNEL:
            template = " (template)" if occurrence.detail == "template" else ""
            yield simple_finding(parsed.path, occurrence, "PK200", f"kernel {occurrence.text}{template}")
        elif kind is OccurrenceKind.DEVICE_FUNCTION:
            yield simple_finding(parsed.path, occurrence, "PK202", f"device function {occurrence.text}")
        elif kind is OccurrenceKind.LAUNCH:
            finding = simple_finding(parsed.path, occurrence, "PK201", f"launch of {occurrence.text}<<<{occurrence.detail}>>>",
                                     "hipcc accepts <<<>>>; convert can also emit hipLaunchKernelGGL.")
            if context.launch_syntax == "hip":
                finding = dataclasses.replace(finding, edits=launch_edits(occurrence))
            yield finding
        elif kind is OccurrenceKind.INLINE_ASM:
            yield _asm_finding(parsed, occurrence, context)
        elif kind is OccurrenceKind.PREPROCESSOR_CONDITION:
            yield simple_finding(
                parsed.path, occurrence, "PK203", f"{occurrence.detail} {occurrence.text}",
                "hipcc does not define these macros: test __HIP_PLATFORM_AMD__/__HIP_DEVICE_COMPILE__ as well, "
                "or the branch silently drops out on AMD.",
            )


def launch_edits(occurrence: Occurrence) -> tuple[Edit, ...]:
    """Edits turning `k<<<g, b[, s[, q]]>>>(args)` into `hipLaunchKernelGGL(k, g, b, s, q, args)`.

    Only the punctuation between the parts changes, so renames inside the
    kernel expression, the configuration or the arguments still apply.
    """
    if len(occurrence.parts) < 4:
        return ()
    kernel, *config, arguments = occurrence.parts
    if not 2 <= len(config) <= 4:
        return ()
    # A template kernel's commas would split the macro's arguments: parenthesise it.
    templated = kernel.end - kernel.start > len(occurrence.text.encode())
    defaults = ", 0" * (4 - len(config))
    has_arguments = arguments.end - arguments.start > 2
    return (
        Edit(Span(kernel.start, kernel.start), b"hipLaunchKernelGGL(" + (b"(" if templated else b"")),
        Edit(Span(kernel.end, config[0].start), (b")" if templated else b"") + b", "),
        Edit(Span(config[-1].end, arguments.start + 1), (defaults + (", " if has_arguments else "")).encode()),
    )


def _asm_finding(parsed: ParsedFile, occurrence: Occurrence, context: Context) -> Finding:
    shown = " ".join(occurrence.text.split())[:60]
    rule = context.rules.match_asm(occurrence.text)
    if rule is not None:
        finding = rule_finding(parsed.path, rule, rule.cuda, occurrence.span, occurrence.position, context, occurrence.context)
        return dataclasses.replace(finding, message=f'inline PTX "{shown}": {finding.message}')
    finding = simple_finding(parsed.path, occurrence, "PK102", f'inline PTX "{shown}" has no HIP equivalent', GENERIC_ASM_ADVICE)
    return dataclasses.replace(finding, name="asm", library="ptx", status="unsupported")
