"""What a file needs before its first line of code under hipcc: the HIP runtime header, feature
macros, and portkit's helpers.

nvcc includes cuda_runtime.h in every .cu file by itself; hipcc includes nothing.
Some HIP names also need a macro defined before the first HIP header (rules'
`hip_define`): the rounding-mode intrinsics, the _sync warp builtins on ROCm 6.2-6.4.
A CUDA name whose HIP spelling is one of portkit's helpers (rules/_helpers.yaml) needs the
helper's block, which brings its own headers.

nvcc's include comes first in the translation unit, so a unit may #define a short macro
(`T`) before it includes a header that uses CUDA: the runtime header portkit adds to that
header would come after the macro and expand HIP's templates with it. Such a unit gets the
runtime header first too (`runtime_first_in_units`, over the project's include graph).
"""
from __future__ import annotations

import dataclasses
import os
from pathlib import PurePath
from typing import AbstractSet, Iterable, NamedTuple

from portkit.analyze.findings import simple_finding
from portkit.analyze.names import in_role
from portkit.analyze.registry import Context, analyzer
from portkit.codes import HIP_PREAMBLE
from portkit.model import Finding, Fix, FixAction, Occurrence, ParsedFile, Position, Role, Span
from portkit.rules.helpers import HELPER_PREFIX, Helper, helper_providing

# What nvcc includes by itself; the rules say what it becomes (hip/hip_runtime.h).
IMPLICIT_CUDA_HEADER = "cuda_runtime.h"
# Libraries whose names come with the CUDA runtime that nvcc includes by itself.
RUNTIME_LIBRARIES = frozenset({"cuda-runtime", "cuda-driver", "cuda-device", "cooperative-groups", "cucomplex"})
_NAME_ROLES = (Role.CALL, Role.TYPE, Role.IDENTIFIER, Role.MACRO_BODY)
# Translation units nvcc compiles as CUDA (a .c file is C: nvcc hands it to the host compiler).
UNIT_SUFFIXES = frozenset({".cu", ".cpp", ".cc", ".cxx"})


def _needs_runtime(parsed: ParsedFile, context: Context, runtime: str) -> bool:
    """A file that uses CUDA's language extensions, or runtime names without including any CUDA
    header (CUDA's library headers all bring the runtime API): under nvcc they came with the
    implicit cuda_runtime.h (a .cu file, or a .cpp built as CUDA)."""
    # The project's own cuda.h is no CUDA header: convert leaves it, so it brings no runtime.
    included = [context.rules.hip_header(o.text) for o in parsed.occurrences
                if o.role is Role.INCLUDE and not context.project_header(o.text)]
    if runtime in included:
        return False
    if parsed.device_syntax:
        return True
    device = parsed.device_functions
    return not any(included) and any(_runtime_name(o, parsed, context, device) for o in parsed.occurrences)


def _runtime_name(occurrence: Occurrence, parsed: ParsedFile, context: Context, device: AbstractSet[str]) -> bool:
    if occurrence.role not in _NAME_ROLES or occurrence.text in context.project_names:
        return False
    rule = context.rules.lookup(occurrence.text)
    return rule is not None and rule.library in RUNTIME_LIBRARIES and in_role(rule, occurrence, parsed, device)


def _defines_and_helpers(parsed: ParsedFile, context: Context) -> tuple[list[str], list[Helper]]:
    """The macros the file's CUDA names need on the target, not yet defined, and the helpers their HIP
    spellings are, not yet there: each in first-use order, from one look-up per name."""
    defines: dict[str, None] = {}
    helpers: dict[str, Helper] = {}
    language = "c" if PurePath(parsed.path).suffix == ".c" else "c++"
    for occurrence in parsed.occurrences:
        rule = context.rules.lookup(occurrence.text) if occurrence.role in _NAME_ROLES else None
        if rule is None:
            continue
        if rule.hip_define and rule.resolve(context.target).hip == rule.hip:  # not when an older fallback is written
            define = rule.define_for(context.target)
            if define and define not in parsed.definitions:
                defines[define] = None
        if not (rule.hip.startswith(HELPER_PREFIX) or rule.fallback.startswith(HELPER_PREFIX)) \
                or occurrence.text in context.project_names:
            continue  # most names: no helper can be their spelling
        helper = helper_providing(rule.resolve(context.target).hip)
        if helper is None or helper.guard in parsed.definitions or not helper.fits(language):
            continue
        if in_role(rule, occurrence, parsed, parsed.device_functions):
            helpers.setdefault(helper.name, helper)
    return list(defines), list(helpers.values())


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


