"""Writing results: a mirrored output tree, in-place rewrites with backups, or a diff.

Every write goes through portkit/fileio.py (atomic, never over a device, a symlink
or a file that changed meanwhile) and every output directory through
portkit/outpath.py (never into or around an input, never out of the directory,
never over files portkit did not write).
"""
from __future__ import annotations

import contextlib
import dataclasses
import difflib
import os
from pathlib import Path, PurePosixPath
from typing import Iterable, TextIO

from portkit import temporaries
from portkit.errors import OutputError
from portkit.fileio import Expected
from portkit.inplace import check_rewritable, rewrite_in_place, write_backup
from portkit.journal import JOURNAL
from portkit.outpath import MANIFEST, OutputTree, is_own_record, open_directory
from portkit.textutil import printable
from portkit.walk import EXCLUDED, IGNORED, Excludes, all_files


@dataclasses.dataclass(frozen=True)
class Change:
    path: str
    original: bytes
    new: bytes

    @property
    def changed(self) -> bool:
        return self.new != self.original


@dataclasses.dataclass
class WriteLog:
    written: list[Path] = dataclasses.field(default_factory=list)
    copied: int = 0
    excluded: int = 0  # of those copied, the files the excludes kept from the scan
    failures: list[str] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)  # done, but not quite as usual (a backup's name)


def _roots(paths: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(os.path.abspath(p) for p in paths))


class Destinations:
    """Where each input file goes inside the output directory: the one place that says it.

    One directory maps onto the output directory itself, one file into it; several
    inputs keep their paths below their common parent, so two inputs with the same
    name (a/src and b/src, a/k.cu and b/k.cu) never collide.
    """

    def __init__(self, paths: Iterable[str], outdir: Path):
        roots = _roots(paths)
        if len(roots) == 1:
            self.base = roots[0] if os.path.isdir(roots[0]) else os.path.dirname(roots[0])
        else:
            self.base = os.path.commonpath([os.path.dirname(r) for r in roots])
        self.outdir = outdir

    def relative(self, file: str) -> PurePosixPath:
        """`file`'s path inside the output directory."""
        absolute = os.path.abspath(file)
        prefix = self.base if self.base.endswith(os.sep) else self.base + os.sep
        # Under the base, as nearly every file is, the path's tail (relpath splits both paths: 10x the time).
        relative = absolute[len(prefix):] if absolute.startswith(prefix) else os.path.relpath(absolute, self.base)
        if relative.startswith(os.pardir + os.sep) or relative == os.pardir:
            raise OutputError(f"{file}: not under any input path")
        return PurePosixPath(relative.replace(os.sep, "/"))  # relpath gives the platform's separators

    def of(self, file: str) -> Path:
        """Where `file` is written."""
        return self.outdir / self.relative(file)


def _mode_of(path: str) -> int | None:
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        return None


def _inputs(paths: list[str], excludes: Iterable[Excludes], log: WriteLog) -> tuple[list[str], frozenset[str]]:
    """Every file to mirror (a directory that cannot be read is logged), and those the excludes name: copied
    as they are, since the project needs them to build (third_party/); portkit's own manifest and journal
    (when an input is an earlier output) are not."""
    inputs: list[str] = []
    excluded: set[str] = set()
    for path in paths:
        if os.path.isdir(path):
            files, warnings = all_files(path, excludes)
            inputs.extend(f.path for f in files)
            excluded.update(f.path for f in files if f.file_type == EXCLUDED)
            log.failures.extend(f"{p}: {m}" for p, m, reason in warnings if reason == "unreadable")
            log.notes.extend(f"{p}: {m}" for p, m, reason in warnings if reason == "skipped")
            log.notes.extend(_left_out([(p, m) for p, m, reason in warnings if reason == IGNORED]))
        else:
            inputs.append(path)
    records = [f for f in dict.fromkeys(inputs) if os.path.basename(f) in (MANIFEST, JOURNAL)]
    # An earlier output's manifest is left behind; any other file of that name would be lost to ours.
    log.failures.extend(f"{f}: an input named {os.path.basename(f)}, where the output's records go; not copied"
                        for f in records if not is_own_record(Path(f)))
    return [f for f in dict.fromkeys(inputs) if os.path.basename(f) not in (MANIFEST, JOURNAL)], frozenset(excluded)


