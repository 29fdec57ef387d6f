"""Building findings: one for a name a rule knows (with what convert may write), one for anything else."""
from __future__ import annotations

import dataclasses

from portkit.analyze.registry import Context
from portkit.codes import CODES, RENAMED_STATUSES, Status, code_for_status
from portkit.model import Finding, Fix, FixAction, Occurrence, Position, Role, Span
from portkit.rules import Resolution, Rule


def _status_message(rule: Rule, name: str, status: Status, hip: str, context: Context) -> str:
    library = context.rules.libraries.get(rule.library)
    title = library.title if library else rule.library
    target_lib = (library.hip_library if library else "") or "HIP"
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


def _delimited(path: str, style: str) -> str:
    return f"<{path}>" if style == "system" else f'"{path}"'


# What a call passes for "none" in a pointer argument.
NULL_POINTERS = frozenset({"NULL", "nullptr", "0"})
# A 32-bit "all lanes" mask and its 64-bit spelling: on a 64-lane wavefront it must name all 64.
FULL_MASKS_32 = frozenset({"0xffffffff", "0xFFFFFFFF", "0xffffffffu", "0xFFFFFFFFu", "0xffffffffU", "0xFFFFFFFFU",
                           "~0u", "~0U", "-1", "0xffffffffUL", "0xffffffffull", "~0"})
FULL_MASK_64 = "0xffffffffffffffffull"


def _argument_rewrites(occurrence: Occurrence, rule: Rule, resolution: Resolution) -> tuple[tuple[int, str], ...]:
    """Casts where HIP takes void* and CUDA a template, or where HIP's overloads make CUDA's one conversion
    ambiguous; lane masks widened to 64 bits; the trailing arguments
    CUDA defaults and HIP requires, written after the last one given."""
    rewrites = []
    for index, type_name in rule.cast_args:
        text = occurrence.get(f"arg{index}")
        # A pointer to const pointers (NVRTC's `const char* const*` options, or a `char**`): only const_cast
        # changes the inner qualifier; another pointer; a value CUDA converts.
        cast = "const_cast" if type_name.startswith("const ") and type_name.endswith("**") \
            else "reinterpret_cast" if "*" in type_name else "static_cast"
        if text and not text.startswith((f"{cast}<{type_name}>", f"({type_name})")):
            rewrites.append((index, f"{cast}<{type_name}>({{}})"))
    mask = occurrence.get(f"arg{rule.mask_arg}") if rule.mask_arg >= 0 and resolution.hip == rule.hip else ""
    if mask in FULL_MASKS_32:
        rewrites.append((rule.mask_arg, FULL_MASK_64))
    elif mask and not mask.startswith(("static_cast<unsigned long long>", "__activemask()")) \
            and not mask.lower().endswith("ull") and mask != FULL_MASK_64:
        rewrites.append((rule.mask_arg, "static_cast<unsigned long long>({})"))
    symbol = occurrence.get(f"arg{rule.symbol_arg}") if rule.symbol_arg >= 0 and resolution.hip == rule.hip else ""
    if symbol and not symbol.startswith("HIP_SYMBOL"):  # X on AMD, &X on NVIDIA: the source ports to both
        rewrites.append((rule.symbol_arg, "HIP_SYMBOL({})"))
    defaulted = _defaulted(occurrence, rule) if resolution.hip == rule.hip else None
    if defaulted is not None and all(index != defaulted[0] for index, _ in rewrites):
        rewrites.append(defaulted)
    extra = extra_argument(occurrence, rule)
    if extra is not None and extra[1] in NULL_POINTERS:
        rewrites.append((extra[0], ""))  # an argument HIP's signature lacks, passed empty: dropped
    return tuple(rewrites)


def extra_argument(occurrence: Occurrence, rule: Rule) -> tuple[int, str] | None:
    """For a call of a `null_args` count: the index and text of the argument HIP's signature lacks."""
    index = dict(rule.null_args).get(len(occurrence.parts)) if rule.null_args else None
    return (index, occurrence.get(f"arg{index}")) if index is not None else None


