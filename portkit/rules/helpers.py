"""Helpers: small functions convert writes into a file where the target HIP has no name of the
CUDA name's shape (NVML's device handles over ROCm SMI's indices; an occupancy search HIP 5.2
lacks). Which helpers exist, and what each provides, is data: rules/_helpers.yaml, with each
helper's text in rules/helpers/.
"""
from __future__ import annotations

import dataclasses
import functools

from portkit.errors import RuleFileError
from portkit.resources import load_data, rules_dir

LANGUAGES = ("c", "c++")
HELPER_PREFIX = "portkit_"  # every name a helper defines starts with it


@dataclasses.dataclass(frozen=True)
class Helper:
    name: str
    guard: str  # the macro its block defines: a file that has it needs nothing more
    language: str  # "c": valid as C and C++; "c++": C++ only
    provides: frozenset[str]
    text: str

    def fits(self, language: str) -> bool:
        """Whether the block compiles in a file of `language` ("c" or "c++")."""
        return self.language == "c" or language != "c"


def _parse(entries: list) -> dict[str, Helper]:
    helpers = {}
    for entry in entries:
        path = rules_dir() / str(entry["file"])
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise RuleFileError(f"{path}: cannot read helper: {exc.strerror}") from None
        language = str(entry["language"])
        if language not in LANGUAGES:
            raise ValueError(f"helper {entry['name']}: language must be one of {', '.join(LANGUAGES)}")
        helper = Helper(str(entry["name"]), str(entry["guard"]), language, frozenset(map(str, entry["provides"])), text)
        if f"#define {helper.guard}\n" not in text:
            raise ValueError(f"helper {helper.name}: {path.name} does not define its guard {helper.guard}")
        if any(not n.startswith(HELPER_PREFIX) for n in helper.provides):
            raise ValueError(f"helper {helper.name}: every name it provides starts with {HELPER_PREFIX}")
        helpers.update((name, helper) for name in helper.provides)
    return helpers


@functools.lru_cache(maxsize=1)
def _by_name() -> dict[str, Helper]:
    return load_data("_helpers.yaml", _parse)


def helper_providing(name: str) -> Helper | None:
    """The helper that defines `name` (a rule's HIP spelling), or None for a name HIP has."""
    return _by_name().get(name) if name.startswith(HELPER_PREFIX) else None


def all_helpers() -> list[Helper]:
    return list({h.name: h for h in _by_name().values()}.values())
