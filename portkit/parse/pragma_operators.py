"""The `_Pragma("...")` operator: a #pragma written as an expression, in code or in a #define body.

`_Pragma("nv_diag_suppress 177")` is `#pragma nv_diag_suppress 177` wherever it is expanded, so the analyzers read it
as the directive (Role.PRAGMA, its text the pragma's words). Where it stands decides how a guard can go around it,
which the occurrence says: in code, its span is the operator's and its one part the line it is alone on (none when
the line holds more); in a #define, its part is the whole #define from `#`, when the body is `_Pragma`s only, and
MacroFacts.definition the `#define NAME(params)` that a branch without the pragma keeps (a use must still expand).
"""
from __future__ import annotations

import re
from typing import Callable, Iterator

from tree_sitter import Node

from portkit.model import MacroFacts, Occurrence, Role, Span
from portkit.parse.nodes import body_positions, node_position, under_hip_test

# The operator and its one string literal (an encoding prefix allowed): group 1 the literal's body.
OPERATOR = re.compile(rb'\b_Pragma\s*\(\s*(?:u8|[LuU])?"((?:[^"\\\n]|\\.)*)"\s*\)')
_DESTRINGIZED = re.compile(rb'\\([\\"])')  # what the operator undoes: `\"` and `\\`
_SPLICE = re.compile(rb"\\\r?\n")
_DEFINES = ("preproc_def", "preproc_function_def")
_NOT_CODE = ("comment", "string_literal", "raw_string_literal", "string_content", "raw_string_content", "char_literal")


def words(literal_body: bytes) -> str:
    """The pragma's words, as a #pragma directive's text: the literal destringized, blanks collapsed."""
    return b" ".join(_DESTRINGIZED.sub(rb"\1", literal_body).split()).decode("utf-8", "replace")


def in_code(root: Node, source: bytes, function_at: Callable[[int], str]) -> Iterator[Occurrence]:
    """The operators outside #define bodies, comments and strings (a #define's are `in_define`'s)."""
    for match in OPERATOR.finditer(source):
        node = root.descendant_for_byte_range(match.start(), match.start() + len(b"_Pragma"))
        if node is None or node.type in _NOT_CODE or _in_define(node):
            continue
        line_start = source.rfind(b"\n", 0, match.start()) + 1
        line_end = source.find(b"\n", match.end())
        line_end = len(source) if line_end < 0 else line_end
        alone = source[line_start:line_end].strip().rstrip(b";").rstrip() == match.group()
        yield Occurrence(Span(match.start(), match.end()), Role.PRAGMA, words(match.group(1)), node_position(node),
                         function_at(match.start()), "operator", parts=(Span(line_start, line_end),) if alone else (),
                         info=MacroFacts(under_hip_test(node)))


def in_define(body_node: Node, source: bytes, code: Callable[[bytes], bytes]) -> list[Occurrence]:
    """The operators of one #define body (`code`: the body with its comments and strings blanked in place)."""
    base, body = body_node.start_byte, source[body_node.start_byte:body_node.end_byte]
    if b"_Pragma" not in body:
        return []
    blanked = code(body)
    matches = [m for m in OPERATOR.finditer(body) if blanked.startswith(b"_Pragma", m.start())]
    definition = body_node.parent
    if not matches or definition is None or definition.type not in _DEFINES:
        return []
    rest = bytearray(blanked)
    for match in matches:
        rest[match.start():match.end()] = b" " * (match.end() - match.start())
    only_pragmas = not _SPLICE.sub(b"", bytes(rest)).strip()
    whole = Span(definition.start_byte, base + len(body.rstrip()))
    head = b" ".join(_SPLICE.sub(b" ", source[definition.start_byte:base]).split()).decode("utf-8", "replace")
    facts = MacroFacts(under_hip_test(definition), head)
    position = body_positions(body_node, body)
    return [Occurrence(Span(base + m.start(), base + m.end()), Role.PRAGMA, words(m.group(1)), position(m.start()),
                       "", "define", parts=(whole,) if only_pragmas else (), info=facts) for m in matches]


def _in_define(node: Node) -> bool:
    parent = node
    while parent is not None:
        if parent.type in _DEFINES or parent.type == "preproc_arg":
            return True
        parent = parent.parent
    return False
