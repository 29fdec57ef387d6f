"""`portkit rules ...`: look into the rule database."""
from __future__ import annotations

import collections
from pathlib import Path
from typing import List, Optional

import typer

from portkit.cli.app import Color, Command, RocmVersion, UsageError, UserRules, choice, examples, plain, rules_app
from portkit.codes import RULE_STATUSES
from portkit.resources import load_data
from portkit.rules import KINDS, Rule, load_database, load_file
from portkit.settings import make_target


def list_rules(library: str | None, status: str | None, kind: str | None, extra: list[Path]) -> int:
    database = load_database(extra)
    if library and library not in database.libraries:
        raise UsageError(f"unknown library {library!r}; known: {', '.join(sorted(database.libraries))}")
    if status and status not in RULE_STATUSES:
        raise UsageError(f"unknown status {status!r}; choose one of {', '.join(RULE_STATUSES)}")
    if kind and kind not in KINDS:
        raise UsageError(f"unknown kind {kind!r}; choose one of {', '.join(KINDS)}")
    for rule in database.all_rules():
        if (library and rule.library != library) or (status and rule.status != status) or (kind and rule.kind != kind):
            continue
        print(f"{rule.library}\t{rule.kind}\t{rule.cuda}\t{rule.status.value}\t{rule.hip or rule.roc or '-'}")
    return 0


def show_rule(name: str, rocm_version: str | None, extra: list[Path]) -> int:
    database = load_database(extra)
    rule = database.lookup(name) or database.header(name) or database.link(name)
    if rule is None:
        raise UsageError(f"no rule for {name!r}")
    target = make_target(rocm_version, None)
    resolution = rule.resolve(target)
    fields = [
        ("CUDA name", rule.cuda), ("kind", rule.kind), ("library", rule.library), ("HIP", rule.hip), ("ROC", rule.roc),
        ("status", rule.status.value),
        (f"status for HIP {'.'.join(map(str, target.rocm)) if target.rocm else 'latest'}", resolution.status.value),
        ("CUDA added", rule.cuda_added), ("CUDA deprecated", rule.cuda_deprecated), ("CUDA removed", rule.cuda_removed),
        ("HIP added", rule.hip_added), ("HIP deprecated", rule.hip_deprecated), ("HIP removed", rule.hip_removed),
        ("experimental in HIP", "yes" if rule.hip_experimental else ""),
        ("HIP by argument count", ", ".join(f"{count}: {hip}" for count, hip in rule.hip_for_args)),
        ("form", _form(rule)), ("note", rule.note), ("action", rule.action),
        ("advice", resolution.advice if resolution.advice != (rule.action or rule.note) else ""),
        ("effort weight (hours)", f"{database.weight(rule, resolution.status):g}"), ("defined in", rule.source),
    ]
    for label, value in fields:
        if value:
            print(f"{label + ':':24} {value}")
    return 0


def _form(rule: Rule) -> str:
    """When a call is `form_rule`'s form instead: an argument's type, or something other than NULL for an argument
    CUDA added and HIP lacks."""
    if not rule.form_rule:
        return ""
    why = [f"passes a {kind} as argument {index}" for index, kind in rule.form_args]
    why += [f"of {count} arguments passes other than NULL as argument {index} (with NULL there, it is dropped)"
            for count, index in rule.null_args]
    return f"{rule.form_rule} when a call {'; or '.join(why)}"


def load_targets() -> dict[str, int]:
    """Minimum rule counts per library (rules/_targets.yaml)."""
    return load_data("_targets.yaml", lambda data: {str(k): int(v) for k, v in (data or {}).items()})


def stats(extra: list[Path]) -> int:
    from rich.console import Console  # only this command draws a table: other commands start without rich
    from rich.table import Table

    database = load_database(extra)
    targets = load_targets()
    counts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for rule in database.all_rules():
        counts[rule.library][rule.status] += 1
        counts[rule.library]["total"] += 1
    table = Table(title="Rule database", title_justify="left")
    table.add_column("library")
    table.add_column("ROCm counterpart")
    for column in ("total", "target") + RULE_STATUSES:
        table.add_column(column, justify="right")
    for lib_id in sorted(counts):
        library = database.libraries[lib_id]
        counterpart = " / ".join(x for x in (library.hip_library, library.roc_library) if x)
        target = targets.get(lib_id)
        met = "-" if target is None else f"{target} {'ok' if counts[lib_id]['total'] >= target else 'BELOW'}"
        table.add_row(library.title, counterpart, str(counts[lib_id]["total"]), met,
                      *(str(counts[lib_id][c]) for c in RULE_STATUSES))
    total = collections.Counter()
    for c in counts.values():
        total.update(c)
    table.add_row("all", "", str(total["total"]), "", *(str(total[c]) for c in RULE_STATUSES), style="bold")
    Console(highlight=False).print(table)
    return 0


def validate(files: list[Path]) -> int:
    for path in files:
        library, rules = load_file(path)
        print(f"{path}: ok ({len(rules)} entries, library {library.id})")
    return 0


RuleStatus = choice("RuleStatus", (status.value for status in RULE_STATUSES))
Kind = choice("Kind", KINDS)


@rules_app.command("list", cls=Command, epilog=examples(
    "portkit rules list --library curand", "portkit rules list --status unsupported --kind function"))
def rules_list(
    library: Optional[str] = typer.Option(None, "--library", "-l", help="Only this library id (e.g. curand)."),
    status: Optional[RuleStatus] = typer.Option(None, "--status", "-s", show_default=False, help="Only this status."),
    kind: Optional[Kind] = typer.Option(None, "--kind", "-k", show_default=False, help="Only this kind."),
    rules: UserRules = [],
    color: Color = None,  # plain lines: taken as every command takes it
) -> None:
    """List rules, one per line: library, kind, CUDA name, status, HIP name."""
    raise typer.Exit(list_rules(library, plain(status), plain(kind), rules))


@rules_app.command("show", cls=Command, epilog=examples(
    "portkit rules show cudaMalloc", "portkit rules show __shfl_xor_sync --rocm-version 5.2"))
def rules_show(
    name: str = typer.Argument(..., metavar="NAME", help="A CUDA name, header or link library."),
    rocm_version: RocmVersion = None,
    rules: UserRules = [],
    color: Color = None,  # plain lines: taken as every command takes it
) -> None:
    """Show one rule: mapping, status under the target, notes and versions."""
    raise typer.Exit(show_rule(name, rocm_version, rules))


@rules_app.command("stats", cls=Command, epilog=examples("portkit rules stats", "portkit rules stats --rules team.yaml"))
def rules_stats(rules: UserRules = [], color: Color = None) -> None:  # plain lines: colour options taken as elsewhere
    """Count rules per library and status."""
    raise typer.Exit(stats(rules))


@rules_app.command("validate", cls=Command, epilog=examples("portkit rules validate team.yaml", "portkit rules validate rules/*.yaml"))
def rules_validate(files: List[Path] = typer.Argument(..., metavar="FILES...", help="Rule files to check."),
                   color: Color = None) -> None:  # plain lines: colour options taken as elsewhere
    """Check rule files against the schema; exit 2 with the first error."""
    raise typer.Exit(validate(files))
