"""Branches no compiler of the port builds: under a test of CUDA's version that hipcc and the targeted CUDA read
alike (`#if defined(CUDA_VERSION) && CUDA_VERSION < 11000` is false for both from CUDA 11). The CUDA names in such
a branch are no porting work: ginkgo's bindings for cuSPARSE before CUDA 11 were 400 of its 540 hours.
"""
from __future__ import annotations

from portkit.model import NameFacts, ParsedFile, Role
from portkit.parse.hipcc_branch import everywhere_value
from portkit.parse.nodes import CUDA_VERSION_MACROS
from portkit.rules import Target

NEWEST_CUDA = (99, 0)  # no CUDA targeted: newer than any version a test names


def dead_ranges(parsed: ParsedFile, target: Target) -> list[tuple[int, int]]:
    """The byte ranges of the file's branches that neither hipcc nor the targeted CUDA compiles."""
    cuda = tuple(target.cuda[:2]) if target.cuda else NEWEST_CUDA
    conditions = parsed.of(Role.PREPROCESSOR_CONDITION)
    dead = []
    for occurrence in parsed.of(Role.IDENTIFIER):
        facts = occurrence.facts(NameFacts)
        if not facts.compared or facts.branch is None or not CUDA_VERSION_MACROS.fullmatch(occurrence.text):
            continue
        test = next((c for c in conditions if c.span.start <= occurrence.span.start < c.span.end), None)
        if test is None or test.detail not in ("#if", "#elif"):
            continue
        value = everywhere_value(test.text, cuda)
        if value == 0:
            dead.append(facts.branch)
        elif value == 1 and facts.otherwise is not None:
            dead.append(facts.otherwise)
    return dead
