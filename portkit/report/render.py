"""Render the report data with the jinja2 templates in templates/."""
from __future__ import annotations

import functools
from typing import Any, TextIO

import jinja2

from portkit.resources import templates_dir


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        undefined=jinja2.StrictUndefined,
        autoescape=jinja2.select_autoescape(enabled_extensions=("html", "html.j2"), default_for_string=False),
        keep_trailing_newline=True,
    )


def render_template(name: str, **context: Any) -> str:
    return environment().get_template(name).render(**context)


def render_markdown(data: dict[str, Any], out: TextIO, color: bool | None = None) -> None:
    out.write(render_template("report.md.j2", data=data))


def render_html(data: dict[str, Any], out: TextIO, color: bool | None = None) -> None:
    out.write(render_template("report.html.j2", data=data))
