"""The shim header's content: exactly the CUDA names a project uses, mapped for HIP.

The header holds what HIP itself ships (the runtime, device functions, cooperative groups,
half types...). A library HIP does not ship (MIOpen, hipBLAS, rocWMMA, hipCUB...) gets a
part of its own for each of its CUDA headers the project includes (portkit_gpu_cudnn.h for
cudnn.h): a source includes it where, and under the condition where, it included the CUDA
header, so a library stays exactly as optional as it was, and its names are mapped only there.

Two styles. "cuda": sources keep CUDA names; under hipcc the header maps them to
HIP. "neutral": sources are rewritten to vendor-neutral names (gpuMalloc,
gpuStream_t) that the header maps to CUDA or HIP. Either way the sources include
the header instead of the CUDA headers, and names with no HIP equivalent are
listed with their advice while the CUDA build keeps working.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Iterable

from portkit.analyze.preamble import IMPLICIT_CUDA_HEADER
from portkit.analyze.runtime_include import HOST_C_PLATFORM
from portkit.codes import COORDINATE_ARGUMENT, HIP_PREAMBLE, RENAMED_STATUSES
from portkit.analyze.rewrite import const_cast_of, is_c_file
from portkit.convert.edits import EditOptions, call_argument_edits, chevron_edits, edits_for
from portkit.model import Cast, Edit, Finding, Fix, FixAction, Span
from portkit.parse.hipcc_branch import same_platform_macro
from portkit.rules import Rule, RuleDatabase, Target, hip_version_number, parse_version
from portkit.rules.snippets import Helper, all_helpers, helper_named, helper_providing

STYLES = ("cuda", "neutral")


# A name whose HIP spelling depends on its argument count is dispatched on counts up to this.
MAX_DISPATCHED_ARGUMENTS = 12
# When the header takes HIP's side: hipcc, or a host compiler in a HIP build, which must name the HIP platform
# (hip_runtime.h's #error otherwise): gcc compiles a project's .c files, and nvcc defines neither macro.
HIP_SIDE = "defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__) || defined(__HIP_PLATFORM_NVIDIA__)"
# What a #define can rename: one identifier (not `wmma::fragment`, not a member `cudaDeviceProp::x`).
_MACRO_NAME = re.compile(r"[A-Za-z_]\w*")
_NOT_WORD = re.compile(r"\W")
_INCLUDE_START = re.compile(rb"[ \t]*#[ \t]*include[ \t]*")
# A feature macro a preamble defines before HIP's headers (rules' hip_define), for HIP only.
_DEFINE = re.compile(r"[ \t]*#[ \t]*define\b")
# A directive that starts, switches or ends a conditional group: an include after it may be seen where one above is not.
_CONDITIONAL = re.compile(rb"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b", re.MULTILINE)
# Names HIP added before ROCm 5.0 (HIP 1.x to 4.x, long out of support) are not listed as needing a newer HIP.
_LISTED_FROM = (5, 0, 0)
_UNMAPPED = ("a macro renames every identifier of its name, not one qualified name or member, so the shim "
             "leaves it: convert rewrites it, or write the HIP spelling under #if defined(__HIPCC__)")


@dataclasses.dataclass(frozen=True, order=True)
class Mapping:
    library: str
    cuda: str
    hip: str
    neutral: str  # the name sources use in the neutral style ("" keeps the CUDA name)
    by_count: tuple[tuple[int, str], ...] = ()  # (argument count, HIP name) where CUDA changed a signature HIP kept
    guarded: bool = False  # the project's own HIP layer may define it too: written under `#ifndef NAME`
    hip_added: str = ""  # the HIP release that added the HIP name, where older HIP has none: defined from it on

    @property
    def hip_version(self) -> int:
        """`hip_added` as HIP_VERSION encodes it."""
        return hip_version_number(self.hip_added)

    def spellings(self) -> list[tuple[int, str]]:
        """The HIP name for each argument count, 1 to MAX_DISPATCHED_ARGUMENTS (a `hip_for_args` rule)."""
        chosen = dict(self.by_count)
        return [(count, chosen.get(count, self.hip)) for count in range(1, MAX_DISPATCHED_ARGUMENTS + 1)]


@dataclasses.dataclass(frozen=True, order=True)
class Fallback:
    """A name the HIP side only has from `hip_version` on; older HIP gets a macro."""

    cuda: str
    hip_version: int  # as HIP_VERSION encodes it
    hip_added: str
    fallback: str
    drop_args: int
    library: str = ""
    guarded: bool = False  # as Mapping's: the layer's definition, where it comes first, stands


@dataclasses.dataclass(frozen=True)
class Header:
    """A CUDA header and the HIP one included for it from HIP `hip_from` on ("": every HIP); before it `older`, or
    nothing ("")."""

    cuda: str
    hip: str
    older: str = ""
    hip_from: str = ""
    library: str = ""
    part: str = ""  # the file of its own a library header gets, beside the header ("": in the header)

    @property
    def hip_version(self) -> int:
        """`hip_from` as HIP_VERSION encodes it."""
        return hip_version_number(self.hip_from)


@dataclasses.dataclass(frozen=True)
class Names:
    """What one file of the shim maps: the header's runtime names, or one library's in its parts."""

    mappings: tuple[Mapping, ...]
    fallbacks: tuple[Fallback, ...]
    helpers: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class Shim:
    style: str
    header_name: str
    headers: tuple[Header, ...]  # in first-use order
    mappings: tuple[Mapping, ...]
    fallbacks: tuple[Fallback, ...]
    unportable: tuple[tuple[str, str, str], ...]  # (name, library title, advice)
    helpers: tuple[tuple[str, str], ...] = ()  # (library, text) of portkit's helpers that mapped names are spelled with
    # (CUDA name, HIP name, why): renamed for HIP, but no macro can say so (a qualified name, a member, a version
    # macro an #if compares with a number)
    unmapped: tuple[tuple[str, str, str], ...] = ()
    newer: tuple[tuple[str, str], ...] = ()  # (CUDA name, the HIP version that added its counterpart): no fallback
    # (CUDA name, the layer's file): names the project's own HIP layer defines for hipcc wherever they are used, left
    # to it (a second definition, unless the same, is a macro-redefined warning in every unit that includes both)
    left_to_layer: tuple[tuple[str, str], ...] = ()

    @property
    def parts(self) -> tuple[Header, ...]:
        return tuple(h for h in self.headers if h.part)

    @property
    def part_libraries(self) -> frozenset[str]:
        """Libraries whose names their parts map: every header of theirs the project includes has a part."""
        libraries = {h.library for h in self.parts}
        return frozenset(libraries - {h.library for h in self.headers if not h.part})

    def names(self, library: str = "") -> Names:
        """What the header ("") or the parts of `library` map."""
        parted = self.part_libraries

        def mine(of: str) -> bool:
            return of == library if library else of not in parted

        return Names(tuple(m for m in self.mappings if mine(m.library)), tuple(f for f in self.fallbacks if mine(f.library)),
                     tuple(text for of, text in self.helpers if mine(of)))


def neutral_name(hip: str) -> str:
    if hip.startswith("hip"):
        return "gpu" + hip[3:]
    if hip.startswith("HIP"):
        return "GPU" + hip[3:]
    return ""


def ships_with_hip(hip_header: str) -> bool:
    """HIP's own headers (hip/...) come with every HIP; a library's (miopen/, hipblas/, rocwmma/...) may be absent."""
    return hip_header.startswith("hip/")


def part_name(header_name: str, cuda_header: str) -> str:
    """The file of a library header's part, beside the header: portkit_gpu.h, cub/cub.cuh -> portkit_gpu_cub_cub.h."""
    stem, dot, suffix = header_name.rpartition(".")
    if not dot:
        stem, suffix = header_name, ""
    return f"{stem}_{_NOT_WORD.sub('_', cuda_header.rsplit('.', 1)[0])}{dot}{suffix}"


