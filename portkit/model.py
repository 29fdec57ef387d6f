"""The values that flow through the pipeline: small, frozen, sortable.

Locations are 0-based byte offsets (`Span`) internally; 1-based line and column
(`Position`) only for output.
"""
from __future__ import annotations

import dataclasses
import enum
import functools
import operator
from types import MappingProxyType
from typing import TYPE_CHECKING, Mapping, NamedTuple, TypeVar, Union

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
    # Pickled as the constructor's arguments, not as a dict of fields: worker processes send the parent their
    # findings, with spans and fixes (a convert of 488 cuda-samples files: 13,090, 8.8 MB instead of 9.9 MB,
    # unpickled in 0.22-0.25 s of CPU instead of 0.26-0.27 s).
    values = operator.attrgetter(*(f.name for f in fields))
    cls.__reduce__ = lambda self: (cls, values(self) if len(fields) > 1 else (values(self),))  # type: ignore[assignment]
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
    LITERAL = "literal"  # a number literal operand of a binary expression, or added by `+=`
    SHARED_ARRAY = "shared_array"  # a __shared__ array declaration
    LAUNCH_BOUNDS = "launch_bounds"
    NAMESPACE_ALIAS = "namespace_alias"  # namespace cg = cooperative_groups; (text "cg", detail the target)
    CONSTANT = "constant"  # #define N 96, constexpr/const int N = 96, enum { N = 96 }: text the name, info its ValueFacts
    INITIALIZER = "initializer"  # a local variable's initial value (int lane = tid & 31): text the name, info its ValueFacts
    SUBSCRIPT = "subscript"  # an index into a __shared__ array: text the array, info SubscriptFacts
    MEMBER_DECLARATION = "member_declaration"  # `T *get();` in a class body: text "Class::get", detail its spaces
    OVERLOAD = "overload"  # a host function defined more than once in its file (info: its signature)
    STORAGE_CLASS = "storage_class"  # `register` (C++17 removed it): parts[0] runs to the next token
    MACRO_DEFINITION = "macro_definition"  # a function-like #define: text its name, parts[0] the line without newline
    # (an object-like one of a kept name too: detail "object", no parts)
    EMPTY_BRACES = "empty_braces"  # `x = {}`: text the variable, parts[0] the braces
    USING = "using"  # `using namespace X;` (text X, detail "namespace") or `using X::name;` (text X::name, detail "name")
    HANDLE_ARITHMETIC = "handle_arithmetic"  # `base + n` on a handle HIP makes a pointer: text the variable, detail its type
    AUTO_COORDINATE = "auto_coordinate"  # `auto i = threadIdx.x`: text the coordinate, parts[0] the `auto`
    MACRO_PRAGMA = "macro_pragma"  # `#pragma unroll` in a #define body: text the pragma's text, span from `#` to its end
    PRAGMA = "pragma"  # a #pragma directive: text its words, span from `#` to the line's end, info MacroFacts; or a
    # `_Pragma("...")` operator (detail "operator" in code, "define" in a #define body: portkit/parse/pragma_operators.py)
    STRING = "string"  # a string literal, in a file that calls a name the analyzers read strings for: text its value
    TYPE_ALIAS = "type_alias"  # `typedef unsigned int U32;`, `using U32 = uint32_t;`: text the name, detail the type


class CallFacts(NamedTuple):
    """A call's (and a __launch_bounds__'s): its argument texts, and the declared type of the variable it
    initialises or what it is assigned to (`x = f()`), or the return type of the function that returns it."""

    args: tuple[str, ...] = ()
    assigned_type: str = ""
    assigned_to: str = ""
    global_scope: bool = False  # `::f(x)`: the global namespace's f, not a project's namesake in its namespace
    # `return f(x);`: the declared return type of the function that returns the call's value, and its name
    returned_type: str = ""
    returned_by: str = ""
    # `#define SHFL_UP_SYNC __shfl_up_sync`: a call of the macro is a call of the name it stands for
    stands_for: str = ""

    def arg(self, index: int) -> str:
        return self.args[index] if 0 <= index < len(self.args) else ""


