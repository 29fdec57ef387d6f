"""No privilege, secret or path escapes on a tree someone else controls: set-id bits never
outlive their owner, symlinks never lead a read out of the inputs, the config never aims a
write out of the project."""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from safety_kit import CUDA, portkit, snapshot, write

SETID = stat.S_ISUID | stat.S_ISGID


# --- 1. set-id bits are dropped whenever the owner is not kept ----------------------------

@pytest.mark.parametrize("mode", [0o4755, 0o2755, 0o6755])
@pytest.mark.parametrize("name", ["k.cu", "run.sh", "tool"])  # converted, converted build script, copied
def test_convert_output_drops_set_id_bits(mode: int, name: str, tmp_path: Path) -> None:
    src = write(tmp_path / "src" / name, CUDA if name.endswith(".cu") else "#!/bin/sh\nnvcc k.cu\n", mode).parent
    if os.geteuid() == 0:
        os.chown(src / name, 1234, 1234)  # another user's set-user-ID file, copied by root
    run = portkit(["convert", str(src), "-o", str(tmp_path / "out")], tmp_path)
    assert run.code == 0, run.err
    found = os.stat(tmp_path / "out" / name)
    assert found.st_uid == os.geteuid() and not found.st_mode & SETID, oct(found.st_mode)
    assert stat.S_IMODE(found.st_mode) == mode & 0o777  # the permission bits are kept


def test_shim_sources_drop_set_id_bits(tmp_path: Path) -> None:
    src = write(tmp_path / "src" / "k.cu", CUDA, 0o4755).parent
    write(src / "copied.txt", "x\n", 0o6755)
    run = portkit(["shim", str(src), "-o", str(tmp_path / "gpu.h"), "--sources", str(tmp_path / "out")], tmp_path)
    assert run.code == 0, run.err
    for name in ("k.cu", "copied.txt"):
        assert not os.stat(tmp_path / "out" / name).st_mode & SETID, name


# --- 2. symlinks out of the inputs are never read through ------------------------------------

LINKS = {"env.txt": "/proc/self/environ", "passwd.txt": "/etc/passwd", "secret.cu": "../secret.cu",
         "deep/up.h": "../../secret.cu"}


@pytest.mark.parametrize("command", ["convert", "shim"])
def test_symlinks_leading_out_are_never_copied_as_files(command: str, tmp_path: Path) -> None:
    src = write(tmp_path / "src" / "k.cu", CUDA).parent
    write(tmp_path / "secret.cu", "SECRET cudaMalloc\n")
    write(src / "inside.txt", "fine\n")
    os.symlink("inside.txt", src / "alias.txt")  # a link that stays inside is copied as before
    for name, target in LINKS.items():
        (src / name).parent.mkdir(exist_ok=True)
        os.symlink(target, src / name)
    out = tmp_path / "out"
    argv = ["convert", str(src), "-o", str(out)] if command == "convert" else \
        ["shim", str(src), "-o", str(tmp_path / "gpu.h"), "--sources", str(out)]
    run = portkit(argv, tmp_path, SECRET_TOKEN="leaked-token-123")
    assert run.code == 0, run.err
    for name in LINKS:
        assert not os.path.lexists(out / name), name
        if command == "convert":
            assert f"{name}: symbolic link leading out of the input directory" in run.err, run.err
    assert (out / "alias.txt").read_text() == "fine\n"
    everything = b"".join(snapshot(out).values())
    assert b"leaked-token-123" not in everything and b"SECRET" not in everything and b"root:" not in everything


def test_scans_never_read_through_a_link_out(tmp_path: Path) -> None:
    src = write(tmp_path / "src" / "k.cu", CUDA).parent
    write(tmp_path / "secret.cu", "void leak() { cudaSecretCall(); }\n")
    os.symlink("../secret.cu", src / "secret.cu")
    run = portkit(["report", "-f", "json", str(src)], tmp_path)
    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert "cudaSecretCall" not in run.out and [Path(f["path"]).name for f in data["files"]] == ["k.cu"]
    assert any("leading out" in d["message"] for d in data["diagnostics"])


# --- 3. the baseline stays in the project --------------------------------------------------

@pytest.mark.parametrize("value", ["../victim.txt", "/tmp/../{tmp}/victim.txt", "sub/../../victim.txt", "{tmp}/victim.txt"])
def test_a_config_baseline_out_of_the_project_is_refused(value: str, tmp_path: Path) -> None:
    project = tmp_path / "p"
    write(project / "src" / "k.cu", CUDA)
    write(project / "pyproject.toml", f'[tool.portkit]\nbaseline = "{value.format(tmp=tmp_path)}"\n')
    (project / ".git").mkdir()
    victim = write(tmp_path / "victim.txt", "precious\n")
    for command in ("baseline", "check"):
        run = portkit([command], tmp_path, cwd=project)
        assert run.code == 2 and len(run.err_lines) == 1 and "leads out of the project root" in run.err, run.err
    assert victim.read_text() == "precious\n"


@pytest.mark.parametrize("target", ["../victim.txt", "{tmp}/victim.txt", "../sub/../victim.txt"])
def test_the_default_baseline_is_not_written_through_a_link_out(target: str, tmp_path: Path) -> None:
    project = tmp_path / "p"
    write(project / "src" / "k.cu", CUDA)
    (project / ".git").mkdir()
    (tmp_path / "sub").mkdir()
    victim = write(tmp_path / "victim.txt", "precious\n")
    os.symlink(target.format(tmp=tmp_path), project / ".portkit-baseline.json")
    run = portkit(["baseline"], tmp_path, cwd=project)
    assert run.code == 2 and len(run.err_lines) == 1 and "leads out of the project root" in run.err, run.err
    assert victim.read_text() == "precious\n"
    explicit = portkit(["baseline", "-o", str(tmp_path / "chosen.json")], tmp_path, cwd=project)  # named: allowed
    assert explicit.code == 0, explicit.err


def test_a_baseline_link_inside_the_project_is_followed(tmp_path: Path) -> None:
    project = tmp_path / "p"
    write(project / "src" / "k.cu", CUDA)
    (project / ".git").mkdir()
    write(project / "ci" / "baseline.json", "")
    os.symlink("ci/baseline.json", project / ".portkit-baseline.json")
    run = portkit(["baseline"], tmp_path, cwd=project)
    assert run.code == 0, run.err
    assert os.path.islink(project / ".portkit-baseline.json") and "findings" in (project / "ci" / "baseline.json").read_text()
