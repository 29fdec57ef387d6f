"""Which #if branches hold a #define no build of the port sees, and which hold one under any condition.

The project's macro table (portkit/parse/macros.py) applies a #define to every file, whatever #if
it sits under. A branch that tests another platform's compiler (`#if defined(_MSC_VER) && _MSC_VER
< 1910`, `#ifdef _WIN32`: the macros are data, rules/_foreign_platforms.yaml) is one neither hipcc
nor nvcc on Linux takes, so its #defines must not count (xgboost's `#define constexpr` for old MSVC
hid `constexpr` tree-wide). A test is read with those macros undefined and every other name unknown:
`defined(_MSC_VER) && X` is false whatever X is; a test it cannot decide keeps its branch.
Whether a #define is under some condition at all (an include guard is none) is told too.
"""
from __future__ import annotations

import bisect
import dataclasses
import functools
import re
from typing import Optional

from portkit.parse.if_expressions import NAME, evaluate, without_comments
from portkit.resources import load_data
from portkit.textutil import line_matches

_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(ifdef|ifndef|if|elif|else|endif|define)\b((?:[^\n\\]|\\.|\\\r?\n)*)", re.M)
# `#ifndef X_H` or `#if !defined(X_H)`, then `#define X_H`: an include guard.
_GUARD_TEST = re.compile(r"\s*!\s*defined\s*\(?\s*(\w+)\s*\)?\s*(?://.*|/\*.*\*/)?\s*")


@functools.lru_cache(maxsize=1)
def foreign_macros() -> frozenset[str]:
    return load_data("_foreign_platforms.yaml", lambda data: frozenset(str(name) for name in data["undefined"]))


@dataclasses.dataclass(frozen=True)
class Branches:
    """For each stretch of a file between two conditional directives: whether no build of the port
    compiles it, and whether it is under any #if other than an include guard."""

    starts: tuple[int, ...] = (0,)
    states: tuple[tuple[bool, bool], ...] = ((False, False),)

    def never_taken(self, offset: int) -> bool:
        return self.states[bisect.bisect_right(self.starts, offset) - 1][0]

    def conditional(self, offset: int) -> bool:
        return self.states[bisect.bisect_right(self.starts, offset) - 1][1]


@dataclasses.dataclass
class _Open:
    never: bool  # the current branch is one no build takes
    taken: bool  # an earlier branch is certainly taken: the rest are not
    guard: bool  # `#ifndef X_H` / `#define X_H`: the whole file, no condition


def branches(source: bytes) -> Branches:
    """The file's conditional structure, as `Branches`."""
    directives = list(line_matches(source, b"#", _DIRECTIVE))
    stack: list[_Open] = []
    starts, states = [0], [(False, False)]
    for index, match in enumerate(directives):
        kind, test = match.group(1), match.group(2).decode("latin-1")
        if kind == b"define":
            continue
        if kind in (b"if", b"ifdef", b"ifndef"):
            value = truth(f"{'!' if kind == b'ifndef' else ''}defined({test.strip()})" if kind != b"if" else test)
            following = directives[index + 1] if index + 1 < len(directives) else None
            guarded = _GUARD_TEST.fullmatch(test if kind == b"if" else f"!defined {test}")
            guard = guarded is not None and following is not None and following.group(1) == b"define" \
                and following.group(2).split()[:1] == [guarded.group(1).encode("latin-1")]
            stack.append(_Open(value == 0, value == 1, guard))
        elif not stack:
            continue  # an unbalanced #else/#endif: nothing to close
        elif kind == b"elif":
            value = truth(test)
            stack[-1] = _Open(stack[-1].taken or value == 0, stack[-1].taken or value == 1, False)
        elif kind == b"else":
            stack[-1] = _Open(stack[-1].taken, True, False)
        else:
            stack.pop()
        starts.append(match.start())
        states.append((any(o.never for o in stack), any(not o.guard for o in stack)))
    return Branches(tuple(starts), tuple(states))


def truth(test: str) -> Optional[int]:
    """A #if test's value with the foreign platforms' macros undefined: 0 or 1, or None where it depends on
    anything else (or is not a test this reads)."""
    foreign = foreign_macros()
    text = without_comments(test)
    if not any(name in foreign for name in NAME.findall(text)):
        return None  # most tests: nothing to decide
    value = evaluate(text, lambda name: False if name in foreign else None, lambda name: 0 if name in foreign else None)
    return None if value is None else int(bool(value))
