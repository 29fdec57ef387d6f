"""Match identifiers, types and includes against the rule database."""
from __future__ import annotations

import dataclasses
import functools
import os
import re
from typing import AbstractSet, Iterable, Iterator, NamedTuple

from portkit.analyze.arch_branches import explain_kept_values, keep_nvidia_branches_off
from portkit.analyze.brought_headers import without_included
from portkit.analyze.dead_branches import dead_ranges, settle_old_cudnn
from portkit.analyze.findings import Resolved, rule_finding, simple_finding
from portkit.analyze.host_twins import write_host_twins
from portkit.analyze.alias_scope import with_branch_aliases
from portkit.analyze.nvidia_side import keep_nvidia_side
from portkit.analyze.own_hip_branches import keep_cuda_branches, keep_tests_beside_hip
from portkit.analyze.unused_headers import comment_out_unused
from portkit.analyze.rewrite import NULL_POINTERS, extra_argument, include_finding
from portkit.analyze.registry import Context, analyzer
from portkit.codes import API_UNKNOWN, DEVICE_HOST_TWIN, RENAMED_STATUSES, RULE_CODES, UNUSED_HEADER, Status, code_for_status
from portkit.model import CallFacts, Engine, Finding, FixAction, NameFacts, Occurrence, ParsedFile, QualifiedFacts, Role, Span
from portkit.parse.nodes import CUDA_VERSION_MACROS
from portkit.rules import Rule, Target, hip_version_number, parse_version, version_text

# Names that look like CUDA APIs; those no rule knows are listed, never dropped. Of the `__` names, nvcc's
# host_defines.h qualifiers (`__device_builtin__`, `__cudart_builtin__`, `__builtin_align__`: clang's own builtins
# never end in `__`) and the CUDA runtime's `__cudart` internals: HIP defines none of them.
CUDA_LOOKING = re.compile(
    r"^(__\w+_builtin\w*__|__builtin_\w+__|__cudart\w*"
    r"|cuda[A-Z_]\w*|cu[A-Z][a-z]\w*|CU_\w+|CUDA_\w+|CU[a-z]\w+|curand\w*|CURAND_\w+|cublas\w*|CUBLAS\w*"
    r"|cusolver\w*|CUSOLVER\w*|cusparse\w*|CUSPARSE\w*|cufft\w*|CUFFT\w*|cudnn\w*|CUDNN\w*|nccl[A-Z]\w*|NCCL_\w+"
    r"|nvtx[A-Z]\w*|NVTX_\w+|nvml[A-Z]\w*|NVML_\w+|cupti[A-Z]\w*|CUPTI_\w+|nvrtc[A-Z]\w*|NVRTC_\w+|__nv_\w+"
    r"|nvshmemx?_\w+|NVSHMEMX?_\w+|CUB_\w+"
    r"|(thrust|cub|cooperative_groups|nvcuda|wmma|cuda|cutlass|cute|nvinfer1|nvonnxparser|cudnn_frontend)::\w[\w:<>,\s*]*)$"
)
# NVIDIA libraries' headers, named so that no project names its own after them: CUDA-looking in "quotes" too
# (a project's own cuda_utils.h or cublas_helpers.h is likely, so the generic forms count only in <>).
_LIBRARY_HEADERS = (r"nccl\w*\.h|nvtx\w*\.h|nvml\.h|cupti\w*\.h|nvrtc\.h|npp\w*\.h|nvjpeg\w*\.h|nvsci\w*\.h|nvJitLink\.h"
                    r"|nvvm\.h|nvPTXCompiler\.h|nvshmem\w*\.h|cudla\.h|nvmedia\w*\.h")
CUDA_LIBRARY_HEADER = re.compile(rf"^({_LIBRARY_HEADERS})$")
# A path through a `hip` directory is HIP's (rocThrust's thrust/system/hip/...), not CUDA's.
CUDA_LOOKING_HEADER = re.compile(rf"^(?!.*\bhip/)(cuda\w*\.h|cu[a-z]+\w*\.h|{_LIBRARY_HEADERS}"
                                 r"|sm_\d+_\w+\.h|(thrust|cub|cuda|cooperative_groups|nvtx3|cutlass|cute|crt)/.*)$")
