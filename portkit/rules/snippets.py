"""Helpers: small functions convert writes into a file where the target HIP has no name of the
CUDA name's shape (NVML's device handles over ROCm SMI's indices; an occupancy search HIP 5.2
lacks), or lacks overloads CUDA has of a name HIP has (min and max of mixed signedness). Which
helpers exist, and what each provides, is data: rules/_helpers.yaml, with each helper's text in
rules/helpers/.
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
    provides: frozenset[str]  # the portkit_ names rules spell with it (none for a helper that only adds overloads)
    text: str

    def fits(self, language: str) -> bool:
        """Whether the block compiles in a file of `language` ("c" or "c++")."""
        return self.language == "c" or language != "c"


def _parse(entries: list) -> list[Helper]:
    helpers = []
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
        helpers.append(helper)
    return helpers


@functools.lru_cache(maxsize=1)
def all_helpers() -> tuple[Helper, ...]:
    return tuple(load_data("_helpers.yaml", _parse))


@functools.lru_cache(maxsize=1)
def _by_provided() -> dict[str, Helper]:
    return {name: helper for helper in all_helpers() for name in helper.provides}


def helper_providing(name: str) -> Helper | None:
    """The helper that defines `name` (a rule's HIP spelling), or None for a name HIP has."""
    return _by_provided().get(name) if name.startswith(HELPER_PREFIX) else None


def helper_named(name: str) -> Helper | None:
    """The helper called `name` in rules/_helpers.yaml (a rule's `helper`), or None."""
    return next((h for h in all_helpers() if h.name == name), None)
