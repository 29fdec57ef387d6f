"""Integer constant expressions, as C++ spells array sizes, masks and launch configurations.

`__shared__ float t[TILE][TILE]` or `k<<<g, b, 96 * 1024>>>` only say how much
memory they take once TILE and the arithmetic are known. The values come from the
file's own `#define N 96`, `constexpr int N = 96`, enumerators and calls of
parameterless constexpr functions that return one (`WarpThreads()`: the parser's
CONSTANT occurrences); nothing is ever executed: the expression is parsed with
Python's `ast` and only integer literals, known names, `sizeof` of a known type
and the operators below are evaluated.
"""
from __future__ import annotations

import ast
import functools
import operator
import re
from typing import Callable

# Bytes of the element types that size shared arrays and `sizeof(T)` terms.
ELEMENT_BYTES = {"char": 1, "signed char": 1, "unsigned char": 1, "bool": 1, "int8_t": 1, "uint8_t": 1,
                 "short": 2, "unsigned short": 2, "half": 2, "__half": 2, "__nv_bfloat16": 2, "int16_t": 2, "uint16_t": 2,
                 "int": 4, "unsigned": 4, "unsigned int": 4, "float": 4, "int32_t": 4, "uint32_t": 4,
                 "long long": 8, "unsigned long long": 8, "double": 8, "int64_t": 8, "uint64_t": 8, "size_t": 8,
                 "half2": 4, "__half2": 4, "float2": 8, "int2": 8, "float4": 16, "int4": 16, "double2": 16, "double4": 32}
_BINARY: dict[type, Callable[[int, int], int]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
    ast.Div: operator.floordiv, ast.Mod: operator.mod, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
    ast.BitOr: operator.or_, ast.BitAnd: operator.and_, ast.BitXor: operator.xor}
_UNARY: dict[type, Callable[[int], int]] = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}
_SUFFIX = re.compile(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b")
_COMMENT = re.compile(r"//.*|/\*.*?\*/")
_SIZEOF = re.compile(r"\bsizeof\s*\(\s*([A-Za-z_][\w ]*?)\s*\)")
_CASTS = re.compile(r"\(\s*(?:unsigned|signed|int|long|size_t|u?int\d+_t)(?:\s+(?:int|long))*\s*\)|\b(?:static_cast<[\w ]+>)")
_ALLOWED = re.compile(r"[\w\s+\-*/%()<>|&^~]+")
_BITS = 64
_DEPTH = 8
_LOOKUPS = 256  # constants defined through constants, at most this deep (and never in a cycle)


def _clean(text: str) -> str:
    """C spelling -> Python spelling: no comments, casts or integer suffixes; sizeof(T) as its bytes."""
    text = _COMMENT.sub(" ", text)
    text = _SIZEOF.sub(lambda m: str(ELEMENT_BYTES.get(" ".join(m.group(1).split()), "sizeof")), text)
    text = _CASTS.sub(" ", text)
    return _SUFFIX.sub(r"\1", text).strip()


@functools.lru_cache(maxsize=4096)  # the same few expressions recur in every file
def _expression(text: str) -> ast.Expression | None:
    text = _clean(text)
    if not text or len(text) > 200 or not _ALLOWED.fullmatch(text):
        return None
    try:
        return ast.parse(text, mode="eval")
    except SyntaxError:
        return None


def evaluate(text: str, names: dict[str, str] | None = None, depth: int = 0, budget: list[int] | None = None) -> int | None:
    """The value of an integer constant expression, or None when it is not one we can know.

    `names` maps a constant's name to its value text, itself evaluated (up to _DEPTH deep, and at most
    _LOOKUPS names in all: `#define A (B+B+...)`, `#define B (C+C+...)` must not fan out exponentially).
    """
    budget = [_LOOKUPS] if budget is None else budget
    tree = _expression(text) if depth <= _DEPTH else None
    if tree is None:
        return None
    try:
        result = _value(tree.body, names, depth, budget)
    except (ValueError, ZeroDivisionError, OverflowError, TypeError):
        return None
    return result


def _bounded(value: int) -> int:
    """Every operand and every intermediate result stays below 2**64 in magnitude, checked before the
    next operation: the work per operation is bounded (128-bit products at most), whatever the text."""
    if abs(value) >= 1 << _BITS:
        raise OverflowError("beyond 64 bits")
    return value


def _value(node: ast.AST, names: dict[str, str] | None, depth: int, budget: list[int]) -> int:
    """A module-level function, not a closure calling itself: that would be a reference cycle per call,
    garbage only the cyclic collector frees (4,600 of them in 100 files)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return _bounded(node.value)
    if isinstance(node, ast.Name) and names and node.id in names:
        budget[0] -= 1
        if budget[0] < 0:
            raise ValueError("too many constants to look up")
        known = evaluate(names[node.id], {k: v for k, v in names.items() if k != node.id}, depth + 1, budget)
        if known is not None:
            return known
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.args and not node.keywords:
        return _value(node.func, names, depth, budget)  # `WarpThreads()`: a constexpr function returning a constant
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _value(node.left, names, depth, budget), _value(node.right, names, depth, budget)
        if isinstance(node.op, (ast.LShift, ast.RShift)) and not 0 <= right < _BITS:
            raise ValueError("shift out of range")  # 1 << 40000000000 would take minutes and gigabytes
        return _bounded(_BINARY[type(node.op)](left, right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _bounded(_UNARY[type(node.op)](_value(node.operand, names, depth, budget)))
    raise ValueError("not a constant")


def split_arguments(text: str) -> list[str]:
    """`a, dim3(1, 2), f<x, y>(z)` -> its top-level comma-separated parts."""
    parts, depth, current = [], 0, []
    for char in text:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        if char == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    parts.append("".join(current).strip())
    return [p for p in parts if p]
