"""Hazards that assume 32-lane warps (PK300-PK304): AMD CDNA GPUs run 64-lane wavefronts.

What is reported is what fixes the width at 32: literal 32/31/5 in lane and warp
arithmetic, WARP_SIZE constants of 32, [32] arrays indexed by lane, shuffle loops
over 32 lanes, 32-bit masks and ballot results, width-32 shuffles, and warpSize
where a compile-time constant is needed. Arithmetic relative to warpSize ports as
is and is never reported.
"""
from __future__ import annotations

import dataclasses
import functools
import re
from typing import Callable, Iterator, Mapping

from portkit import codes
from portkit.analyze.constants import evaluate, split_arguments
from portkit.analyze.findings import simple_finding
from portkit.analyze.hazards import WARP_COMPARISONS, WARP_OPERATORS, called, calls, device_code, hazard
from portkit.analyze.registry import Context, analyzer
from portkit.codes import CODES
from portkit.model import (
    CallFacts, Finding, LaunchFacts, NameFacts, Occurrence, OperandFacts, ParsedFile, Role as K, SharedArrayFacts, SubscriptFacts,
    ValueFacts,
)
from portkit.resources import load_data
from portkit.textutil import within

SYNC_MASKED = re.compile(r"^__(shfl(_up|_down|_xor)?|ballot|any|all|match_any|match_all|reduce_\w+)_sync$|^__syncwarp$")
BALLOTS = {"__ballot_sync", "__ballot", "__activemask"}
SHUFFLE_WIDTH_ARG = {"__shfl_sync": 3, "__shfl_up_sync": 3, "__shfl_down_sync": 3, "__shfl_xor_sync": 3,
                     "__shfl": 2, "__shfl_up": 2, "__shfl_down": 2, "__shfl_xor": 2}


def _warp_bits(data: dict) -> tuple[frozenset[str], dict[str, str]]:
    return (frozenset(map(str, data["thirty_two_bit_types"])),
            {str(name): str(wide) for name, wide in data["bit_functions_32"].items()})


# Types a mask holds 32 bits in; bit functions that take 32 bits, and their 64-bit twins (rules/_warp_bits.yaml).
THIRTY_TWO_BIT_TYPES, BIT_FUNCTIONS_32 = load_data("_warp_bits.yaml", _warp_bits)

# What lane and warp arithmetic is about: `threadIdx.x % 32` and `lane = tid & 31` are; `(n + 31) / 32` is not.
LANE_OR_WARP = re.compile(r"(?i)threadIdx|blockDim|lane|warp|\b[lg]?tid[xy]?\b|thread_?id")
LANE = re.compile(r"(?i)lane|threadIdx\.x\s*(%|&)|\btid\s*(%|&)")
# A block size: BLOCK / 32 is the number of warps in a block.
BLOCK_SIZE_NAME = re.compile(r"(?i)k?_?(block|cta)(_?(size|dim|threads))?|\w*threads(_?per_?block)?|block_?size\w*")
# A constant that names the warp size: WARP_SIZE, kWarpSize, warp_size, THREADS_PER_WARP...
WARP_SIZE_NAME = re.compile(r"(?i)^k?_?(warp_?(size|sz|width|threads|lanes)|threads_?per_?warp|lanes_?per_?warp)$")
_THREAD_INDEX = re.compile(r"\bthreadIdx\b|__lane_id|\blaneid\b")
_WORD = re.compile(r"[A-Za-z_]\w*")


_SUBSCRIPT = re.compile(r"\[[^\[\]]*\]")


def loads_left_out(text: str) -> str:
    """An expression without its subscripts: `qhp[tid]` is a value loaded at a thread's index, not the index,
    so `qh >> 5` on it shifts data bits (ggml's quantised blocks), not lanes."""
    while True:
        shorter = _SUBSCRIPT.sub("", text)
        if shorter == text:
            return text
        text = shorter


WarpAnalyzer = Callable[[ParsedFile, Context], Iterator[Finding]]


