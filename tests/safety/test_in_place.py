"""--in-place never loses a byte: backups are never dropped or overwritten, a file edited
meanwhile is left alone, and mode, owner, symlinks and hard links survive. Where
permissions matter, each case runs as root and as an unprivileged user."""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from portkit.cli import main
from safety_kit import CUDA, HIP, portkit, shared_dir, swapping, unprivileged, write

USERS = ["root", "unprivileged"]


@pytest.fixture
def work(tmp_path: Path):
    yield from shared_dir(tmp_path)


def as_user(user: str) -> list[str]:
    """The command prefix for `user`; skips when this machine cannot drop privileges."""
    if user == "root":
        if os.geteuid() != 0:
            pytest.skip("not running as root")
        return []
    mode = unprivileged()
    if mode is None:
        pytest.skip("cannot drop privileges here (needs setpriv)")
    return mode[1]


def give_to_user(user: str, *paths: Path) -> None:
    """Let the unprivileged user (nobody, when privileges drop by uid) own what it should write."""
    mode = unprivileged()
    if user == "unprivileged" and mode is not None and mode[0] == "uid":
        for path in paths:
            for item in [path, *(path.rglob("*") if path.is_dir() else [])]:
                os.lchown(item, 65534, 65534)


# --- backups ----------------------------------------------------------------------

def test_an_existing_backup_is_never_overwritten_nor_silently_skipped(tmp_path: Path, capsys) -> None:
    src = write(tmp_path / "src" / "k.cu", CUDA).parent
    write(src / "k.cu.orig", b"// an older backup\n")
    assert main(["convert", "--in-place", str(src)]) == 0
    err = capsys.readouterr().err
    assert "backup saved as k.cu.orig.1 (k.cu.orig already exists)" in err
    assert (src / "k.cu.orig").read_bytes() == b"// an older backup\n"
    assert (src / "k.cu.orig.1").read_bytes() == CUDA
    assert (src / "k.cu").read_bytes() == HIP


def test_each_run_that_changes_a_file_keeps_its_own_backup(tmp_path: Path, capsys) -> None:
    src = write(tmp_path / "src" / "k.cu", CUDA).parent
    assert main(["convert", "--in-place", str(src)]) == 0
    write(src / "k.cu", HIP + b"void g(float* p) { cudaFree(p); }\n")
    assert main(["convert", "--in-place", str(src)]) == 0
    assert (src / "k.cu.orig").read_bytes() == CUDA
    assert (src / "k.cu.orig.1").read_bytes() == HIP + b"void g(float* p) { cudaFree(p); }\n"


def test_when_no_backup_name_is_free_the_file_is_left_alone(tmp_path: Path, capsys) -> None:
    src = write(tmp_path / "src" / "k.cu", CUDA).parent
    write(src / "k.cu.orig", b"0")
    for n in range(1, 100):
        write(src / f"k.cu.orig.{n}", b"%d" % n)
    assert main(["convert", "--in-place", str(src)]) == 2
    assert "all exist; left as it is" in capsys.readouterr().err
    assert (src / "k.cu").read_bytes() == CUDA


@pytest.mark.parametrize("kind", ["symlink", "directory", "dangling symlink"])
def test_a_backup_name_taken_by_something_else_is_skipped(kind: str, tmp_path: Path) -> None:
    src = write(tmp_path / "src" / "k.cu", CUDA).parent
    victim = write(tmp_path / "victim", b"keep\n")
    if kind == "symlink":
        os.symlink(victim, src / "k.cu.orig")
    elif kind == "directory":
        (src / "k.cu.orig").mkdir()
    else:
        os.symlink(tmp_path / "nowhere", src / "k.cu.orig")
    assert main(["convert", "--in-place", str(src)]) == 0
    assert victim.read_bytes() == b"keep\n" and not (tmp_path / "nowhere").exists()
    assert (src / "k.cu.orig.1").read_bytes() == CUDA


def test_a_name_too_long_for_a_backup_is_refused_with_a_message(tmp_path: Path, capsys) -> None:
    name = "k" * 250 + ".cu"  # FILE.orig would be 258 bytes
    src = write(tmp_path / "src" / name, CUDA).parent
    assert main(["convert", "--in-place", str(src)]) == 2
    assert "too long for a backup" in capsys.readouterr().err
    assert (src / name).read_bytes() == CUDA


# --- a file that changes while portkit runs ------------------------------------------

@pytest.mark.parametrize("backup", [True, False])
@pytest.mark.parametrize("edited", [CUDA + b"// appended\n", b"", CUDA.replace(b"4", b"8")],
                         ids=["appended", "emptied", "same-size-same-mtime"])