NAME_ROLES = {Role.CALL, Role.TYPE, Role.IDENTIFIER, Role.MACRO_BODY}
UNKNOWN_ADVICE = "No rule maps it to HIP, and convert leaves it: find its HIP equivalent, or add a rule with --rules."


def is_interesting(name: str, known: frozenset[str]) -> bool:
    """What the parser should keep: names a rule knows, or that look like CUDA."""
    return name in known or CUDA_LOOKING.match(name.lstrip(":")) is not None  # `::thrust::x` too


def qualified_finding(path: str, occurrence: Occurrence, context: Context) -> Finding | None:
    """`thrust::cuda::par`, `cg::this_grid()` (through the alias), `cutlass::gemm::device::Gemm<...>`."""
    written = occurrence.text
    text = written.lstrip(":")  # `::thrust::x` names what `thrust::x` does
    head, _, rest = text.partition("::")
    aliases = dict(context.aliases)
    expanded = f"{aliases[head]}::{rest}" if head in aliases and rest else text
    rule, prefix = context.rules.lookup_qualified(expanded)
    if rule is None:
        if CUDA_LOOKING.match(expanded) and not context.rules.is_hip_spelling(expanded):
            return simple_finding(path, occurrence, API_UNKNOWN, f"{expanded} looks like a CUDA name, but no rule knows it",
                                  UNKNOWN_ADVICE)
        return None
    lead = len(written) - len(text)  # the `::` before the name: the rename starts after it
    length = occurrence.span.end - occurrence.span.start
    # The name is renamed where the rule's prefix is spelled as the text has it (no alias, no spaces in it).
    verbatim = length - lead if length == len(written.encode()) else occurrence.facts(QualifiedFacts).verbatim - lead
    exact = expanded == text and len(prefix.encode()) <= verbatim
    start = occurrence.span.start + lead
    target = occurrence.spelled(Span(start, start + len(prefix.encode())), prefix) if exact else None
    return rule_finding(path, rule, rule.cuda, occurrence.span, occurrence.position, context, occurrence.function, target)


# A name counts only in its role: a type rule in a type position, a function in a call or as a
# reference, an enum or macro in an expression. Macro bodies are opaque, so any rule may match there.
# An enum in a type position is a template argument or a statement macro's misparse, never a type.
_KIND_ROLES = {
    "function": (Role.CALL, Role.IDENTIFIER, Role.MACRO_BODY),
    "intrinsic": (Role.CALL, Role.IDENTIFIER, Role.MACRO_BODY),
    "type": (Role.TYPE, Role.IDENTIFIER, Role.CALL, Role.MACRO_BODY),  # a call: a functional cast, `CUdeviceptr(p)`
    "enum": (Role.IDENTIFIER, Role.TYPE, Role.MACRO_BODY),
    "macro": (Role.IDENTIFIER, Role.CALL, Role.TYPE, Role.MACRO_BODY),
}


def _member(parsed: ParsedFile, occurrence: Occurrence, context: Context, types: set[str],
            namespaces: set[str]) -> Finding | None:
    """`p.deviceOverlap` where the file uses cudaDeviceProp: a rule `cudaDeviceProp::deviceOverlap`. A member of a
    namespace's class (`tile.meta_group_rank()` from `auto tile = cg::tiled_partition<32>(block)`, whose type is
    never spelled) counts where the file names that namespace."""
    by_type = (context.rules.lookup(f"{struct}::{occurrence.text}") for struct in sorted(types))
    rule = next((r for r in by_type if r is not None and r.kind == "field"), None)
    if rule is None:
        return namespace_member_finding(parsed.path, occurrence, context, namespaces)
    return rule_finding(parsed.path, rule, rule.cuda, occurrence.span, occurrence.position, context, occurrence.function,
                        occurrence)


