"""The execution spaces (`__host__`, `__device__`, `__global__`) of a function as written.

nvcc lets a member function declared in its class without `__device__` be defined
`__host__ __device__` outside it; clang (hipcc) rejects the redeclaration. Finding
that needs each declaration's and definition's spaces, and the spelling the source
uses for them: through an attribute macro (`HOST_DEVICE`), the macro's name, which
the prepared bytes the tree was parsed from replaced in place (portkit/parse/prepare.py).
"""
from __future__ import annotations

from tree_sitter import Node

from portkit.parse.lexer import word_end, word_start

SPACES = ("__host__", "__device__", "__global__")


def spaces_of(node: Node) -> tuple[str, ...]:
    """The spaces among a declaration's or definition's own tokens, in CUDA's order."""
    found = {c.type for c in node.children if not c.is_named}
    return tuple(s for s in SPACES if s in found)


def spelled_spaces(node: Node, source: bytes) -> str:
    """How the source writes the spaces of `node`: `__host__ __device__`, `HOST_DEVICE`..."""
    words: list[str] = []
    for child in node.children:
        if child.is_named or child.type not in SPACES:
            continue
        start, end = word_start(source, child.start_byte), word_end(source, child.end_byte)
        word = source[start:end].decode("utf-8", "replace")
        if word not in words:
            words.append(word)
    return " ".join(words)


def function_declarator(node: Node) -> Node | None:
    """The function_declarator under a declaration's declarators (`T *f(int)`), or None."""
    declarator = node.child_by_field_name("declarator")
    while declarator is not None and declarator.type != "function_declarator":
        inner = declarator.child_by_field_name("declarator")
        if inner is None and declarator.type == "reference_declarator":  # `T& f(...)`: its child has no field name
            inner = next((c for c in declarator.named_children if c.type != "comment"), None)
        declarator = inner
    return declarator


def parameter_count(declarator: Node) -> int:
    parameters = declarator.child_by_field_name("parameters")
    if parameters is None:
        return 0
    named = [p for p in parameters.named_children if p.type != "comment"]
    if len(named) == 1 and (named[0].text or b"").strip() == b"void":
        return 0
    return len(named)


def member_owner(node: Node) -> str:
    """The name of the class or struct whose body holds `node` (a field_declaration), or ""."""
    body = node.parent
    owner = body.parent if body is not None else None
    if owner is None or owner.type not in ("class_specifier", "struct_specifier"):
        return ""
    name = owner.child_by_field_name("name")
    return (name.text or b"").decode("utf-8", "replace") if name is not None else ""
