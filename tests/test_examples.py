"""The examples are real CUDA: they must compile with nvcc against the library headers."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from conftest import EXAMPLES, require_tool

SOURCES = sorted(p for p in EXAMPLES.rglob("*") if p.suffix in (".cu", ".cpp"))


@pytest.mark.parametrize("source", SOURCES, ids=[str(p.relative_to(EXAMPLES)) for p in SOURCES])
def test_example_compiles_with_nvcc(source: Path, cuda_headers: Path) -> None:
    nvcc = require_tool("nvcc")
    # nvcc has no -fsyntax-only: compile device code fully, check host code only.
    cmd = [nvcc, "-std=c++17", "-arch=sm_80", "-w", "-I", str(cuda_headers), "-x", "cu", "-c", "-o", os.devnull,
           "-Xcompiler", "-fsyntax-only", str(source)]
    result = subprocess.run(cmd, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]


def test_examples_have_build_files() -> None:
    for example in ("saxpy", "option-pricer"):
        assert any((EXAMPLES / example / name).exists() for name in ("CMakeLists.txt", "Makefile"))
