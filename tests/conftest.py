"""Shared fixtures. With CI=true a missing compiler fails the test instead of skipping it."""
from __future__ import annotations

import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
IN_CI = os.environ.get("CI") == "true"


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory) -> None:
    """Keep the scan cache of a test run out of the user's cache directory, and the temporary files of the tools
    the tests run out of /tmp: HIP 5.2's clang leaves two empty directories in TMPDIR for every unit it links,
    thousands in a few runs of the suite (pytest keeps only its last three base directories)."""
    os.environ["PORTKIT_CACHE_DIR"] = str(tmp_path_factory.mktemp("portkit-cache"))
    os.environ["TMPDIR"] = str(tmp_path_factory.mktemp("tmp"))


def require(condition: bool, reason: str) -> None:
    """Skip when a tool is missing on a developer machine; fail in CI, where it must be there."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"{reason} (CI=true: the CI script must install it)")
    pytest.skip(reason)


def require_tool(name: str) -> str:
    path = shutil.which(name)
    require(path is not None, f"{name} not found on PATH")
    return path or ""


_BUNDLE_MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"


def offload_targets(obj: Path) -> list[str]:
    """The targets of the device code hipcc embedded in an object file: its .hip_fatbin section is a clang offload
    bundle (magic, count, then each entry's offset, size, target length and target), read with objcopy. An object
    nvcc compiled has none (its device code is .nv_fatbin's)."""
    require_tool("objcopy")
    bundle = obj.with_name(obj.name + ".hip_fatbin")
    dumped = subprocess.run(["objcopy", "-O", "binary", "--only-section=.hip_fatbin", "--set-section-flags",
                             ".hip_fatbin=alloc", str(obj), str(bundle)], capture_output=True, text=True)
    assert dumped.returncode == 0, dumped.stderr
    data = bundle.read_bytes()
    assert data.startswith(_BUNDLE_MAGIC), f"{obj.name} holds no HIP device code"
    count, = struct.unpack_from("<Q", data, len(_BUNDLE_MAGIC))
    at, targets = len(_BUNDLE_MAGIC) + 8, []
    for _ in range(count):
        _offset, _size, length = struct.unpack_from("<QQQ", data, at)
        targets.append(data[at + 24:at + 24 + length].decode())
        at += 24 + length
    return targets


@pytest.fixture(scope="session")
def cuda_headers() -> Path:
    """The CUDA library headers from NVIDIA's wheels (scripts/cuda-headers caches them)."""
    env_dir = os.environ.get("PORTKIT_CUDA_HEADERS")
    if env_dir and (Path(env_dir) / "nccl.h").exists():
        return Path(env_dir)
    try:
        out = subprocess.run([str(ROOT / "scripts" / "cuda-headers")], check=True, capture_output=True, text=True, timeout=1800)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        require(False, f"CUDA library headers unavailable: {exc}")
        raise
    return Path(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="session")
def database():
    from portkit.rules import load_database

    return load_database()


def parse_portkit(argv: list[str]) -> None:
    """Parse `portkit ARGV` as the CLI would, running nothing: a usage error (an unknown option, a bad
    choice) raises. For the command lines the docs and the help's examples show."""
    import typer.main

    from portkit.cli import app

    command = typer.main.get_command(app)
    index = 0
    while hasattr(command, "commands") and index < len(argv) and argv[index] in command.commands:
        command = command.commands[argv[index]]
        index += 1
    assert index, f"no portkit command in {argv}"
    command.make_context(argv[index - 1], list(argv[index:]))
