"""What a run is asked for: one frozen value handed down the stages (plan, files, finish).

Each command states once what it reads, computes and keeps; the stages read the fields they need
instead of threading keyword modes through every entry point.
"""
from __future__ import annotations

import dataclasses
from typing import Callable

from portkit.analyze.registry import Select
from portkit.model import Finding
from portkit.rules import RuleDatabase

Wanted = Callable[[Finding], bool]  # the findings a caller acts on


@dataclasses.dataclass(frozen=True)
class RunRequest:
    """What a command asks of a run (every field's default: a plain scan that keeps every finding).

    `keep_sources`: keep each file's bytes (convert, shim and check work on them).
    `prefer_roc`: rename to rocPRIM/rocRAND/roc* libraries where a rule offers one (convert --roc).
    `progress`: show a progress bar on a terminal.
    `rules`: the rule database already loaded (default: load the settings' rule files).
    `select`: which walked files to parse and analyse (a shard's part; default: all). What is
    project-wide (the macro table, the walked paths, clang's environment) still comes from every file.
    `summary_only`: keep each file's findings counted, not the findings themselves (a text summary
    prints counts); the clang engine, whose units report their headers' findings, always keeps them.
    `wanted`: the findings the caller acts on (convert: those it edits or marks); the others are dropped
    where they are made. `analyzers`: those that can make them, run alone when there is no cache (a cache
    keeps every finding, for later runs).
    """

    keep_sources: bool = False
    prefer_roc: bool = False
    progress: bool = False
    rules: RuleDatabase | None = None
    select: Callable[[str], bool] | None = None
    summary_only: bool = False
    wanted: Wanted | None = None
    analyzers: Select | None = None
