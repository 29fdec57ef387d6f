"""One file's work: read, parse, analyse (`process_file`), with everything it needs in its `Job`.

A `Job` is what every file's processing needs, made once per run by the plan; a worker process
receives it once. Files held in memory (hipify-perl's output, a converted file) are analysed here too.
"""
from __future__ import annotations

import dataclasses
import functools
import json
import os
import re
from typing import Callable

from portkit.analyze import ANALYZER_NAMES, Context, Select, TextFile, analyze
from portkit.analyze.alias_scope import file_wide_aliases
from portkit.analyze.hazards import WARP_LITERALS
from portkit.analyze.namespace_aliases import own_namespace_aliases
from portkit.analyze.names import is_interesting
from portkit.analyze.registry import project_analyses
from portkit.analyze.registry import Names, arguments_read, roles_read, strings_read
from portkit.analyze.rewrite import settle_prerequisites
from portkit.model import Finding, ParsedFile, Role
from portkit.parse import MacroTable, parse_source, prepare_source
from portkit.parse.clang_merge import ClangParse
from portkit.parse.prepare import Prepared
from portkit.parse.recovery import tree_shape
from portkit.rules import RuleDatabase
from portkit.run.cache import FileResult, ScanCache
from portkit.run.engines import CLANG_UNITS, ClangJob, digests
from portkit.run.request import Wanted
from portkit.walk import DEFAULT_MAX_FILE_SIZE, SourceFile, classify, read_source


@dataclasses.dataclass(frozen=True)
class Job:
    """What every file's processing needs; a worker process receives it once."""

    context: Context  # provisional: project-wide names are applied by the parent afterwards
    known: frozenset[str]
    keep_sources: bool
    engine: str = "tree-sitter"
    clang: ClangJob | None = None
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    macros: MacroTable | None = None  # the project's #defines the parser sees through (None: each file's own)
    cache: ScanCache | None = None  # where fresh results are stored (by the process that made them)
    summary: bool = False  # results carry their findings counted, not the findings (portkit/tally.py)
    # The findings the caller acts on (convert: those it edits or marks): the others are dropped where they
    # are made, after the cache stored them, instead of being sent to the parent for nothing.
    wanted: Wanted | None = None
    # Which analyzers run (analyze.registry.Select; all by default): those that can make a finding `wanted`
    # keeps, when no cache stores every finding for a later run.
    analyzers: Select | None = None
    # The parser's optional roles those analyzers read (parse.treesitter.OPTIONAL_ROLES; None: all of them).
    roles: frozenset[Role] | None = None
    # The calls whose argument texts those analyzers read besides the rules' (None: every call's).
    argument_names: tuple[Names, ...] | None = None

    def slimmed(self, result: FileResult) -> FileResult:
        """A fresh or cached result as this run's parent needs it."""
        if self.summary:
            return result.summarized()
        return result.keeping(self.wanted) if self.wanted is not None else result

    @property
    def arguments_read(self) -> Callable[[str], bool] | None:
        """Whether the parser spells out the arguments of a call of a name: called for every kept call."""
        return None if self.argument_names is None else _argument_reader(self.context.rules, self.argument_names)

    @property
    def keep(self) -> Callable[[str], bool]:
        """Whether the parser keeps a name: called for every identifier of every file."""
        return _keep(self.known)

    def is_clang_unit(self, path: str) -> bool:
        return self.clang is not None and path.lower().endswith(CLANG_UNITS)

    def cache_key(self, file: SourceFile) -> bytes:
        """What besides its bytes a file's result depends on: with clang, a unit's flags and precompiled headers."""
        if self.clang is None or not self.is_clang_unit(file.path):
            return b""
        prefix = self.clang.prefixes.get(os.path.realpath(file.path))
        return json.dumps([self.clang.flags(file.path), list(prefix.lines) if prefix else []]).encode()


@functools.lru_cache(maxsize=2)
def _keep(known: frozenset[str]) -> Callable[[str], bool]:
    """One function per set of names, whichever job asks: the parser remembers its answers per function
    (handlers.kept_spellings), so a later pass over the same names starts with them."""
    return functools.partial(is_interesting, known=known)


@functools.lru_cache(maxsize=4)
def _argument_reader(rules: RuleDatabase, names: tuple[Names, ...]) -> Callable[[str], bool]:
    """`RuleDatabase.reads_arguments` or one of `names`, remembered per name (asked at every kept call)."""
    answers: dict[str, bool] = {}

    def reads(name: str) -> bool:
        answer = answers.get(name)
        if answer is None:
            answer = answers[name] = rules.reads_arguments(name) or any(
                n.match(name) is not None if isinstance(n, re.Pattern) else name in n for n in names)
        return answer
    return reads


def parse_bytes(path: str, data: bytes, job: Job, prepared: Prepared | None = None) -> ParsedFile:
    rules = job.context.rules
    return parse_source(path, data, keep=job.keep, literals=WARP_LITERALS, api=rules.is_api,
                        cuda_declared=rules.is_cuda_declared, hip_alias=rules.is_hip_alias, macros=job.macros,
                        prepared=prepared, hip_pointer=rules.is_hip_pointer, roles=job.roles,
                        arguments=job.arguments_read, shape=job.keep_sources or job.cache is not None,
                        strings=strings_read(job.analyzers), hip_spelling=rules.is_hip_spelling)


