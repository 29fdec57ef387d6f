"""Build and environment inventory: CMake, Makefiles, scripts, Dockerfiles, Python projects.

The patterns are data (rules/_environment.yaml); this module applies them
outside '#' comments and words each finding from the code table.
"""
from __future__ import annotations

import bisect
import dataclasses
import functools
import re
from typing import Iterator

import yaml

from portkit.analyzers import Context
from portkit.buildfacts import build_facts
from portkit.codes import CODES
from portkit.errors import RuleError
from portkit.model import Finding, Position, Span
from portkit.resources import rules_dir

FILE_KINDS = ("cmake", "make", "script", "docker", "python", "requirements")
_COMMENT = re.compile(r"#[^\n]*")


@dataclasses.dataclass(frozen=True)
class Pattern:
    code: str
    kinds: frozenset[str]
    regex: re.Pattern[str]
    group: int


@functools.lru_cache(maxsize=1)
def patterns() -> tuple[Pattern, ...]:
    path = rules_dir() / "_environment.yaml"
    try:
        entries = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise RuleError(f"{path}: cannot load: {exc}") from None
    loaded = []
    for index, entry in enumerate(entries or [], 1):
        try:
            if entry["code"] not in CODES or not set(entry["kinds"]) <= set(FILE_KINDS):
                raise ValueError("unknown code or file kind")
            loaded.append(Pattern(entry["code"], frozenset(entry["kinds"]), re.compile(entry["pattern"]), int(entry.get("group", 0))))
        except (KeyError, TypeError, ValueError, re.error) as exc:
            raise RuleError(f"{path}: entry {index}: {exc}") from None
    return tuple(loaded)


def _advice(code: str, name: str) -> str:
    if code == "PK403":
        facts = build_facts()
        if name in facts.nvcc_unsupported:
            return facts.nvcc_unsupported[name]
        if name in facts.nvcc_flags:
            replacement = facts.nvcc_flags[name]
            return f"hipcc: {replacement}" if replacement else "hipcc needs no such flag: drop it"
    return CODES[code].fix


def analyze_environment(path: str, kind: str, text: str, context: Context) -> Iterator[Finding]:
    code_text = _COMMENT.sub(lambda m: " " * len(m.group()), text)
    starts = [0] + [m.end() for m in re.finditer(r"\n", text)]
    for pattern in patterns():
        if kind not in pattern.kinds:
            continue
        for match in pattern.regex.finditer(code_text):
            offset = match.start(pattern.group)
            name = match.group(pattern.group)
            line = bisect.bisect_right(starts, offset) - 1
            start = len(text[:offset].encode())
            code = CODES[pattern.code]
            yield Finding(path=path, position=Position(line + 1, offset - starts[line] + 1), code=pattern.code, name=name,
                          message=f"{code.summary}: {name}", severity=code.severity, advice=_advice(pattern.code, name),
                          span=Span(start, start + len(name.encode())))
