"""A rule's asm `pattern` must match in time linear in the asm text: a rule file from someone
else must not hang a scan (`(a+)+$` on a 40-character asm string takes minutes).

Python's `re` backtracks. Its time explodes only where one piece of text can be split among
the iterations of a repeat in many ways: a repeat whose body can itself match a varying
amount (a nested repeat or an alternation) and can end and restart anywhere. Such a body
is accepted only when each iteration starts with a fixed character that nothing variable
inside it can match (`(\\.\\w+)*`: each iteration starts at a dot, which `\\w` never matches),
so the split is unique. Backreferences are refused outright.
"""
from __future__ import annotations

import re
from typing import Any, Iterator

try:
    import re._constants as sre  # Python 3.11+
    import re._parser as sre_parse
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as sre  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

_REPEATS = {sre.MAX_REPEAT, sre.MIN_REPEAT} | ({sre.POSSESSIVE_REPEAT} if hasattr(sre, "POSSESSIVE_REPEAT") else set())
_CATEGORIES = {
    sre.CATEGORY_DIGIT: str.isdigit, sre.CATEGORY_NOT_DIGIT: lambda c: not c.isdigit(),
    sre.CATEGORY_SPACE: str.isspace, sre.CATEGORY_NOT_SPACE: lambda c: not c.isspace(),
    sre.CATEGORY_WORD: lambda c: c.isalnum() or c == "_", sre.CATEGORY_NOT_WORD: lambda c: not (c.isalnum() or c == "_"),
}


def catastrophic(pattern: str) -> str | None:
    """Why `pattern` may backtrack exponentially, or None when it cannot."""
    try:
        parsed = sre_parse.parse(pattern)
    except (re.error, RecursionError, OverflowError):
        return None  # the caller's re.compile reports it
    return _problem(list(parsed))


def _problem(items: list[tuple[Any, Any]]) -> str | None:
    for op, arg in items:
        if op in (sre.GROUPREF, sre.GROUPREF_EXISTS):
            return "a backreference"
        for body in _bodies(op, arg):
            found = _problem(body)
            if found:
                return found
        if op in _REPEATS and arg[1] > 1 and _ambiguous(_unwrapped(list(arg[2]))):
            return "a repeat of something that itself varies in length (like (a+)+ or (a|aa)*)"
    return None


def _bodies(op: Any, arg: Any) -> Iterator[list[tuple[Any, Any]]]:
    if op in _REPEATS:
        yield list(arg[2])
    elif op == sre.SUBPATTERN:
        yield list(arg[-1])
    elif op == sre.BRANCH:
        yield from (list(b) for b in arg[1])
    elif op in (sre.ASSERT, sre.ASSERT_NOT):
        yield list(arg[1])


def _variable(items: list[tuple[Any, Any]]) -> bool:
    """Whether the items can match texts of different lengths."""
    for op, arg in items:
        if op == sre.BRANCH or (op in _REPEATS and arg[0] != arg[1]):
            return True
        if any(_variable(body) for body in _bodies(op, arg)):
            return True
    return False


def _unwrapped(body: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """A group's items: `(\\.\\w+)*` repeats a group of a dot and a word."""
    while len(body) == 1 and body[0][0] == sre.SUBPATTERN:
        body = list(body[0][1][-1])
    return body


def _ambiguous(body: list[tuple[Any, Any]]) -> bool:
    """A repeated body whose iterations could split a text in several ways: it varies in length and
    neither starts nor ends with a character nothing else in it matches."""
    if not _variable(body):
        return False
    for guard, rest in ((body[:1], body[1:]), (body[-1:], body[:-1])):
        if guard and guard[0][0] == sre.LITERAL and not any(
                _matches(op, arg, chr(guard[0][1])) for op, arg in _atoms(rest)):
            return False
    return True


def _atoms(items: list[tuple[Any, Any]]) -> Iterator[tuple[Any, Any]]:
    for op, arg in items:
        bodies = list(_bodies(op, arg))
        if bodies:
            for body in bodies:
                yield from _atoms(body)
        else:
            yield op, arg


def _matches(op: Any, arg: Any, char: str) -> bool:
    """Whether one atom may match `char` (unknown atoms: assume it may)."""
    if op == sre.LITERAL:
        return arg == ord(char)
    if op == sre.NOT_LITERAL:
        return arg != ord(char)
    if op == sre.AT:
        return False
    if op == sre.IN:
        negated = bool(arg) and arg[0][0] == sre.NEGATE
        hit = any(_matches(o, a, char) for o, a in arg if o != sre.NEGATE)
        return hit != negated
    if op == sre.RANGE:
        return arg[0] <= ord(char) <= arg[1]
    if op == sre.CATEGORY:
        return _CATEGORIES.get(arg, lambda c: True)(char)
    return True
