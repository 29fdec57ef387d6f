"""Writing results: a mirrored output tree, in-place rewrites with backups, or a diff.

Every write is atomic (temporary file + rename). Nothing is written into an
input tree unless in place was asked for, and no write leaves the output
directory, even through a symlink already inside it.
"""
from __future__ import annotations

import dataclasses
import difflib
import os
from pathlib import Path
from typing import Iterable, TextIO

from portkit.errors import OutputError
from portkit.fileio import atomic_write_bytes
from portkit.walk import Excludes, all_files


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
    failures: list[str] = dataclasses.field(default_factory=list)


def refuse_own_input(paths: Iterable[str], outdir: Path) -> None:
    out = outdir.resolve()
    for path in paths:
        root = Path(path).resolve()
        if out == root or (root.is_dir() and out.is_relative_to(root)):
            raise OutputError(f"refusing to write into the input {path}: choose an output directory outside it, or convert in place")


def destination(file: str, roots: list[Path], outdir: Path) -> Path:
    """Where an input file goes in OUTDIR: one directory maps onto OUTDIR itself."""
    path = Path(file).resolve()
    for root in roots:
        if path == root:
            return outdir / root.name
        if root.is_dir() and path.is_relative_to(root):
            relative = path.relative_to(root)
            return outdir / relative if len(roots) == 1 else outdir / root.name / relative
    raise OutputError(f"{file}: not under any input path")


def _mode_of(path: str) -> int | None:
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        return None


def write_file(path: Path, data: bytes, log: WriteLog, outdir: Path | None = None, mode: int | None = None) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if outdir is not None and not path.parent.resolve().is_relative_to(outdir.resolve()):
            log.failures.append(f"{path}: refusing to write outside {outdir} (a symlink leads out)")
            return
        if path.exists() and path.read_bytes() == data:
            return
        atomic_write_bytes(path, data, mode)
        log.written.append(path)
    except OSError as exc:
        log.failures.append(f"{path}: cannot write: {exc.strerror or exc}")


def write_tree(paths: Iterable[str], outdir: Path, excludes: Iterable[Excludes], changes: Iterable[Change]) -> WriteLog:
    """Mirror every input into `outdir`: changed files get their new bytes, the rest are copied."""
    paths = list(paths)
    log = WriteLog()
    roots = [Path(p).resolve() for p in paths]
    new = {str(Path(c.path).resolve()): c.new for c in changes}
    inputs: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            files, warnings = all_files(path, excludes)
            inputs.extend(f.path for f in files)
            log.failures.extend(f"{p}: {m}" for p, m in warnings)
        else:
            inputs.append(path)
    for file in inputs:
        resolved = str(Path(file).resolve())
        target = destination(file, roots, outdir)
        if str(target.resolve()) in new and str(target.resolve()) != resolved:
            log.failures.append(f"{target}: would overwrite an input file; skipped")
            continue
        if resolved in new:
            write_file(target, new[resolved], log, outdir, _mode_of(file))
            continue
        try:
            data = Path(file).read_bytes()
        except OSError as exc:
            log.failures.append(f"{file}: cannot read: {exc.strerror or exc}")
            continue
        write_file(target, data, log, outdir, _mode_of(file))
        log.copied += 1
    return log


def write_in_place(changes: Iterable[Change], backup: bool) -> WriteLog:
    """Rewrite changed files; FILE.orig keeps the first original (never overwritten)."""
    log = WriteLog()
    for change in changes:
        if not change.changed:
            continue
        path = Path(change.path)
        try:
            current = path.read_bytes()
        except OSError as exc:
            log.failures.append(f"{path}: cannot read: {exc.strerror or exc}")
            continue
        if current != change.original:  # edited while portkit ran: never clobber the newer bytes
            log.failures.append(f"{path}: changed while portkit was running; left as it is, run again")
            continue
        if backup:
            saved = path.with_name(path.name + ".orig")
            if not saved.exists():
                write_file(saved, change.original, log, mode=_mode_of(change.path))
        write_file(path, change.new, log)
    return log


def _lines(data: bytes) -> list[str]:
    return data.decode("utf-8", "surrogateescape").splitlines(keepends=True)


def print_diff(changes: Iterable[Change], out: TextIO) -> None:
    for change in changes:
        if not change.changed:
            continue
        for line in difflib.unified_diff(_lines(change.original), _lines(change.new), f"a/{change.path}", f"b/{change.path}"):
            text = line.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            out.write(text if text.endswith("\n") else text + "\n\\ No newline at end of file\n")
