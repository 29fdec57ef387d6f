"""Where portkit may write: never onto, into or around an input, never out of an output tree.

One check for every command that writes, made before anything is written:

- `refuse_overlap`: an output that is, contains or lies inside an input (through
  symlinks and hard links) is refused (convert -o, shim --sources, reports, baselines).
- `open_directory`: directories of an output tree are made and opened one component
  at a time, refusing a symlink or a file on the way; files are written through the
  directory's descriptor, so nothing is made or written outside it, even when a
  component is swapped for a symlink meanwhile.
- `OutputTree`: an output directory must be empty or portkit's own. Its manifest
  (.portkit-manifest.json) records each file portkit wrote and its SHA-256, and
  while a run writes, its journal (portkit/journal.py) each file about to be placed;
  a file portkit did not write, or that changed since, is a conflict, never
  overwritten unless forced. A file that changes while the run goes on is left too.
"""
from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
from pathlib import Path, PurePosixPath
from typing import Iterable

from portkit.errors import OutputError
from portkit import temporaries
from portkit.fileio import Refused, Seen, digest, file_digest, write_tree_file
from portkit.journal import JOURNAL, Journal, read_journal
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


def refuse_missing_directory(output: Path) -> None:
    """A file output's directory is the user's to make (scan -o, report -o, shim -o, baseline -o): one line, before
    any work, rather than a tree of directories made from a mistyped path."""
    if not output.parent.is_dir():
        raise OutputError(f"{output}: cannot write: "
                          f"{'Not a directory' if output.parent.exists() else 'No such file or directory'}")


def refuse_escape(output: Path, root: Path) -> None:
    """Raise OutputError when `output`, a path portkit chose (not one the user named), leads out of
    `root` once symlinks are resolved: a committed `.portkit-baseline.json -> /etc/x` is not followed."""
    real_root = _real(root)
    if not _real(output).is_relative_to(real_root):
        raise OutputError(f"{output}: leads out of the project root {root} (a symbolic link?); "
                          "refusing to write through it (name the file with -o)")


_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def open_directory(root: Path, relative: PurePosixPath, make: bool = True) -> int:
    """`root/relative` open (a descriptor the caller closes), made (if `make`) one component at a time
    below `root`, each opened through the one above without following a symlink: a symlink, file or
    device on the way is an OutputError, and a component swapped for a symlink once opened is never
    followed (what is written goes through the descriptor). Nothing is made or written outside `root`."""
    current, path = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC), root  # root: wherever it leads
    try:
        for part in relative.parts:
            path = path / part
            try:
                below = os.open(part, _DIRECTORY, dir_fd=current)
            except FileNotFoundError:
                if not make:
                    raise
                with contextlib.suppress(FileExistsError):  # made meanwhile: opened as it is
                    os.mkdir(part, dir_fd=current)
                below = os.open(part, _DIRECTORY, dir_fd=current)
            os.close(current)
            current = below
    except OSError as exc:
        link = exc.errno in (errno.ELOOP, errno.ENOTDIR) and _is_link(path.name, current)  # ENOTDIR: O_DIRECTORY's
        os.close(current)
        if link:
            where = "the output directory" if make else "the input directory (swapped in since it was walked?)"
            raise OutputError(f"{path}: a symbolic link inside {where}; refusing to write through it") from None
        raise OutputError(f"{path}: cannot write: {exc.strerror or exc}") from None
    return current


def _is_link(name: str, directory: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=directory, follow_symlinks=False).st_mode)
    except OSError:
        return False