def namespace_member_finding(path: str, occurrence: Occurrence, context: Context, namespaces: set[str]) -> Finding | None:
    """A member of a class of one of `namespaces` (`tb.group_dim()` where the file names cooperative_groups)."""
    rule = next((r for r in context.rules.namespace_members(occurrence.text) if r.cuda.partition("::")[0] in namespaces),
                None)
    if rule is None:
        return None
    return rule_finding(path, rule, rule.cuda, occurrence.span, occurrence.position, context, occurrence.function,
                        occurrence)


def _namespaces(parsed: ParsedFile, context: Context) -> set[str]:
    """The namespaces the file's qualified names start with, through its aliases (`cg::` is cooperative_groups)."""
    aliases = dict(context.aliases)
    heads = {o.text.partition("::")[0] for o in parsed.of(Role.QUALIFIED)}
    return {aliases.get(head, head) for head in heads}


class Usings(NamedTuple):
    """What a file's using-directives and using-declarations make visible unqualified."""

    namespaces: tuple[str, ...] = ()  # `using namespace cooperative_groups;`
    names: tuple[tuple[str, str], ...] = ()  # `using cg::thread_block;`: (thread_block, cooperative_groups::thread_block)

    def resolve(self, name: str, context: Context) -> str:
        """The qualified name a rule knows that `name` stands for here, or ""."""
        declared = next((full for last, full in self.names if last == name), "")
        if declared and context.rules.lookup(declared) is not None:
            return declared
        return next((f"{ns}::{name}" for ns in self.namespaces if context.rules.lookup(f"{ns}::{name}") is not None), "")


def _usings(parsed: ParsedFile, context: Context) -> Usings:
    """The file's usings, through its namespace aliases; file-wide, wherever one stands."""
    aliases = dict(context.aliases)
    namespaces, names = [], []
    for o in parsed.of(Role.USING):
        head, _, rest = o.text.partition("::")
        expanded = f"{aliases.get(head, head)}::{rest}" if rest else aliases.get(head, head)
        if o.detail == "namespace":
            namespaces.append(expanded)
        else:
            names.append((expanded.rsplit("::", 1)[-1], expanded))
    return Usings(tuple(namespaces), tuple(names))


def _unqualified(finding: Finding, name: str) -> Finding:
    """A use a using-directive resolves keeps its unqualified spelling: the directive carries the namespace
    (convert writes hipCUB's for `using namespace cub;`), so only a HIP name of its own is written."""
    fix = finding.fix
    if fix is None or fix.action is not FixAction.RENAME or fix.arguments_only:
        return finding
    last = fix.text.rsplit("::", 1)[-1]
    if last != name:
        return dataclasses.replace(finding, fix=dataclasses.replace(fix, text=last))
    if fix.args or fix.drop_args:  # the name stays, its arguments change
        return dataclasses.replace(finding, fix=dataclasses.replace(fix, span=Span(fix.span.start, fix.span.start), text=""))
    return dataclasses.replace(finding, fix=None)


def _global_scope(occurrence: Occurrence) -> bool:
    """`::cudaMalloc(p, n)` in the project's own `gpu::cudaMalloc`: the global name, CUDA's."""
    return occurrence.facts(CallFacts).global_scope or occurrence.facts(NameFacts).global_scope


def in_role(rule: Rule, occurrence: Occurrence, parsed: ParsedFile, device: AbstractSet[str]) -> bool:
    """Whether this use of the name is the CUDA name the rule means."""
    if occurrence.clang is not None:
        return True  # clang resolved it to the CUDA declaration
    if occurrence.role not in _KIND_ROLES.get(rule.kind, NAME_ROLES) \
            and occurrence.facts(NameFacts).constant != "template-argument":  # type or value: tree-sitter cannot tell
        return False
    if occurrence.role in (Role.IDENTIFIER, Role.CALL) and occurrence.text in parsed.declared:
        return False  # the file's own variable, parameter or member (a `texture`, a `y0`, a pointer `j0` called)
    if occurrence.facts(NameFacts).accessed and rule.kind != "macro":
        return False  # `texture.x`: a variable, whatever its name
    if rule.c_library:  # floor, y0, isnan, min: plain C/C++ outside device code
        return occurrence.role is not Role.MACRO_BODY and occurrence.function in device
    return True


