"""Versions and targets: what a name becomes for the CUDA and ROCm versions a run aims at."""
from __future__ import annotations

import dataclasses
import functools
import re
from typing import TYPE_CHECKING

from portkit.codes import Status

if TYPE_CHECKING:
    from portkit.rules.model import Rule

VERSION_RE = re.compile(r"^\d+(\.\d+){0,2}$")

Version = tuple[int, ...]


@functools.lru_cache(maxsize=1024)  # a few dozen distinct versions, asked for once per finding
def parse_version(text: str) -> Version:
    """"6.2" -> (6, 2, 0); ValueError for anything that is not a version."""
    if not VERSION_RE.match(text):
        raise ValueError(f"not a version: {text!r}")
    parts = tuple(int(p) for p in text.split("."))
    return parts + (0,) * (3 - len(parts))


def version_text(version: Version | None) -> str | None:
    return ".".join(str(p) for p in version) if version else None


def hip_version_number(version: str) -> int:
    """A HIP release as HIP_VERSION encodes it: major * 10,000,000 + minor * 100,000 + patch."""
    major, minor, patch = parse_version(version)
    return major * 10_000_000 + minor * 100_000 + patch


@dataclasses.dataclass(frozen=True)
class Target:
    """The versions a run is aimed at; None means "any", i.e. the newest."""

    rocm: Version | None = None
    cuda: Version | None = None


@dataclasses.dataclass(frozen=True)
class Resolution:
    """What a name becomes under a target: its status, the spelling to write, and advice.

    `drop_args` is how many leading call arguments the spelling no longer takes
    (the mask of a `_sync` warp intrinsic on HIP before 6.2).
    """

    status: Status
    hip: str
    advice: str
    drop_args: int = 0
    const_casts: tuple[tuple[int, str], ...] = ()  # (argument index, type): const cast away for the targeted HIP


def _dropped(count: int) -> str:
    if not count:
        return ""
    return " and drops the first argument" if count == 1 else f" and drops the first {count} arguments"


def resolve(rule: Rule, target: Target) -> Resolution:
    """The status, HIP spelling and advice for `rule`'s name under `target`.

    A name CUDA removed keeps its HIP spelling while the targeted HIP still has it
    (cudaBindTexture -> hipBindTexture on HIP 5.2): the code compiles, the marker stays. With no CUDA version
    targeted, a name is removed as its rule says (the newest CUDA); sources written for a CUDA before the removal
    (--cuda-version 11.0) use it as any other name.
    """
    status, advice = rule.status, rule.action or rule.note
    too_new = bool(target.rocm and rule.hip_added and target.rocm < parse_version(rule.hip_added))
    if rule.older_hip_until and target.rocm and target.rocm < parse_version(rule.older_hip_until) and not too_new:
        return Resolution(status, rule.older_hip, advice)  # the same name, spelled as the older HIP needs it
    if target.cuda and rule.cuda_removed and not rule.versions_of:  # the CUDA the sources are written for decides
        if target.cuda >= parse_version(rule.cuda_removed):
            status = Status.REMOVED
        elif status is Status.REMOVED:  # the status the removal implies (rules/validate.py), not yet made there
            status = Status.SUPPORTED if rule.hip or rule.roc else Status.UNSUPPORTED
    if status is Status.REMOVED and rule.cuda_removed:
        advice = f"removed in {rule.versions_of or 'CUDA'} {rule.cuda_removed}. {advice}".strip()
    gone = bool(target.rocm and rule.hip_removed and target.rocm >= parse_version(rule.hip_removed))
    if status in (Status.SUPPORTED, Status.PARTIAL):
        if too_new:
            return _before_added(rule, advice)
        if gone:
            return Resolution(Status.UNAVAILABLE, rule.hip, f"{rule.hip} was removed in HIP {rule.hip_removed}. {advice}".strip())
        if status is Status.SUPPORTED and rule.hip_experimental:
            return Resolution(Status.PARTIAL, rule.hip, f"{rule.hip} is experimental in HIP. {advice}".strip())
    spelled = "" if too_new or gone else rule.hip
    older = bool(spelled and rule.const_args and target.rocm and target.rocm < parse_version(rule.const_args_until))
    return Resolution(status, spelled, advice, const_casts=rule.const_args if older else ())


def _before_added(rule: Rule, advice: str) -> Resolution:
    """A name the targeted HIP does not have yet: its older spelling, or nothing."""
    if rule.older_hip:
        return Resolution(
            Status.UNAVAILABLE, rule.older_hip,
            f"{rule.hip} needs HIP {rule.hip_added}: for the targeted HIP, convert writes {rule.older_hip}"
            f"{_dropped(rule.older_hip_drop_args)}. {advice}".strip(),
            rule.older_hip_drop_args,
        )
    return Resolution(Status.UNAVAILABLE, "", f"{rule.hip} needs HIP {rule.hip_added} or newer; upgrade ROCm or rewrite. {advice}".strip())


def roc_available(rule: Rule, target: Target) -> bool:
    """Whether the rule's roc* spelling exists in the targeted release."""
    return bool(rule.roc) and not (target.rocm and rule.roc_added and target.rocm < parse_version(rule.roc_added))
