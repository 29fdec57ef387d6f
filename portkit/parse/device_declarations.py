"""What a preprocessor branch declares, where it declares only device functions.

`#if __CUDA_ARCH__ >= 600` around `__device__ void add(double*, double)` (tiny-cuda-nn's atomic_add_gmem_h2)
holds nothing that differs between a host and a device compile: the function is never emitted for the host. nvcc's
host pass never reads the kernel bodies that call it; clang's (hipcc) parses and instantiates them, so there the
declaration must be seen in both passes. Which functions such a branch declares (`__device__`, not `__host__` or
`__global__`: a kernel's host stub and a host function's code differ between the passes) is what this module reads;
anything else in the branch (a variable, a type, a macro, an #include, host code) makes it no such branch.
"""
from __future__ import annotations

from typing import Iterable, Iterator, Optional

from tree_sitter import Node

from portkit.parse.spaces import function_declarator, spaces_of

_GROUPS = ("preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef")
_FUNCTIONS = ("function_definition", "declaration")
_NAMES = ("identifier", "operator_name")


# How many #if groups deep a branch is read. Projects nest a few; a file nesting 100,000 would have each directive
# walk every group beneath it (quadratic in the file) and exhaust Python's recursion.
MAX_NESTING = 16


class _Other(Exception):
    """The branch holds something besides device functions."""


class NestedTooDeep(Exception):
    """The branch nests #if groups deeper than MAX_NESTING."""


def branch_items(directive: Node) -> list[Node]:
    """The declarations and directives an #if/#elif/#else branch holds itself (not its test, not its #elif/#else)."""
    skipped = {directive.child_by_field_name(field) for field in ("condition", "name", "alternative")}
    return [child for child in directive.named_children if child not in skipped]


def flattened(items: Iterable[Node]) -> Iterator[Node]:
    """`items`, each nested #if group replaced by what its branches hold (their tests aside), in order; raises
    NestedTooDeep where groups nest deeper than MAX_NESTING. A loop, not recursion: a hostile file nests 100,000."""
    stack = [iter(items)]
    while stack:
        node = next(stack[-1], None)
        if node is None:
            stack.pop()
        elif node.type in _GROUPS:  # its branches: the #if's (or the #elif's, #else's given alone), then its chain's
            if node.type in ("preproc_if", "preproc_ifdef") and len(stack) > MAX_NESTING:
                raise NestedTooDeep
            held: list[Node] = []
            branch: Node | None = node
            while branch is not None:  # however long the chain, one level
                held += branch_items(branch)
                branch = branch.child_by_field_name("alternative")
            stack.append(iter(held))
        else:
            yield node


def device_functions(items: Iterable[Node]) -> Optional[tuple[str, ...]]:
    """The names of the device-only functions `items` declare or define, in order, once each (() for none);
    None where they hold anything else. Comments, `#pragma` lines and nested #if groups of the same are nothing else."""
    try:
        return tuple(dict.fromkeys(_names(items)))
    except (_Other, NestedTooDeep):
        return None


def _names(items: Iterable[Node]) -> Iterator[str]:
    for node in flattened(items):  # a nested group: each of its branches, its test aside
        if node.type == "comment":
            continue
        if node.type == "preproc_call" and _directive(node) == b"#pragma":
            continue
        elif node.type in _FUNCTIONS and (name := _device_function_name(node)):
            yield name
        elif node.type == "template_declaration" and (name := _device_function_name(_templated(node))):
            yield name
        else:
            raise _Other


def _templated(template: Node) -> Node:
    """What a `template <...>` declares: its last named child (the parameter list comes first)."""
    return template.named_children[-1]


def _device_function_name(node: Node) -> str:
    """The name of a `__device__` (not `__host__`, not `__global__`) function declared or defined; "" otherwise."""
    if node.type not in _FUNCTIONS:
        return ""
    spaces = spaces_of(node)
    declarator = function_declarator(node)
    name = declarator.child_by_field_name("declarator") if declarator is not None else None
    if spaces != ("__device__",) or name is None or name.type not in _NAMES:
        return ""
    return (name.text or b"").decode("utf-8", "replace")


def _directive(call: Node) -> bytes:
    directive = call.child_by_field_name("directive")
    return (directive.text or b"") if directive is not None else b""
