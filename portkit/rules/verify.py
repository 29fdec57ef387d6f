"""Check rule targets against installed HIP/ROCm headers: a supported name must exist there.

Used by the test suite (and usable by anyone extending the database): every
`supported`/`partial` HIP (and ROC) name of a library whose headers are
installed, and that the installed release should have by its `*_added` version,
must appear as an identifier in those headers.
"""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Iterable

from portkit.codes import Status
from portkit.rules.index import RuleDatabase
from portkit.rules.versions import Version, parse_version
from portkit.textutil import C_COMMENT

# library id -> header directories (relative to an include root) holding its HIP/ROC names
INSTALLED_LIBRARIES = {
    "cuda-runtime": ("hip",), "cuda-driver": ("hip",), "cuda-device": ("hip",), "cucomplex": ("hip",),
    "nvrtc": ("hip",), "curand": ("hiprand", "rocrand"), "cusparse": ("hipsparse", "rocsparse"),
    "cooperative-groups": ("hip",),
}


@dataclasses.dataclass
class Verification:
    library: str
    verified: int = 0
    newer: int = 0  # targets the installed release predates
    missing: list[tuple[str, str]] = dataclasses.field(default_factory=list)


def header_identifiers(directories: Iterable[Path]) -> set[str]:
    names: set[str] = set()
    for directory in directories:
        for header in directory.rglob("*"):
            if header.is_file() and header.suffix in (".h", ".hpp", ".inl", ".cuh"):
                text = C_COMMENT.sub(" ", header.read_text(encoding="utf-8", errors="replace"))
                names.update(re.findall(r"[A-Za-z_]\w*", text))
    return names


def _identifier(target: str) -> str:
    """The name to look for: `rocrand_device::sobol32_engine<false>` -> `sobol32_engine`."""
    return re.sub(r"<.*>$", "", target).split("::")[-1].rstrip("*& ")


def verify_library(rules: RuleDatabase, library: str, include: Path, installed: Version) -> Verification:
    names = header_identifiers(include / d for d in INSTALLED_LIBRARIES[library])
    result = Verification(library)
    for rule in rules.all_rules():
        if rule.library != library or rule.kind in ("header", "link", "asm") or rule.status not in (Status.SUPPORTED, Status.PARTIAL):
            continue
        for target, added in ((rule.hip, rule.hip_added), (rule.roc, rule.roc_added or rule.hip_added)):
            if not target:
                continue
            if added and parse_version(added) > installed:
                result.newer += 1
            elif _identifier(target) in names:
                result.verified += 1
            else:
                result.missing.append((rule.cuda, target))
    return result
