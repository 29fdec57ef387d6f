"""Link libraries named in CMake files and Makefiles."""
from __future__ import annotations

import bisect
import re
from typing import Iterable

from portkit.analyzers import Context, rule_finding
from portkit.model import Finding, Position, Span

_COMMENT = re.compile(r"#[^\n]*")
_CMAKE_TARGET = re.compile(r"\b(CUDA|NCCL)::(\w+)")
_LINK_FLAG = re.compile(r"(?<![\w-])-l(\w+)")
_CMAKE_LINK_CALL = re.compile(r"\btarget_link_libraries\s*\(([^)]*)\)", re.S)
_WORD = re.compile(r"[\w:.+-]+")


def _blank_comments(text: str) -> str:
    """Comments replaced by spaces, so offsets still point into the original text."""
    return _COMMENT.sub(lambda m: " " * len(m.group()), text)


def link_names(kind: str, text: str) -> list[tuple[int, str]]:
    """(offset, name) of each library the build file links, as the rules name them."""
    text = _blank_comments(text)
    found = [(m.start(1), m.group(1)) for m in _LINK_FLAG.finditer(text)]
    if kind == "cmake":
        found += [(m.start(), m.group()) for m in _CMAKE_TARGET.finditer(text)]
        for call in _CMAKE_LINK_CALL.finditer(text):
            for word in _WORD.finditer(call.group(1)):
                if "::" not in word.group():
                    found.append((call.start(1) + word.start(), word.group()))
    return sorted(set(found))


def analyze_build_file(path: str, kind: str, text: str, context: Context) -> Iterable[Finding]:
    starts = [0] + [m.end() for m in re.finditer(r"\n", text)]
    for offset, name in link_names(kind, text):
        rule = context.rules.link(name)
        if rule is None:
            continue
        line = bisect.bisect_right(starts, offset) - 1
        position = Position(line + 1, offset - starts[line] + 1)
        span = Span(len(text[:offset].encode()), len(text[:offset].encode()) + len(name.encode()))
        yield rule_finding(path, rule, name, span, position, context)
