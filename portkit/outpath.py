"""Where portkit may write: never onto, into or around an input, never out of an output tree.

One check for every command that writes, made before anything is written:

- `refuse_overlap`: an output that is, contains or lies inside an input (through
  symlinks and hard links) is refused (convert -o, shim --sources, reports, baselines).
- `make_directory`: directories of an output tree are made one component at a
  time, refusing a symlink or a file on the way, so nothing is made outside it.
- `OutputTree`: an output directory must be empty or portkit's own. Its manifest
  (.portkit-manifest.json) records each file portkit wrote and its SHA-256; a file
  portkit did not write, or that changed since, is a conflict, never overwritten
  unless forced.
"""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path, PurePosixPath
from typing import Iterable

from portkit.errors import OutputError
from portkit.fileio import digest, file_digest, write_tree_file
from portkit.textutil import printable

MANIFEST = ".portkit-manifest.json"
_MANIFEST_LIMIT = 64 << 20
_SHOWN = 3  # conflicts named in the message


def _real(path: str | Path) -> Path:
    return Path(os.path.realpath(path))


def refuse_overlap(output: Path, inputs: Iterable[str | Path], directory: bool) -> None:
    """Raise OutputError when `output` is an input, lies inside an input directory (for an
    output directory), or contains an input; symlinks are resolved and hard links compared."""
    out = _real(output)
    if not directory:
        _refuse_same_file(output, out, inputs)
        return
    for raw in inputs:
        source = _real(raw)
        if out == source:
            raise OutputError(f"{output}: is the input {raw}; refusing to overwrite it")
        if out.is_relative_to(source):
            raise OutputError(f"{output}: lies inside the input {raw}; choose an output directory outside it")
        if source.is_relative_to(out):
            raise OutputError(f"{output}: contains the input {raw}; choose an output directory that does not")


def _refuse_same_file(output: Path, out: Path, inputs: Iterable[str | Path]) -> None:
    """An output file must not be any input. Compared by device and inode, one stat an input: resolving
    every one of a scan's thousands of read paths took 0.4 s of a 1M-line scan. An input that cannot be
    stat'ed, or a file that is not regular (no hard links to compare), is compared by its resolved path."""
    try:
        found = os.stat(out)
        target: tuple[int, int] | None = (found.st_dev, found.st_ino)
        regular = stat.S_ISREG(found.st_mode)
    except OSError:
        target, regular = None, False  # not there: only a path that resolves to it can be it
    for raw in inputs:
        try:
            source = os.stat(raw)
        except OSError:
            same = out == _real(raw)
        else:
            same = (source.st_dev, source.st_ino) == target and (regular or out == _real(raw))
        if same:
            raise OutputError(f"{output}: is the input {raw}; refusing to overwrite it")


def refuse_escape(output: Path, root: Path) -> None:
    """Raise OutputError when `output`, a path portkit chose (not one the user named), leads out of
    `root` once symlinks are resolved: a committed `.portkit-baseline.json -> /etc/x` is not followed."""
    real_root = _real(root)
    if not _real(output).is_relative_to(real_root):
        raise OutputError(f"{output}: leads out of the project root {root} (a symbolic link?); "
                          "refusing to write through it (name the file with -o)")


def make_directory(root: Path, relative: PurePosixPath) -> Path:
    """`root/relative`, made one component at a time below `root`; a symlink, file or
    device on the way is an OutputError (nothing is made outside `root`)."""
    current = root
    for part in relative.parts:
        current = current / part
        try:
            found = os.lstat(current)
        except FileNotFoundError:
            try:
                os.mkdir(current)
            except FileExistsError:
                found = os.lstat(current)  # made meanwhile: look at what it is
            except OSError as exc:
                raise OutputError(f"{current}: cannot write: {exc.strerror or exc}") from None
            else:
                continue
        if stat.S_ISLNK(found.st_mode):
            raise OutputError(f"{current}: a symbolic link inside the output directory; refusing to write through it")
        if not stat.S_ISDIR(found.st_mode):
            raise OutputError(f"{current}: cannot write: Not a directory")
    return current


