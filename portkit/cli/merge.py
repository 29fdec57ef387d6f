"""`portkit merge`: the shard documents of a CI matrix's `scan --shard I/N` jobs, as one scan's report."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from portkit.cli.app import Color, Command, OutputFormat, app, examples, plain

_RULES_HELP = ("Rule file or directory the shards were made with (repeatable; default: the rule files they record, "
               "read from the same paths). The merge refuses rules whose contents differ from the shards'.")


@app.command("merge", cls=Command, epilog=examples(
    "portkit merge shard-*.json", "portkit merge shard-*.json --format sarif -o portkit.sarif"))
def merge(
    shards: List[Path] = typer.Argument(..., metavar="SHARD.json...", help="Every shard document of one scan."),
    fmt: OutputFormat = typer.Option("text", "--format", "-f", help="Output format."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the output to this file ('-': stdout)."),
    color: Color = None,
    details: bool = typer.Option(False, "--details", "-v", help="Text output: also list every site (file:line), grouped by API."),
    rules: List[Path] = typer.Option([], "--rules", help=_RULES_HELP),
) -> None:
    """Merge the shard documents of `portkit scan --shard I/N` into the report one unsharded scan gives.

    A tree too big for one CI runner is scanned as a CI matrix: job I of N runs
    `portkit scan --shard I/N -o shard-I.json PATHS` with the same options and files, and one
    last job runs `portkit merge shard-*.json --format sarif -o portkit.sarif` (or html, md, json,
    text). The merge applies what only the whole project shows (names other files define,
    namespace aliases) and checks the set: every part once, all from the same scan (files,
    rules, target, options, portkit version). Exit code 0 when merged (a file the shards could not
    scan named on stderr, as the scan names it), 2 on a missing, duplicate, mismatched or corrupt
    shard document, or where no file found could be scanned.
    """
    from portkit.cli.scan import unscanned, write_data
    from portkit.report import formatter
    from portkit.report.data import data_paths, scan_data
    from portkit.errors import InputError
    from portkit.run.shard import CORRUPT, merge_shards

    render = formatter(plain(fmt), details)
    try:
        data = scan_data(merge_shards(shards, rules or None))
    except CORRUPT as exc:  # a checksummed document whose values have the wrong types: the shards' fault
        raise InputError(f"corrupt shard documents ({type(exc).__name__}: {exc})") from None
    raise typer.Exit(write_data(data, [*shards, *data_paths(data)], render, output, (), color) or unscanned(data))
