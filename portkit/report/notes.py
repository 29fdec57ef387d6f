"""One-line notes for the summary: facts about the tree that change how to read the rest.

A tree that already has its own HIP path (llama.cpp's ggml-cuda/vendors/hip.h, included under GGML_USE_HIP) needs
saying so: its CUDA code is the NVIDIA side of a project that builds for HIP already, and the layer's own
definitions of CUDA's names are no work to do (run/scope.py, parse/vendor_layers.py).
"""
from __future__ import annotations

from typing import Iterable

from portkit.parse.vendor_layers import HIP_LAYER
from portkit.run.project import FileSummary

# Shown at most: a tree with more HIP layers than this says how many were left out.
LAYERS_SHOWN = 3


def summary_notes(files: Iterable[FileSummary]) -> list[str]:
    """The notes for a scan of `files`."""
    layers = sorted(f.path for f in files if f.vendor_layer == HIP_LAYER)
    if not layers:
        return []
    shown = ", ".join(layers[:LAYERS_SHOWN]) + (f" and {len(layers) - LAYERS_SHOWN} more" if len(layers) > LAYERS_SHOWN else "")
    return [f"the project already has a HIP path: {shown}; convert leaves it as written"]
