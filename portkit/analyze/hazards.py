"""Semantic hazards: code that compiles for AMD and then gives wrong answers or no speed.

Each check is a small function over one file's occurrences; the texts (what is
wrong, how to fix it) live with the codes in rules/_codes.yaml. The 32-lane warp
assumptions are in warps.py; this module has the rest (shared memory, compute
capabilities, launches, cooperative groups, graphs, Hopper features) and the
helpers both use.
"""
from __future__ import annotations

import bisect
import dataclasses
import re
from typing import Callable, Collection, Iterator

from portkit import codes
from portkit.analyze.arch_branches import amd_device_reading
from portkit.analyze.constants import ELEMENT_BYTES, evaluate, split_arguments
from portkit.analyze.findings import simple_finding
from portkit.analyze.registry import Context, analyzer
from portkit.codes import CODES
from portkit.model import (
    CallFacts, FieldFacts, Finding, FunctionFacts, NameFacts, Occurrence, ParsedFile, Role as K, SharedArrayFacts, ValueFacts,
)
from portkit.rules.build_facts import build_facts

LDS_BYTES = 64 * 1024
# Number literals the parser reports in binary expressions (warp size and its masks), by operator.
WARP_LITERALS = frozenset({"32", "31", "5", "0x1f", "0x1F", "0x1fu", "0x1Fu", "32u", "31u", "5u"})
WARP_OPERATORS = {"/": ("32", "32u"), "%": ("32", "32u"), "&": ("31", "31u", "0x1f", "0x1F", "0x1fu", "0x1Fu"),
                  ">>": ("5", "5u"), "==": ("31", "31u"), "!=": ("31", "31u")}
# Of those, the comparisons: `lane == 31` takes lane 31 for a warp's last; only a lane id's is about lanes.
WARP_COMPARISONS = frozenset({"==", "!="})
# Cooperative launches and multi-device grids; a grid_group itself is only a hazard when it syncs.
COOPERATIVE = {"cudaLaunchCooperativeKernel", "cudaLaunchCooperativeKernelMultiDevice", "this_multi_grid",
               "multi_grid_group", "cudaCooperativeLaunch", "cudaLaunchAttributeCooperative"}
STREAM_PRIORITY = {"cudaStreamCreateWithPriority", "cudaDeviceGetStreamPriorityRange", "cudaStreamGetPriority"}
HOPPER = {"__cluster_dims__", "this_cluster", "cluster_group", "cudaLaunchKernelEx", "cudaFuncAttributeClusterDimMustBeSet",
          "cudaFuncAttributeNonPortableClusterSizeAllowed", "cudaLaunchAttributeClusterDimension",
          "cuTensorMapEncodeTiled", "cuTensorMapEncodeIm2col", "CUtensorMap", "cudaOccupancyMaxActiveClusters",
          "cudaOccupancyMaxPotentialClusterSize"}
DEVICE_PROPERTY_FIELDS = {"warpSize", "major", "minor", "multiProcessorCount", "sharedMemPerBlock",
                          "sharedMemPerBlockOptin", "sharedMemPerMultiprocessor", "regsPerBlock", "regsPerMultiprocessor",
                          "maxThreadsPerMultiProcessor", "l2CacheSize", "maxBlocksPerMultiProcessor"}
# Device attributes that read the compute capability, which on AMD is the gfx generation as cudaDeviceProp::major/minor
# are (HIP's spellings too: a file converted already).
CAPABILITY_ATTRIBUTES = {"cudaDevAttrComputeCapabilityMajor", "cudaDevAttrComputeCapabilityMinor",
                         "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR", "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR",
                         "hipDeviceAttributeComputeCapabilityMajor", "hipDeviceAttributeComputeCapabilityMinor"}
# Calls that fill a compute capability's major and minor (the driver API's, deprecated since CUDA 9.2, and HIP's).
CAPABILITY_CALLS = {"cuDeviceComputeCapability", "hipDeviceComputeCapability"}
TEXTURE_TEMPLATES = {"texture", "surface"}
# Names the hazards look at: the parser must keep them even though no rule maps them.
INTERESTING_NAMES = frozenset(COOPERATIVE | STREAM_PRIORITY | HOPPER | DEVICE_PROPERTY_FIELDS | TEXTURE_TEMPLATES
                              | CAPABILITY_ATTRIBUTES | CAPABILITY_CALLS
                              | {"warpSize", "cudaFuncSetAttribute", "cudaFuncAttributeMaxDynamicSharedMemorySize",
                                 "this_grid", "grid_group", "sync"})


