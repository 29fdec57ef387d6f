"""Blocks of one warp per row (PK300): `dim3 threads = {32u, N, 1}` for a kernel whose rows of 32 threads work as
warps, or per x-y tile (`{4, 8, N}`: each 4x8 slice a warp). A 64-lane wavefront holds two such rows or tiles, so the
shuffles, votes and wmma tiles of one take in the other."""
from __future__ import annotations

import re
from typing import Iterator

from portkit import codes
from portkit.analyze.constants import evaluate, split_arguments
from portkit.analyze.hazards import hazard
from portkit.analyze.registry import Context, analyzer
from portkit.analyze.warps import outside_amd_code
from portkit.model import Finding, LaunchFacts, Occurrence, ParsedFile, Role as K, ValueFacts
from portkit.resources import load_data


def _warp_collectives(data: dict) -> tuple[frozenset[str], frozenset[str]]:
    return frozenset(map(str, data["calls"])), frozenset(map(str, data["namespaces"]))


# What a warp's lanes do together: calls, and the namespaces whose names are warp-wide (rules/_warp_collectives.yaml).
WARP_CALLS, WARP_NAMESPACES = load_data("_warp_collectives.yaml", _warp_collectives)
WARP_SIZE_LITERALS = ("32", "32u", "32U")
_DIM3 = re.compile(r"^(?:dim3\s*)?[({](.*)[)}]$", re.S)  # `dim3(32, 8)`, `(32, n)` (dim3 b(32, n)), `{ 32u, n, 1 }`


def _warp_work(parsed: ParsedFile) -> dict[str, str]:
    """Per function of the file, the first warp-wide operation it does itself."""
    work: dict[str, str] = {}
    for o in parsed.of(K.CALL):
        if o.function and o.text in WARP_CALLS:
            work.setdefault(o.function, o.text)
    for o in parsed.of(K.QUALIFIED):
        if o.function and set(o.text.split("<", 1)[0].split("::")[:-1]) & WARP_NAMESPACES:
            work.setdefault(o.function, o.text.split("<", 1)[0])
    return work


def _kernel_warp_work(kernel: str, work: dict[str, str], kernels: set[str]) -> str:
    """The warp-wide operation a kernel of the file does, or one a device function of the file does, which it may
    call (a call of the project's own function is not parsed): `warpReduceSum`'s shuffles; "" if none."""
    if kernel not in kernels:
        return ""  # another file's kernel: not followed
    if kernel in work:
        return work[kernel]
    helper = next((f for f in work if f not in kernels), None)
    return f"{work[helper]} in {helper}" if helper is not None else ""


def _warps_of_a_block(block: str, constants: dict[str, str]) -> str:
    """What of a block is one warp, where it holds more than one: its rows, spelled with the warp size in x
    (`{32u, N, 1}`, `(32, 8)`), or its x-y tiles of 32 threads (`{4, 8, N}`, `(4, 8, 2)`); else ""."""
    match = _DIM3.match(block.strip())
    dims = split_arguments(match.group(1)) if match else []
    if len(dims) > 1 and dims[0] in WARP_SIZE_LITERALS and any(evaluate(d, constants) != 1 for d in dims[1:]):
        return "rows of 32 threads"
    x, y = (evaluate(d, constants) for d in dims[:2]) if len(dims) > 2 else (None, None)
    if x is not None and y is not None and x * y == 32 and x != 32 and evaluate(dims[2], constants) != 1:
        return f"tiles of {x}x{y} threads"
    return ""


def _block_of(launch: Occurrence, initializers: list[Occurrence]) -> tuple[Occurrence, str]:
    """A launch's block as written: the dim3 variable's initialisation before the launch (its occurrence and value),
    or the launch itself and the block spelled in it."""
    configuration = split_arguments(launch.detail)
    block = configuration[1] if len(configuration) > 1 else ""
    named = next((i for i in reversed(initializers) if i.function == launch.function and i.text == block
                  and i.span.start < launch.span.start), None)
    return (named, named.facts(ValueFacts).value) if named is not None else (launch, block)


@analyzer("source", codes=(codes.WARP_SIZE_LITERAL,), reads=(K.INITIALIZER,))
@outside_amd_code
def warp_row_blocks(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    """`const dim3 threads = {32u, 8u, 1}; k<<<grid, threads>>>()` where k (or a device function of the file, which it
    may call) shuffles, votes or uses wmma: threadIdx.x is taken for the lane and threadIdx.y for the warp. A kernel
    another file defines is not followed."""
    launches = parsed.of(K.LAUNCH)
    if not launches:
        return
    work: dict[str, str] | None = None
    kernels: set[str] = set()
    constants, initializers = parsed.constants, parsed.of(K.INITIALIZER)
    reported: set[int] = set()
    for launch in launches:
        where, block = _block_of(launch, initializers)
        warps = _warps_of_a_block(block, constants) if where.span.start not in reported else ""
        if not warps:
            continue
        if work is None:
            work, kernels = _warp_work(parsed), {o.text for o in parsed.of(K.KERNEL)}
        # through a local name: each kernel it stands for (launch_alias), the first that does warp work
        found = [(name, _kernel_warp_work(name, work, kernels)) for name in launch.facts(LaunchFacts).kernels or (launch.text,)]
        kernel, operation = next(((name, op) for name, op in found if op), (launch.text, None))
        if operation:
            reported.add(where.span.start)
            yield hazard(parsed, where, codes.WARP_SIZE_LITERAL,
                         f"block {' '.join(block.split())} launches {kernel} with {warps}, each a warp ({operation}): "
                         f"a 64-lane wavefront holds two {warps.split()[0]}")
