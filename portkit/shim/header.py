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
# What a #define can rename: one identifier (not `wmma::fragment`, not a member `cudaDeviceProp::x`).
_MACRO_NAME = re.compile(r"[A-Za-z_]\w*")
# Names HIP added before ROCm 5.0 (HIP 1.x to 4.x, long out of support) are not listed as needing a newer HIP.
_LISTED_FROM = (5, 0, 0)
_UNMAPPED = ("a macro renames every identifier of its name, not one qualified name or member, so the shim "
             "leaves it: convert rewrites it, or write the HIP spelling under #if defined(__HIPCC__)")


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
class Header:
    """A CUDA header and the HIP one included for it; `older` where HIP before `hip_added` has another."""

    cuda: str
    hip: str
    older: str = ""
    hip_added: str = ""

    @property
    def hip_version(self) -> int:
        """`hip_added` as HIP_VERSION encodes it."""
        return hip_version_number(self.hip_added)


@dataclasses.dataclass(frozen=True)
class Shim:
    style: str
    header_name: str
    headers: tuple[Header, ...]  # in first-use order
    mappings: tuple[Mapping, ...]
    fallbacks: tuple[Fallback, ...]
    unportable: tuple[tuple[str, str, str], ...]  # (name, library title, advice)
    helpers: tuple[str, ...] = ()  # the text of portkit's helpers that mapped names are spelled with
    # (CUDA name, HIP name, why): renamed for HIP, but no macro can say so (a qualified name, a member, a version
    # macro an #if compares with a number)
    unmapped: tuple[tuple[str, str, str], ...] = ()
    newer: tuple[tuple[str, str], ...] = ()  # (CUDA name, the HIP version that added its counterpart): no fallback


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
    headers: dict[str, Header] = {}
    mappings: dict[str, Mapping] = {}
    fallbacks: dict[str, Fallback] = {}
    unportable: dict[str, tuple[str, str, str]] = {}
    unmapped: dict[str, tuple[str, str, str]] = {}
    newer: dict[str, tuple[str, str]] = {}
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
                        headers.setdefault(prerequisite.cuda, Header(prerequisite.cuda, prerequisite.hip))
                older = rule.older_hip if rule.hip_added and resolution.hip == rule.hip else ""
                headers.setdefault(rule.cuda, Header(rule.cuda, resolution.hip, older, rule.hip_added if older else ""))
            continue
        if resolution.status not in RENAMED_STATUSES or not resolution.hip:
            unportable.setdefault(rule.cuda, (rule.cuda, title, resolution.advice or finding.message))
            continue
        if rule.hip_added and not rule.older_hip and resolution.hip == rule.hip \
                and parse_version(rule.hip_added) >= _LISTED_FROM:
            newer.setdefault(rule.cuda, (rule.cuda, rule.hip_added))
        spelled = rule.cuda.rsplit("::", 1)[-1] if rule.kind == "field" else rule.cuda  # `p.x` spells the member
        compared = rule.compare_as or rule.keep_compared  # a #define would change what its #if tests decide
        if rule.kind == "field" or compared or not _MACRO_NAME.fullmatch(spelled):
            if spelled != resolution.hip:
                why = resolution.advice if compared else _UNMAPPED
                unmapped.setdefault(rule.cuda, (rule.cuda, resolution.hip, why or finding.message))
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
    return Shim(style, header_name, tuple(headers.values()), tuple(sorted(mappings.values())),
                tuple(sorted(fallbacks.values())), tuple(sorted(unportable.values())), tuple(helpers.values()),
                tuple(sorted(unmapped.values())), tuple(sorted(newer.values())))


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
            if any(finding.name == h.cuda or finding.name.endswith("/" + h.cuda) for h in shim.headers):
                edits.append(Edit(finding.span, include))
        elif finding.name in neutral and not finding.span.empty:
            edits.append(Edit(finding.span, neutral[finding.name].encode()))
    return edits


def guard_name(header_name: str) -> str:
    return re.sub(r"\W", "_", header_name).upper().strip("_") + "_"