def _preamble_finding(parsed: ParsedFile, lines: list[str], needed: str, advice: str) -> Finding:
    """An insertion of `lines` where the file's code starts."""
    text = "".join(line + parsed.newline for line in lines)
    span = Span(parsed.preamble_end, parsed.preamble_end)
    where = Occurrence(span, Role.INCLUDE, needed, Position(parsed.preamble_line, 1))
    finding = simple_finding(parsed.path, where, HIP_PREAMBLE, f"hipcc needs {needed} before the code", advice)
    return dataclasses.replace(finding, fix=Fix(FixAction.INSERT, span, text))


@analyzer("source")
def analyze_preamble(parsed: ParsedFile, context: Context) -> Iterable[Finding]:
    defines, helpers = _defines_and_helpers(parsed, context)
    runtime = context.rules.hip_header(IMPLICIT_CUDA_HEADER)
    headers = [runtime] if runtime and _needs_runtime(parsed, context, runtime) else []
    if not defines and not headers and not helpers:
        return
    lines = [f"#define {d}" for d in defines] + [f"#include <{h}>" for h in headers]
    lines += [h.text.rstrip("\n").replace("\n", parsed.newline) for h in helpers]
    needed = ", ".join(defines + [f"<{h}>" for h in headers] + [f"portkit's {h.name} helper" for h in helpers])
    yield _preamble_finding(parsed, lines, needed, "nvcc includes the CUDA runtime by itself; hipcc does not.")


def inserts_runtime(findings: Iterable[Finding], context: Context) -> bool:
    """Whether the file's preamble adds the HIP runtime header."""
    needed = f"<{context.rules.hip_header(IMPLICIT_CUDA_HEADER)}>"
    return any(f.code == HIP_PREAMBLE and needed in f.name.split(", ") for f in findings)


def runtime_candidate(parsed: ParsedFile, context: Context, findings: Iterable[Finding]) -> Finding | None:
    """The runtime header a unit gets first if a project header it includes gets one (`runtime_first_in_units`):
    only a unit with no preamble of its own that includes no CUDA header itself."""
    runtime = context.rules.hip_header(IMPLICIT_CUDA_HEADER)
    if not runtime or PurePath(parsed.path).suffix not in UNIT_SUFFIXES or any(f.code == HIP_PREAMBLE for f in findings):
        return None
    if any(context.rules.hip_header(o.text) for o in parsed.occurrences
           if o.role is Role.INCLUDE and not context.project_header(o.text)):
        return None
    return _preamble_finding(parsed, [f"#include <{runtime}>"], f"<{runtime}>",
                             "A header this unit includes uses CUDA and gets the HIP runtime header; nvcc included "
                             "the runtime before the unit's first line, before any macro the unit defines.")


class UnitIncludes(NamedTuple):
    """What `runtime_first_in_units` needs of one file."""

    path: str
    includes: tuple[str, ...]  # what its #includes of project files spell
    inserts_runtime: bool
    candidate: Finding | None


def runtime_first_in_units(files: Iterable[UnitIncludes]) -> list[Finding]:
    """The candidates of the units that reach, through the project's #includes, a header whose runtime
    header portkit adds. An #include is resolved as the compiler does first (beside the including file),
    else by the one project file whose path ends with what it spells."""
    files = list(files)
    if not any(f.inserts_runtime for f in files) or not any(f.candidate for f in files):
        return []
    by_path = {os.path.normpath(f.path): f for f in files}
    by_tail: dict[str, list[str]] = {}
    for path in by_path:
        parts = path.replace(os.sep, "/").split("/")
        for i in range(len(parts)):
            by_tail.setdefault("/".join(parts[i:]), []).append(path)

    includers: dict[str, set[str]] = {}
    for file in files:
        for spelled in file.includes:
            beside = os.path.normpath(os.path.join(os.path.dirname(file.path), spelled))
            tails = by_tail.get(spelled.replace("\\", "/").lstrip("./"), [])
            header = beside if beside in by_path else tails[0] if len(tails) == 1 else None
            if header is not None:
                includers.setdefault(header, set()).add(os.path.normpath(file.path))
    # Every file that reaches an inserting header: a walk up the include graph from those headers.
    reach = [path for path, f in by_path.items() if f.inserts_runtime]
    seen = set(reach)
    while reach:
        for path in includers.get(reach.pop(), ()):
            if path not in seen:
                seen.add(path)
                reach.append(path)
    return [f.candidate for path, f in by_path.items() if f.candidate is not None and path in seen]