def _defaulted(occurrence: Occurrence, rule: Rule) -> tuple[int, str] | None:
    """`cudaStreamWaitEvent(s, e)` -> `hipStreamWaitEvent(s, e, 0)`: HIP declares no default for flags."""
    given = len(occurrence.parts)
    missing = [value for index, value in rule.default_args if index >= given]
    if not given or not missing or rule.default_args[0][0] > given:
        return None  # nothing to write after, nothing left out, or more left out than CUDA defaults
    return given - 1, "{}, " + ", ".join(missing)


def _comparison_fix(occurrence: Occurrence, compared: str, test: str) -> Fix | None:
    """`__CUDA_ARCH__ >= 600` asks for a device new enough: AMD device code counts as new enough
    (`defined(__HIP_DEVICE_COMPILE__)`), and as not older than anything (`<` becomes its negation).
    Host code keeps CUDA's meaning, where the macro is undefined and compares as 0."""
    operator = compared.split()[0]
    if operator in (">", ">="):
        return Fix(FixAction.RENAME, occurrence.parts[0], test)
    if operator in ("<", "<="):
        return Fix(FixAction.RENAME, occurrence.parts[0], f"!{test}")
    return None  # == and != name one NVIDIA generation: the marker says what to do


def _fix(occurrence: Occurrence | None, spelling: str, resolution: Resolution, context: Context, rule: Rule) -> Fix | None:
    """What convert may write for one use: the HIP spelling over the name, or None."""
    if occurrence is None or not spelling or resolution.status not in RENAMED_STATUSES:
        return None
    if occurrence.span.empty:
        return None  # written through a macro (clang engine): nothing of its own to rename
    if occurrence.text in context.project_declared:
        return None  # a local variable that happens to share the name
    if occurrence.role is Role.INCLUDE:
        return Fix(FixAction.INCLUDE, occurrence.span, _delimited(spelling, occurrence.detail)) if spelling != occurrence.text else None
    compared = occurrence.get("compared")
    if compared and rule.compare_as:
        return _comparison_fix(occurrence, compared, rule.compare_as)
    if occurrence.role is Role.FIELD and rule.fallback and spelling == rule.fallback and occurrence.parts \
            and not spelling.isidentifier():  # a name is the member older HIP calls it: renamed below
        return Fix(FixAction.RENAME, occurrence.parts[0], spelling)  # a member HIP lacks: its value, for the whole access
    if rule.hip_struct and spelling == rule.hip and occurrence.get("elaborated"):
        spelling = rule.hip_struct
    call = occurrence.role is Role.CALL
    rewrites = _argument_rewrites(occurrence, rule, resolution) if call else ()
    if call and rule.hip_for_args and spelling == rule.hip:  # counted as written: without a dropped argument
        spelling = dict(rule.hip_for_args).get(len(occurrence.parts) - sum(not text for _, text in rewrites), spelling)
    if spelling == occurrence.text and not rewrites:
        return None
    # A call passes its arguments (a mask CUDA defaults may be absent); elsewhere none can be seen.
    drop = min(resolution.drop_args, len(occurrence.parts)) if call else resolution.drop_args
    return Fix(FixAction.RENAME, occurrence.span, spelling, occurrence.parts if call else (), drop, args=rewrites)


def _resolved(rule: Rule, name: str, context: Context) -> tuple[Resolution, str, str, str]:
    """The resolution, code, spelling and message for a name: the same at each of its uses."""
    resolution = _hip_resolution(rule, context)
    spelling = _spelling(rule, resolution, context)
    return (resolution, code_for_status(resolution.status), spelling,
            _status_message(rule, name, resolution.status, spelling, context))


def rule_finding(path: str, rule: Rule, name: str, span: Span, position: Position, context: Context,
                 function: str = "", occurrence: Occurrence | None = None, shadowable: bool = False,
                 engine: str = "tree-sitter") -> Finding:
    """The finding for one use of a name a rule knows; `occurrence` (with the span to rename) when convert may rename it."""
    resolution, code, spelling, message = _resolved(rule, name, context)
    return Finding(
        path=path, position=position, code=code, name=name, message=message,
        severity=CODES[code].severity, library=rule.library, status=resolution.status,
        hip=spelling, advice=resolution.advice, function=function, span=span,
        fix=_fix(occurrence, spelling, resolution, context, rule) if context.fixes else None, shadowable=shadowable,
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
