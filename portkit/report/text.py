"""The terminal summary of a scan: how big the port is, what blocks it, and where.

The default view fits a screen whatever the tree: tables list distinct APIs, not
sites; each section has a row budget (the sum stays under SCREEN_LINES) and ends
with how many rows it left out; cells are cut with an ellipsis rather than
wrapped (names that differ stay different), and the headline wraps between its parts. `details=True` adds every site, grouped by API.
"""
from __future__ import annotations

import collections
import os
from typing import Any, TextIO

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from portkit import codes
from portkit.codes import ATTENTION_STATUSES, CODES, Status
from portkit.fileio import ClosedPipe
from portkit.textutil import counted, cut_column, pipe_width, printable, wrap_points

STATUS_STYLE = {Status.SUPPORTED: "green", Status.PARTIAL: "yellow", Status.UNSUPPORTED: "red", Status.REMOVED: "magenta",
                Status.UNAVAILABLE: "red"}
# The order a reader fixes things in: what has no counterpart first.
BLOCKING_ORDER = (Status.UNSUPPORTED, Status.REMOVED, Status.UNAVAILABLE, Status.PARTIAL)
SCREEN_LINES = 60
# Row budgets (table rows, including a "... more" row); with the headers they add up to < SCREEN_LINES.
LIBRARY_ROWS = 6
ATTENTION_ROWS = 22  # shared by the per-status tables, their headers included
FILE_ROWS = 5
KIND_ROWS = 10
_TABLE_OVERHEAD = 2  # title and column header
_GAP = 2  # columns between two table columns
_INDENT = 2  # columns a wrapped line's continuation is indented


def _where(item: dict[str, Any]) -> str:
    return printable(f"{item['path']}:{item['line']}")