def _file_context(parsed: ParsedFile, job: Job) -> Context:
    """The run's context with the file's own definitions: other files' come later."""
    aliases = file_wide_aliases(parsed, job.context.rules)
    return dataclasses.replace(job.context, project_names=parsed.definitions, project_declared=parsed.declared,
                               aliases=aliases)


def _with_engine(parsed: ParsedFile, data: bytes, job: Job) -> ClangParse:
    """With clang, the unit's names resolved, and those of the project headers it includes."""
    if job.clang is None or not job.is_clang_unit(parsed.path):
        return ClangParse(parsed)
    from portkit.parse.clang_merge import with_clang_names

    return with_clang_names(parsed, data, job.clang.flags(parsed.path), job.clang.env, job.clang.project_headers,
                            functools.partial(_reparse, job), job.clang.prefixes.get(os.path.realpath(parsed.path)))


def _reparse(job: Job, path: str, data: bytes) -> ParsedFile:
    return parse_bytes(path, data, job)


def process_file(job: Job, file: SourceFile, data: bytes | None = None) -> FileResult:
    """Read (unless given the bytes), parse and analyse one file: the unit of parallel work."""
    read = read_source(file.path, job.max_file_size) if data is None else classify(data)
    if read.data is None:
        return FileResult(file, warning=read.warning, problem=read.problem)
    kept = read.data if job.keep_sources else None
    lines = read.data.count(b"\n") + (0 if read.data.endswith(b"\n") or not read.data else 1)
    if file.file_type != "source":
        text = read.data.decode(read.encoding, "replace")
        return FileResult(file, lines=text.count("\n"), encoding=read.encoding, warning=read.warning,
                          problem=read.problem, data=kept, findings=tuple(analyze(TextFile(file.path, file.file_type, text),
                                                                                  job.context, job.analyzers)))
    engine = _with_engine(parse_bytes(file.path, read.data, job), read.data, job)
    parsed = engine.unit
    context = _file_context(parsed, job)
    findings = tuple(analyze(parsed, context, job.analyzers))
    return FileResult(
        file, lines=lines, error_line=parsed.error_line, encoding=read.encoding,
        warning="; ".join(filter(None, [read.warning, engine.problem])),
        problem=read.problem or ("engine" if engine.problem else ""), data=kept,
        findings=findings,
        definitions=parsed.definitions | own_namespace_aliases(parsed, job.context), declared=parsed.declared,
        suppressions=tuple((o.position.line, o.detail) for o in parsed.of(Role.SUPPRESSION)),
        headers=tuple((h.path, tuple(analyze(h, _file_context(h, job), job.analyzers))) for h in engine.headers),
        depends=digests(engine.depends),
        internal=parsed.internal,
        includes=tuple(sorted({os.path.basename(o.text) for o in parsed.of(Role.INCLUDE)})),
        facts={analysis.name: analysis.collect(parsed, context, findings) for analysis in project_analyses()},
        shape=parsed.shape, vendor_layer=parsed.vendor_layer, alternative_includes=parsed.alternative_includes,
        include_switches=parsed.include_switches, hip_switches=parsed.hip_switches,
        hip_aliases=parsed.hip_aliases, hip_macros=parsed.hip_macros, hip_includes=parsed.hip_includes,
    )


def processed(job: Job, file: SourceFile, data: bytes | None, entry: str | None) -> FileResult:
    """A file's fresh result, stored under its cache `entry` (when given), summarized for a summary-only run.

    Storing happens here, in the worker: the parent of a summary-only run never holds a file's findings."""
    result = process_file(job, file, data)
    if job.cache is not None and entry is not None and result.problem != "engine":  # a fallback is retried, never cached
        summarized = job.cache.put(entry, result)
        return summarized if job.summary else job.slimmed(result)
    return job.slimmed(result)


def analyze_bytes(path: str, data: bytes, context: Context, macros: MacroTable | None = None) -> list[Finding]:
    """Parse and analyze one file held in memory (hipify-perl's output, a converted file).

    `macros`: the run's table (ScanResult.macros) to parse it as the run did; without it, the file's own #defines."""
    return analyze_held(held_job(context, macros), path, data)


def held_job(context: Context, macros: MacroTable | None, wanted: Wanted | None = None,
             known: frozenset[str] | None = None, analyzers: Select | None = None) -> Job:
    """A job for files held in memory; `known`: the names the parser keeps, when the caller has them already."""
    return Job(context, known if known is not None else context.rules.known_names() | ANALYZER_NAMES,
               keep_sources=False, macros=macros, wanted=wanted, analyzers=analyzers, roles=roles_read(analyzers),
               argument_names=arguments_read(analyzers))


def analyze_held(job: Job, path: str, data: bytes, prepared: Prepared | None = None) -> list[Finding]:
    """One file's findings, final: no project analysis changes a held file's preamble."""
    findings = settle_prerequisites(analyze(parse_bytes(path, data, job, prepared), job.context, job.analyzers))
    return sorted(findings if job.wanted is None else filter(job.wanted, findings), key=Finding.sort_key)


Reshaped = tuple[str, list[Finding] | None]  # a converted file's tree shape, and its findings when the shape changed


def analyze_reshaped_file(job: Job, path: str, data: bytes, shape: str) -> Reshaped:
    prepared = prepare_source(data, job.macros)
    new_shape = tree_shape(prepared.tree.root_node)
    if new_shape == shape:
        return new_shape, None
    return new_shape, analyze_held(job, path, data, prepared)
