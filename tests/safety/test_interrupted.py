"""A run cut short, or racing an edit, loses nothing and can be finished (#48 classes 4 and 6).

Real processes throughout: portkit runs as a child; the test edits its output, or
kills it (SIGKILL, SIGTERM), while it works; then it checks what is left and that a
plain rerun (no --force) finishes the job. The moment to act is read from the
output directory itself: its journal appears once the directory has been checked
(before the analysis) and grows by a line per file placed.
"""
from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import pytest

from safety_kit import CUDA, HIP, environment, portkit, snapshot, write

JOURNAL = ".portkit-journal"
MANIFEST = ".portkit-manifest.json"
UNIT = "void f(float* p) { cudaFree(p); cudaMalloc(&p, 4); }\n" * 200


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """40 sources to convert and 2,000 other files to copy: seconds of analysis, then of writing."""
    src = tmp_path_factory.mktemp("tree") / "src"
    for directory in range(20):
        for number in range(100):
            write(src / f"d{directory:02d}" / f"n{number:03d}.txt", f"note {directory} {number}\n" * 20)
    for number in range(40):
        write(src / f"k{number:02d}.cu", f"// unit {number}\n{UNIT}")
    return src


def _copy(tree: Path, tmp: Path) -> Path:
    return Path(shutil.copytree(tree, tmp / "src", symlinks=True))


def _start(args: list[str], tmp: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "portkit", *args], cwd=tmp, env=environment(tmp),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _when(ready: Callable[[], bool], process: subprocess.Popen[bytes]) -> None:
    """Wait, polling every 2 ms, until `ready()`; fail if the process ends first."""
    deadline = time.monotonic() + 120
    while not ready():
        assert process.poll() is None, f"the run ended first: {process.stderr.read().decode()}"  # type: ignore[union-attr]
        assert time.monotonic() < deadline
        time.sleep(0.002)


def _journal_lines(out: Path) -> int:
    try:
        return (out / JOURNAL).read_bytes().count(b"\n")
    except OSError:
        return 0


def _temporaries(root: Path) -> list[Path]:
    return [p for p in root.rglob(".pk*") if p.name.endswith(".tmp")]


# --- 4. an edit saved in OUT while a rerun works is kept --------------------------------------

def _edit(target: Path) -> None:
    target.write_bytes(b"// my edit\n" + target.read_bytes())


def _same_size_and_mtime(target: Path) -> None:
    before = target.stat()
    data = target.read_bytes()
    target.write_bytes(data.replace(b"hipFree", b"HIPFree", 1))
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))


EDITS = {"edited": ("k00.cu", _edit), "same-size-and-mtime": ("k00.cu", _same_size_and_mtime),
         "created": ("extra.cu", lambda target: target.write_bytes(b"// my own file\n"))}


@pytest.mark.parametrize("kind", EDITS)
def test_an_edit_saved_in_the_output_during_a_rerun_is_kept(kind: str, tree: Path, tmp_path: Path) -> None:
    src, out = _copy(tree, tmp_path), tmp_path / "out"
    assert portkit(["convert", "--no-cache", str(src), "-o", str(out)], tmp_path).code == 0
    name, edit = EDITS[kind]
    write(src / "k00.cu", (src / "k00.cu").read_bytes() + b"void g() { cudaDeviceSynchronize(); }\n")
    write(src / "extra.cu", CUDA)  # the rerun has a new file to write, and one to replace
    rerun = _start(["convert", "--no-cache", str(src), "-o", str(out)], tmp_path)
    _when(lambda: (out / JOURNAL).exists(), rerun)  # the directory is checked: the analysis begins
    target = out / name
    edit(target)
    mine = target.read_bytes()
    err = rerun.communicate(timeout=120)[1].decode()
    happened = "appeared while" if kind == "created" else "changed while"
    assert rerun.returncode == 2 and f"{target}: {happened} portkit was running; left as it is" in err, err
    assert target.read_bytes() == mine
    assert b"hipMalloc" in (out / "k01.cu").read_bytes() and not (out / JOURNAL).exists()
    again = portkit(["convert", "--no-cache", str(src), "-o", str(out)], tmp_path)
    assert again.code == 2 and "portkit did not write or that changed since" in again.err  # still not overwritten
    assert target.read_bytes() == mine