class NameFacts(NamedTuple):
    """Where a type or identifier stands: compared with a number in #if (the comparison, `>= 600`) or only tested
    there, the object of a member access, the name after `X::`, a compile-time context (`template-argument`...),
    after `struct`, or the type of a declaration (the names it declares, comma-separated)."""

    compared: str = ""
    # A compared macro that the same && or || chain also compares the other way (`X >= 860 && X <= 890`): a range of
    # NVIDIA generations, which AMD is in neither as written (undefined, 0) nor rewritten (newer than any).
    ranged: bool = False
    # A macro compared with a number where its value is read, not in an #if test: a #define body or code (`>= 800`).
    valued: str = ""
    accessed: bool = False
    scoped: bool = False
    constant: str = ""
    elaborated: bool = False
    declares: str = ""
    tested: bool = False  # only tested by the preprocessor (`#ifdef X`, `defined(X)`, `#if X`): a build switch
    macro_name: bool = False  # the name a #define defines: a fallback for CUDA's under #if (guarded.py)
    # A compared macro's #if/#elif: the bytes it selects (to its #elif, #else or #endif) and those it leaves
    # to the rest of the group, as (start, end): what a rewritten test would switch on or off.
    branch: tuple[int, int] | None = None
    otherwise: tuple[int, int] | None = None
    # A tested or compared macro whose #if/#elif chain also tests for HIP (`#elif defined(__HIP__)`): the project's
    # own HIP branch is what hipcc compiles, so the CUDA test stays as written (analyze/own_hip_branches.py).
    beside_hip: bool = False
    # ... the device-only functions each declares (portkit/parse/device_declarations.py); None where it holds more.
    branch_functions: tuple[str, ...] | None = ()
    otherwise_functions: tuple[str, ...] | None = ()
    # A tested macro that is its directive's whole test: how (`#ifdef`, `#ifndef`, `defined`, `!defined`); its
    # branches above say what a rewritten test switches on and off.
    alone: str = ""
    # The functions the side a true test selects defines `__device__` and the other side again for the host
    # (portkit/parse/host_twins.py: TwinFacts' fields): their names, the spaces to add (flat offset, line, column,
    # ADDED_SPACES index), and those the other side defines otherwise.
    twins: tuple[str, ...] = ()
    twin_edits: tuple[int, ...] = ()
    twins_left: tuple[str, ...] = ()
    global_scope: bool = False  # `::name`: the global namespace's name, not a project's namesake in its namespace
    # The type of a declaration: the names it declares as one pointer to the type or an array of it, comma-separated.
    declares_pointers: str = ""
    # A macro read as a number in code, neither tested nor compared (`int a = __CUDA_ARCH__;`, `printf("%d", X)`).
    read: bool = False


class QualifiedFacts(NamedTuple):
    """A qualified name: the byte length of its spelling up to the first blank, where it has one."""

    verbatim: int = 0


class LaunchFacts(NamedTuple):
    """A launch: spelled `<< <...>> >`, used as a value (`(k<<<...>>>(), check())`), whether its grid
    and its block are written `dim3(...)` already, and the kernels a local name it launches stands for
    (`auto kernel = &k<T>;`: k; `auto k = big ? a : b;`: a and b; parse/launch_alias.py)."""

    spaced: bool = False
    value: bool = False
    grid_dim3: bool = False
    block_dim3: bool = False
    kernels: tuple[str, ...] = ()


class FieldFacts(NamedTuple):
    """A member access: the binary operator around it and its other operand, the object (`grid` of
    `grid.sync()`), whether it is written (`prop.major = 0`), and the calls it is an argument of,
    innermost first ("f printf")."""

    operator: str = ""
    other: str = ""
    object: str = ""
    assigned: bool = False
    calls: str = ""


class OperandFacts(NamedTuple):
    """A number in a binary expression: the other operand, and the variable the expression sets; `named`, the
    project's macro that spells the number (`threadIdx.x >> WARP_SIZE_BITS` with `#define WARP_SIZE_BITS 5`)."""

    other: str = ""
    target: str = ""
    named: str = ""


class SharedArrayFacts(NamedTuple):
    """A `__shared__ T name[a][b];`: the element type, the dimensions as written, and `extern`."""

    type: str = ""
    dims: tuple[str, ...] = ()
    extern: bool = False


class FunctionFacts(NamedTuple):
    """A function definition's (or a member declaration's): its first two parameter types, whether a #if on
    HIP encloses it or it is in an #else/#elif, its execution spaces (and as spelled), its parameter count."""

    param_types: tuple[str, ...] = ()
    guarded: bool = False
    alternative: bool = False
    spaces: str = ""
    spelled: str = ""
    params: str = ""

    def param(self, index: int) -> str:
        return self.param_types[index] if index < len(self.param_types) else ""


class ValueFacts(NamedTuple):
    """A named constant's or a variable's initial value, as text."""

    value: str = ""


class SubscriptFacts(NamedTuple):
    """An index into a __shared__ array, and whether an enclosing `if`/`?:` tests it."""

    index: str = ""
    guarded: bool = False


