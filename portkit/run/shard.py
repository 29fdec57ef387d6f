"""Shard documents: one CI job's part of a scan, and the parts merged back into one run.

`scan --shard I/N` walks the whole tree and builds what is project-wide from every
file (the macro table, the walked paths), then parses and analyses only the files
whose path hashes to part I of N: adding a file moves no other file to another part.
Its document holds each file's result before the project-wide step, with a
fingerprint of everything the parts must share (portkit's code, the rules, the
target, the engine, the macro table, the walked files). `merge_shards` checks that
the parts are one complete, consistent set and finishes them like one run would.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
from pathlib import Path
from typing import Any, Iterable, Sequence

from portkit import __version__
from portkit.analyze import Context
from portkit.analyze.registry import path_tails, project_files
from portkit.run.cache import FileResult, pack_result, rules_fingerprint, unpack_result
from portkit.errors import InputError
from portkit.fileio import JsonDocument, output_stream, read_json
from portkit.run.plan import Collected
from portkit.run.project import ScanResult, finish_run
from portkit.rules import Target, load_database, version_text
from portkit.settings import RunSettings
from portkit.textutil import printable
from portkit.walk import SourceFile, WalkWarning

MAX_SHARD_SIZE = 1 << 30  # bytes: a shard of a million-file tree; a larger one is not portkit's
# What a document of the right shape but wrong content raises while it is unpacked or merged.
CORRUPT = (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError, RecursionError)

FORMAT = "portkit-shard"
VERSION = 2  # 2: a file's project facts only under "facts" (run/cache.py FORMAT 2)
_SPEC = re.compile(r"(\d{1,6})/(\d{1,6})")


@dataclasses.dataclass(frozen=True)
class ShardSpec:
    index: int  # 1-based
    count: int

    def holds(self, path: str) -> bool:
        """Whether a path (as walked) falls in this part: by its hash, so no other file moves it."""
        digest = hashlib.sha256(path.encode("utf-8", "surrogateescape")).digest()
        return int.from_bytes(digest[:8], "big") % self.count == self.index - 1


def parse_spec(text: str) -> ShardSpec:
    """"I/N" with 1 <= I <= N; ValueError otherwise."""
    match = _SPEC.fullmatch(text.strip())
    if not match or not 1 <= int(match.group(1)) <= int(match.group(2)):
        raise ValueError(f"{text!r}: give I/N with 1 <= I <= N, e.g. 2/4")
    return ShardSpec(int(match.group(1)), int(match.group(2)))


@dataclasses.dataclass(frozen=True)
class Shard:
    """A shard document read back: where it came from and what it holds."""

    source: str
    spec: ShardSpec
    fingerprint: str
    target: Target
    rule_files: tuple[str, ...]
    rules: str  # the rules' fingerprint
    walked: int
    walk_warnings: tuple[WalkWarning, ...]
    results: tuple[FileResult, ...]


def _fingerprint(collected: Collected, settings: RunSettings) -> str:
    """What every part of one scan shares: the cache salt (code, rules, target, engine, macro table),
    the size limit, and which files the walk found."""
    digest = hashlib.sha256(f"{collected.salt}|{settings.max_file_size}".encode())
    for file in collected.walked:
        digest.update(f"\0{file.path}\0{file.file_type}".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()[:32]


def shard_document(collected: Collected, settings: RunSettings, spec: ShardSpec) -> dict[str, Any]:
    target = collected.context.target
    return {
        "format": FORMAT, "version": VERSION, "tool": {"name": "portkit", "version": __version__},
        "shard": {"index": spec.index, "count": spec.count},
        "fingerprint": _fingerprint(collected, settings),
        "target": {"rocm": list(target.rocm) if target.rocm else None, "cuda": list(target.cuda) if target.cuda else None},
        "rules": {"files": [str(path) for path in settings.rule_files],
                  "fingerprint": rules_fingerprint(collected.context.rules)},
        "walked": len(collected.walked),
        "walk_warnings": [list(warning) for warning in collected.walk_warnings],
        "files": [{"path": r.file.path, "type": r.file.file_type, "result": pack_result(r)} for r in collected.results],
    }


def _canonical(document: dict[str, Any]) -> str:
    # ensure_ascii: a file name that is not UTF-8 (a lone surrogate) survives the trip.
    return json.dumps(document, sort_keys=True, separators=(",", ":"))


def _checksum(document: dict[str, Any]) -> str:
    return hashlib.sha256(_canonical({k: v for k, v in document.items() if k != "checksum"}).encode()).hexdigest()


def write_shard(document: dict[str, Any], output: Path | None) -> None:
    """The document as one line of JSON, with a checksum: a truncated or edited artifact is refused."""
    with output_stream(output) as out:
        out.write(_canonical({**document, "checksum": _checksum(document)}))
        out.write("\n")


def _version(value: Any) -> tuple[int, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, int) for v in value):
        raise TypeError("target version is not a list of numbers")
    return tuple(value)


def _shard(source: str, d: dict[str, Any]) -> Shard:
    spec = ShardSpec(int(d["shard"]["index"]), int(d["shard"]["count"]))
    if not 1 <= spec.index <= spec.count:
        raise ValueError(f"shard {spec.index}/{spec.count}")
    results = tuple(unpack_result(SourceFile(str(f["path"]), str(f["type"])), f["result"]) for f in d["files"])
    strays = [r.file.path for r in results if not spec.holds(r.file.path)]
    if strays:
        raise ValueError(f"{strays[0]} is not in shard {spec.index}/{spec.count}")
    if not all(isinstance(w, list) and len(w) == 3 and all(isinstance(x, str) for x in w) for w in d["walk_warnings"]):
        raise TypeError("walk_warnings: each is a list of three strings (path, message, reason)")
    warnings = tuple((p, m, r) for p, m, r in d["walk_warnings"])
    return Shard(source, spec, str(d["fingerprint"]), Target(_version(d["target"]["rocm"]), _version(d["target"]["cuda"])),
                 tuple(str(p) for p in d["rules"]["files"]), str(d["rules"]["fingerprint"]), int(d["walked"]),
                 warnings, results)


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text} out of range")
    return value


def _no_constant(text: str) -> None:
    raise ValueError(f"{text} is not a number a shard holds")


_DOCUMENT = JsonDocument("a portkit shard document", MAX_SHARD_SIZE)


def _load(path: Path) -> Any:
    """The document's JSON: a regular file, capped, finite numbers only, not nested too deeply."""
    return read_json(path, _DOCUMENT, lambda data: json.loads(data, parse_float=_finite, parse_constant=_no_constant))


