"""Ballots stored in a 32-bit type that another file's alias names: a project analysis.

`typedef unsigned int U32;` in a header makes `U32 m = __ballot_sync(~0u, p);` in every file that includes it a
64-bit mask cut to 32 bits (PK302), but the file's own analysis (analyze/warps.py) sees no alias for `U32`. Each
source file's fact is its own typedefs and using-aliases and the ballots it stores in a type its aliases leave a
name; the finish resolves those through every file's aliases, and reports a ballot only where each definition the
project has of its type is a 32-bit one.
"""
from __future__ import annotations

import collections
import re
from typing import Any, Iterator, NamedTuple, Sequence

from portkit.analyze.registry import Context, ProjectAnalysis, project_analysis
from portkit.analyze.warps import BALLOTS, THIRTY_TWO_BIT_TYPES, aliased_type, ballot_holder, ballot_in_32_bits, calls, type_aliases
from portkit.model import Finding, Occurrence, ParsedFile
from portkit.packing import pack_occurrence, unpack_occurrence
from portkit.textutil import within

_NAME = re.compile(r"[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*")


class BallotFacts(NamedTuple):
    aliases: tuple[tuple[str, str], ...] = ()  # the file's typedefs and using-aliases: (U32, unsigned int)
    pending: tuple[Occurrence, ...] = ()  # its ballots stored in a type only another file's alias may name


def ballot_facts(parsed: ParsedFile, context: Context, findings: Sequence[Finding]) -> BallotFacts:
    aliases = type_aliases(parsed)
    pending = []
    for o in calls(parsed, BALLOTS):
        declared = ballot_holder(o)
        stored = aliased_type(declared, aliases) if declared else ""
        if stored and stored not in THIRTY_TWO_BIT_TYPES and _NAME.fullmatch(stored) and " " not in stored \
                and not within(o.span.start, parsed.amd_only):  # the project's AMD code knows its wavefront
            pending.append(o)
    return BallotFacts(tuple(sorted(aliases.items())), tuple(pending))


def resolve_pending(files: Sequence[tuple[str, BallotFacts | None]], context: Context) -> Iterator[Finding]:
    definitions: dict[str, set[str]] = {}
    for _, fact in files:
        for name, aliased in fact.aliases if fact is not None else ():
            definitions.setdefault(name, set()).add(aliased)
    agreed = {name: next(iter(found)) for name, found in definitions.items() if len(found) == 1}  # once, not per ballot
    for path, fact in files:
        for o in fact.pending if fact is not None else ():
            stored = _project_type(aliased_type(ballot_holder(o), {}), definitions, agreed)
            if stored in THIRTY_TWO_BIT_TYPES:
                yield ballot_in_32_bits(path, o, stored)


def _project_type(name: str, definitions: dict[str, set[str]], agreed: dict[str, str]) -> str:
    """The built-in type every definition of `name` in the project comes to, or "" where they differ (`agreed`: the
    names defined one way only)."""
    found = {aliased_type(name, collections.ChainMap({name: aliased}, agreed)) for aliased in definitions.get(name, ())}
    return found.pop() if len(found) == 1 else ""


def _pack(fact: BallotFacts) -> dict[str, Any]:
    return {"aliases": [list(a) for a in fact.aliases], "pending": [pack_occurrence(o) for o in fact.pending]}


def _unpack(packed: dict[str, Any], fixes: bool) -> BallotFacts:
    return BallotFacts(tuple((a, b) for a, b in packed["aliases"]), tuple(unpack_occurrence(o) for o in packed["pending"]))


BALLOT_ALIASES = project_analysis(ProjectAnalysis("ballot_aliases", ballot_facts, resolve_pending, _pack, _unpack))
