"""Branches no compiler of the port builds: under a test of CUDA's version that hipcc and the targeted CUDA read
alike (`#if defined(CUDA_VERSION) && CUDA_VERSION < 11000` is false for both from CUDA 11). The CUDA names in such
a branch are no porting work: ginkgo's bindings for cuSPARSE before CUDA 11 were 400 of its 540 hours.

And branches the targeted CUDA's cuDNN never builds: under a test of cuDNN's version that every cuDNN release for
that CUDA reads alike (rules/_cudnn_versions.yaml; `#if CUDNN_MAJOR >= 8` ... `#else` holds cuDNN 7's API, which
no cuDNN for CUDA 11 or newer has). hipcc reads the test as 0 and would take that branch, but the test is a finding
of its own whose advice is to choose hipcc's branch: the port follows the maintained one. The names in such a branch
are kept (convert marks them) and settled, billed nothing: darknet's cuDNN 7 enums were 233 of its 289 hours.
"""
from __future__ import annotations

import dataclasses
import functools
import re
from typing import Callable, Sequence

from portkit.model import Finding, NameFacts, Occurrence, ParsedFile, Role
from portkit.parse.hipcc_branch import everywhere_value
from portkit.parse.if_expressions import DEFINED, NAME, evaluate, without_comments
from portkit.parse.nodes import CUDA_VERSION_MACROS, CUDNN_VERSION_MACROS
from portkit.resources import load_data
from portkit.rules import Target

NEWEST_CUDA = (99, 0)  # no CUDA targeted: newer than any version a test names
_LATEST = (99, 0)  # a cuDNN range's open end: newer than any version a test names


def dead_ranges(parsed: ParsedFile, target: Target) -> list[tuple[int, int]]:
    """The byte ranges of the file's branches that neither hipcc nor the targeted CUDA compiles."""
    cuda = tuple(target.cuda[:2]) if target.cuda else NEWEST_CUDA
    return _decided(parsed, CUDA_VERSION_MACROS, lambda test: everywhere_value(test, cuda))


def cudnn_dead_ranges(parsed: ParsedFile, target: Target) -> list[tuple[int, int]]:
    """The byte ranges of the file's branches that no cuDNN release for the targeted CUDA compiles."""
    releases = cudnn_releases(target)
    return _decided(parsed, CUDNN_VERSION_MACROS, lambda test: cudnn_value(test, releases)) if releases else []


def cudnn_value(test: str, releases: Sequence[tuple[int, int]]) -> int | None:
    """A test's truth where every cuDNN of `releases` reads it alike, its version macros defined; None where they
    differ, where it reads another name, or where the patch level decides it."""
    text = without_comments(test)
    if any(not CUDNN_VERSION_MACROS.fullmatch(name) for name in NAME.findall(DEFINED.sub(" ", text))) or \
            any(not CUDNN_VERSION_MACROS.fullmatch(m.group(1) or m.group(2)) for m in DEFINED.finditer(text)):
        return None
    values = {evaluate(text, lambda name: True, lambda name, release=release: _cudnn_macro(name, release))
              for release in releases}
    value = values.pop() if len(values) == 1 else None
    return None if value is None else int(bool(value))


def _cudnn_macro(name: str, release: tuple[int, int]) -> int | None:
    """What cuDNN `release` (major, minor) defines the macro as (cudnn_version.h: CUDNN_VERSION is major * 1000 +
    minor * 100 + patch before cuDNN 9, major * 10000 + ... from it); None for the patch level, which no range fixes."""
    major, minor = release
    if name == "CUDNN_VERSION":
        return major * (10000 if major >= 9 else 1000) + minor * 100
    return {"CUDNN_MAJOR": major, "CUDNN_MINOR": minor}.get(name)


def settle_old_cudnn(parsed: ParsedFile, findings: list[Finding], target: Target) -> list[Finding]:
    """The API findings in a branch no cuDNN for the targeted CUDA compiles settled (kept, marked, billed nothing)."""
    dead = cudnn_dead_ranges(parsed, target)
    if not dead:
        return findings
    why = "in a branch no cuDNN for the targeted CUDA compiles (see its test of cuDNN's version): no work once hipcc " \
          "takes the branch cuDNN does"
    return [dataclasses.replace(f, message=f"{f.message}; {why}", settled=True)
            if f.status is not None and not f.settled and any(start <= f.span.start < end for start, end in dead) else f
            for f in findings]


def cudnn_releases(target: Target) -> tuple[tuple[int, int], ...]:
    """The cuDNN versions a test is read at for the targeted CUDA: its range's ends and each major between;
    () for a CUDA the table does not know."""
    table = _cudnn_table()
    oldest, newest = table.get(target.cuda[0] if target.cuda else max(table), (None, None))
    if oldest is None or newest is None:
        return ()
    return (oldest, *((major, 0) for major in range(oldest[0] + 1, min(newest[0], oldest[0] + 20) + 1)), newest)


@functools.lru_cache(maxsize=1)
def _cudnn_table() -> dict[int, tuple[tuple[int, int], tuple[int, int]]]:
    """rules/_cudnn_versions.yaml: CUDA major -> (oldest, newest) cuDNN (major, minor)."""
    def version(text: str) -> tuple[int, int]:
        if text == "latest":
            return _LATEST
        major, minor = str(text).split(".")
        return int(major), int(minor)

    return load_data("_cudnn_versions.yaml", lambda data: {int(cuda): (version(ends[0]), version(ends[1]))
                                                           for cuda, ends in data.items()})


def _decided(parsed: ParsedFile, macros: re.Pattern[str], value: Callable[[str], int | None]) -> list[tuple[int, int]]:
    """The branches of #if/#elif tests of `macros` that `value` (a test's truth, None where unknown) leaves off."""
    conditions = parsed.of(Role.PREPROCESSOR_CONDITION)
    dead = []
    for occurrence in parsed.of(Role.IDENTIFIER):
        facts = occurrence.facts(NameFacts)
        if not facts.compared or facts.branch is None or not macros.fullmatch(occurrence.text):
            continue
        test = _test_of(occurrence, conditions)
        truth = value(test.text) if test is not None and test.detail in ("#if", "#elif") else None
        if truth == 0:
            dead.append(facts.branch)
        elif truth == 1 and facts.otherwise is not None:
            dead.append(facts.otherwise)
    return dead


def _test_of(occurrence: Occurrence, conditions: Sequence[Occurrence]) -> Occurrence | None:
    return next((c for c in conditions if c.span.start <= occurrence.span.start < c.span.end), None)
