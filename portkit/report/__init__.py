"""Output formats: each takes the report data and a text stream, registered by name."""
from __future__ import annotations

import json
from typing import Any, Callable, TextIO

from portkit.report.text import render_text


def render_json(data: dict[str, Any], out: TextIO, color: bool | None = None) -> None:
    json.dump(data, out, indent=2, sort_keys=True)
    out.write("\n")


Formatter = Callable[[dict[str, Any], TextIO, "bool | None"], None]
FORMATTERS: dict[str, Formatter] = {"text": render_text, "json": render_json}
