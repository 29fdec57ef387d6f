"""`portkit rules ...`: look into the rule database."""
from __future__ import annotations

import collections
from pathlib import Path

from rich.console import Console
from rich.table import Table

import yaml

from portkit.commands.common import load_rules, make_target
from portkit.errors import RuleError, UsageError
from portkit.resources import rules_dir
from portkit.rules import KINDS, STATUSES, load_file


def list_rules(library: str | None, status: str | None, kind: str | None, extra: list[Path]) -> int:
    database = load_rules(extra)
    if library and library not in database.libraries:
        raise UsageError(f"unknown library {library!r}; known: {', '.join(sorted(database.libraries))}")
    if status and status not in STATUSES:
        raise UsageError(f"unknown status {status!r}; choose one of {', '.join(STATUSES)}")
    if kind and kind not in KINDS:
        raise UsageError(f"unknown kind {kind!r}; choose one of {', '.join(KINDS)}")
    for rule in database.all_rules():
        if (library and rule.library != library) or (status and rule.status != status) or (kind and rule.kind != kind):
            continue
        print(f"{rule.library}\t{rule.kind}\t{rule.cuda}\t{rule.status}\t{rule.hip or rule.roc or '-'}")
    return 0


def show_rule(name: str, rocm_version: str | None, extra: list[Path]) -> int:
    database = load_rules(extra)
    rule = database.lookup(name) or database.header(name) or database.link(name)
    if rule is None:
        raise UsageError(f"no rule for {name!r}")
    target = make_target(rocm_version, None)
    resolution = rule.resolve(target)
    fields = [
        ("CUDA name", rule.cuda), ("kind", rule.kind), ("library", rule.library), ("HIP", rule.hip), ("ROC", rule.roc),
        ("status", rule.status),
        (f"status for HIP {'.'.join(map(str, target.rocm)) if target.rocm else 'latest'}", resolution.status),
        ("CUDA added", rule.cuda_added), ("CUDA deprecated", rule.cuda_deprecated), ("CUDA removed", rule.cuda_removed),
        ("HIP added", rule.hip_added), ("HIP deprecated", rule.hip_deprecated), ("HIP removed", rule.hip_removed),
        ("experimental in HIP", "yes" if rule.hip_experimental else ""), ("note", rule.note), ("action", rule.action),
        ("advice", resolution.advice if resolution.advice != (rule.action or rule.note) else ""),
        ("effort weight (hours)", f"{database.weight(rule, resolution.status):g}"), ("defined in", rule.source),
    ]
    for label, value in fields:
        if value:
            print(f"{label + ':':24} {value}")
    return 0


def load_targets() -> dict[str, int]:
    """Minimum rule counts per library (rules/_targets.yaml)."""
    path = rules_dir() / "_targets.yaml"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        return {str(k): int(v) for k, v in data.items()}
    except (OSError, yaml.YAMLError, TypeError, ValueError, AttributeError) as exc:
        raise RuleError(f"{path}: malformed targets: {exc}") from None


def stats(extra: list[Path]) -> int:
    database = load_rules(extra)
    targets = load_targets()
    counts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for rule in database.all_rules():
        counts[rule.library][rule.status] += 1
        counts[rule.library]["total"] += 1
    table = Table(title="Rule database", title_justify="left")
    table.add_column("library")
    table.add_column("ROCm counterpart")
    for column in ("total", "target") + STATUSES:
        table.add_column(column, justify="right")
    for lib_id in sorted(counts):
        library = database.libraries[lib_id]
        counterpart = " / ".join(x for x in (library.hip_library, library.roc_library) if x)
        target = targets.get(lib_id)
        met = "-" if target is None else f"{target} {'ok' if counts[lib_id]['total'] >= target else 'BELOW'}"
        table.add_row(library.title, counterpart, str(counts[lib_id]["total"]), met,
                      *(str(counts[lib_id][c]) for c in STATUSES))
    total = collections.Counter()
    for c in counts.values():
        total.update(c)
    table.add_row("all", "", str(total["total"]), "", *(str(total[c]) for c in STATUSES), style="bold")
    Console(highlight=False).print(table)
    return 0


def validate(files: list[Path]) -> int:
    for path in files:
        library, rules = load_file(path)
        print(f"{path}: ok ({len(rules)} entries, library {library.id})")
    return 0
