"""The shim header's content: exactly the CUDA names a project uses, mapped for HIP.

Two styles. "cuda": sources keep CUDA names; under hipcc the header maps them to
HIP. "neutral": sources are rewritten to vendor-neutral names (gpuMalloc,
gpuStream_t) that the header maps to CUDA or HIP. Either way the sources include
the header instead of the CUDA headers, and names with no HIP equivalent are
listed with their advice while the CUDA build keeps working.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Iterable

from portkit.codes import RENAMED_STATUSES
from portkit.model import Edit, Finding
from portkit.rules import RuleDatabase, Target, parse_version
from portkit.rules.snippets import helper_named, helper_providing

STYLES = ("cuda", "neutral")


# A name whose HIP spelling depends on its argument count is dispatched on counts up to this.
MAX_DISPATCHED_ARGUMENTS = 12


@dataclasses.dataclass(frozen=True, order=True)
class Mapping:
    library: str
    cuda: str
    hip: str
    neutral: str  # the name sources use in the neutral style ("" keeps the CUDA name)
    by_count: tuple[tuple[int, str], ...] = ()  # (argument count, HIP name) where CUDA changed a signature HIP kept

    def spellings(self) -> list[tuple[int, str]]:
        """The HIP name for each argument count, 1 to MAX_DISPATCHED_ARGUMENTS (a `hip_for_args` rule)."""
        chosen = dict(self.by_count)
        return [(count, chosen.get(count, self.hip)) for count in range(1, MAX_DISPATCHED_ARGUMENTS + 1)]


@dataclasses.dataclass(frozen=True, order=True)
class Fallback:
    """A name the HIP side only has from `hip_version` on; older HIP gets a macro."""

    cuda: str
    hip_version: int  # as HIP_VERSION encodes it
    hip_added: str
    fallback: str
    drop_args: int


@dataclasses.dataclass(frozen=True)
class Shim:
    style: str
    header_name: str
    headers: tuple[tuple[str, str], ...]  # (CUDA header, HIP header), in first-use order
    mappings: tuple[Mapping, ...]
    fallbacks: tuple[Fallback, ...]
    unportable: tuple[tuple[str, str, str], ...]  # (name, library title, advice)
    helpers: tuple[str, ...] = ()  # the text of portkit's helpers that mapped names are spelled with


def neutral_name(hip: str) -> str:
    if hip.startswith("hip"):
        return "gpu" + hip[3:]
    if hip.startswith("HIP"):
        return "GPU" + hip[3:]
    return ""


def hip_version_number(version: str) -> int:
    major, minor, patch = parse_version(version)
    return major * 10_000_000 + minor * 100_000 + patch


def build_shim(findings: Iterable[Finding], rules: RuleDatabase, style: str, header_name: str) -> Shim:
    any_target = Target()  # the header serves every HIP version: mappings use the newest spelling
    headers: dict[str, str] = {}
    mappings: dict[str, Mapping] = {}
    fallbacks: dict[str, Fallback] = {}
    unportable: dict[str, tuple[str, str, str]] = {}
    neutral_taken: dict[str, str] = {}
    helpers: dict[str, str] = {}
    for finding in findings:
        rule = rules.find(finding.name) if finding.library else None
        if rule is None or rule.kind in ("link", "asm"):
            continue
        title = rules.title(rule.library)
        resolution = rule.resolve(any_target)
        if rule.kind == "header":
            if resolution.hip:
                if rule.hip_requires:  # e.g. HIP 5.x cooperative groups need hip_runtime.h first
                    prerequisite = next((r for r in rules.headers.values() if r.hip == rule.hip_requires), None)
                    if prerequisite is not None:
                        headers.setdefault(prerequisite.cuda, prerequisite.hip)
                headers.setdefault(rule.cuda, resolution.hip)
            continue
        if resolution.status not in RENAMED_STATUSES or not resolution.hip:
            unportable.setdefault(rule.cuda, (rule.cuda, title, resolution.advice or finding.message))
            continue
        neutral = neutral_name(resolution.hip) if style == "neutral" else ""
        if neutral and neutral_taken.setdefault(neutral, rule.cuda) != rule.cuda:
            neutral = ""  # two CUDA names share a HIP name: keep the CUDA spelling for the second
        if resolution.hip != rule.cuda or neutral:
            # A macro cannot see `struct` before the name: HIP's struct tag serves both spellings in C++.
            hip = rule.hip_struct if rule.hip_struct and resolution.hip == rule.hip else resolution.hip
            by_count = tuple(sorted(rule.hip_for_args)) if resolution.hip == rule.hip else ()
            mappings.setdefault(rule.cuda, Mapping(rule.library, rule.cuda, hip, neutral, by_count))
        if rule.hip_added and rule.older_hip:
            fallbacks.setdefault(rule.cuda, Fallback(rule.cuda, hip_version_number(rule.hip_added), rule.hip_added,
                                                     rule.older_hip, rule.older_hip_drop_args))
        for helper in (helper_providing(resolution.hip), helper_providing(rule.older_hip if rule.hip_added else ""),
                       helper_named(rule.helper) if rule.helper else None):
            if helper is not None:
                helpers.setdefault(helper.name, helper.text)
    return Shim(style, header_name, tuple(headers.items()), tuple(sorted(mappings.values())),
                tuple(sorted(fallbacks.values())), tuple(sorted(unportable.values())), tuple(helpers.values()))


def source_edits(findings: Iterable[Finding], shim: Shim, rules: RuleDatabase) -> list[Edit]:
    """Edits that make a source use the shim: CUDA includes become the shim's include,
    and in the neutral style mapped names become their neutral spelling."""
    neutral = {m.cuda: m.neutral for m in shim.mappings if m.neutral}
    include = f'"{shim.header_name}"'.encode()
    edits: list[Edit] = []
    for finding in findings:
        if not finding.library:
            continue
        if rules.headers.get(finding.name) or rules.header(finding.name):
            if any(finding.name == cuda or finding.name.endswith("/" + cuda) for cuda, _ in shim.headers):
                edits.append(Edit(finding.span, include))
        elif finding.name in neutral and not finding.span.empty:
            edits.append(Edit(finding.span, neutral[finding.name].encode()))
    return edits


def guard_name(header_name: str) -> str:
    return re.sub(r"\W", "_", header_name).upper().strip("_") + "_"
