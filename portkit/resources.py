"""Where the bundled data lives (inside the wheel, or at the top of a checkout), and how it is read."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from portkit.errors import RuleFileError

_PACKAGE = Path(__file__).resolve().parent
# The C loader when libyaml is there: the rule files are large.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def data_dir(name: str) -> Path:
    bundled = _PACKAGE / "_data" / name
    if bundled.is_dir():
        return bundled
    return _PACKAGE.parent / name


def rules_dir() -> Path:
    return data_dir("rules")


def templates_dir() -> Path:
    return data_dir("templates")


def read_yaml(path: Path) -> Any:
    """A YAML file's data; a RuleFileError naming the file (and line) when it cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RuleFileError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        return yaml.load(text, Loader=_LOADER)  # noqa: S506 - a safe loader: data only, no tags
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise RuleFileError(f"{path}: {where}invalid YAML: {problem}") from None


def load_data(name: str, parse: Any) -> Any:
    """One of the bundled `rules/_*.yaml` data files, shaped by `parse(data)`.

    `parse` raises KeyError/TypeError/ValueError on a malformed file; that becomes
    a RuleFileError naming the file, so every data file fails the same way.
    """
    path = rules_dir() / name
    try:
        return parse(read_yaml(path))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise RuleFileError(f"{path}: malformed: {exc}") from None
