"""Kernels compiled at run time with NVRTC: the kernel's text and the compiler's options are strings.

convert renames the NVRTC calls to hiprtc's, but a string is data: the kernel's CUDA text and NVIDIA's option
spellings reach hiprtc as written. A kernel source the file spells as a literal (in the call, or in a variable it
initialises from one) is analysed as a source of its own, and the finding says what that text holds; a source
built at run time is reported at the call. Each option NVRTC takes and hiprtc (clang) does not gets a finding
with what hiprtc takes instead. Only files that call NVRTC have their literals read (`strings_of`), and those
whose literals may define a kernel (portkit/parse/strings.py): a literal that defines one (`__global__`) is kernel
source wherever it is held, compiled at run time by whatever file passes it to NVRTC.
"""
from __future__ import annotations

import dataclasses
import functools
import re
from typing import Iterator

from portkit import codes
from portkit.analyze.hazards import WARP_LITERALS
from portkit.analyze.registry import Context, analyzer
from portkit.analyze.names import is_interesting
from portkit.codes import CODES, Status, in_group
from portkit.model import CallFacts, Finding, Occurrence, ParsedFile, Role as K, StringFacts
from portkit.parse import parse_source
from portkit.rules import RuleDatabase
from portkit.rules.build_facts import build_facts

CREATE_PROGRAM = "nvrtcCreateProgram"
COMPILE_PROGRAM = "nvrtcCompileProgram"
_SOURCE_ARGUMENT = 1  # nvrtcCreateProgram(&program, source, name, headers, ...)
# What names the variable an argument reads: `kSrc`, `ns::kSrc`, `src.c_str()`, `src.data()`.
_VARIABLE = re.compile(r"(?:\w+::)*(\w+)(?:\s*(?:\.|->)\s*(?:c_str|data)\s*\(\s*\))?")
_LISTED = 6  # names and hazards a message lists before "..."
# A kernel's definition in a literal's text: `__global__`, then a name and its parameters, no statement between.
_KERNEL_DEFINITION = re.compile(r"\b__global__\b[^;{}()]*\w\s*\(")


@analyzer("source", codes=(codes.RUNTIME_KERNEL_SOURCE, codes.NVRTC_OPTION), arguments_of={CREATE_PROGRAM},
          strings_of={CREATE_PROGRAM, COMPILE_PROGRAM})
