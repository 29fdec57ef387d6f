"""A project's layer for another vendor's CUDA-like API, left as written.

llama.cpp's ggml-cuda/vendors/musa.h includes <musa_runtime.h> and maps CUDA's names onto Moore Threads' API
(`#define CUBLAS_COMPUTE_16F CUDA_R_16F`, `#define cudaMalloc musaMalloc`). Only MUSA's compiler reads it: no
HIP build does, and HIP's spellings there would only break the MUSA build. So its findings carry no rewrite, and are
settled: no work for the port, billed nowhere. So are a SYCL file's (DeepSpeed's csrc/xpu, migrated from CUDA with
leftover warp code), which only a SYCL compiler reads. The layers are data: rules/_vendor_headers.yaml;
parse/vendor_layers.py tells them.
"""
from __future__ import annotations

import dataclasses
from typing import Iterable, Iterator

from portkit.model import Finding, ParsedFile
from portkit.parse.vendor_layers import OTHER_VENDOR

OTHER_VENDORS_LAYER = ("left as written: the project's code for another vendor's CUDA-like API or another programming "
                       "model (it includes that vendor's runtime header, or SYCL's), which only that compiler reads")


def leave_other_vendors_layer(parsed: ParsedFile, findings: Iterable[Finding]) -> Iterator[Finding]:
    """`findings` with no rewrite, settled and saying why, where the file is another vendor's layer."""
    if parsed.vendor_layer != OTHER_VENDOR:
        yield from findings
        return
    for finding in findings:
        yield dataclasses.replace(finding, fix=None, message=f"{finding.message}; {OTHER_VENDORS_LAYER}",
                                  advice=OTHER_VENDORS_LAYER, settled=True, off_amd=True)


def for_another_compiler(finding: Finding) -> bool:
    """Whether a finding is in another vendor's layer (`leave_other_vendors_layer`): convert marks nothing there."""
    return finding.advice == OTHER_VENDORS_LAYER