def test_an_edit_between_the_last_check_and_the_rename_is_kept(tmp_path: Path, monkeypatch) -> None:
    """The narrowest window: the edit lands while the replacement is written (at its fsync)."""
    from portkit.convert.output import Change, TreeWriter

    src, out = write(tmp_path / "src" / "k.cu", CUDA).parent, tmp_path / "out"
    assert portkit(["convert", str(src), "-o", str(out)], tmp_path).code == 0
    target, real_fsync = out / "k.cu", os.fsync

    def fsync_then_someone_saves(fd: int) -> None:
        real_fsync(fd)
        if target.read_bytes() == HIP:
            before = target.stat()
            target.write_bytes(HIP.replace(b"4", b"8"))
            os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))

    writer = TreeWriter([str(src)], out, [])
    monkeypatch.setattr(os, "fsync", fsync_then_someone_saves)
    log = writer.finish([Change(str(src / "k.cu"), CUDA, HIP + b"// newer\n")])
    assert log.failures == [f"{target}: changed while portkit was running; left as it is, run again"]
    assert target.read_bytes() == HIP.replace(b"4", b"8") and not _temporaries(out)


# --- 6. a run cut short can be finished without --force ----------------------------------------

@pytest.mark.parametrize("how", ["SIGKILL", "SIGTERM"])
def test_an_interrupted_convert_is_finished_by_a_plain_rerun(how: str, tree: Path, tmp_path: Path) -> None:
    src = _copy(tree, tmp_path)
    whole, out = tmp_path / "whole", tmp_path / "out"
    assert portkit(["convert", "--no-cache", str(src), "-o", str(whole)], tmp_path).code == 0
    run = _start(["convert", "--no-cache", str(src), "-o", str(out)], tmp_path)
    _when(lambda: _journal_lines(out) > 20, run)  # writing
    run.send_signal(getattr(signal, how))
    err = run.communicate(timeout=120)[1].decode()
    if how == "SIGKILL":  # cut mid-write: files, a journal, no manifest (and maybe a temporary file)
        assert run.returncode == -signal.SIGKILL and (out / JOURNAL).exists() and not (out / MANIFEST).exists()
    else:  # the run cleaned up: no temporary file, what it wrote recorded
        assert run.returncode == 143 and err.strip() == "portkit: error: terminated", err
        assert not _temporaries(out) and (out / MANIFEST).exists() and not (out / JOURNAL).exists()
    assert len(snapshot(out)) < len(snapshot(whole))
    rerun = portkit(["convert", "--no-cache", str(src), "-o", str(out)], tmp_path)
    assert rerun.code == 0, rerun.err
    assert snapshot(out) == snapshot(whole) and not _temporaries(out) and not (out / JOURNAL).exists()


def test_a_signal_right_after_a_file_is_placed_leaves_it_recorded(tmp_path: Path, monkeypatch) -> None:
    """The narrowest window of a stop: the file has its name, the run has not noted it yet."""
    from portkit import outpath
    from portkit.convert.output import TreeWriter

    src, out = tmp_path / "src", tmp_path / "out"
    for i in range(3):
        write(src / f"k{i}.cu", CUDA)
    real_write, placed = outpath.write_tree_file, []

    def placed_then_interrupted(*args, **kwargs) -> str:
        placed.append(real_write(*args, **kwargs))
        if len(placed) == 2:
            raise KeyboardInterrupt  # as SIGTERM raises Terminated
        return placed[-1]

    monkeypatch.setattr(outpath, "write_tree_file", placed_then_interrupted)
    with pytest.raises(KeyboardInterrupt):
        TreeWriter([str(src)], out, []).finish()
    monkeypatch.undo()
    assert (out / MANIFEST).exists() and not (out / JOURNAL).exists()
    rerun = portkit(["convert", "--no-cache", str(src), "-o", str(out)], tmp_path)
    assert rerun.code == 0, rerun.err


def test_sigterm_before_anything_is_written_leaves_no_output_directory(tree: Path, tmp_path: Path) -> None:
    out = tmp_path / "new" / "out"
    run = _start(["convert", "--no-cache", str(tree), "-o", str(out)], tmp_path)
    _when(lambda: (out / JOURNAL).exists(), run)  # the directory is made and checked: the analysis begins
    run.send_signal(signal.SIGTERM)
    assert run.wait(timeout=60) == 143
    assert not (tmp_path / "new").exists()  # the directories this run made are gone with its journal


def test_a_signal_right_after_the_journal_is_placed_leaves_no_output_directory(tmp_path: Path, monkeypatch) -> None:
    """The window the test above can hit by chance: the new journal has its name, the writer is not made yet."""
    from portkit import journal
    from portkit.convert.output import TreeWriter

    src, out = tmp_path / "src", tmp_path / "new" / "out"
    write(src / "k.cu", CUDA)
    real_write = journal.write_tree_file

    def placed_then_interrupted(*args, **kwargs) -> str:
        real_write(*args, **kwargs)
        raise KeyboardInterrupt  # as SIGTERM raises Terminated

    monkeypatch.setattr(journal, "write_tree_file", placed_then_interrupted)
    with pytest.raises(KeyboardInterrupt):
        TreeWriter([str(src)], out, [])
    assert not (tmp_path / "new").exists()


