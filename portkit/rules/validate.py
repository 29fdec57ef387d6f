"""Validate a rule file's data: every error names the file, the entry and the key."""
from __future__ import annotations

import math
import re
from typing import Any

from portkit.codes import ALL_STATUSES, RULE_STATUSES, Status
from portkit.errors import RuleFileError
from portkit.rules.snippets import HELPER_PREFIX, helper_named, helper_providing
from portkit.rules.model import KINDS, SPECIAL_KINDS, Library, Rule
from portkit.rules.patterns import catastrophic
from portkit.rules.versions import VERSION_RE, parse_version

# What a `hip`/`roc` value may be, by kind: it is written into converted code as it is, so never
# code (`system("..."); hipCall`), only a name, a type, a header path or a library name.
_NAME = re.compile(r"~?[A-Za-z_]\w*(::~?[A-Za-z_]\w*)*")
_TYPE = re.compile(r"[A-Za-z_][\w:<>,*& ]*")
_HIP_NAME = {kind: _NAME for kind in KINDS} | {"type": _TYPE, "header": re.compile(r"\w[\w.+-]*(/\w[\w.+-]*)*"),
                                               "link": re.compile(r"\w[\w.+-]*")}
_HIP_NAME_WORDS = {kind: "name (an identifier, qualified or not)" for kind in KINDS} | {
    "type": "type name", "header": "header path", "link": "library name"}

_LIBRARY_KEYS = {"library", "title", "hip_library", "roc_library", "hip_library_added", "weights", "vendored", "hip_amd_only",
                 "versions_of", "entries"}
_ENTRY_KEYS = {
    "cuda", "kind", "hip", "roc", "status", "note", "action", "weight", "pattern",
    "cmake", "hip_cmake", "cuda_added", "cuda_deprecated", "cuda_removed",
    "hip_added", "hip_deprecated", "hip_removed", "hip_experimental", "older_hip", "older_hip_drop_args", "older_hip_until",
    "roc_added",
    "hip_requires", "hip_define", "hip_define_until", "cast_args", "const_args", "const_args_until",
    "default_args", "c_default_args", "mask_arg", "c_library", "keep_compared",
    "form_rule", "null_args", "helper", "hip_pointer", "symbol_arg", "cuda_host", "compute_arg", "hip_cxx_only", "declares",
    "cuda_brings", "hip_brings", "drop",
}
# What convert writes where it depends on the shape of the use (the call's arguments, a comparison, a struct tag, the
# call a constant is passed to): each key is for a few rules, so they live under one `shape:` sub-map of an entry.
SHAPE_KEYS = ("compare_as", "hip_struct", "hip_for_args", "form_args", "argument_of", "older_hip_in", "as_compute",
              "coordinate_cast", "compare_as_declarations")
_VERSION_KEYS = ("cuda_added", "cuda_deprecated", "cuda_removed", "hip_added", "hip_deprecated", "hip_removed", "roc_added",
                 "hip_define_until", "older_hip_until", "const_args_until")
_STATUS_WORDS = ", ".join(RULE_STATUSES)
# Keys renamed since rule files were first written: a file with the old name is refused, with the new one.
RENAMED_KEYS = {"fallback": "older_hip", "fallback_drop_args": "older_hip_drop_args"}
# Keys that map a CUDA call to a string, for a constant passed to it: what the string is, with an example.
_CALL_MAPS = {
    "argument_of": "the entry a constant passed to it stands for, e.g. {cudaGraphicsGLRegisterBuffer: cudaGraphicsRegisterFlagsNone}",
    "older_hip_in": "the constant's spelling where convert writes that call's older_hip, e.g. {cublasGemmEx: HIPBLAS_R_16F}",
}
# Keys that map an argument index (or count) to a string: what the string is, and an example.
INDEX_MAPS = {
    "cast_args": ("argument index to a type", '{0: "void**"}'),
    "const_args": ("argument index to the type without const", '{8: "float*"}'),
    "default_args": ("argument index to the value CUDA defaults", '{2: "0"}'),
    "c_default_args": ("argument index to the value HIP's C++ overload defaults", '{2: hipHostMallocDefault}'),
    "hip_for_args": ("argument count to a HIP name", "{3: hipGraphInstantiateWithFlags}"),
    "form_args": ("argument index to the CUDA type (or a list of types) that makes a call form_rule's form; a type "
                  "ending in * a pointer to that type", '{2: cudaMemLocation}, {0: ["__half2*", "half2*"]}'),
}


def _fail(source: str, where: str, message: str) -> RuleFileError:
    return RuleFileError(f"{source}: {where}: {message}" if where else f"{source}: {message}")


