"""Link libraries named in CMake files and Makefiles."""
from __future__ import annotations

import bisect
import re
from typing import Iterable

from portkit.analyzers import Context, rule_finding
from portkit.buildfacts import build_facts
from portkit.codes import CODES
from portkit.model import Finding, Position, Span

_COMMENT = re.compile(r"#[^\n]*")
_CMAKE_TARGET = re.compile(r"\b(CUDA|NCCL)::(\w+)")
_LINK_FLAG = re.compile(r"(?<![\w-])-l(\w+)")
_CMAKE_LINK_CALL = re.compile(r"\btarget_link_libraries\s*\(([^)]*)\)", re.S)
_WORD = re.compile(r"[\w:.+-]+")
_SM = re.compile(r"\b(?:sm|compute)_(\d{2,3})[af]?\b")
_CMAKE_ARCHS = re.compile(r"CUDA_ARCHITECTURES\s+\"?([\d;\s]+(?:-real|-virtual)?)")


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


def architectures(kind: str, text: str) -> list[tuple[int, str]]:
    """(offset, compute capability) of each NVIDIA GPU architecture the build targets."""
    text = _blank_comments(text)
    found = [(m.start(), m.group(1)) for m in _SM.finditer(text)]
    if kind == "cmake":
        for match in _CMAKE_ARCHS.finditer(text):
            found += [(match.start(1) + n.start(), n.group()) for n in re.finditer(r"\d{2,3}", match.group(1))]
    return sorted(set(found))


def analyze_build_file(path: str, kind: str, text: str, context: Context) -> Iterable[Finding]:
    starts = [0] + [m.end() for m in re.finditer(r"\n", text)]

    def where(offset: int, length: int) -> tuple[Span, Position]:
        line = bisect.bisect_right(starts, offset) - 1
        start = len(text[:offset].encode())
        return Span(start, start + length), Position(line + 1, offset - starts[line] + 1)

    for offset, name in link_names(kind, text):
        rule = context.rules.link(name)
        if rule is not None:
            span, position = where(offset, len(name.encode()))
            yield rule_finding(path, rule, name, span, position, context)
    facts = build_facts()
    for offset, capability in architectures(kind, text):
        span, position = where(offset, len(capability))
        yield Finding(path=path, position=position, code="PK401", name=f"sm_{capability}",
                      message=f"GPU architecture {facts.describe(capability)}",
                      severity=CODES["PK401"].severity, advice=f"--offload-arch={facts.gfx_for(capability)}", span=span)
