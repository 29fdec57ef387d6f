"""The value of a preprocessor `#if` test, with what each macro reads as given by the caller.

`defined(X)` and a bare name are asked of the caller; either may be unknown (None). The logic is
three-valued, as a reader that knows only some macros needs: `0 && unknown` is 0, `1 || unknown` is
1, anything else that touches an unknown is unknown. The test is read as Python reads the same
integers, comparisons, logic and + - * %; anything else (a cast, `/`, a function-like macro) makes the
whole test unknown.
"""
from __future__ import annotations

import ast
import operator
import re
from typing import Callable, Optional

from portkit.parse.nodes import LINE_COMMENT

DEFINED = re.compile(r"\bdefined\s*(?:\(\s*(\w+)\s*\)|(\w+))")
NAME = re.compile(r"\b[A-Za-z_]\w*")
_SUFFIX = re.compile(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b")
_LOGIC = ((re.compile(r"&&"), " and "), (re.compile(r"\|\|"), " or "), (re.compile(r"!(?!=)"), " not "))
_UNKNOWN = "_unknown_"  # a Python name: unknown to the evaluator, and no C macro's spelling after the rewrite
_COMPARE: dict[type, Callable[[int, int], bool]] = {
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Eq: operator.eq,
    ast.NotEq: operator.ne}
_ARITHMETIC: dict[type, Callable[[int, int], int]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Mod: operator.mod}


def without_comments(test: str) -> str:
    return LINE_COMMENT.sub(" ", test)


def evaluate(test: str, defined: Callable[[str], Optional[bool]],
             value_of: Callable[[str], Optional[int]]) -> Optional[int]:
    """The test's integer value, or None where it is unknown or not an expression this reads."""
    def spell_defined(match: re.Match[str]) -> str:
        known = defined(match.group(1) or match.group(2))
        return f" {_UNKNOWN} " if known is None else " 1 " if known else " 0 "

    def spell_name(match: re.Match[str]) -> str:
        value = value_of(match.group())
        return f" {_UNKNOWN} " if value is None else f" {value} "

    text = DEFINED.sub(spell_defined, _SUFFIX.sub(r"\1", without_comments(test)))
    text = NAME.sub(lambda m: m.group() if m.group() == _UNKNOWN else spell_name(m), text)
    for pattern, spelled in _LOGIC:
        text = pattern.sub(spelled, text)
    try:
        return _evaluate(ast.parse(text.strip(), mode="eval").body)
    except (SyntaxError, ValueError, ZeroDivisionError, RecursionError):
        return None


def _evaluate(node: ast.AST) -> Optional[int]:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name) and node.id == _UNKNOWN:
        return None
    if isinstance(node, ast.BoolOp):
        values = [_evaluate(v) for v in node.values]
        decisive = 0 if isinstance(node.op, ast.And) else 1
        if any(v is not None and bool(v) == bool(decisive) for v in values):
            return decisive
        return None if None in values else 1 - decisive
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub, ast.UAdd)):
        value = _evaluate(node.operand)
        if value is None:
            return None
        return int(not value) if isinstance(node.op, ast.Not) else -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
        left, right = _evaluate(node.left), _evaluate(node.comparators[0])
        return None if left is None or right is None else int(_COMPARE[type(node.ops[0])](left, right))
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        left, right = _evaluate(node.left), _evaluate(node.right)
        return None if left is None or right is None else _ARITHMETIC[type(node.op)](left, right)
    raise ValueError("not a preprocessor integer expression")