def device_code(parsed: ParsedFile, host_too: bool = True) -> Callable[[Occurrence], bool]:
    """Whether an occurrence is inside a kernel or __device__ function: where device-only hazards can be
    (`host_too=False`: not a __host__ __device__ one, whose host path may be what the code runs).

    By span, not by name: a host function that shares a kernel's name (an overload) is host code.
    Function definitions do not nest, so the last one starting before an offset is the only candidate.
    """
    spans = sorted((o.span.start, o.span.end) for o in parsed.of(K.KERNEL, K.DEVICE_FUNCTION)
                   if host_too or "__host__" not in o.facts(FunctionFacts).spaces.split())
    starts = [start for start, _ in spans]

    def inside(o: Occurrence) -> bool:
        index = bisect.bisect_right(starts, o.span.start) - 1
        return index >= 0 and o.span.start < spans[index][1]
    return inside


def hazard(parsed: ParsedFile, occurrence: Occurrence, code: str, message: str, shadowable: bool = False) -> Finding:
    return simple_finding(parsed.path, occurrence, code, message, CODES[code].fix, shadowable)


def calls(parsed: ParsedFile, names: Collection[str] | re.Pattern[str]) -> Iterator[Occurrence]:
    """The calls of `names`, and of the file's macros that spell one (`#define SHFL_UP_SYNC __shfl_up_sync`): `called`
    gives the name each calls."""
    named: Callable[[str], object] = names.match if isinstance(names, re.Pattern) else names.__contains__
    for o in parsed.of(K.CALL):
        if named(o.text) or (alias := o.facts(CallFacts).stands_for) and named(alias):
            yield o


def called(o: Occurrence) -> str:
    """The name a call calls: its own, or the one the macro it spells stands for."""
    return o.facts(CallFacts).stands_for or o.text


def _static_shared_bytes(parsed: ParsedFile, constants: dict[str, str]) -> dict[str, tuple[int, Occurrence]]:
    """Per function, the bytes of its __shared__ arrays whose sizes are known, and the first of them."""
    per_function: dict[str, tuple[int, Occurrence]] = {}
    for o in parsed.of(K.SHARED_ARRAY):
        if o.facts(SharedArrayFacts).extern:
            continue
        size = ELEMENT_BYTES.get(o.facts(SharedArrayFacts).type)
        for dim in (evaluate(v, constants) for v in o.facts(SharedArrayFacts).dims):
            size = size * dim if size is not None and dim is not None else None
        if size is not None:
            total, first = per_function.get(o.function, (0, o))
            per_function[o.function] = (total + size, first)
    return per_function


_FUNC_ATTRIBUTES = {"cudaFuncSetAttribute"}
_PRIORITY_STREAMS = {"cudaStreamCreateWithPriority"}


