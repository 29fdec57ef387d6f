"""`portkit convert`: write HIP sources and build files, and say what is left to do by hand."""
from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path
from typing import Iterable, TextIO

from portkit.commands.common import load_rules, make_target
from portkit.analyzers import Context
from portkit.convert import FileConversion, Marker, convert_source
from portkit.model import Finding
from portkit.convert_build import BuildNote, convert_cmake, convert_makefile
from portkit.errors import UsageError
from portkit.hipify import HipifyFailure, find_hipify_perl, hipify_files
from portkit.outtree import Change, destination, print_diff, refuse_own_input, write_in_place, write_tree
from portkit.scan import ScanOptions, ScanResult, analyze_source, run_scan
from portkit.verify import VerifyResult, verify_tree
from portkit.walk import DEFAULT_EXTENSIONS


@dataclasses.dataclass(frozen=True)
class ConvertRequest:
    paths: tuple[str, ...]
    output: Path | None = None
    in_place: bool = False
    backup: bool = True
    diff: bool = False
    verify: bool = False
    backend: str = "native"
    hipify_perl: str | None = None
    roc: bool = False
    launch_syntax: str = "cuda"
    markers: bool = True
    offload_arch: tuple[str, ...] = ()
    rocm_version: str | None = None
    cuda_version: str | None = None
    rules: tuple[Path, ...] = ()
    jobs: int = 0
    excludes: tuple[str, ...] = ()
    extensions: tuple[str, ...] = DEFAULT_EXTENSIONS
    cache: bool = True
    engine: str = "tree-sitter"
    compile_database: str | None = None


@dataclasses.dataclass
class Outcome:
    conversions: list[FileConversion] = dataclasses.field(default_factory=list)
    build_notes: list[tuple[str, BuildNote]] = dataclasses.field(default_factory=list)
    failures: list[str] = dataclasses.field(default_factory=list)
    copied: int = 0

    def changes(self) -> list[Change]:
        return [Change(c.path, c.original, c.converted) for c in self.conversions]


def _check_request(request: ConvertRequest) -> None:
    modes = [bool(request.output), request.in_place, request.diff]
    if sum(modes) != 1:
        raise UsageError("choose exactly one of -o OUTDIR, --in-place or --diff")
    if request.backend not in ("native", "hipify-perl"):
        raise UsageError(f"unknown backend {request.backend!r}; choose native or hipify-perl")
    if request.launch_syntax not in ("cuda", "hip"):
        raise UsageError(f"unknown launch syntax {request.launch_syntax!r}; choose cuda or hip")
    if request.verify and request.diff:
        raise UsageError("--verify compiles written files; it cannot be combined with --diff")
    for path in request.paths:
        if not os.path.exists(path):
            raise UsageError(f"{path}: no such file or directory")
    if request.output is not None:
        refuse_own_input(request.paths, request.output)