def _left_out(ignored: list[tuple[str, str]], shown: int = 10) -> list[str]:
    """One note per reason for the paths .gitignore rules kept out of the copy (a directory ends in a
    separator): how many, and the first few, so that a header the build needs is not lost unseen."""
    by_reason: dict[str, list[str]] = {}
    for path, reason in ignored:
        by_reason.setdefault(reason, []).append(path)
    return [f"{len(paths)} path{'s' if len(paths) != 1 else ''} not copied, {reason}: "
            f"{', '.join(paths[:shown])}{', ...' if len(paths) > shown else ''}" for reason, paths in by_reason.items()]


class TreeWriter:
    """Mirror every input into `outdir`: changed files get their new bytes, the rest are copied (excluded
    files too: they were neither scanned nor converted).

    In two steps, so that writing (the kernel's work, creating files) overlaps conversions still being
    made in worker processes: `write` every file but the `held` ones, then `finish` with the held
    files' final bytes, and the manifest. Raises OutputError, before writing anything, when `outdir`
    holds files portkit did not write (unless `force`): made before the inputs are analysed, a refusal
    costs no time. `leave_out` the files the analysis could not read (it reports them).
    """

    def __init__(self, paths: Iterable[str], outdir: Path, excludes: Iterable[Excludes], force: bool = False):
        paths = list(paths)
        self.outdir = outdir
        self.log = WriteLog()
        destinations = Destinations(paths, outdir)
        inputs, self.excluded = _inputs(paths, excludes, self.log)
        self.later = [(file, destinations.relative(file)) for file in inputs]
        self.tree = OutputTree(outdir)
        try:
            self.tree.open([relative for _, relative in self.later], force)
        except BaseException:  # a refusal, or SIGTERM once the directory is made: what this run made goes
            self.abandon()
            raise
        self.log.notes.extend(_removed(self.tree.removed))

    def leave_out(self, unreadable: Iterable[str]) -> None:
        """Neither write nor report again the files already reported unreadable."""
        reported = frozenset(unreadable)
        self.later = [(file, relative) for file, relative in self.later if file not in reported]
        self.log.failures = [f for f in self.log.failures if not any(f.startswith(path + ": ") for path in reported)]

    def write(self, changes: Iterable[Change], held: Iterable[str] = ()) -> None:
        """Write every file not yet written but the `held` ones (their changes come to `finish`)."""
        held = frozenset(os.path.abspath(h) for h in held)
        now = [(file, relative) for file, relative in self.later if os.path.abspath(file) not in held]
        self.later = [(file, relative) for file, relative in self.later if os.path.abspath(file) in held]
        new = {os.path.abspath(c.path): c.new for c in changes}
        for file, relative in now:
            converted = new.get(os.path.abspath(file))
            try:
                if converted is not None:
                    wrote = self.tree.write(relative, data=converted, mode=_mode_of(file))
                else:
                    wrote = self.tree.write(relative, source=Path(file), mode=_mode_of(file))
                    self.log.copied += 1
                    self.log.excluded += file in self.excluded
            except OutputError as exc:
                self.log.failures.append(str(exc))
                continue
            if wrote:
                self.log.written.append(self.outdir / relative)

    def abandon(self) -> None:
        """After a failure: record what was written, so that a later run may write over it; when nothing
        was, the directories this writer made are removed (a directory that was there stays as it was)."""
        with contextlib.suppress(OSError, OutputError):  # the failure being raised says more
            if self.log.written or self.log.copied:
                self.tree.save()
                return
            self.tree.discard()
            directory = Path(os.path.abspath(self.outdir))
            while self.tree.made is not None and directory.is_relative_to(self.tree.made):
                os.rmdir(directory)  # only an empty one: OSError, and the rest stays, if not
                directory = directory.parent

    def finish(self, changes: Iterable[Change] = ()) -> WriteLog:
        """Write what is left, then the manifest."""
        try:
            self.write(changes)
        except BaseException:  # SIGTERM, Ctrl-C: what was written is recorded all the same
            self.abandon()
            raise
        try:
            self.tree.save()
        except OutputError as exc:
            self.log.failures.append(str(exc))
        return self.log


