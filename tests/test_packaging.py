"""A plain (non-editable) install must carry the rule database and templates."""
from __future__ import annotations

import email
import json
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

from conftest import EXAMPLES, ROOT
from portkit import DOCS_URL, HOMEPAGE


def test_wheel_installs_and_scans_outside_the_repo(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)], check=True)
    wheel = next(dist.glob("portkit-*.whl"))
    _check_metadata(wheel)
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


def _check_metadata(wheel: Path) -> None:
    """The wheel says what it is: MIT with its LICENSE, classifiers, and where its source and docs are."""
    with zipfile.ZipFile(wheel) as archive:
        info = next(name.split("/")[0] for name in archive.namelist() if name.endswith(".dist-info/METADATA"))
        metadata = email.message_from_bytes(archive.read(f"{info}/METADATA"))
        license_text = archive.read(f"{info}/licenses/LICENSE").decode()
    assert license_text == (ROOT / "LICENSE").read_text()
    assert license_text.startswith("MIT License\n\nCopyright (c) 2026 portkit authors\n")
    assert metadata["License-Expression"] == "MIT"
    classifiers = metadata.get_all("Classifier")
    assert "Programming Language :: Python :: 3.10" in classifiers and "Environment :: Console" in classifiers
    assert not [c for c in classifiers if c.startswith("License ::")]  # PEP 639: the expression replaces them
    urls = dict(url.split(", ", 1) for url in metadata.get_all("Project-URL"))
    assert urls["Source"] == urls["Homepage"] == HOMEPAGE  # where the SARIF report sends readers too
    assert urls["Documentation"] == DOCS_URL and (ROOT / "docs").is_dir()