def _decode(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


_MAX_PASSES = 4


def convert_stable(path: str, data: bytes, findings: Iterable[Finding], context: Context, markers: bool,
                   broken: bool) -> FileConversion:
    """Convert, and for a file with syntax errors repeat until nothing changes.

    tree-sitter's error recovery depends on the surrounding text, so an inserted
    marker can make it recognise code it skipped before; converging keeps
    convert(convert(x)) == convert(x) even for broken files.
    """
    conversion = convert_source(path, data, findings, markers)
    passes = 1
    while broken and conversion.changed and not conversion.conflict and passes < _MAX_PASSES:
        again = convert_source(path, conversion.converted, analyze_source(path, conversion.converted, context), markers)
        if not again.changed or again.conflict:
            break
        conversion = dataclasses.replace(again, original=data, edits=conversion.edits + again.edits,
                                         markers=conversion.markers + again.markers)
        passes += 1
    return conversion


def _convert_all(request: ConvertRequest, result: ScanResult) -> Outcome:
    outcome = Outcome()
    grouped = result.findings_by_path()
    source_paths = [f.path for f in result.files if f.kind == "source"]
    hipified: dict[str, bytes | HipifyFailure] = {}
    if request.backend == "hipify-perl":
        tool = find_hipify_perl(request.hipify_perl)
        hipified = hipify_files(tool, source_paths, request.roc, request.launch_syntax == "hip", request.jobs)
    for summary in result.files:
        data = result.sources.get(summary.path)
        if data is None:
            continue
        if summary.kind == "source" and request.backend == "hipify-perl":
            output = hipified[summary.path]
            if isinstance(output, HipifyFailure):
                outcome.failures.append(str(output))
                continue
            findings = analyze_source(summary.path, output, result.context)
            converted = convert_source(summary.path, output, findings, request.markers, rename=False)
            outcome.conversions.append(dataclasses.replace(converted, original=data))
        elif summary.kind == "source":
            conversion = convert_stable(summary.path, data, grouped.get(summary.path, ()), result.context,
                                        request.markers, summary.error_line is not None)
            if conversion.conflict:
                outcome.failures.append(f"{summary.path}: not converted: {conversion.conflict}")
            outcome.conversions.append(conversion)
        elif summary.kind in ("cmake", "make"):
            convert = convert_cmake if summary.kind == "cmake" else convert_makefile
            build = convert(_decode(data), result.rules, request.offload_arch)
            outcome.build_notes.extend((summary.path, note) for note in build.notes)
            outcome.conversions.append(FileConversion(summary.path, data, _encode(build.text), 0, ()))
    return outcome


def _summary(outcome: Outcome, verified: list[VerifyResult], out: TextIO) -> None:
    changed = [c for c in outcome.conversions if c.changed]
    markers: list[Marker] = sorted(m for c in outcome.conversions for m in c.markers)
    out.write(f"portkit convert: {len(outcome.conversions)} files analysed, {len(changed)} changed, "
              f"{sum(c.edits for c in outcome.conversions)} edits, {len(markers)} markers"
              + (f", {outcome.copied} other files copied" if outcome.copied else "") + "\n")
    if markers:
        out.write("Manual work (marked in the output):\n")
        for m in markers:
            out.write(f"  {m.path}:{m.line}: {m.text}\n")
    if outcome.build_notes:
        out.write("Build files, not rewritten:\n")
        for path, note in sorted(outcome.build_notes):
            out.write(f"  {path}:{note.line}: {note.message}\n")
    if verified:
        counts = {s: sum(1 for v in verified if v.status == s) for s in ("pass", "fail", "not verifiable here")}
        out.write("hipcc: " + ", ".join(f"{n} {s}" for s, n in counts.items()) + "\n")
        for v in verified:
            out.write(f"  {v.path}: {v.status}" + (f": {v.message}" if v.message else "") + "\n")


def _verify(request: ConvertRequest, outcome: Outcome) -> list[VerifyResult]:
    if request.output is not None:
        roots = [request.output] + [request.output / Path(p).name for p in request.paths if len(request.paths) > 1]
        files = [destination(c.path, [Path(p).resolve() for p in request.paths], request.output)
                 for c in outcome.conversions]
    else:
        roots = [Path(p) for p in request.paths if os.path.isdir(p)]
        files = [Path(c.path) for c in outcome.conversions]
    include_dirs = tuple(d for r in roots for d in (r, r / "include", r / "src") if d.is_dir())
    arch = request.offload_arch[0] if request.offload_arch else "gfx90a"
    return verify_tree(files, include_dirs, arch, request.jobs)


def convert(request: ConvertRequest) -> int:
    _check_request(request)
    database = load_rules(list(request.rules))
    target = make_target(request.rocm_version, request.cuda_version)
    options = ScanOptions(paths=request.paths, extensions=request.extensions, excludes=request.excludes,
                          jobs=request.jobs, keep_sources=True, prefer_roc=request.roc,
                          launch_syntax=request.launch_syntax, cache=request.cache, progress=True,
                          engine=request.engine, compile_database=request.compile_database)
    result = run_scan(options, database, target)
    outcome = _convert_all(request, result)
    if request.diff:
        print_diff(outcome.changes(), sys.stdout)
    elif request.in_place:
        log = write_in_place(outcome.changes(), request.backup)
        outcome.failures.extend(log.failures)
    else:
        assert request.output is not None
        log = write_tree(request.paths, request.output, request.excludes, outcome.changes())
        outcome.failures.extend(log.failures)
        outcome.copied = log.copied
    verified = _verify(request, outcome) if request.verify else []
    report = sys.stderr if request.diff else sys.stdout
    _summary(outcome, verified, report)
    for failure in outcome.failures:
        print(f"portkit: error: {failure}", file=sys.stderr)
    if outcome.failures:
        return 2
    return 1 if any(v.status == "fail" for v in verified) else 0
