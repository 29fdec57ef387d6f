"""Rules column by column, each column as runs of equal values: the rule cache's form, built into rules lazily.

A run uses a few hundred of the ~10,000 rules; building every one (36 fields each) when the database
loads was most of the 0.057 s it took, in the part of every run that no other core can share.
"""
from __future__ import annotations

import bisect
import dataclasses
import itertools
from typing import Any, Sequence

from portkit.rules.model import Rule

RULE_FIELDS = tuple(f.name for f in dataclasses.fields(Rule))


@dataclasses.dataclass(frozen=True)
class _Column:
    values: Sequence[Any]  # each run's value
    counts: Sequence[int]  # each run's length
    ends: list[int]  # where each run ends: the row after its last

    def expanded(self) -> list[Any]:
        return list(itertools.chain.from_iterable(map(itertools.repeat, self.values, self.counts)))

    def at(self, row: int) -> Any:
        return self.values[bisect.bisect_right(self.ends, row)]


class RuleRows:
    """Rules as columns of runs (`RULE_FIELDS` order): a column whole, or one rule built from its row."""

    def __init__(self, columns: list[tuple[Sequence[Any], Sequence[int]]]):
        self._columns = [_Column(values, counts, list(itertools.accumulate(counts))) for values, counts in columns]
        if len({column.ends[-1] if column.ends else 0 for column in self._columns}) > 1 \
                or len(self._columns) != len(RULE_FIELDS):
            raise ValueError("columns of different lengths")

    def column(self, field: str) -> list[Any]:
        return self._columns[RULE_FIELDS.index(field)].expanded()

    def rule(self, row: int) -> Rule:
        return Rule(*[column.at(row) for column in self._columns])