def test_an_edit_between_the_check_and_the_rename_is_kept(edited: bytes, backup: bool, tmp_path: Path,
                                                          monkeypatch) -> None:
    """The race: someone saves the file after portkit checked it, while it writes the
    replacement (here: when the replacement is fsynced, the last step before the rename).
    The check right before the rename sees it, even with the same size and mtime."""
    from portkit.convert.output import Change, write_in_place

    target = write(tmp_path / "k.cu", CUDA)
    real_fsync = os.fsync
    calls = []

    def fsync_then_someone_saves(fd: int) -> None:
        real_fsync(fd)
        calls.append(fd)
        if len(calls) == (2 if backup else 1):  # the replacement's fsync (after the backup's)
            before = target.stat()
            target.write_bytes(edited)
            os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))

    monkeypatch.setattr(os, "fsync", fsync_then_someone_saves)
    log = write_in_place([Change(str(target), CUDA, HIP)], backup=backup)
    assert log.failures == [f"{target}: changed while portkit was running; left as it is, run again"]
    assert target.read_bytes() == edited
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".pk")]
    assert (tmp_path / "k.cu.orig").read_bytes() == CUDA if backup else not (tmp_path / "k.cu.orig").exists()


def test_a_file_changed_since_it_was_read_is_left_without_a_backup(tmp_path: Path) -> None:
    from portkit.convert.output import Change, write_in_place

    target = write(tmp_path / "k.cu", CUDA + b"// newer\n")
    log = write_in_place([Change(str(target), CUDA, HIP)], backup=True)
    assert "changed while portkit was running" in log.failures[0]
    assert target.read_bytes() == CUDA + b"// newer\n" and not (tmp_path / "k.cu.orig").exists()


# --- mode, owner, links ---------------------------------------------------------------

@pytest.mark.parametrize("user", USERS)
def test_mode_and_owner_are_kept(user: str, work: Path) -> None:
    prefix = as_user(user)
    src = write(work / "src" / "k.cu", CUDA, mode=0o640).parent
    give_to_user(user, src)
    os.chmod(src / "k.cu", 0o2640)
    owner = (os.stat(src / "k.cu").st_uid, os.stat(src / "k.cu").st_gid)
    if user == "root":
        os.chown(src / "k.cu", 1234, 4321)
        owner = (1234, 4321)
    run = portkit(["convert", "--in-place", str(src)], work, as_user=prefix)
    assert run.code == 0, run.err
    found = os.stat(src / "k.cu")
    assert (src / "k.cu").read_bytes() == HIP
    assert stat.S_IMODE(found.st_mode) == 0o2640 and (found.st_uid, found.st_gid) == owner
    backup = os.stat(src / "k.cu.orig")
    assert stat.S_IMODE(backup.st_mode) == 0o2640 and (backup.st_uid, backup.st_gid) == owner


@pytest.mark.parametrize("user", USERS)
def test_read_only_files_are_skipped_unless_forced(user: str, work: Path) -> None:
    prefix = as_user(user)
    src = write(work / "src" / "k.cu", CUDA).parent
    write(src / "ok.cu", CUDA)
    give_to_user(user, src)
    os.chmod(src / "k.cu", 0o444)
    run = portkit(["convert", "--in-place", str(src)], work, as_user=prefix)
    assert run.code == 2 and "k.cu: read-only; left as it is unless forced" in run.err, run.err
    assert (src / "k.cu").read_bytes() == CUDA and (src / "ok.cu").read_bytes() == HIP
    run = portkit(["convert", "--in-place", "--force", str(src)], work, as_user=prefix)
    assert run.code == 0, run.err
    assert (src / "k.cu").read_bytes() == HIP and stat.S_IMODE(os.stat(src / "k.cu").st_mode) == 0o444


@pytest.mark.parametrize("user", USERS)
def test_hard_links_are_refused_unless_forced_and_then_kept(user: str, work: Path) -> None:
    prefix = as_user(user)
    src = write(work / "src" / "k.cu", CUDA).parent
    os.link(src / "k.cu", work / "other-name.cu")
    give_to_user(user, src, work / "other-name.cu")
    run = portkit(["convert", "--in-place", str(src)], work, as_user=prefix)
    assert run.code == 2 and "has 2 hard links" in run.err, run.err
    assert (work / "other-name.cu").read_bytes() == CUDA
    run = portkit(["convert", "--in-place", "--force", str(src)], work, as_user=prefix)
    assert run.code == 0, run.err
    assert os.path.samefile(src / "k.cu", work / "other-name.cu")
    assert (work / "other-name.cu").read_bytes() == HIP and (src / "k.cu.orig").read_bytes() == CUDA


