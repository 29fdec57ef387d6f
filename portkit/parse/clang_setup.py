"""What the clang engine needs from the machine: libclang, a clang resource directory, the CUDA toolkit's headers."""
from __future__ import annotations

import functools
import glob
import os
import shutil
from pathlib import Path

from portkit.errors import ToolError


def load_cindex():
    try:
        import clang.cindex as cindex
    except ImportError:
        raise ToolError("the clang engine needs libclang's Python bindings: pip install 'portkit[clang]' (or libclang)") from None
    try:
        cindex.Index.create()
    except Exception as exc:  # noqa: BLE001 - the bindings raise several kinds when the library is missing
        raise ToolError(f"the clang engine: libclang cannot be loaded ({exc}); pip install libclang") from None
    return cindex


def libclang_identity() -> str:
    """Which libclang parses: its file, size and time (a precompiled header only loads in the clang that wrote it)."""
    cindex = load_cindex()
    path = getattr(cindex.conf.lib, "_name", "") or ""
    try:
        stat = os.stat(path)
        return f"{path}:{stat.st_size}:{int(stat.st_mtime)}"
    except OSError:
        return path


@functools.lru_cache(maxsize=1)
def resource_dir() -> str:
    """An installed clang's resource directory (the libclang wheel ships none)."""
    explicit = os.environ.get("PORTKIT_CLANG_RESOURCE_DIR")
    if explicit:
        return explicit
    found = sorted(glob.glob("/usr/lib/llvm-*/lib/clang/*/include/stddef.h"), reverse=True)
    if not found:
        raise ToolError("the clang engine: no clang resource directory found; install Debian's libclang-common-15-dev "
                        "(hipcc brings one) or set PORTKIT_CLANG_RESOURCE_DIR")
    return str(Path(found[0]).parent.parent)


def cuda_include_dirs() -> list[str]:
    """The CUDA toolkit's include directories (from nvcc, $CUDA_PATH or /usr/local/cuda) and $PORTKIT_CUDA_HEADERS."""
    nvcc = shutil.which("nvcc")
    toolkits = [str(Path(os.path.realpath(nvcc)).parent.parent) if nvcc else "", os.environ.get("CUDA_PATH", ""),
                "/usr/local/cuda"]
    # nvcc may be a wrapper script elsewhere: only a directory with cuda_runtime.h is the toolkit's.
    dirs = [str(Path(t) / "include") for t in toolkits if t and (Path(t) / "include" / "cuda_runtime.h").exists()]
    if os.environ.get("PORTKIT_CUDA_HEADERS"):
        dirs.append(os.environ["PORTKIT_CUDA_HEADERS"])
    # CUDA 13 keeps Thrust, CUB and libcu++ under include/cccl, which nvcc adds by itself.
    dirs += [str(Path(d) / "cccl") for d in dirs if (Path(d) / "cccl").is_dir()]
    return [d for d in dict.fromkeys(os.path.realpath(d) for d in dirs) if os.path.isdir(d)]
