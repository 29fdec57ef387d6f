"""Whether the project files a Makefile includes set HIP_PLATFORM once converted (`include common.mk`, whose
`NVCC := nvcc` convert makes hipcc, with `export HIP_PLATFORM ?= amd` above it): the Makefile's $(shell) commands
that run hipcc then need that HIP_PLATFORM given to them as much as where the Makefile sets it itself."""
from __future__ import annotations

import os
from typing import Mapping

from portkit.convert.build_files import sets_hip_platform
from portkit.fileio import TooLarge, read_bytes
from portkit.walk import included_makefiles

_LIMIT = 1 << 20  # an included makefile read from disk (one the walk left out): as the walk reads them


def _text(path: str, sources: Mapping[str, bytes]) -> str | None:
    data = sources.get(path)
    if data is None:
        try:
            data = read_bytes(path, _LIMIT) if os.path.isfile(path) else None
        except (OSError, TooLarge):
            data = None
    return data.decode("utf-8", "surrogateescape") if data is not None else None


def includes_hip_platform(makefile: str, text: str, sources: Mapping[str, bytes]) -> bool:
    """Whether a file `makefile` (its `text`) includes, directly or not, sets HIP_PLATFORM once converted; `sources`:
    the walked files' bytes by path."""
    normal = {os.path.normpath(path): data for path, data in sources.items()}
    directory = os.path.dirname(makefile)  # where make runs: a nested include is named from there too
    seen = {os.path.normpath(makefile)}
    todo = [text]
    while todo:
        for path in included_makefiles(directory, todo.pop()):
            included = _text(path, normal) if path not in seen else None
            seen.add(path)
            if included is not None and sets_hip_platform(included):
                return True
            if included is not None:
                todo.append(included)
    return False
