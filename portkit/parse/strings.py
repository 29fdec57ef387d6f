"""String literals, as values: only in a file that calls a name whose string arguments the analyzers read.

A kernel compiled at run time (NVRTC) is C++ text in a string literal, and its compiler's options are strings
too: reading them needs the literals' values, which the query never captures (a scan of every literal of every
file would cost every file for the few that compile kernels at run time). Which calls make a file's literals
worth reading is the analyzers' word, given here as names: the parser knows no CUDA library. A file whose
literals may define a kernel (`__global__`, CUDA's own keyword) has them read too, whoever compiles them: the
kernel's text is often held in one file and compiled in another.

Each literal (adjacent literals, concatenated, are one) becomes a STRING occurrence: its text the value (escape
sequences decoded, a raw string as written), its span the whole literal, and its StringFacts the variable it
initialises or is assigned to, and where each piece's value starts, on which line, and whether it is raw.
"""
from __future__ import annotations

import functools
import re
from typing import Callable, Iterable

from tree_sitter import Node, Query, QueryCursor

from portkit.model import Occurrence, Position, Role, Span, StringFacts
from portkit.parse.queries import grammar
from portkit.parse.recovery import MAX_QUERY_DEPTH

# A value longer than this is cut: a kernel is a few kilobytes, and a megabyte blob is not one.
VALUE_LIMIT = 1 << 20
_ESCAPE = re.compile(r"\\(?:[0-7]{1,3}|x[0-9A-Fa-f]+|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)", re.S)
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "a": "\a", "b": "\b", "f": "\f", "v": "\v",
                   "\\": "\\", "'": "'", '"': '"', "?": "?", "\n": ""}
# Declarators around the declared name: `*kSrc`, `kSrc[]`, `&ref`.
_DECLARATORS = ("pointer_declarator", "array_declarator", "reference_declarator", "init_declarator")


@functools.lru_cache(maxsize=1)
def _query() -> Query:
    return Query(grammar(), "[(string_literal) (raw_string_literal) (concatenated_string)] @string")


def calls_one_of(source: bytes, occurrences: Iterable[Occurrence], names: frozenset[str]) -> bool:
    """Whether the file calls one of `names`: its bytes spell one (at C speed: most files spell none), and then
    one of its calls is one."""
    return any(name.encode() in source for name in names) and any(o.role is Role.CALL and o.text in names for o in occurrences)


# A literal that may hold a kernel definition: `__global__` after a quote on its line, or anywhere in a file with a
# raw string (`R"(` and the kernel on the lines after). A C-speed test, before any literal is read.
# Each starts with its quote (what comes before it checked behind it): the engine skips to each quote at C speed, where
# a pattern that starts with a look-behind or `\b` is tried at every offset.
_KERNEL_QUOTED = re.compile(rb'"(?<!C")[^"\n]*\b__global__\b')  # not `extern "C" __global__` in code
_RAW_OPENING = re.compile(rb'R"(?<=\bR")[^(\s"\\]{0,16}\(')


def may_hold_kernel_text(source: bytes) -> bool:
    """Whether a string literal of the file may define a kernel (`__global__`): CUDA text some program compiles at
    run time (NVRTC), in this file or another (a header that holds the kernel, a source that compiles it)."""
    return b"__global__" in source and (_KERNEL_QUOTED.search(source) is not None
                                        or b'R"' in source and _RAW_OPENING.search(source) is not None)


def string_literals(root: Node, source: bytes, function_at: Callable[[int], str]) -> list[Occurrence]:
    """Every string literal of the tree (a concatenation once, not its pieces too), as STRING occurrences."""
    cursor = QueryCursor(_query())
    cursor.set_max_start_depth(MAX_QUERY_DEPTH)
    # A concatenation before its pieces, which start where it does.
    nodes = sorted(cursor.captures(root).get("string", []), key=lambda n: (n.start_byte, -n.end_byte))
    found: list[Occurrence] = []
    end = -1
    for node in nodes:
        if node.start_byte < end:
            continue  # a piece of the concatenation before it
        end = node.end_byte
        pieces = [c for c in node.named_children if c.type in ("string_literal", "raw_string_literal")] \
            if node.type == "concatenated_string" else [node]
        values, starts, lines, raw = [], [], [], []
        length = 0
        for piece in pieces:
            value = _value(piece, source)
            starts.append(length)
            lines.append(piece.start_point[0] + 1)
            raw.append(piece.type == "raw_string_literal")
            values.append(value)
            length += len(value)
        row, column = node.start_point
        found.append(Occurrence(Span(node.start_byte, node.end_byte), Role.STRING, "".join(values)[:VALUE_LIMIT],
                                Position(row + 1, column + 1), function_at(node.start_byte),
                                info=StringFacts(_holder(node), tuple(starts), tuple(lines), tuple(raw))))
    return found


def _value(piece: Node, source: bytes) -> str:
    if piece.type == "raw_string_literal":
        content = next((c for c in piece.children if c.type == "raw_string_content"), None)
        return source[content.start_byte:content.end_byte].decode("utf-8", "replace") if content is not None else ""
    text = source[piece.start_byte:piece.end_byte].decode("utf-8", "replace")
    body = text[text.find('"') + 1:text.rfind('"')]  # after a prefix (L, u8, u, U)
    return _ESCAPE.sub(_unescaped, body) if "\\" in body else body


def _unescaped(match: re.Match[str]) -> str:
    escape = match.group()[1:]
    if escape in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[escape]
    if escape[0] in "xuU" and len(escape) > 1:
        return chr(min(int(escape[1:], 16), 0x10FFFF))
    if escape[0] in "01234567":
        return chr(int(escape, 8))
    return escape  # an escape C++ does not define: the character


def _holder(literal: Node) -> str:
    """The variable the literal initialises (`const char *kSrc = "..."`, `std::string s(R"(...)")`,
    `std::string s{"..."}`) or is assigned to (`src = "..."`); "" for any other literal."""
    parent = literal.parent
    if parent is not None and parent.type in ("argument_list", "initializer_list") and parent.named_child_count == 1:
        parent = parent.parent
    if parent is None:
        return ""
    if parent.type == "init_declarator":
        return _declared_name(parent.child_by_field_name("declarator"))
    if parent.type == "assignment_expression" and parent.child_by_field_name("right") == literal:
        left = parent.child_by_field_name("left")
        return left.text.decode("utf-8", "replace") if left is not None and left.type == "identifier" and left.text else ""
    return ""


def _declared_name(declarator: Node | None) -> str:
    while declarator is not None and declarator.type in _DECLARATORS:
        declarator = declarator.child_by_field_name("declarator")
    if declarator is None or declarator.type not in ("identifier", "field_identifier") or declarator.text is None:
        return ""
    return declarator.text.decode("utf-8", "replace")
