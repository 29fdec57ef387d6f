"""A project's own HIP switch: a macro of its own whose #if branch holds HIP code.

faiss builds for ROCm with `-DUSE_AMD_ROCM` (`#ifdef USE_AMD_ROCM` ... its AMD code ... `#else` ... PTX), kaldi with
`__IS_HIP_COMPILE__` (`#include "hipify.h"`), mamba with `USE_ROCM`. The branches beside such a branch are the
project's CUDA side: a build with the switch compiles its HIP branch instead, so they are no work for a port that
uses it (analyze/own_hip_branches.py bills them nowhere; report/notes.py names the switch). Convert still converts
them, for a build without the switch, and marks what it cannot.

A switch is a test of one macro (`#ifdef X`, `#if X`, `#if defined(X)`, or their #elif) that is none of CUDA's or
HIP's own macros, whose branch includes a HIP or ROCm header (`<hip/...>`, `"hipify.h"`, `<rocblas.h>`) or uses a
HIP name or an AMD GPU builtin, or defines a CUDA namespace as the project's own (`namespace cuda { namespace std =
::std; }`: parse/vendor_layers.py, hip_aliases); every test of that macro in the file is then the switch's
(`#ifdef USE_AMD_ROCM` around a plain `__ballot` too). A negated test (`#ifndef USE_ROCM`, `#if !defined(USE_ROCM)`: causal-conv1d's CUDA
code first, its HIP code in the #else) is the switch with its sides swapped: its own branch is the CUDA side, and
its #else, where that follows it, the branch that holds the HIP code.
"""
from __future__ import annotations

import re
from typing import Any, Container, Sequence

from tree_sitter import Node

from portkit.parse.guarded import branch_chain, opening_group, spelled_test
from portkit.parse.if_expressions import DEFINED, NAME, without_comments
from portkit.parse.nodes import CUDA_CONDITION_MACROS, HIP_TESTS

# HIP's headers and names, AMD's builtins and the device functions only HIP has (__lane_id, __bitextract_u32).
_HIP_CODE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*[<"](?:[^">\n]*/)?(?:hip|roc)\w*[/.]|\bhip[A-Z]\w*|'
                       rb'\b__(?:builtin_amdgcn|ockl|ocml)_\w+|\b__AMDGCN_\w+|\b__lane_id\b|\b__bit(?:extract|insert)_u|'
                       rb'\b(?:hipcub|rocprim)::', re.M)
# `(X)` or `(defined(X))`: the test inside.
_PARENTHESES = re.compile(r"^\((.*)\)$", re.S)
# A quick look at the whole file first: most files have none of these. One pattern each, every one starting with its
# letters (a word's start checked behind them): the engine skips to each spelling at C speed, where one alternation
# that starts with `\b` is tried at every offset (8x slower over real code).
_ANY_HIP = tuple(re.compile(p) for p in (rb"hip(?<=\bhip)", rb"roc(?<=\broc)", rb"amdgcn", rb"__lane_id",
                                         rb"__bit(?:extract|insert)_u", rb"__AMDGCN_", rb"__oc[km]l_"))


def hip_switch_facts(conditions: list[Node], source: bytes, derived: Container[bytes] = (),
                     hip_definitions: Sequence[int] = ()) -> dict[str, Any]:
    """ParsedFile's hip_switches (the macros) and hip_switch_side (the byte ranges of the branches beside theirs). A
    macro HIP's own platform decides (`derived`, parse/platform_macros.py: bitsandbytes' BNB_HIP) is none: its tests
    are read as HIP's (ParsedFile.nvidia_side), and no build needs it set. `hip_definitions`: where the file defines a
    CUDA name for HIP in code no pattern of HIP's names finds (`namespace cuda { namespace std = ::std; }`, its
    namespace alias of a CUDA namespace): HIP code too."""
    if not conditions or not any(p.search(source) for p in _ANY_HIP) and not hip_definitions:
        return {}
    groups = sorted({(g.start_byte, g.end_byte) for c in conditions if c.parent is not None
                     for g in (opening_group(c.parent),)})
    # (macro, the index of the branch the switch's build takes, the CUDA side's indexes, the chain's branches) for
    # each test of one project macro; a negated test's switch branch is the #else right after it, if any
    tested = []
    for condition in conditions:
        macro, negated = _one_macro(condition)
        if macro and macro.encode() not in derived and condition.parent is not None:
            tests, ranges, has_else = branch_chain(opening_group(condition.parent))
            index = next((i for i, test in enumerate(tests) if test.start_byte == condition.start_byte), -1)
            if index < 0:
                continue
            if not negated:
                tested.append((macro, index, [i for i in range(len(ranges)) if i != index], ranges))
            else:
                following = index + 1 if has_else and index + 1 == len(tests) else -1
                tested.append((macro, following, [index], ranges))
    # A macro one of whose switch branches holds HIP code is the switch in each of the file's tests of it.
    switches = {macro for macro, index, _, ranges in tested
                if index >= 0 and _holds_hip_code(source, ranges[index], groups, hip_definitions)}
    side = {ranges[i] for macro, _, beside, ranges in tested if macro in switches for i in beside}
    return {"hip_switches": tuple(sorted(switches)), "hip_switch_side": tuple(sorted(side))} if switches else {}


def _holds_hip_code(source: bytes, branch: tuple[int, int], groups: list[tuple[int, int]],
                    hip_definitions: Sequence[int] = ()) -> bool:
    """Whether the branch holds HIP code outside the #if groups nested in it (`#if HAVE_CUDA` around `#ifdef
    USE_HIP ... #else ... #endif` is no switch: the inner one is); `hip_definitions` (hip_switch_facts) count."""
    def holds(start: int, end: int) -> bool:
        return _HIP_CODE.search(source, start, end) is not None or any(start <= at < end for at in hip_definitions)

    start, end = branch
    for inner_start, inner_end in groups:
        if inner_start <= start or inner_end > end:
            continue
        if inner_start > start and holds(start, inner_start):
            return True
        start = max(start, inner_end)
    return holds(start, end)


def _one_macro(condition: Node) -> tuple[str, bool]:
    """The macro a test of one macro reads, where it is the project's ("" otherwise), and whether the test negates it
    (`#ifndef X`, `#if !defined(X)`, `#if !X`)."""
    spelled = spelled_test(condition)
    test = without_comments(spelled or "").strip()
    negated = test.startswith("!")
    test = _PARENTHESES.sub(r"\1", test[1:].strip() if negated else test).strip()
    match = DEFINED.fullmatch(test) or NAME.fullmatch(test)
    if match is None:
        return "", False
    macro = match.group(1) or match.group(2) if match.re is DEFINED else match.group()
    if CUDA_CONDITION_MACROS.fullmatch(macro) or HIP_TESTS.fullmatch(macro.encode()) or macro.startswith("__HIP"):
        return "", False
    return macro, negated
