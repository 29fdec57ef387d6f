"""Semantic hazards: code that compiles for AMD and then gives wrong answers or no speed.

Each check is a small function over one file's occurrences; the texts (what is
wrong, how to fix it) live with the codes in rules/_codes.yaml.
"""
from __future__ import annotations

import ast
import re
from typing import Iterable, Iterator

from portkit import codes
from portkit.analyze.findings import FULL_MASKS_32, simple_finding
from portkit.analyze.registry import Context, analyzer
from portkit.codes import CODES
from portkit.model import Finding, Occurrence, ParsedFile, Role as K
from portkit.rules.build_facts import build_facts

LDS_BYTES = 64 * 1024
# Number literals the parser reports in binary expressions: warp size and its masks.
WARP_LITERALS = frozenset({"32", "31", "5", "0x1f", "0x1F", "0x1fu", "0x1Fu", "32u", "31u", "5u"})
_WARP_OPERATORS = {"/": ("32", "32u"), "%": ("32", "32u"), "&": ("31", "31u", "0x1f", "0x1F", "0x1fu", "0x1Fu"),
                   ">>": ("5", "5u")}
SYNC_MASKED = re.compile(r"^__(shfl(_up|_down|_xor)?|ballot|any|all|match_any|match_all|reduce_\w+)_sync$|^__syncwarp$")
BALLOTS = {"__ballot_sync", "__ballot", "__activemask"}
SHUFFLE_WIDTH_ARG = {"__shfl_sync": 3, "__shfl_up_sync": 3, "__shfl_down_sync": 3, "__shfl_xor_sync": 3,
                     "__shfl": 2, "__shfl_up": 2, "__shfl_down": 2, "__shfl_xor": 2}
COOPERATIVE = {"cudaLaunchCooperativeKernel", "cudaLaunchCooperativeKernelMultiDevice", "this_grid",
               "this_multi_grid", "grid_group", "multi_grid_group", "cudaCooperativeLaunch"}
STREAM_PRIORITY = {"cudaStreamCreateWithPriority", "cudaDeviceGetStreamPriorityRange", "cudaStreamGetPriority"}
HOPPER = {"__cluster_dims__", "this_cluster", "cluster_group", "cudaLaunchKernelEx", "cudaFuncAttributeClusterDimMustBeSet",
          "cudaFuncAttributeNonPortableClusterSizeAllowed", "cudaLaunchAttributeClusterDimension",
          "cuTensorMapEncodeTiled", "cuTensorMapEncodeIm2col", "CUtensorMap", "cudaOccupancyMaxActiveClusters",
          "cudaOccupancyMaxPotentialClusterSize"}
DEVICE_PROPERTY_FIELDS = {"warpSize", "major", "minor", "multiProcessorCount", "sharedMemPerBlock",
                          "sharedMemPerBlockOptin", "sharedMemPerMultiprocessor", "regsPerBlock", "regsPerMultiprocessor",
                          "maxThreadsPerMultiProcessor", "l2CacheSize", "maxBlocksPerMultiProcessor"}
TEXTURE_TEMPLATES = {"texture", "surface"}
_ELEMENT_BYTES = {"char": 1, "signed char": 1, "unsigned char": 1, "bool": 1, "int8_t": 1, "uint8_t": 1,
                  "short": 2, "unsigned short": 2, "half": 2, "__half": 2, "__nv_bfloat16": 2, "int16_t": 2, "uint16_t": 2,
                  "int": 4, "unsigned": 4, "unsigned int": 4, "float": 4, "int32_t": 4, "uint32_t": 4,
                  "long long": 8, "unsigned long long": 8, "double": 8, "int64_t": 8, "uint64_t": 8, "size_t": 8,
                  "float2": 8, "int2": 8, "float4": 16, "int4": 16, "double2": 16, "double4": 32}
_32_BIT_TYPES = {"unsigned", "unsigned int", "int", "uint32_t", "int32_t", "unsigned long", "long"}
# Names the hazards look at: the parser must keep them even though no rule maps them.
INTERESTING_NAMES = frozenset(COOPERATIVE | STREAM_PRIORITY | HOPPER | DEVICE_PROPERTY_FIELDS | TEXTURE_TEMPLATES
                              | {"warpSize", "cudaFuncSetAttribute", "cudaFuncAttributeMaxDynamicSharedMemorySize"})

