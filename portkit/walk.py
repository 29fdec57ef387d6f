"""Find the files to look at and read their bytes. Never parses.

Directories are walked in sorted order, without following symlinked
directories (no loops), skipping what `.gitignore` files and `--exclude`
patterns exclude. Files named on the command line are always taken.
"""
from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path
from typing import Callable, Iterable

import pathspec

from portkit.errors import InputError

DEFAULT_EXTENSIONS = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hh", ".inl")
CMAKE_NAMES = ("CMakeLists.txt",)
CMAKE_SUFFIXES = (".cmake",)
MAKE_NAMES = ("Makefile", "makefile", "GNUmakefile")
MAKE_SUFFIXES = (".mk",)
_SKIP_DIRS = {".git", ".hg", ".svn"}
_REQUIREMENTS = re.compile(r"^((requirements|constraints)[\w.-]*\.(txt|in)|environment\.ya?ml|pyproject\.toml|setup\.cfg|Pipfile)$")
_BINARY_PROBE = 8192


@dataclasses.dataclass(frozen=True, order=True)
class SourceFile:
    """A file to analyse: `path` as shown to the user, `kind` says which analysis."""

    path: str
    kind: str  # "source", "cmake" or "make"


def file_kind(name: str, extensions: tuple[str, ...]) -> str | None:
    """"source", "cmake", "make", "docker", "script", "python", "requirements", or None."""
    if name in CMAKE_NAMES or name.endswith(CMAKE_SUFFIXES):
        return "cmake"
    if name in MAKE_NAMES or name.endswith(MAKE_SUFFIXES):
        return "make"
    if os.path.splitext(name)[1].lower() in extensions:
        return "source"
    if name in ("Dockerfile", "Containerfile") or name.startswith("Dockerfile.") or name.endswith(".Dockerfile"):
        return "docker"
    if _REQUIREMENTS.match(name):
        return "requirements"
    if name.endswith(".py"):
        return "python"
    if name.endswith(".sh"):
        return "script"
    return None


def _ignore_spec(directory: str) -> pathspec.PathSpec | None:
    path = os.path.join(directory, ".gitignore")
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return pathspec.GitIgnoreSpec.from_lines(handle)
    except OSError:
        return None


def _ignored(path: str, is_dir: bool, specs: list[tuple[str, pathspec.PathSpec]]) -> bool:
    for base, spec in specs:
        rel = os.path.relpath(path, base).replace(os.sep, "/")
        if spec.match_file(rel + "/" if is_dir else rel):
            return True
    return False


def _walk_directory(root: str, classify: Callable[[str], str | None], exclude: pathspec.PathSpec | None,
                    warnings: list[tuple[str, str]]) -> Iterable[SourceFile]:
    specs_by_dir: dict[str, list[tuple[str, pathspec.PathSpec]]] = {}

    def on_error(error: OSError) -> None:
        warnings.append((error.filename or root, f"cannot read directory: {error.strerror}"))

    for directory, dirnames, filenames in os.walk(root, onerror=on_error):
        spec = _ignore_spec(directory)
        gitignores = specs_by_dir.get(os.path.dirname(directory), []) + ([(directory, spec)] if spec else [])
        specs_by_dir[directory] = gitignores
        specs = gitignores + ([(root, exclude)] if exclude is not None else [])
        kept = []
        for name in sorted(dirnames):
            full = os.path.join(directory, name)
            if name in _SKIP_DIRS or os.path.islink(full) or _ignored(full, True, specs):
                continue  # symlinked directories are never followed: no loops, no escapes
            kept.append(name)
        dirnames[:] = kept
        for name in sorted(filenames):
            kind = classify(name)
            full = os.path.join(directory, name)
            if not kind or _ignored(full, False, specs):
                continue
            if not os.path.isfile(full):  # FIFOs, sockets, devices would block or mislead a read
                if os.path.islink(full) and not os.path.exists(full):
                    warnings.append((os.path.normpath(full), "broken symbolic link skipped"))
                continue
            yield SourceFile(os.path.normpath(full), kind)


def discover(paths: Iterable[str], extensions: tuple[str, ...] = DEFAULT_EXTENSIONS,
             excludes: Iterable[str] = ()) -> tuple[list[SourceFile], list[tuple[str, str]]]:
    """The files under `paths`, and (path, message) warnings for what could not be read."""
    exclude_patterns = list(excludes)
    exclude = pathspec.GitIgnoreSpec.from_lines(exclude_patterns) if exclude_patterns else None
    extensions = tuple(e.lower() if e.startswith(".") else "." + e.lower() for e in extensions)
    files: dict[str, SourceFile] = {}
    warnings: list[tuple[str, str]] = []
    for raw in paths:
        if os.path.isdir(raw):
            for found in _walk_directory(raw, lambda name: file_kind(name, extensions), exclude, warnings):
                files.setdefault(found.path, found)
        elif os.path.isfile(raw):
            path = os.path.normpath(raw)
            files.setdefault(path, SourceFile(path, file_kind(os.path.basename(raw), extensions) or "source"))
        elif os.path.lexists(raw):
            raise InputError(f"{raw}: not a regular file or directory")
        else:
            raise InputError(f"{raw}: no such file or directory")
    return sorted(files.values()), warnings


def all_files(root: str, excludes: Iterable[str] = ()) -> tuple[list[SourceFile], list[tuple[str, str]]]:
    """Every file under `root` that .gitignore and `excludes` keep, for mirroring a tree."""
    patterns = list(excludes)
    exclude = pathspec.GitIgnoreSpec.from_lines(patterns) if patterns else None
    warnings: list[tuple[str, str]] = []
    files = list(_walk_directory(root, lambda name: "other", exclude, warnings))
    return files, warnings


@dataclasses.dataclass(frozen=True)
class ReadResult:
    data: bytes | None
    warning: str = ""
    encoding: str = "utf-8"
    problem: str = ""  # "", "unreadable", "skipped" (binary) or "encoding"


def read_source(path: str) -> ReadResult:
    """The file's bytes, or None with the reason it is skipped."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        return ReadResult(None, f"cannot read file: {exc.strerror or exc}", problem="unreadable")
    return classify(data)


def classify(data: bytes) -> ReadResult:
    """Binary files are skipped; text that is not UTF-8 is read as Latin-1, with a warning."""
    if b"\0" in data[:_BINARY_PROBE]:
        return ReadResult(None, "binary file skipped", problem="skipped")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return ReadResult(data, f"not valid UTF-8 (byte {exc.start}); read as Latin-1", "latin-1", "encoding")
    return ReadResult(data)