def read_shard(path: Path) -> Shard:
    """A shard document; InputError (one line) for anything else: unreadable, not JSON, corrupt."""
    data = _load(path)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError(f"{path}: not a portkit shard document (write one with scan --shard I/N)")
    if data.get("version") != VERSION:
        raise InputError(f"{path}: shard document version {data.get('version')!r}; this portkit reads version {VERSION}")
    if data.get("checksum") != _checksum(data):
        raise InputError(f"{path}: corrupt shard document (checksum mismatch: truncated or edited)")
    try:
        return _shard(str(path), data)
    except CORRUPT as exc:
        raise InputError(f"{path}: corrupt shard document ({type(exc).__name__}: {printable(exc)})") from None


def _difference(a: Shard, b: Shard) -> str:
    """What sets two parts' fingerprints apart, as far as their documents tell."""
    if a.target != b.target:
        return f"targets {_target_text(a.target)} and {_target_text(b.target)}"
    if a.rules != b.rules:
        return "other rule files"
    if a.walked != b.walked:
        return f"{a.walked} and {b.walked} files walked"
    return "other files, options, Python or portkit version"


def _target_text(target: Target) -> str:
    return f"ROCm {version_text(target.rocm) or 'latest'}" + (f", CUDA {version_text(target.cuda)}" if target.cuda else "")


def check_complete(shards: Sequence[Shard]) -> None:
    """One scan's parts, each once: the same split and fingerprint, every index, all the walked files."""
    first = shards[0]
    for shard in shards[1:]:
        if shard.spec.count != first.spec.count:
            raise InputError(f"{first.source} is shard {first.spec.index}/{first.spec.count} but {shard.source} is "
                             f"shard {shard.spec.index}/{shard.spec.count}: parts of different splits")
        if shard.fingerprint != first.fingerprint:
            raise InputError(f"{shard.source} and {first.source} come from different scans ({_difference(shard, first)}): "
                             f"fingerprints {shard.fingerprint} and {first.fingerprint}")
    seen: dict[int, str] = {}
    for shard in shards:
        if shard.spec.index in seen:
            raise InputError(f"shard {shard.spec.index}/{first.spec.count} given twice: {seen[shard.spec.index]} "
                             f"and {shard.source}")
        seen[shard.spec.index] = shard.source
    missing = [str(i) for i in range(1, first.spec.count + 1) if i not in seen]
    if missing:
        raise InputError(f"shard{'s' if len(missing) > 1 else ''} {', '.join(missing)} of {first.spec.count} missing")
    held = sum(len(shard.results) for shard in shards)
    if held != first.walked:
        raise InputError(f"the shards hold {held} files but the scan walked {first.walked}: a document is incomplete")


def merge_shards(paths: Iterable[Path], rule_files: Sequence[Path] | None = None) -> ScanResult:
    """The run the shards are parts of, finished as one: the same result an unsharded scan gives.

    `rule_files`: the user's rule files (default: those the shards recorded); they must be the shards' rules.
    """
    shards = [read_shard(path) for path in paths]
    if not shards:
        raise InputError("no shard documents given")
    check_complete(shards)
    first = shards[0]
    rules = load_database(rule_files if rule_files is not None else [Path(p) for p in first.rule_files])
    if rules_fingerprint(rules) != first.rules:
        raise InputError(f"the rule files differ from those the shards were made with ({rules_fingerprint(rules)}, "
                         f"shards: {first.rules}); give the same rule files")
    results = [r for shard in shards for r in shard.results]
    context = Context(rules=rules, target=first.target, project_paths=path_tails(r.file.path for r in results),
                      project_files=project_files(r.file.path for r in results))
    warnings = [w for shard in shards for w in shard.walk_warnings]
    try:
        return finish_run(Collected(context, results, warnings, [r.file for r in results]))
    except CORRUPT as exc:  # a checksummed document with values of the wrong type deep inside
        raise InputError(f"corrupt shard documents ({type(exc).__name__}: {printable(exc)})") from None
