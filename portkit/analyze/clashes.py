"""Project definitions that clash with HIP's own: nvcc accepted them, hipcc reports a redefinition.

The list of what HIP defines is data (rules/_hip_defines.yaml). The fix keeps the project's
definition out of the HIP build, so one source tree still builds for both vendors.
"""
from __future__ import annotations

import dataclasses
import functools
from typing import Iterable

from portkit.analyze.findings import simple_finding
from portkit.analyze.registry import Context, analyzer
from portkit.codes import CODES, HIP_ALREADY_DEFINES
from portkit.model import Finding, Fix, FixAction, ParsedFile, Role, Span
from portkit.resources import load_data

HIP_TEST = "!defined(__HIP_PLATFORM_AMD__)"


def _parse(entries: list) -> frozenset[tuple[str, str]]:
    return frozenset((str(e["name"]), str(e["param0"])) for e in entries)


@functools.lru_cache(maxsize=1)
def hip_definitions() -> frozenset[tuple[str, str]]:
    return load_data("_hip_defines.yaml", _parse)


def _defined_by_hip(name: str, param0: str) -> bool:
    known = hip_definitions()
    return (name, param0.replace(" ", "")) in known or (name, "*") in known


@analyzer("source")
def analyze_clashes(parsed: ParsedFile, context: Context) -> Iterable[Finding]:
    for o in parsed.occurrences:
        if o.role is not Role.DEVICE_FUNCTION or o.get("guarded") or not _defined_by_hip(o.text, o.get("param0")):
            continue
        line_start = o.span.start - (o.position.column - 1)
        finding = simple_finding(parsed.path, o, HIP_ALREADY_DEFINES,
                                 f"{o.text}({o.get('param0') or '...'}) is defined by HIP's headers too",
                                 CODES[HIP_ALREADY_DEFINES].fix)
        # A template's `template <...>` line comes before the definition: guard it by hand.
        fix = None if o.detail == "template" else Fix(FixAction.GUARD, Span(line_start, o.span.end), HIP_TEST)
        yield dataclasses.replace(finding, fix=fix)
