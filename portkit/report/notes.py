"""One-line notes for the summary: facts about the tree that change how to read the rest.

A tree that already has its own HIP path (llama.cpp's ggml-cuda/vendors/hip.h, included under GGML_USE_HIP) needs
saying so: its CUDA code is the NVIDIA side of a project that builds for HIP already, and the layer's own
definitions of CUDA's names are no work to do (run/scope.py, parse/vendor_layers.py). Where the #if that includes
the layer tests one macro, the note names it: that switch is how the project builds for HIP today. Every format
carries the notes (report/data.py: "notes").
"""
from __future__ import annotations

import os
from typing import Iterable

from portkit.parse.vendor_layers import HIP_LAYER
from portkit.run.project import FileSummary

# Shown at most: a tree with more HIP layers than this says how many were left out.
LAYERS_SHOWN = 3


def summary_notes(files: Iterable[FileSummary]) -> list[str]:
    """The notes for a scan of `files`."""
    files = list(files)
    layers = sorted(f.path for f in files if f.vendor_layer == HIP_LAYER)
    if not layers:
        return []
    # Includes are matched by file name, as run/scope.py matches them.
    switches: dict[str, set[str]] = {}
    for file in files:
        for name, macro in file.include_switches:
            switches.setdefault(name, set()).add(macro)
    shown = ", ".join(_layer(path, switches.get(os.path.basename(path), set())) for path in layers[:LAYERS_SHOWN])
    more = f" and {len(layers) - LAYERS_SHOWN} more" if len(layers) > LAYERS_SHOWN else ""
    return [f"the project already has a HIP path: {shown}{more}; convert leaves it as written"]


def _layer(path: str, switches: set[str]) -> str:
    return f"{path} (selected by {' or '.join(sorted(switches))})" if switches else path
