"""CUDA tests left as written where their #if/#elif chain already has a branch of its own for HIP.

`#if defined(__CUDACC__)` ... `#elif defined(__HIP__)` (glm's platform.h) compiles the project's HIP branch under
hipcc, where __CUDACC__ is undefined. Rewritten to `__HIPCC__`, the CUDA branch would win there and the project's
HIP branch go dead (glm's then reads CUDA_VERSION as 0 and hits its `#error`). So a test in a chain any of whose
directives tests for HIP (parse/nodes.py: chain_tests_hip) keeps CUDA's macro, and its marker says why; converting
the converted tree decides the same. The CUDA branch itself stays as written: hipcc never compiles it for AMD.

What convert leaves there on purpose is right as it is: such findings are `settled`, listed with why but no work
(the effort bills none), and a hazard there (a 32-bit mask nvcc builds as it should) gets no marker.
"""
from __future__ import annotations

import dataclasses
import os
from typing import Iterable, Iterator, Mapping

from portkit.analyze.registry import Context
from portkit.codes import ATTENTION_STATUSES, CUDA_BRANCH as CUDA_BRANCH_CODE, HIP_PREAMBLE, in_group
from portkit.model import Finding, NameFacts, ParsedFile, Role
from portkit.parse.hipcc_branch import same_platform_macro
from portkit.textutil import within

BESIDE_HIP = ("left as CUDA's test: its #if/#elif chain tests for HIP too, and the project's own HIP branch is "
              "what hipcc compiles")


def rewritten(finding: Finding, context: Context) -> bool:
    """Whether convert rewrites the finding's name: its fix, or where a run builds none (a summary: counts only), its
    HIP spelling, so the summary says what the full report says."""
    if context.fixes:
        return finding.fix is not None
    return bool(finding.hip) and finding.hip != finding.name


def keep_tests_beside_hip(parsed: ParsedFile, findings: Iterable[Finding], context: Context) -> Iterator[Finding]:
    """`findings` with no rewrite of a CUDA macro tested in a chain that also tests for HIP. HIP's own platform macro
    respelled (`__HIP_PLATFORM_HCC__`, which ROCm 6 dropped, as `__HIP_PLATFORM_AMD__`) keeps its meaning there."""
    kept = {o.span for o in parsed.of(Role.IDENTIFIER) if o.facts(NameFacts).beside_hip}
    for finding in findings:
        if finding.span in kept and rewritten(finding, context) \
                and not same_platform_macro(finding.name, finding.fix.text if finding.fix is not None else finding.hip):
            finding = dataclasses.replace(finding, fix=None, message=f"{finding.message}; {BESIDE_HIP}",
                                          advice=BESIDE_HIP, settled=True)
        yield finding


NVIDIA_SIDE = ("left as written: the project's NVIDIA side (a branch its own HIP test keeps from hipcc for AMD), "
               "where NVIDIA's warp size is the one it runs at")
CUDA_BRANCH = ("left as written: the project's CUDA branch, whose test stays CUDA's beside its own HIP branch, so hipcc "
               "never compiles it for AMD; NVIDIA builds compile it as the original")


def keep_cuda_branches(parsed: ParsedFile, findings: Iterable[Finding], context: Context) -> Iterator[Finding]:
    """`findings` with no rewrite in a CUDA branch of a chain that also tests for HIP (ParsedFile.cuda_side): a name
    there is the NVIDIA build's, settled; one that would be rewritten, or asks for work elsewhere, says why it stays."""
    if not parsed.cuda_side:
        yield from findings
        return
    for finding in findings:
        if finding.settled or finding.status is None or not within(finding.span.start, parsed.cuda_side):
            yield finding  # (a test beside HIP already says why it stays)
        elif rewritten(finding, context) or finding.status in ATTENTION_STATUSES:
            yield dataclasses.replace(finding, fix=None, message=f"{finding.message}; {CUDA_BRANCH}", advice=CUDA_BRANCH,
                                      settled=True, off_amd=True)
        else:
            yield dataclasses.replace(finding, settled=True, off_amd=True)