def _table(console: Console, title: str, columns: list[tuple[str, int]], rows: list[list[str]], more: str = "") -> None:
    """Print a title (markup) and a table whose rows never wrap: (header, widest) per column, numbers right-aligned.

    A widest of 0 marks the one flexible column, which gets what the others leave of the
    console's width; every cell is cut to its column with an ellipsis.
    """
    widths = [min(cap, max(len(c) for c in [header] + [r[i] for r in rows])) if cap else 0
              for i, (header, cap) in enumerate(columns)]
    flexible = next((i for i, (_, cap) in enumerate(columns) if not cap), None)
    if flexible is not None:
        left = console.width - sum(widths) - _GAP * (len(columns) - 1)
        widths[flexible] = max(min(left, max(len(c) for c in [columns[flexible][0]] + [r[flexible] for r in rows])), 8)
    _line(console, f"[bold]{title}[/bold]")  # its own line: a table's title wraps at the table's width
    table = Table(box=None, pad_edge=False, padding=(0, _GAP // 2),
                  header_style="bold dim", caption=more or None, caption_justify="left", caption_style="dim")
    for (header, _), width, index in zip(columns, widths, range(len(columns))):
        numeric = bool(rows) and all(r[index].replace(".", "").isdigit() or r[index] == "-" for r in rows)
        table.add_column(header, justify="right" if numeric else "left", no_wrap=True, overflow="ellipsis", width=width)
    columns_shown = [cut_column([printable(row[i]) for row in rows], width) for i, width in enumerate(widths)]
    for cells in zip(*columns_shown):
        table.add_row(*(Text(cell) for cell in cells))
    console.print(table)


def _more(left: int, what: str) -> str:
    return f"... {left} more {what}" if left > 0 else ""


def _line(console: Console, markup: str) -> None:
    """A line of parts ('a 1, b 2; c 3') wrapped to the console's width (textutil.wrap_points: between parts where
    it can, else between words, never inside a word or a number), continuation lines indented."""
    text = Text.from_markup(markup)
    for index, line in enumerate(text.divide(wrap_points(text.plain, console.width, _INDENT))):
        line.rstrip()
        console.print(Text(" " * _INDENT) + line if index else line, no_wrap=True, overflow="ignore", crop=False)


def _cropped(console: Console, text: str) -> None:
    """A line that lists what the details show (names), cut at the console's width."""
    console.print(text, no_wrap=True, overflow="ellipsis", crop=True)


def _headline(console: Console, data: dict[str, Any]) -> None:
    """At most 80 columns a line: which target the figures are for, and what they become at the newest ROCm."""
    s, plan = data["summary"], data["plan"]
    readiness, effort, newest = plan["readiness"], plan["effort"], plan["newest"]
    _line(console, f"[bold]portkit scan[/bold]: {counted(s['files'], 'file')} ({counted(s['source_files'], 'source')}, "
                   f"{s['build_files']} build, {s['other_files']} other), {counted(s['lines'], 'line')}")
    target = f"HIP {data['target']['rocm']}" if data["target"]["rocm"] else "the newest ROCm"
    _line(console, f"at {target}: [bold]readiness {readiness['score']}%[/bold], "
                   f"[bold]effort {effort['person_days']} person-days[/bold] ({effort['hours']} h)")
    if newest:
        _line(console, f"at ROCm {newest['rocm'] or 'latest'}: readiness {newest['readiness']['score']}%, "
                       f"effort {newest['effort']['person_days']} person-days ({newest['effort']['hours']} h)")
    by = s["sites_by_status"]
    _line(console, "API sites: " + ", ".join(f"[{STATUS_STYLE[Status(k)]}]{k} {v}[/]" for k, v in by.items()))
    _line(console, f"hazards {s['hazards']}, kernels {s['kernels']}, launches {s['launches']}, "
                   f"device functions {s['device_functions']}, inline asm {s['inline_asm']}")
    _line(console, f"CUDA-only #if {s['preprocessor_branches']}, build items {s['environment']}")
    if s["files_with_parse_errors"] or s["files_skipped"] or s["files_not_utf8"]:
        _line(console, f"[yellow]files: {s['files_with_parse_errors']} parsed with errors, {s['files_skipped']} skipped, "
                       f"{s['files_not_utf8']} not UTF-8[/yellow]")
    for note in data["notes"]:
        _line(console, "note: " + escape(printable(note)))


def _libraries(console: Console, data: dict[str, Any]) -> None:
    libraries = sorted(data["libraries"], key=lambda lib: (-lib["sites"], lib["title"]))
    if not libraries:
        return
    shown = libraries if len(libraries) <= LIBRARY_ROWS else libraries[:LIBRARY_ROWS - 1]
    rows = []
    for lib in shown:
        counterpart = " / ".join(x for x in (lib["hip_library"], lib["roc_library"]) if x) or "-"
        work = sum(v for k, v in lib["apis_by_status"].items() if k != Status.SUPPORTED.value)
        rows.append([lib["title"], counterpart, str(lib["apis"]), str(lib["sites"]), str(work) if work else "-"])
    _table(console, f"CUDA libraries used ({len(libraries)})", [
        ("library", 0), ("ROCm counterpart", 28), ("APIs", 6), ("sites", 7), ("APIs to fix", 11)],
        rows, _more(len(libraries) - len(shown), "libraries (portkit report lists every API)"))


def _share(counts: list[int], budget: int) -> list[int]:
    """Rows per table: one at a time, round robin, until each table is whole or the budget is spent."""
    rows = [0] * len(counts)
    while budget > 0 and any(r < c for r, c in zip(rows, counts)):
        for i, count in enumerate(counts):
            if rows[i] < count and budget > 0:
                rows[i] += 1
                budget -= 1
    return rows


def _attention(console: Console, data: dict[str, Any]) -> None:
    """One table per status that needs work, of distinct APIs, most used first."""
    groups = {status: sorted((a for a in data["apis"] if a["status"] == status.value), key=lambda a: (-a["sites"], a["name"]))
              for status in BLOCKING_ORDER}
    groups = {status: apis for status, apis in groups.items() if apis}
    if not groups:
        if data["summary"]["source_files"]:  # with none, "No CUDA/C++ sources found" says it
            console.print("[green]Every CUDA API found has a direct HIP/ROCm equivalent.[/green]")
        return
    budget = ATTENTION_ROWS - _TABLE_OVERHEAD * len(groups)
    for (status, apis), rows in zip(groups.items(), _share([len(a) for a in groups.values()], budget)):
        shown = apis if rows >= len(apis) else apis[:max(rows - 1, 0)]  # the last row says how many more
        sites = sum(a["sites"] for a in apis)
        _table(console, f"[{STATUS_STYLE[status]}]{status.value}[/]: {len(apis)} APIs, {sites} sites", [
            ("name", 30), ("library", 12), ("sites", 5), ("files", 5), ("what to do", 0)],
            [[a["name"], a["library"], str(a["sites"]), str(len(a["files"])), _what_to_do(a)] for a in shown],
            _more(len(apis) - len(shown), "APIs (--details lists them)"))


def _what_to_do(api: dict[str, Any]) -> str:
    hip = "no HIP name" if not api["hip"] else "" if api["hip"] == api["name"] else f"-> {api['hip']}"
    return ": ".join(x for x in (hip, api["advice"] or "") if x)


def _files(console: Console, data: dict[str, Any]) -> None:
    files = data["plan"]["files"]
    if not files:
        return
    _table(console, f"Files with the most work ({min(FILE_ROWS, len(files))} of {len(files)})", [
        ("file", 0), ("hours", 7), ("API sites", 9), ("to fix", 6), ("hazards", 7), ("kernels", 7)],
        [[r["path"], f"{r['hours']:.1f}", str(r["sites"]), str(r["attention"]), str(r["hazards"]), str(r["kernels"])]
         for r in files[:FILE_ROWS]])


def _kinds(console: Console, data: dict[str, Any]) -> None:
    """Hazards and build/environment findings grouped by code, hazards first, most frequent first."""
    kinds = [row for row in data["codes"] if codes.in_group(row["code"], "hazard") or codes.in_group(row["code"], "environment")]
    if not kinds:
        return
    ordered = sorted(kinds, key=lambda row: (not codes.in_group(row["code"], "hazard"), -row["sites"], row["code"]))
    shown = ordered if len(ordered) <= KIND_ROWS else ordered[:KIND_ROWS - 1]
    s = data["summary"]
    _table(console, f"Hazards and build items ({s['hazards']} hazards, {s['environment']} build and environment items)", [
        ("code", 5), ("kind", 28), ("sites", 6), ("files", 6), ("first at", 0)],
        [[row["code"], CODES[row["code"]].name, str(row["sites"]), str(row["files"]), _where(row["first"])] for row in shown],
        _more(len(ordered) - len(shown), "kinds (--details lists every site)"))


def _tail(console: Console, data: dict[str, Any], details: bool) -> None:
    unknown = data["unknown_names"]
    if unknown:
        _cropped(console, f"[yellow]CUDA-looking names no rule knows ({len(unknown)}):[/yellow] "
                 + escape(printable(", ".join(unknown))))
    if data["diagnostics"] and not details:
        _line(console, f"[yellow]file warnings: {len(data['diagnostics'])}[/yellow] (listed with --details)")
    if not details:
        _line(console, "[dim]Every site: portkit scan --details. Full inventory: portkit report -o report.html (or .md, .json).[/dim]")


def _by_api(console: Console, data: dict[str, Any]) -> None:
    """Every API site, grouped by API: what needs work first, then the clean renames."""
    order = {status.value: i for i, status in enumerate((*BLOCKING_ORDER, Status.SUPPORTED))}
    sites: dict[tuple[str, str, str], list[str]] = collections.defaultdict(list)
    for f in data["findings"]:
        if f["status"]:
            sites[(f["library"], f["name"], f["status"])].append(_where(f))
    console.print("[bold]Every API site, by API[/bold]")
    for api in sorted(data["apis"], key=lambda a: (order[a["status"]], a["library"], a["name"])):
        status = Status(api["status"])
        hip = f" -> {api['hip']}" if api["hip"] else ""
        console.print(f"[{STATUS_STYLE[status]}]{status.value}[/] " + escape(printable(
            f"{api['name']}{hip} ({api['library']}, {api['sites']} sites)")), soft_wrap=True)
        if api["advice"] and status in ATTENTION_STATUSES:
            console.print(printable(f"    {api['advice']}"), markup=False, soft_wrap=True)
        for where in sites[(api["library"], api["name"], api["status"])]:
            console.print(f"  {where}", markup=False, soft_wrap=True)


def _site_list(console: Console, title: str, items: list[dict[str, Any]], text, count: str = "") -> None:
    if not items:
        return
    console.print(f"[bold]{title}[/bold] ({count or len(items)})")
    for item in items:
        console.print(printable(f"  {_where(item)}: {text(item)}"), markup=False, soft_wrap=True)


def _details(console: Console, data: dict[str, Any]) -> None:
    findings = data["findings"]
    _by_api(console, data)
    _site_list(console, "Kernels", [{**k, "message": k["name"] + (" <template>" if k["template"] else "")}
                                    for k in data["kernels"]], lambda k: f"{k['message']} ({counted(k['launches'], 'launch', 'launches')})")
    for title, wanted, text in (
            ("Kernel launches", lambda f: f["code"] == codes.KERNEL_LAUNCH, lambda f: f["message"]),
            ("Inline asm", lambda f: f["library"] == "ptx", lambda f: f["message"]),
            ("CUDA-only preprocessor branches", lambda f: f["code"] == codes.CUDA_BRANCH, lambda f: f["message"]),
            ("Hazards", lambda f: codes.in_group(f["code"], "hazard"), lambda f: f"{f['code']} {f['message']}"),
            ("Build and environment", lambda f: codes.in_group(f["code"], "environment"),
             lambda f: f"{f['code']} {f['message']}" + (f" ({f['advice']})" if f["advice"] else ""))):
        # A site's findings of one text once: a launch through a choice of kernels is a finding per kernel.
        shown = {(f["path"], f["line"], f["column"], text(f)): f for f in findings if wanted(f)}
        _site_list(console, title, list(shown.values()), text)
    unknown = [f for f in findings if f["code"] == codes.API_UNKNOWN]
    names = len({f["name"] for f in unknown})  # the count the summary gives, of names: here each site is listed
    _site_list(console, "CUDA-looking names no rule knows", unknown, lambda f: f["name"],
               f"{counted(names, 'name')}, {counted(len(unknown), 'site')}" if names != len(unknown) else "")
    if data["diagnostics"]:
        console.print(f"[bold]File warnings[/bold] ({len(data['diagnostics'])})")
        for d in data["diagnostics"]:
            console.print(printable(f"  {d['path']}: {d['message']}"), markup=False, soft_wrap=True)


def _console(out: TextIO, color: bool | None) -> Console:
    """`color`: --color (True), --no-color (False), else colour on a terminal unless NO_COLOR is set (no-color.org)."""
    width = None if out.isatty() else pipe_width()
    no_color = color is False or (color is None and os.environ.get("NO_COLOR", "") != "")
    return _Console(file=out, force_terminal=color, no_color=no_color, width=width, highlight=False, soft_wrap=False)


class _Console(Console):
    def on_broken_pipe(self) -> None:
        """rich would exit 1 here, which reads as "blocking findings": let the CLI end it quietly."""
        raise ClosedPipe


def render_text(data: dict[str, Any], out: TextIO, color: bool | None = None, details: bool = False) -> None:
    console = _console(out, color)
    _headline(console, data)
    if not data["summary"]["source_files"]:
        console.print("[yellow]No CUDA/C++ sources found.[/yellow]")
    _libraries(console, data)
    _attention(console, data)
    _files(console, data)
    _kinds(console, data)
    _tail(console, data, details)
    if details:
        _details(console, data)


def render_details(data: dict[str, Any], out: TextIO, color: bool | None = None) -> None:
    """The summary, then every site (`portkit scan --details`)."""
    render_text(data, out, color, details=True)