def left_to_layer(findings: Iterable[Finding]) -> dict[str, str]:
    """The names the project's own HIP layer defines for hipcc wherever hipcc compiles them (every use settled by
    it, analyze/own_hip_branches.py: settle_by_hip_layer, or settled as a branch hipcc for AMD never compiles), each
    with the layer's file."""
    layers: dict[str, set[str]] = {}
    elsewhere: set[str] = set()
    for finding in findings:
        if finding.library and finding.hip_layer:
            layers.setdefault(finding.name, set()).add(finding.hip_layer)
        elif finding.library and not finding.settled:
            elsewhere.add(finding.name)
    return {name: min(files) for name, files in layers.items() if name not in elsewhere}


def build_shim(findings: Iterable[Finding], rules: RuleDatabase, style: str, header_name: str,
               layer: dict[str, str] | None = None) -> Shim:
    """The shim for the project's `findings`. A name its own HIP layer (`layer`: each CUDA name it defines for
    hipcc, run/scope.py: HipLayer; kaldi's hip/hipify.h, under `#ifdef __IS_HIP_COMPILE__`) defines is left to it
    where every use sees that layer, and otherwise written under `#ifndef NAME`: a unit may include both, and
    where the layer comes first its definition stands."""
    findings = tuple(findings)
    left = left_to_layer(findings)
    shim = _shim_of(tuple(f for f in findings if f.name not in left), rules, style, header_name)
    layer = layer or {}
    return dataclasses.replace(
        shim, left_to_layer=tuple(sorted(left.items())),
        mappings=tuple(dataclasses.replace(m, guarded=not m.neutral and m.cuda in layer) for m in shim.mappings),
        fallbacks=tuple(dataclasses.replace(f, guarded=f.cuda in layer) for f in shim.fallbacks))