class OutputTree:
    """An output directory portkit writes a tree into, with its manifest."""

    def __init__(self, root: Path):
        self.root = root
        self.recorded: dict[str, str] = {}  # relative path (POSIX) -> SHA-256 of what portkit wrote
        self._directories: dict[PurePosixPath, Path] = {}  # made or checked in this run: once per directory
        self.made: Path | None = None  # the outermost directory `open` made (the root, or one above it)

    def open(self, planned: Iterable[PurePosixPath], force: bool) -> None:
        """Make the directory; refuse, before anything is written, to write over files portkit did not write."""
        if os.path.lexists(self.root) and not os.path.isdir(self.root):
            raise OutputError(f"{self.root}: cannot write: Not a directory")
        missing = Path(os.path.abspath(self.root))
        while not os.path.lexists(missing) and missing != missing.parent:
            self.made, missing = missing, missing.parent
        try:
            self.root.mkdir(parents=True, exist_ok=True)  # the directory the user named, wherever it leads
            entries = os.listdir(self.root)
        except OSError as exc:
            raise OutputError(f"{self.root}: cannot write: {exc.strerror or exc}") from None
        manifest = _read_manifest(self.root / MANIFEST)
        self.recorded = manifest or {}
        if force:
            return
        if entries and manifest is None:
            raise OutputError(f"{self.root}: not empty, and not written by portkit (no {MANIFEST}); "
                              "choose an empty or new directory, or force")
        # An empty directory has nothing to conflict with (a new tree: no look at each planned file).
        conflicts = [p.as_posix() for p in planned if self._conflict(p)] if entries else []
        if conflicts:
            shown = ", ".join(printable(c) for c in conflicts[:_SHOWN]) + (", ..." if len(conflicts) > _SHOWN else "")
            raise OutputError(f"{self.root}: {len(conflicts)} files exist that portkit did not write or that changed "
                              f"since ({shown}); move them, choose another directory, or force")

    def _conflict(self, relative: PurePosixPath) -> bool:
        path = self.root / relative
        if not os.path.lexists(path):
            return False
        recorded = self.recorded.get(relative.as_posix())
        return recorded is None or file_digest(path) != recorded

    def write(self, relative: PurePosixPath, data: bytes | None = None, source: Path | None = None,
              mode: int | None = None) -> bool:
        """Write one file of the tree (its bytes, or a copy of `source`); False when it already held them."""
        directory = self._directories.get(relative.parent)
        if directory is None:
            directory = self._directories[relative.parent] = make_directory(self.root, relative.parent)
        target = directory / relative.name
        current = file_digest(target)
        if current is not None and current == (file_digest(source) if source is not None else digest(data or b"")):
            self.recorded[relative.as_posix()] = current
            return False
        write_tree_file(target, data, source, mode)
        # The bytes written are known; a copy is read back (streamed, it was never held).
        self.recorded[relative.as_posix()] = (file_digest(target) or "") if source is not None else digest(data or b"")
        return True

    def save(self) -> None:
        """Record what portkit wrote, so that a later run may write here again."""
        data = {"tool": "portkit", "schema_version": 1, "files": dict(sorted(self.recorded.items()))}
        write_tree_file(self.root / MANIFEST, (json.dumps(data, indent=1) + "\n").encode("ascii"))


def is_manifest(path: Path) -> bool:
    """Whether `path` is a manifest portkit wrote (an earlier output used as an input)."""
    return _read_manifest(path) is not None


def _read_manifest(path: Path) -> dict[str, str] | None:
    """The files a manifest records, or None when there is none (or it is not portkit's)."""
    try:
        if os.path.islink(path) or not os.path.isfile(path) or os.path.getsize(path) > _MANIFEST_LIMIT:
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    files = data.get("files") if isinstance(data, dict) and data.get("tool") == "portkit" else None
    if not isinstance(files, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
        return None
    return files
