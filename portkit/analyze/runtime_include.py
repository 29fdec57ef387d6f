"""Whether a file gets the HIP runtime header where only the whole project says: a project analysis.

nvcc includes cuda_runtime.h in every .cu file by itself; hipcc includes nothing. Two decisions
need the project's include graph. A file that uses runtime names without including any CUDA header
may get them from a header that defines them for compilers without CUDA (`#else typedef void*
cudaStream_t;`): it gets the runtime header only if no such guarded definition covers them. And nvcc's include
comes first in the translation unit, so a unit may #define a short macro (`T`) before it includes a
header that uses CUDA: the runtime header added to that header would come after the macro and
expand HIP's templates with it, so such a unit gets the runtime header first too.

Each source file's fact is a `RuntimeNeeds` (collected with its analysis, cached with its result);
`runtime_for_project` decides over all of them.
"""
from __future__ import annotations

import dataclasses
import os
from typing import Any, Iterable, NamedTuple, Sequence

from portkit.analyze.include_graph import includes_both_ways, reachable, spelled_includes
from portkit.analyze.preamble import (IMPLICIT_CUDA_HEADER, RUNTIME_ADVICE, cuda_includes, host_classification, preamble_finding,
                                      runtime_reason)
from portkit.analyze.registry import Context, ProjectAnalysis, project_analysis
from portkit.analyze.rewrite import settle_prerequisites
from portkit.codes import HIP_PREAMBLE
from portkit.model import Finding, IncludeFacts, ParsedFile, Role
from portkit.packing import pack_finding, unpack_finding
from portkit.parse.vendor_layers import OTHER_VENDOR

# Translation units nvcc compiles as CUDA (a .c file is C: nvcc hands it to the host compiler).
UNIT_SUFFIXES = frozenset({".cu", ".cpp", ".cc", ".cxx"})
_UNIT_ADVICE = ("A header this unit includes uses CUDA and gets the HIP runtime header; nvcc included the runtime "
                "before the unit's first line, before any macro the unit defines.")


class RuntimeNeeds(NamedTuple):
    """What the project-wide step (`runtime_for_project`) needs of one file."""

    includes: tuple[str, ...] = ()  # what its #includes of project files spell
    inserts: bool = False  # its own preamble adds the runtime header
    names: tuple[str, ...] = ()  # the runtime names it uses without a CUDA include, when they alone ask for the header
    unit: bool = False  # a unit without a CUDA include or a preamble of its own
    candidate: Finding | None = None  # the runtime preamble it gets if the project says so
    guarded: tuple[str, ...] = ()  # CUDA names it defines in a preprocessor branch, for compilers without CUDA
    c_included: tuple[str, ...] = ()  # the file names it #includes inside an `extern "C" { }` block


# A .c file is compiled by the host compiler (nvcc hands C to it too), which, unlike hipcc, does not
# define the HIP platform the runtime header insists on (`#error "Must define exactly one of
# __HIP_PLATFORM_AMD__ or __HIP_PLATFORM_NVIDIA__"`).
HOST_C_PLATFORM = ("#if !defined(__HIP_PLATFORM_AMD__) && !defined(__HIP_PLATFORM_NVIDIA__)", "#define __HIP_PLATFORM_AMD__",
                   "#endif")


def _host_c_platform(parsed: ParsedFile) -> list[str]:
    return list(HOST_C_PLATFORM) if os.path.splitext(parsed.path)[1] == ".c" else []


def runtime_needs(parsed: ParsedFile, context: Context, findings: Sequence[Finding]) -> RuntimeNeeds:
    """One file's row for `runtime_for_project` and `_revise`, from its parse and its own findings."""
    c_included = {os.path.basename(o.text) for o in parsed.of(Role.INCLUDE) if o.facts(IncludeFacts).c_linkage}
    return _runtime_needs(parsed, context, findings)._replace(c_included=tuple(sorted(c_included)))