def _shim_of(findings: Iterable[Finding], rules: RuleDatabase, style: str, header_name: str) -> Shim:
    any_target = Target()  # the header serves every HIP version: mappings use the newest spelling
    headers: dict[str, Header] = {}
    mappings: dict[str, Mapping] = {}
    fallbacks: dict[str, Fallback] = {}
    unportable: dict[str, tuple[str, str, str]] = {}
    unmapped: dict[str, tuple[str, str, str]] = {}
    newer: dict[str, tuple[str, str]] = {}
    neutral_taken: dict[str, str] = {}
    helpers: dict[tuple[str, str], tuple[str, str]] = {}
    findings = tuple(findings)
    for finding in findings:
        rule = rules.find(finding.name) if finding.library else None
        if rule is None or rule.kind in ("link", "asm"):
            continue
        title = rules.title(rule.library)
        resolution = rule.resolve(any_target)
        if rule.kind == "header":
            if resolution.hip:
                if rule.hip_requires:  # e.g. HIP 5.x cooperative groups need hip_runtime.h first
                    prerequisite = next((r for r in rules.headers.values() if r.hip == rule.hip_requires), None)
                    if prerequisite is not None:
                        headers.setdefault(prerequisite.cuda, _header(prerequisite, prerequisite.hip, header_name))
                headers.setdefault(rule.cuda, _header(rule, resolution.hip, header_name))
            continue
        if resolution.status not in RENAMED_STATUSES or not resolution.hip:
            unportable.setdefault(rule.cuda, (rule.cuda, title, resolution.advice or finding.message))
            continue
        only_newer = _only_newer(rule, resolution.hip)
        if only_newer:
            newer.setdefault(rule.cuda, (rule.cuda, rule.hip_added))
        spelled = rule.cuda.rsplit("::", 1)[-1] if rule.kind == "field" else rule.cuda  # `p.x` spells the member
        compared = rule.compare_as or rule.keep_compared or same_platform_macro(rule.cuda, resolution.hip)  # #if tests
        if rule.kind == "field" or compared or not _MACRO_NAME.fullmatch(spelled):
            if older := _older_by_hand(rule, resolution.hip):
                unmapped.setdefault(rule.cuda, older)
            elif spelled != resolution.hip:
                why = resolution.advice if compared else _UNMAPPED
                unmapped.setdefault(rule.cuda, (rule.cuda, resolution.hip, why or finding.message))
            continue
        neutral = neutral_name(resolution.hip) if style == "neutral" else ""
        if neutral and neutral_taken.setdefault(neutral, rule.cuda) != rule.cuda:
            neutral = ""  # two CUDA names share a HIP name: keep the CUDA spelling for the second
        if resolution.hip != rule.cuda or neutral:
            # A macro cannot see `struct` before the name: HIP's struct tag serves both spellings in C++.
            hip = rule.hip_struct if rule.hip_struct and resolution.hip == rule.hip else resolution.hip
            by_count = tuple(sorted(rule.hip_for_args)) if resolution.hip == rule.hip else ()
            mappings.setdefault(rule.cuda, Mapping(rule.library, rule.cuda, hip, neutral, by_count, hip_added=only_newer))
        if rule.hip_added and rule.older_hip:
            fallbacks.setdefault(rule.cuda, Fallback(rule.cuda, hip_version_number(rule.hip_added), rule.hip_added,
                                                     rule.older_hip, rule.older_hip_drop_args, rule.library))
        for helper in (helper_providing(resolution.hip), helper_providing(rule.older_hip if rule.hip_added else ""),
                       helper_named(rule.helper) if rule.helper else None):
            if helper is not None:
                helpers.setdefault((rule.library, helper.name), (rule.library, _for_c_too(helper)))
    unmapped.update({**_older_in_calls(findings, rules), **_compute_types(findings, rules)})
    return Shim(style, header_name, tuple(headers.values()), tuple(sorted(mappings.values())),
                tuple(sorted(fallbacks.values())), tuple(sorted(unportable.values())), tuple(helpers.values()),
                tuple(sorted(unmapped.values())), tuple(sorted({**newer, **_newer_headers(headers)}.values())))


