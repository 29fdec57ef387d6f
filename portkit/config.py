"""Project configuration: `[tool.portkit]` in pyproject.toml, or a `.portkit.toml`.

Looked up from the current directory upwards (stopping at the repository root);
the directory holding it is the project root: exclude patterns, rule files and
the baseline path are relative to it. Keys use dashes, as in pyproject.toml
files generally. settings.py merges it with the command line.
"""
from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path
from typing import Any

from portkit.errors import ConfigError
from portkit.fileio import TooLarge, read_bytes
from portkit.codes import BLOCKING_CHOICES, DEFAULT_BLOCKING

DEFAULT_BASELINE = ".portkit-baseline.json"


@dataclasses.dataclass(frozen=True)
class Config:
    root: Path
    source: str = ""  # the file it came from, "" for the defaults
    blocking: tuple[str, ...] = DEFAULT_BLOCKING  # statuses, and "unbuildable"
    exclude: tuple[str, ...] = ()
    extensions: tuple[str, ...] = ()
    rules: tuple[Path, ...] = ()
    baseline: Path | None = None
    rocm_version: str | None = None
    cuda_version: str | None = None
    max_file_size: str | None = None  # "16M", "512K", a number of bytes


_LIST_KEYS = ("blocking", "exclude", "extensions", "rules")
_STRING_KEYS = ("baseline", "rocm-version", "cuda-version", "max-file-size")
_CONFIG_LIMIT = 1 << 20  # bytes: a config file is a few lines


def _table(path: Path) -> dict[str, Any] | None:
    if sys.version_info >= (3, 11):  # imported here: most runs find no configuration file (0.0015 s of a start)
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        data = tomllib.loads(read_bytes(path, _CONFIG_LIMIT).decode("utf-8"))
    except TooLarge:
        raise ConfigError(f"{path}: larger than {_CONFIG_LIMIT >> 20} MiB; not a configuration file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path}: invalid TOML: nested too deeply") from None
    if path.name == "pyproject.toml":
        table = data.get("tool", {}).get("portkit")
        if table is not None and not isinstance(table, dict):
            raise ConfigError(f"{path}: [tool.portkit] must be a table")
        return table
    return data


def find_config(start: Path) -> tuple[Path, dict[str, Any]] | None:
    for directory in [start, *start.parents]:
        for name in (".portkit.toml", "pyproject.toml"):
            path = directory / name
            if path.is_file():
                table = _table(path)
                if table is not None:
                    return path, table
        if (directory / ".git").exists():
            break  # the repository root: a config above it belongs to something else
    return None


def parse_config(path: Path, table: dict[str, Any]) -> Config:
    where = f"{path}: [tool.portkit]" if path.name == "pyproject.toml" else str(path)
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key in _LIST_KEYS:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{where}: key '{key}': must be a list of strings")
            values[key] = tuple(value)
        elif key in _STRING_KEYS:
            if key == "max-file-size" and isinstance(value, int) and not isinstance(value, bool):
                value = str(value)
            if not isinstance(value, str):
                raise ConfigError(f"{where}: key '{key}': must be a string")
            values[key.replace("-", "_")] = value
        else:
            known = ", ".join(_LIST_KEYS + _STRING_KEYS)
            raise ConfigError(f"{where}: unknown key '{key}' (known: {known})")
    for status in values.get("blocking", ()):
        if status not in BLOCKING_CHOICES:
            raise ConfigError(f"{where}: key 'blocking': {status!r} is not one of {', '.join(BLOCKING_CHOICES)}")
    root = path.parent
    if "rules" in values:
        values["rules"] = tuple(root / p for p in values["rules"])
    if "baseline" in values:
        values["baseline"] = _inside_root(where, root, values["baseline"])
    return Config(root=root, source=str(path), **values)


def _inside_root(where: str, root: Path, value: str) -> Path:
    """A path the config names for portkit to write: relative, and inside the project root
    (a pull request's config must not aim `portkit baseline` at a file elsewhere)."""
    path = Path(value)
    if path.is_absolute() or os.path.normpath(path).split(os.sep)[0] == os.pardir:
        raise ConfigError(f"{where}: key 'baseline': {value!r} leads out of the project root; "
                          "give a path inside it (or pass --baseline/-o)")
    return root / path


def load_config(start: Path | None = None) -> Config:
    start = (start or Path.cwd()).resolve()
    found = find_config(start)
    if found is None:
        return Config(root=start)
    return parse_config(*found)
