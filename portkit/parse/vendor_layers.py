"""A project's own layer for another vendor: a header that stands in for CUDA's on HIP or on a CUDA-like API.

llama.cpp's ggml-cuda/vendors/hip.h includes <hip/hip_runtime.h> and defines `__trap()`, `__vsub4` and
`CUDA_R_16F` for hipcc; common.cuh includes it only under `#if defined(GGML_USE_HIP)`, with vendors/cuda.h in the
#else. Those definitions are CUDA's names spelled for HIP, not the project's names: the converted tree, built
without the project's switch, never sees them. Likewise vendors/musa.h (it includes <musa_runtime.h>, so only
MUSA's compiler reads it) maps CUDA's names onto another vendor's. Which runtime headers mark a layer is data,
rules/_vendor_headers.yaml. What a file includes in a branch one macro selects (`#if defined(GGML_USE_HIP)`) is
kept too: a scan's note names the switch that builds a layer (report/notes.py).
"""
from __future__ import annotations

import functools
import os
from typing import Any, Iterable, Mapping, Optional

from tree_sitter import Node

from portkit.parse.guarded import branch_chain, include_guard, opening_group, spelled_test
from portkit.parse.hipcc_branch import amd_value
from portkit.parse.if_expressions import DEFINED, NAME, without_comments
from portkit.parse.nodes import HIP_TESTS, node_text
from portkit.resources import load_data

_BRANCHES = ("preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef")
HIP_LAYER = "hip"
OTHER_VENDOR = "other"


@functools.lru_cache(maxsize=1)
def vendor_headers() -> dict[str, str]:
    """Each listed runtime header's path -> the kind of layer including it makes a header (HIP_LAYER, OTHER_VENDOR)."""
    def parse(data: dict[str, list[str]]) -> dict[str, str]:
        return {str(path): kind for kind in (HIP_LAYER, OTHER_VENDOR) for path in data[kind]}
    return load_data("_vendor_headers.yaml", parse)


def _enclosing_groups(node: Node) -> Iterable[Node]:
    """The #if groups around `node`, innermost first, include guards left out."""
    parent = node.parent
    while parent is not None:
        if parent.type in _BRANCHES:
            group = opening_group(parent)
            if not include_guard(group) or branch_chain(group)[1][0][1] <= node.start_byte:
                yield group
        parent = parent.parent


def _included(node: Node) -> str:
    """An #include's path as written, without its quotes or brackets."""
    return (node.text or b"").decode("utf-8", "replace").strip()[1:-1].strip()


def vendor_layer(includes: Iterable[Node]) -> str:
    """The kind of layer a file is: one whose include of a listed runtime header sits outside any #if (an include
    guard aside); OTHER_VENDOR before HIP_LAYER; "" for any other file."""
    kinds = {vendor_headers().get(_included(node)) for node in includes
             if _included(node) in vendor_headers() and next(iter(_enclosing_groups(node)), None) is None}
    return OTHER_VENDOR if OTHER_VENDOR in kinds else HIP_LAYER if HIP_LAYER in kinds else ""


def alternative_includes(includes: Iterable[Node]) -> frozenset[str]:
    """The file names (as scope.py matches them) the file includes only inside a branch of an #if chain that has
    other branches (`#ifdef USE_HIP` / `#include "hip.h"` / `#else` ...): headers that stand in for one another."""
    inside: set[str] = set()
    elsewhere: set[str] = set()
    for node in includes:
        name = os.path.basename(_included(node))
        if any(len(branch_chain(group)[1]) > 1 for group in _enclosing_groups(node)):
            inside.add(name)
        else:
            elsewhere.add(name)
    return frozenset(inside - elsewhere)


def _switch(include: Node) -> str:
    """The macro whose test selects the branch an #include sits in (its innermost #if), `#ifdef X`, `#if X` or
    `#elif defined(X)`; "" where the branch is an #else or its test is more than one macro."""
    group = next(iter(_enclosing_groups(include)), None)
    if group is None:
        return ""
    tests, ranges, _ = branch_chain(group)
    branch = next((i for i, (start, end) in enumerate(ranges) if start <= include.start_byte < end), len(ranges))
    spelled = spelled_test(tests[branch]) if branch < len(tests) else None
    test = without_comments(spelled or "").strip()
    macro = DEFINED.fullmatch(test) or NAME.fullmatch(test)
    return "" if macro is None else next(name for name in (macro.groups() or (macro.group(),)) if name)


def include_switches(includes: Iterable[Node]) -> tuple[tuple[str, str], ...]:
    """(file name, macro) for each #include in a branch one macro selects (`#if defined(GGML_USE_HIP)` /
    `#include "vendors/hip.h"`): what builds a layer the file includes (report/notes.py)."""
    return tuple(sorted({(os.path.basename(_included(node)), switch) for node in includes
                         if (switch := _switch(node))}))