def runtime_compilation(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    strings = parsed.of(K.STRING)  # made only in a file that calls NVRTC, or whose literals may define a kernel
    if not strings:
        return  # most files: no pass over their calls
    calls = [o for o in parsed.of(K.CALL) if o.text in (CREATE_PROGRAM, COMPILE_PROGRAM)]
    reported: set[int] = set()
    yield from _kernel_sources(parsed, [o for o in calls if o.text == CREATE_PROGRAM], strings, context, reported)
    yield from _kernel_definitions(parsed, strings, context, reported)
    if calls:  # a file's option strings are NVRTC's only where it calls NVRTC
        yield from _options(parsed, strings)


def _kernel_definitions(parsed: ParsedFile, strings: tuple[Occurrence, ...], context: Context,
                        reported: set[int]) -> Iterator[Finding]:
    """The literals that define a kernel (`__global__ void k(...)`), those no call in the file compiles too: the
    text a program compiles at run time, often held in one file and compiled in another, and text nothing else
    compiles (nvcc never sees a string)."""
    for literal in strings:
        if literal.span.start in reported or _KERNEL_DEFINITION.search(literal.text) is None:
            continue
        reported.add(literal.span.start)
        holds = _holds(literal, context)
        if holds:
            name = literal.facts(StringFacts).variable or "kernel source"
            yield _finding(parsed, literal, codes.RUNTIME_KERNEL_SOURCE, name,
                           f"{name}: a string that defines a kernel, compiled at run time (NVRTC, where the program "
                           f"passes it); convert leaves the string CUDA, and it holds {holds}",
                           f"hiprtc compiles this text as written: port it to HIP ({holds})")


def _kernel_sources(parsed: ParsedFile, creates, strings: tuple[Occurrence, ...], context: Context,
                    reported: set[int]) -> Iterator[Finding]:
    for call in creates:
        literal = _source_literal(call, strings)
        if literal is None:
            argument = call.facts(CallFacts).arg(_SOURCE_ARGUMENT)
            yield _finding(parsed, call, codes.RUNTIME_KERNEL_SOURCE, CREATE_PROGRAM,
                           f"{CREATE_PROGRAM} compiles {argument or 'a source'} at run time: text the program builds, "
                           "which convert does not see or convert; port it to HIP by hand")
        elif literal.span.start not in reported:
            reported.add(literal.span.start)
            holds = _holds(literal, context)
            if not holds:
                continue  # text hiprtc compiles as it is, as far as portkit sees
            name = literal.facts(StringFacts).variable or CREATE_PROGRAM
            yield _finding(parsed, literal, codes.RUNTIME_KERNEL_SOURCE, name,
                           f"{name}: kernel source {CREATE_PROGRAM} compiles at run time (line {call.position.line}); "
                           f"convert leaves the string CUDA, and it holds {holds}",
                           f"hiprtc compiles this text as written: port it to HIP ({holds})")


def _source_literal(call: Occurrence, strings: tuple[Occurrence, ...]) -> Occurrence | None:
    """The literal the call compiles: its argument itself, or the one the variable it names is initialised from."""
    if len(call.parts) <= _SOURCE_ARGUMENT:
        return None
    argument = call.parts[_SOURCE_ARGUMENT]
    direct = next((s for s in strings if argument.start <= s.span.start and s.span.end <= argument.end), None)
    if direct is not None:
        return direct
    named = _VARIABLE.fullmatch(call.facts(CallFacts).arg(_SOURCE_ARGUMENT))
    if named is None:
        return None
    held = [s for s in strings if s.facts(StringFacts).variable == named.group(1) and s.span.start < call.span.start]
    # The nearest before the call in its function, else at file scope (a `static const char *kSrc`).
    return next((s for s in reversed(held) if s.function in (call.function, "")), None)


def _holds(literal: Occurrence, context: Context) -> str:
    """What portkit reports in the literal's text, analysed as a source: the CUDA names HIP spells otherwise or
    lacks, and the hazards, with the file's lines."""
    from portkit.analyze import analyze  # the package's, which imports this module

    value = literal.text
    facts = literal.facts(StringFacts)
    kernel = parse_source(f"{literal.position.line}:<{CREATE_PROGRAM}>", value.encode("utf-8", "replace"),
                          keep=_keep(context.rules), literals=WARP_LITERALS, api=context.rules.is_api,
                          cuda_declared=context.rules.is_cuda_declared, hip_alias=context.rules.is_hip_alias,
                          hip_spelling=context.rules.is_hip_spelling)
    own = dataclasses.replace(context, project_names=kernel.definitions, project_declared=kernel.declared, fixes=False)
    starts = [0] + [i + 1 for i, c in enumerate(value) if c == "\n"]
    names: dict[str, None] = {}
    hazards: dict[str, set[int]] = {}
    for finding in analyze(kernel, own):
        line = facts.line_of(starts[min(finding.position.line, len(starts)) - 1], value)
        if in_group(finding.code, "hazard"):
            hazards.setdefault(f"{finding.code} {CODES[finding.code].name}", set()).add(line)
        elif finding.status is not None and (finding.status is not Status.SUPPORTED or finding.hip != finding.name):
            names[f"{finding.name} -> {finding.hip}" if finding.hip and finding.hip != finding.name
                  else f"{finding.name} ({finding.status.value})"] = None
    parts = []
    if names:
        parts.append(f"CUDA names hiprtc needs as HIP's: {_listed(names)}")
    if hazards:
        parts.append(f"hazards: {_listed({f'{what} (line{_s(lines)} {_lines(lines)})': None for what, lines in sorted(hazards.items())})}")
    return "; ".join(parts)


def _s(items) -> str:
    return "s" if len(items) > 1 else ""


def _lines(lines: set[int]) -> str:
    return ", ".join(map(str, sorted(lines)))


def _listed(items: dict[str, None]) -> str:
    shown = list(items)[:_LISTED]
    return ", ".join(shown) + (", ..." if len(items) > _LISTED else "")


@functools.lru_cache(maxsize=2)
def _keep(rules: RuleDatabase):
    """The names the parser keeps in a kernel's text: as in a run's parse (run/file.py's Job.keep)."""
    from portkit.analyze import ANALYZER_NAMES  # the package's, which imports this module

    return functools.partial(is_interesting, known=rules.known_names() | ANALYZER_NAMES)


def _options(parsed: ParsedFile, strings: tuple[Occurrence, ...]) -> Iterator[Finding]:
    """The option words hiprtc does not take, in the literals that are option strings (they start with `-`): one
    finding a line, as a marker is one a line (`opts[] = {"--use_fast_math", "-default-device"}`)."""
    facts = build_facts()
    by_line: dict[int, tuple[Occurrence, dict[str, str]]] = {}
    for literal in strings:
        if not literal.text.lstrip().startswith("-"):
            continue
        for word in literal.text.split():
            advice = facts.nvrtc_advice(word) if word.startswith("-") else None
            if advice is not None:
                by_line.setdefault(literal.position.line, (literal, {}))[1].setdefault(word, advice)
    for first, advice in by_line.values():
        name = " ".join(advice)
        said = "; ".join(f"{word}: {text}" for word, text in advice.items())
        yield _finding(parsed, first, codes.NVRTC_OPTION, name, f"NVRTC option{_s(advice)} {said}",
                       said if len(advice) > 1 else next(iter(advice.values())))


def _finding(parsed: ParsedFile, occurrence: Occurrence, code: str, name: str, message: str, advice: str = "") -> Finding:
    """A finding named `name`, not after the occurrence's text (a literal's is its whole value)."""
    return Finding(parsed.path, occurrence.position, code, name, message, CODES[code].severity,
                   advice=advice or CODES[code].fix, function=occurrence.function, span=occurrence.span)
