"""Analyze: occurrences and rules in, findings out. One small module per concern, all registered.

names.py matches names against the rules, inventory.py lists GPU code, hazards.py
and warps.py find what renaming cannot fix, builds.py and environment.py read build files,
scripts, containers and Python projects; namespace_aliases.py and runtime_include.py are project analyses
(registry.py).
"""
from __future__ import annotations

import importlib
import pkgutil

from portkit.analyze.registry import Context, Select, TextFile, analyzers_for
from portkit.model import Finding, ParsedFile

# Importing a module registers its analyzers: every module here, in name order (the order findings come in).
for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    importlib.import_module(f"{__name__}.{_module}")

from portkit.analyze.clashes import COORDINATE_TYPES  # noqa: E402 (registered above, in order)
from portkit.analyze.hazards import INTERESTING_NAMES  # noqa: E402
from portkit.analyze.language import DIMENSION_NAMES, HALF_TYPES  # noqa: E402
from portkit.analyze.library_switches import SWITCH_NAMES  # noqa: E402
from portkit.analyze.own_hip_branches import settle_cuda_side  # noqa: E402
from portkit.analyze.vendor_layers import leave_other_vendors_layer  # noqa: E402

__all__ = ["ANALYZER_NAMES", "Context", "Select", "TextFile", "analyze"]
# Names the parser keeps for the analyzers besides those a rule knows.
ANALYZER_NAMES = INTERESTING_NAMES | DIMENSION_NAMES | HALF_TYPES | SWITCH_NAMES | COORDINATE_TYPES


def analyze(subject: ParsedFile | TextFile, context: Context, select: Select | None = None) -> list[Finding]:
    """Every registered analyzer's findings for one parsed source or text file (those `select` keeps: all
    without it)."""
    if isinstance(subject, TextFile):
        return [finding for analyzer in analyzers_for(subject.file_type, select) for finding in analyzer(subject, context)]
    return list(settle_cuda_side(subject, leave_other_vendors_layer(subject, (
        finding for analyzer in analyzers_for("source", select) for finding in analyzer(subject, context)))))
