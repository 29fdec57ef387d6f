"""Device functions whose architecture test's other branch defines the same name for the host: both made
callable from either side (portkit/parse/host_twins.py says why clang needs it and nvcc does not).

Only where the test is rewritten to one that holds in AMD's device pass alone (`__HIP_DEVICE_COMPILE__`, the
rule's `compare_as`): each definition is then still compiled only in its own pass. A test left as CUDA's, or one
that holds in both passes, keeps a single definition per pass that both sides already see.
"""
from __future__ import annotations

from typing import Iterable, Iterator

from portkit.analyze.own_hip_branches import rewritten
from portkit.analyze.registry import Context
from portkit.codes import CODES, DEVICE_HOST_TWIN
from portkit.model import Finding, Fix, FixAction, NameFacts, Occurrence, ParsedFile, Position, Role, Span
from portkit.parse.host_twins import ADDED_SPACES

_LEFT = ("host code calling {name} finds only the __device__ function in hipcc's device pass, and a kernel calling "
         "it only the host definition in its host pass; the other branch defines {name} as no function: make it a "
         "function or a function-like macro, and write both definitions __host__ __device__")


def write_host_twins(parsed: ParsedFile, findings: Iterable[Finding], context: Context) -> Iterator[Finding]:
    """`findings`, and after each rewritten device-pass test whose branches define a name twice, the spaces that
    make both definitions callable from either side (or a marker where the other side's is no function)."""
    tests = {o.span: o for o in parsed.of(Role.IDENTIFIER)
             if (facts := o.facts(NameFacts)).twin_edits or facts.twins_left}
    for finding in findings:
        yield finding
        occurrence = tests.get(finding.span) if tests and rewritten(finding, context) else None
        if occurrence is not None and _device_pass_test(occurrence.text, context):
            yield from _twin_findings(parsed.path, occurrence)


def _device_pass_test(name: str, context: Context) -> bool:
    rule = context.rules.lookup(name)
    return rule is not None and bool(rule.compare_as)


def _twin_findings(path: str, test: Occurrence) -> Iterator[Finding]:
    facts = test.facts(NameFacts)
    severity = CODES[DEVICE_HOST_TWIN].severity
    edits = facts.twin_edits
    for offset, line, column, kind, index in zip(*[iter(edits)] * 5):
        name, spaces, at = facts.twins[index], ADDED_SPACES[kind], Span(offset, offset)
        yield Finding(path=path, position=Position(line, column), code=DEVICE_HOST_TWIN, name=name,
                      message=f"{name} is defined for the device under {test.text} and again for the host in the other "
                              f"branch: written {spaces.strip()} here so that hipcc's other pass finds it",
                      severity=severity, function=name, span=at, fix=Fix(FixAction.INSERT, at, spaces))
    for name in facts.twins_left:
        advice = _LEFT.format(name=name)
        yield Finding(path=path, position=test.position, code=DEVICE_HOST_TWIN, name=name,
                      message=f"{name} is defined for the device under {test.text} and otherwise in the other branch: "
                              + advice, severity=severity, advice=advice, function=test.function, span=test.span)
