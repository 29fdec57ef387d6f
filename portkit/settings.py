"""RunSettings: what one run is asked to do, from the command line over the config file over defaults.

Every command builds its settings here, once, so scan, report, convert, shim and
check honour `[tool.portkit]` / `.portkit.toml` the same way.
"""
from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path
from typing import Iterable

from portkit.codes import BLOCKING_CHOICES, DEFAULT_BLOCKING
from portkit.config import Config, load_config
from portkit.errors import ConfigError, InputError
from portkit.resources import load_data
from portkit.rules.versions import Target, parse_version
from portkit.toolchain import installed_hip_version
from portkit.walk import DEFAULT_EXTENSIONS, DEFAULT_MAX_FILE_SIZE, Excludes

ENGINES = ("tree-sitter", "clang")


@dataclasses.dataclass(frozen=True)
class RunSettings:
    paths: tuple[str, ...]
    root: Path  # the project root: the config file's directory, else the current one
    named_paths: bool = True  # False: no paths were given, so the run covers the project root
    config_source: str = ""  # the config file read, "" for none
    extensions: tuple[str, ...] = DEFAULT_EXTENSIONS
    excludes: tuple[Excludes, ...] = ()
    rule_files: tuple[Path, ...] = ()
    target: Target = Target()
    jobs: int = 0  # 0: every core; never more than the cores there are
    cache: bool = True
    engine: str = "tree-sitter"
    compile_database: str | None = None
    blocking: tuple[str, ...] = DEFAULT_BLOCKING  # statuses, and "unbuildable"
    baseline: Path | None = None
    max_file_size: int = DEFAULT_MAX_FILE_SIZE  # bytes; larger files are skipped, never read

    def inputs(self) -> tuple[str, ...]:
        """Every path a scan reads, not only the sources: the config file, rule files and the compile
        database. An output over any of them would destroy what the run read. (`check` reads the
        baseline too, and writes nothing.)"""
        if self.compile_database:
            database: tuple[str, ...] = (self.compile_database, os.path.join(self.compile_database, "compile_commands.json"))
        else:  # the clang engine reads the database it finds in the tree as much as one it is given
            found = search_compile_database(self.paths) if self.engine == "clang" else None
            database = (str(found),) if found else ()
        read = (self.config_source, *map(str, self.rule_files), *database)
        return self.paths + tuple(p for p in read if p)


def search_compile_database(paths: Iterable[str]) -> Path | None:
    """The compile_commands.json the clang engine reads when none is named: in a scanned directory or one
    above it (or their build/), as clang's tools look, up to the repository's root."""
    for root in paths:
        for directory in _upwards(Path(root).resolve()):
            for candidate in (directory / "compile_commands.json", directory / "build" / "compile_commands.json"):
                if candidate.is_file():
                    return candidate
    return None


def _upwards(start: Path) -> list[Path]:
    """A scanned directory (a file's own) and those above it, up to the repository's root."""
    found = []
    for directory in ([start] if start.is_dir() else []) + list(start.parents):
        found.append(directory)
        if (directory / ".git").exists():
            break
    return found


_SIZE = re.compile(r"(\d{1,15})\s*([kmg]?)(?:i?b)?", re.I)
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def parse_size(text: str) -> int:
    """"16M", "512K", "1G" (binary units) or a number of bytes; ValueError otherwise."""
    match = _SIZE.fullmatch(text.strip())
    if not match or int(match.group(1)) == 0:
        raise ValueError(f"file size {text!r}: give a positive size like 16M, 512K or 1G")
    return int(match.group(1)) * _UNITS[match.group(2).lower()]