# An argument that names a variable: `loc`, `options.loc`, `self->where`.
_VARIABLE = re.compile(r"^(?:[A-Za-z_]\w*\s*(?:\.|->)\s*)*([A-Za-z_]\w*)$")
# An argument that is an address: `p`, `&v`, `&s[i]`, `p + i`, `&self->buf[i]`: whether `&` takes it, the variable,
# the index, an offset added.
_ADDRESS = re.compile(r"^\s*(&)?\s*(?:[A-Za-z_]\w*\s*(?:\.|->)\s*)*([A-Za-z_]\w*)\s*(\[[^\]]*\])?\s*([-+][^,]*)?$")


def call_rule(rule: Rule, occurrence: Occurrence, parsed: ParsedFile, context: Context) -> Rule:
    """The rule of the form a call is written in: `rule`, or its `form_rule` when an argument has the type that
    marks that form: a variable the file declares with the type (`cudaMemLocation loc`), or an expression that
    names the type or its constants (`{cudaMemLocationTypeDevice, 0}`); or when a call of a `null_args` count
    passes something other than a null pointer where HIP has no argument (CUDA 13's edge data)."""
    if not rule.form_rule or occurrence.role is not Role.CALL:
        return rule
    extra = extra_argument(occurrence, rule)
    if extra is not None and extra[1] not in NULL_POINTERS:
        return context.rules.lookup(rule.form_rule) or rule
    for index, kind in rule.form_args:
        argument = occurrence.facts(CallFacts).arg(index)
        if _points_to(argument, kind[:-1].rstrip(), parsed) if kind.endswith("*") else _has_type(argument, kind, parsed):
            return context.rules.lookup(rule.form_rule) or rule
    return rule


def _has_type(argument: str, kind: str, parsed: ParsedFile) -> bool:
    """Whether the argument is a variable the file declares as `kind`, or an expression that names the type or its
    constants (`{cudaMemLocationTypeDevice, 0}`)."""
    variable = _VARIABLE.match(argument)
    return variable is not None and variable.group(1) in parsed.declared_as(kind) or bool(re.search(rf"\b{re.escape(kind)}", argument))


def _points_to(argument: str, kind: str, parsed: ParsedFile) -> bool:
    """Whether the argument is a pointer to `kind`: a cast to one (`(__half2*)(p + i)`), a pointer or array the file
    declares of it (`p`, `p + i`, `&s[i]`), or the address of a variable of it (`&v`)."""
    if re.search(rf"\b{re.escape(kind)}\s*\*", argument):
        return True
    address = _ADDRESS.match(argument)
    if address is None:
        return False
    taken, name, indexed, offset = address.groups()
    if bool(taken) == bool(indexed):  # `p`, `p + i`, `&s[i]`: the pointer or array itself
        return name in parsed.pointers_to(kind)
    return bool(taken) and not offset and name in parsed.declared_as(kind)  # `&v` (not `s[i]`)


def _argument_rule(rule: Rule, occurrence: Occurrence, parsed: ParsedFile, context: Context) -> Rule:
    """A constant as an argument of a call its rule lists: the rule that call's parameter takes, of the same value
    (`cudaGraphicsMapFlagsWriteDiscard` given to cudaGraphicsGLRegisterBuffer is cudaGraphicsRegisterFlagsWriteDiscard);
    or, where convert writes the call's older_hip, the constant's spelling for that older call (CUDA_R_16F given to
    cublasGemmEx is HIPBLAS_R_16F for hipBLAS's hipblasGemmEx before HIP 6.0, which takes a hipblasDatatype_t);
    or, passed as the compute type of a call convert writes as its `hip`, the spelling of the compute type cuBLAS
    takes it for (CUDA_R_32F is HIPBLAS_COMPUTE_32F for hipblasGemmEx_v2, whose compute type is no hipDataType)."""
    start, end = occurrence.span.start, occurrence.span.end
    around = [o for o in parsed.of(Role.CALL) if any(p.start <= start and end <= p.end for p in o.parts)]
    innermost = max(around, key=lambda o: o.span.start, default=None)
    if innermost is None:
        return rule
    other = dict(rule.argument_of).get(innermost.text)
    if other:
        return context.rules.lookup(other) or rule
    older = dict(rule.older_hip_in).get(innermost.text)
    call = context.rules.lookup(innermost.text) if older or rule.as_compute else None
    if call is None:
        return rule
    written = call.resolve(context.target).hip
    if older and call.older_hip and written == call.older_hip:
        return _spelled(rule, older)
    if rule.as_compute and call.compute_arg >= 0 and written == call.hip \
            and _argument_index(innermost, occurrence) == call.compute_arg:
        compute = context.rules.lookup(rule.as_compute)
        spelled = compute.resolve(context.target).hip if compute is not None else ""
        return _spelled(rule, spelled) if spelled else rule
    return rule