def test_a_convert_that_ran_out_of_space_is_finished_by_a_plain_rerun(tree: Path, tmp_path: Path) -> None:
    """A full disk, as a 64 KiB limit on the size of any file the run writes (EFBIG, as ENOSPC): the
    larger sources, the journal's end and the manifest cannot be written; the rerun finishes the job."""
    src = _copy(tree, tmp_path)
    whole, out = tmp_path / "whole", tmp_path / "out"
    assert portkit(["convert", "--no-cache", str(src), "-o", str(whole)], tmp_path).code == 0
    limit = 64 << 10
    full = subprocess.run([sys.executable, "-m", "portkit", "convert", "--no-cache", str(src), "-o", str(out)],
                          cwd=tmp_path, env=environment(tmp_path), capture_output=True, timeout=120,
                          preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit)))
    assert full.returncode == 2 and b"File too large" in full.stderr, full.stderr
    assert (out / JOURNAL).exists() and not (out / MANIFEST).exists() and not _temporaries(out)
    rerun = portkit(["convert", "--no-cache", str(src), "-o", str(out)], tmp_path)
    assert rerun.code == 0, rerun.err
    assert snapshot(out) == snapshot(whole) and not (out / JOURNAL).exists()


def test_sigterm_during_in_place_leaves_no_temporary_file(tree: Path, tmp_path: Path) -> None:
    src = tmp_path / "src"
    for source in tree.glob("*.cu"):
        write(src / source.name, source.read_bytes())
    run = _start(["convert", "--no-cache", "--in-place", str(src)], tmp_path)
    _when(lambda: len(list(src.glob("*.orig"))) > 3, run)  # writing
    run.send_signal(signal.SIGTERM)
    assert run.wait(timeout=120) == 143
    assert not _temporaries(src)
    converted = [p for p in src.glob("*.cu") if b"hipFree" in p.read_bytes()]
    assert 0 < len(converted) < 40 and all(b"cudaFree" not in p.read_bytes() for p in converted)
    assert portkit(["convert", "--no-cache", "--in-place", str(src)], tmp_path).code == 0
    assert all(b"cudaFree" not in p.read_bytes() for p in src.glob("*.cu"))


def _gone_pid() -> int:
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    return done.pid


@pytest.mark.parametrize("where", ["output", "in place"])
def test_only_temporary_files_of_ended_runs_are_removed(where: str, tmp_path: Path) -> None:
    """Exactly portkit's naming, and a process that is gone: a running one's file, or one named otherwise, stays."""
    src, out = write(tmp_path / "src" / "sub" / "k.cu", CUDA).parent.parent, tmp_path / "out"
    args = ["convert", str(src), "-o", str(out)] if where == "output" else ["convert", "--in-place", str(src)]
    base = out if where == "output" else src
    if where == "output":
        assert portkit(args, tmp_path).code == 0
        write(src / "sub" / "k.cu", CUDA + b"// newer\n")
    stray = [write(base / "sub" / f".pk-{_gone_pid()}-a1b2c3d_.tmp", b"half")]
    kept = [write(base / "sub" / name, b"mine") for name in
            (f".pk-{os.getpid()}-abcdefgh.tmp", ".pkabcdefgh.tmp", f".pk-{_gone_pid()}-abcdefgh.tmp.keep", ".pk-0-abcdefgh.tmp")]
    run = portkit(args, tmp_path)
    assert run.code == 0, run.err
    assert f"{stray[0]}: removed, a temporary file an interrupted portkit run left" in run.err
    assert not stray[0].exists() and all(p.read_bytes() == b"mine" for p in kept)


@pytest.mark.parametrize("journal", [b"", b"not a journal\n", b'{"tool": "other"}\n'])
def test_a_planted_journal_is_not_portkits(journal: bytes, tmp_path: Path) -> None:
    src, out = write(tmp_path / "src" / "k.cu", CUDA).parent, tmp_path / "out"
    write(out / JOURNAL, journal)
    write(out / "k.cu", b"mine\n")
    before = snapshot(out)
    run = portkit(["convert", str(src), "-o", str(out)], tmp_path)
    assert run.code == 2 and "not portkit's journal" in run.err and snapshot(out) == before


def test_a_journal_records_nothing_outside_its_directory(tmp_path: Path) -> None:
    src, out = write(tmp_path / "src" / "k.cu", CUDA).parent, tmp_path / "out"
    victim = write(tmp_path / "victim.cu", b"victim\n")
    write(out / JOURNAL, b'{"tool": "portkit", "journal": 1}\n["../victim.cu", "x"]\n["/etc/passwd", "y"]\n')
    assert portkit(["convert", str(src), "-o", str(out)], tmp_path).code == 0
    manifest = (out / MANIFEST).read_text()
    assert "victim" not in manifest and "passwd" not in manifest and victim.read_bytes() == b"victim\n"
