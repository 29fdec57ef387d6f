"""Device functions an architecture test's device side defines that the other side defines again for the host.

ccminer's `#ifdef __CUDA_ARCH__` `__device__ uint32_t swab32(...)` `#else` `#define swab32(x) ...` (or a host
function) gives each of nvcc's passes its own swab32: nvcc's device pass never reads host bodies, its host pass
never reads kernel bodies. clang (hipcc) type-checks both in both passes: host code calling swab32 in the device
pass finds only a `__device__` function, and a kernel calling a host function in the host pass only a host one
("no matching function"). Written `__host__ __device__`, each definition is callable from both sides, and is still
compiled only in its own pass: neither body is ever emitted for the other side, so clang defers (and never emits)
what it would reject there. A function-like macro needs nothing. A name the host side defines in any other way (an
object-like macro, a variable) is left, for a marker.
"""
from __future__ import annotations

from typing import Iterable, Iterator, NamedTuple

from tree_sitter import Node

from portkit.parse.device_declarations import NestedTooDeep, flattened
from portkit.parse.spaces import function_declarator, spaces_of

# What a twin's declaration gets before it (TwinFacts.edits' kind is an index): a device function is made callable
# from host code, a host function from device code (its `__host__`, where it has one, kept).
ADDED_SPACES = ("__host__ ", "__device__ ", "__host__ __device__ ")
_FUNCTIONS = ("function_definition", "declaration")


class TwinFacts(NamedTuple):
    names: tuple[str, ...] = ()  # the names both sides define, each for its own pass
    edits: tuple[int, ...] = ()  # flat: offset, line, column, ADDED_SPACES index, index into names; for each twin
    left: tuple[str, ...] = ()  # device functions the host side defines in a way no space can change


def host_twins(device_items: Iterable[Node], host_items: Iterable[Node]) -> TwinFacts:
    """The twins of the `__device__`-only functions `device_items` declare among what `host_items` defines (none where
    either nests #if groups too deep to read)."""
    try:
        return _twins(list(_declarations(device_items)), host_items)
    except NestedTooDeep:
        return TwinFacts()


def _twins(device: list[tuple[str, Node]], host_items: Iterable[Node]) -> TwinFacts:
    devices = {name for name, node in device if _function(node) and spaces_of(node) == ("__device__",)}
    if not devices:
        return TwinFacts()
    host = [(name, node) for name, node in _declarations(host_items) if name in devices]
    hosts = {name for name, node in host if node.type == "preproc_function_def" or _host_only(node)}
    left = {name for name, node in host if node.type == "preproc_def" or _variable(node)}
    twins = hosts - left
    edits: list[int] = []
    names = tuple(n for n in dict.fromkeys(name for name, _ in device) if n in twins)
    for name, node in device + host:
        if name not in twins or not _function(node):
            continue
        spaces = spaces_of(node)
        kind = 0 if spaces == ("__device__",) else 1 if spaces == ("__host__",) else 2 if not spaces else -1
        if kind >= 0:
            edits += [node.start_byte, node.start_point[0] + 1, node.start_point[1] + 1, kind, names.index(name)]
    return TwinFacts(names, tuple(edits), tuple(sorted(left)))


def _function(node: Node) -> bool:
    return node.type in _FUNCTIONS and function_declarator(node) is not None


def _variable(node: Node) -> bool:
    """A host variable's declaration (no space: `__device__ int x` is no host definition)."""
    return node.type == "declaration" and function_declarator(node) is None and not spaces_of(node)


def _host_only(node: Node) -> bool:
    """A function host code may call (`__host__ __device__` already, or no space but `__host__`)."""
    return _function(node) and spaces_of(node) in ((), ("__host__",), ("__host__", "__device__"))


def _declarations(items: Iterable[Node]) -> Iterator[tuple[str, Node]]:
    """(name, node) for each function declared or defined and each macro defined, nested #if groups' included;
    a variable's declaration too (its node has no function declarator)."""
    for node in flattened(items):
        if node.type in ("preproc_def", "preproc_function_def"):
            name = node.child_by_field_name("name")
            if name is not None:
                yield (name.text or b"").decode("utf-8", "replace"), node
        elif node.type == "template_declaration" and node.named_children:
            yield from _declarations([node.named_children[-1]])
        elif node.type in _FUNCTIONS:
            yield from ((name, node) for name in _declared_names(node))


def _declared_names(node: Node) -> Iterator[str]:
    declarator = function_declarator(node)
    if declarator is not None:
        name = declarator.child_by_field_name("declarator")
        if name is not None and name.type == "identifier":
            yield (name.text or b"").decode("utf-8", "replace")
        return
    for child in node.children_by_field_name("declarator"):  # variables: `uint32_t swab32 = ...;`
        while child is not None and child.type not in ("identifier",):
            child = child.child_by_field_name("declarator")
        if child is not None:
            yield (child.text or b"").decode("utf-8", "replace")
