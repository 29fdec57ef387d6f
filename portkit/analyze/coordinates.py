"""Built-in coordinates passed to min, max and printf, or declared `auto`: unsigned int in CUDA, proxy objects in HIP.

`min(n, blockDim.x)` compiles with nvcc, whether `min` is CUDA's or a project template of that
name; under hipcc the proxy stops template deduction and HIP's overloads are ambiguous. Which
names are affected, and the type to cast to, is rule data (`coordinate_cast`). The name's owner
does not matter, so the finding is never dropped for a project definition.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Iterable

from portkit.analyze.findings import simple_finding
from portkit.analyze.registry import Context, analyzer
from portkit.analyze.rewrite import coordinate_fix
from portkit.codes import CODES, COORDINATE_ARGUMENT
from portkit.model import CallFacts, Finding, Fix, FixAction, ParsedFile, Role, Span

# threadIdx.x, blockDim.y...: the whole argument, nothing around it.
_BUILTIN_COORDINATE = re.compile(r"(?:threadIdx|blockIdx|blockDim|gridDim)\s*\.\s*[xyz]")


@analyzer("source", codes=(COORDINATE_ARGUMENT,), fixes=True)
def analyze_coordinate_arguments(parsed: ParsedFile, context: Context) -> Iterable[Finding]:
    if not parsed.device_functions:
        return  # coordinates exist only in device code (most host files: no look-up of each call)
    declared: set[Span] = set()
    for o in parsed.of(Role.AUTO_COORDINATE):
        if o.parts[0] not in declared and o.function in parsed.device_functions:
            declared.add(o.parts[0])  # `auto a = threadIdx.x, b = threadIdx.y;`: one `auto`
            finding = simple_finding(parsed.path, o, COORDINATE_ARGUMENT, f"auto declared from {o.text}: a proxy object "
                                     "in HIP, so the variable would be one too", CODES[COORDINATE_ARGUMENT].fix)
            yield dataclasses.replace(finding, fix=Fix(FixAction.RENAME, o.parts[0], "unsigned int"))
    for o in parsed.of(Role.CALL):
        if not o.parts or o.text in parsed.declared:
            continue
        rule = context.rules.lookup(o.text)
        if rule is None or not rule.coordinate_cast:
            continue
        coordinates = [i for i in range(len(o.parts)) if _BUILTIN_COORDINATE.fullmatch(o.facts(CallFacts).arg(i))]
        if not coordinates or o.function not in parsed.device_functions:
            continue  # coordinates exist only in device code
        names = ", ".join(o.facts(CallFacts).arg(i) for i in coordinates)
        finding = simple_finding(parsed.path, o, COORDINATE_ARGUMENT, f"{names} passed to {o.text}: a proxy object in HIP",
                                 CODES[COORDINATE_ARGUMENT].fix)
        yield dataclasses.replace(finding, fix=coordinate_fix(o, coordinates, rule.coordinate_cast))
