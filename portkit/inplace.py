"""Rewriting a file in place: only the file portkit read, never a backup overwritten.

`check_rewritable` refuses, with the reason, a file that changed since it was read,
a symlink, a file that is not regular, read-only, hard-linked or someone else's
(the last three unless forced); `write_backup` saves the original beside it under
a free name; `rewrite_in_place` replaces the bytes, keeping mode, owner and links,
after checking once more right before the rename. Every write goes through
portkit/fileio.py; each step can go through a descriptor of the file's directory.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

from portkit.errors import OutputError
from portkit.fileio import Expected, Refused, can_give, cannot_write, commit, lookup, name_in, place_new, unchanged

_BACKUPS = 100  # FILE.orig, FILE.orig.1 ... FILE.orig.99, then refuse


def check_rewritable(path: Path, expected: Expected, force: bool = False, directory: int | None = None) -> os.stat_result:
    """Refuse (with the reason) to rewrite a file in place that is not what portkit read,
    a symlink, not a regular file, read-only or hard-linked (unless forced). `directory`: a
    descriptor of its directory, through which this and `write_backup` and `rewrite_in_place` look."""
    try:
        found = os.stat(name_in(path, directory), dir_fd=directory, follow_symlinks=False)
    except OSError as exc:
        raise OutputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if stat.S_ISLNK(found.st_mode):
        raise Refused(f"{path}: a symbolic link; left as it is (convert the file it points to)")
    if not stat.S_ISREG(found.st_mode):
        raise Refused(f"{path}: not a regular file; left as it is")
    unchanged(path, expected, found, directory)
    if not force and not found.st_mode & 0o222:
        raise Refused(f"{path}: read-only; left as it is unless forced")
    if not force and found.st_nlink > 1:
        raise Refused(f"{path}: has {found.st_nlink} hard links; left as it is unless forced "
                      "(replacing it would split them)")
    if not force and not can_give((found.st_uid, found.st_gid)):
        raise Refused(f"{path}: owned by another user; left as it is unless forced (a replacement would be ours)")
    return found


def rewrite_in_place(path: Path, data: bytes, expected: Expected, force: bool = False,
                     directory: int | None = None) -> None:
    """Replace a file's bytes in place, keeping its mode, owner and hard links.

    Atomic (temporary file + rename) for a file with one link whose owner portkit
    can keep; with `force`, a hard-linked file or one owned by someone else is
    overwritten through its own inode (not atomic: its backup is written first).
    """
    found = check_rewritable(path, expected, force, directory)
    owner = (found.st_uid, found.st_gid)
    try:
        if found.st_nlink == 1 and can_give(owner):
            commit(path, lambda h: h.write(data), found.st_mode & 0o7777, owner,
                   lambda: unchanged(path, expected, found, directory), directory=directory)
            return
        unchanged(path, expected, found, directory)
        flags = os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC
        with open(os.open(name_in(path, directory), flags, dir_fd=directory), "r+b") as handle:
            handle.write(data)
            handle.truncate()
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as exc:
        raise cannot_write(path, exc) from None


def _name_max(directory: Path | int) -> int:
    try:
        return os.pathconf(directory, "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255


def write_backup(path: Path, data: bytes, directory: int | None = None) -> Path:
    """Save `data` beside `path` as FILE.orig, or the first free FILE.orig.N: never over an existing file.

    The backup appears whole (a temporary file hard-linked to the free name: the
    link fails rather than replace anything) with the original's mode and owner.
    """
    try:
        found = os.stat(name_in(path, directory), dir_fd=directory, follow_symlinks=False)
    except OSError as exc:  # gone since it was checked
        raise OutputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    owner = (found.st_uid, found.st_gid) if can_give((found.st_uid, found.st_gid)) else None
    limit = _name_max(path.parent if directory is None else directory)
    for number in range(_BACKUPS):
        name = path.name + ".orig" + (f".{number}" if number else "")
        if len(os.fsencode(name)) > limit:
            raise Refused(f"{path}: the name is too long for a backup beside it; left as it is")
        candidate = path.with_name(name)
        if lookup(candidate, False, directory) is not None:
            continue
        try:
            commit(candidate, lambda h: h.write(data), found.st_mode & 0o7777, owner, place=place_new,
                   directory=directory)
        except FileExistsError:
            continue  # taken meanwhile: try the next name
        except OSError as exc:
            raise OutputError(f"{candidate}: cannot write the backup: {exc.strerror or exc}") from None
        return candidate
    raise Refused(f"{path}: {path.name}.orig to .orig.{_BACKUPS - 1} all exist; left as it is (remove old backups)")
