"""Find installed tools and their versions (HIP, hipcc, nvcc)."""
from __future__ import annotations

import os
import re
from pathlib import Path

from portkit.rules import Version


def hip_include_dirs() -> list[Path]:
    roots = [os.environ.get("HIP_PATH"), os.environ.get("ROCM_PATH"), "/opt/rocm", "/usr"]
    return [Path(r) / "include" for r in roots if r]


def installed_hip_version() -> Version | None:
    """The HIP version whose headers are installed, read from hip/hip_version.h."""
    for include in hip_include_dirs():
        header = include / "hip" / "hip_version.h"
        try:
            text = header.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        parts = [re.search(rf"#define\s+HIP_VERSION_{p}\s+(\d+)", text) for p in ("MAJOR", "MINOR")]
        if all(parts):
            return (int(parts[0].group(1)), int(parts[1].group(1)), 0)
    return None