def test_a_directory_swapped_for_a_symlink_since_the_walk_is_never_followed(tmp_path: Path) -> None:
    """src/sub was walked as a directory; by the time its file is rewritten it is a symlink out."""
    from portkit.convert.output import Change, write_in_place

    src, elsewhere = tmp_path / "src", write(tmp_path / "elsewhere" / "k.cu", CUDA).parent
    write(src / "sub" / "k.cu", CUDA)
    os.rename(src / "sub", tmp_path / "moved")
    os.symlink(elsewhere, src / "sub")
    log = write_in_place([Change(str(src / "sub" / "k.cu"), CUDA, HIP)], backup=True, roots=[str(src)])
    assert log.failures == [f"{src / 'sub'}: a symbolic link inside the input directory (swapped in since it was "
                            "walked?); refusing to write through it"]
    assert sorted(p.name for p in elsewhere.iterdir()) == ["k.cu"] and (elsewhere / "k.cu").read_bytes() == CUDA


def test_a_directory_swapped_back_and_forth_during_in_place_is_never_followed(tmp_path: Path) -> None:
    """A real race: a thread swaps src/sub for a symlink to a copy of it and back while files in sub/
    and other/ are rewritten in turn; some may be refused, the copy is never touched."""
    from portkit.convert.output import Change, write_in_place

    src, elsewhere = tmp_path / "src", tmp_path / "elsewhere"
    names = [f"{d}/f{i}.cu" for i in range(150) for d in ("sub", "other")]
    for name in names:
        write(src / name, CUDA)
        write(elsewhere / name, CUDA)
    with swapping(src / "sub", elsewhere / "sub"):
        log = write_in_place([Change(str(src / name), CUDA, HIP) for name in names], backup=True, roots=[str(src)])
    assert len(log.written) > 150
    assert all((elsewhere / name).read_bytes() == CUDA for name in names)
    assert sorted(p.name for p in (elsewhere / "sub").iterdir()) == sorted(n.split("/")[1] for n in names if "sub/" in n)


@pytest.mark.parametrize("user", USERS)
def test_symlinks_stay_links_and_never_lead_out(user: str, work: Path) -> None:
    prefix = as_user(user)
    src = write(work / "src" / "k.cu", CUDA).parent
    outside = write(work / "outside" / "t.cu", CUDA)
    os.symlink("k.cu", src / "inner-link.cu")
    os.symlink(outside, src / "outer-link.cu")
    give_to_user(user, src, outside.parent)
    run = portkit(["convert", "--in-place", str(src)], work, as_user=prefix)
    assert run.code == 0, run.err  # a link out of the inputs is never read: skipped by the walk (#48 class 2)
    assert "inner-link.cu" not in run.err  # its target is converted itself
    assert f"{src / 'outer-link.cu'}: symbolic link leading out of the input directory; skipped" in run.err, run.err
    assert os.readlink(src / "inner-link.cu") == "k.cu" and os.path.islink(src / "outer-link.cu")
    assert (src / "k.cu").read_bytes() == HIP and outside.read_bytes() == CUDA


def test_files_of_other_users_keep_their_owner_or_are_left(tmp_path: Path) -> None:
    mode = unprivileged()
    if mode is None or mode[0] != "uid":
        pytest.skip("needs root and a Python that user nobody can run")
    for work in shared_dir(tmp_path):
        src = write(work / "src" / "k.cu", CUDA, mode=0o666).parent
        os.chmod(src, 0o777)  # nobody may write the directory and the file, but not own the file
        run = portkit(["convert", "--in-place", str(src)], work, as_user=mode[1])
        assert run.code == 2 and "owned by another user" in run.err, run.err
        assert os.stat(src / "k.cu").st_uid == 0 and (src / "k.cu").read_bytes() == CUDA
        run = portkit(["convert", "--in-place", "--force", str(src)], work, as_user=mode[1])
        assert run.code == 0, run.err
        assert os.stat(src / "k.cu").st_uid == 0 and (src / "k.cu").read_bytes() == HIP


# --- unreadable inputs are reported, never skipped silently ------------------------------

@pytest.mark.parametrize("what", ["file", "directory"])
@pytest.mark.parametrize("command", [["convert", "--in-place"], ["convert", "-o", "{work}/out"],
                                     ["shim", "-o", "{work}/gpu.h", "--in-place"]])
def test_unreadable_inputs_are_reported_and_fail(what: str, command: list[str], work: Path) -> None:
    prefix = as_user("unprivileged")
    src = write(work / "src" / "ok.cu", CUDA).parent
    hidden = write(src / "locked" / "k.cu", CUDA).parent if what == "directory" else write(src / "k.cu", CUDA)
    give_to_user("unprivileged", src)
    os.chmod(work, 0o777)
    hidden.chmod(0)
    try:
        run = portkit([*(c.format(work=work) for c in command), str(src)], work, as_user=prefix)
    finally:
        hidden.chmod(0o755)
    assert run.code == 2, run.err
    assert "Permission denied" in run.err and str(hidden) in run.err
