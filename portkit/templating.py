"""Render the jinja2 templates in templates/ (reports, the shim header).

Everything a template prints comes from scanned code or rule files, so every
`{{ value }}` is escaped by the environment, not by each template: HTML with
jinja2's autoescaping, Markdown with `markdown_text` (a value meant as Markdown
is wrapped in `Markdown`, as `code` does), and in every format control
characters and undecodable file-name bytes are shown as escapes (`printable`).
"""
from __future__ import annotations

import functools
import re
from typing import Any

import jinja2
import markupsafe

from portkit.resources import templates_dir
from portkit.textutil import counted, printable

# "<" would start HTML and "&" an entity: both become entities. These others are markup
# anywhere in a line (code, emphasis, links, images, table cells, strikethrough, math,
# mentions) and get a backslash; "_" only at the edge of a word, as inside one
# ("sm_90", "hip_runtime") it is no markup.
_ENTITIES = {"<": "&lt;", "&": "&amp;"}
_MARKUP = frozenset("\\`*[]|#!~$@")
_WORD = re.compile(r"[^\W_]")  # a letter or digit


class Markdown(str):
    """Text that is already Markdown: printed as it is."""


def markdown_text(value: Any) -> str:
    """`value` as literal Markdown text: nothing in it is markup (no HTML, links, emphasis,
    code or table cells), and one line stays one line."""
    text = printable(value)
    out = []
    for i, char in enumerate(text):
        if char in _ENTITIES:
            out.append(_ENTITIES[char])
        elif char in _MARKUP or (char == "_" and not (0 < i < len(text) - 1 and _WORD.match(text[i - 1])
                                                      and _WORD.match(text[i + 1]))):
            out.append("\\" + char)
        else:
            out.append(char)
    return "".join(out)


def code(value: Any) -> Markdown:
    """`value` as a Markdown code span inside a table cell: a fence longer than any run of
    backticks in it, and `|` escaped (GFM splits cells before it reads code spans)."""
    text = printable(value).replace("|", "\\|")
    fence = "`" * (_longest_backtick_run(text) + 1)
    padded = f" {text} " if text.startswith("`") or text.endswith("`") else text
    return Markdown(f"{fence}{padded}{fence}")


def _longest_backtick_run(text: str) -> int:
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return longest


def _finalize_markdown(value: Any) -> Any:
    if isinstance(value, Markdown) or not isinstance(value, str):
        return value
    return markdown_text(value)


def _finalize_other(value: Any) -> Any:
    if isinstance(value, markupsafe.Markup):  # already escaped HTML: its escapes are plain ASCII, still safe
        return markupsafe.Markup(printable(value))
    return printable(value) if isinstance(value, str) else value


def _has_prefix(value: Any, prefixes: list[str]) -> bool:
    return str(value).startswith(tuple(prefixes))


@functools.lru_cache(maxsize=None)
def environment(kind: str = "") -> jinja2.Environment:
    """The environment for one kind of template: "md", "html" or anything else."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        undefined=jinja2.StrictUndefined,
        autoescape=kind == "html",
        finalize=_finalize_markdown if kind == "md" else _finalize_other,
        keep_trailing_newline=True,
    )
    env.tests["prefix"] = _has_prefix  # selectattr("name", "prefix", ["__shfl"])
    env.filters["code"] = code
    env.filters["counted"] = counted  # {{ n | counted("file") }}: '1 file', '2 files'
    env.filters["markdown"] = Markdown  # the template's own Markdown (a macro's rows), never source text
    return env


def render_template(name: str, **values: Any) -> str:
    kind = name.split(".")[-2] if name.count(".") >= 2 else ""
    return environment(kind).get_template(name).render(**values)