@analyzer("source", codes=(codes.SHARED_MEMORY_OVER_64K, codes.DYNAMIC_SHARED_MEMORY_OPT_IN), arguments_of=_FUNC_ATTRIBUTES)
def shared_memory(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    constants = parsed.constants
    for function, (total, first) in sorted(_static_shared_bytes(parsed, constants).items()):
        if total > LDS_BYTES:
            where = f"in {function}" if function else "at file scope"
            yield hazard(parsed, first, codes.SHARED_MEMORY_OVER_64K,
                         f"{total // 1024} KiB of static shared memory {where} (AMD LDS: 64 KiB)")
    for o in parsed.of(K.LAUNCH):
        config = split_arguments(o.detail)
        value = evaluate(config[2], constants) if len(config) > 2 else None
        if value is not None and value > LDS_BYTES:
            yield hazard(parsed, o, codes.SHARED_MEMORY_OVER_64K,
                         f"{o.text} is launched with {value // 1024} KiB of dynamic shared memory (AMD LDS: 64 KiB)")
    for o in calls(parsed, _FUNC_ATTRIBUTES):
        if o.facts(CallFacts).arg(1) == "cudaFuncAttributeMaxDynamicSharedMemorySize":
            value = evaluate(o.facts(CallFacts).arg(2), constants)
            if value is not None and value > LDS_BYTES:
                yield hazard(parsed, o, codes.SHARED_MEMORY_OVER_64K,
                             f"{value // 1024} KiB of dynamic shared memory requested (AMD LDS: 64 KiB)")
            else:
                yield hazard(parsed, o, codes.DYNAMIC_SHARED_MEMORY_OPT_IN,
                             f"dynamic shared memory limit raised to {o.facts(CallFacts).arg(2)}")


@analyzer("source", codes=(codes.COMPUTE_CAPABILITY_CHECK,))
def compute_capability_checks(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    facts = build_facts()
    tests = [o for o in parsed.of(K.FIELD) if _capability_test(o)]
    legacy_lines = {o.position.line for o in tests if o.text == "major" and _legacy(o)}
    current_lines = {o.position.line for o in tests if o.text == "major" and not _legacy(o)}
    lines: set[int] = set()  # `major == 7 && minor >= 5` is one test: one finding a line
    for o in parsed.of(K.PREPROCESSOR_CONDITION, K.FIELD):
        if o.role is K.PREPROCESSOR_CONDITION:
            for match in re.finditer(r"__CUDA_ARCH__\s*(>=|>|<=|<|==|!=)\s*(\d{3,4})", o.text):
                capability = str(int(match.group(2)) // 10)
                yield hazard(parsed, o, codes.COMPUTE_CAPABILITY_CHECK,
                             f"'{match.group()}' tests an NVIDIA generation; the nearest AMD target: {facts.describe(capability)}")
        elif _capability_test(o) and o.position.line not in lines and _uses_device_properties(parsed) \
                and (o.position.line in current_lines or o.position.line not in legacy_lines):
            lines.add(o.position.line)
            yield hazard(parsed, o, codes.COMPUTE_CAPABILITY_CHECK,
                         f".{o.text} {o.facts(FieldFacts).operator} {o.facts(FieldFacts).other} tests an NVIDIA generation; "
                         "on AMD it is the gfx generation")
    valued: set[int] = set()  # `(__CUDA_ARCH__ >= 860 && __CUDA_ARCH__ <= 890)`: one finding a line
    for o in parsed.of(K.IDENTIFIER, K.MACRO_BODY):
        compared = o.facts(NameFacts).valued if o.text == "__CUDA_ARCH__" else ""
        if compared and o.position.line not in valued:
            valued.add(o.position.line)
            number = compared.split(maxsplit=1)[-1]  # `>= 800`, or an expression (`>= MIN_ARCH * 10`)
            nearest = f"; the nearest AMD target: {facts.describe(str(int(number) // 10))}" if number.isdigit() else ""
            reading = amd_device_reading(compared) if o.role is K.IDENTIFIER else None
            if reading is None:
                yield hazard(parsed, o, codes.COMPUTE_CAPABILITY_CHECK,
                             f"'{o.text} {compared}' tests an NVIDIA generation where its value is read (a #define body "
                             f"or code){nearest}")
                continue
            written = f"written as AMD's device pass reads it, {reading[0]} ({reading[1]})"
            finding = hazard(parsed, o, codes.COMPUTE_CAPABILITY_CHECK,
                             f"'{o.text} {compared}' tests an NVIDIA generation in code: {written}{nearest}")
            yield dataclasses.replace(finding, advice=f"{written}; {CODES[codes.COMPUTE_CAPABILITY_CHECK].fix}")


_COMPARISONS = {">=", ">", "<=", "<", "==", "!="}
# Tests against generations before Kepler (3.x) ask "a CUDA GPU at all", "double precision", "__shfl":
# every GPU HIP runs on answers them as meant.
_LEGACY_MAJOR = 3


def _capability_test(o: Occurrence) -> bool:
    """`prop.major >= 7`, `prop.minor == 5`."""
    return o.role is K.FIELD and o.text in ("major", "minor") and o.facts(FieldFacts).operator in _COMPARISONS


def _legacy(o: Occurrence) -> bool:
    """`major < 3`, `major >= 2`, `major == 1`: a test of a generation before Kepler."""
    value = evaluate(o.facts(FieldFacts).other)
    bound = value + 1 if value is not None and o.facts(FieldFacts).operator in ("<=", ">") else value
    return bound is not None and bound <= _LEGACY_MAJOR


def _uses_device_properties(parsed: ParsedFile) -> bool:
    return any(o.text in ("cudaDeviceProp", "cudaGetDeviceProperties", "hipDeviceProp_t") for o in parsed.occurrences)


@analyzer("source", codes=(codes.DYNAMIC_PARALLELISM,))
def dynamic_parallelism(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    """Kernel launches, and calls of CUDA's device runtime (cudaMalloc, streams, events), in device code: convert
    renames such a call to a HIP function that only the host has."""
    if not parsed.device_functions:
        return  # no device code (most host files)
    device = device_code(parsed)
    for o in parsed.of(K.LAUNCH):
        if device(o):
            yield hazard(parsed, o, codes.DYNAMIC_PARALLELISM, f"{o.function} launches {o.text} from device code")
    device_only = device_code(parsed, host_too=False)
    for o in parsed.of(K.CALL):
        rule = context.rules.lookup(o.text)
        if rule is not None and rule.library == "cuda-runtime" and rule.kind == "function" \
                and o.text not in context.project_names and device_only(o):
            yield hazard(parsed, o, codes.DYNAMIC_PARALLELISM, f"{o.function} calls the CUDA runtime's {o.text} in "
                         "device code", shadowable=True)


@analyzer("source", codes=(codes.TEXTURE_REFERENCE,))
def textures(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    for o in parsed.of(K.TYPE):
        if o.text in TEXTURE_TEMPLATES and o.text not in context.project_names:
            yield hazard(parsed, o, codes.TEXTURE_REFERENCE, f"{o.text}<> reference", shadowable=True)


_NAMED_ROLES = frozenset({K.CALL, K.TYPE, K.IDENTIFIER, K.QUALIFIED, K.MACRO_BODY})


def _named(parsed: ParsedFile, names: set[str], code: str, message: str, context: Context) -> Iterator[Finding]:
    lines: set[int] = set()  # `cg::grid_group g = cg::this_grid();` is one use
    for o in parsed.of(*_NAMED_ROLES):
        if o.text.rpartition("::")[2] in names \
                and o.text not in context.project_names and o.position.line not in lines:
            lines.add(o.position.line)
            yield hazard(parsed, o, code, message.format(name=o.text), shadowable=True)


@analyzer("source", codes=(codes.COOPERATIVE_LAUNCH,), reads=(K.INITIALIZER,))
def cooperative(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    """Cooperative launches and grid-wide barriers (`grid.sync()`) need every block resident at once.
    A grid_group used only for its rank and size (grid-stride loops) needs nothing of the kind."""
    yield from _named(parsed, COOPERATIVE, codes.COOPERATIVE_LAUNCH, "{name}: grid-wide cooperation depends on AMD occupancy", context)
    syncs = [o for o in parsed.of(K.FIELD) if o.text == "sync"]
    grids = {o.text for o in parsed.of(K.INITIALIZER) if "this_grid" in o.facts(ValueFacts).value} if syncs else set()
    for o in syncs:
        if o.facts(FieldFacts).object in grids or re.search(r"(?i)grid", o.facts(FieldFacts).object):
            yield hazard(parsed, o, codes.COOPERATIVE_LAUNCH,
                         f"{o.facts(FieldFacts).object}.sync(): a grid-wide barrier needs every block resident (AMD occupancy differs)")


@analyzer("source", codes=(codes.CUDA_GRAPHS,))
def graphs(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    """Once a file, at its first graph call: each call's own mapping is its API finding."""
    calls = [o for o in parsed.of(K.CALL) if (o.text == "cudaStreamBeginCapture"
             or o.text.startswith("cudaGraph") and not o.text.startswith("cudaGraphics"))]  # cudaGraphics*: GL interop
    if calls:
        names = sorted({o.text for o in calls})
        yield hazard(parsed, calls[0], codes.CUDA_GRAPHS, f"{len(calls)} CUDA graph calls ({', '.join(names[:4])}"
                                                          f"{', ...' if len(names) > 4 else ''}): check hipGraph coverage")


@analyzer("source", codes=(codes.STREAM_PRIORITY,), arguments_of=_PRIORITY_STREAMS)
def stream_priorities(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    """A stream created with a fixed priority number; one from cudaDeviceGetStreamPriorityRange is portable."""
    for o in calls(parsed, _PRIORITY_STREAMS):
        if evaluate(o.facts(CallFacts).arg(2), parsed.constants) is not None:
            yield hazard(parsed, o, codes.STREAM_PRIORITY, f"{o.text}(..., {o.facts(CallFacts).arg(2)}): AMD's priority range differs; "
                                                           "take the value from cudaDeviceGetStreamPriorityRange")


# Calls and operators that only show a value: printing a compute capability is harmless.
_SHOWN = re.compile(r"(?i)print|log|puts|cerr|cout|format|fmt|write|str\b|message|to_string|string")


@analyzer("source", codes=(codes.DEVICE_PROPERTY_MEANING,))
def device_properties(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    """A compute capability used as a number (`major * 10 + minor`, `"sm_" + to_string(major)`, `switch (major)`),
    and every read of it through a device attribute (`cudaDevAttrComputeCapabilityMajor`) or the driver API's
    `cuDeviceComputeCapability`, whose values are not followed to their uses: on AMD both hold the gfx generation.

    Fields that carry AMD's own values (multiProcessorCount, warpSize, sharedMemPerBlock...) are right
    to size work with on AMD, and printing any field is harmless: neither is reported.
    """
    lines: set[int] = set()
    for o in _capability_fields(parsed):
        if o.position.line not in lines:
            lines.add(o.position.line)
            yield hazard(parsed, o, codes.DEVICE_PROPERTY_MEANING,
                         f".{o.text} used as a compute capability; on AMD it holds the gfx generation")
    for o in parsed.of(K.IDENTIFIER):  # an attribute is an argument: the identifiers alone, a third of the names to walk
        if o.text in CAPABILITY_ATTRIBUTES and o.text not in context.project_names and o.position.line not in lines:
            lines.add(o.position.line)
            yield hazard(parsed, o, codes.DEVICE_PROPERTY_MEANING,
                         f"{o.text} reads the compute capability; on AMD it holds the gfx generation (9.0 for gfx90a)",
                         shadowable=True)
    for o in parsed.of(K.CALL):
        if o.text in CAPABILITY_CALLS and o.text not in context.project_names and o.position.line not in lines:
            lines.add(o.position.line)
            yield hazard(parsed, o, codes.DEVICE_PROPERTY_MEANING,
                         f"{o.text} reads the compute capability; on AMD it gives the gfx generation (9, 0 for gfx90a)",
                         shadowable=True)


def _capability_fields(parsed: ParsedFile) -> Iterator[Occurrence]:
    """`prop.major` and `prop.minor` read as numbers: not compared (PK320), printed, or written."""
    fields = [o for o in parsed.of(K.FIELD) if o.text in ("major", "minor")]
    if not fields or not _uses_device_properties(parsed):  # the fields first: the test reads every occurrence
        return
    for o in fields:
        use = o.facts(FieldFacts)
        if use.operator not in _COMPARISONS and use.operator != "<<" and not _SHOWN.search(use.calls) and not use.assigned:
            yield o


@analyzer("source", codes=(codes.LAUNCH_BOUNDS,), reads=(K.LAUNCH_BOUNDS,))
def launch_bounds(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    for o in parsed.of(K.LAUNCH_BOUNDS):
        # A minimum of 1 (wave per execution unit, for HIP) constrains nothing.
        if o.facts(CallFacts).arg(1) and evaluate(o.facts(CallFacts).arg(1), parsed.constants) != 1:
            yield hazard(parsed, o, codes.LAUNCH_BOUNDS, f"{o.text}: HIP reads the second argument as waves per execution unit")


@analyzer("source", codes=(codes.HOPPER_ONLY,))
def hopper(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    yield from _named(parsed, HOPPER, codes.HOPPER_ONLY, "{name} is Hopper-only", context)