def hip_branch(node: Node, switches: Iterable[str], platform: Mapping[bytes, Optional[bytes]] | None = None) -> bool:
    """Whether the branch `node` sits in (its innermost #if) is one hipcc takes for AMD by the test's own reading: a
    positive test of HIP's platform macros (`#if defined(__HIP_PLATFORM_AMD__) || defined(USE_HIP)`), or of one of the
    project's own HIP `switches` (`#ifdef __IS_HIP_COMPILE__`); or the #else right after a negated one (`#ifndef
    USE_ROCM` ... `#else` ... its HIP code). A negated test's own branch, or another #else, is the other side. A chain
    that tests the project's macros HIP's platform decides (`platform`, parse/platform_macros.py: bitsandbytes'
    `#if BNB_HIP`) is read one step further, as hipcc for AMD reads them."""
    group = next(iter(_enclosing_groups(node)), None)
    if group is None:
        return False
    tests, ranges, has_else = branch_chain(group)
    branch = next((i for i, (start, end) in enumerate(ranges) if start <= node.start_byte < end), len(ranges))
    if platform and _platform_taken(tests, branch, platform):
        return True
    if has_else and branch == len(tests):  # an #else: the HIP side where the test before it is a negated HIP test
        negated = without_comments(spelled_test(tests[-1]) or "").strip()
        return negated.startswith("!") and _hip_test(negated[1:].strip(), switches)
    test = without_comments((spelled_test(tests[branch]) if branch < len(tests) else None) or "").strip()
    return (HIP_TESTS.search(test.encode()) is not None and not test.startswith("!")) or _switch(node) in switches


def _platform_taken(tests: list[Node], branch: int, platform: Mapping[bytes, Optional[bytes]]) -> bool:
    """Whether hipcc for AMD takes `branch` of a chain some test of which reads one of the project's macros HIP's
    platform decides: its own test holds there and every earlier one fails (an #else: every test fails)."""
    spelled = [without_comments(spelled_test(test) or "") for test in tests]
    if not any(name.encode() in platform for test in spelled for name in NAME.findall(test)):
        return False
    values = [amd_value(test, own=platform) for test in spelled[:branch + 1]]
    return all(value == 0 for value in values[:branch]) and (branch >= len(tests) or values[branch] == 1)


def _hip_test(test: str, switches: Iterable[str]) -> bool:
    """Whether a test is, as written, one of HIP's platform macros or of one of the project's `switches` alone
    (`defined(USE_ROCM)`, `(defined(__HIP_PLATFORM_AMD__))`)."""
    while test.startswith("(") and test.endswith(")"):
        test = test[1:-1].strip()
    macro = DEFINED.fullmatch(test) or NAME.fullmatch(test)
    name = "" if macro is None else next(name for name in (macro.groups() or (macro.group(),)) if name)
    return bool(name) and (HIP_TESTS.fullmatch(name.encode()) is not None or name in switches)


def alias_name(alias: Node) -> str:
    """The name a namespace alias defines, with the namespaces around it: `cuda::std` for `namespace cuda {
    namespace std = ::std; }`."""
    name = alias.child_by_field_name("name")
    parts = [node_text(name)] if name is not None else []
    parent = alias.parent
    while parent is not None:
        if parent.type == "namespace_definition" and (space := parent.child_by_field_name("name")) is not None:
            parts.insert(0, "".join(node_text(space).split()))
        parent = parent.parent
    return "::".join(parts)


def hip_aliases(aliases: Iterable[tuple[str, Node]], switches: Iterable[str],
                platform: Mapping[bytes, Optional[bytes]] | None = None) -> tuple[tuple[str, bool], ...]:
    """ParsedFile's hip_aliases: each CUDA name the file defines as HIP's (the port's aliases, and its namespace
    aliases of CUDA's namespaces: (name, node)), with whether a branch hipcc takes for AMD holds the definition
    (hip_branch); a name defined both ways counts as held."""
    held: dict[str, bool] = {}
    switches = frozenset(switches)
    for name, node in aliases:
        held[name] = held.get(name, False) or hip_branch(node, switches, platform)
    return tuple(sorted(held.items()))


def layer_macros(macros: Iterable[Node], switches: Iterable[str],
                 platform: Mapping[bytes, Optional[bytes]] | None = None) -> tuple[tuple[str, bool], ...]:
    """ParsedFile's hip_macros: each CUDA name the file #defines as more than a rename (`macros`: their name nodes),
    with whether a branch hipcc takes for AMD holds the definition; one outside any #if (an include guard aside)
    counts where its file is a HIP layer (run/scope.py: HipLayer), one in any other branch never."""
    held: dict[str, bool] = {}
    switches = frozenset(switches)
    for node in macros:
        taken = hip_branch(node, switches, platform)
        if taken or next(iter(_enclosing_groups(node)), None) is None:
            held[node_text(node)] = held.get(node_text(node), False) or taken
    return tuple(sorted(held.items()))


def hip_facts(includes: Iterable[Node], aliases: Iterable[tuple[str, Node]], macros: Iterable[Node],
              switches: Iterable[str], platform: Mapping[bytes, Optional[bytes]] | None = None) -> dict[str, Any]:
    """ParsedFile's hip_aliases and hip_macros, and its hip_includes: the file names it includes in a branch hipcc
    takes for AMD (kaldi's `#ifdef __IS_HIP_COMPILE__` / `#include "hipify.h"`), its own HIP layer. `platform`: the
    project's macros HIP's platform decides (MacroTable.on_amd), whose tests are read as HIP's own."""
    switches = frozenset(switches)
    return {"hip_aliases": hip_aliases(aliases, switches, platform), "hip_macros": layer_macros(macros, switches, platform),
            "hip_includes": frozenset(os.path.basename(_included(node)) for node in includes
                                      if hip_branch(node, switches, platform))}


def layer_facts(includes: list[Node]) -> dict[str, Any]:
    """ParsedFile's fields for the file's #includes: its vendor_layer, alternative_includes and include_switches."""
    return {"vendor_layer": vendor_layer(includes), "alternative_includes": alternative_includes(includes),
            "include_switches": include_switches(includes)}
