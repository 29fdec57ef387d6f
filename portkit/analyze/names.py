"""Match identifiers, types and includes against the rule database."""
from __future__ import annotations

import dataclasses
import re
from typing import Iterable, Iterator

from portkit.analyze.findings import rule_finding, simple_finding
from portkit.analyze.registry import Context, analyzer
from portkit.codes import API_UNKNOWN
from portkit.model import Finding, Occurrence, ParsedFile, Role, Span

# Names that look like CUDA APIs; those no rule knows are listed, never dropped.
CUDA_LOOKING = re.compile(
    r"^(cuda[A-Z_]\w*|cu[A-Z][a-z]\w*|CU_\w+|CUDA_\w+|CU[a-z]\w+|curand\w*|CURAND_\w+|cublas\w*|CUBLAS\w*"
    r"|cusolver\w*|CUSOLVER\w*|cusparse\w*|CUSPARSE\w*|cufft\w*|CUFFT\w*|cudnn\w*|CUDNN\w*|nccl[A-Z]\w*|NCCL_\w+"
    r"|nvtx[A-Z]\w*|NVTX_\w+|nvml[A-Z]\w*|NVML_\w+|cupti[A-Z]\w*|CUPTI_\w+|nvrtc[A-Z]\w*|NVRTC_\w+|__nv_\w+"
    r"|(thrust|cub|cooperative_groups|nvcuda|wmma|cuda|cutlass|cute|nvinfer1|nvonnxparser|cudnn_frontend)::\w[\w:<>,\s*]*)$"
)
CUDA_LOOKING_HEADER = re.compile(r"^(cuda\w*\.h|cu[a-z]+\w*\.h|nccl\w*\.h|nvtx\w*\.h|nvml\.h|cupti\w*\.h|nvrtc\.h"
                                 r"|(thrust|cub|cuda|cooperative_groups|nvtx3|cutlass|cute)/.*)$")
NAME_ROLES = {Role.CALL, Role.TYPE, Role.IDENTIFIER, Role.MACRO_BODY}
UNKNOWN_ADVICE = "Check the name, or add a rule for it with --rules."


def is_interesting(name: str, known: frozenset[str]) -> bool:
    """What the parser should keep: names a rule knows, or that look like CUDA."""
    return name in known or CUDA_LOOKING.match(name) is not None


def _qualified(path: str, occurrence: Occurrence, context: Context) -> Finding | None:
    """`thrust::cuda::par`, `cg::this_grid()` (through the alias), `cutlass::gemm::device::Gemm<...>`."""
    text = occurrence.text
    head, _, rest = text.partition("::")
    aliases = dict(context.aliases)
    expanded = f"{aliases[head]}::{rest}" if head in aliases and rest else text
    rule, prefix = context.rules.lookup_qualified(expanded)
    if rule is None:
        if CUDA_LOOKING.match(expanded):
            return simple_finding(path, occurrence, API_UNKNOWN, f"{expanded} looks like a CUDA name, but no rule knows it",
                                  UNKNOWN_ADVICE)
        return None
    exact = expanded == text and occurrence.span.end - occurrence.span.start == len(text.encode())
    target = dataclasses.replace(occurrence, span=Span(occurrence.span.start, occurrence.span.start + len(prefix.encode())),
                                 text=prefix) if exact else None
    return rule_finding(path, rule, rule.cuda, occurrence.span, occurrence.position, context, occurrence.function, target)


def needs_aliases(occurrence: Occurrence, context: Context) -> bool:
    """A qualified name whose namespace may be an alias another file defines."""
    head = occurrence.text.partition("::")[0]
    return head not in dict(context.aliases) and context.rules.lookup_qualified(occurrence.text)[0] is None


def resolve_pending(pending: Iterable[tuple[str, tuple[tuple[str, str], ...], tuple[Occurrence, ...]]],
                    context: Context) -> Iterator[Finding]:
    """Qualified names that only the project-wide aliases resolve (`cg::` defined in a header).

    `pending` holds, per file, its path, its own namespace aliases and its unresolved qualified names.
    """
    aliases = dict(context.aliases)
    for path, own_aliases, occurrences in pending:
        local = {name for name, _ in own_aliases}
        for occurrence in occurrences:
            head = occurrence.text.partition("::")[0]
            if head in aliases and head not in local:
                finding = _qualified(path, occurrence, context)
                if finding is not None:
                    yield finding


@analyzer("source")
def analyze_names(parsed: ParsedFile, context: Context) -> Iterable[Finding]:
    for occurrence in parsed.occurrences:
        if occurrence.role is Role.QUALIFIED:
            finding = _qualified(parsed.path, occurrence, context)
            if finding is not None:
                yield dataclasses.replace(finding, engine="clang") if occurrence.get("engine") == "clang" else finding
        elif occurrence.role in NAME_ROLES:
            name = occurrence.text
            resolved = occurrence.get("engine") == "clang"  # clang already checked the declaration
            if name in context.project_names and not resolved:
                continue  # the project's own function, macro or type
            rule = context.rules.lookup(name)
            if rule is not None:
                finding = rule_finding(parsed.path, rule, name, occurrence.span, occurrence.position, context,
                                       occurrence.function, occurrence)
                if occurrence.detail.startswith("via macro "):  # clang engine: say which macro hides the call
                    finding = dataclasses.replace(finding, message=f"{finding.message} ({occurrence.detail})")
                yield dataclasses.replace(finding, shadowable=not resolved, engine="clang" if resolved else "tree-sitter")
            elif CUDA_LOOKING.match(name) and name not in context.project_declared:
                finding = simple_finding(parsed.path, occurrence, API_UNKNOWN,
                                         f"{name} looks like a CUDA name, but no rule knows it", UNKNOWN_ADVICE,
                                         shadowable=not resolved)
                yield dataclasses.replace(finding, engine="clang") if resolved else finding
        elif occurrence.role is Role.INCLUDE:
            rule = context.rules.header(occurrence.text)
            if rule is not None:
                yield rule_finding(parsed.path, rule, occurrence.text, occurrence.span, occurrence.position, context,
                                   occurrence.function, occurrence)
            elif CUDA_LOOKING_HEADER.match(occurrence.text) and occurrence.detail == "system":
                yield simple_finding(parsed.path, occurrence, API_UNKNOWN, f"<{occurrence.text}> looks like a CUDA header, but no rule knows it",
                                     "Check the header, or add a rule for it with --rules.")
