"""The kernel a launch through a local name stands for: `auto kernel = &k<T>; kernel<<<g, b>>>(...)` (DeepSpeed,
flash-attention) launches k, and is counted as k's launch."""
from __future__ import annotations

from tree_sitter import Node

from portkit.parse.nodes import node_text

# Declarators around a declared name: `*kernel`, `(*kernel)(int)`, `&kernel`.
_WRAPPING_DECLARATORS = ("pointer_declarator", "reference_declarator", "function_declarator", "parenthesized_declarator")


def _declared_name(declarator: Node | None) -> bytes:
    while declarator is not None and declarator.type in _WRAPPING_DECLARATORS:
        inner = declarator.child_by_field_name("declarator")
        declarator = inner if inner is not None else next(iter(declarator.named_children), None)
    return declarator.text or b"" if declarator is not None and declarator.type == "identifier" else b""


def _function_named(value: Node | None) -> str:
    """The function `value` names: `k`, `&k`, `&k<T>`, `(&k)`; "" for anything else (a choice, a call)."""
    while value is not None and (value.type == "parenthesized_expression"
                                 or value.type == "pointer_expression" and node_text(value).startswith("&")):
        value = value.child_by_field_name("argument") if value.type == "pointer_expression" else value.named_children[0]
    if value is None:
        return ""
    if value.type == "template_function":
        value = value.child_by_field_name("name")
    return node_text(value) if value is not None and value.type in ("identifier", "qualified_identifier") else ""


def _initialiser(block: Node, name: bytes, before: int) -> Node | None | bool:
    """The value of the last declaration of `name` in `block` before offset `before`: None for one with no value,
    False where `block` declares no `name` there."""
    found: Node | None | bool = False
    for statement in block.named_children:
        if statement.start_byte >= before:
            break
        if statement.type != "declaration":
            continue
        for declarator in statement.children_by_field_name("declarator"):
            inner = declarator.child_by_field_name("declarator") if declarator.type == "init_declarator" else declarator
            if _declared_name(inner) == name:
                found = declarator.child_by_field_name("value") if declarator.type == "init_declarator" else None
    return found


def aliased_kernel(kernel: Node) -> str:
    """The function a launched local name was initialised from, in the innermost block that declares it before
    the launch; "" where the name is no such local (a kernel itself, a parameter, a choice between kernels)."""
    if kernel.type != "identifier":
        return ""
    name, block = kernel.text or b"", kernel.parent
    while block is not None and block.type != "function_definition":
        if block.type == "compound_statement":
            value = _initialiser(block, name, kernel.start_byte)
            if value is not False:
                return _function_named(value) if isinstance(value, Node) else ""
        block = block.parent
    return ""
