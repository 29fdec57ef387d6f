"""Building findings: one for a name a rule knows (with what convert may write: portkit/analyze/rewrite.py),
one for anything else."""
from __future__ import annotations

import dataclasses

from portkit.analyze.registry import Context
from portkit.codes import CODES, Status, code_for_status
from portkit.analyze.rewrite import is_c_file, rule_fix
from portkit.model import Engine, Finding, Occurrence, Position, Span
from portkit.rules import Resolution, Rule


def _status_message(rule: Rule, name: str, status: Status, hip: str, context: Context) -> str:
    library = context.rules.libraries.get(rule.library)
    title = library.title if library else rule.library
    target_lib = (library.hip_library if library else "") or "HIP"
    if status is Status.SUPPORTED and rule.drop:
        return f"{name} ({title}) means nothing to HIP: convert deletes it"
    if status is Status.SUPPORTED:
        return f"{name} ({title}) maps to {hip or rule.roc}"
    if status is Status.PARTIAL:
        return f"{name} ({title}) maps to {hip or rule.roc or target_lib} with differences"
    if status is Status.REMOVED:
        return f"{name} ({title}) was removed from CUDA"
    if status is Status.UNAVAILABLE:
        if hip:
            return f"{name} ({title}) is not in the targeted HIP; the nearest spelling is {hip}"
        return f"{name} ({title}) has a HIP equivalent, but not in the targeted ROCm version"
    return f"{name} ({title}) has no {target_lib} equivalent"


def _spelling(rule: Rule, resolution: Resolution, context: Context) -> str:
    """The name convert writes. roc* names only when asked for: mixing hipX and rocX calls in one
    project does not compile (their handles and types differ)."""
    if context.prefer_roc and rule.roc_available(context.target) and resolution.hip == rule.hip:
        return rule.roc
    return resolution.hip


def _hip_resolution(rule: Rule, context: Context) -> Resolution:
    """The rule's resolution for a hip* port: a name only the roc* library has needs work there."""
    resolution = rule.resolve(context.target)
    if context.prefer_roc or rule.hip or not rule.roc or resolution.status is not Status.SUPPORTED:
        return resolution
    library = context.rules.libraries.get(rule.library)
    hip_library = (library.hip_library if library else "") or "the hip* library"
    roc_library = (library.roc_library if library else "") or "the roc* library"
    advice = f"{hip_library} has no equivalent; {roc_library} has {rule.roc} (convert --roc writes roc* names)."
    return dataclasses.replace(resolution, status=Status.PARTIAL, advice=f"{advice} {resolution.advice}".strip())


Resolved = tuple[Resolution, str, str, str]  # a name's resolution, code, spelling and message


def _resolved(rule: Rule, name: str, context: Context) -> Resolved:
    """The resolution, code, spelling and message for a name: the same at each of its uses."""
    resolution = _hip_resolution(rule, context)
    spelling = _spelling(rule, resolution, context)
    return (resolution, code_for_status(resolution.status), spelling,
            _status_message(rule, name, resolution.status, spelling, context))


def rule_finding(path: str, rule: Rule, name: str, span: Span, position: Position, context: Context,
                 function: str = "", occurrence: Occurrence | None = None, shadowable: bool = False,
                 engine: Engine = Engine.TREE_SITTER, resolutions: dict[tuple[int, str], Resolved] | None = None) -> Finding:
    """The finding for one use of a name a rule knows; `occurrence` (with the span to rename) when convert may rename it.
    `resolutions`: the caller's, by rule and name, for a file that uses a name many times (`_resolved` was a fifth
    of the names analyzer's time over the 1M-line scale tree)."""
    key = (id(rule), name)
    resolved = resolutions.get(key) if resolutions is not None else None
    if resolved is None:
        resolved = _resolved(rule, name, context)
        if resolutions is not None:
            resolutions[key] = resolved
    resolution, code, spelling, message = resolved
    return Finding(
        path=path, position=position, code=code, name=name, message=message,
        severity=CODES[code].severity, library=rule.library, status=resolution.status,
        hip=spelling, advice=resolution.advice, function=function, span=span,
        fix=rule_fix(occurrence, spelling, resolution, context, rule, is_c_file(path)) if context.fixes else None,
        shadowable=shadowable,
        engine=engine,
    )


def simple_finding(path: str, occurrence: Occurrence, code: str, message: str, advice: str = "",
                   shadowable: bool = False) -> Finding:
    """A finding about an occurrence that is not a rule match: inventory, hazards, unknown names."""
    return Finding(
        path=path, position=occurrence.position, code=code, name=occurrence.text, message=message,
        severity=CODES[code].severity, advice=advice, function=occurrence.function, span=occurrence.span,
        shadowable=shadowable,
    )