def _for_c_too(helper: Helper) -> str:
    """A helper's block as the header has it: a C++-only one (overloads, templates) out of a C unit's sight, which
    needs none of it (the header serves a HIP build's .c files too)."""
    if helper.fits("c"):
        return helper.text
    return f"#ifdef __cplusplus /* C++ only */\n{helper.text.rstrip()}\n#endif /* __cplusplus */\n"


def _only_newer(rule: Rule, hip: str) -> str:
    """The HIP release that added `hip`, where older HIP has nothing for it (its macro is defined from that release
    on); "" for a name every supported HIP has, or one with a fallback."""
    listed = rule.hip_added and not rule.older_hip and hip == rule.hip and parse_version(rule.hip_added) >= _LISTED_FROM
    return rule.hip_added if listed else ""


def _newer_headers(headers: dict[str, Header]) -> dict[str, tuple[str, str]]:
    """HIP's own headers that older HIP lacks, with nothing in their place (hip/hip_fp8.h, from HIP 6.2): a library's
    part says so itself."""
    return {h.cuda: (f"<{h.cuda}>", h.hip_from) for h in headers.values() if h.hip_from and not h.older and not h.part}


def _older_by_hand(rule: Rule, hip: str) -> tuple[str, str, str] | None:
    """A member (or qualified name) older HIP spells otherwise, `cudaDeviceProp::deviceOverlap` before HIP 6.0:
    convert writes the older spelling where it targets such a HIP, but no macro can, so the header lists it for a
    hand edit (a name with no older spelling is listed as newer, with the HIP version that has it)."""
    if not (rule.hip_added and rule.older_hip and hip == rule.hip) or parse_version(rule.hip_added) < _LISTED_FROM:
        return None
    guard = f"#if defined(__HIPCC__) && HIP_VERSION < {hip_version_number(rule.hip_added)}"
    return (rule.cuda, f"{hip} from HIP {rule.hip_added}, {rule.older_hip} before",
            f"{rule.note} No macro renames a member or qualified name: write {rule.older_hip} in its place under `{guard}`".strip())


def _older_in_calls(findings: tuple[Finding, ...], rules: RuleDatabase) -> dict[str, tuple[str, str, str]]:
    """Constants spelled otherwise in the project's calls of a name that has a fallback for older HIP: their macro maps
    them for every use, the newest HIP's way, and no macro can see which call an argument is passed to."""
    found = {finding.name for finding in findings if finding.library}
    listed = {}
    for rule in filter(None, map(rules.find, sorted(found))):
        for call, hip in rule.older_hip_in:
            older = rules.find(call) if call in found else None
            if older is not None and older.hip_added:
                why = (f"passed to {call} before HIP {older.hip_added}, where the header maps {call} to {older.older_hip}; "
                       f"it maps {rule.cuda} to {rule.hip} for every use: edit such calls by hand for older HIP")
                listed[f"{rule.cuda} in {call}"] = (f"{rule.cuda} in {call}", hip, why)
    return listed


