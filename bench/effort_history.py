"""The commit at which a hand port was made, for bench/effort.py.

A corpus is a git history. After a HIP version was added beside its CUDA original, the two lived
on apart: timing code added to one, kernels rewritten in the other. Edits made after the port,
in one version only, are not port work. So a pair is measured at its port commit: the first
commit that added the HIP version (following the moves of its directory or file, which add no
code), with the CUDA version as it was at that commit. Where the CUDA version was added by the
same commit, or did not exist then, or the history is missing, the pair stays at the corpus's
pinned commit.
"""
from __future__ import annotations

import shutil
import subprocess
from functools import lru_cache
from pathlib import Path


def git(git_dir: Path, *args: str) -> str:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True, check=False,
                          text=True, errors="replace").stdout


@lru_cache(maxsize=None)
def renamed_into(git_dir: Path, commit: str) -> tuple[tuple[str, str], ...]:
    """(old path, new path) of every file the commit renamed (exact and near-exact moves)."""
    pairs = []
    for line in git(git_dir, "diff-tree", "-r", "-M", "--name-status", "--diff-filter=R", commit).splitlines():
        fields = line.split("\t")
        if len(fields) == 3:
            pairs.append((fields[1], fields[2]))
    return tuple(pairs)


def moved_from(git_dir: Path, commit: str, path: str) -> str | None:
    """The path that `commit` moved to `path` (a file, or the directory most of its files came from)."""
    sources: dict[str, int] = {}
    for old, new in renamed_into(git_dir, commit):
        if new == path:
            return old
        if new.startswith(path + "/"):
            tail = new[len(path):]
            if old.endswith(tail):
                sources[old[:-len(tail)]] = sources.get(old[:-len(tail)], 0) + 1
    return max(sources, key=sources.get) if sources else None


def history(git_dir: Path, commit: str, path: str) -> list[tuple[str, str]]:
    """Each path `path` (a file or directory) had as of `commit`, newest first, with the first commit
    that added files there; the last is where the version was first added. Empty without a history."""
    chain = []
    while True:
        added = git(git_dir, "log", "--diff-filter=A", "--format=%H", commit, "--", path).split()
        if not added:
            return chain
        chain.append((added[-1], path))
        old = moved_from(git_dir, added[-1], path)
        if old is None:
            return chain
        commit, path = added[-1] + "^", old


def exists(git_dir: Path, commit: str, path: str) -> bool:
    return subprocess.run(["git", f"--git-dir={git_dir}", "cat-file", "-e", f"{commit}:{path}"],
                          capture_output=True, check=False).returncode == 0


def port_commit(git_dir: Path, pinned: str, cuda: str, hip: str) -> tuple[str, str, str] | None:
    """(port commit, CUDA path there, HIP path there), or None where the pair stays at `pinned`."""
    hip_chain, cuda_chain = history(git_dir, pinned, hip), history(git_dir, pinned, cuda)
    if not hip_chain or not cuda_chain or hip_chain[-1][0] == cuda_chain[-1][0]:
        return None
    port, hip_then = hip_chain[-1]
    cuda_then = [path for _, path in cuda_chain if exists(git_dir, port, path)]
    return (port, cuda_then[0], hip_then) if cuda_then else None  # else the CUDA version came after its port


def extract(git_dir: Path, commit: str, pairs: list[tuple[str, str]], root: Path) -> None:
    """Write each (path at `commit`, path under `root`) of `commit` under `root`: a file or a directory."""
    marker = root / ".complete"
    if marker.is_file():
        return
    shutil.rmtree(root, ignore_errors=True)
    for then, now in pairs:
        target = root / now
        kind = git(git_dir, "cat-file", "-t", f"{commit}:{then}").strip()
        if kind == "blob":
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(subprocess.run(["git", f"--git-dir={git_dir}", "cat-file", "blob", f"{commit}:{then}"],
                                              capture_output=True, check=True).stdout)
        else:
            target.mkdir(parents=True, exist_ok=True)
            archive = subprocess.run(["git", f"--git-dir={git_dir}", "archive", f"{commit}:{then}"],
                                     capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    marker.write_text(commit + "\n")