def outside_amd_code(analyze: WarpAnalyzer) -> WarpAnalyzer:
    """The analyzer's findings but those in the project's own AMD code (ParsedFile.amd_only: `#elif
    defined(__gfx1100__)` ... `#define WARP_THREADS 32`, RDNA's wave32), which knows its wavefront size. Not for
    what HIP refuses on every AMD GPU (a 32-bit mask, warpSize as a constant)."""
    @functools.wraps(analyze)
    def outside(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
        for finding in analyze(parsed, context):
            if not within(finding.span.start, parsed.amd_only):
                yield finding
    return outside


def thread_derived(parsed: ParsedFile) -> dict[str, set[str]]:
    """Per function, the variables whose value comes from threadIdx, directly or through other variables
    (`tx = threadIdx.x; idx = ty * 16 + tx`): their `% 32` is a lane id, not a bin or a chunk count."""
    values: dict[str, list[tuple[str, str]]] = {}
    for o in parsed.of(K.INITIALIZER, K.CONSTANT):
        if o.function:
            values.setdefault(o.function, []).append((o.text, o.facts(ValueFacts).value))
    derived: dict[str, set[str]] = {}
    for function, assigned in values.items():
        names: set[str] = set()
        changed = True
        while changed:  # to a fixed point: each pass adds the variables initialised from the last ones
            changed = False
            for name, value in assigned:
                value = loads_left_out(value)
                if name not in names and (_THREAD_INDEX.search(value) or names & set(_WORD.findall(value))):
                    names.add(name)
                    changed = True
        derived[function] = names
    return derived


def _lane_arithmetic(o: Occurrence, derived: set[str], constants: Mapping[str, str]) -> bool:
    """Whether a literal's expression computes a lane or warp id, or warps per block: by the names
    involved (`tid & 31`, `BLOCK / 32`), or because a variable comes from threadIdx (and is not scaled)."""
    other, target = loads_left_out(o.facts(OperandFacts).other), o.facts(OperandFacts).target
    words = set(_WORD.findall(other))
    if LANE_OR_WARP.search(f"{other} {target}"):
        return True
    return bool(derived & words and not _scaled_offset(other, derived, constants)
                or o.detail in ("/", ">>") and any(BLOCK_SIZE_NAME.fullmatch(w) for w in words))


def _top_level(text: str, separators: str) -> list[str]:
    """`text`'s parts between the `separators` outside brackets, its enclosing parentheses left out."""
    text = text.strip()
    while _enclosed(text):
        text = text[1:-1].strip()
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        depth += (char in "([{") - (char in ")]}")
        if depth == 0 and char in separators and index > start:
            parts.append(text[start:index].strip())
            start = index + 1
    return parts + [text[start:].strip()]


def _enclosed(text: str) -> bool:
    """Whether `text` is one parenthesised expression: `(a * b)`, not `(a) * (b)`."""
    depth = 0
    for index, char in enumerate(text):
        depth += (char == "(") - (char == ")")
        if depth == 0:
            return index == len(text) - 1 and index > 0
    return False


def _scaled_offset(other: str, derived: set[str], constants: Mapping[str, str]) -> bool:
    """Whether each term of `other` that comes from threadIdx is multiplied by a run-time value (darknet's
    `j*dst_align / 32`, `chan*items_per_channel / 32`): an offset in bits or items, which `/ 32` turns into 32-bit
    words; a thread's lane or warp is its index, offset by others (`ty * blockDim.x + tx`), not scaled."""
    threaded = [t for t in _top_level(other, "+-") if derived & set(_WORD.findall(t))]
    return bool(threaded) and all(
        any(_WORD.search(f) and not derived & set(_WORD.findall(f)) and evaluate(f, constants) is None
            for f in _top_level(term, "*")) for term in threaded)


@analyzer("source", codes=(codes.WARP_SIZE_LITERAL,), reads=(K.LITERAL, K.INITIALIZER))
@outside_amd_code
def warp_size_literals(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    """32, 31 and 5 in lane and warp arithmetic (`threadIdx.x % 32`, `lane = tid & 31`, `idx >> 5`), and a lane id
    compared with 31 (`lane == 31`, the last lane of a warp)."""
    device = device_code(parsed)
    candidates = [o for o in parsed.of(K.LITERAL) if o.text in WARP_OPERATORS.get(o.detail, ()) and device(o)
                  and not _names_the_warp_size(o)]
    if not candidates:
        return  # most files: no variables to trace
    derived, constants = thread_derived(parsed), parsed.constants
    for o in candidates:
        if o.detail in WARP_COMPARISONS:
            if LANE.search(o.facts(OperandFacts).other):
                yield _literal_hazard(parsed, o, f"'{o.facts(OperandFacts).other} {o.detail} {_spelled(o)}' takes lane 31 "
                                                 "for a warp's last: a 64-lane wavefront's is 63")
        elif _lane_arithmetic(o, derived.get(o.function, set()), constants):
            yield _literal_hazard(parsed, o, f"'{o.facts(OperandFacts).other} {o.detail} {_spelled(o)}' assumes 32-lane warps")


def _names_the_warp_size(o: Occurrence) -> bool:
    """A use of a macro that names the warp size (`threadIdx.x / WARP_SIZE` with `#define WARP_SIZE 32`):
    `warp_size_constants` reports it where it is defined, the one place to fix."""
    return WARP_SIZE_NAME.match(o.facts(OperandFacts).named) is not None


def _literal_hazard(parsed: ParsedFile, o: Occurrence, message: str) -> Finding:
    """A warp literal's finding, named as the code spells it: the project's macro (`LANES_BITS`), not the number it
    stands for, which appears nowhere on the marked line."""
    finding = hazard(parsed, o, codes.WARP_SIZE_LITERAL, message)
    named = o.facts(OperandFacts).named
    return dataclasses.replace(finding, name=named) if named else finding


def _spelled(o: Occurrence) -> str:
    """A warp literal as the code spells it: the number, or the project's macro for it (`WARP_SIZE_BITS (5)`)."""
    named = o.facts(OperandFacts).named
    if named and not named.isidentifier():
        return named  # an expression of numbers (`(32 - 1)`), which says its value itself
    return f"{named} ({o.text})" if named else o.text


# The lane-offset argument of each shuffle: a loop feeding it from 16 (or up to 32) spans 32 lanes.
SHUFFLE_OFFSET_ARG = {"__shfl_down_sync": 2, "__shfl_up_sync": 2, "__shfl_xor_sync": 2,
                      "__shfl_down": 1, "__shfl_up": 1, "__shfl_xor": 1}


@analyzer("source", codes=(codes.WARP_SIZE_LITERAL,), reads=(K.LITERAL, K.INITIALIZER), arguments_of=SHUFFLE_OFFSET_ARG)
@outside_amd_code
def shuffle_loops(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    """`for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(m, v, o)` and `for (int m = 1; m < 32; m *= 2)`:
    a shuffle reduction over 32 lanes, which leaves half a 64-lane wavefront out."""
    offsets: dict[str, set[str]] = {}
    for o in calls(parsed, SHUFFLE_OFFSET_ARG):
        offsets.setdefault(o.function, set()).add(o.facts(CallFacts).arg(SHUFFLE_OFFSET_ARG[called(o)]))
    if not offsets:
        return  # most files: no shuffle, so no literal or initializer can feed one
    constants = parsed.constants
    for o in parsed.of(K.INITIALIZER, K.LITERAL):
        used = offsets.get(o.function, set())
        if o.role is K.INITIALIZER and o.text in used and evaluate(o.facts(ValueFacts).value, constants) == 16:
            yield hazard(parsed, o, codes.WARP_SIZE_LITERAL,
                         f"'{o.text} = {o.facts(ValueFacts).value}' starts a shuffle reduction at offset 16: it covers 32 lanes")
        elif o.role is K.LITERAL and o.text in ("32", "32u") and o.detail in ("<", "<=") and o.facts(OperandFacts).other in used \
                and not _names_the_warp_size(o):
            yield _literal_hazard(parsed, o, f"'{o.facts(OperandFacts).other} {o.detail} {_spelled(o)}' bounds a shuffle exchange: "
                                             "it covers 32 lanes")


@analyzer("source", codes=(codes.WARP_SIZE_LITERAL,))
@outside_amd_code
def warp_size_constants(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    """`#define WARP_SIZE 32`, `constexpr int kWarpSize = 32`: the warp size fixed at 32 lanes."""
    constants = parsed.constants
    for o in parsed.of(K.CONSTANT):
        if WARP_SIZE_NAME.match(o.text) and evaluate(o.facts(ValueFacts).value, constants) == 32:
            yield hazard(parsed, o, codes.WARP_SIZE_LITERAL, f"{o.text} = {o.facts(ValueFacts).value} fixes the warp size at 32 lanes")


@analyzer("source", codes=(codes.WARP_SIZE_LITERAL,), reads=(K.SUBSCRIPT,))
@outside_amd_code
def lane_indexed_arrays(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    """A `__shared__ T s[32]` indexed by lane id: lanes 32-63 of a wavefront index past its end."""
    constants = parsed.constants
    sized_32 = {o.text for o in parsed.of(K.SHARED_ARRAY)
                if any(evaluate(v, constants) == 32 for v in o.facts(SharedArrayFacts).dims)}
    reported: set[str] = set()
    for o in parsed.of(K.SUBSCRIPT):
        if o.text in sized_32 and o.text not in reported and LANE.search(o.facts(SubscriptFacts).index) \
                and not o.facts(SubscriptFacts).guarded:  # `lane < num_warps ? s[lane] : 0` stays inside the array
            reported.add(o.text)
            yield hazard(parsed, o, codes.WARP_SIZE_LITERAL,
                         f"{o.text}[32] indexed by lane ({o.facts(SubscriptFacts).index}): lanes 32-63 of a wavefront index past its end")


# A literal with a long long suffix is 64-bit; any other literal (0xffffffff, -1, ~0u) is an int or an unsigned.
_LONG_LONG = re.compile(r"(?i)\b(0x[0-9a-f]+|\d+)(u?ll|llu)\b")
# A value cast to a 64-bit type (convert's `static_cast<unsigned long long>(MASK)`) is 64-bit too.
_WIDE_CAST = re.compile(r"\blong\s+long\b|\bu?int64_t\b")


def _mask_problem(mask: str, constants: dict[str, str]) -> str:
    """What is wrong with a _sync intrinsic's mask for HIP, or "": HIP takes a 64-bit mask (and refuses
    any other type at compile time); 0xffffffff names lanes 0-31 only."""
    value = evaluate(constants.get(mask, mask), constants)
    if value is None:
        return ""  # a variable or an expression we cannot see through
    if value == 0xFFFFFFFF:
        return "a 32-bit full mask (lanes 0-31 of a 64-lane wavefront)"
    named = re.sub(r"\s*\(\s*\)$", "", mask) in constants  # a constant's type is its own: `FULL`, `FullMask()`
    if not named and not _LONG_LONG.search(mask) and not _WIDE_CAST.search(mask):
        return "a 32-bit mask (HIP's _sync intrinsics take a 64-bit one)"
    return ""


@analyzer("source", codes=(codes.FULL_WARP_MASK,), arguments_of=SYNC_MASKED)
def full_warp_masks(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    constants = parsed.constants
    for o in calls(parsed, SYNC_MASKED):
        problem = _mask_problem(o.facts(CallFacts).arg(0), constants)
        if problem:
            yield hazard(parsed, o, codes.FULL_WARP_MASK, f"{o.text}({o.facts(CallFacts).arg(0)}, ...) passes {problem}")


# How many aliases to follow (`typedef U32 Mask;`): a cycle in broken code ends there.
_ALIAS_DEPTH = 8
_CV = re.compile(r"\b(?:const|volatile)\b|^\s*(?:::)?(?:std::)?")


def plain_type(spelled: str) -> str:
    """A declaration's type without const, volatile or `std::` (`const std::uint32_t` -> `uint32_t`)."""
    return " ".join(_CV.sub(" ", spelled).split())


def type_aliases(parsed: ParsedFile) -> dict[str, str]:
    """The file's typedefs and using-aliases: name -> the type it stands for."""
    return {o.text: o.detail for o in parsed.of(K.TYPE_ALIAS)}


def aliased_type(declared: str, aliases: Mapping[str, str]) -> str:
    """The type a declaration's type names through `aliases` (`U32` -> `unsigned int`), or itself."""
    spelled = plain_type(declared)
    for _ in range(_ALIAS_DEPTH):
        if spelled not in aliases:
            break
        spelled = plain_type(aliases[spelled])
    return spelled


def ballot_holder(o: Occurrence) -> str:
    """The type a ballot's result is kept in as declared: the variable's it initialises, or the return type of the
    function that returns it (a wrapper: darknet's `uint32_t __ballot_custom(T)`); "" for any other use."""
    facts = o.facts(CallFacts)
    return facts.assigned_type or facts.returned_type


def ballot_in_32_bits(path: str, o: Occurrence, stored: str) -> Finding:
    """A ballot's 64-bit result stored in `stored`, a 32-bit type (through the aliases that name it)."""
    declared = plain_type(ballot_holder(o))
    spelled = f"'{declared}'" if declared == stored else f"'{declared}' ({stored})"
    returned_by = o.facts(CallFacts).returned_by if not o.facts(CallFacts).assigned_type else ""
    kept = f"returned as {spelled} by {returned_by}: its callers get lanes 0-31" if returned_by else f"stored in {spelled}"
    return simple_finding(path, o, codes.BALLOT_IN_32_BITS, f"the 64-bit result of {o.text} is {kept}",
                          CODES[codes.BALLOT_IN_32_BITS].fix)


@analyzer("source", codes=(codes.BALLOT_IN_32_BITS,), reads=(K.TYPE_ALIAS,), arguments_of=BALLOTS)
@outside_amd_code
def ballots_in_32_bits(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    """`unsigned m = __ballot_sync(...)`, or `U32 m` where the file defines U32 as one (another file's alias is
    the project's to resolve: analyze/ballot_aliases.py)."""
    aliases = None
    for o in calls(parsed, BALLOTS):
        declared = ballot_holder(o)
        if not declared:
            continue
        aliases = type_aliases(parsed) if aliases is None else aliases
        stored = aliased_type(declared, aliases)
        if stored in THIRTY_TWO_BIT_TYPES:
            yield ballot_in_32_bits(parsed.path, o, stored)


@analyzer("source", codes=(codes.BALLOT_IN_32_BITS,), arguments_of=BIT_FUNCTIONS_32)
@outside_amd_code
def ballots_through_32_bit_functions(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    """`__popc(__ballot_sync(m, p))`: the 64-bit mask converted to the unsigned int __popc takes. A shift in the
    argument (`__popc(__ballot(p) >> 32)`) is code that handles the upper lanes itself."""
    ballots = [o for o in calls(parsed, BALLOTS)]
    if not ballots:
        return
    for o in calls(parsed, BIT_FUNCTIONS_32):
        if not o.parts or ">>" in o.facts(CallFacts).arg(0):
            continue
        inside = next((b for b in ballots if o.parts[0].start <= b.span.start < o.parts[0].end), None)
        if inside is not None:
            yield hazard(parsed, o, codes.BALLOT_IN_32_BITS, f"{o.text}({inside.text}(...)) takes the 64-bit ballot as 32 bits "
                                                             f"(lanes 0-31 only): use {BIT_FUNCTIONS_32[called(o)]}")


# A loop variable that starts at a lane id: `lane`, `threadIdx.x % 32`, `tid & (warpSize - 1)`, `__lane_id()`.
_LANE_START = re.compile(r"(?i)lane|threadIdx\.x\s*[%&]|\btid\s*[%&]|[%&]\s*\(?\s*warpSize")


@analyzer("source", codes=(codes.WARP_SIZE_LITERAL,), reads=(K.LITERAL, K.INITIALIZER))
@outside_amd_code
def lane_strides(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    """`for (int i = lane; i < n; i += 32)`: each lane takes every 32nd item, so on a 64-lane wavefront lanes
    i and i + 32 take the same ones. Only a variable that starts at a lane id: `i = threadIdx.x ... i += 32` strides
    over a 32-thread block, which a block of 32 threads still is on AMD."""
    strides = [o for o in parsed.of(K.LITERAL) if o.detail == "+=" and o.text in ("32", "32u") and not _names_the_warp_size(o)]
    if not strides:
        return
    device = device_code(parsed)
    initializers = parsed.of(K.INITIALIZER)
    for o in strides:
        variable = o.facts(OperandFacts).other
        # The variable's last initialisation before the step: a function's loops may each declare an `i`.
        start = next((loads_left_out(i.facts(ValueFacts).value) for i in reversed(initializers)
                      if i.function == o.function and i.text == variable and i.span.start < o.span.start), "")
        if start and _LANE_START.search(start) and device(o):
            yield _literal_hazard(parsed, o, f"'{variable} += {_spelled(o)}' steps a lane index ({variable} = {start}) by 32 lanes")


@analyzer("source", codes=(codes.WARPSIZE_AS_CONSTANT,))
def warpsize_constants(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    for o in parsed.of(K.IDENTIFIER, K.TYPE):
        if o.text == "warpSize" and o.facts(NameFacts).constant:
            yield hazard(parsed, o, codes.WARPSIZE_AS_CONSTANT, f"warpSize used as a compile-time constant ({o.facts(NameFacts).constant})")


@analyzer("source", codes=(codes.SHUFFLE_WIDTH_32,), arguments_of=SHUFFLE_WIDTH_ARG)
@outside_amd_code
def shuffle_widths(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    for o in calls(parsed, SHUFFLE_WIDTH_ARG):
        width = o.facts(CallFacts).arg(SHUFFLE_WIDTH_ARG[called(o)])
        if width in ("32", "32u"):
            yield hazard(parsed, o, codes.SHUFFLE_WIDTH_32, f"{o.text} with width {width} splits a 64-lane wavefront in two")


# The wavefront a block size must be a multiple of for the primitives below: CDNA's (RDNA's 32 divides it).
WAVEFRONT = 64
_PRIMITIVE = re.compile(r"^(?:::)?(?:hip)?cub::(\w+)<(.*)>(?:::\w+)*$", re.S)  # `cub::BlockLoad<...>::TempStorage` too


def _block_primitives(data: list) -> dict[str, tuple[int, int, frozenset[str]]]:
    return {str(p["name"]): (int(p["block_dim_arg"]), int(p["algorithm_arg"]), frozenset(map(str, p["algorithms"])))
            for p in data}


BLOCK_PRIMITIVES = load_data("_block_primitives.yaml", _block_primitives)


def _launch_blocks(parsed: ParsedFile) -> dict[str, list[int]]:
    """Per kernel, the block sizes (threads in x) the file launches it with, where its constants give them."""
    constants, blocks = parsed.constants, {}
    for o in parsed.of(K.LAUNCH):
        configuration = split_arguments(o.detail)
        value = evaluate(configuration[1], constants) if len(configuration) > 1 else None
        if value is not None:
            for kernel in o.facts(LaunchFacts).kernels or (o.text,):  # through a local name: each kernel it stands for
                blocks.setdefault(kernel, []).append(value)
    return blocks


@analyzer("source", codes=(codes.BLOCK_SIZE_UNDER_WAVEFRONT,))
@outside_amd_code
def block_primitives_under_a_wavefront(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    """`cub::BlockLoad<float, 32, 4, cub::BLOCK_LOAD_WARP_TRANSPOSE>`: rocPRIM static_asserts a block size that is a
    multiple of the wavefront. The size is a number, or a kernel's template parameter its launches give."""
    constants, launches = parsed.constants, None
    for o in parsed.of(K.QUALIFIED):
        match = _PRIMITIVE.match(o.text)
        primitive = BLOCK_PRIMITIVES.get(match.group(1)) if match else None
        if primitive is None:
            continue
        arguments = split_arguments(match.group(2))
        block_arg, algorithm_arg, algorithms = primitive
        algorithm = arguments[algorithm_arg].rpartition("::")[2] if len(arguments) > max(block_arg, algorithm_arg) else ""
        if algorithm not in algorithms:
            continue
        value = evaluate(arguments[block_arg], constants)
        if value is None:
            launches = _launch_blocks(parsed) if launches is None else launches
            value = next((v for v in launches.get(o.function, ()) if v % WAVEFRONT), None)
            where = f" ({o.function} is launched with blocks of {value} threads)"
        else:
            where = ""
        if value is not None and value % WAVEFRONT:
            size = arguments[block_arg] if where else value
            yield hazard(parsed, o, codes.BLOCK_SIZE_UNDER_WAVEFRONT, f"{o.text} for a block of {size} threads{where}: "
                                                                      f"rocPRIM needs a multiple of the {WAVEFRONT}-lane wavefront")
