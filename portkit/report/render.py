"""The Markdown and HTML reports, rendered from the report data with templates/report.*.j2."""
from __future__ import annotations

from typing import Any, TextIO

from portkit.report.files import work_rows
from portkit.templating import render_template

# GitHub refuses a comment over 65,536 characters; keep a margin for what a CI job adds.
PR_COMMENT_LIMIT = 60_000
# Rows per long table, tried in turn until the Markdown fits (None: every row).
_ROW_LIMITS = (None, 200, 100, 50, 20, 10, 5, 0)


def markdown(data: dict[str, Any]) -> str:
    """The Markdown report, shortened (with a note that says so) until it fits a pull-request comment."""
    files = work_rows(data)
    for limit in _ROW_LIMITS:
        text = render_template("report.md.j2", data=data, limit=limit, files=files)
        if len(text) <= PR_COMMENT_LIMIT:
            return text
    note = "\n\n> Cut at 60,000 characters; the full report: `portkit report -o report.html`.\n"
    return text[:PR_COMMENT_LIMIT - len(note)] + note


def render_markdown(data: dict[str, Any], out: TextIO, color: bool | None = None) -> None:
    out.write(markdown(data))


def render_html(data: dict[str, Any], out: TextIO, color: bool | None = None) -> None:
    out.write(render_template("report.html.j2", data=data, files=work_rows(data)))
