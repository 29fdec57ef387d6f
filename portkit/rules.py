"""Load and validate the rule database (rules/*.yaml) and answer questions about names.

A rule file describes one CUDA library: its HIP/ROC counterparts and one entry per
CUDA name (function, type, enum, macro, header, link library, device intrinsic,
inline-asm pattern). See rules/README.md for the schema.
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
import pickle
import re
import tempfile
from pathlib import Path
from typing import Any, Iterable

import yaml

from portkit import __version__
from portkit.errors import RuleError
from portkit.resources import rules_dir

KINDS = ("function", "type", "enum", "macro", "header", "link", "intrinsic", "asm")
STATUSES = ("supported", "partial", "unsupported", "removed")
# What a status means once a target version is applied: "unavailable" is a name
# HIP has, but not in the targeted ROCm release.
EFFECTIVE_STATUSES = STATUSES + ("unavailable",)
# Effort in person-hours per distinct name, by status; a rule file may override.
DEFAULT_WEIGHTS = {"supported": 0.05, "partial": 2.0, "unsupported": 8.0, "removed": 4.0, "unavailable": 1.0}

_LIBRARY_KEYS = {"library", "title", "hip_library", "roc_library", "weights", "entries"}
_ENTRY_KEYS = {
    "cuda", "kind", "hip", "roc", "status", "note", "action", "weight", "pattern",
    "cmake", "hip_cmake", "cuda_added", "cuda_deprecated", "cuda_removed",
    "hip_added", "hip_deprecated", "hip_removed", "hip_experimental", "fallback", "fallback_drop_args", "roc_added",
    "hip_requires",
}
_VERSION_KEYS = ("cuda_added", "cuda_deprecated", "cuda_removed", "hip_added", "hip_deprecated", "hip_removed", "roc_added")
_VERSION_RE = re.compile(r"^\d+(\.\d+){0,2}$")

Version = tuple[int, ...]


def parse_version(text: str) -> Version:
    if not _VERSION_RE.match(text):
        raise ValueError(f"not a version: {text!r}")
    parts = tuple(int(p) for p in text.split("."))
    return parts + (0,) * (3 - len(parts))


@dataclasses.dataclass(frozen=True)
class Target:
    """The versions a run is aimed at; None means "any", i.e. the newest."""

    rocm: Version | None = None
    cuda: Version | None = None


@dataclasses.dataclass(frozen=True)
class Resolution:
    """What a name becomes under a target: its status, the spelling to write, and advice.

    `drop_args` is how many leading call arguments the spelling no longer takes
    (the mask of a `_sync` warp intrinsic on HIP before 6.2).
    """

    status: str
    hip: str
    advice: str
    drop_args: int = 0


@dataclasses.dataclass(frozen=True)
class Rule:
    cuda: str
    kind: str
    library: str
    status: str
    hip: str = ""
    roc: str = ""
    note: str = ""
    action: str = ""
    weight: float = 0.0
    pattern: str = ""
    cmake: str = ""
    hip_cmake: str = ""
    cuda_added: str = ""
    cuda_deprecated: str = ""
    cuda_removed: str = ""
    hip_added: str = ""
    hip_deprecated: str = ""
    hip_removed: str = ""
    hip_experimental: bool = False
    fallback: str = ""
    fallback_drop_args: int = 0
    roc_added: str = ""
    hip_requires: str = ""  # for headers: a HIP header that must be included first
    source: str = ""

    def roc_available(self, target: Target) -> bool:
        return bool(self.roc) and not (target.rocm and self.roc_added and target.rocm < parse_version(self.roc_added))

    def resolve(self, target: Target) -> Resolution:
        """The status, HIP spelling and advice for this name under `target`."""
        status, advice = self.status, self.action or self.note
        if target.cuda and self.cuda_removed and target.cuda >= parse_version(self.cuda_removed):
            return Resolution("removed", self.hip, f"removed in CUDA {self.cuda_removed}. {advice}".strip())
        if status in ("supported", "partial") and target.rocm:
            if self.hip_added and target.rocm < parse_version(self.hip_added):
                if self.fallback:
                    n = self.fallback_drop_args
                    dropped = "" if not n else " and drops the first argument" if n == 1 else f" and drops the first {n} arguments"
                    return Resolution(
                        "unavailable", self.fallback,
                        f"{self.hip} needs HIP {self.hip_added}: for the targeted HIP, convert writes {self.fallback}{dropped}. "
                        f"{advice}".strip(),
                        n,
                    )
                return Resolution(
                    "unavailable", "",
                    f"{self.hip} needs HIP {self.hip_added} or newer; upgrade ROCm or rewrite. {advice}".strip(),
                )
            if self.hip_removed and target.rocm >= parse_version(self.hip_removed):
                return Resolution("unavailable", self.hip, f"{self.hip} was removed in HIP {self.hip_removed}. {advice}".strip())
        if status == "supported" and self.hip_experimental:
            return Resolution("partial", self.hip, f"{self.hip} is experimental in HIP. {advice}".strip())
        return Resolution(status, self.hip, advice)


@dataclasses.dataclass(frozen=True)
class Library:
    id: str
    title: str
    hip_library: str
    roc_library: str
    weights: dict[str, float]
    source: str


class RuleDatabase:
    """All rules, indexed by CUDA name, header path and link name."""

    def __init__(self, libraries: Iterable[Library], rules: Iterable[Rule]):
        self.libraries = {lib.id: lib for lib in libraries}
        self.by_name: dict[str, Rule] = {}
        self.headers: dict[str, Rule] = {}
        self.links: dict[str, Rule] = {}
        self.asm_patterns: list[tuple[re.Pattern[str], Rule]] = []
        for rule in rules:
            self._add(rule)

    def _add(self, rule: Rule) -> None:
        if rule.kind == "header":
            self.headers[rule.cuda] = rule
        elif rule.kind == "link":
            self.links[rule.cuda] = rule
            if rule.cmake:
                self.links[rule.cmake] = rule
        elif rule.kind == "asm":
            self.asm_patterns.append((re.compile(rule.pattern), rule))
        else:
            self.by_name[rule.cuda] = rule

    def __len__(self) -> int:
        return len(self.by_name) + len(self.headers) + len({id(r) for r in self.links.values()}) + len(self.asm_patterns)

    def all_rules(self) -> list[Rule]:
        seen: dict[int, Rule] = {}
        for group in (self.by_name.values(), self.headers.values(), self.links.values(), (r for _, r in self.asm_patterns)):
            for rule in group:
                seen.setdefault(id(rule), rule)
        return sorted(seen.values(), key=lambda r: (r.library, r.kind, r.cuda))

    def lookup(self, name: str) -> Rule | None:
        return self.by_name.get(name)

    def header(self, path: str) -> Rule | None:
        return self.headers.get(path) or self.headers.get(path.rsplit("/", 1)[-1])

    def link(self, name: str) -> Rule | None:
        return self.links.get(name)

    def lookup_qualified(self, name: str) -> tuple[Rule | None, str]:
        """The rule for the longest known prefix of `a::b::c<T>` (template arguments ignored)."""
        plain = name
        while "<" in plain:
            stripped = re.sub(r"<[^<>]*>", "", plain)
            if stripped == plain:
                break
            plain = stripped
        parts = plain.split("::")
        for end in range(len(parts), 0, -1):
            prefix = "::".join(parts[:end])
            rule = self.by_name.get(prefix)
            if rule is not None:
                return rule, prefix
        return None, ""

    def known_names(self) -> frozenset[str]:
        """Every name worth keeping while parsing: rule names and the last part of qualified ones."""
        names = set(self.by_name)
        names.update(n.rsplit("::", 1)[-1] for n in self.by_name if "::" in n)
        return frozenset(names)

    def find(self, name: str) -> Rule | None:
        """Any rule called `name`: a CUDA name, a header, a link library or an asm family."""
        found = self.lookup(name) or self.headers.get(name) or self.links.get(name)
        return found or next((r for _, r in self.asm_patterns if r.cuda == name), None)

    def match_asm(self, template: str) -> Rule | None:
        for pattern, rule in self.asm_patterns:
            if pattern.search(template):
                return rule
        return None

    def weight(self, rule: Rule, status: str) -> float:
        if rule.weight:
            return rule.weight
        lib = self.libraries.get(rule.library)
        weights = lib.weights if lib else DEFAULT_WEIGHTS
        return weights.get(status, DEFAULT_WEIGHTS.get(status, DEFAULT_WEIGHTS["unsupported"]))


_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _fail(source: str, where: str, message: str) -> RuleError:
    return RuleError(f"{source}: {where}: {message}" if where else f"{source}: {message}")


def _read_yaml(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RuleError(f"{path}: cannot read rule file: {exc}") from None
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - a safe loader, data only
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise RuleError(f"{path}: {where}invalid YAML: {problem}") from None


def _entry(source: str, library: str, index: int, raw: Any) -> Rule:
    where = f"entry {index + 1}"
    if not isinstance(raw, dict):
        raise _fail(source, where, "must be a mapping")
    if isinstance(raw.get("cuda"), str):
        where += f" ({raw['cuda']})"
    unknown = sorted(set(raw) - _ENTRY_KEYS)
    if unknown:
        raise _fail(source, where, f"unknown key {unknown[0]!r}")
    for key in ("cuda", "kind"):
        if not isinstance(raw.get(key), str) or not raw[key]:
            raise _fail(source, where, f"key {key!r}: required, a non-empty string")
    if raw["kind"] not in KINDS:
        raise _fail(source, where, f"key 'kind': {raw['kind']!r} is not one of {', '.join(KINDS)}")
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key == "weight":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise _fail(source, where, "key 'weight': must be a non-negative number")
            values[key] = float(value)
        elif key == "fallback_drop_args":
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise _fail(source, where, "key 'fallback_drop_args': must be a non-negative integer")
            values[key] = value
        elif key == "hip_experimental":
            if not isinstance(value, bool):
                raise _fail(source, where, "key 'hip_experimental': must be true or false")
            values[key] = value
        elif value is None:
            continue
        elif not isinstance(value, str):
            raise _fail(source, where, f"key {key!r}: must be a string")
        else:
            values[key] = value
    for key in _VERSION_KEYS:
        if key in values and not _VERSION_RE.match(values[key]):
            raise _fail(source, where, f"key {key!r}: {values[key]!r} is not a version like 6.2 or 6.2.0")
    if "status" not in values:
        if values.get("cuda_removed"):
            values["status"] = "removed"
        else:
            values["status"] = "supported" if values.get("hip") or values.get("roc") else "unsupported"
    elif values["status"] not in STATUSES:
        raise _fail(source, where, f"key 'status': {values['status']!r} is not one of {', '.join(STATUSES)}")
    if values["status"] == "supported" and not (values.get("hip") or values.get("roc")):
        raise _fail(source, where, "status 'supported' needs a 'hip' or 'roc' name")
    if values["kind"] == "asm":
        if not values.get("pattern"):
            raise _fail(source, where, "kind 'asm' needs a 'pattern'")
        try:
            re.compile(values["pattern"])
        except re.error as exc:
            raise _fail(source, where, f"key 'pattern': not a regular expression: {exc}") from None
    return Rule(library=library, source=source, **values)


def parse_library(source: str, data: Any) -> tuple[Library, list[Rule]]:
    """Validate one rule file's contents; the error names file, entry and key."""
    if not isinstance(data, dict):
        raise _fail(source, "", "a rule file must be a mapping with 'library' and 'entries'")
    unknown = sorted(set(data) - _LIBRARY_KEYS)
    if unknown:
        raise _fail(source, "", f"unknown top-level key {unknown[0]!r}")
    library = data.get("library")
    if not isinstance(library, str) or not re.match(r"^[a-z0-9][a-z0-9-]*$", library):
        raise _fail(source, "", "key 'library': required, lowercase letters, digits and '-'")
    entries = data.get("entries")
    if not isinstance(entries, list):
        raise _fail(source, "", "key 'entries': required, a list")
    weights = data.get("weights") or {}
    if not isinstance(weights, dict) or any(k not in EFFECTIVE_STATUSES or not isinstance(v, (int, float)) for k, v in weights.items()):
        raise _fail(source, "", f"key 'weights': a mapping from {', '.join(STATUSES)} to numbers")
    rules = [_entry(source, library, i, raw) for i, raw in enumerate(entries)]
    seen: set[tuple[str, str]] = set()
    for rule in rules:
        key = (rule.kind if rule.kind in ("header", "link", "asm") else "name", rule.cuda)
        if key in seen:
            raise _fail(source, f"entry {rule.cuda}", "defined twice in this file")
        seen.add(key)
    lib = Library(
        id=library,
        title=str(data.get("title") or library),
        hip_library=str(data.get("hip_library") or ""),
        roc_library=str(data.get("roc_library") or ""),
        weights={**DEFAULT_WEIGHTS, **{k: float(v) for k, v in weights.items()}},
        source=source,
    )
    return lib, rules