def _argument_index(call: Occurrence, occurrence: Occurrence) -> int:
    """Which of the call's arguments holds the occurrence (-1: none)."""
    return next((index for index, part in enumerate(call.parts)
                 if part.start <= occurrence.span.start and occurrence.span.end <= part.end), -1)


@functools.lru_cache(maxsize=None)
def _spelled(rule: Rule, hip: str) -> Rule:
    """`rule` written as `hip` whatever the target (kept: a finding's resolution is cached by the rule's id)."""
    return dataclasses.replace(rule, hip=hip, hip_added="", older_hip="", argument_of=(), older_hip_in=(), as_compute="")


def _rule_of_use(rule: Rule, occurrence: Occurrence, parsed: ParsedFile, context: Context, device: AbstractSet[str]) -> Rule:
    """The rule this use is of: the form its arguments make (`call_rule`), HIP's lack of a host version, the enum
    the call it is passed to takes."""
    rule = call_rule(rule, occurrence, parsed, context)
    rule = _host_use(rule) if rule.cuda_host and _in_host_code(occurrence, device) else rule
    return _argument_rule(rule, occurrence, parsed, context) if rule.argument_of or rule.older_hip_in or rule.as_compute \
        else rule


def _in_host_code(occurrence: Occurrence, device: AbstractSet[str]) -> bool:
    """A call in a function no __device__ or __global__ marks (a #define body's could be either)."""
    return occurrence.role is Role.CALL and bool(occurrence.function) and occurrence.function not in device


@functools.lru_cache(maxsize=None)
def _host_use(rule: Rule) -> Rule:
    """`rule` for a call in host code, where HIP has no such function (kept: a finding's resolution is cached by the
    rule's id)."""
    return dataclasses.replace(
        rule, hip="", older_hip="", hip_added="", status=Status.PARTIAL, cuda_host="",
        note=f"CUDA declares {rule.cuda} for host code too; HIP's is device code's only.",
        action=f"In host code write {rule.cuda_host}.")


@functools.lru_cache(maxsize=None)
def _c_include(rule: Rule) -> Rule:
    """`rule` for a header a C file includes, where HIP's compiles only as C++ (kept: a finding's resolution is cached
    by the rule's id)."""
    return dataclasses.replace(
        rule, status=Status.PARTIAL, note=rule.hip_cxx_only, hip_cxx_only="",
        action=f"{rule.hip} does not compile as C on AMD: build this file as C++ (hipcc -x c++ -D__HIP_PLATFORM_AMD__) "
               "or call the library from a C++ file through extern \"C\" functions.")


def _version_test(occurrence: Occurrence, name: str, rule: Rule, status: Status | None, parsed: ParsedFile) -> bool:
    """A version macro the preprocessor tests and convert leaves as written (a comparison the rule keeps, `defined` of
    it in a test that also compares it, or a macro HIP has no name for): no API use, and no build breaks (undefined
    there, it reads 0). The test is reported once, as a CUDA-only branch (PK203). Decided by the rule, not the fix,
    which only a convert computes."""
    facts = occurrence.facts(NameFacts)
    if not (facts.compared or facts.tested) or not CUDA_VERSION_MACROS.fullmatch(name):
        return False
    if rule.keep_compared and (facts.compared or _compared_in_its_test(occurrence, name, parsed)):
        return True
    return status not in RENAMED_STATUSES