class IncludeFacts(NamedTuple):
    """An #include inside `extern "C" { }`."""

    c_linkage: bool = False


class HandleFacts(NamedTuple):
    """Arithmetic on a handle: the operator."""

    operator: str = ""


class MacroFacts(NamedTuple):
    """A function-like #define or a #pragma directive (or `_Pragma` operator): whether a #if on HIP encloses it; for an
    operator in a #define body, the #define's `#define NAME(params)`."""

    guarded: bool = False
    definition: str = ""


class StringFacts(NamedTuple):
    """A string literal's: the variable it initialises or is assigned to, and per piece of a concatenation
    (`"a" "b"`) where its value starts in the whole value, the line it is on, and whether it is a raw string
    (whose lines are the file's)."""

    variable: str = ""
    starts: tuple[int, ...] = ()
    lines: tuple[int, ...] = ()
    raw: tuple[bool, ...] = ()

    def line_of(self, offset: int, value: str) -> int:
        """The file's line of the value's character at `offset`: in a raw string its own line, else its piece's."""
        if not self.starts:
            return 0
        piece = max(i for i, start in enumerate(self.starts) if start <= offset)
        start = self.starts[piece]
        return self.lines[piece] + (value.count("\n", start, offset) if self.raw[piece] else 0)


# Syntactic facts about one occurrence, one record per role (portkit/parse fills them, analyzers read them).
Facts = Union[CallFacts, NameFacts, QualifiedFacts, LaunchFacts, FieldFacts, OperandFacts, SharedArrayFacts,
              FunctionFacts, ValueFacts, SubscriptFacts, IncludeFacts, HandleFacts, MacroFacts, StringFacts]
FACT_RECORDS = {record.__name__: record for record in Facts.__args__}  # type: ignore[attr-defined]
_NO_FACTS = {record: record() for record in FACT_RECORDS.values()}
_Facts = TypeVar("_Facts", *Facts.__args__)  # type: ignore[misc, attr-defined]


class ClangFacts(NamedTuple):
    """A name the clang engine resolved to a CUDA declaration; `macro` the macro whose expansion it is in."""

    macro: str = ""


