"""Analyze: occurrences and rules in, findings out. One small module per concern, all registered.

names.py matches names against the rules, inventory.py lists GPU code, hazards.py
and warps.py find what renaming cannot fix, builds.py and environment.py read build files,
scripts, containers and Python projects.
"""
from __future__ import annotations

from portkit.analyze import (  # noqa: F401 - importing registers them
    builds, clashes, coordinates, environment, hazards, inventory, language, names, preamble, redeclarations, warps,
)
from portkit.analyze.registry import Context, Select, TextFile, analyzers_for
from portkit.model import Finding, ParsedFile

__all__ = ["Context", "Select", "TextFile", "analyze"]


def analyze(subject: ParsedFile | TextFile, context: Context, select: Select | None = None) -> list[Finding]:
    """Every registered analyzer's findings for one parsed source or text file (those `select` keeps: all
    without it)."""
    file_type = subject.file_type if isinstance(subject, TextFile) else "source"
    return [finding for analyzer in analyzers_for(file_type, select) for finding in analyzer(subject, context)]
