"""Names a project's own NVIDIA side keeps: a project with HIP branches of its own (`#if defined(__HIP_PLATFORM_AMD__)`
... `thrust::hip::par` ... `#else` ... `thrust::cuda::par` ... `#endif`) keeps in the branch hipcc never compiles for
AMD (ParsedFile.nvidia_side) the code its NVIDIA builds compile. There a name of a library whose HIP spellings only
AMD has (its rule file's `hip_amd_only`: rocThrust's thrust::hip::par) stays as written: HIP on NVIDIA builds with
NVIDIA's library (Thrust), which has no such name. A name HIP on NVIDIA maps back to CUDA's (hipMalloc) is renamed
there as anywhere.
"""
from __future__ import annotations

import dataclasses
from typing import Iterable, Iterator

from portkit.analyze.registry import Context
from portkit.model import Finding, ParsedFile
from portkit.textutil import within

# What a name left as written here says, in its marker: the one marker the NVIDIA side keeps (convert/markers.py).
KEPT_FOR_NVIDIA = "Left as written: hipcc never compiles this branch for AMD, and NVIDIA builds compile it with "


def kept_for_nvidia(finding: Finding) -> bool:
    """Whether the finding is a name `keep_nvidia_side` left as written, saying why."""
    return finding.advice.startswith(KEPT_FOR_NVIDIA)


def keep_nvidia_side(parsed: ParsedFile, findings: Iterable[Finding], context: Context) -> Iterator[Finding]:
    """`findings`, with no rewrite of a name to an AMD-only HIP spelling in the file's NVIDIA side, and saying why."""
    if not parsed.nvidia_side:
        yield from findings
        return
    for finding in findings:
        renamed = finding.hip and finding.hip != finding.name
        library = context.rules.libraries.get(finding.library) if renamed else None
        if library is not None and library.hip_amd_only and within(finding.span.start, parsed.nvidia_side):
            why = (f"left as written in the project's NVIDIA side (a branch hipcc never compiles for AMD): "
                   f"{finding.hip} is {library.hip_library}'s, and HIP on NVIDIA builds with {library.title}")
            advice = f"{KEPT_FOR_NVIDIA}{library.title}, which has no {finding.hip}."
            finding = dataclasses.replace(finding, fix=None, message=f"{finding.message}; {why}", advice=advice)
        yield finding