def _compute_types(findings: tuple[Finding, ...], rules: RuleDatabase) -> dict[str, tuple[str, str, str]]:
    """Data-type constants passed as the compute type of a call (its rule's `compute_arg`) that, from the HIP that
    added the call's counterpart, takes another type there: convert spells such a use as that compute type
    (CUDA_R_32F in cublasGemmEx: HIPBLAS_COMPUTE_32F, names.py), but the header's macro maps the constant for
    every use, as the data type. The call's finding holds its arguments, the constant's its own spelling."""
    compute_arguments: dict[str, list[tuple[Span, Rule]]] = {}
    for finding in findings:
        call = rules.find(finding.name) if finding.library else None
        if call is not None and call.compute_arg >= 0 and finding.fix is not None and len(finding.fix.parts) > call.compute_arg:
            compute_arguments.setdefault(finding.path, []).append((finding.fix.parts[call.compute_arg], call))
    listed = {}
    for finding in findings:
        rule = rules.find(finding.name) if finding.library and finding.path in compute_arguments else None
        if rule is None or not rule.as_compute or finding.fix is None or finding.fix.text == rule.hip:
            continue
        call = next((c for span, c in compute_arguments[finding.path]
                     if span.start <= finding.span.start and finding.span.end <= span.end), None)
        if call is not None:
            since = f" from HIP {call.hip_added}" if call.hip_added else ""
            why = (f"the header maps {call.cuda} to {call.hip}{since}, which takes the compute type as {finding.fix.text}; "
                   f"it maps {rule.cuda} to {rule.hip} for every use: write {rule.as_compute} there, which cuBLAS takes "
                   "too, and run the shim again to map it")
            listed[f"{rule.cuda} as {call.cuda}'s compute type"] = (f"{rule.cuda} as {call.cuda}'s compute type",
                                                                    finding.fix.text, why)
    return listed


def argument_casts(data: bytes, finding: Finding, rule: Rule) -> list[Cast]:
    """The casts convert writes in a call's arguments for some HIP (`cast_args`: where HIP takes void* or overloads
    what CUDA declares once; `const_args`: where HIP before `const_args_until` lacks CUDA's const). Each is valid CUDA
    too, and the header serves every HIP, so a shimmed source gets all of them; none where the call's arguments are
    out of sight (a macro body)."""
    fix = finding.fix
    if fix is None or not fix.parts:
        return []
    wanted = {index for index, _ in rule.cast_args}
    casts = [edit for edit in fix.args if isinstance(edit, Cast) and edit.index in wanted]
    for index, type_name in rule.const_args:
        if index < len(fix.parts):
            text = data[fix.parts[index].start:fix.parts[index].end].decode("utf-8", "replace").strip()
            casts.extend(filter(None, [const_cast_of(index, type_name, text, is_c_file(finding.path))]))
    return casts


def with_casts_listed(shim: Shim, findings: Iterable[Finding], rules: RuleDatabase, sources: dict[str, bytes]) -> Shim:
    """`shim` listing the calls whose arguments convert casts, in `sources`, which the shim does not rewrite: no
    macro can cast an argument, and hipcc rejects the call as written (an ambiguous overload, a void** HIP takes, a
    const HIP lacks)."""
    listed = {entry[0]: entry for entry in shim.unmapped}
    left = {name for name, _ in shim.left_to_layer}
    for finding in findings:
        rule = rules.find(finding.name) if finding.library and finding.path in sources and finding.name not in left \
            else None
        if rule is None or not (rule.cast_args or rule.const_args):
            continue
        casts = argument_casts(sources[finding.path], finding, rule)
        if casts:
            written = ", ".join(f"argument {cast.index + 1} as {cast.opening[:-1]}" for cast in casts)
            listed[f"{rule.cuda}'s arguments"] = (
                f"{rule.cuda}'s arguments", written,
                "hipcc rejects such a call as CUDA writes it and no macro can cast an argument: write the casts, which "
                "nvcc takes too, or run the shim with --sources or --in-place, which writes them")
    return dataclasses.replace(shim, unmapped=tuple(sorted(listed.values())))


def _header(rule: Rule, hip: str, header_name: str) -> Header:
    """The header's include; a HIP that lacks its HIP header (before `hip_added`), or has one that does not compile
    alone (before `older_hip_until`), includes the older one, or none: the shim serves every HIP version."""
    part = "" if ships_with_hip(hip) else part_name(header_name, rule.cuda)
    since = (rule.older_hip_until or rule.hip_added) if hip == rule.hip else ""
    if not since or parse_version(since) < _LISTED_FROM:
        return Header(rule.cuda, hip, library=rule.library, part=part)
    return Header(rule.cuda, hip, rule.older_hip, since, rule.library, part)


