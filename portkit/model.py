"""The values that flow through the pipeline: small, frozen, sortable.

Locations are 0-based byte offsets (`Span`) internally; 1-based line and column
(`Position`) only for output.
"""
from __future__ import annotations

import dataclasses
import enum
import functools
from types import MappingProxyType
from typing import TYPE_CHECKING, Mapping, TypeVar

if TYPE_CHECKING:
    from portkit.codes import Status

_Class = TypeVar("_Class")


def quick_init(cls: type[_Class]) -> type[_Class]:
    """Give a frozen dataclass a constructor that fills the instance dict directly.

    The generated one assigns each field through `object.__setattr__`, which costs
    2-3 times as much; a 1M-line scan builds millions of spans, occurrences and
    findings. Instances stay frozen: assignment after construction still raises.
    """
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    if any(f.default_factory is not dataclasses.MISSING for f in fields) or hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__}: quick_init supports plain defaults only")
    defaults = {f"_default_{f.name}": f.default for f in fields if f.default is not dataclasses.MISSING}
    parameters = ", ".join(f.name if f.default is dataclasses.MISSING else f"{f.name}=_default_{f.name}" for f in fields)
    body = "".join(f"\n    _fields['{f.name}'] = {f.name}" for f in fields)
    namespace = dict(defaults)
    exec(f"def __init__(self, {parameters}):\n    _fields = self.__dict__{body}", namespace)  # nosec B102: our own field names
    cls.__init__ = namespace["__init__"]  # type: ignore[misc]
    return cls


@quick_init
@dataclasses.dataclass(frozen=True, order=True)
class Span:
    """A half-open range of 0-based byte offsets into a source file."""

    start: int
    end: int

    @property
    def empty(self) -> bool:
        return self.end == self.start


@quick_init
@dataclasses.dataclass(frozen=True, order=True)
class Position:
    """1-based line and byte column, for output only."""

    line: int
    column: int


class Role(str, enum.Enum):
    """What a piece of source is, syntactically: the parser knows nothing about CUDA libraries."""

    CALL = "call"
    TYPE = "type"
    IDENTIFIER = "identifier"
    QUALIFIED = "qualified"
    MACRO_BODY = "macro_body"
    INCLUDE = "include"
    KERNEL = "kernel"
    DEVICE_FUNCTION = "device_function"
    LAUNCH = "launch"
    INLINE_ASM = "inline_asm"
    PREPROCESSOR_CONDITION = "preprocessor_condition"
    SUPPRESSION = "suppression"
    FIELD = "field"  # a member access: prop.major
    LITERAL = "literal"  # a number literal operand of a binary expression
    SHARED_ARRAY = "shared_array"  # a __shared__ array declaration
    LAUNCH_BOUNDS = "launch_bounds"
    NAMESPACE_ALIAS = "namespace_alias"  # namespace cg = cooperative_groups; (text "cg", detail the target)
    CONSTANT = "constant"  # #define N 96, constexpr/const int N = 96, enum { N = 96 }: text the name, info "value"
    INITIALIZER = "initializer"  # a local variable's initial value (int lane = tid & 31): text the name, info "value"
    SUBSCRIPT = "subscript"  # an index into a __shared__ array: text the array, info "index"
    MEMBER_DECLARATION = "member_declaration"  # `T *get();` in a class body: text "Class::get", detail its spaces
    OVERLOAD = "overload"  # a host function defined more than once in its file (info: its signature)
    STORAGE_CLASS = "storage_class"  # `register` (C++17 removed it): parts[0] runs to the next token
    MACRO_DEFINITION = "macro_definition"  # a function-like #define: text its name, parts[0] the line without newline
    EMPTY_BRACES = "empty_braces"  # `x = {}`: text the variable, parts[0] the braces
    USING = "using"  # `using namespace X;` (text X, detail "namespace") or `using X::name;` (text X::name, detail "name")
    HANDLE_ARITHMETIC = "handle_arithmetic"  # `base + n` on a handle HIP makes a pointer: text the variable, detail its type


@quick_init
@dataclasses.dataclass(frozen=True, order=True)
class Occurrence:
    """One thing the parser saw: its role, its text, and where.

    `function` is the name of the enclosing function ("" at file scope): it gives
    findings a fingerprint that survives line moves. `parts` are sub-spans that
    rewrites need: a call's arguments; for a launch, the kernel expression, each
    <<<>>> argument and the argument list. `info` holds syntactic facts as
    (key, value) pairs: a call's argument texts ("arg0"...) and the type it
    initialises ("assigned_type"), the compile-time context of an identifier
    ("constant"), a shared array's element type and dimensions.
    """

    span: Span
    role: Role
    text: str
    position: Position
    function: str = ""
    detail: str = ""
    parts: tuple[Span, ...] = ()
    info: tuple[tuple[str, str], ...] = ()

    def spelled(self, span: Span, text: str) -> Occurrence:
        """The same occurrence with another span and text (dataclasses.replace costs three times as much)."""
        return Occurrence(span, self.role, text, self.position, self.function, self.detail, self.parts, self.info)

    def get(self, key: str, default: str = "") -> str:
        for name, value in self.info:  # a handful of pairs: a loop beats building a dict
            if name == key:
                return value
        return default