@quick_init
@dataclasses.dataclass(frozen=True, order=True)
class Occurrence:
    """One thing the parser saw: its role, its text, and where.

    `function` is the name of the enclosing function ("" at file scope): it gives
    findings a fingerprint that survives line moves. `parts` are sub-spans that
    rewrites need: a call's arguments; for a launch, the kernel expression, each
    <<<>>> argument and the argument list. `info` holds the syntactic facts of its
    role as a typed record (`CallFacts`, `NameFacts`...); `clang` is set for a name the
    clang engine resolved.
    """

    span: Span
    role: Role
    text: str
    position: Position
    function: str = ""
    detail: str = ""
    parts: tuple[Span, ...] = ()
    info: Facts | None = None
    clang: ClangFacts | None = None

    def spelled(self, span: Span, text: str) -> Occurrence:
        """The same occurrence with another span and text (dataclasses.replace costs three times as much)."""
        return Occurrence(span, self.role, text, self.position, self.function, self.detail, self.parts, self.info,
                          self.clang)

    def facts(self, record: type[_Facts]) -> _Facts:
        """Its facts as `record` (its role's), or that record with nothing set."""
        info = self.info
        return info if type(info) is record else _NO_FACTS[record]  # type: ignore[return-value]


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
    # Byte ranges of the branches hipcc never compiles for AMD (`#else` of `#if defined(__HIP_PLATFORM_AMD__)`): the
    # project's own NVIDIA side, where a name's HIP spelling that only AMD's library has would break NVIDIA builds.
    nvidia_side: tuple[tuple[int, int], ...] = ()
    # ... and the project's CUDA branches of a chain that also tests for HIP (`#if defined(__CUDACC__)` ... `#elif
    # defined(__HIP__)`): their tests stay CUDA's, so hipcc never compiles them for AMD, and they stay as written.
    cuda_side: tuple[tuple[int, int], ...] = ()
    # The project's own HIP switches (parse/hip_switches.py: `#ifdef USE_AMD_ROCM` around its HIP code) and the byte
    # ranges of the branches beside theirs: its CUDA side, no work for a build with the switch.
    hip_switches: tuple[str, ...] = ()
    hip_switch_side: tuple[tuple[int, int], ...] = ()
    # Byte ranges of the branches only a compile for some AMD GPUs takes (`#if defined(__gfx1100__)`): the project's
    # own AMD code, which knows its wavefront size.
    amd_only: tuple[tuple[int, int], ...] = ()
    first_define: int = -1  # the offset of its first #define after the preamble (an include guard's is in it)
    guarded: frozenset[str] = frozenset()  # CUDA names it defines in a preprocessor branch (for other compilers)
    # A project's own layer for HIP or another vendor (parse/vendor_layers.py: "hip", "other"; "" for other files),
    # and the file names it includes only in a branch of an #if chain with other branches.
    vendor_layer: str = ""
    alternative_includes: frozenset[str] = frozenset()
    # (file name, macro) for each file it includes in a branch one macro selects: a layer's switch (GGML_USE_HIP).
    include_switches: tuple[tuple[str, str], ...] = ()
    # (name, whether a branch that hipcc takes for AMD holds it) for each CUDA name it defines as HIP's, a port's alias
    # (`#define cudaMalloc hipMalloc`, typedef, using): what the project's own HIP layer maps (run/scope.py: HipLayer).
    hip_aliases: tuple[tuple[str, bool], ...] = ()
    # ... and each CUDA name it #defines as more than a rename (a function-like macro, another body), with whether such
    # a branch holds it: a layer's own definition, whose uses are left to it (outside any #if: where its file is one).
    hip_macros: tuple[tuple[str, bool], ...] = ()
    hip_includes: frozenset[str] = frozenset()  # the file names it includes in such a branch (its own HIP layer)
    shape: str = ""  # with a syntax error, the tree's structure (portkit/parse/recovery.py:tree_shape)
    # The project's macros the file spells that every definition makes one number (`#define FULL_MASK 0xffffffff` in
    # a header): (name, number), constants after the file's own.
    macro_numbers: tuple[tuple[str, str], ...] = ()

    # Facts many analyzers ask for, computed on first use (cached in the instance, frozen or not).
    def of(self, *roles: Role) -> tuple[Occurrence, ...]:
        """The occurrences with one of `roles`, in file order: each analyzer reads only its own kinds."""
        index = self._by_roles
        if len(roles) == 1:
            return index.get(roles[0], ())
        key = frozenset(roles)
        if key not in index:
            present = [index[role] for role in key if role in index]
            # With one of the roles present (or none), that role's own occurrences: no pass over the file's.
            index[key] = tuple(o for o in self.occurrences if o.role in key) if len(present) > 1 \
                else present[0] if present else ()
        return index[key]

    @functools.cached_property
    def _by_roles(self) -> dict[Role | frozenset[Role], tuple[Occurrence, ...]]:
        grouped: dict[Role, list[Occurrence]] = {}
        for o in self.occurrences:
            grouped.setdefault(o.role, []).append(o)
        return {role: tuple(found) for role, found in grouped.items()}

    @functools.cached_property
    def constants(self) -> Mapping[str, str]:
        """The file's named constants: name -> value text (the first definition wins), then the project's macros
        that stand for one number."""
        found: dict[str, str] = {}
        for o in self.of(Role.CONSTANT):
            found.setdefault(o.text, o.facts(ValueFacts).value)
        for name, number in self.macro_numbers:
            found.setdefault(name, number)
        return MappingProxyType(found)

    @functools.cached_property
    def device_functions(self) -> frozenset[str]:
        """The names of the file's kernels and __device__ functions."""
        return frozenset(o.text for o in self.of(Role.KERNEL, Role.DEVICE_FUNCTION))

    def declared_as(self, kind: str) -> set[str]:
        """The plain names the file declares with type `kind` (variables, parameters, members), where the
        parser keeps that type's name."""
        return {name for o in self.of(Role.TYPE) if o.text == kind for name in o.facts(NameFacts).declares.split(",") if name}

    def pointers_to(self, kind: str) -> set[str]:
        """The plain names the file declares as a pointer to type `kind` or an array of it (`__half2 *p, s[4]`)."""
        return {name for o in self.of(Role.TYPE) if o.text == kind
                for name in o.facts(NameFacts).declares_pointers.split(",") if name}


class Engine(str, enum.Enum):
    """Which parser found a name: clang only for a name it resolved to a CUDA declaration."""

    TREE_SITTER = "tree-sitter"
    CLANG = "clang"


class Backend(str, enum.Enum):
    """What rewrites a source file's code in convert (portkit adds its markers either way)."""

    NATIVE = "native"  # portkit's own edits, from the findings' fixes
    HIPIFY_PERL = "hipify-perl"  # an installed hipify-perl's text rewrite