class OutputTree:
    """An output directory portkit writes a tree into, with its manifest and, while it writes, its journal."""

    def __init__(self, root: Path):
        self.root = root
        self.recorded: dict[str, str] = {}  # relative path (POSIX) -> SHA-256 of what portkit wrote
        self.seen: dict[str, Seen] = {}  # the planned files there were when the run began
        self.removed: list[Path] = []  # temporary files an interrupted run left, removed
        self.journal = Journal(root / JOURNAL)
        self._directory: tuple[PurePosixPath, int] | None = None  # the last one written into, open
        self.made: Path | None = None  # the outermost directory `open` made (the root, or one above it)

    def open(self, planned: Iterable[PurePosixPath], force: bool) -> None:
        """Make the directory; refuse, before anything is written, to write over files portkit did not write."""
        entries = self._make()
        journal = read_journal(self.root / JOURNAL)
        if journal is None and os.path.lexists(self.root / JOURNAL):
            raise OutputError(f"{self.root / JOURNAL}: not portkit's journal; move it or choose another directory")
        manifest = _read_manifest(self.root / MANIFEST)
        known = _known(manifest or {}, journal or [])
        planned = list(planned)
        # An empty directory has nothing to conflict with (a new tree: no look at each planned file).
        self.seen = {p.as_posix(): s for p in planned if (s := Seen.at(self.root / p)) is not None} if entries else {}
        self.recorded = _resolve(self.root, known, self.seen)
        if not force and entries and manifest is None and journal is None:
            raise OutputError(f"{self.root}: not empty, and not written by portkit (no {MANIFEST}); "
                              "choose an empty or new directory, or force")
        conflicts = [] if force else [k for k, s in self.seen.items() if s.expected.sha256 not in known.get(k, ())]
        if conflicts:
            shown = ", ".join(printable(c) for c in conflicts[:_SHOWN]) + (", ..." if len(conflicts) > _SHOWN else "")
            raise OutputError(f"{self.root}: {len(conflicts)} files exist that portkit did not write or that changed "
                              f"since ({shown}); move them, choose another directory, or force")
        if entries:
            self.removed = temporaries.remove_stray([self.root, *{self.root / p.parent for p in planned}])
        self.journal.start()

    def _make(self) -> list[str]:
        """Make the directory (noting the outermost one made); what it holds."""
        if os.path.lexists(self.root) and not os.path.isdir(self.root):
            raise OutputError(f"{self.root}: cannot write: Not a directory")
        missing = Path(os.path.abspath(self.root))
        while not os.path.lexists(missing) and missing != missing.parent:
            self.made, missing = missing, missing.parent
        try:
            self.root.mkdir(parents=True, exist_ok=True)  # the directory the user named, wherever it leads
            return os.listdir(self.root)
        except OSError as exc:
            raise OutputError(f"{self.root}: cannot write: {exc.strerror or exc}") from None

    def write(self, relative: PurePosixPath, data: bytes | None = None, source: Path | None = None,
              mode: int | None = None) -> bool:
        """Write one file of the tree (its bytes, or a copy of `source`); False when it already held them.
        A file that changed since the run began (an edit saved meanwhile) is left: Refused."""
        directory = self._open(relative.parent)
        target, key, name = self.root / relative, relative.as_posix(), relative.name
        current = file_digest(name, directory)
        if current is not None and current == _digest_of(data, source):
            self.recorded[key] = current
            return False
        seen = self.seen.get(key)
        if seen is not None and current is None and not _exists(name, directory):
            seen = None  # deleted meanwhile: written anew
        if current is not None and seen is None:
            raise Refused(f"{target}: appeared while portkit was running; left as it is")
        if current is not None and current != seen.expected.sha256:
            raise Refused(f"{target}: changed while portkit was running; left as it is, run again")
        try:
            self.recorded[key] = write_tree_file(target, data, source, mode, seen=seen, new=seen is None,
                                                 placing=lambda sha256: self.journal.record(key, sha256),
                                                 directory=directory)
        except Refused:
            if file_digest(name, directory) != _digest_of(data, source):
                raise
            self.recorded[key] = file_digest(name, directory) or ""  # another run placed the same bytes meanwhile
            return False
        return True

    def _open(self, relative: PurePosixPath) -> int:
        """A descriptor of the directory `relative`, made if need be; files come in walk order, so the
        last one is kept open (one per directory would exhaust the descriptors of a large tree)."""
        if self._directory is not None and self._directory[0] == relative:
            return self._directory[1]
        self.close()
        self._directory = (relative, open_directory(self.root, relative))
        return self._directory[1]

    def close(self) -> None:
        if self._directory is not None:
            os.close(self._directory[1])
            self._directory = None

    def save(self) -> None:
        """Record what portkit wrote, so that a later run may write here again; the journal has served."""
        self.close()
        # A signal between a file's rename and its entry here (SIGTERM, Ctrl-C) leaves only its journal line:
        # what the file holds says whether it was placed.
        placed = {path: sha256 for path, sha256 in self.journal.recorded if self.recorded.get(path) != sha256}
        self.recorded.update(_resolve(self.root, {path: [self.recorded[path], sha256] if path in self.recorded
                                                  else [sha256] for path, sha256 in placed.items()}, {}))
        data = {"tool": "portkit", "schema_version": 1, "files": dict(sorted(self.recorded.items()))}
        write_tree_file(self.root / MANIFEST, (json.dumps(data, indent=1) + "\n").encode("ascii"))
        self.journal.close(remove=True)

    def discard(self) -> None:
        """Nothing was written: the journal this run made goes (one an interrupted run left stays)."""
        self.close()
        self.journal.close(remove=self.journal.started)


def _exists(name: str, directory: int) -> bool:
    try:
        os.stat(name, dir_fd=directory, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def _digest_of(data: bytes | None, source: Path | None) -> str | None:
    return file_digest(source) if source is not None else digest(data or b"")


def _known(manifest: dict[str, str], journal: list[tuple[str, str]]) -> dict[str, list[str]]:
    """Every SHA-256 portkit wrote (or was about to write) at each path: the manifest's, then the journal's."""
    known = {path: [sha256] for path, sha256 in manifest.items()}
    for path, sha256 in journal:
        known.setdefault(path, []).append(sha256)
    return known


def _resolve(root: Path, known: dict[str, list[str]], seen: dict[str, Seen]) -> dict[str, str]:
    """What portkit wrote at each path: of the SHA-256s known, the one the file holds (when a run was cut
    short between its journal line and the rename, the older one), else the latest."""
    recorded = {}
    for path, candidates in known.items():
        now = seen[path].expected.sha256 if path in seen else file_digest(root / path) if len(candidates) > 1 else None
        recorded[path] = now if now in candidates else candidates[-1]
    return recorded


def is_own_record(path: Path) -> bool:
    """Whether `path` is a manifest or a journal portkit wrote (an earlier output used as an input)."""
    return _read_manifest(path) is not None or read_journal(path) is not None


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