def load_file(path: Path) -> tuple[Library, list[Rule]]:
    return parse_library(str(path), _read_yaml(path))


def rule_files(directory: Path) -> list[Path]:
    """The rule files of a directory; names starting with "_" hold other data."""
    return sorted(p for p in directory.glob("*.yaml") if p.is_file() and not p.name.startswith("_"))


def load_database(extra: Iterable[Path] = (), builtin: bool = True, cache: bool = True) -> RuleDatabase:
    """The built-in rules, then each user file or directory in `extra`, which may override.

    Validated databases are cached by the content of their files (YAML parsing is
    most of a small run's start-up); a stale or corrupt cache entry is rebuilt.
    """
    paths = rule_files(rules_dir()) if builtin else []
    for path in extra:
        if path.is_dir():
            paths.extend(rule_files(path))
        elif path.is_file():
            paths.append(path)
        else:
            raise RuleError(f"{path}: no such rule file or directory")
    digest = hashlib.sha256(__version__.encode())
    for path in paths:
        try:
            digest.update(str(path).encode() + b"\0" + path.read_bytes())
        except OSError as exc:
            raise RuleError(f"{path}: cannot read rule file: {exc.strerror or exc}") from None
    entry = _cache_root() / f"rules-{digest.hexdigest()[:24]}.pickle" if cache else None
    if entry is not None:
        try:
            with open(entry, "rb") as handle:
                return pickle.load(handle)  # noqa: S301 - the user's own cache directory
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError, ValueError):
            pass
    libraries: list[Library] = []
    rules: list[Rule] = []
    for path in paths:
        lib, lib_rules = load_file(path)
        libraries.append(lib)
        rules.extend(lib_rules)
    database = RuleDatabase(libraries, rules)
    if entry is not None:
        _store(entry, database)
    return database


def _cache_root() -> Path:
    if os.environ.get("PORTKIT_CACHE_DIR"):
        return Path(os.environ["PORTKIT_CACHE_DIR"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "portkit"


def _store(entry: Path, database: RuleDatabase) -> None:
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=entry.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as handle:
            pickle.dump(database, handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, entry)
    except OSError:
        pass  # an unwritable cache only costs time
