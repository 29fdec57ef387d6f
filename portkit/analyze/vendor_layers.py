"""A project's layer for another vendor's CUDA-like API, left as written.

llama.cpp's ggml-cuda/vendors/musa.h includes <musa_runtime.h> and maps CUDA's names onto Moore Threads' API
(`#define CUBLAS_COMPUTE_16F CUDA_R_16F`, `#define cudaMalloc musaMalloc`). Only MUSA's compiler reads it: no
HIP build does, and HIP's spellings there would only break the MUSA build. So its findings carry no rewrite (the
layers are data: rules/_vendor_headers.yaml; parse/vendor_layers.py tells them).
"""
from __future__ import annotations

import dataclasses
from typing import Iterable, Iterator

from portkit.model import Finding, ParsedFile
from portkit.parse.vendor_layers import OTHER_VENDOR

OTHER_VENDORS_LAYER = ("left as written: the project's layer for another vendor's CUDA-like API (it includes that "
                       "vendor's runtime header), which only that vendor's compiler reads")


def leave_other_vendors_layer(parsed: ParsedFile, findings: Iterable[Finding]) -> Iterator[Finding]:
    """`findings` with no rewrite where the file is another vendor's layer."""
    if parsed.vendor_layer != OTHER_VENDOR:
        yield from findings
        return
    for finding in findings:
        if finding.fix is not None:
            finding = dataclasses.replace(finding, fix=None, message=f"{finding.message}; {OTHER_VENDORS_LAYER}",
                                          advice=OTHER_VENDORS_LAYER)
        yield finding
