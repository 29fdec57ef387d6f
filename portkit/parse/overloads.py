"""A project's overload of a CUDA name for a type no CUDA declaration takes.

pytorch_scatter defines `__shfl_down_sync(unsigned, at::Half, unsigned)` beside CUDA's
shuffles, for its own half type: nvcc picks the project's function for an at::Half and
CUDA's for a float. Such a definition adds an overload to CUDA's name and replaces none, so
the name's other uses stay CUDA's (converted and marked), while the definition keeps its
name. A parameter of a built-in type, of a CUDA type (a rule's `__half`, or one HIP spells
alike: `half2`, `float4`, rules/_cuda_value_types.yaml) or of a template's own parameter could
be one CUDA's declarations take: such a definition is read as the project's own name, as before.
"""
from __future__ import annotations

import functools
from typing import Callable

from tree_sitter import Node

from portkit.resources import load_data

# Type nodes that name a class: `Half16`, `at::Half`, `Vec<float>`, `struct Half16`.
_NAMED_TYPES = ("type_identifier", "qualified_identifier", "template_type")
_ELABORATED = ("struct_specifier", "class_specifier", "union_specifier", "enum_specifier")


def _value_types(data: dict) -> frozenset[str]:
    vectors = {f"{base}{width}" for base in data["vector_bases"] for width in data["vector_widths"]}
    return frozenset(str(name) for name in data["names"]) | vectors


@functools.lru_cache(maxsize=1)
def cuda_value_types() -> frozenset[str]:
    """CUDA's types that HIP spells alike (rules/_cuda_value_types.yaml)."""
    return load_data("_cuda_value_types.yaml", _value_types)


def _type_name(kind: Node) -> str:
    """The class a parameter's type names, without template arguments; "" for any other type."""
    if kind.type in _ELABORATED:
        kind = kind.child_by_field_name("name") or kind
    if kind.type == "template_type":
        kind = kind.child_by_field_name("name") or kind
    if kind.type not in _NAMED_TYPES:
        return ""
    return "".join((kind.text or b"").decode("utf-8", "replace").split())


def _template_parameters(declarator: Node) -> set[str]:
    """The type parameters of the templates around a function declarator (`template <typename T>`)."""
    names: set[str] = set()
    node = declarator.parent
    while node is not None:
        if node.type == "template_declaration":
            parameters = node.child_by_field_name("parameters")
            for parameter in parameters.named_children if parameters is not None else ():
                names.update((c.text or b"").decode("utf-8", "replace") for c in parameter.named_children
                             if c.type == "type_identifier")
        node = node.parent
    return names


def overloads(name: Node, is_cuda: Callable[[str], bool] | None) -> bool:
    """Whether `name`, a definition's name, is that of a function that overloads a CUDA name (`is_cuda`) for a class
    no CUDA declaration takes: not CUDA's own (a rule's, or one HIP spells alike) and no template parameter. Its
    other uses stay CUDA's: no project name."""
    declarator = name.parent
    if is_cuda is None or declarator is None or declarator.type != "function_declarator":
        return False
    parameters = declarator.child_by_field_name("parameters")
    kinds = [p.child_by_field_name("type") for p in parameters.named_children if p.type == "parameter_declaration"] \
        if parameters is not None else []
    named = [type_name for kind in kinds if kind is not None and (type_name := _type_name(kind))]
    if not named or not is_cuda((name.text or b"").decode("utf-8", "replace")):
        return False
    own = _template_parameters(declarator)
    return any(n not in own and n not in cuda_value_types() and not is_cuda(n) for n in named)
