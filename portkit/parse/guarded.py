"""Guarded definitions: which definitions of CUDA names under #if stand in for CUDA's (for compilers
without it), and which are the project's own.

`#ifdef USE_CUDNN / #include <cudnn.h> / #else / typedef void* cudnnHandle_t;` defines the name
only where CUDA's header does not: a guarded definition, whose uses stay CUDA's. A definition is the
project's own, though, where no path through the file leaves the name to CUDA: every branch of
its #if group defines it (`#if defined(__LP64__)` / `#else`, one typedef each), or the file
decides the test itself (`#define __CUDA_API_VERSION 5000`, then `#if __CUDA_API_VERSION >=
3020`), as a program's own copy of the driver API's declarations does (CUDA Samples'
cuda_drvapi_dynlink_cuda.h, for a program that loads libcuda at run time). So is a fallback in the branch
of a test of CUDA's version that hipcc compiles (`#if CUDART_VERSION < 12000`): a HIP build gets it.
"""
from __future__ import annotations

import re
from typing import Iterable

from tree_sitter import Node

from portkit.parse.hipcc_branch import amd_value, hipcc_branch

_BRANCHES = ("preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef")
_ALTERNATIVES = ("preproc_else", "preproc_elif", "preproc_elifdef")
_NAME = re.compile(rb"\b[A-Za-z_]\w*")


def include_guard(node: Node) -> bool:
    """`#ifndef X` / `#if !defined(X)` whose first line is `#define X`."""
    test = node.child_by_field_name("name") or node.child_by_field_name("condition")
    guard = re.fullmatch(rb"(?:!\s*defined\s*\(?\s*)?(\w+)\s*\)?", (test.text or b"").strip()) if test else None
    first = next((c for c in node.named_children if c != test and c.type != "comment"), None)
    defined = first.child_by_field_name("name") if first is not None and first.type == "preproc_def" else None
    return guard is not None and defined is not None and defined.text == guard.group(1)


def opening_group(branch: Node) -> Node:
    """The #if/#ifdef that opens the group an #else or #elif belongs to."""
    while branch.type in _ALTERNATIVES and branch.parent is not None and branch.parent.type in _BRANCHES:
        branch = branch.parent
    return branch


def branch_chain(group: Node) -> tuple[list[Node], list[tuple[int, int]], bool]:
    """The group's tests, each branch's byte range, and whether it has an #else."""
    tests, ranges, node = [], [], group
    while True:
        test = node.child_by_field_name("condition") or node.child_by_field_name("name")
        if test is not None:
            tests.append(test)
        alternative = node.child_by_field_name("alternative")
        ranges.append((node.start_byte, alternative.start_byte if alternative is not None else node.end_byte))
        if alternative is None:
            return tests, ranges, False
        if alternative.type == "preproc_else":
            ranges.append((alternative.start_byte, alternative.end_byte))
            return tests, ranges, True
        node = alternative


def spelled_test(test: Node) -> str | None:
    """A test as `#if` spells it: `#ifdef X` is `defined(X)`; None for `#elifdef`, which no test here needs."""
    directive = test.parent.children[0].type if test.parent is not None and test.parent.children else ""
    text = (test.text or b"").decode("utf-8", "replace")
    if directive in ("#ifdef", "#ifndef"):
        return f"{'!' if directive == '#ifndef' else ''}defined({text})"
    return text if directive in ("#if", "#elif") else None


class GuardedDefinitions:
    """One file's definitions (name nodes), asked which of them are guarded: CUDA's stand-ins."""

    def __init__(self, definitions: Iterable[Node]):
        self.at: dict[bytes, list[int]] = {}
        self.macros: list[Node] = []
        for node in definitions:
            self.at.setdefault(node.text or b"", []).append(node.start_byte)
            if node.parent is not None and node.parent.type in ("preproc_def", "preproc_function_def"):
                self.macros.append(node)
        self._own: dict[bytes, int] | None = None

    def own_macros(self) -> dict[bytes, int]:
        """The macros the file #defines outside any #if (an include guard aside), with the offset of the first."""
        if self._own is None:
            self._own = {}
            for node in self.macros:  # in any order (a query's captures are not in document order)
                if not any(self._conditional(group, node) for group in self._groups(node)):
                    name = node.text or b""
                    self._own[name] = min(self._own.get(name, node.start_byte), node.start_byte)
        return self._own

    def is_guarded(self, name: Node) -> bool:
        """Whether a definition sits in a branch some path through the file skips for CUDA's declaration."""
        return any(self._conditional(group, name) and not self._decided(group) and not self._everywhere(name, group)
                   and not self._hipcc_compiles(name, group) for group in self._groups(name))

    @staticmethod
    def _groups(node: Node) -> list[Node]:
        groups, parent = [], node.parent
        while parent is not None:
            if parent.type in _BRANCHES:
                parent = opening_group(parent)
                groups.append(parent)
            parent = parent.parent
        return groups

    @staticmethod
    def _conditional(group: Node, node: Node) -> bool:
        """An include guard's body is no branch; its #else (if it had one) would be."""
        return not include_guard(group) or branch_chain(group)[1][0][1] <= node.start_byte

    def _decided(self, group: Node) -> bool:
        """Whether every name the group's tests read is a macro the file #defines before it, unconditionally."""
        names = {n for test in branch_chain(group)[0] for n in _NAME.findall(test.text or b"")} - {b"defined"}
        own = self.own_macros() if names else {}
        return bool(names) and all(n in own and own[n] < group.start_byte for n in names)

    @staticmethod
    def _hipcc_compiles(name: Node, group: Node) -> bool:
        """Whether the name's branch is the one hipcc compiles, the group testing only CUDA's version."""
        tests, ranges, has_else = branch_chain(group)
        texts = [spelled_test(test) for test in tests]
        if None in texts:
            return False
        taken = hipcc_branch(texts, has_else)
        return taken is not None and 0 <= taken < len(ranges) and ranges[taken][0] <= name.start_byte < ranges[taken][1]

    def _everywhere(self, name: Node, group: Node) -> bool:
        """Whether each branch of the group, #else included, defines the name."""
        _, ranges, has_else = branch_chain(group)
        starts = self.at.get(name.text or b"", [])
        return has_else and all(any(start <= at < end for at in starts) for start, end in ranges)


def branch_not_hipccs(node: Node) -> tuple[int, int] | None:
    """The byte range of the innermost preprocessor branch around `node` that hipcc compiling for AMD is not known to
    take (`#else` of `#ifndef USE_ROCM`: the project decides), or None where every branch around it is one hipcc takes
    (`#ifdef __HIPCC__`) or an include guard: what `node` declares holds only inside that range."""
    parent = node.parent
    while parent is not None:
        if parent.type in _BRANCHES and not include_guard(opening_group(parent)):
            tests, ranges, _ = branch_chain(opening_group(parent))
            index = next((i for i, (start, end) in enumerate(ranges) if start <= node.start_byte < end), None)
            if index is None:
                return None  # not inside one of its branches (cannot be: a branch's node holds its own range)
            values = [amd_value(spelled) if (spelled := spelled_test(t)) is not None else None for t in tests]
            if not (all(v == 0 for v in values[:index]) and (index == len(tests) or values[index] == 1)):
                return ranges[index]
        parent = parent.parent
    return None
