"""Render the jinja2 templates in templates/ (reports, the shim header)."""
from __future__ import annotations

import functools
from typing import Any

import jinja2

from portkit.resources import templates_dir


def _has_prefix(value: Any, prefixes: list[str]) -> bool:
    return str(value).startswith(tuple(prefixes))


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        undefined=jinja2.StrictUndefined,
        autoescape=jinja2.select_autoescape(enabled_extensions=("html", "html.j2"), default_for_string=False),
        keep_trailing_newline=True,
    )
    env.tests["prefix"] = _has_prefix  # selectattr("name", "prefix", ["__shfl"])
    return env


def render_template(name: str, **values: Any) -> str:
    return environment().get_template(name).render(**values)
