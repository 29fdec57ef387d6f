"""Finding codes and statuses: the one place code names them.

Codes are stable ids, never reused; their texts, severities and groups live in
rules/_codes.yaml. Code elsewhere refers to a code through the constants below
(named after the code's name in that file), never by spelling "PK...".
"""
from __future__ import annotations

import dataclasses
import enum
import re

from portkit.model import Severity
from portkit.resources import load_data


class Status(str, enum.Enum):
    """What a CUDA name becomes on HIP. A rule has one of the first four; a target
    version can turn a supported name "unavailable" (HIP has it, the target release not)."""

    SUPPORTED = "supported"
    PARTIAL = "partial"
    UNSUPPORTED = "unsupported"
    REMOVED = "removed"
    UNAVAILABLE = "unavailable"

    def __str__(self) -> str:
        return self.value


RULE_STATUSES = (Status.SUPPORTED, Status.PARTIAL, Status.UNSUPPORTED, Status.REMOVED)
ALL_STATUSES = tuple(Status)
# Everything but a clean mapping needs someone to look at it.
ATTENTION_STATUSES = tuple(s for s in Status if s is not Status.SUPPORTED)
# Statuses whose HIP spelling convert writes when there is one (with a marker unless supported).
RENAMED_STATUSES = (Status.SUPPORTED, Status.PARTIAL, Status.UNAVAILABLE, Status.REMOVED)
# What `portkit check` may block on: a status, or "unbuildable": whatever hipcc cannot build even after
# convert's renames (inline PTX, a name HIP lacks at the target, a CUDA-only header).
UNBUILDABLE = "unbuildable"
BLOCKING_CHOICES = (*(s.value for s in ALL_STATUSES), UNBUILDABLE)
DEFAULT_BLOCKING = (Status.UNSUPPORTED.value, UNBUILDABLE)
# The library of inline-asm findings: convert never rewrites an asm block.
ASM_LIBRARY = "ptx"


@dataclasses.dataclass(frozen=True)
class Group:
    prefix: str  # "PK3"
    key: str  # "hazard"
    title: str
    intro: str = ""


@dataclasses.dataclass(frozen=True)
class Code:
    code: str
    name: str
    severity: Severity
    summary: str
    group: str  # the Group's key
    explanation: str = ""
    fix: str = ""
    status: Status | None = None  # for the API codes: the status the code reports
    alert: bool = True  # False: plain inventory or a clean mapping, not an alert (SARIF)


def _parse(data: dict) -> tuple[dict[str, Group], dict[str, Code]]:
    groups = {prefix: Group(prefix, g["key"], g["title"], g.get("intro", "")) for prefix, g in data["groups"].items()}
    codes = {}
    for code, entry in data["codes"].items():
        if not re.fullmatch(r"PK\d{3}", code) or code[:3] not in groups:
            raise ValueError(f"bad code {code!r}")
        codes[code] = Code(code, entry["name"], Severity(entry["severity"]), entry["summary"], groups[code[:3]].key,
                           entry.get("explanation", ""), entry.get("fix", ""),
                           Status(entry["status"]) if "status" in entry else None, bool(entry.get("alert", True)))
    return groups, codes


GROUPS, CODES = load_data("_codes.yaml", _parse)
_BY_NAME = {c.name: c.code for c in CODES.values()}
_BY_STATUS = {c.status: c.code for c in CODES.values() if c.status is not None}


def code_for_status(status: Status) -> str:
    return _BY_STATUS[status]


def group_codes(key: str) -> tuple[str, ...]:
    """Every code of a group ("api", "hazard", "environment"...)."""
    return tuple(c.code for c in CODES.values() if c.group == key)


def in_group(code: str, key: str) -> bool:
    return CODES[code].group == key if code in CODES else False


def _named(name: str) -> str:
    return _BY_NAME[name]


API_UNKNOWN = _named("api-unknown")
API_UNSUPPORTED = _named("api-unsupported")
KERNEL = _named("kernel")
KERNEL_LAUNCH = _named("kernel-launch")
DEVICE_FUNCTION = _named("device-function")
CUDA_BRANCH = _named("cuda-preprocessor-branch")
HIP_PREAMBLE = _named("hip-preamble")
COORDINATE_ARGUMENT = _named("coordinate-argument")
REGISTER_STORAGE = _named("register-storage-class")
UINT3_AS_DIM3 = _named("uint3-as-dim3")
HALF_EMPTY_BRACES = _named("half-empty-braces")
LINKAGE_SPACE = _named("linkage-without-space")
MACRO_PRAGMA = _named("pragma-in-macro")
NVCC_PRAGMA = _named("nvcc-pragma")
UNUSED_HEADER = _named("unused-cuda-header")
WARP_SIZE_LITERAL = _named("warp-size-literal")
FULL_WARP_MASK = _named("full-warp-mask")
BALLOT_IN_32_BITS = _named("ballot-in-32-bits")
WARPSIZE_AS_CONSTANT = _named("warpsize-as-constant")
SHUFFLE_WIDTH_32 = _named("shuffle-width-32")
BLOCK_SIZE_UNDER_WAVEFRONT = _named("block-size-under-wavefront")
SHARED_MEMORY_OVER_64K = _named("shared-memory-over-64k")
DYNAMIC_SHARED_MEMORY_OPT_IN = _named("dynamic-shared-memory-opt-in")
COMPUTE_CAPABILITY_CHECK = _named("compute-capability-check")
DYNAMIC_PARALLELISM = _named("dynamic-parallelism")
TEXTURE_REFERENCE = _named("texture-reference")
COOPERATIVE_LAUNCH = _named("cooperative-launch")
CUDA_GRAPHS = _named("cuda-graphs")
STREAM_PRIORITY = _named("stream-priority")
DEVICE_PROPERTY_MEANING = _named("device-property-meaning")
LAUNCH_BOUNDS = _named("launch-bounds")
HOPPER_ONLY = _named("hopper-only-feature")
HIP_ALREADY_DEFINES = _named("hip-already-defines")
MERGED_OVERLOAD = _named("merged-overload")
EXECUTION_SPACE_MISMATCH = _named("execution-space-mismatch")
HANDLE_ARITHMETIC = _named("handle-arithmetic")
RUNTIME_KERNEL_SOURCE = _named("runtime-kernel-source")
NVRTC_OPTION = _named("nvrtc-option")
LIBRARY_SWITCH = _named("library-switch")
DEVICE_HOST_TWIN = _named("device-function-host-twin")
HALF_MATH_OVERLOAD = _named("half-math-overload")
CMAKE_CUDA_LANGUAGE = _named("cmake-cuda-language")
GPU_ARCHITECTURE = _named("gpu-architecture")
NVCC_FLAG = _named("nvcc-flag")
CUDA_PATH = _named("cuda-install-path")
FINDCUDA_VARIABLE = _named("findcuda-variable")
FINDCUDA_COMMAND = _named("findcuda-command")
FIND_CUDA = _named("cmake-find-cuda")
NVIDIA_TOOL = _named("nvidia-tool")
NVCC_COMPILER = _named("nvcc-compiler")
NVCC_OPTION = _named("nvcc-option")
CMAKE_HIP_LANGUAGE = _named("cmake-hip-language")
CONFIGURE_CUDA_SWITCH = _named("configure-cuda-switch")
TRY_CUDA_SOURCE = _named("cmake-try-cuda-source")
# What a name matched against the rules may be reported as: the code of its status (findings.rule_finding).
RULE_CODES = tuple(code_for_status(status) for status in Status)
