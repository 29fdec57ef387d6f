"""One-line notes for the summary: facts about the tree that change how to read the rest.

A tree that already has its own HIP path (llama.cpp's ggml-cuda/vendors/hip.h, included under GGML_USE_HIP) needs
saying so: its CUDA code is the NVIDIA side of a project that builds for HIP already, and the layer's own
definitions of CUDA's names are no work to do (run/scope.py, parse/vendor_layers.py). Where the #if that includes
the layer tests one macro, the note names it: that switch is how the project builds for HIP today. A switch of the
project's own around HIP code in its sources (parse/hip_switches.py: faiss's USE_AMD_ROCM) gets a note of its own:
the effort bills nothing beside it. A HIP header the project's own HIP branches include that the targeted HIP lacks
(causal-conv1d's `#else` of `#ifndef USE_ROCM` includes <hip/hip_bf16.h>, HIP 5.7) gets one too: the project's HIP
build needs a newer ROCm than the target. Every format carries the notes (report/data.py: "notes").
"""
from __future__ import annotations

import os
from typing import Iterable

from portkit.parse.vendor_layers import HIP_LAYER
from portkit.rules import RuleDatabase, Target
from portkit.rules.versions import parse_version, version_text
from portkit.run.project import FileSummary

# Shown at most: a tree with more HIP layers than this says how many were left out.
LAYERS_SHOWN = 3


def summary_notes(files: Iterable[FileSummary], rules: RuleDatabase | None = None, target: Target | None = None) -> list[str]:
    """The notes for a scan of `files` (with `rules` and `target`: what the project's HIP branches need)."""
    files = list(files)
    layers = sorted(f.path for f in files if f.vendor_layer == HIP_LAYER)
    # Includes are matched by file name, as run/scope.py matches them.
    switches: dict[str, set[str]] = {}
    for file in files:
        for name, macro in file.include_switches:
            switches.setdefault(name, set()).add(macro)
    named = {macro for path in layers for macro in switches.get(os.path.basename(path), ())}
    newer = _newer_hip_headers(files, rules, target) if rules is not None and target is not None else []
    return _layer_notes(layers, switches) + _switch_notes(files, named) + newer


def _newer_hip_headers(files: list[FileSummary], rules: RuleDatabase, target: Target) -> list[str]:
    """The HIP headers the project's own HIP branches include (FileSummary.hip_includes, matched by file name) that
    the targeted HIP lacks: the release each first came with (its rules' hip_added), the newest of them named."""
    included: dict[str, int] = {}
    for file in files:
        for name in file.hip_includes:
            included[name] = included.get(name, 0) + 1
    if not included or target.rocm is None:
        return []
    added: dict[str, tuple[str, str]] = {}  # a HIP header's file name -> (its path, the earliest HIP that has it)
    for rule in rules.headers.values():
        name = os.path.basename(rule.hip)
        if name in included and (name not in added or _earlier(rule.hip_added, added[name][1])):
            added[name] = (rule.hip, rule.hip_added)
    lacking = sorted((parse_version(version), path, included[os.path.basename(path)])
                     for path, version in added.values() if version and target.rocm < parse_version(version))
    if not lacking:
        return []
    shown = ", ".join(f"<{path}> (HIP {version_text(version)}, in {count} file{'s' if count > 1 else ''})"
                      for version, path, count in lacking[:LAYERS_SHOWN])
    more = f" and {len(lacking) - LAYERS_SHOWN} more" if len(lacking) > LAYERS_SHOWN else ""
    return [f"the project's own HIP branches need ROCm {version_text(lacking[-1][0])} or newer: they include {shown}{more}, "
            f"which the targeted HIP {version_text(target.rocm)} lacks"]


def _earlier(version: str, than: str) -> bool:
    """Whether HIP has a header from `version` before `than` ("": from the first)."""
    return bool(than) and (not version or parse_version(version) < parse_version(than))


def _switch_notes(files: list[FileSummary], named: set[str]) -> list[str]:
    """The project's own HIP switches (parse/hip_switches.py) a layer's note does not name, with how many files
    test each."""
    tested: dict[str, int] = {}
    for file in files:
        for macro in file.hip_switches:
            if macro not in named:
                tested[macro] = tested.get(macro, 0) + 1
    if not tested:
        return []
    shown = ", ".join(f"{macro} (in {count} file{'s' if count > 1 else ''})"
                      for macro, count in sorted(tested.items(), key=lambda item: (-item[1], item[0]))[:LAYERS_SHOWN])
    more = f" and {len(tested) - LAYERS_SHOWN} more" if len(tested) > LAYERS_SHOWN else ""
    return [f"the project has its own HIP switch: {shown}{more}; the CUDA branches beside its HIP branches are no "
            "work for a build with it and are not billed (convert still converts and marks them, for a build "
            "without it)"]


def _layer_notes(layers: list[str], switches: dict[str, set[str]]) -> list[str]:
    if not layers:
        return []
    shown = ", ".join(_layer(path, switches.get(os.path.basename(path), set())) for path in layers[:LAYERS_SHOWN])
    more = f" and {len(layers) - LAYERS_SHOWN} more" if len(layers) > LAYERS_SHOWN else ""
    return [f"the project already has a HIP path: {shown}{more}; convert leaves it as written"]


def _layer(path: str, switches: set[str]) -> str:
    return f"{path} (selected by {' or '.join(sorted(switches))})" if switches else path