@dataclasses.dataclass(frozen=True)
class ParsedFile:
    """What parsing one file produced.

    `definitions` are functions, macros, types and enumerators the file defines:
    such names are the project's own, not CUDA's; `internal` those of them only the
    file itself sees (a `static` function). `declared` are its variables and
    parameters, which only keep a name off the "unknown CUDA name" list.
    """

    path: str
    occurrences: tuple[Occurrence, ...]
    definitions: frozenset[str]
    declared: frozenset[str]
    lines: int
    error_line: int | None = None  # first line with a syntax error, if any
    internal: frozenset[str] = frozenset()  # definitions with internal linkage only (static functions...)
    preamble_end: int = 0  # where a #include or #define can go: after leading comments and the include guard
    preamble_line: int = 1  # the 1-based line at preamble_end
    newline: str = "\n"  # the file's line ending
    device_syntax: bool = False  # uses CUDA language extensions (__global__, threadIdx, <<<>>>...)
    # Byte ranges of the branches only a GPU compiler compiles (`#ifdef __CUDACC__`...), and whether the file
    # uses CUDA's language extensions outside them (a host compiler sees them).
    cuda_only: tuple[tuple[int, int], ...] = ()
    unguarded_device_syntax: bool = False
    first_define: int = -1  # the offset of its first #define after the preamble (an include guard's is in it)
    fallbacks: frozenset[str] = frozenset()  # CUDA names it defines in a preprocessor branch (for other compilers)
    shape: str = ""  # with a syntax error, the tree's structure (portkit/parse/recovery.py:tree_shape)

    # Facts many analyzers ask for, computed on first use (cached in the instance, frozen or not).
    def of(self, *roles: Role) -> tuple[Occurrence, ...]:
        """The occurrences with one of `roles`, in file order: each analyzer reads only its own kinds."""
        index = self._by_roles
        if len(roles) == 1:
            return index.get(roles[0], ())
        key = frozenset(roles)
        if key not in index:
            index[key] = tuple(o for o in self.occurrences if o.role in key)
        return index[key]

    @functools.cached_property
    def _by_roles(self) -> dict[Role | frozenset[Role], tuple[Occurrence, ...]]:
        grouped: dict[Role, list[Occurrence]] = {}
        for o in self.occurrences:
            grouped.setdefault(o.role, []).append(o)
        return {role: tuple(found) for role, found in grouped.items()}

    @functools.cached_property
    def constants(self) -> Mapping[str, str]:
        """The file's named constants: name -> value text (the first definition wins)."""
        found: dict[str, str] = {}
        for o in self.of(Role.CONSTANT):
            found.setdefault(o.text, o.get("value"))
        return MappingProxyType(found)

    @functools.cached_property
    def device_functions(self) -> frozenset[str]:
        """The names of the file's kernels and __device__ functions."""
        return frozenset(o.text for o in self.of(Role.KERNEL, Role.DEVICE_FUNCTION))

    def declared_as(self, kind: str) -> set[str]:
        """The plain names the file declares with type `kind` (variables, parameters, members), where the
        parser keeps that type's name."""
        return {name for o in self.of(Role.TYPE) if o.text == kind for name in o.get("declares").split(",") if name}


class Severity(str, enum.Enum):
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


@dataclasses.dataclass(frozen=True, order=True)
class Edit:
    """Replace the bytes of `span` with `replacement`."""

    span: Span
    replacement: bytes


class FixAction(str, enum.Enum):
    RENAME = "rename"  # write `text` over `span` (dropping `drop_args` leading call arguments; empty: arguments only)
    INSERT = "insert"  # write `text` at `span` (an empty span: an insertion)
    GUARD = "guard"  # put the lines of `span` under `#if text` ... `#endif`
    INCLUDE = "include"  # write the include target `text` (with its delimiters) over `span`
    LAUNCH = "launch"  # k<<<...>>>(...) -> hipLaunchKernelGGL(k, ...), from `parts`


@quick_init
@dataclasses.dataclass(frozen=True)
class Fix:
    """What convert may write for a finding, as facts; portkit/convert/edits.py makes the bytes."""

    action: FixAction
    span: Span
    text: str = ""
    parts: tuple[Span, ...] = ()
    drop_args: int = 0
    # a launch's: "spaced-chevrons" (`<< <...>> >`), "expression" (used as a value), "grid-dim3" and
    # "block-dim3" (the configuration argument is a `dim3(...)` already); an include's:
    # "requires-included" (an earlier include brings the header HIP needs first)
    flags: tuple[str, ...] = ()
    # Call arguments to rewrite: (index, template); "{}" in the template stands for the argument, and an empty
    # template drops it with its comma.
    args: tuple[tuple[int, str], ...] = ()

    @property
    def arguments_only(self) -> bool:
        """A rename that leaves the name as it is and rewrites only call arguments."""
        return self.action is FixAction.RENAME and self.span.empty and not self.text


@quick_init
@dataclasses.dataclass(frozen=True, order=True)
class Finding:
    """A fact about one place in a file, for reports, checks and conversion.

    Sorts by path, then position, then code, so every output is deterministic.
    `status` is set for API findings (a name matched against the rules), None otherwise.
    """

    path: str
    position: Position
    code: str
    name: str
    message: str
    severity: Severity = Severity.INFO
    library: str = ""
    status: Status | None = None
    hip: str = ""
    advice: str = ""
    function: str = ""
    span: Span = Span(0, 0)
    fix: Fix | None = dataclasses.field(default=None, compare=False)
    # Dropped when another file of the project defines `name` (its own function, macro, type).
    shadowable: bool = dataclasses.field(default=False, compare=False)
    # Which engine found it: "clang" for a name clang resolved to a CUDA declaration, else "tree-sitter".
    engine: str = dataclasses.field(default="tree-sitter", compare=False)

    def sort_key(self) -> tuple[str, int, int, str, str]:
        """The deterministic order of every output (cheaper than comparing whole dataclasses)."""
        return self.path, self.position.line, self.position.column, self.code, self.name
