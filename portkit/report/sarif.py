"""SARIF 2.1.0 for GitHub code scanning, built from the report data."""
from __future__ import annotations

import json
import os
import urllib.parse
from pathlib import Path
from typing import Any, TextIO

from portkit.codes import CODES

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def artifact_uri(path: str) -> str:
    """Relative URIs (to the working directory) are what code scanning maps onto the repository.

    Percent-encoded (RFC 3986) from the name's bytes, so spaces, "#", "%", "?", control
    characters and undecodable bytes all survive as the file's real name.
    """
    absolute = Path(path).resolve()
    try:
        relative = absolute.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        if os.path.isabs(path):
            return absolute.as_uri()  # file:///..., percent-encoded by pathlib
        relative = Path(path).as_posix()
    return urllib.parse.quote(os.fsencode(relative), safe="/")


def sarif_data(data: dict[str, Any]) -> dict[str, Any]:
    results = [f for f in data["findings"] if CODES[f["code"]].alert]
    used = sorted({f["code"] for f in results})
    rules = [
        {"id": code, "name": CODES[code].name, "shortDescription": {"text": CODES[code].summary},
         "defaultConfiguration": {"level": _LEVELS[CODES[code].severity.value]}}
        for code in used
    ]
    index = {code: i for i, code in enumerate(used)}
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "portkit", "version": data["tool"]["version"], "rules": rules}},
            "results": [
                {
                    "ruleId": f["code"],
                    "ruleIndex": index[f["code"]],
                    "level": _LEVELS[f["severity"]],
                    "message": {"text": f["message"] + (f". {f['advice']}" if f["advice"] else "")},
                    "locations": [{"physicalLocation": {
                        "artifactLocation": {"uri": artifact_uri(f["path"])},
                        "region": {"startLine": f["line"], "startColumn": f["column"]},
                    }}],
                    "properties": {k: f[k] for k in ("name", "library", "status", "hip") if f[k]},
                }
                for f in results
            ],
        }],
    }


def render_sarif(data: dict[str, Any], out: TextIO, color: bool | None = None) -> None:
    json.dump(sarif_data(data), out, indent=2, sort_keys=True)
    out.write("\n")