class LaunchSyntax(str, enum.Enum):
    """How convert writes a kernel launch."""

    CUDA = "cuda"  # k<<<g, b>>>(...) kept: hipcc accepts it
    HIP = "hip"  # hipLaunchKernelGGL(k, g, b, 0, 0, ...)


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
    GUARD = "guard"  # put the lines of `span` under `#if text` ... `#endif` (with `otherwise` as its #else, if any)
    INCLUDE = "include"  # write the include target `text` (with its delimiters) over `span`
    LAUNCH = "launch"  # k<<<...>>>(...) -> hipLaunchKernelGGL(k, ...), from `parts`


C_CAST = ""  # a Cast's `cast` in a C file: C has no named casts


class Cast(NamedTuple):
    """Call argument `index` wrapped as `cast<type>(argument)`, or in C as `(type)(argument)`."""

    index: int
    cast: str  # static_cast, reinterpret_cast, const_cast; C_CAST in a C file
    type: str

    @property
    def opening(self) -> str:
        """What goes before the argument (a closing parenthesis goes after it)."""
        return f"({self.type})(" if self.cast == C_CAST else f"{self.cast}<{self.type}>("


class Replace(NamedTuple):
    """Call argument `index` written as `text` (a 32-bit lane mask as its 64-bit spelling)."""

    index: int
    text: str


class Drop(NamedTuple):
    """Call argument `index` left out, with its comma (an argument HIP's signature lacks)."""

    index: int


class Append(NamedTuple):
    """`text` written after call argument `index` (the trailing arguments CUDA defaults and HIP requires)."""

    index: int
    text: str


class Wrap(NamedTuple):
    """Call argument `index` wrapped as `macro(argument)` (a device symbol as HIP_SYMBOL(x))."""

    index: int
    macro: str


ArgEdit = Union[Cast, Replace, Drop, Append, Wrap]


@quick_init
@dataclasses.dataclass(frozen=True)
class Fix:
    """What convert may write for a finding, decided (portkit/analyze/rewrite.py); portkit/convert/edits.py
    makes the bytes."""

    action: FixAction
    span: Span
    text: str = ""
    parts: tuple[Span, ...] = ()
    drop_args: int = 0
    args: tuple[ArgEdit, ...] = ()  # call arguments to rewrite
    prerequisite: str = ""  # an include's: the HIP header to #include before it (nothing brings it earlier)
    spaced_chevrons: bool = False  # a launch's `<< <...>> >`, which nvcc accepts and clang does not
    launch_as_value: bool = False  # a launch used as a value: hipLaunchKernelGGL is a statement, `<<<>>>` stays
    # a launch's grid and block written `dim3(...)` already: wrapped again they would read dim3(dim3(...))
    grid_is_dim3: bool = False
    block_is_dim3: bool = False
    otherwise: str = ""  # a guard's #else lines (a macro's definition without what the guard keeps from hipcc)
    # an include's: the HIP headers of the type headers the CUDA header brought and HIP's does not (hip/hip_fp16.h
    # beside hipblas.h), each #included before it (analyze/brought_headers.py)
    companions: tuple[str, ...] = ()

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
    engine: Engine = dataclasses.field(default=Engine.TREE_SITTER, compare=False)
    # Left as written on purpose, and right as written: the project's own CUDA side beside its HIP branch
    # (analyze/own_hip_branches.py). Listed, but no work: the effort bills none, and a hazard gets no marker.
    settled: bool = dataclasses.field(default=False, compare=False)
    # ... in the project's NVIDIA side (a branch its own test of HIP's platform keeps from hipcc for AMD): no marker
    # from convert either; listed all the same (and off_amd).
    nvidia_side: bool = dataclasses.field(default=False, compare=False)
    # ... in code no build for AMD compiles: the NVIDIA side, the project's CUDA branch beside its HIP branch, the CUDA
    # side of its own HIP switch, another vendor's layer. No part of the readiness or of what the newest ROCm would
    # change (report/plan.py), where a settled name AMD does compile (its HIP layer maps it) counts as ready.
    off_amd: bool = dataclasses.field(default=False, compare=False)
    # Settled because the project's own HIP layer defines the name for hipcc where the file sees it: that layer's file
    # (analyze/own_hip_branches.py: settle_by_hip_layer); the shim leaves such a name to it.
    hip_layer: str = dataclasses.field(default="", compare=False)

    def sort_key(self) -> tuple[str, int, int, str, str]:
        """The deterministic order of every output (cheaper than comparing whole dataclasses)."""
        return self.path, self.position.line, self.position.column, self.code, self.name
