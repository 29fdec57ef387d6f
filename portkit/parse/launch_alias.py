"""The kernels a launch through a local name stands for: `auto kernel = &k<T>; kernel<<<g, b>>>(...)` (DeepSpeed,
flash-attention) launches k, and is counted as k's launch. A choice (`auto k = big ? &a : &b;`) and assignments
before the launch (`void (*k)(float*); if (big) k = a; else k = b;`) stand for every kernel they name; where one
of the values names no function (a call, a parameter), the launch stays the local name's."""
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


def _functions_named(value: Node | None) -> list[str]:
    """The functions `value` names: `k`, `&k`, `&k<T>`, `(&k)`, each side of `c ? &a : &b`; [] where any part of it
    names no function (a call, a parameter)."""
    while value is not None and (value.type == "parenthesized_expression"
                                 or value.type == "pointer_expression" and node_text(value).startswith("&")):
        value = value.child_by_field_name("argument") if value.type == "pointer_expression" else value.named_children[0]
    if value is None:
        return []
    if value.type == "conditional_expression":
        sides = [_functions_named(value.child_by_field_name(side)) for side in ("consequence", "alternative")]
        return [name for side in sides for name in side] if all(sides) else []
    if value.type == "template_function":
        value = value.child_by_field_name("name")
    return ["".join(node_text(value).split())] if value is not None and value.type in ("identifier", "qualified_identifier") \
        else []


def _declaration(block: Node, name: bytes, before: int) -> tuple[Node, Node | None] | None:
    """The last declaration of `name` among the statements of `block` before offset `before`, and its value (None
    for one with none); None where `block` declares no `name` there."""
    found = None
    for statement in block.named_children:
        if statement.start_byte >= before:
            break
        if statement.type != "declaration":
            continue
        for declarator in statement.children_by_field_name("declarator"):
            inner = declarator.child_by_field_name("declarator") if declarator.type == "init_declarator" else declarator
            if _declared_name(inner) == name:
                found = (statement, declarator.child_by_field_name("value") if declarator.type == "init_declarator" else None)
    return found


def _assigned(block: Node, name: bytes, after: int, before: int) -> list[Node]:
    """The values `name = value` assigns in `block` between offsets `after` and `before` (nested blocks included:
    the branches of an `if`)."""
    values, pending = [], [block]
    while pending:
        node = pending.pop()
        if node.end_byte <= after or node.start_byte >= before:
            continue
        if node.type == "assignment_expression" and node.start_byte >= after:
            left, value = node.child_by_field_name("left"), node.child_by_field_name("right")
            operator = node.child_by_field_name("operator")
            if left is not None and left.type == "identifier" and left.text == name \
                    and (operator is None or operator.type == "="):
                values.append(value)
        pending.extend(node.named_children)
    return sorted(values, key=lambda value: value.start_byte)


def aliased_kernels(kernel: Node) -> tuple[str, ...]:
    """The functions a launched local name may stand for: its initialiser's and those assigned to it before the
    launch, in the innermost block that declares it; () where the name is no such local (a kernel itself, a
    parameter) or one of those values names no function."""
    if kernel.type != "identifier":
        return ()
    name, block = kernel.text or b"", kernel.parent
    while block is not None and block.type != "function_definition":
        if block.type == "compound_statement":
            declared = _declaration(block, name, kernel.start_byte)
            if declared is not None:
                statement, initial = declared
                values = ([initial] if initial is not None else []) \
                    + _assigned(block, name, statement.end_byte, kernel.start_byte)
                named = [_functions_named(value) for value in values]
                if not values or not all(named):
                    return ()
                return tuple(dict.fromkeys(function for names in named for function in names))
        block = block.parent
    return ()