def source_edits(data: bytes, findings: Iterable[Finding], shim: Shim, rules: RuleDatabase) -> list[Edit]:
    """Edits that make a source use the shim: CUDA includes become the include of the header (HIP's own headers)
    or of their part (a library's), written once where several came in a row; a file convert gives HIP's runtime
    header (nvcc included CUDA's by itself) gets the header there; in the neutral style mapped names become their
    neutral spelling; a launch spelled `<< <...>> >` (nvcc's, not clang's) `<<<...>>>`; and a built-in coordinate
    declared `auto` or passed to min or max is written as convert writes it, as the unsigned int it is in CUDA."""
    neutral = {m.cuda: m.neutral for m in shim.mappings if m.neutral}
    edits: list[Edit] = []
    written: dict[str, int] = {}  # include -> where the line that has it last ends
    runtime = rules.hip_header(IMPLICIT_CUDA_HEADER)
    for finding in sorted(findings, key=lambda f: f.span):
        if finding.fix is not None and finding.fix.action is FixAction.LAUNCH:
            edits.extend(chevron_edits(finding.fix))
        if finding.code == COORDINATE_ARGUMENT:  # valid CUDA too: the type is CUDA's own
            edits.extend(edits_for(finding, EditOptions()))
        if finding.code == HIP_PREAMBLE and finding.fix is not None and runtime:
            text = _shim_preamble(finding.fix, runtime, shim.header_name)
            if text and not _includes(data, shim.header_name):  # a source the shim rewrote before
                edits.append(Edit(finding.fix.span, text.encode()))
                if not _CONDITIONAL.search(text.encode()):  # an include of the header below it is written already
                    written[shim.header_name] = finding.fix.span.end
        if not finding.library:
            continue
        rule = rules.find(finding.name)
        if rule is not None and (rule.cast_args or rule.const_args):  # as convert casts them
            edits.extend(edit for cast in argument_casts(data, finding, rule) for edit in call_argument_edits(finding.fix.parts, cast))
        if rules.headers.get(finding.name) or rules.header(finding.name):
            header = next((h for h in shim.headers if finding.name == h.cuda or finding.name.endswith("/" + h.cuda)), None)
            if header is not None:
                include = header.part or shim.header_name
                edits.append(_include_once(data, finding.span, include, written))
        elif finding.name in neutral and not finding.span.empty:
            edits.append(Edit(finding.span, neutral[finding.name].encode()))
    return edits


def _shim_preamble(fix: Fix, runtime: str, header_name: str) -> str:
    """The preamble convert inserts where a file needs HIP's runtime header (analyze/preamble.py and, where the
    project decides, analyze/runtime_include.py), with the shim header in the runtime header's place, and as
    convert wraps it (under `#ifdef __HIPCC__`, in an `extern "C++"` block); "" where it brings no runtime header.
    What else it brings only for HIP (feature macros, portkit's helpers, a C file's HIP platform) the header
    has or a CUDA build must not see; <math.h> serves both."""
    if fix.action is not FixAction.INSERT:
        return ""
    newline = "\r\n" if "\r\n" in fix.text else "\n"
    text = fix.text
    for block in (*(h.text.rstrip("\n").replace("\n", newline) for h in all_helpers()), newline.join(HOST_C_PLATFORM)):
        text = text.replace(block + newline, "")  # first: a helper may include the runtime header itself
    line = f"#include <{runtime}>"
    if line not in text:
        return ""
    text = text.replace(line, f'#include "{header_name}"', 1)
    return "".join(kept for kept in text.splitlines(keepends=True) if not _DEFINE.match(kept))


def _includes(data: bytes, header_name: str) -> bool:
    """Whether the source has an #include of the header (by its name, in any directory)."""
    name = re.escape(header_name.encode())
    return re.search(rb'^[ \t]*#[ \t]*include[ \t]*["<](?:[^">\n]*/)?' + name + rb'[">]', data, re.MULTILINE) is not None


def _include_once(data: bytes, span: Span, include: str, written: dict[str, int]) -> Edit:
    """`#include "include"` for the CUDA header at `span`; or, where the line holds only that directive and the
    same include was written above it with no conditional directive between, the line removed."""
    start = data.rfind(b"\n", 0, span.start) + 1
    end = data.find(b"\n", span.end)
    end = len(data) if end < 0 else end + 1
    alone = _INCLUDE_START.fullmatch(data[start:span.start]) and not data[span.end:end].strip()
    previous = written.get(include)
    written[include] = end
    if alone and previous is not None and previous <= start and not _CONDITIONAL.search(data, previous, start):
        return Edit(Span(start, end), b"")
    return Edit(span, f'"{include}"'.encode())


def guard_name(header_name: str) -> str:
    return re.sub(r"\W", "_", header_name).upper().strip("_") + "_"