def write_tree(paths: Iterable[str], outdir: Path, excludes: Iterable[Excludes], changes: Iterable[Change],
               force: bool = False, unreadable: Iterable[str] = ()) -> WriteLog:
    """TreeWriter in one step."""
    writer = TreeWriter(paths, outdir, excludes, force)
    writer.leave_out(unreadable)
    return writer.finish(changes)


def _removed(paths: Iterable[Path]) -> list[str]:
    return [f"{path}: removed, a temporary file an interrupted portkit run left" for path in paths]


class _InputDirectories:
    """The directory of each file rewritten in place, open: reached from the input directory it was walked
    in, one component at a time, never through a symlink (the walk followed none: one there now was swapped
    in since, and is refused). The last one stays open: files come in walk order."""

    def __init__(self, roots: Iterable[str]):
        self.roots = sorted((r for r in _roots(roots) if os.path.isdir(r)), key=len, reverse=True)
        self.last: tuple[str, int] | None = None

    def of(self, file: str) -> int:
        parent = os.path.dirname(os.path.abspath(file))
        if self.last is None or self.last[0] != parent:
            self.close()
            root = next((r for r in self.roots if parent == r or parent.startswith(r.rstrip(os.sep) + os.sep)), parent)
            self.last = (parent, open_directory(Path(root), PurePosixPath(os.path.relpath(parent, root)), make=False))
        return self.last[1]

    def close(self) -> None:
        if self.last is not None:
            os.close(self.last[1])
            self.last = None


def _rewrite(change: Change, backup: bool, force: bool, log: WriteLog, directory: int) -> None:
    path = Path(change.path)
    expected = Expected.of(change.original)
    check_rewritable(path, expected, force, directory)  # refuse before a backup is made
    if backup:
        saved = write_backup(path, change.original, directory)
        if saved.name != path.name + ".orig":
            log.notes.append(f"{path}: backup saved as {saved.name} ({path.name}.orig already exists)")
    rewrite_in_place(path, change.new, expected, force, directory)
    log.written.append(path)


def write_in_place(changes: Iterable[Change], backup: bool, force: bool = False, roots: Iterable[str] = ()) -> WriteLog:
    """Rewrite changed files, each after saving its original as FILE.orig (or FILE.orig.N: a
    backup is never overwritten). A file that is not what portkit read, a symlink, read-only,
    hard-linked or someone else's is left as it is and reported (the last three unless forced).
    Each is reached from the input directory (`roots`) it lies in through no symlink.
    Temporary files an interrupted run left beside them are removed first (portkit/temporaries.py)."""
    log = WriteLog()
    changes = [c for c in changes if c.changed]
    log.notes.extend(_removed(temporaries.remove_stray(Path(c.path).parent for c in changes)))
    converted = {_resolved(c.path) for c in changes if not os.path.islink(c.path)} - {None}
    directories = _InputDirectories(roots)
    try:
        for change in changes:
            if os.path.islink(change.path) and _resolved(change.path) in converted:
                continue  # a symlink to a file that is itself rewritten: the link stays, its target changes
            try:
                _rewrite(change, backup, force, log, directories.of(change.path))
            except OutputError as exc:
                log.failures.append(str(exc))
    finally:
        directories.close()
    return log


def _resolved(path: str) -> str | None:
    """The path through its symlinks; None when a component vanishes meanwhile (realpath raises then)."""
    try:
        return os.path.realpath(path)
    except OSError:
        return None


def _lines(data: bytes) -> list[str]:
    return data.decode("utf-8", "surrogateescape").splitlines(keepends=True)


def _shown(line: str) -> str:
    """A diff line with its control characters escaped (ESC, OSC, bidi overrides drive or fool a
    terminal); tabs and the line ending stay as they are."""
    body = line.rstrip("\r\n")
    return "\t".join(printable(part) for part in body.split("\t")) + line[len(body):]


def print_diff(changes: Iterable[Change], out: TextIO) -> None:
    """A unified diff of every change; file names and lines escaped like every other output."""
    for change in changes:
        if not change.changed:
            continue
        name = printable(change.path)
        for line in difflib.unified_diff(_lines(change.original), _lines(change.new), f"a/{name}", f"b/{name}"):
            text = _shown(line.encode("utf-8", "surrogateescape").decode("utf-8", "replace"))
            out.write(text if text.endswith("\n") else text + "\n\\ No newline at end of file\n")
