"""Build and environment inventory: CMake, Makefiles, scripts, Dockerfiles, Python projects.

The patterns are data (rules/_environment.yaml); this module applies them
outside '#' comments and words each finding from the code table.
"""
from __future__ import annotations

import dataclasses
import functools
import re
from typing import Iterator

from portkit.analyze.build_commands import (compiler_shell_calls, dependency_target, names_dependency_target,
                                            nvcc_commands, nvcc_option_reaches_compiler)
from portkit.analyze.builds import text_location
from portkit.analyze.registry import Context, TextFile, analyzer
from portkit.codes import CODES, NVCC_COMPILER, NVCC_FLAG, NVCC_OPTION, group_codes
from portkit.model import Finding
from portkit.resources import load_data
from portkit.rules.build_facts import NvccOption, build_facts
from portkit.textutil import LineIndex, blank
from portkit.walk import FILE_TYPES

TEXT_FILE_TYPES = tuple(t for t in FILE_TYPES if t != "source")


@dataclasses.dataclass(frozen=True)
class Pattern:
    code: str
    file_types: frozenset[str]
    regex: re.Pattern[str]
    group: int
    needs: tuple[str, ...] = ()  # text every match holds, one of them (lower-case where the regex ignores case)
    advice: str = ""  # what to do about this match, where the code's own fix says too little

    def may_match(self, text: str, lowered: str | None) -> bool:
        """Whether `text` (`lowered`: in lower case, None if it is not ASCII) holds one of `needs`: a pattern
        is tried at every offset, and most build files name nothing it finds (the analyzer over the 1M-line scale
        tree's 1,580 build and environment files: 0.59-0.66 s -> 0.26 s of CPU, the same 679 findings)."""
        if not self.needs:
            return True
        if self.regex.flags & re.IGNORECASE:
            if lowered is None:
                return True  # a non-ASCII letter may match an ASCII one, ignoring case (the Kelvin sign a k)
            text = lowered
        return any(needle in text for needle in self.needs)


def _parse(entries: list) -> tuple[Pattern, ...]:
    loaded = []
    for index, entry in enumerate(entries or [], 1):
        if entry["code"] not in CODES or not set(entry["kinds"]) <= set(TEXT_FILE_TYPES):
            raise ValueError(f"entry {index}: unknown code or file type")
        try:
            regex = re.compile(entry["pattern"])
        except re.error as exc:
            raise ValueError(f"entry {index}: {exc}") from None
        needs = tuple(str(n) for n in entry.get("needs", ()))
        if not all(needs) or regex.flags & re.IGNORECASE and any(n != n.lower() for n in needs):
            raise ValueError(f"entry {index}: an empty need, or one not in lower case for a (?i) pattern")
        loaded.append(Pattern(entry["code"], frozenset(entry["kinds"]), regex, int(entry.get("group", 0)), needs,
                              str(entry.get("advice", ""))))
    return tuple(loaded)


@functools.lru_cache(maxsize=1)
def patterns() -> tuple[Pattern, ...]:
    return load_data("_environment.yaml", _parse)


def _nvcc_options(file: TextFile, code_text: str, lines: LineIndex[str]) -> Iterator[Finding]:
    """Each nvcc option convert rewrites (rules/_build.yaml), as convert finds it: only where the GPU compiler gets it
    (nvcc_option_reaches_compiler). Removed, or written with a marker: PK403; written in hipcc's spelling or dropped:
    PK408, as is a Makefile's -odir of a dependency step, which convert writes as -MT."""
    facts = build_facts()
    gets = nvcc_option_reaches_compiler(file.file_type, code_text, facts)
    targets: dict[int, str] = {}  # the -odir convert writes as -MT, by offset: what it writes

    def listed(option: NvccOption, match: re.Match) -> bool:
        if not gets(match, option.hipcc_only):
            return False
        if file.file_type == "make" and names_dependency_target(code_text, match.start()):
            targets[match.start("name")] = dependency_target(match.group("value"))
        return True

    for edit in facts.edits(code_text, listed):
        span, position = text_location(lines, edit.offset, len(edit.written.encode()))
        hipcc = targets.get(edit.offset, edit.hipcc)
        if hipcc is None or edit.marker and edit.offset not in targets:
            code, advice = CODES[NVCC_FLAG], edit.marker
        else:
            code = CODES[NVCC_OPTION]
            advice = f"convert writes {hipcc}" if hipcc else "convert drops it: clang needs nothing for it"
        yield Finding(path=file.path, position=position, code=code.code, name=edit.written,
                      message=f"{code.summary}: {edit.written}", severity=code.severity, advice=advice, span=span)


def _version_outputs(file: TextFile, code_text: str, lines: LineIndex[str]) -> Iterator[Finding]:
    """The Makefile's $(shell) calls that read nvcc's version from what the GPU compiler prints, which convert marks."""
    code = CODES[NVCC_FLAG]
    version = build_facts().nvcc_version_output
    for call in compiler_shell_calls(code_text, build_facts()):
        for program, _, command in call.compiler_runs:
            if version.read_from(command, call.text):
                span, position = text_location(lines, program, len(command.encode()))
                yield Finding(path=file.path, position=position, code=NVCC_FLAG, name=command,
                              message=f"{code.summary}: {command}", severity=code.severity, advice=version.advice, span=span)


# The kinds of file whose nvcc convert writes as hipcc (build_files.py).
_CONVERTED_TYPES = ("make", "autoconf", "script")


def _nvcc_compilers(file: TextFile, lines: LineIndex[str]) -> Iterator[Finding]:
    """Each nvcc, by name or path, that convert writes as hipcc."""
    code = CODES[NVCC_COMPILER]
    for offset, written in nvcc_commands(blank(file.text, file.comment), build_facts()):
        span, position = text_location(lines, offset, len(written.encode()))
        yield Finding(path=file.path, position=position, code=NVCC_COMPILER, name=written,
                      message=f"{code.summary}: {written}", severity=code.severity, advice=code.fix, span=span)


@analyzer(*TEXT_FILE_TYPES, codes=group_codes("environment"))
def analyze_environment(file: TextFile, context: Context) -> Iterator[Finding]:
    code_text = blank(file.text, file.comment)
    lines = LineIndex(file.text)
    lowered = code_text.lower() if code_text.isascii() else None
    for pattern in patterns():
        if file.file_type not in pattern.file_types or not pattern.may_match(code_text, lowered):
            continue
        for match in pattern.regex.finditer(code_text):
            name = match.group(pattern.group)
            span, position = text_location(lines, match.start(pattern.group), len(name.encode()))
            code = CODES[pattern.code]
            yield Finding(path=file.path, position=position, code=pattern.code, name=name, message=f"{code.summary}: {name}",
                          severity=code.severity, advice=pattern.advice or code.fix, span=span)
    if file.file_type in ("cmake", "make", "autoconf", "script"):
        yield from _nvcc_options(file, code_text, lines)
    if file.file_type in _CONVERTED_TYPES:
        yield from _nvcc_compilers(file, lines)
    if file.file_type == "make":
        yield from _version_outputs(file, code_text, lines)
