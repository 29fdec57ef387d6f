"""Build-system facts (rules/_build.yaml): GPU architecture pairs and nvcc flag translations."""
from __future__ import annotations

import dataclasses
import functools

from portkit.resources import load_data


@dataclasses.dataclass(frozen=True)
class BuildFacts:
    default_arch: str
    architectures: dict[str, dict[str, str]]
    nvcc_flags: dict[str, str]
    nvcc_unsupported: dict[str, str]

    def gfx_for(self, compute_capability: str) -> str:
        entry = self.architectures.get(compute_capability.rstrip("af"))
        return entry["gfx"] if entry else self.default_arch

    def describe(self, compute_capability: str) -> str:
        """'sm_80 (A100) -> gfx90a (MI210/MI250)'"""
        entry = self.architectures.get(compute_capability.rstrip("af"))
        if not entry:
            return f"sm_{compute_capability} (no known pair) -> {self.default_arch} (the default)"
        return f"sm_{compute_capability} ({entry['nvidia']}) -> {entry['gfx']} ({entry['amd']})"


def _parse(data: dict) -> BuildFacts:
    return BuildFacts(str(data["default_arch"]), {str(k): v for k, v in data["architectures"].items()},
                      dict(data["nvcc_flags"]), dict(data["nvcc_unsupported"]))


@functools.lru_cache(maxsize=1)
def build_facts() -> BuildFacts:
    return load_data("_build.yaml", _parse)
