"""Inventory of GPU code: kernels, device functions, launches, inline asm, CUDA-only branches."""
from __future__ import annotations

import dataclasses
import re
from typing import Iterable

from portkit.analyze.findings import rule_finding, simple_finding
from portkit.analyze.registry import Context, analyzer
from portkit.analyze.rewrite import launch_fix
from portkit.codes import API_UNSUPPORTED, CUDA_BRANCH, DEVICE_FUNCTION, KERNEL, KERNEL_LAUNCH, RULE_CODES, Status
from portkit.model import Finding, LaunchFacts, Occurrence, ParsedFile, Role
from portkit.parse.hipcc_branch import amd_accepts, hipcc_value
from portkit.parse.nodes import CUDA_CONDITION_MACROS

GENERIC_ASM_ADVICE = ("PTX is NVIDIA's ISA and no AMD compiler accepts it: rewrite the block in HIP C++ "
                      "(builtins such as __lane_id, __ballot, __shfl) or in AMDGCN inline asm.")
LAUNCH_ADVICE = "hipcc accepts <<<>>>; convert can also emit hipLaunchKernelGGL."
BRANCH_ADVICE = ("hipcc does not define these macros: test __HIP_PLATFORM_AMD__/__HIP_DEVICE_COMPILE__ as well, "
                 "or the branch silently drops out on AMD.")
# A test of CUDA's version stays as written (convert): what it reads under hipcc decides the branch AMD builds.
VERSION_ADVICE = ("CUDA's version reads 0 under hipcc: this test is {} there, so AMD builds {}. To build the other, also "
                  "test __HIP_PLATFORM_AMD__ or HIP_VERSION_MAJOR (hip/hip_version.h).")
_READS = {0: ("false", "the #elif/#else branch"), 1: ("true", "this branch")}


# PTX instructions are dotted (mov.u32, ld.global.f32, shfl.sync.bfly.b32) and name %registers; asm in
# host code without them is the host's own (x86 rdtsc, cpuid), no PTX.
PTX_LOOKING = re.compile(r"\b[a-z]+(\.[a-z0-9]+)+\b|%%?(laneid|warpid|smid|tid|ntid|ctaid|nctaid|clock)")


# AMD's own ISA (v_mul_i32_i24, s_waitcnt, ds_swizzle_b32, global_load_dword): asm a project already wrote for
# AMD, in the branch hipcc compiles (llama.cpp's dp4a). Its mnemonics are undotted words with a unit prefix.
_AMDGCN_INSTRUCTION = re.compile(r"(?:\s|\\t)*(v|s|ds|buffer|tbuffer|global|flat|scratch|image)_[a-z0-9_]+\b(?!\.)")


def _amdgcn(template: str) -> bool:
    """Whether every instruction of an asm template is an AMDGCN one (the template's escapes are as written: `\\n`)."""
    instructions = [i for i in re.split(r"\\n|[\n;]", template) if i.strip()]
    return bool(instructions) and all(_AMDGCN_INSTRUCTION.match(i) for i in instructions)


@analyzer("source", codes=(KERNEL, KERNEL_LAUNCH, DEVICE_FUNCTION, CUDA_BRANCH, *RULE_CODES), fixes=True)
def analyze_inventory(parsed: ParsedFile, context: Context) -> Iterable[Finding]:
    device = parsed.device_functions
    for occurrence in parsed.of(Role.KERNEL, Role.DEVICE_FUNCTION, Role.LAUNCH, Role.INLINE_ASM, Role.PREPROCESSOR_CONDITION):
        role = occurrence.role
        if role is Role.KERNEL:
            template = " (template)" if occurrence.detail == "template" else ""
            yield simple_finding(parsed.path, occurrence, KERNEL, f"kernel {occurrence.text}{template}")
        elif role is Role.DEVICE_FUNCTION:
            yield simple_finding(parsed.path, occurrence, DEVICE_FUNCTION, f"device function {occurrence.text}")
        elif role is Role.LAUNCH:
            # Launched through a local name: counted as the launch of each kernel it stands for; the first carries the
            # rewrite of the site.
            kernels = occurrence.facts(LaunchFacts).kernels
            through = f" ({occurrence.text} is {' or '.join(kernels)})" if kernels else ""
            finding = simple_finding(parsed.path, occurrence, KERNEL_LAUNCH,
                                     f"launch of {occurrence.text}<<<{occurrence.detail}>>>{through}", LAUNCH_ADVICE)
            for index, kernel in enumerate(kernels or (finding.name,)):
                yield dataclasses.replace(finding, name=kernel, fix=launch_fix(occurrence) if index == 0 else None)
        elif role is Role.INLINE_ASM and (occurrence.function in device or PTX_LOOKING.search(occurrence.text)) \
                and not _amdgcn(occurrence.text):
            yield _asm_finding(parsed, occurrence, context)
        elif role is Role.PREPROCESSOR_CONDITION and CUDA_CONDITION_MACROS.search(occurrence.text) \
                and not amd_accepts(_as_test(occurrence)):  # a test of cuDNN's version alone is its macro's finding
            yield simple_finding(parsed.path, occurrence, CUDA_BRANCH, f"{occurrence.detail} {occurrence.text}",
                                 _branch_advice(occurrence))


def _as_test(condition: Occurrence) -> str:
    """The condition as an #if's test: `#ifdef X` as `defined(X)`."""
    return {"#ifdef": "defined({})", "#ifndef": "!defined({})"}.get(condition.detail, "{}").format(condition.text)


def _branch_advice(condition: Occurrence) -> str:
    """What AMD builds where the test reads only CUDA's version; the general advice otherwise."""
    test = _as_test(condition)
    value = hipcc_value(test) if condition.detail in ("#if", "#elif", "#ifdef", "#ifndef") else None
    return BRANCH_ADVICE if value is None else VERSION_ADVICE.format(*_READS[value])


def is_version_test(finding: Finding) -> bool:
    """A CUDA-only branch whose test reads only CUDA's version: convert leaves it, and marks which branch AMD builds."""
    return finding.code == CUDA_BRANCH and finding.advice.startswith(VERSION_ADVICE[:40])


def _asm_finding(parsed: ParsedFile, occurrence: Occurrence, context: Context) -> Finding:
    shown = " ".join(occurrence.text.split())[:60]
    rule = context.rules.match_asm(occurrence.text)
    if rule is not None:
        finding = rule_finding(parsed.path, rule, rule.cuda, occurrence.span, occurrence.position, context, occurrence.function)
        return dataclasses.replace(finding, message=f'inline PTX "{shown}": {finding.message}')
    finding = simple_finding(parsed.path, occurrence, API_UNSUPPORTED, f'inline PTX "{shown}" has no HIP equivalent',
                             GENERIC_ASM_ADVICE)
    return dataclasses.replace(finding, name="asm", library="ptx", status=Status.UNSUPPORTED)
