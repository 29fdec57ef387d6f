"""Output formats: each takes the report data and a text stream, registered by name."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, TextIO

from portkit.errors import InputError
from portkit.report.files import render_csv
from portkit.report.sarif import render_sarif
from portkit.report.text import render_details, render_text


_FINDINGS_SLOT = '"__portkit_findings__"'


def render_json(data: dict[str, Any], out: TextIO, color: bool | None = None) -> None:
    """Indented JSON, with one finding per line: readable, fast (the C encoder does the bulk), and
    streamed: the findings are written as they come, never held as one string."""
    head, tail = json.dumps({**data, "findings": _FINDINGS_SLOT.strip('"')}, indent=2, sort_keys=True).split(
        _FINDINGS_SLOT, 1)
    out.write(head)
    separator = "[\n    "
    encode = json.JSONEncoder(sort_keys=True).encode  # one encoder for every row
    for finding in data["findings"]:
        out.write(separator)
        out.write(encode(finding))
        separator = ",\n    "
    out.write("[]" if separator == "[\n    " else "\n  ]")
    out.write(tail)
    out.write("\n")


def render_markdown(data: dict[str, Any], out: TextIO, color: bool | None = None) -> None:
    from portkit.report.render import render_markdown as render  # jinja2 loads only for the reports that use it

    render(data, out, color)


def render_html(data: dict[str, Any], out: TextIO, color: bool | None = None) -> None:
    from portkit.report.render import render_html as render

    render(data, out, color)


Formatter = Callable[[dict[str, Any], TextIO, "bool | None"], None]
FORMATTERS: dict[str, Formatter] = {
    "text": render_text, "json": render_json, "md": render_markdown, "markdown": render_markdown, "html": render_html,
    "sarif": render_sarif, "csv": render_csv,
}
_EXTENSIONS = {".json": "json", ".md": "md", ".markdown": "md", ".html": "html", ".htm": "html",
               ".sarif": "sarif", ".txt": "text", ".csv": "csv"}


def formatter(name: str, details: bool = False) -> Formatter:
    """The renderer for a format; `details` asks the text summary for every site too."""
    if name not in FORMATTERS:
        raise InputError(f"unknown format {name!r}; choose one of {', '.join(sorted(FORMATTERS))}")
    return render_details if details and name == "text" else FORMATTERS[name]


def format_for_path(path: Path) -> str:
    """The format a report file's name asks for (`.sarif.json` is SARIF)."""
    name = path.name.lower()
    if name.endswith(".sarif.json"):
        return "sarif"
    suffix = path.suffix.lower()
    if suffix not in _EXTENSIONS:
        raise InputError(f"{path}: cannot tell the report format from the extension; use {', '.join(sorted(_EXTENSIONS))}")
    return _EXTENSIONS[suffix]
