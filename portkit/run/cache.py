"""Per-file results and their content-addressed cache.

A result is keyed by the SHA-256 of a file's path and bytes, under a salt made of
portkit's version, the rule database's content, the target and the analysis
options, so any change to those starts a fresh cache. Entries are checksummed
JSON (portkit/store.py): a corrupt or planted entry is a miss, never a result.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import sys
from pathlib import Path
from typing import Any, Callable, Iterable

from portkit.analyze.registry import project_analyses
from portkit.model import Finding
from portkit.packing import pack_finding, unpack_finding
from portkit.resources import rules_dir
from portkit.store import cache_root, code_fingerprint, read_entry, write_entry
from portkit.tally import Tally, tally
from portkit.walk import SourceFile

# The entries' layout (`pack_result`): 2, a file's project facts only under "facts", each analysis's own.
FORMAT = 2


@dataclasses.dataclass(frozen=True)
class FileResult:
    """What processing one file yields: what the parent needs, and nothing more.

    `lines` is None for a file that could not be read (`warning` says why). What the project-wide
    analyses need of it is in `facts`, each packed by its analysis.
    """

    file: SourceFile
    lines: int | None = None
    error_line: int | None = None
    encoding: str = "utf-8"
    warning: str = ""
    problem: str = ""
    findings: tuple[Finding, ...] = ()
    definitions: frozenset[str] = frozenset()
    declared: frozenset[str] = frozenset()
    suppressions: tuple[tuple[int, str], ...] = ()
    data: bytes | None = None  # the file's bytes, when the run keeps them; never cached
    # clang engine: the findings of the project headers a unit includes, and the files it read (path, SHA-256).
    headers: tuple[tuple[str, tuple[Finding, ...]], ...] = ()
    depends: tuple[tuple[str, str], ...] = ()
    # The findings counted (portkit/tally.py): a summary-only run keeps this instead of the findings.
    tally: Tally | None = None
    internal: frozenset[str] = frozenset()  # definitions only this file sees (static functions...)
    includes: tuple[str, ...] = ()  # the file names its #includes name: a file another includes shares its internals
    # A project's layer for HIP or another vendor (ParsedFile.vendor_layer), and what it includes only in one branch
    # of several: what tells which of its definitions of CUDA's names are no project names (run/scope.py).
    vendor_layer: str = ""
    alternative_includes: frozenset[str] = frozenset()
    include_switches: tuple[tuple[str, str], ...] = ()  # ParsedFile's: what selects a layer it includes (a note's)
    hip_switches: tuple[str, ...] = ()  # ParsedFile's: the project's own HIP switches it tests (a note's)
    # ParsedFile's: the CUDA names it defines as HIP's, and what it includes in a branch hipcc takes (run/scope.py: HipLayer)
    hip_aliases: tuple[tuple[str, bool], ...] = ()
    hip_macros: tuple[tuple[str, bool], ...] = ()
    hip_includes: frozenset[str] = frozenset()
    # Each project analysis's fact about the file (analyze/registry.py: ProjectAnalysis), keyed by its name.
    facts: dict[str, Any] = dataclasses.field(default_factory=dict)
    shape: str = ""  # parsed with errors: the tree's structure (ParsedFile.shape), for convert's second pass

    def keeping(self, wanted: Callable[[Finding], bool]) -> FileResult:
        """This result with only the findings `wanted` keeps (what the run's caller acts on)."""
        return dataclasses.replace(self, findings=tuple(filter(wanted, self.findings)),
                                   headers=tuple((path, tuple(filter(wanted, found))) for path, found in self.headers))

    def summarized(self) -> FileResult:
        """This result with its findings counted instead of kept."""
        counted = self.tally if self.tally is not None else tally(self.findings)
        return dataclasses.replace(self, findings=(), headers=(), tally=counted)


def cache_salt(rules: Any, settings: Any, prefer_roc: bool, environment: str = "", macros: str = "",
               headers: Iterable[str] = ()) -> str:
    """The part of every key that is the same for a whole run: `environment` is the clang engine's
    headers, `macros` the project macro table's fingerprint (it changes how a file parses), `headers` the
    project's files named as a CUDA header is (its own cuda.h: whether an include is CUDA's depends on them)."""
    digest = hashlib.sha256()
    digest.update(f"{FORMAT}|{code_fingerprint()}|{sys.version_info[:2]}|{settings.target}|{prefer_roc}|"
                  f"{settings.engine}|{environment}|{macros}|{rules_fingerprint(rules)}|".encode())
    digest.update("\0".join(sorted(headers)).encode("utf-8", "surrogateescape"))
    return digest.hexdigest()[:16]


def rules_fingerprint(rules: Any) -> str:
    """The rule files' contents in load order (later files override), and the bundled data beside
    them (rules/_*.yaml, rules/helpers/), not where they are: the same rules installed elsewhere
    (another CI runner) have the same fingerprint."""
    digest = hashlib.sha256()
    for source in dict.fromkeys(lib.source for lib in rules.libraries.values()):
        try:
            digest.update(hashlib.sha256(Path(source).read_bytes()).digest())
        except OSError:
            digest.update(source.encode())
    digest.update(bundled_data_digest().encode())
    return digest.hexdigest()[:16]


@functools.lru_cache(maxsize=1)
def bundled_data_digest() -> str:
    """The analysis reads these too (what HIP defines, the helpers' text): an edit is a new result."""
    directory = rules_dir()
    digest = hashlib.sha256()
    for path in sorted([*directory.glob("_*.yaml"), *directory.glob("helpers/*")]):
        digest.update(path.relative_to(directory).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def pack_result(result: FileResult) -> dict[str, Any]:
    """A result as JSON: with its findings, or (a summarized result) with its tally instead."""
    packed = {"lines": result.lines, "error_line": result.error_line, "encoding": result.encoding,
              "warning": result.warning, "problem": result.problem,
              "definitions": sorted(result.definitions), "declared": sorted(result.declared),
              "suppressions": [list(s) for s in result.suppressions], "depends": [list(d) for d in result.depends],
              "internal": sorted(result.internal), "includes": list(result.includes), "facts": _pack_facts(result.facts),
              "shape": result.shape, "vendor_layer": result.vendor_layer,
              "alternative_includes": sorted(result.alternative_includes),
              "include_switches": [list(switch) for switch in result.include_switches],
              "hip_switches": list(result.hip_switches), "hip_aliases": [list(alias) for alias in result.hip_aliases],
              "hip_macros": [list(macro) for macro in result.hip_macros],
              "hip_includes": sorted(result.hip_includes)}
    if result.tally is not None:
        return {**packed, "tally": result.tally.pack()}
    return {**packed, "findings": [pack_finding(f) for f in result.findings],
            "headers": [[path, [pack_finding(f) for f in findings]] for path, findings in result.headers]}


def unpack_result(file: SourceFile, d: dict[str, Any], fixes: bool = True) -> FileResult:
    counted = Tally.unpack(d["tally"]) if "tally" in d else None
    return FileResult(file, d["lines"], d["error_line"], d["encoding"], d["warning"], d["problem"],
                      tuple(unpack_finding(f, fixes) for f in d.get("findings", ())), frozenset(d["definitions"]),
                      frozenset(d["declared"]), tuple((line, codes) for line, codes in d["suppressions"]),
                      headers=tuple((path, tuple(unpack_finding(f) for f in findings)) for path, findings in d.get("headers", ())),
                      depends=tuple((path, digest) for path, digest in d["depends"]), tally=counted,
                      internal=frozenset(d["internal"]), includes=tuple(d["includes"]),
                      facts=_unpack_facts(d["facts"], fixes), shape=d["shape"],
                      vendor_layer=d["vendor_layer"], alternative_includes=frozenset(d["alternative_includes"]),
                      include_switches=tuple((name, macro) for name, macro in d["include_switches"]),
                      hip_switches=tuple(d["hip_switches"]),
                      hip_aliases=tuple((name, bool(held)) for name, held in d["hip_aliases"]),
                      hip_macros=tuple((name, bool(held)) for name, held in d["hip_macros"]),
                      hip_includes=frozenset(d["hip_includes"]))


def _pack_facts(facts: dict[str, Any]) -> dict[str, Any]:
    analyses = {a.name: a for a in project_analyses()}
    return {name: analyses[name].pack(fact) for name, fact in facts.items()}


def _unpack_facts(packed: dict[str, Any], fixes: bool) -> dict[str, Any]:
    """Every analysis's fact read back; a fact of an analysis that no longer exists is a miss (KeyError)."""
    analyses = {a.name: a for a in project_analyses()}
    return {name: analyses[name].unpack(fact, fixes) for name, fact in packed.items()}


def _unchanged(depends: tuple[tuple[str, str], ...]) -> bool:
    """Whether every file a result was made from still has the bytes it had."""
    for path, digest in depends:
        try:
            if hashlib.sha256(Path(path).read_bytes()).hexdigest() != digest:
                return False
        except OSError:
            return False
    return True


class ScanCache:
    """Each file's result under two entries: with its findings, and summarized (for a summary-only run).

    Picklable: worker processes store what they compute themselves."""

    def __init__(self, salt: str, root: Path | None = None):
        self.root = (root or cache_root() / "scan") / salt

    def _entry(self, digest: str, summary: bool) -> Path:
        return self.root / digest[:2] / (f"{digest}.summary.json" if summary else f"{digest}.json")

    @staticmethod
    def key(file: SourceFile, content: str | None, key: bytes = b"") -> str | None:
        """The entry name of the file whose bytes have SHA-256 `content` (None: unreadable, never cached);
        `key`: what else the result depends on (the clang engine's flags and headers)."""
        if content is None:
            return None
        # The path is part of the key: results carry it (findings, diagnostics).
        return hashlib.sha256(file.path.encode("utf-8", "surrogateescape") + b"\0" + key + b"\0"
                              + content.encode("ascii")).hexdigest()

    def has(self, digest: str | None, summary: bool = False) -> bool:
        """Whether an entry is stored (whether it holds is for `lookup` to say)."""
        return digest is not None and self._entry(digest, summary).is_file()

    def lookup(self, file: SourceFile, digest: str | None, summary: bool = False, fixes: bool = True) -> FileResult | None:
        """The cached result (summarized when `summary`; findings without their fixes unless `fixes`), or None."""
        if digest is None:
            return None
        entry = read_entry(self._entry(digest, summary))
        try:
            result = unpack_result(file, entry, fixes) if isinstance(entry, dict) else None
        except (KeyError, TypeError, ValueError, IndexError):
            result = None
        if result is None or (summary and result.tally is None) or not _unchanged(result.depends):
            return None
        return result

    def put(self, digest: str, result: FileResult) -> FileResult:
        """Store a fresh result under both entries; returns it summarized."""
        summarized = result.summarized()
        write_entry(self._entry(digest, False), pack_result(result))
        write_entry(self._entry(digest, True), pack_result(summarized))
        return summarized
