"""SARIF 2.1.0 for GitHub code scanning, built from the report data.

Paths are relative to %SRCROOT%, the repository that holds the scanned files (what code
scanning maps alerts onto), whatever directory portkit ran in; `originalUriBaseIds` says
where that was. Each rule carries its documentation (`fullDescription`, `help`, `helpUri`);
each result a fingerprint without line numbers, so an alert keeps its identity when lines move.
"""
from __future__ import annotations

import collections
import hashlib
import json
import os
import urllib.parse
from pathlib import Path
from typing import Any, Iterable, TextIO

from portkit import DOCS_URL, HOMEPAGE
from portkit.codes import CODES, GROUPS, Code

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"
# partialFingerprints key: versioned, as SARIF asks (GitHub computes its own primaryLocationLineHash beside it).
FINGERPRINT = "portkit/v1"
_LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def source_root(paths: Iterable[str]) -> Path:
    """The nearest directory holding `.git` above every scanned file: the repository code scanning
    maps the alerts onto. Without one, the current directory."""
    directories = [os.path.dirname(os.path.abspath(p)) for p in paths]
    if directories:
        start = Path(os.path.commonpath(directories))
        for directory in (start, *start.parents):
            if (directory / ".git").exists():
                return directory
    return Path.cwd()


def _root_uri(root: Path) -> str:
    uri = root.as_uri()
    return uri if uri.endswith("/") else uri + "/"


def artifact_location(path: str, root: Path) -> dict[str, str]:
    """The file relative to %SRCROOT%; a file outside it by its absolute file: URI.

    Percent-encoded (RFC 3986) from the name's bytes, so spaces, "#", "%", "?", control
    characters and undecodable bytes all survive as the file's real name.
    """
    absolute = os.path.abspath(path)
    relative = os.path.relpath(absolute, root)
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return {"uri": Path(absolute).as_uri()}
    return {"uri": urllib.parse.quote(os.fsencode(Path(relative).as_posix()), safe="/"), "uriBaseId": SRCROOT}


def rule_url(code: str) -> str:
    """The code's stable anchor in docs/codes.md."""
    return f"{DOCS_URL}codes.md#{code.lower()}"


def _rule(code: Code) -> dict[str, Any]:
    summary = code.summary + "."
    text = f"{summary}\n\n{code.explanation}\n\nFix: {code.fix}"
    markdown = (f"**{code.code} {code.name}** ({GROUPS[code.code[:3]].title}): {summary}\n\n{code.explanation}\n\n"
                f"**Fix:** {code.fix}\n\nThe alert's message names the site's API or construct and portkit's advice for it. "
                f"[{code.code} in portkit's documentation]({rule_url(code.code)})")
    return {
        "id": code.code, "name": code.name,
        "shortDescription": {"text": code.summary},
        "fullDescription": {"text": code.explanation},
        "help": {"text": text, "markdown": markdown},
        "helpUri": rule_url(code.code),
        "defaultConfiguration": {"level": _LEVELS[code.severity.value]},
        "properties": {"tags": ["portability", code.group]},
    }


def fingerprint(code: str, path: str, name: str, function: str, index: int) -> str:
    """Rule, path (relative to the root), matched text, enclosing function and which occurrence of
    these in the file (the index counts in file order): no line number, so lines inserted or removed
    above leave it as it was, and a second copy of a call gets a new one."""
    key = "\0".join((code, path, name, function or "")).encode("utf-8", "surrogateescape")
    return f"{hashlib.sha256(key).hexdigest()[:20]}:{index}"


def _result(f: dict[str, Any], location: dict[str, str], index: int, rule_index: int) -> dict[str, Any]:
    region = {"startLine": f["line"], "startColumn": f["column"], "endLine": f["end_line"], "endColumn": f["end_column"]}
    return {
        "ruleId": f["code"],
        "ruleIndex": rule_index,
        "level": _LEVELS[f["severity"]],
        "message": {"text": f["message"] + (f". {f['advice']}" if f["advice"] else "")},
        "locations": [{"physicalLocation": {"artifactLocation": location, "region": region}}],
        "partialFingerprints": {FINGERPRINT: fingerprint(f["code"], location["uri"], f["name"], f["function"], index)},
        "properties": {k: f[k] for k in ("name", "library", "status", "hip") if f[k]},
    }


def sarif_data(data: dict[str, Any], root: Path | None = None) -> dict[str, Any]:
    """The SARIF log; `root` is %SRCROOT% (default: the repository of the scanned files, `source_root`)."""
    root = root or source_root(f["path"] for f in data["files"])
    alerts = [f for f in data["findings"] if CODES[f["code"]].alert]
    used = sorted({f["code"] for f in alerts})
    index = {code: i for i, code in enumerate(used)}
    locations: dict[str, dict[str, str]] = {}
    seen: collections.Counter = collections.Counter()
    results = []
    for f in alerts:
        location = locations.get(f["path"]) or locations.setdefault(f["path"], artifact_location(f["path"], root))
        key = (f["code"], location["uri"], f["name"], f["function"])
        results.append(_result(f, location, seen[key], index[f["code"]]))
        seen[key] += 1
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "portkit", "version": data["tool"]["version"], "informationUri": HOMEPAGE,
                                "rules": [_rule(CODES[code]) for code in used]}},
            "originalUriBaseIds": {SRCROOT: {"uri": _root_uri(root), "description": {
                "text": "The repository that holds the scanned files (else the directory portkit ran in)."}}},
            "results": results,
        }],
    }


def render_sarif(data: dict[str, Any], out: TextIO, color: bool | None = None) -> None:
    json.dump(sarif_data(data), out, indent=2, sort_keys=True)
    out.write("\n")