def _compared_in_its_test(occurrence: Occurrence, name: str, parsed: ParsedFile) -> bool:
    """`defined(CUDART_VERSION) && CUDART_VERSION >= 11000`: renamed alone, `defined(HIP_VERSION)` would be true under
    hipcc while the kept comparison reads 0, and the test would pick a branch the original never did there."""
    compared = re.compile(rf"\b{re.escape(name)}\s*[<>=!]|[<>=]\s*{re.escape(name)}\b")
    return any(test.span.start <= occurrence.span.start < test.span.end and compared.search(test.text)
               for test in parsed.of(Role.PREPROCESSOR_CONDITION))


@analyzer("source", codes=(API_UNKNOWN, UNUSED_HEADER, DEVICE_HOST_TWIN, *RULE_CODES), fixes=True)
def analyze_names(parsed: ParsedFile, context: Context) -> Iterable[Finding]:
    findings = explain_kept_values(parsed, keep_nvidia_branches_off(parsed, _names(parsed, context), context), context)
    findings = keep_tests_beside_hip(parsed, findings, context)
    findings = write_host_twins(parsed, keep_cuda_branches(parsed, keep_nvidia_side(parsed, findings, context), context),
                                context)
    findings = comment_out_unused(parsed, findings, context) if parsed.of(Role.INCLUDE) else findings
    if not parsed.of(Role.PREPROCESSOR_CONDITION):
        return findings
    dead = dead_ranges(parsed, context.target)
    findings = [f for f in findings if not any(start <= f.span.start < end for start, end in dead)] if dead else findings
    return settle_old_cudnn(parsed, findings, context.target)


def _include(parsed: ParsedFile, occurrence: Occurrence, context: Context) -> Finding | None:
    """An include of a CUDA header a rule knows, of a HIP header the target lacks, or of one that looks like CUDA's."""
    if context.project_header(occurrence.text, parsed.path, occurrence.detail == "system"):
        return None  # the project's own cuda.h or helper_cuda.h, not NVIDIA's
    rule = context.rules.header(occurrence.text)
    if rule is not None:
        rule = _c_include(rule) if rule.hip_cxx_only and os.path.splitext(parsed.path)[1] == ".c" else rule
        finding = rule_finding(parsed.path, rule, occurrence.text, occurrence.span, occurrence.position, context,
                               occurrence.function, occurrence)
        return without_included(include_finding(finding, occurrence, parsed, context), occurrence, parsed, context)
    written = context.rules.hip_header_rule(occurrence.text)
    if written is not None and not _available(written, context.target):
        return _newer_hip_header(parsed.path, occurrence, written, context)
    if CUDA_LOOKING_HEADER.match(occurrence.text) \
            and (occurrence.detail == "system" or CUDA_LIBRARY_HEADER.match(occurrence.text)):
        spelled = f"<{occurrence.text}>" if occurrence.detail == "system" else f'"{occurrence.text}"'
        return simple_finding(parsed.path, occurrence, API_UNKNOWN, f"{spelled} looks like a CUDA header, but no rule knows it",
                              "No rule maps it to a HIP header, and convert leaves it: find the HIP one, "
                              "or add a rule with --rules.")
    return None


def _available(rule: Rule, target: Target) -> bool:
    return not rule.hip_added or target.rocm is None or target.rocm >= parse_version(rule.hip_added)


