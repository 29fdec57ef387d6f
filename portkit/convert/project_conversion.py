"""Convert a project: run the project, convert every source and build file, write, verify.

The command-line layer (portkit/cli/convert.py) parses options and prints the
outcome; everything that decides what is written lives here and below.
"""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Iterable

from portkit.analyze.cmake_language import included_module
from portkit.convert.build_files import convert_makefile
from portkit.convert.build_text import BuildNote
from portkit.convert.cmake_files import convert_cmake
from portkit.convert.edits import EditOptions
from portkit.convert.hipify import HipifyFailure, find_hipify_perl, hipify_files
from portkit.convert.hipify_sites import hipify_sites
from portkit.convert.make_includes import includes_hip_platform
from portkit.convert.markers import Marker
from portkit.convert.output import Change, Destinations, TreeWriter, WriteLog, write_in_place
from portkit.convert.encodings import in_file_encoding
from portkit.convert.sources import FileConversion, SourceToConvert, acting, convert_all, convert_source
from portkit.convert.hipcc_check import VerifyResult, is_unit, terminal_progress, verify_tree
from portkit.convert.verify_includes import ConvertedRoot, verify_flags
from portkit.errors import InputError, PortkitError
from portkit.model import Backend, Finding, LaunchSyntax
from portkit.outpath import refuse_overlap
from portkit.rules.build_facts import build_facts
from portkit.rules.versions import version_text
from portkit.run.file import analyze_bytes
from portkit.run.project import ScanResult, run_project
from portkit.run.request import RunRequest
from portkit.run.workers import Workers
from portkit.settings import RunSettings
from portkit.textutil import printable
from portkit.walk import CONFIGURED_MAKEFILES, CONVERTED_BUILD_TYPES, LINK_OUT, SHELL_TYPES


# Once a run whose converted CMake uses CMake's HIP language, which some installs cannot configure (docs/convert.md).
CMAKE_HIP_LANGUAGE_NOTE = ("the converted CMake files use CMake's HIP language (CMake 3.21 or newer, and a HIP install "
                           "CMake's HIP support finds; Debian 12's CMake 3.25 with HIP 5.2 is not one): where configuring "
                           "fails, convert with --cmake-hipcc and configure with -DCMAKE_CXX_COMPILER=hipcc")


@dataclasses.dataclass(frozen=True)
class ConvertOptions:
    """How to convert and where the result goes: exactly one of `output`, `in_place` and `diff`."""

    output: Path | None = None
    in_place: bool = False
    diff: bool = False
    backup: bool = True
    verify: bool = False
    backend: Backend = Backend.NATIVE
    hipify_perl: str | None = None
    roc: bool = False
    launch_syntax: LaunchSyntax = LaunchSyntax.CUDA
    markers: bool = True
    hazard_markers: bool = True  # with `markers`: one at each hazard's line too
    offload_arch: tuple[str, ...] = ()
    cmake_hipcc: bool = False  # CMake: hipcc as the C++ compiler instead of the HIP language
    verify_flags: tuple[str, ...] = ()  # hipcc flags --verify adds (-I, -D, -std)
    force: bool = False  # write into a directory portkit does not own; rewrite read-only or hard-linked files


@dataclasses.dataclass
class ConvertOutcome:
    conversions: list[FileConversion] = dataclasses.field(default_factory=list)
    build_notes: list[tuple[str, BuildNote]] = dataclasses.field(default_factory=list)
    build_edits: int = 0  # of the conversions' edits, the build files' lines rewritten or added (markers aside)
    failures: list[str] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)
    verified: list[VerifyResult] = dataclasses.field(default_factory=list)
    unverified: str = ""  # why --verify compiled nothing (hipcc rejected the flags given for it): one of the failures
    skipped: list[tuple[str, int]] = dataclasses.field(default_factory=list)  # (path, line): an edit left out
    copied: int = 0
    excluded: int = 0  # of the files copied, those the excludes kept from the scan
    scan: ScanResult | None = None  # what the conversion acted on

    def changes(self) -> list[Change]:
        return [c.change() for c in self.conversions]

    def markers(self) -> list[Marker]:
        return sorted(m for c in self.conversions for m in c.markers)


