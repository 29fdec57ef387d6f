"""Finding codes: stable, never reused, documented in docs/codes.md.

PK1xx: a CUDA name matched against the rule database (the code says its status).
PK2xx: inventory of GPU code: kernels, launches, architecture branches.
PK4xx: build files and environment.
"""
from __future__ import annotations

import dataclasses

from portkit.model import Severity


@dataclasses.dataclass(frozen=True)
class Code:
    code: str
    name: str
    severity: Severity
    summary: str


CODES = {c.code: c for c in (
    Code("PK100", "api-supported", Severity.INFO, "CUDA name with a direct HIP/ROCm equivalent"),
    Code("PK101", "api-partial", Severity.WARNING, "CUDA name whose HIP/ROCm equivalent differs in behaviour or coverage"),
    Code("PK102", "api-unsupported", Severity.ERROR, "CUDA name with no HIP/ROCm equivalent"),
    Code("PK103", "api-removed", Severity.ERROR, "CUDA name removed from CUDA itself"),
    Code("PK104", "api-unavailable", Severity.ERROR, "HIP equivalent exists, but not in the targeted ROCm version"),
    Code("PK105", "api-unknown", Severity.WARNING, "CUDA-looking name that no rule knows"),
    Code("PK200", "kernel", Severity.INFO, "__global__ kernel definition"),
    Code("PK201", "kernel-launch", Severity.INFO, "kernel launch with <<<...>>>"),
    Code("PK202", "device-function", Severity.INFO, "__device__ function definition"),
    Code("PK203", "cuda-preprocessor-branch", Severity.WARNING, "#if/#ifdef on __CUDA_ARCH__, __CUDACC__, CUDART_VERSION or __NVCC__"),
    Code("PK401", "gpu-architecture", Severity.INFO, "NVIDIA GPU architecture a build file targets, with the AMD counterpart"),
)}

STATUS_CODES = {
    "supported": "PK100",
    "partial": "PK101",
    "unsupported": "PK102",
    "removed": "PK103",
    "unavailable": "PK104",
}
