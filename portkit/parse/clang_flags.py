"""The flags each translation unit is parsed with: its compile_commands.json entry, or defaults."""
from __future__ import annotations

import json
import os
import shlex
import stat
from pathlib import Path

from portkit.errors import InputError
from portkit.fileio import TooLarge, read_bytes
from portkit.settings import search_compile_database
from portkit.textutil import printable

_VALUE_FLAGS = ("-I", "-isystem", "-D", "-U", "-include")  # flags whose value may be the next word
_PASSED_FLAGS = _VALUE_FLAGS + ("-std=",)
_DATABASE_LIMIT = 512 << 20  # bytes: a compile database of a very large tree
_RESPONSE_LIMIT = 1 << 20  # bytes: a response file holds flags; -include files may be 16 times that


def find_compile_database(paths: list[str], explicit: str | None) -> Path | None:
    if explicit:
        path = Path(explicit)
        path = path / "compile_commands.json" if path.is_dir() else path
        if not path.is_file():
            raise InputError(f"{explicit}: no compile_commands.json there")
        return path
    return search_compile_database(paths)


def read_compile_database(path: Path) -> dict[str, list[str]]:
    """Per source file (resolved), the include/define flags of its compile command."""
    try:
        entries = json.loads(read_bytes(path, _DATABASE_LIMIT).decode("utf-8"))
    except TooLarge:
        raise InputError(f"{path}: larger than {_DATABASE_LIMIT >> 20} MiB; not a compile database") from None
    except (OSError, ValueError, RecursionError) as exc:
        raise InputError(f"{path}: not a compile database: {printable(getattr(exc, 'strerror', None) or exc)}") from None
    flags: dict[str, list[str]] = {}
    for entry in entries if isinstance(entries, list) else []:
        try:
            directory = Path(entry["directory"])
            words = entry.get("arguments") or shlex.split(str(entry["command"]))  # never split(None): stdin
            source = str((directory / entry["file"]).resolve())
        except (KeyError, TypeError, ValueError, AttributeError):
            continue
        if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
            continue
        flags[source] = _kept_flags(_expand_response_files(list(words)[1:], directory), directory)
    return flags


def _kept_flags(words: list[str], directory: Path) -> list[str]:
    """The flags that change what a name means (includes, defines, the language standard), paths made absolute."""
    kept: list[str] = []
    for index, word in enumerate(words):
        if word in _VALUE_FLAGS and index + 1 < len(words):
            value = words[index + 1]
            if word in ("-I", "-isystem") and not os.path.isabs(value):
                value = str(directory / value)
            if word != "-include" or _includable(directory / value):
                kept += [word, value]
        elif word.startswith("-include"):
            if word != "-include" and _includable(directory / word[len("-include"):]):
                kept.append(word)
        elif word.startswith(_PASSED_FLAGS) and word not in _VALUE_FLAGS:
            if word.startswith("-I") and not os.path.isabs(word[2:]):
                word = "-I" + str(directory / word[2:])
            kept.append(word)
    return kept


def _includable(path: Path) -> bool:
    """Whether an `-include` file from the database may reach clang: a regular file of bounded size
    (a FIFO would hang the parse, /dev/zero would exhaust memory)."""
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(found.st_mode) and found.st_size <= _RESPONSE_LIMIT * 16


def _expand_response_files(words: list[str], directory: Path) -> list[str]:
    """Inline `--options-file F` / `@F` (CMake puts nvcc's include flags there)."""
    expanded: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        name = words[index + 1] if word in ("--options-file", "-optf") and index + 1 < len(words) else (
            word[1:] if word.startswith("@") else None)
        if name is None:
            expanded.append(word)
            index += 1
            continue
        try:  # a regular file of bounded size: never a FIFO or /dev/zero from an untrusted database
            expanded += shlex.split(read_bytes(directory / name, _RESPONSE_LIMIT).decode("utf-8"))
        except (OSError, ValueError, TooLarge):
            pass
        index += 2 if word in ("--options-file", "-optf") else 1
    return expanded


def default_flags(path: str) -> list[str]:
    """Without a compile database: the file's directory and nearby include/ directories."""
    here = Path(path).resolve().parent
    dirs = [here] + [d for d in (here / "include", here.parent / "include") if d.is_dir()]
    return [f"-I{d}" for d in dirs]


def nearest_flags(database: dict[str, list[str]], path: str) -> list[str] | None:
    """The unit's entry, else the entry nearest to it (the same directory, else the closest one up): a unit
    the database lacks (FindCUDA's custom commands, a header-only build) most likely shares its neighbours' flags."""
    if path in database:
        return database[path]
    if not database:
        return None
    here = os.path.dirname(path)
    return database[max(sorted(database), key=lambda other: len(os.path.commonpath([here, os.path.dirname(other)])))]


def search_dirs(flags: list[str]) -> list[tuple[str, bool]]:
    """The directories of -I and -isystem flags, in order, each with whether it holds system headers."""
    dirs = []
    for index, word in enumerate(flags):
        if word in ("-I", "-isystem") and index + 1 < len(flags):
            dirs.append((flags[index + 1], word == "-isystem"))
        elif word.startswith("-isystem") and len(word) > len("-isystem"):
            dirs.append((word[len("-isystem"):], True))
        elif word.startswith("-I") and len(word) > 2:
            dirs.append((word[2:], False))
    return dirs
