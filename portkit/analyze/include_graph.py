"""The project's include graph: which project files each file #includes, resolved as a compiler does.

The project analyses that decide over translation units read it (runtime_include.py, unused_headers.py).
"""
from __future__ import annotations

import os
from typing import Any, Iterable, Mapping

from portkit.analyze.registry import Context
from portkit.model import ParsedFile, Role


def spelled_includes(parsed: ParsedFile, context: Context) -> tuple[str, ...]:
    """What the file's #includes that may be the project's files spell, for `project_includes`. Resolved against the
    project's files in the finish; a CUDA header's name only where the project's file is the one included
    (Context.project_header), so that a file's facts do not change with files it does not include."""
    return tuple(sorted({o.text for o in parsed.of(Role.INCLUDE)
                         if context.rules.header(o.text) is None or context.project_header(o.text, parsed.path, o.detail == "system")}))


def project_includes(by_path: Mapping[str, Any]) -> dict[str, set[str]]:
    """Each project file, with the project files it #includes (`by_path`: each file's fact, with its `includes`)."""
    # Indexed by file name: every tail of every path as a key was 56,000 strings on a 1M-line tree, for 5,000 includes.
    by_name: dict[str, list[tuple[str, str]]] = {}
    for path in by_path:
        slashed = path.replace(os.sep, "/")
        by_name.setdefault(slashed.rsplit("/", 1)[-1], []).append((slashed, path))
    included: dict[str, set[str]] = {}
    for path, needs in by_path.items():
        for spelled in needs.includes:
            beside = os.path.normpath(os.path.join(os.path.dirname(path), spelled))
            header = beside if beside in by_path else _ending_in(spelled.replace("\\", "/").lstrip("./"), by_name)
            if header is not None:
                included.setdefault(path, set()).add(header)
    return included


def includes_both_ways(by_path: Mapping[str, Any]) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """`project_includes(by_path)`, and each project file with the project files that #include it."""
    included = project_includes(by_path)
    includers: dict[str, set[str]] = {}
    for path, headers in included.items():
        for header in headers:
            includers.setdefault(header, set()).add(path)
    return included, includers


def _ending_in(tail: str, by_name: dict[str, list[tuple[str, str]]]) -> str | None:
    """The one project file whose path ends with the components `tail` (None: none, or several)."""
    found = [path for slashed, path in by_name.get(tail.rsplit("/", 1)[-1], ())
             if slashed == tail or slashed.endswith("/" + tail)]
    return found[0] if len(found) == 1 else None


def reachable(starts: Iterable[str], edges: dict[str, set[str]]) -> set[str]:
    """The files reachable from `starts` along `edges`, `starts` included."""
    todo = list(starts)
    seen = set(todo)
    while todo:
        for path in edges.get(todo.pop(), ()):
            if path not in seen:
                seen.add(path)
                todo.append(path)
    return seen
