"""The tests that exercise portkit's dependencies pass with the oldest versions pyproject.toml allows and with
the newest: each set is installed from the package index into its own virtual environment (no system
packages), where that subset of the suite runs against this checkout. A fresh machine gets the newest;
an old one may hold the oldest. Both environments are set up and run side by side (about a minute)."""
from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from conftest import IN_CI, ROOT

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

# What depends on the libraries: YAML loading and its refusals (PyYAML), the command line's parsing, help and
# completion (typer, click, rich), the terminal summary (rich), a scan (tree-sitter, tree-sitter-cuda, jinja2).
SUBSET = ["tests/test_cli_help.py", "tests/safety/test_hostile_inputs.py", "tests/test_terminal.py", "tests/test_cli_scan.py",
          "-k", "yaml_nested or yaml_python or usage or version or (choice and (backend or engine)) or flags or cut "
          "or headline or bad_input or malformed_user"]


def _requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    found = [Requirement(text) for text in project["dependencies"]]
    return [r for r in found if r.marker is None or r.marker.evaluate()]


def oldest() -> list[str]:
    """Each dependency pinned to the lower bound pyproject.toml gives it (every one has one)."""
    pins = []
    for requirement in _requirements():
        floors = [spec.version for spec in requirement.specifier if spec.operator == ">="]
        assert len(floors) == 1, f"{requirement}: give it a lower bound (>=) that the tests can check"
        pins.append(f"{requirement.name}=={floors[0]}")
    return pins


def newest() -> list[str]:
    return [f"{requirement.name}{requirement.specifier}" for requirement in _requirements()]


def _environment(where: Path, pins: list[str]) -> subprocess.Popen:
    venv.create(where, with_pip=True)
    command = [str(where / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
               "--only-binary=:all:", "--upgrade", *pins, "pytest", "packaging"]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _run_subset(where: Path, tmp: Path) -> subprocess.Popen:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTEST", "PYTHON", "COV_"))}
    env.update(PYTHONPATH=str(ROOT), PORTKIT_CACHE_DIR=str(tmp / f"cache-{where.name}"))
    command = [str(where / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
               "--basetemp", str(tmp / f"pytest-{where.name}"), *SUBSET]
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _versions(where: Path) -> dict[str, Version]:
    """The installed version of each dependency, by canonical name."""
    listed = subprocess.run([str(where / "bin" / "python"), "-m", "pip", "list", "--disable-pip-version-check",
                             "--format", "freeze"], capture_output=True, text=True).stdout
    names = {canonicalize_name(r.name) for r in _requirements()}
    pairs = (line.split("==", 1) for line in listed.splitlines() if "==" in line)
    return {canonicalize_name(name): Version(version) for name, version in pairs if canonicalize_name(name) in names}


def test_oldest_pins_are_the_lower_bounds() -> None:
    pins = oldest()
    assert "pyyaml==6" in pins and "typer==0.12" in pins and "tree-sitter==0.25" in pins, pins


@pytest.mark.skipif(sys.version_info < (3, 11), reason="the oldest pins are checked on the CI's Python (3.11)")
def test_the_subset_passes_with_the_oldest_and_the_newest_versions(tmp_path: Path) -> None:
    sets = {"oldest": oldest(), "newest": newest()}
    installs = {name: _environment(tmp_path / name, pins) for name, pins in sets.items()}
    for name, install in installs.items():
        output = install.communicate(timeout=600)[0]
        if install.returncode and not IN_CI and "Could not find a version" not in output:
            pytest.skip(f"the package index is out of reach: {output.strip().splitlines()[-1:]}")
        assert install.returncode == 0, f"{name}: {output[-3000:]}"
    installed = {name: _versions(tmp_path / name) for name in sets}
    assert installed["oldest"] == {canonicalize_name(Requirement(pin).name): Version(pin.split("==")[1])
                                   for pin in sets["oldest"]}
    assert all(installed["newest"][name] >= version for name, version in installed["oldest"].items())
    runs = {name: _run_subset(tmp_path / name, tmp_path) for name in sets}
    for name, run in runs.items():
        output = run.communicate(timeout=900)[0]
        summary = output.strip().splitlines()[-1]
        assert run.returncode == 0 and " passed" in summary, f"{name} ({installed[name]}):\n{output[-6000:]}"
        assert "skipped" not in summary, f"{name}: {summary}"
