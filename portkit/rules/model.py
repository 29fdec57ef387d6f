"""The rule database's values: a library and its rules (rules/README.md has the schema)."""
from __future__ import annotations

import dataclasses

from portkit.codes import Status
from portkit.model import quick_init
from portkit.resources import load_data
from portkit.rules.versions import Resolution, Target, parse_version, resolve, roc_available

# What sort of CUDA name a rule describes.
KINDS = ("function", "type", "enum", "macro", "header", "link", "intrinsic", "asm", "field")
# Kinds indexed by something other than their CUDA name.
SPECIAL_KINDS = ("header", "link", "asm")


def _name_weights(data: dict) -> dict[Status, float]:
    return {Status(status): float(hours) for status, hours in data["per_name"].items()}


# Effort in person-hours per distinct name, by status (rules/_effort.yaml, fitted to real ports); a rule
# file's `weights`, or a rule's `weight`, overrides it.
DEFAULT_WEIGHTS = load_data("_effort.yaml", _name_weights)


@quick_init  # ~10,000 rules are built on every run
@dataclasses.dataclass(frozen=True)
class Rule:
    """One entry of a rule file, its keys as fields: those a file writes under `shape` (compare_as, hip_struct,
    hip_for_args, form_args, argument_of, older_hip_in, as_compute, coordinate_cast, compare_as_declarations:
    rules/validate.py SHAPE_KEYS) too."""

    cuda: str
    kind: str
    library: str
    status: Status
    hip: str = ""
    roc: str = ""
    note: str = ""
    action: str = ""
    weight: float = 0.0
    pattern: str = ""
    cmake: str = ""
    hip_cmake: str = ""
    cuda_added: str = ""
    cuda_deprecated: str = ""
    cuda_removed: str = ""
    # Whose releases the cuda_* versions number: "" for the CUDA toolkit's, else the library's own (cuDNN's), which
    # the targeted CUDA version does not speak for (the rule file's `versions_of`)
    versions_of: str = ""
    hip_added: str = ""
    hip_deprecated: str = ""
    hip_removed: str = ""
    hip_experimental: bool = False
    older_hip: str = ""  # what convert writes on a HIP older than hip_added (__ballot_sync -> __ballot)
    older_hip_drop_args: int = 0  # ... dropping this many leading call arguments (the mask)
    # Where HIP's spelling exists but works only from this version: before it convert writes older_hip as the same name,
    # supported (hipCUB's per-primitive headers compile alone from 6.3; before, hipcub/hipcub.hpp)
    older_hip_until: str = ""
    roc_added: str = ""
    hip_requires: str = ""  # for headers: a HIP header that must be included first
    hip_cxx_only: str = ""  # for headers: why HIP's compiles only as C++ on AMD (a C file that includes it does not build)
    hip_define: str = ""  # a macro HIP needs defined before its headers for this name
    hip_define_until: str = ""  # ... up to (not including) this HIP version
    cast_args: tuple[tuple[int, str], ...] = ()  # (argument index, type): HIP takes void* where CUDA has a template,
    # or overloads a function CUDA declares once (an int64_t passed to __ffsll: ambiguous in HIP)
    # (argument index, type): pointers CUDA takes const and the HIP spelling before const_args_until does not (hipBLAS's
    # trsm before ROCm 5.6): a const_cast there, for an older target
    const_args: tuple[tuple[int, str], ...] = ()
    const_args_until: str = ""
    # (argument index, value): trailing arguments CUDA's C++ API defaults and HIP requires (flags = 0)
    default_args: tuple[tuple[int, str], ...] = ()
    # (argument index, value): trailing arguments HIP's C++ overload defaults and its C declaration requires, written
    # in a C file (cudaMallocHost(p, n) is C; hipHostMalloc's flags default only in its C++ template)
    c_default_args: tuple[tuple[int, str], ...] = ()
    # For min/max: the type built-in coordinates passed as arguments are cast to (HIP's blockDim.x is a proxy object,
    # so min(unsigned, blockDim.x) is ambiguous under hipcc)
    coordinate_cast: str = ""
    mask_arg: int = -1  # the index of a lane-mask argument (64-bit on HIP), or -1
    symbol_arg: int = -1  # the index of an argument naming a device symbol (HIP_SYMBOL(x) in HIP), or -1
    compute_arg: int = -1  # the index of a cuBLAS call's compute type (cublasComputeType_t), or -1
    # (argument count, HIP name): a call with that many arguments is written with that name (CUDA 12's
    # cudaGraphInstantiate(exec, graph, flags) is hipGraphInstantiateWithFlags: HIP kept CUDA 11's signature)
    hip_for_args: tuple[tuple[int, str], ...] = ()
    # (argument index, CUDA type): a call passing that type there is `form_rule`'s form (CUDA 13's
    # cudaMemPrefetchAsync(ptr, n, cudaMemLocation, flags) is CUDA 12's cudaMemPrefetchAsync_v2; HIP kept the old one);
    # a type ending in `*` is a pointer to that type (atomicAdd(__half2*, __half2), an overload HIP lacks)
    form_args: tuple[tuple[int, str], ...] = ()
    form_rule: str = ""
    # (argument count, argument index): a call with that many arguments passing a null pointer at that index is
    # written without it; anything else there makes it `form_rule`'s form (CUDA 13 added edge data to the graph calls,
    # HIP kept CUDA 12's signatures: cudaGraphAddDependencies(g, from, to, NULL, n) is hipGraphAddDependencies(g, from, to, n))
    null_args: tuple[tuple[int, int], ...] = ()
    # For a type HIP declares as a typedef of a differently named struct: what `struct cudaX` becomes
    # (`struct cudaGraphicsResource` -> `struct _hipGraphicsResource`; `struct hipGraphicsResource` is an error)
    hip_struct: str = ""
    # (CUDA call, rule): a constant passed to that call is that rule's name, of the same value (cudaGraphicsMapFlags*
    # given to cudaGraphicsGLRegisterBuffer, whose parameter takes cudaGraphicsRegisterFlags, which HIP has)
    argument_of: tuple[tuple[str, str], ...] = ()
    # (CUDA call, name): passed to that call where convert writes the call's older_hip, the constant is that name (the
    # older call takes another enum: CUDA_R_16F given to cublasGemmEx is HIPBLAS_R_16F for hipblasGemmEx before HIP 6.0)
    older_hip_in: tuple[tuple[str, str], ...] = ()
    # A cudaDataType constant: the entry (cublasComputeType_t) cuBLAS takes it for where old code passes it as a
    # call's compute type (its `compute_arg`), where convert writes the call's `hip` (CUDA_R_32F: CUBLAS_COMPUTE_32F,
    # so HIPBLAS_COMPUTE_32F for hipblasGemmEx_v2, whose compute type is no hipDataType)
    as_compute: str = ""
    compare_as: str = ""  # for a version macro compared with a number in #if: what AMD device code tests instead
    # ... where the branch only declares device functions: a test that holds in AMD's host pass as well (clang parses
    # kernel bodies there, which call them)
    compare_as_declarations: str = ""
    # A macro whose value is a CUDA version number (CUDART_VERSION): compared with a number in #if it stays as written.
    # Undefined under hipcc, it reads 0 there as in the original; HIP_VERSION >= 12000 would be true on every HIP.
    keep_compared: bool = False
    drop: bool = False  # a qualifier HIP has no use for (nvcc's __device_builtin__): convert deletes it
    c_library: bool = False  # also a C/C++ library name (floor, y0, min): CUDA's only in device code
    # CUDA declares it for host code too, HIP for device code only (rsqrtf): what host code writes instead.
    cuda_host: str = ""
    helper: str = ""  # a helper (rules/_helpers.yaml) a file using the name needs: overloads CUDA has and HIP lacks
    hip_pointer: bool = False  # a type that is an integer in CUDA and a pointer in HIP (CUdeviceptr; hipDeviceptr_t is void*)
    # For a header HIP lacks: the CUDA names only it brings (cooperative_groups/reduce.h: cooperative_groups::reduce...).
    # An include of it whose translation units use none of them is dead (analyze/unused_headers.py).
    declares: tuple[str, ...] = ()
    # For a header: the CUDA headers it includes whose names its includers may use without including them
    # (cublas_api.h brings cuda_fp16.h and cuda_bf16.h), and the HIP headers its HIP header includes (rccl.h brings
    # hip/hip_fp16.h). What HIP's lacks, convert includes beside it where the names are used (analyze/brought_headers.py).
    cuda_brings: tuple[str, ...] = ()
    hip_brings: tuple[str, ...] = ()
    source: str = ""

    def resolve(self, target: Target) -> Resolution:
        return resolve(self, target)

    def roc_available(self, target: Target) -> bool:
        return roc_available(self, target)

    def define_for(self, target: Target) -> str:
        """The macro to define before the HIP headers for this name under `target`, or ""."""
        if not self.hip_define:
            return ""
        if self.hip_define_until and (target.rocm is None or target.rocm >= parse_version(self.hip_define_until)):
            return ""  # that release has it on by default
        return self.hip_define


@dataclasses.dataclass(frozen=True)
class Library:
    id: str
    title: str
    hip_library: str
    roc_library: str
    weights: dict[str, float]  # effort in person-hours per distinct name, by status
    source: str
    vendored: bool = False  # no CUDA header declares its names: projects copy its code in (the CUDA Samples' helpers)
    # Its HIP spellings exist only on AMD (rocThrust's thrust::hip): HIP on NVIDIA builds with NVIDIA's library
    hip_amd_only: bool = False
