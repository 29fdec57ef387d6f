"""`check --diff REF` is a gate: no ref can make git write a file, and no git configuration,
file name or encoding lets a new finding through."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from safety_kit import CUDA, UNSUPPORTED, portkit, write


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "t@example.com")
    git(repo, "config", "user.name", "t")
    write(repo / "old.cu", CUDA)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    return repo


@pytest.mark.parametrize("ref", ["--output=pwned", "--output=../pwned", "-opwned", "--ext-diff", "--no-index",
                                 "-c", "--exec-path=.", "HEAD --output=pwned"])
def test_a_ref_is_never_an_option(ref: str, repo: Path) -> None:
    run = portkit(["check", f"--diff={ref}"], repo, cwd=repo)
    assert run.code == 2 and len(run.err_lines) == 1, run.err
    assert not list(repo.parent.rglob("pwned")) and not (repo / "pwned").exists()


NAMES = ["plain.cu", "caf\u00e9.cu", 'quo"te.cu', "sp ace.cu", "tab\there.cu", "back\\slash.cu", "new\nline.cu",
         "\u65e5\u672c.cu"]


@pytest.mark.parametrize("config", [[], ["diff.noprefix=true"], ["diff.mnemonicPrefix=true"], ["diff.relative=true"],
                                    ["color.ui=always", "color.diff=always"], ["core.quotePath=false"],
                                    ["diff.external=false"]],
                         ids=lambda c: ",".join(c) or "default")
def test_new_findings_are_found_whatever_the_configuration_and_names(config: list[str], repo: Path) -> None:
    for setting in config:
        key, value = setting.split("=")
        git(repo, "config", key, value)
    (repo / "sub").mkdir()
    for name in NAMES:
        write(repo / "sub" / name, UNSUPPORTED)
    write(repo / "old.cu", CUDA + UNSUPPORTED)
    write(repo / "latin1.cu", b"// caf\xe9 \xff\n" + UNSUPPORTED)
    git(repo, "add", "-A")
    inside = "diff.relative=true" in config  # git would print paths relative to the current directory
    run = portkit(["check", "--diff", "HEAD", ".." if inside else "."], repo, cwd=repo / "sub" if inside else repo)
    assert run.code == 1, run.err
    reported = run.out.count("PK102")
    assert reported == len(NAMES) + 2, run.out


def test_an_added_line_that_looks_like_a_header_is_still_an_added_line(repo: Path) -> None:
    write(repo / "old.cu", CUDA + b"++ b/elsewhere.cu\n" + UNSUPPORTED)
    run = portkit(["check", "--diff", "HEAD", "."], repo, cwd=repo)
    assert run.code == 1 and "old.cu:3:" in run.out, (run.out, run.err)


def test_only_added_lines_count(repo: Path) -> None:
    write(repo / "old.cu", UNSUPPORTED + CUDA)
    git(repo, "commit", "-qam", "with an old finding")
    write(repo / "old.cu", UNSUPPORTED + CUDA + b"// a comment\n")
    run = portkit(["check", "--diff", "HEAD", "."], repo, cwd=repo)
    assert run.code == 0, run.out
