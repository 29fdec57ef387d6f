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
from portkit.rules.snippets import helper_providing
from portkit.rules.index import RuleDatabase
from portkit.rules.versions import Version, parse_version
from portkit.textutil import C_COMMENT

# library id -> header directories (relative to an include root) holding its HIP/ROC names
INSTALLED_LIBRARIES = {
    "cuda-runtime": ("hip",), "cuda-driver": ("hip",), "cuda-device": ("hip",), "cucomplex": ("hip",),
    "nvrtc": ("hip",), "curand": ("hiprand", "rocrand"), "cusparse": ("hipsparse", "rocsparse"),
    "cooperative-groups": ("hip",), "nvml": ("rocm_smi",),
}
# HIP-on-NVIDIA headers name HIP functions that the AMD platform may lack.
_NVIDIA_BACKEND = re.compile(r"nvidia_detail|nvcc_detail|_nvcc\.h$")


@dataclasses.dataclass
class Verification:
    library: str
    verified: int = 0
    newer: int = 0  # targets the installed release predates
    elsewhere: int = 0  # targets of another ROCm library not installed here (a --roc `rocblas_half`)
    missing: list[tuple[str, str]] = dataclasses.field(default_factory=list)


def header_identifiers(directories: Iterable[Path]) -> set[str]:
    """Every identifier in the AMD-platform headers below `directories`."""
    names: set[str] = set()
    for directory in directories:
        for header in directory.rglob("*"):
            if header.is_file() and header.suffix in (".h", ".hpp", ".inl", ".cuh") and not _NVIDIA_BACKEND.search(str(header)):
                text = C_COMMENT.sub(" ", header.read_text(encoding="utf-8", errors="replace"))
                names.update(re.findall(r"[A-Za-z_]\w*", text))
    return names


def _identifier(target: str) -> str:
    """The name to look for: `rocrand_device::sobol32_engine<false>` -> `sobol32_engine`."""
    return re.sub(r"<.*>$", "", target).split("::")[-1].rstrip("*& ")


def _uninstalled_library(target: str, include: Path, own: tuple[str, ...]) -> bool:
    """Whether `target` is named by another roc* library (rocblas_half: rocBLAS), whose headers are not here."""
    owner = target.split("_")[0]
    return owner.startswith("roc") and owner not in own and not (include / owner).is_dir()


def verify_library(rules: RuleDatabase, library: str, include: Path, installed: Version,
                   compiler_include: Path | None = None) -> Verification:
    """Check `library`'s targets against the installed headers (and hipcc's own HIP headers, which
    define device functions such as the OCML ones)."""
    extra = [compiler_include] if compiler_include is not None else []
    names = header_identifiers([include / d for d in INSTALLED_LIBRARIES[library]] + extra)
    result = Verification(library)
    for rule in rules.all_rules():
        if rule.library != library or rule.kind in ("header", "link", "asm", "field") \
                or rule.status not in (Status.SUPPORTED, Status.PARTIAL):
            continue
        targets = [(rule.hip, rule.hip_added), (rule.roc, rule.roc_added or rule.hip_added)]
        targets += [(name, rule.hip_added) for _, name in rule.hip_for_args]
        targets += [(rule.hip_struct, rule.hip_added)]
        for target, added in targets:
            if not target or target == rule.hip_define:
                continue  # none, or a macro convert defines itself (CUDART_CB)
            if helper_providing(target) is not None:
                result.verified += 1  # one of portkit's helpers (tests compile each with the real headers)
                continue
            if _uninstalled_library(target, include, INSTALLED_LIBRARIES[library]):
                result.elsewhere += 1
            elif added and parse_version(added) > installed:
                result.newer += 1
            elif _identifier(target) in names:
                result.verified += 1
            else:
                result.missing.append((rule.cuda, target))
    return result


def present_but_claimed_newer(rules: RuleDatabase, include: Path, installed: Version) -> list[tuple[str, str, str]]:
    """(CUDA name, HIP name, claimed version) of rules whose HIP name is said to come after the
    installed release although the installed headers already have it: a wrong version fact."""
    directories = sorted({include / d for dirs in INSTALLED_LIBRARIES.values() for d in dirs if (include / d).is_dir()})
    names = header_identifiers(directories)
    wrong = []
    for rule in rules.all_rules():
        if rule.kind == "field":
            continue  # member names (uuid, major) are everywhere in the headers: checked against the struct instead
        for target, added in ((rule.hip, rule.hip_added), (rule.roc, rule.roc_added or rule.hip_added)):
            if target and added and parse_version(added) > installed and _identifier(target) in names:
                wrong.append((rule.cuda, target, added))
    return wrong