def settle_cuda_side(parsed: ParsedFile, findings: Iterable[Finding]) -> Iterator[Finding]:
    """`findings` with the project's CUDA side settled: what is not a name (a hazard, a language fix such as
    `register` dropped or a min/max cast, a kernel) in a CUDA branch beside the project's HIP branch is left as
    written, saying why where it asked for a change (no repair, no marker); and a CUDA-only test (PK203, or an
    architecture test's hazard) in a chain that tests for HIP is the project's decision. Names: keep_cuda_branches.
    What is in the project's NVIDIA side (ParsedFile.nvidia_side: the #else of its `#ifdef __HIP_PLATFORM_AMD__`)
    is no work for AMD either: settled, names still renamed for HIP on NVIDIA, a hazard there left without a marker.
    Names and CUDA-only tests beside the project's own HIP switch (ParsedFile.hip_switch_side) are settled too."""
    beside_hip = [o.span for o in parsed.of(Role.IDENTIFIER) if o.facts(NameFacts).beside_hip]
    if not parsed.cuda_side and not parsed.nvidia_side and not parsed.hip_switch_side and not beside_hip:
        yield from findings
        return
    for finding in findings:
        hazard = in_group(finding.code, "hazard")
        nvidia = within(finding.span.start, parsed.nvidia_side) and not within(finding.span.start, parsed.cuda_side)
        if finding.code == HIP_PREAMBLE:
            yield finding  # (the preamble goes where the file's code starts, which may be the branch's first line)
        elif finding.settled:
            yield dataclasses.replace(finding, nvidia_side=True, off_amd=True) if nvidia else finding
        elif nvidia:
            # HIP on NVIDIA compiles it (names are renamed as anywhere), AMD never: no work for the port, and nothing
            # there makes the port less ready or asks for a marker
            yield dataclasses.replace(finding, fix=None, message=f"{finding.message}; {NVIDIA_SIDE}", advice=NVIDIA_SIDE,
                                      settled=True, nvidia_side=True, off_amd=True) if hazard \
                else dataclasses.replace(finding, settled=True, nvidia_side=True, off_amd=True)
        elif (in_group(finding.code, "api") or finding.code == CUDA_BRANCH_CODE) \
                and within(finding.span.start, parsed.hip_switch_side):
            # Beside the project's own HIP switch: a build with it compiles the HIP branch instead. Converted and
            # marked all the same, for a build without it (a hazard there stays billed: convert leaves it).
            yield dataclasses.replace(finding, settled=True, off_amd=True)
        elif finding.status is not None:
            yield finding
        elif within(finding.span.start, parsed.cuda_side):
            changes = hazard or finding.fix is not None
            yield dataclasses.replace(finding, fix=None, message=f"{finding.message}; {CUDA_BRANCH}", advice=CUDA_BRANCH,
                                      settled=True, off_amd=True) if changes \
                else dataclasses.replace(finding, settled=True, off_amd=True)
        elif (hazard or finding.code == CUDA_BRANCH_CODE) and \
                any(finding.span.start <= span.start < finding.span.end for span in beside_hip):
            yield dataclasses.replace(finding, settled=True)  # the test itself: its chain tests for HIP
        else:
            yield finding


def own_hip_layer(header: str, kept: bool = False) -> str:
    if kept:
        return (f"defined for HIP by the project's own HIP layer {header}, which its HIP build compiles: no work there "
                "(convert leaves it to the layer: its definition is more than a rename)")
    return (f"defined for HIP by the project's own HIP layer {header}, which its HIP build compiles: no work there "
            "(convert renames it all the same, for a build without the layer)")


def layer_header(name: str, layer: Mapping[str, str]) -> str | None:
    """The layer's file that defines `name` for HIP: the name's own, or its namespace's (`cuda::std::atomic` where the
    layer aliases `cuda::std`)."""
    parts = name.split("::")
    return next((layer[prefix] for end in range(len(parts), 0, -1) if (prefix := "::".join(parts[:end])) in layer), None)


def settle_by_hip_layer(finding: Finding, layer: Mapping[str, str], kept: bool = False) -> Finding:
    """A use of a CUDA name the project's own HIP layer defines as HIP's where the file sees it (`layer`: name -> the
    layer's file, run/scope.py: HipLayer), settled, saying which file maps it: its HIP build already compiles HIP's
    name there, so the use is listed but no work. Its fix stays, renaming it means the same under the layer; but
    not where the layer defines it as more than a rename (`kept`: a function-like macro, another body), which the
    rename would bypass (kaldi's const_cast in `cublasStrsm_v2(...)`)."""
    header = layer_header(finding.name, layer) if finding.status is not None and not finding.settled else None
    if header is None:
        return finding
    # Named from the file (`../hip/hipify.h`): the same words in the converted tree, so converting it again adds no
    # second marker.
    why = own_hip_layer(os.path.relpath(header, os.path.dirname(finding.path) or os.curdir), kept)
    return dataclasses.replace(finding, message=f"{finding.message}; {why}", advice=why, settled=True, hip_layer=header,
                               fix=None if kept else finding.fix)