def _newer_hip_header(path: str, occurrence: Occurrence, rule: Rule, context: Context) -> Finding:
    """An include of a HIP header the targeted HIP lacks (`hip/hip_math_constants.h`, from 5.3), in the project's
    own HIP code: hipcc stops there, as at a name the target lacks (PK104). Convert leaves it, with a marker."""
    spelled = f"<{occurrence.text}>" if occurrence.detail == "system" else f'"{occurrence.text}"'
    since = f"HIP_VERSION >= {hip_version_number(rule.hip_added)}"
    finding = simple_finding(
        path, occurrence, code_for_status(Status.UNAVAILABLE),
        f"{spelled} arrived in HIP {rule.hip_added}: the targeted HIP {version_text(context.target.rocm)} lacks it",
        f"Target HIP {rule.hip_added} or newer, or keep the include and what uses it from older HIP (`#if {since}`, "
        "hip/hip_version.h).")
    return dataclasses.replace(finding, library=rule.library, status=Status.UNAVAILABLE, hip=occurrence.text)


def _unknown_cuda_name(name: str, occurrence: Occurrence, context: Context) -> bool:
    """Whether a name no rule knows looks like CUDA's: not the project's own, not its switch (`#ifdef CUDNN`, set by
    -D), not a HIP spelling a rule writes (RCCL's ncclAllToAll: convert's output, or the project's HIP code)."""
    return CUDA_LOOKING.match(name) is not None and name not in context.project_declared \
        and not occurrence.facts(NameFacts).tested and not context.rules.is_hip_spelling(name)


def _names(parsed: ParsedFile, context: Context) -> Iterator[Finding]:
    device = parsed.device_functions
    types = {o.text for o in parsed.of(Role.TYPE)}
    usings = _usings(parsed, context)
    namespaces = _namespaces(parsed, context) | set(usings.namespaces) if parsed.of(Role.FIELD) else set()
    resolutions: dict[tuple[int, str], Resolved] = {}  # the file's rules live as long as its run: an id stays theirs
    for occurrence in parsed.occurrences:
        if occurrence.role is Role.QUALIFIED:
            finding = qualified_finding(parsed.path, occurrence, with_branch_aliases(parsed, context, occurrence.span.start))
            if finding is not None:
                yield dataclasses.replace(finding, engine=Engine.CLANG) if occurrence.clang is not None else finding
        elif occurrence.role in NAME_ROLES:
            resolved = occurrence.clang is not None  # clang already checked the declaration
            if occurrence.facts(NameFacts).scoped and not resolved:
                continue  # a scoped name is decided by its QUALIFIED occurrence, unless clang resolved it to CUDA's
            name = occurrence.text
            if name in context.project_names and not resolved and not _global_scope(occurrence):
                continue  # the project's own function, macro or type (`::name` is the global one: CUDA's)
            rule = context.rules.lookup(name)
            used = usings.resolve(name, context) if rule is None and (usings.namespaces or usings.names) else ""
            rule = context.rules.lookup(used) if used else rule
            if rule is not None and not in_role(rule, occurrence, parsed, device):
                continue
            if rule is not None:
                rule = _rule_of_use(rule, occurrence, parsed, context, device)
                finding = rule_finding(parsed.path, rule, used or name, occurrence.span, occurrence.position, context,
                                       occurrence.function, occurrence, shadowable=not resolved,
                                       engine=Engine.CLANG if resolved else Engine.TREE_SITTER, resolutions=resolutions)
                if _version_test(occurrence, name, rule, finding.status, parsed):
                    continue  # `#if CUDA_VERSION >= 11000` builds on AMD: PK203 says which branch hipcc takes
                finding = _unqualified(finding, name) if used else finding
                if occurrence.clang is not None and occurrence.clang.macro:  # say which macro hides the call
                    finding = dataclasses.replace(finding, message=f"{finding.message} (via macro {occurrence.clang.macro})")
                yield finding
            elif _unknown_cuda_name(name, occurrence, context):
                finding = simple_finding(parsed.path, occurrence, API_UNKNOWN,
                                         f"{name} looks like a CUDA name, but no rule knows it", UNKNOWN_ADVICE,
                                         shadowable=not resolved)
                yield dataclasses.replace(finding, engine=Engine.CLANG) if resolved else finding
        elif occurrence.role is Role.FIELD:
            finding = _member(parsed, occurrence, context, types, namespaces)
            if finding is not None:
                yield finding
        elif occurrence.role is Role.INCLUDE:
            finding = _include(parsed, occurrence, context)
            if finding is not None:
                yield finding
