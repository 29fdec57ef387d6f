"""Which defined names have internal linkage, from the spans of the scopes around them.

A tree-sitter node finds its parent by walking down from the root, so climbing from
a name to the top costs depth squared: 100,000 nested `#if 1` blocks took minutes.
The scopes that decide linkage (anonymous namespaces, classes, function definitions)
come from the query instead, and one sweep over names and scopes sorted by offset
finds each name's innermost scope of each kind: linear in the file, whatever its depth.
"""
from __future__ import annotations

from typing import Sequence

from tree_sitter import Node


def innermost(scopes: Sequence[Node], names: Sequence[Node]) -> list[Node | None]:
    """For each name, the innermost of `scopes` that contains it (or None). Scopes nest, as a tree's do."""
    order = sorted(range(len(names)), key=lambda i: names[i].start_byte)
    ranked = sorted(scopes, key=lambda n: (n.start_byte, -n.end_byte))
    found: list[Node | None] = [None] * len(names)
    open_scopes: list[Node] = []
    next_scope = 0
    for index in order:
        start = names[index].start_byte
        while next_scope < len(ranked) and ranked[next_scope].start_byte <= start:
            _close(open_scopes, ranked[next_scope].start_byte)
            open_scopes.append(ranked[next_scope])
            next_scope += 1
        _close(open_scopes, start)
        found[index] = open_scopes[-1] if open_scopes else None
    return found


def _close(open_scopes: list[Node], offset: int) -> None:
    """Drop the scopes that end at or before `offset` (the innermost is last)."""
    while open_scopes and open_scopes[-1].end_byte <= offset:
        open_scopes.pop()


def internal_linkage(names: Sequence[Node], namespaces: Sequence[Node], members: Sequence[Node],
                     functions: Sequence[Node]) -> list[bool]:
    """Per defined name, whether it is visible in its own translation unit only: anything in an anonymous
    namespace (`namespaces`), or a `static` function at namespace scope (not a member: in `members`, a
    class, struct or field list, `static` means something else)."""
    result = []
    for name, namespace, member, function in zip(names, innermost(namespaces, names), innermost(members, names),
                                                 innermost(functions, names)):
        if namespace is not None and (member is None or namespace.start_byte > member.start_byte):
            result.append(True)
        elif member is not None:
            result.append(False)
        else:
            static = function is not None and any(c.type == "storage_class_specifier" and c.text == b"static"
                                                  for c in function.children)
            result.append(static)
    return result
