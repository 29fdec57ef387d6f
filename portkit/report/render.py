"""The Markdown and HTML reports, rendered from the report data with templates/report.*.j2."""
from __future__ import annotations

from typing import Any, TextIO

from portkit.templating import render_template


def render_markdown(data: dict[str, Any], out: TextIO, color: bool | None = None) -> None:
    out.write(render_template("report.md.j2", data=data))


def render_html(data: dict[str, Any], out: TextIO, color: bool | None = None) -> None:
    out.write(render_template("report.html.j2", data=data))
