"""Arithmetic on handles: variables of a type that is an integer in CUDA and a pointer in HIP.

CUDA's `CUdeviceptr` is an unsigned integer and `cudaTextureObject_t` an unsigned long long;
HIP's `hipDeviceptr_t` is `void*` and `hipTextureObject_t` a pointer to an incomplete struct, so
`base + offset` or `texture >> 32` no longer compiles once the type is renamed. Which types are
such handles is rule data (`hip_pointer`), given here as a predicate: the parser knows no CUDA.
Only files that declare a variable of such a type (or a pointer or array of them) are searched, by the
declared names' spellings.
"""
from __future__ import annotations

import re
from typing import Callable, Iterable, NamedTuple

from tree_sitter import Node

from portkit.model import HandleFacts, Occurrence, Position, Role, Span

_ARITHMETIC = frozenset({"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"})
_COMPOUND = frozenset(op + "=" for op in _ARITHMETIC)
_DECLARATIONS = ("declaration", "parameter_declaration", "field_declaration")


def _operator(value: Node) -> tuple[str, Node] | None:
    """The arithmetic operator `value` is an operand of, and the expression, or None."""
    parent = value.parent
    if parent is None:
        return None
    operator = parent.child_by_field_name("operator")
    spelled = operator.type if operator is not None else ""
    if parent.type == "binary_expression" and spelled in _ARITHMETIC:
        return spelled, parent
    if parent.type == "assignment_expression" and spelled in _COMPOUND and parent.child_by_field_name("left") == value:
        return spelled, parent
    if parent.type == "update_expression" and spelled in ("++", "--"):
        return spelled, parent
    return None


class _Handle(NamedTuple):
    kind: str  # the CUDA type
    indirect: bool  # held through a pointer or an array: `CUdeviceptr *all`, whose value is `*all` or `all[i]`
    body: tuple[int, int] | None  # a member's class body: its plain name means the member only in there


def _declared(root: Node, occurrences: Iterable[Occurrence], is_handle: Callable[[str], bool]) -> dict[tuple[str, str], _Handle]:
    """(function, name) -> _Handle for each variable or member declared with a handle type."""
    declared: dict[tuple[str, str], _Handle] = {}
    for occurrence in occurrences:
        if occurrence.role is not Role.TYPE or not is_handle(occurrence.text):
            continue
        node = root.descendant_for_byte_range(occurrence.span.start, occurrence.span.end)
        declaration = node.parent if node is not None else None
        if declaration is None or declaration.type not in _DECLARATIONS:
            continue
        for declarator in declaration.children_by_field_name("declarator"):
            if declarator.type == "init_declarator":
                declarator = declarator.child_by_field_name("declarator")
            indirect = declarator is not None and declarator.type in ("pointer_declarator", "array_declarator")
            if indirect:
                declarator = declarator.child_by_field_name("declarator")
            if declarator is not None and declarator.type in ("identifier", "field_identifier") and declarator.text:
                body = declaration.parent if declaration.type == "field_declaration" else None
                declared[(occurrence.function, declarator.text.decode())] = _Handle(
                    occurrence.text, indirect, (body.start_byte, body.end_byte) if body is not None else None)
    return declared


def _refers(node: Node, handle: _Handle) -> bool:
    """Whether the name at `node` is the handle: a member is `s.name` anywhere and `name` in its class body,
    a variable a plain `name`."""
    if handle.body is None:
        return node.type == "identifier"
    return node.type == "field_identifier" or handle.body[0] <= node.start_byte < handle.body[1]


def _value(node: Node, indirect: bool) -> Node | None:
    """The expression holding the handle: the name itself (a member: `s.ptr`, `s->ptr`), or `*name` / `name[i]`
    for a pointer or array of them."""
    parent = node.parent
    if parent is None:
        return None
    if node.type == "field_identifier":
        if parent.type != "field_expression" or parent.child_by_field_name("field") != node:
            return None
        node, parent = parent, parent.parent
        if parent is None:
            return None
    if not indirect:
        return node
    operator = parent.child_by_field_name("operator")
    if parent.type == "pointer_expression" and operator is not None and operator.type == "*" \
            or parent.type == "subscript_expression" and parent.child_by_field_name("argument") == node:
        return parent
    return None


def handle_arithmetic(root: Node, source: bytes, occurrences: Iterable[Occurrence], is_handle: Callable[[str], bool],
                      name_at: Callable[[int], str]) -> list[Occurrence]:
    """Each arithmetic use of a variable the file declares with a handle type, in the function that declares it
    (or anywhere, for one declared at file scope), or of such a member (`s.ptr + n`; `ptr + n` in its class body):
    text the name, detail its type, info the operator."""
    declared = _declared(root, occurrences, is_handle)
    if not declared:
        return []
    names = sorted({name for _, name in declared}, key=len, reverse=True)
    spelled = re.compile(rb"\b(?:" + b"|".join(re.escape(n.encode()) for n in names) + rb")\b")
    found = []
    for match in spelled.finditer(source):
        node = root.descendant_for_byte_range(match.start(), match.end())
        if node is None or node.type not in ("identifier", "field_identifier") or (node.start_byte, node.end_byte) != match.span():
            continue  # a comment, a string
        name = match.group().decode()
        function = name_at(node.start_byte)
        handle = declared.get((function, name)) or declared.get(("", name))
        if handle is None or not _refers(node, handle):
            continue
        value = _value(node, handle.indirect)
        use = _operator(value) if value is not None else None
        if use is None:
            continue
        operator, expression = use
        row, column = node.start_point
        found.append(Occurrence(Span(expression.start_byte, expression.end_byte), Role.HANDLE_ARITHMETIC, name,
                                Position(row + 1, column + 1), function, handle.kind, info=HandleFacts(operator)))
    return found