def _check(settings: RunSettings, options: ConvertOptions) -> None:
    facts = build_facts()
    for arch in options.offload_arch:  # written into build files: a GPU hipcc knows, never shell or CMake syntax
        if not facts.is_offload_arch(arch, settings.target):
            version = f"HIP {version_text(settings.target.rocm)}" if settings.target.rocm else "the newest HIP"
            raise InputError(f"--offload-arch {printable(arch)!s}: not an AMD GPU {version} knows; known: "
                             f"{', '.join(facts.known_offload_targets(settings.target))} "
                             f"(a target ID may add {' or '.join(f':{f}+/-' for f in facts.offload_features)})")
    for path in settings.paths:
        if not os.path.exists(path):
            raise InputError(f"{path}: no such file or directory")
    if options.output is not None:
        refuse_overlap(options.output, settings.inputs(), directory=True)


def _decode(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def _hipify_conversion(path: str, data: bytes, output: bytes, findings: Iterable[Finding], result: ScanResult,
                       options: ConvertOptions, edit_options: EditOptions) -> FileConversion:
    """hipify-perl did the rewrite; portkit adds its markers to hipify-perl's output: the original's (`findings`),
    where their lines went (a name hipify-perl renamed is no CUDA name there to find), and what an analysis of the
    output finds there besides (what hipify-perl left or wrote), each once. Markers give the original's lines."""
    sites = hipify_sites(data, output, findings)
    left = analyze_bytes(path, output, result.context, result.macros)
    converted = convert_source(path, output, [*sites.findings, *left], result.context, edit_options, options.markers,
                               rename=False)
    markers = tuple(dataclasses.replace(m, line=sites.line_in_original(m.line)) for m in converted.markers)
    return dataclasses.replace(converted, original=data, markers=markers)


def _convert_all(settings: RunSettings, options: ConvertOptions, result: ScanResult,
                 writer: TreeWriter | None = None, workers: Workers | None = None) -> ConvertOutcome:
    """Every file's conversion; `writer` starts writing those that are final while the last ones are made;
    `workers`: the scan's worker processes, for the files parsed again."""
    outcome = ConvertOutcome()
    grouped = result.findings_by_path()
    edit_options = EditOptions(launch_syntax=options.launch_syntax, hazard_markers=options.hazard_markers)
    hipified: dict[str, bytes | HipifyFailure] = {}
    if options.backend is Backend.HIPIFY_PERL:
        tool = find_hipify_perl(options.hipify_perl)
        hipified = hipify_files(tool, [f.path for f in result.files if f.file_type == "source"], options.roc,
                                options.launch_syntax is LaunchSyntax.HIP, settings.jobs)
    native: list[SourceToConvert] = []
    slots: list[int] = []  # where each native conversion goes among the others: file order is kept
    for summary in result.files:
        data = result.sources.get(summary.path)
        if data is None:
            continue
        if summary.file_type == "source" and options.backend is Backend.HIPIFY_PERL:
            output = hipified[summary.path]
            if isinstance(output, HipifyFailure):
                outcome.failures.append(str(output))
                continue
            outcome.conversions.append(_hipify_conversion(summary.path, data, output, grouped.get(summary.path, ()),
                                                          result, options, edit_options))
        elif summary.file_type == "source":
            native.append(SourceToConvert(summary.path, data, tuple(grouped.get(summary.path, ())), summary.shape))
            slots.append(len(outcome.conversions) + len(slots))
        elif summary.file_type in CONVERTED_BUILD_TYPES:
            if summary.file_type == "cmake":
                build = convert_cmake(_decode(data), result.rules, options.offload_arch, result.target, options.cmake_hipcc,
                                      included_module(summary.path))
                if build.edits and not options.cmake_hipcc and CMAKE_HIP_LANGUAGE_NOTE not in outcome.notes:
                    outcome.notes.append(CMAKE_HIP_LANGUAGE_NOTE)
            else:
                included_platform = (summary.file_type == "make"
                                     and includes_hip_platform(summary.path, _decode(data), result.sources))
                build = convert_makefile(_decode(data), result.rules, options.offload_arch,
                                         summary.file_type in SHELL_TYPES, result.target, summary.file_type,
                                         os.path.basename(summary.path) in CONFIGURED_MAKEFILES, included_platform)
            outcome.build_notes.extend((summary.path, note) for note in build.notes)
            outcome.build_edits += build.edits
            outcome.conversions.append(FileConversion(summary.path, data, _encode(build.text), build.edits, ()))

    converted: dict[int, FileConversion] = {}
    encodings = {summary.path: summary.encoding for summary in result.files}
    for batch in convert_all(native, result.context, edit_options, options.markers, result.macros, settings.jobs,
                             workers):
        converted.update((i, in_file_encoding(c, encodings.get(c.path, ""))) for i, c in batch.done)
        if writer is not None and batch.pending:  # the others are written while the last ones are converted
            writer.write([c.change() for c in outcome.conversions + list(converted.values())], batch.pending)
    for slot, index in zip(slots, range(len(native))):
        conversion = converted[index]
        outcome.skipped.extend((conversion.path, line) for line in conversion.skipped)
        outcome.conversions.insert(slot, conversion)
    return outcome


def _verify(settings: RunSettings, options: ConvertOptions, outcome: ConvertOutcome, progress: bool) -> list[VerifyResult]:
    units = [c.path for c in outcome.conversions if is_unit(c.path, c.changed)]
    inputs = [p for p in settings.paths if os.path.isdir(p)]
    if options.output is not None:
        destinations = Destinations(settings.paths, options.output)
        converted = [ConvertedRoot(Path(p), destinations.of(p)) for p in inputs]
        files = [destinations.of(path) for path in units]
    else:
        converted = [ConvertedRoot(Path(p), Path(p)) for p in inputs]
        files = [Path(path) for path in units]
    include_dirs = tuple(d for r in converted for d in (r.converted, r.converted / "include", r.converted / "src")
                         if d.is_dir())
    flags = verify_flags(options.verify_flags, converted)
    outcome.notes.extend(flags.notes)
    arch = options.offload_arch[0] if options.offload_arch else "gfx90a"
    return verify_tree(files, include_dirs, arch, settings.jobs, flags.flags,
                       progress=terminal_progress if progress else None)


def convert_project(settings: RunSettings, options: ConvertOptions, progress: bool = False) -> ConvertOutcome:
    """Convert what `settings` covers; write the result unless a diff was asked for (the caller prints it)."""
    _check(settings, options)
    writer = None
    try:
        if options.output is not None and not options.in_place:  # refused now, not after the analysis
            writer = TreeWriter(settings.paths, options.output, settings.excludes, options.force)
        with Workers() as workers:  # the scan's processes parse the converted files again
            wanted, select = acting(options.hazard_markers)
            request = RunRequest(keep_sources=True, prefer_roc=options.roc, progress=progress, wanted=wanted,
                                 analyzers=select)
            result = run_project(settings, request, workers=workers)
            if writer is not None:
                writer.leave_out(result.unreadable())
            outcome = _convert_all(settings, options, result, writer, workers)
    except BaseException:
        if writer is not None:
            writer.abandon()
        raise
    outcome.failures.extend(result.unread())
    if writer is None:  # an output tree notes them as it mirrors the inputs
        outcome.notes.extend(f"{d.path}: {d.message}" for d in result.diagnostics if d.message == LINK_OUT)
    outcome.scan = result
    log = WriteLog()
    if options.in_place:
        log = write_in_place(outcome.changes(), options.backup, options.force, settings.paths)
    elif writer is not None:
        log = writer.finish(outcome.changes())
    outcome.failures.extend(log.failures)
    outcome.notes.extend(log.notes)
    outcome.copied, outcome.excluded = log.copied, log.excluded
    if options.verify and not options.diff:
        try:
            outcome.verified = _verify(settings, options, outcome, progress)
        except PortkitError as exc:  # hipcc refused its flags, or is missing: what was written is still summed up
            outcome.unverified = str(exc)
            outcome.failures.append(str(exc))
    return outcome
