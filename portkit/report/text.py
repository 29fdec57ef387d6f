"""The terminal summary of a scan, drawn with rich tables."""
from __future__ import annotations

from typing import Any, TextIO

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from portkit import codes
from portkit.codes import ALL_STATUSES, ATTENTION_STATUSES, Status
from portkit.fileio import ClosedPipe
from portkit.textutil import printable

STATUS_STYLE = {Status.SUPPORTED: "green", Status.PARTIAL: "yellow", Status.UNSUPPORTED: "red", Status.REMOVED: "magenta",
                Status.UNAVAILABLE: "red"}
_LIST_LIMIT = 200  # beyond this many rows, the JSON/Markdown reports hold the full list


class _Console(Console):
    def on_broken_pipe(self) -> None:
        """rich would exit 1 here, which reads as "blocking findings": let the CLI end it quietly."""
        raise ClosedPipe


def _shown(value: Any) -> str:
    """Text from the scanned code for a rich table cell: no control characters, no markup."""
    return escape(printable(value))


def _where(item: dict[str, Any]) -> str:
    return printable(f"{item['path']}:{item['line']}")


def _summary(console: Console, data: dict[str, Any]) -> None:
    s = data["summary"]
    target = data["target"]["rocm"] or "latest ROCm"
    console.print(
        f"[bold]portkit scan[/bold]: {s['source_files']} source files, {s['build_files']} build files, "
        f"{s['other_files']} other files, {s['lines']} lines; target HIP {target}"
    )
    console.print(
        f"kernels {s['kernels']}, launches {s['launches']}, device functions {s['device_functions']}, "
        f"inline asm {s['inline_asm']}, CUDA-only #if branches {s['preprocessor_branches']}, "
        f"hazards {s['hazards']}, build/environment items {s['environment']}"
    )
    by = s["sites_by_status"]
    console.print("API sites: " + ", ".join(f"[{STATUS_STYLE[k]}]{k} {v}[/]" for k, v in by.items()))
    extra = [f"{s['files_with_parse_errors']} parsed with errors", f"{s['files_skipped']} skipped", f"{s['files_not_utf8']} not UTF-8"]
    console.print("files: " + ", ".join(extra))


def _libraries(console: Console, data: dict[str, Any]) -> None:
    table = Table(title="CUDA libraries used", title_justify="left")
    for column in ("library", "ROCm counterpart", "APIs", "sites"):
        table.add_column(column, justify="right" if column in ("APIs", "sites") else "left")
    for status in ALL_STATUSES:
        table.add_column(status.value, justify="right", style=STATUS_STYLE[status])
    for lib in data["libraries"]:
        counterpart = " / ".join(x for x in (lib["hip_library"], lib["roc_library"]) if x) or "-"
        row = [_shown(lib["title"]), _shown(counterpart), str(lib["apis"]), str(lib["sites"])]
        row += [f"{lib['apis_by_status'][s]} ({lib['sites_by_status'][s]})" if lib["sites_by_status"][s] else "-"
                for s in ALL_STATUSES]
        table.add_row(*row)
    console.print(table)
    console.print("[dim]status columns: distinct APIs (call sites)[/dim]")


def _attention(console: Console, data: dict[str, Any]) -> None:
    rows = [f for f in data["findings"] if f["status"] in ATTENTION_STATUSES]
    if not rows:
        console.print("[green]Every CUDA API found has a direct HIP/ROCm equivalent.[/green]")
        return
    table = Table(title=f"Needs attention ({len(rows)} sites)", title_justify="left")
    for column in ("where", "code", "name", "status", "HIP", "advice"):
        table.add_column(column, overflow="fold")
    for f in rows[:_LIST_LIMIT]:
        table.add_row(escape(_where(f)), f["code"], _shown(f["name"]), f"[{STATUS_STYLE[f['status']]}]{f['status']}[/]",
                      _shown(f["hip"] or "-"), _shown(f["advice"] or ""))
    console.print(table)
    if len(rows) > _LIST_LIMIT:
        console.print(f"[dim]... {len(rows) - _LIST_LIMIT} more; use --format json for all[/dim]")


def _kernels(console: Console, data: dict[str, Any]) -> None:
    if not data["kernels"]:
        return
    table = Table(title="Kernels", title_justify="left")
    for column in ("kernel", "defined at", "launches"):
        table.add_column(column)
    for k in data["kernels"][:_LIST_LIMIT]:
        table.add_row(_shown(k["name"] + (" <template>" if k["template"] else "")), escape(_where(k)), str(k["launches"]))
    console.print(table)


def _simple_list(console: Console, title: str, items: list[dict[str, Any]], text) -> None:
    if not items:
        return
    console.print(f"[bold]{title}[/bold] ({len(items)})")
    for item in items[:_LIST_LIMIT]:
        console.print(f"  {_where(item)}: {printable(text(item))}", markup=False, highlight=False)


def render_text(data: dict[str, Any], out: TextIO, color: bool | None = None) -> None:
    console = _Console(file=out, force_terminal=color, no_color=color is False, width=160 if not out.isatty() else None,
                      highlight=False, soft_wrap=False)
    findings = data["findings"]
    _summary(console, data)
    if not data["summary"]["source_files"]:
        console.print("[yellow]No CUDA/C++ sources found.[/yellow]")
    _libraries(console, data)
    _attention(console, data)
    _kernels(console, data)
    _simple_list(console, "Kernel launches", [f for f in findings if f["code"] == codes.KERNEL_LAUNCH], lambda f: f["message"])
    _simple_list(console, "Inline asm", [f for f in findings if f["library"] == "ptx"], lambda f: f["message"])
    _simple_list(console, "CUDA-only preprocessor branches", [f for f in findings if f["code"] == codes.CUDA_BRANCH],
                 lambda f: f["message"])
    _simple_list(console, "Hazards", [f for f in findings if codes.in_group(f["code"], "hazard")],
                 lambda f: f"{f['code']} {f['message']}")
    _simple_list(console, "Build and environment", [f for f in findings if codes.in_group(f["code"], "environment")],
                 lambda f: f"{f['code']} {f['message']} ({f['advice']})" if f["advice"] else f"{f['code']} {f['message']}")
    _simple_list(console, "CUDA-looking names no rule knows", [f for f in findings if f["code"] == codes.API_UNKNOWN],
                 lambda f: f["name"])
    diagnostics = data["diagnostics"]
    if diagnostics:
        console.print(f"[bold]File warnings[/bold] ({len(diagnostics)})")
        for d in diagnostics:
            console.print(printable(f"  {d['path']}: {d['message']}"), markup=False, highlight=False)
