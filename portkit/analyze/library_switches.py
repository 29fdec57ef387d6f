"""Configuration macros of CUDA libraries that the ROCm counterpart breaks on before a release.

A project sets some of NVIDIA's library switches itself: AMGX and ginkgo wrap Thrust and CUB in a namespace of their
own with `-DTHRUST_CUB_WRAPPED_NAMESPACE=amgx`. rocThrust reads the same macro, but before ROCm 5.7 it does not build
with it. The macros, the release that builds with each, the fact and the action are data (rules/_library_switches.yaml);
a switch is reported where it is set, in a source's #define or a build file's definition, on an older target.
"""
from __future__ import annotations

import functools
import re
from typing import Iterator, NamedTuple

from portkit.analyze.builds import text_location
from portkit.analyze.registry import Context, TextFile, analyzer
from portkit.codes import CODES, LIBRARY_SWITCH
from portkit.model import Finding, MacroFacts, ParsedFile, Role
from portkit.resources import load_data
from portkit.rules.versions import Version, parse_version
from portkit.textutil import HASH_COMMENT, LineIndex, blank


class Switch(NamedTuple):
    library: str
    works_from: Version
    fact: str
    action: str


@functools.lru_cache(maxsize=1)
def switches() -> dict[str, Switch]:
    return load_data("_library_switches.yaml", lambda data: {
        name: Switch(entry["library"], parse_version(entry["works_from"]), " ".join(entry["fact"].split()),
                     " ".join(entry["action"].split())) for name, entry in data["switches"].items()})


SWITCH_NAMES = frozenset(switches())
# A build file's definition of a switch: `-DNAME`, `-D NAME=x`, or a bare `NAME=x` / `NAME` word in a CMake
# definitions list (target_compile_definitions, add_compile_definitions).
_BUILD_DEFINITION = re.compile(r"(?:-D\s*|(?<=[\s(\"';]))(" + "|".join(sorted(SWITCH_NAMES)) + r")\b(?==|[\s)\"';]|$)", re.M)


def _broken(name: str, context: Context) -> Switch | None:
    """The switch, when the target is older than the release that builds with it (no target: the newest)."""
    switch = switches().get(name)
    target = context.target.rocm
    return switch if switch is not None and target is not None and target < switch.works_from else None


def _message(name: str, switch: Switch) -> str:
    return f"{name} is set: {switch.fact}"


@analyzer("source", codes=(LIBRARY_SWITCH,))
def defined_switches(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    for o in parsed.of(Role.MACRO_DEFINITION):
        switch = _broken(o.text, context) if o.text in SWITCH_NAMES else None
        if switch is not None and not o.facts(MacroFacts).guarded:  # one under a HIP test: the project's HIP choice
            yield Finding(parsed.path, o.position, LIBRARY_SWITCH, o.text, _message(o.text, switch),
                          CODES[LIBRARY_SWITCH].severity, advice=switch.action, function=o.function, span=o.span)


@analyzer("cmake", "make", codes=(LIBRARY_SWITCH,))
def build_switches(file: TextFile, context: Context) -> Iterator[Finding]:
    if not any(name in file.text for name in SWITCH_NAMES):
        return  # most build files: one test per name
    lines = LineIndex(file.text)
    for match in _BUILD_DEFINITION.finditer(blank(file.text, HASH_COMMENT)):
        name = match.group(1)
        switch = _broken(name, context)
        if switch is not None:
            span, position = text_location(lines, match.start(1), len(name))
            yield Finding(file.path, position, LIBRARY_SWITCH, name, _message(name, switch),
                          CODES[LIBRARY_SWITCH].severity, advice=switch.action, span=span)