def _runtime_needs(parsed: ParsedFile, context: Context, findings: Sequence[Finding]) -> RuntimeNeeds:
    runtime = context.rules.hip_header(IMPLICIT_CUDA_HEADER)
    includes = spelled_includes(parsed, context)
    guarded = tuple(sorted(parsed.guarded))
    preambles = [f for f in findings if f.code == HIP_PREAMBLE]
    if parsed.vendor_layer == OTHER_VENDOR:  # only that vendor's compiler reads it
        return RuntimeNeeds(includes, guarded=guarded)
    if not runtime or any(f"<{runtime}>" in f.name.split(", ") for f in preambles):
        return RuntimeNeeds(includes, bool(runtime), guarded=guarded)
    if preambles:  # a preamble without the runtime header: the file includes CUDA headers, or has helpers only
        return RuntimeNeeds(includes, guarded=guarded)
    included = cuda_includes(parsed, context)
    reason = runtime_reason(parsed, context, runtime, included)
    unit = os.path.splitext(parsed.path)[1] in UNIT_SUFFIXES and not any(included)
    if not reason and not unit:
        return RuntimeNeeds(includes, guarded=guarded)
    # With the runtime header comes what the preamble adds beside a HIP include (analyze/preamble.py), so that
    # the first convert writes what a second would: <math.h> for host calls of isnan and the like.
    headers = [runtime, *(["math.h"] if host_classification(parsed, context) else [])]
    candidate = preamble_finding(parsed, [*_host_c_platform(parsed), *(f"#include <{h}>" for h in headers)],
                                 ", ".join(f"<{h}>" for h in headers), RUNTIME_ADVICE if reason else _UNIT_ADVICE)
    return RuntimeNeeds(includes, False, reason or (), unit, candidate, guarded)


def runtime_for_project(files: Iterable[tuple[str, RuntimeNeeds]]) -> list[Finding]:
    """The runtime header for the files that need it once the project is known: a file whose runtime names
    are not all ones it, or a header it reaches, defines in a preprocessor branch for compilers without CUDA
    (`#else typedef void* cudaStream_t;`), and a unit that reaches a header that gets the runtime header
    (nvcc's came before the unit's own macros). An #include is resolved as the compiler does first (beside
    the including file), else by the one project file whose path ends with what it spells."""
    by_path = {os.path.normpath(path): needs for path, needs in files}
    if not any(n.candidate for n in by_path.values()):
        return []
    included, includers = includes_both_ways(by_path)
    named = {path for path, n in by_path.items() if n.names and not {
        name for reached in reachable([path], included) for name in by_path[reached].guarded}.issuperset(n.names)}
    # Every file that reaches an inserting header: a walk up the include graph from those headers.
    seen = reachable([path for path, n in by_path.items() if n.inserts or path in named], includers)
    return [n.candidate for path, n in by_path.items()
            if n.candidate is not None and (path in named or n.unit and path in seen)]


def _pack(needs: RuntimeNeeds) -> dict[str, Any]:
    return {**needs._asdict(), "candidate": pack_finding(needs.candidate) if needs.candidate else None}


def _unpack(packed: dict[str, Any], fixes: bool) -> RuntimeNeeds:
    candidate = packed["candidate"]
    return RuntimeNeeds(includes=tuple(packed["includes"]), inserts=packed["inserts"], names=tuple(packed["names"]),
                        unit=packed["unit"], candidate=unpack_finding(candidate, fixes) if candidate else None,
                        guarded=tuple(packed["guarded"]), c_included=tuple(packed["c_included"]))


def _finish(files: Sequence[tuple[str, RuntimeNeeds | None]], context: Context) -> list[Finding]:
    return runtime_for_project((path, RuntimeNeeds() if needs is None else needs) for path, needs in files)


def in_cpp_block(finding: Finding, runtime: str) -> Finding:
    """The preamble of a file that another includes inside `extern "C" { }`: the runtime header is C++
    (templates need C++ linkage), so it goes in an `extern "C++"` block of its own. nvcc's implicit
    include came first in the translation unit, outside any block."""
    fix, line = finding.fix, f"#include <{runtime}>"
    if fix is None or line not in fix.text:
        return finding
    newline = "\r\n" if "\r\n" in fix.text else "\n"
    block = newline.join(["#ifdef __cplusplus", 'extern "C++" {', "#endif", line, "#ifdef __cplusplus", "}", "#endif"])
    return dataclasses.replace(finding, fix=dataclasses.replace(fix, text=fix.text.replace(line, block, 1)))


def _revise(findings: list[Finding], files: Sequence[tuple[str, RuntimeNeeds | None]], context: Context) -> list[Finding]:
    """The preambles final: the runtime include convert adds to a file another includes inside `extern "C" { }`
    (matched by file name, as includes are) goes in a C++ block of its own; then each include's prerequisite
    that its file's preamble now brings first is left out (analyze/rewrite.py)."""
    c_included = frozenset(name for _, needs in files if needs is not None for name in needs.c_included)
    runtime = context.rules.hip_header(IMPLICIT_CUDA_HEADER) if c_included else ""
    if runtime:
        findings = [in_cpp_block(f, runtime) if f.code == HIP_PREAMBLE and os.path.basename(f.path) in c_included else f
                    for f in findings]
    return settle_prerequisites(findings)


RUNTIME_INCLUDE = project_analysis(ProjectAnalysis("runtime", runtime_needs, _finish, _pack, _unpack, revise=_revise))