def available_cpus() -> int:
    """The cores this process may run on (its affinity mask, else the machine's)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _max_file_size(given: str | None, config: Config) -> int:
    try:
        if given is not None:
            return parse_size(given)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    try:
        return parse_size(config.max_file_size) if config.max_file_size else DEFAULT_MAX_FILE_SIZE
    except ValueError as exc:
        raise ConfigError(f"{config.source}: key 'max-file-size': {exc}") from None


def known_rocm_versions() -> dict[int, tuple[int, int]]:
    """The HIP/ROCm versions a target may name: major -> (first minor, last minor) (rules/_rocm_versions.yaml)."""
    return load_data("_rocm_versions.yaml", lambda data: {int(major): (int(minors[0]), int(minors[1]))
                                                          for major, minors in data.items()})


def is_known_rocm(version: tuple[int, ...]) -> bool:
    first, last = known_rocm_versions().get(version[0], (0, -1))
    return first <= version[1] <= last


def _rocm_version(text: str) -> tuple[int, ...]:
    """A version `known_rocm_versions` holds (any patch level); InputError naming the known ones otherwise."""
    try:
        version = parse_version(text)
    except ValueError:
        version = None
    if version is None or not is_known_rocm(version):
        names = ", ".join(f"{major}.{first}-{major}.{last}" for major, (first, last) in sorted(known_rocm_versions().items()))
        raise InputError(f"unknown ROCm version {text!r}; known: {names} (any patch level), or latest")
    return version


def make_target(rocm: str | None, cuda: str | None) -> Target:
    """A ROCm version (default: the installed HIP, else the newest; "latest": the newest) and a CUDA version."""
    try:
        cuda_version = parse_version(cuda) if cuda else None
    except ValueError as exc:
        raise InputError(f"{exc}; give a version like 12.4 or 11.8.0") from None
    if rocm is None:
        return Target(rocm=installed_hip_version(), cuda=cuda_version)
    return Target(rocm=None if rocm == "latest" else _rocm_version(rocm), cuda=cuda_version)


def _extensions(values: Iterable[str]) -> tuple[str, ...]:
    """The extensions given, each with its dot; given only empty ones (`,`), an error: no default is meant."""
    values = tuple(values)
    found = tuple(e.lower() if e.startswith(".") else "." + e.lower() for e in values if e.strip(". "))
    if values and not found:
        raise InputError(f"extensions {','.join(values)!r}: none named (give them as .cu,.cuh)")
    return found


def _statuses(values: Iterable[str]) -> tuple[str, ...]:
    values = tuple(values)
    for value in values:
        if value not in BLOCKING_CHOICES:
            raise InputError(f"blocking status {value!r}: choose from {', '.join(BLOCKING_CHOICES)}")
    return tuple(values)


def resolve_settings(paths: Iterable[str] = (), *, extensions: Iterable[str] = (), excludes: Iterable[str] = (),
                     rule_files: Iterable[Path] = (), rocm_version: str | None = None, cuda_version: str | None = None,
                     jobs: int = 0, cache: bool = True, engine: str = "tree-sitter", compile_database: str | None = None,
                     baseline: Path | None = None, max_file_size: str | None = None,
                     config: Config | None = None) -> RunSettings:
    """The settings for a run: each value given here wins over the config file, which wins over the default.

    Lists add up: the config file's excludes and rule files come first, then these.
    With no paths, the run covers the project root.
    """
    config = config if config is not None else load_config()
    if engine not in ENGINES:
        raise InputError(f"unknown engine {engine!r}; choose {' or '.join(ENGINES)}")
    if jobs < 0:
        raise InputError(f"jobs must be 0 (every core) or more, not {jobs}")
    # More workers than cores only costs memory (each holds the rules and a parse): cap them.
    jobs = min(jobs, available_cpus())
    named = tuple(paths)
    config_excludes = (Excludes(config.exclude, str(config.root)),) if config.exclude else ()
    command_line_excludes = (Excludes(tuple(excludes)),) if tuple(excludes) else ()
    return RunSettings(
        paths=named or (os.path.relpath(config.root),),
        root=config.root,
        named_paths=bool(named),
        config_source=config.source,
        extensions=_extensions(extensions) or _extensions(config.extensions) or DEFAULT_EXTENSIONS,
        excludes=config_excludes + command_line_excludes,
        rule_files=tuple(config.rules) + tuple(rule_files),
        target=make_target(rocm_version if rocm_version is not None else config.rocm_version,
                           cuda_version or config.cuda_version),
        jobs=jobs,
        cache=cache,
        engine=engine,
        compile_database=compile_database,
        blocking=config.blocking,
        baseline=baseline or config.baseline,
        max_file_size=_max_file_size(max_file_size, config),
    )


def with_blocking(settings: RunSettings, statuses: Iterable[str]) -> RunSettings:
    """The settings with the statuses that block a check, when some are given (else the config's)."""
    chosen = _statuses(statuses)
    return dataclasses.replace(settings, blocking=chosen) if chosen else settings
