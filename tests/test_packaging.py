"""A plain (non-editable) install must carry the rule database and templates."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import venv
from pathlib import Path

from conftest import EXAMPLES, ROOT


def test_wheel_installs_and_scans_outside_the_repo(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)], check=True)
    wheel = next(dist.glob("portkit-*.whl"))
    env = tmp_path / "venv"
    venv.create(env, with_pip=True)
    python = env / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", str(wheel)], check=True)
    project = tmp_path / "project"
    shutil.copytree(EXAMPLES / "saxpy", project)
    out = subprocess.run([str(env / "bin" / "portkit"), "scan", "-f", "json", "."], cwd=project,
                         check=True, capture_output=True, text=True)
    data = json.loads(out.stdout)
    assert data["summary"]["sites_by_status"]["supported"] == 25
    rules = subprocess.run([str(env / "bin" / "portkit"), "rules", "show", "cudaMalloc"], cwd=project,
                           check=True, capture_output=True, text=True).stdout
    assert "_data/rules/cuda_runtime.yaml" in rules
