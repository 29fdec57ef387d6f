"""Where the bundled data lives: inside the wheel, or at the top of a checkout."""
from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    bundled = _PACKAGE / "_data" / name
    if bundled.is_dir():
        return bundled
    return _PACKAGE.parent / name


def rules_dir() -> Path:
    return data_dir("rules")


def templates_dir() -> Path:
    return data_dir("templates")
