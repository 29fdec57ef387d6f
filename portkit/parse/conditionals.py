"""#if groups that split one construct: tree-sitter sees every branch at once.

A parameter list with an `#ifdef` in the middle, or two alternative function
headers sharing one body, is fine for the preprocessor, which keeps one branch,
but breaks a parser that keeps them all. For such "fragmentary" groups only the
branch is kept: the one hipcc compiles for AMD where the tests read only HIP's
platform macros and CUDA's compiler macros (`#if __CUDA_ARCH__ == 750` / `#else`:
the `#else`), else the first, as the preprocessor would with the condition true; the
directive lines and the other branches are blanked, and the names in them are
matched token by token (portkit/parse/recovery.py). Groups that hold whole
statements or declarations (include guards, ordinary `#ifdef` blocks) parse as
they are and are never touched.
"""
from __future__ import annotations

import bisect
import dataclasses
import re

from portkit.parse.hipcc_branch import amd_value
from portkit.parse.lexer import Layout, blank

_CONDITIONAL = re.compile(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif|elifdef|elifndef)\b", re.M)
_PAIRS = ((b"(", b")"), (b"[", b"]"), (b"{", b"}"))
# A branch that opens with these goes on with the construct before the group: an `else`, a constructor's member
# initializer list (`WarpThing()` / `#ifndef USE_ROCM` / `: lane_id(threadIdx.x & 0x1f)`) or one of its members, or
# the close of a block that another opens again (`#if K >= 2048` / `} else if (k <= 2048) {` / `#endif` / `}`).
_CONTINUES = re.compile(rb"else\b|:(?!:)|,|\}")
_ELSE_AT_END = re.compile(rb"(?<!\w)else\Z")
_DIRECTIVE = re.compile(rb"[ \t]*#[ \t]*(\w+)(.*)", re.S)


@dataclasses.dataclass
class _Group:
    directives: list[tuple[int, int]]  # the #if, #elif, #else and #endif lines
    branches: list[tuple[int, int]] = dataclasses.field(default_factory=list)  # between the directives


def select_branches(text: bytes, layout: Layout) -> bytes:
    """`text` with each fragmentary #if group reduced to one branch (same length, same newlines).

    `layout` may be that of the text before the other fixes: they only blank, or put `;` into a blank."""
    groups = _groups(layout)
    by_start = _ByStart(sorted(groups, key=lambda g: g.directives[0][0]))
    out = bytearray(text)
    for group in groups:
        if _fragmentary(group, by_start, text, layout):
            kept = _amd_branch(group, layout)
            for start, end in group.directives + group.branches[:kept] + group.branches[kept + 1:]:
                blank(out, start, end)
    return bytes(out)


def _amd_branch(group: _Group, layout: Layout) -> int:
    """The index of the branch hipcc compiles for AMD, where each test decides it (`amd_value`); else 0."""
    for index, (start, end) in enumerate(group.directives[:-1]):
        match = _DIRECTIVE.match(layout.source, start, end)
        keyword, test = (match.group(1), match.group(2).replace(b"\\\n", b" ").decode("latin-1")) if match else (b"", "")
        if keyword == b"else":
            return index
        if keyword in (b"ifdef", b"ifndef", b"elifdef", b"elifndef"):
            test = ("!" if keyword.endswith(b"ndef") else "") + f"defined({test.strip()})"
        value = amd_value(test, cuda_kept=True)
        if value is None:
            return 0
        if value:
            return index
    return 0


def _groups(layout: Layout) -> list[_Group]:
    """Every complete #if ... #endif group, inner groups first."""
    open_groups: list[_Group] = []
    done: list[_Group] = []
    for match in _CONDITIONAL.finditer(layout.source):
        if not layout.directive[match.end() - 1]:
            continue  # inside a comment
        end = match.end()
        while end < len(layout.source) and layout.directive[end]:
            end += 1
        if match.group(1) in (b"if", b"ifdef", b"ifndef"):
            open_groups.append(_Group([(match.start(), end)]))
        elif open_groups:
            group = open_groups[-1]
            group.branches.append((group.directives[-1][1], match.start()))
            group.directives.append((match.start(), end))
            if match.group(1) == b"endif":
                done.append(open_groups.pop())
    return done


class _ByStart:
    """The groups in the order they open: those opening in a branch are found by bisection (a scan of every
    group for every branch was quadratic in a file's #if groups)."""

    def __init__(self, groups: list[_Group]):
        self.groups = groups
        self.starts = [g.directives[0][0] for g in groups]

    def opening_in(self, start: int, end: int) -> list[_Group]:
        return self.groups[bisect.bisect_left(self.starts, start):bisect.bisect_left(self.starts, end)]


def _fragmentary(group: _Group, groups: _ByStart, text: bytes, layout: Layout) -> bool:
    """A branch with unbalanced brackets (inner groups counted by their first branch), a group that
    opens where no statement or declaration can start (after `,`, `(`, an operator or a name), or one
    that goes on with the construct before it (`}` / `#if X` / `else {...}`, `T()` / `#if X` / `: member(0)`), or one
    that ends in a dangling `else` whose statement follows the group."""
    for start, end in group.branches:
        skipped = [b for inner in groups.opening_in(start, end) if inner is not group for b in inner.branches[1:]]
        if not _balanced(layout.code_only(text, start, end), start, skipped):
            return True
        last = layout.previous_code(text, end)
        if last >= start and _ELSE_AT_END.search(text, max(start, last - 4), last + 1):
            return True  # `if (gpu) {...} else` / `#endif` / `{...}`: the statement goes on after the group
        if last >= start and text[last] == ord(")") and not layout.directive[last]:
            return True  # `if (x)` or `__launch_bounds__(n)` / `#endif`: what it governs follows the group
    first = layout.next_code(text, group.directives[0][1])
    if first >= 0 and _CONTINUES.match(text, first):
        return True
    before = layout.previous_code(text, group.directives[0][0])
    if before < 0 or text[before] in b";{}:)":
        return False
    return re.search(rb"(?<!\w)else\Z", text[max(0, before - 4):before + 1]) is None


def _balanced(code: bytes, base: int, skipped: list[tuple[int, int]]) -> bool:
    """Whether `code` (a branch's code bytes, from offset `base`) balances its brackets, `skipped` aside."""
    ranges = [(0, len(code), 1)] + [(a - base, b - base, -1) for a, b in _outermost(skipped)]
    return all(sum(sign * (code.count(opening, a, b) - code.count(closing, a, b)) for a, b, sign in ranges) == 0
               for opening, closing in _PAIRS)


def _outermost(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    kept: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if not kept or start >= kept[-1][1]:
            kept.append((start, end))
    return kept