MAX_COMPUTE_ARG = 31
# A header's lists: each item's pattern, and what the list holds.
_LISTS = {"declares": (_NAME, "the CUDA names the header brings, e.g. [cooperative_groups::reduce]"),
          "cuda_brings": (_HIP_NAME["header"], "the CUDA headers the header includes, e.g. [cuda_fp16.h]"),
          "hip_brings": (_HIP_NAME["header"], "the HIP headers its HIP header includes, e.g. [hip/hip_fp16.h]")}
MAX_WEIGHT = 10_000  # hours for one name: anything larger is a typo, and sums of huge weights overflow to inf


def _is_weight(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value) and 0 <= value <= MAX_WEIGHT


def _is_index(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 16


def _value(source: str, where: str, key: str, value: Any) -> Any:
    """One entry value, checked for its key's type."""
    if key == "weight":
        if not _is_weight(value):
            raise _fail(source, where, f"key 'weight': must be a number from 0 to {MAX_WEIGHT}")
        return float(value)
    if key == "older_hip_drop_args":
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 16:
            raise _fail(source, where, "key 'older_hip_drop_args': must be an integer from 0 to 16")
        return value
    if key == "form_args" and isinstance(value, dict):  # an index may list several types: one pair per type
        value = [(k, v) for k, types in value.items() for v in (types if isinstance(types, list) and types else [types])]
        if not all(_is_index(k) and isinstance(v, str) and v for k, v in value):
            what, example = INDEX_MAPS[key]
            raise _fail(source, where, f"key {key!r}: a mapping from {what}, e.g. {example}")
        return tuple(sorted(value))
    if key in INDEX_MAPS:
        if not isinstance(value, dict) or not all(_is_index(k) and isinstance(v, str) and v for k, v in value.items()):
            what, example = INDEX_MAPS[key]
            raise _fail(source, where, f"key {key!r}: a mapping from {what}, e.g. {example}")
        return tuple(sorted(value.items()))
    if key == "null_args":
        if not isinstance(value, dict) or not all(_is_index(k) and _is_index(v) and v < k for k, v in value.items()):
            raise _fail(source, where, "key 'null_args': a mapping from argument count to the index of the argument "
                                       "a null pointer may stand for, e.g. {5: 3}")
        return tuple(sorted(value.items()))
    if key in _CALL_MAPS:
        if not isinstance(value, dict) or not value or not all(isinstance(k, str) and k and isinstance(v, str) and v
                                                               for k, v in value.items()):
            raise _fail(source, where, f"key {key!r}: a mapping from a CUDA call to {_CALL_MAPS[key]}")
        return tuple(sorted(value.items()))
    if key in _LISTS:
        pattern, what = _LISTS[key]
        if not isinstance(value, list) or not value or not all(isinstance(v, str) and pattern.fullmatch(v) for v in value):
            raise _fail(source, where, f"key {key!r}: a list of {what}")
        return tuple(value)
    if key in ("mask_arg", "symbol_arg"):
        if not _is_index(value):
            raise _fail(source, where, f"key {key!r}: an argument index from 0 to 16")
        return value
    if key == "compute_arg":  # the last of cublasGemmStridedBatchedEx's 23 arguments but one
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COMPUTE_ARG:
            raise _fail(source, where, f"key 'compute_arg': an argument index from 0 to {MAX_COMPUTE_ARG}")
        return value
    if key in ("hip_experimental", "c_library", "hip_pointer", "keep_compared", "drop"):
        if not isinstance(value, bool):
            raise _fail(source, where, f"key {key!r}: must be true or false")
        return value
    if not isinstance(value, str):
        raise _fail(source, where, f"key {key!r}: must be a string")
    if key in _VERSION_KEYS and not VERSION_RE.match(value):
        raise _fail(source, where, f"key {key!r}: {value!r} is not a version like 6.2 or 6.2.0")
    if key in ("hip", "older_hip") and value.startswith(HELPER_PREFIX) and helper_providing(value) is None:
        raise _fail(source, where, f"key {key!r}: {value!r} is no helper's name (rules/_helpers.yaml lists them)")
    if key == "helper" and helper_named(value) is None:
        raise _fail(source, where, f"key 'helper': {value!r} is no helper (rules/_helpers.yaml lists them)")
    return value


def _status(source: str, where: str, values: dict[str, Any]) -> Status:
    """The explicit status, else the one the entry implies."""
    if "status" not in values:
        if values.get("cuda_removed"):
            return Status.REMOVED
        return Status.SUPPORTED if values.get("hip") or values.get("roc") else Status.UNSUPPORTED
    if values["status"] not in RULE_STATUSES:
        raise _fail(source, where, f"key 'status': {values['status']!r} is not one of {_STATUS_WORDS}")
    return Status(values["status"])


def _flattened(source: str, where: str, raw: dict[Any, Any]) -> dict[Any, Any]:
    """The entry with its `shape` sub-map's keys among the others (a Rule's fields are flat)."""
    moved = next((key for key in SHAPE_KEYS if key in raw), None)
    if moved is not None:
        raise _fail(source, where, f"key {moved!r} now goes under 'shape' (shape: {{{moved}: ...}}): move it")
    shape = raw.get("shape")
    if shape is None:
        return raw
    if not isinstance(shape, dict) or not shape:
        raise _fail(source, where, f"key 'shape': a mapping of one or more of {', '.join(SHAPE_KEYS)}")
    unknown = sorted(set(shape) - set(SHAPE_KEYS), key=str)
    if unknown:
        raise _fail(source, where, f"key 'shape': unknown key {unknown[0]!r} (it holds {', '.join(SHAPE_KEYS)})")
    return {**{key: value for key, value in raw.items() if key != "shape"}, **shape}


def parse_entry(source: str, library: str, index: int, raw: Any, versions_of: str = "") -> Rule:
    where = f"entry {index + 1}"
    if not isinstance(raw, dict):
        raise _fail(source, where, "must be a mapping")
    if isinstance(raw.get("cuda"), str):
        where += f" ({raw['cuda']})"
    raw = _flattened(source, where, raw)
    unknown = sorted(set(raw) - _ENTRY_KEYS - set(SHAPE_KEYS), key=str)
    if unknown:
        renamed = RENAMED_KEYS.get(unknown[0])
        raise _fail(source, where, f"key {unknown[0]!r} is now {renamed!r} (the spelling for an older HIP): rename it"
                    if renamed else f"unknown key {unknown[0]!r}")
    for key in ("cuda", "kind"):
        if not isinstance(raw.get(key), str) or not raw[key]:
            raise _fail(source, where, f"key {key!r}: required, a non-empty string")
    if raw["kind"] not in KINDS:
        raise _fail(source, where, f"key 'kind': {raw['kind']!r} is not one of {', '.join(KINDS)}")
    values = {key: _value(source, where, key, value) for key, value in raw.items() if value is not None}
    values["status"] = _status(source, where, values)
    if values["status"] is Status.SUPPORTED and not (values.get("hip") or values.get("roc") or values.get("drop")):
        raise _fail(source, where, f"status '{Status.SUPPORTED}' needs a 'hip' or 'roc' name, or 'drop: true'")
    if values.get("drop") and (values.get("hip") or values["kind"] != "macro"):
        raise _fail(source, where, "key 'drop' is for a macro HIP has no use for: it takes no 'hip' name")
    if bool(values.get("form_args") or values.get("null_args")) != bool(values.get("form_rule")):
        raise _fail(source, where, "key 'form_rule' goes with 'form_args' or 'null_args'")
    if values["kind"] == "header" and values["cuda"].endswith("/") and (values.get("hip") or values.get("roc")):
        raise _fail(source, where, "a directory's rule (a path ending in '/') is for the headers below it that no entry "
                                   "names, and maps none: give each header with a HIP twin its own entry")
    if values.get("older_hip_until") and not (values.get("older_hip") and values.get("hip")):
        raise _fail(source, where, "key 'older_hip_until' needs a 'hip' name and the 'older_hip' written before that version")
    if bool(values.get("const_args")) != bool(values.get("const_args_until")) or values.get("const_args") and not values.get("hip"):
        raise _fail(source, where, "keys 'const_args' and 'const_args_until' go together, with a 'hip' name")
    for key in ("declares", "cuda_brings", "hip_brings"):
        if values.get(key) and values["kind"] != "header":
            raise _fail(source, where, f"key {key!r} is for a header's entry")
    if values["kind"] == "field" and "::" not in values["cuda"]:
        raise _fail(source, where, "kind 'field' needs a name like Struct::member")
    if values["kind"] == "asm":
        if not values.get("pattern"):
            raise _fail(source, where, "kind 'asm' needs a 'pattern'")
        try:
            re.compile(values["pattern"])
        except (re.error, RecursionError, OverflowError) as exc:
            raise _fail(source, where, f"key 'pattern': not a regular expression: {exc}") from None
        problem = catastrophic(values["pattern"])
        if problem:
            raise _fail(source, where, f"key 'pattern': {problem} could take exponential time; "
                                       "rewrite it so that each repetition starts or ends with a character only it has")
    for key in ("hip", "roc"):
        if key in values and not _HIP_NAME[values["kind"]].fullmatch(values[key]):
            raise _fail(source, where, f"key {key!r}: {values[key]!r} is not a {_HIP_NAME_WORDS[values['kind']]}; "
                                       "convert writes it into code as it is")
    return Rule(library=library, source=source, versions_of=versions_of, **values)


def _weights(source: str, data: dict[str, Any]) -> dict[str, float]:
    weights = data.get("weights") or {}
    if not isinstance(weights, dict) or any(k not in ALL_STATUSES or not _is_weight(v) for k, v in weights.items()):
        raise _fail(source, "", f"key 'weights': a mapping from {', '.join(ALL_STATUSES)} to numbers from 0 to {MAX_WEIGHT}")
    return {Status(k): float(v) for k, v in weights.items()}  # the rest: DEFAULT_WEIGHTS, when asked


def _check_library_added(source: str, data: dict[str, Any], rules: list[Rule]) -> None:
    """No HIP name of a library is older than the library: a name the tables give no version (hipBLASLt's
    hipblasLtMatrixLayout_t) would otherwise count as available, and convert write it, where the library is not."""
    first = data.get("hip_library_added")
    if first is None:
        return
    if not isinstance(first, str) or not VERSION_RE.match(first):
        raise _fail(source, "", f"key 'hip_library_added': {first!r} is not a version like 6.2 or 6.2.0")
    for rule in rules:
        if rule.hip and not rule.hip.startswith(HELPER_PREFIX) and (
                not rule.hip_added or parse_version(rule.hip_added) < parse_version(first)):
            added = f"is {rule.hip_added}" if rule.hip_added else "is missing"
            raise _fail(source, f"entry {rule.cuda}", f"key 'hip_added' {added}: {data.get('hip_library') or 'the HIP library'} "
                                                      f"first shipped in ROCm {first} (hip_library_added), so its names cannot be older")


def parse_library(source: str, data: Any) -> tuple[Library, list[Rule]]:
    """Validate one rule file's contents."""
    if not isinstance(data, dict):
        raise _fail(source, "", "a rule file must be a mapping with 'library' and 'entries'")
    unknown = sorted(set(data) - _LIBRARY_KEYS, key=str)
    if unknown:
        raise _fail(source, "", f"unknown top-level key {unknown[0]!r}")
    library = data.get("library")
    if not isinstance(library, str) or not re.match(r"^[a-z0-9][a-z0-9-]*$", library):
        raise _fail(source, "", "key 'library': required, lowercase letters, digits and '-'")
    entries = data.get("entries")
    if not isinstance(entries, list):
        raise _fail(source, "", "key 'entries': required, a list")
    weights = _weights(source, data)
    vendored = data.get("vendored", False)
    if not isinstance(vendored, bool):
        raise _fail(source, "", "key 'vendored': must be true or false")
    hip_amd_only = data.get("hip_amd_only", False)
    if not isinstance(hip_amd_only, bool):
        raise _fail(source, "", "key 'hip_amd_only': must be true or false")
    versions_of = data.get("versions_of", "")
    if not isinstance(versions_of, str):
        raise _fail(source, "", "key 'versions_of': the product whose releases the entries' cuda_* versions number "
                                "(cuDNN), a string")
    rules = [parse_entry(source, library, i, raw, versions_of) for i, raw in enumerate(entries)]
    seen: set[tuple[str, str]] = set()
    for rule in rules:
        key = (rule.kind if rule.kind in SPECIAL_KINDS else "name", rule.cuda)
        if key in seen:
            raise _fail(source, f"entry {rule.cuda}", "defined twice in this file")
        seen.add(key)
    _check_library_added(source, data, rules)
    older_calls = {rule.cuda for rule in rules if rule.older_hip and rule.hip_added}
    for rule in rules:
        if rule.form_rule and ("name", rule.form_rule) not in seen:
            raise _fail(source, f"entry {rule.cuda}", f"key 'form_rule': {rule.form_rule!r} is no entry of this file")
        for _, other in rule.argument_of:
            if ("name", other) not in seen:
                raise _fail(source, f"entry {rule.cuda}", f"key 'argument_of': {other!r} is no entry of this file")
        if rule.as_compute and ("name", rule.as_compute) not in seen:
            raise _fail(source, f"entry {rule.cuda}", f"key 'as_compute': {rule.as_compute!r} is no entry of this file")
        for call, _ in rule.older_hip_in:
            if call not in older_calls:
                raise _fail(source, f"entry {rule.cuda}", f"key 'older_hip_in': {call!r} is no entry of this file "
                                                          "with an older_hip")
    lib = Library(id=library, title=str(data.get("title") or library), hip_library=str(data.get("hip_library") or ""),
                  roc_library=str(data.get("roc_library") or ""), weights=weights, source=source, vendored=vendored,
                  hip_amd_only=hip_amd_only)
    return lib, rules