def device_functions(parsed: ParsedFile) -> set[str]:
    """The file's kernels and __device__ functions: where device-only hazards can be."""
    return {o.text for o in parsed.occurrences if o.role in (K.KERNEL, K.DEVICE_FUNCTION)}


def hazard(parsed: ParsedFile, occurrence: Occurrence, code: str, message: str, shadowable: bool = False) -> Finding:
    return simple_finding(parsed.path, occurrence, code, message, CODES[code].fix, shadowable)


def _calls(parsed: ParsedFile, names: Iterable[str] | re.Pattern[str]) -> Iterator[Occurrence]:
    for o in parsed.occurrences:
        if o.role is K.CALL and (names.match(o.text) if isinstance(names, re.Pattern) else o.text in names):
            yield o


@analyzer("source")
def warp_size_literals(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    device = device_functions(parsed)
    for o in parsed.occurrences:
        if o.role is K.LITERAL and o.function in device and o.text in _WARP_OPERATORS.get(o.detail, ()):
            yield hazard(parsed, o, codes.WARP_SIZE_LITERAL, f"'{o.detail} {o.text}' assumes 32-lane warps")


@analyzer("source")
def full_warp_masks(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    for o in _calls(parsed, SYNC_MASKED):
        if o.get("arg0") in FULL_MASKS_32:
            yield hazard(parsed, o, codes.FULL_WARP_MASK, f"{o.text}({o.get('arg0')}, ...) passes a 32-bit full mask")


@analyzer("source")
def ballots_in_32_bits(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    for o in _calls(parsed, BALLOTS):
        declared = o.get("assigned_type").replace("const ", "").strip()
        if declared in _32_BIT_TYPES:
            yield hazard(parsed, o, codes.BALLOT_IN_32_BITS, f"the 64-bit result of {o.text} is stored in '{declared}'")


@analyzer("source")
def warpsize_constants(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    for o in parsed.occurrences:
        if o.role in (K.IDENTIFIER, K.TYPE) and o.text == "warpSize" and o.get("constant"):
            yield hazard(parsed, o, codes.WARPSIZE_AS_CONSTANT, f"warpSize used as a compile-time constant ({o.get('constant')})")


@analyzer("source")
def shuffle_widths(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    for o in _calls(parsed, SHUFFLE_WIDTH_ARG):
        width = o.get(f"arg{SHUFFLE_WIDTH_ARG[o.text]}")
        if width in ("32", "32u"):
            yield hazard(parsed, o, codes.SHUFFLE_WIDTH_32, f"{o.text} with width {width} splits a 64-lane wavefront in two")


_OPERATORS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
              ast.FloorDiv: lambda a, b: a // b}


def _constant_value(text: str) -> int | None:
    """The value of a size made of integer literals, + - * / and parentheses, else None.

    Evaluated by walking the syntax tree (never eval): only these operators, only ints.
    """
    if not text or len(text) > 100 or not re.fullmatch(r"[\d\s+\-*/()uUlLxXa-fA-F]+", text):
        return None
    cleaned = re.sub(r"(?<=[\dA-Fa-f])[uUlL]+\b", "", text).replace("/", "//")
    try:
        tree = ast.parse(cleaned, mode="eval")
    except SyntaxError:
        return None

    def value(node: ast.AST) -> int:
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](value(node.left), value(node.right))
        raise ValueError("not a constant")

    try:
        return value(tree.body)
    except (ValueError, ZeroDivisionError):
        return None


@analyzer("source")
def shared_memory(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    per_function: dict[str, tuple[int, Occurrence]] = {}
    for o in parsed.occurrences:
        if o.role is not K.SHARED_ARRAY or o.get("extern"):
            continue
        element = _ELEMENT_BYTES.get(o.get("type"))
        dims = [_constant_value(v) for k, v in o.info if k == "dim"]
        if element is None or None in dims:
            continue
        size = element
        for d in dims:
            size *= d  # type: ignore[operator]
        total, first = per_function.get(o.function, (0, o))
        per_function[o.function] = (total + size, first)
    for function, (total, first) in sorted(per_function.items()):
        if total > LDS_BYTES:
            where = f"in {function}" if function else "at file scope"
            yield hazard(parsed, first, codes.SHARED_MEMORY_OVER_64K, f"{total // 1024} KiB of static shared memory {where} (AMD LDS: 64 KiB)")
    for o in _calls(parsed, {"cudaFuncSetAttribute"}):
        if o.get("arg1") == "cudaFuncAttributeMaxDynamicSharedMemorySize":
            value = _constant_value(o.get("arg2"))
            if value is not None and value > LDS_BYTES:
                yield hazard(parsed, o, codes.SHARED_MEMORY_OVER_64K, f"{value // 1024} KiB of dynamic shared memory requested (AMD LDS: 64 KiB)")
            else:
                yield hazard(parsed, o, codes.DYNAMIC_SHARED_MEMORY_OPT_IN, f"dynamic shared memory limit raised to {o.get('arg2')}")


@analyzer("source")
def compute_capability_checks(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    facts = build_facts()
    for o in parsed.occurrences:
        if o.role is K.PREPROCESSOR_CONDITION:
            for match in re.finditer(r"__CUDA_ARCH__\s*(>=|>|<=|<|==|!=)\s*(\d{3,4})", o.text):
                capability = str(int(match.group(2)) // 10)
                yield hazard(parsed, o, codes.COMPUTE_CAPABILITY_CHECK, f"'{match.group()}' tests an NVIDIA generation; "
                                                  f"the nearest AMD target: {facts.describe(capability)}")
        elif o.role is K.FIELD and o.text in ("major", "minor") and o.get("operator") in _COMPARISONS \
                and _uses_device_properties(parsed):
            yield hazard(parsed, o, codes.COMPUTE_CAPABILITY_CHECK, f".{o.text} compared as a compute capability; on AMD it is the gfx generation")


_COMPARISONS = {">=", ">", "<=", "<", "==", "!="}


def _uses_device_properties(parsed: ParsedFile) -> bool:
    return any(o.text in ("cudaDeviceProp", "cudaGetDeviceProperties", "hipDeviceProp_t") for o in parsed.occurrences)


@analyzer("source")
def dynamic_parallelism(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    device = device_functions(parsed)
    for o in parsed.occurrences:
        if o.role is K.LAUNCH and o.function in device:
            yield hazard(parsed, o, codes.DYNAMIC_PARALLELISM, f"{o.function} launches {o.text} from device code")


@analyzer("source")
def textures(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    for o in parsed.occurrences:
        if o.role is K.TYPE and o.text in TEXTURE_TEMPLATES and o.text not in context.project_names:
            yield hazard(parsed, o, codes.TEXTURE_REFERENCE, f"{o.text}<> reference", shadowable=True)


def _named(parsed: ParsedFile, names: set[str], code: str, message: str, context: Context) -> Iterator[Finding]:
    for o in parsed.occurrences:
        if o.role in (K.CALL, K.TYPE, K.IDENTIFIER, K.QUALIFIED, K.MACRO_BODY) and o.text.split("::")[-1] in names \
                and o.text not in context.project_names:
            yield hazard(parsed, o, code, message.format(name=o.text), shadowable=True)


@analyzer("source")
def cooperative(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    yield from _named(parsed, COOPERATIVE, codes.COOPERATIVE_LAUNCH, "{name}: grid-wide cooperation depends on AMD occupancy", context)


@analyzer("source")
def graphs(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    for o in parsed.occurrences:
        if o.role is K.CALL and (o.text.startswith("cudaGraph") or o.text == "cudaStreamBeginCapture"):
            yield hazard(parsed, o, codes.CUDA_GRAPHS, f"{o.text}: check hipGraph coverage for this call")


@analyzer("source")
def stream_priorities(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    yield from _named(parsed, STREAM_PRIORITY, codes.STREAM_PRIORITY, "{name}: AMD stream priorities differ", context)


@analyzer("source")
def device_properties(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    if not _uses_device_properties(parsed):
        return
    for o in parsed.occurrences:
        if o.role is K.FIELD and o.text in DEVICE_PROPERTY_FIELDS and not (
                o.text in ("major", "minor") and o.get("operator") in _COMPARISONS):
            yield hazard(parsed, o, codes.DEVICE_PROPERTY_MEANING, f".{o.text} of the device properties means something else on AMD")


@analyzer("source")
def launch_bounds(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    for o in parsed.occurrences:
        if o.role is K.LAUNCH_BOUNDS and o.get("arg1"):
            yield hazard(parsed, o, codes.LAUNCH_BOUNDS, f"{o.text}: HIP reads the second argument as waves per execution unit")


@analyzer("source")
def hopper(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    yield from _named(parsed, HOPPER, codes.HOPPER_ONLY, "{name} is Hopper-only", context)
