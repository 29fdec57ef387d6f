"""Parse CUDA/C++ source bytes with tree-sitter-cuda into occurrences.

The parser knows C++ and CUDA syntax, not CUDA libraries: it reports what each
token is (a call, a type, an include, a kernel...) and where. tree-sitter-cuda
is used rather than tree-sitter-cpp because the latter turns `<<<...>>>` and
`__global__` into syntax errors (docs/parser.md).

Comments and string literals never produce occurrences: the queries below only
capture identifier-like nodes, which tree-sitter never creates inside them. The
one opaque region is a `#define` body, which is lexed separately.
"""
from __future__ import annotations

import bisect
import collections
import functools
import re
import string
from typing import Callable, Iterator

import tree_sitter_cuda
from tree_sitter import Language, Node, Parser, Query, QueryCursor, Tree

from portkit.model import Occurrence, ParsedFile, Position, Role, Span
from portkit.parse.fallbacks import Fallbacks
from portkit.parse.handles import handle_arithmetic
from portkit.parse.lexer import SUPPRESSION, layout_of
from portkit.parse.linkage import internal_linkage
from portkit.parse.macros import MacroTable, collect_macros
from portkit.parse.prepare import Prepared, prepare
from portkit.parse.recovery import MAX_QUERY_DEPTH, first_error_line, too_deep_line, tree_shape, unparsed_occurrences
from portkit.parse.spaces import function_declarator, member_owner, parameter_count, spaces_of, spelled_spaces
from portkit.textutil import BOM, LineIndex, within

# Patterns under one parent are one pattern with alternatives: building the query is a third of a run's
# start, and each pattern is analysed against the grammar on its own (merged: 0.076 -> 0.053 s, the same
# captures in the same order). The types a file defines are read from their few nodes in Python
# (`_defined_types`): as patterns they cost 0.016 s of the build.
_QUERY = """
(call_expression function: [(identifier) @call (template_function name: (identifier) @call)])
(identifier) @identifier
(type_identifier) @type
(qualified_identifier) @qualified
(preproc_include path: (_) @include)
(preproc_arg) @macro_body
(function_definition) @function
(field_declaration_list (field_declaration) @member)
(kernel_call_syntax) @launch
(gnu_asm_expression) @asm
(comment) @comment
(declaration [(type_qualifier) @qualifier declarator: (identifier) @declared])
(parameter_declaration [(type_qualifier) @parameter_qualifier declarator: (identifier) @declared])
((storage_class_specifier) @storage (#eq? @storage "register"))
(linkage_specification value: (string_literal) @linkage)
(preproc_function_def) @macro_function
(namespace_alias_definition) @namespace_alias
(using_declaration) @using
(field_expression field: (field_identifier) @field)
(preproc_if condition: (_) @condition) @condition_group
(preproc_elif condition: (_) @condition) @condition_group
(preproc_ifdef name: (identifier) @condition) @condition_group
(preproc_elifdef name: (identifier) @condition) @condition_group
(namespace_definition !name) @anonymous_namespace
[(class_specifier) (struct_specifier) (field_declaration_list)] @member_scope
(function_declarator declarator: [(identifier) (field_identifier)] @definition)
(preproc_def name: (identifier) @definition)
(preproc_function_def name: (identifier) @definition)
[(struct_specifier) (class_specifier) (union_specifier) (enum_specifier) (type_definition)] @defines_type
(enumerator name: (identifier) @definition)
(alias_declaration name: (type_identifier) @definition)
(namespace_definition name: (namespace_identifier) @definition)
(init_declarator declarator: (identifier) @declared)
(preproc_params (identifier) @declared)
(pointer_declarator declarator: [(identifier) (field_identifier)] @declared)
(array_declarator declarator: [(identifier) (field_identifier)] @declared)
(reference_declarator [(identifier) (field_identifier)] @declared)
(field_declaration declarator: (field_identifier) @declared)
(optional_parameter_declaration declarator: (identifier) @declared)
(preproc_def name: (identifier) @constant value: (preproc_arg))
(init_declarator declarator: (identifier) @constant value: (_))
(enumerator name: (identifier) @constant value: (_))
(assignment_expression left: (identifier) @empty_braces right: (initializer_list))
"""

# Occurrences only a few heuristics read (warp-size arithmetic, lane-indexed arrays, cooperative launches, launch
# bounds): made only when an analyzer that will run reads them (analyze.registry.roles_read).
OPTIONAL_ROLES = frozenset({Role.LITERAL, Role.SUBSCRIPT, Role.LAUNCH_BOUNDS, Role.INITIALIZER})

# The patterns that capture for an optional role alone: added to _QUERY only for a parse that makes the role
# (the query builds and matches faster without them).
_OPTIONAL_PATTERNS = {
    Role.LITERAL: "(binary_expression [left: (number_literal) @literal right: (number_literal) @literal])\n",
    Role.SUBSCRIPT: "(subscript_expression argument: (identifier) @subscript)\n",
    Role.LAUNCH_BOUNDS: "(launch_bounds) @launch_bounds\n",
}

# Macros whose tests in #if/#ifdef mark code that only one vendor's compiler sees.
CUDA_CONDITION_MACROS = re.compile(r"\b(__CUDA_ARCH\w*__|__CUDACC\w*__|__NVCC__|CUDART_VERSION|CUDA_VERSION|__CUDA_API_VERSION\w*)\b")
_MACRO_TOKEN = re.compile(
    rb'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|/\*.*?\*/|//[^\n]*|([A-Za-z_]\w*)', re.S
)
_ASM_IN_MACRO = re.compile(rb'\b(?:asm|__asm__)\s*(?:volatile|__volatile__)?\s*\(\s*((?:"(?:\\.|[^"\\])*"\s*)+)')
_STRING_CONTENT = re.compile(rb'"((?:\\.|[^"\\])*)"')
# A variable a #define body declares (`cudaError_t err = call;`): a name after a type, then `=`, `;` or `[`.
_MACRO_DECLARATION = re.compile(rb"\b([A-Za-z_]\w*)[\s*&]+([A-Za-z_]\w*)\s*[=;\[]")
_NOT_TYPES = frozenset(b"return else delete throw goto case new sizeof do".split())
_KERNEL_QUALIFIERS = {"__global__": Role.KERNEL, "__device__": Role.DEVICE_FUNCTION}
_QUALIFIER_SPACE = re.compile(r"\s*::\s*")
_SPACES = re.compile(r"\s+")
_BLANK = re.compile(rb"\s")
_TEMPLATE_TAIL = re.compile(r"<.*")
_C_LINKAGE = re.compile(rb'\bextern\s*"C"\s*\{')
_FIRST_NAME = re.compile(rb"\s*([A-Za-z_]\w*)")
_RESERVED = re.compile(rb"^__\w+__$")

Keep = Callable[[str], bool]
HipAlias = Callable[[str, str], bool]


@functools.lru_cache(maxsize=1)
def _language() -> Language:
    return Language(tree_sitter_cuda.language())


@functools.lru_cache(maxsize=4)
def _query(roles: frozenset[Role]) -> Query:
    """The query for a parse that makes the optional `roles`: each pattern costs its build and its matches."""
    return Query(_language(), _QUERY + "".join(p for role, p in _OPTIONAL_PATTERNS.items() if role in roles))


def compile_queries(roles: frozenset[Role] | None = None) -> None:
    """Build the query parsing needs now, once: worker processes forked afterwards share it
    instead of each spending 0.04 s building its own. `roles`: as `parse_source`'s."""
    _query(OPTIONAL_ROLES if roles is None else roles)


def _text(node: Node) -> str:
    text = node.text  # a new bytes object at each access
    return text.decode("utf-8", "replace") if text is not None else ""


def _position(node: Node) -> Position:
    row, column = node.start_point
    return Position(row + 1, column + 1)


def _function_name(node: Node) -> str:
    """The declared name of a function_definition (qualified names kept whole, one-line: `A::f`)."""
    declarator = function_declarator(node)
    name = declarator.child_by_field_name("declarator") if declarator is not None else None
    return _QUALIFIER_SPACE.sub("::", " ".join(_text(name).split())) if name is not None else ""


_ARGUMENT_TEXT_LIMIT = 80
# Where C++ needs a compile-time constant.
_CONSTANT_PARENTS = {"template_argument_list", "static_assert_declaration", "enumerator", "case_statement"}


def _constant_context(node: Node) -> str:
    """"array-size", "template-argument", "static-assert", "constexpr"... or ""."""
    child, parent = node, node.parent
    while parent is not None and parent.type not in ("compound_statement", "translation_unit", "function_definition"):
        if parent.type == "array_declarator" and child != parent.child_by_field_name("declarator"):
            return "array-size"
        if parent.type in _CONSTANT_PARENTS:
            return parent.type.replace("_declaration", "").replace("_list", "").replace("_", "-")
        if parent.type == "declaration" and any(c.type == "type_qualifier" and c.text == b"constexpr" for c in parent.children):
            return "constexpr"
        child, parent = parent, parent.parent
    return ""


_ARGUMENT_KEYS = tuple(f"arg{i}" for i in range(16))


def _argument_key(index: int) -> str:
    return _ARGUMENT_KEYS[index] if index < len(_ARGUMENT_KEYS) else f"arg{index}"


def _call(name: Node, source: bytes, texts: bool = True) -> tuple[tuple[Span, ...], tuple[tuple[str, str], ...]]:
    """A call's argument spans, given the identifier it calls; with `texts`, their texts, and the declared type
    when the call initialises a variable, or what it is assigned to (`x = f()`). (Each step up the tree walks
    down from the root: one walk, shared.)"""
    call = name.parent
    if call is not None and call.type == "template_function":
        call = call.parent
    if call is None or call.type != "call_expression":
        return (), ()
    arguments = call.child_by_field_name("arguments")
    spans = tuple([Span(c.start_byte, c.end_byte) for c in arguments.named_children if c.type != "comment"]) \
        if arguments is not None else ()
    if not texts:
        return spans, ()
    info = [(_argument_key(i), " ".join(source[a.start:a.end].decode("utf-8", "replace").split())[:_ARGUMENT_TEXT_LIMIT])
            for i, a in enumerate(spans)]
    holder = call.parent
    if holder is not None and holder.type == "init_declarator" and holder.parent is not None:
        declared = holder.parent.child_by_field_name("type")
        if declared is not None:
            info.append(("assigned_type", " ".join(_text(declared).split())))
    elif holder is not None and holder.type == "assignment_expression" and holder.child_by_field_name("right") == call:
        operator, left = holder.child_by_field_name("operator"), holder.child_by_field_name("left")
        if operator is not None and operator.text == b"=" and left is not None:
            info.append(("assigned_to", " ".join(_text(left).split())[:_ARGUMENT_TEXT_LIMIT]))
    return spans, tuple(info)


def _shared_array(declaration: Node) -> tuple[Node, tuple[tuple[str, str], ...]] | None:
    """The name and (element type, dimensions) of a `__shared__ T name[a][b];` declaration."""
    declarator = declaration.child_by_field_name("declarator")
    dims: list[str] = []
    while declarator is not None and declarator.type == "array_declarator":
        size = declarator.child_by_field_name("size")
        dims.insert(0, _text(size) if size is not None else "")
        declarator = declarator.child_by_field_name("declarator")
    if declarator is None or not dims:
        return None
    element = declaration.child_by_field_name("type")
    extern = any(c.type == "storage_class_specifier" and c.text == b"extern" for c in declaration.children)
    info = [("type", " ".join(_text(element).split()) if element is not None else "")]
    info += [("dim", d) for d in dims] + ([("extern", "1")] if extern else [])
    return declarator, tuple(info)


def _operands(literal: Node) -> tuple[tuple[str, str], ...]:
    """For a number in a binary expression: the other operand's text ("other") and the variable the
    expression initialises or is assigned to ("target"), which tell a lane id from other arithmetic."""
    expression = literal.parent
    assert expression is not None
    other = next((c for c in expression.named_children if c != literal and c.type != "comment"), None)
    info = [("other", " ".join(_text(other).split())[:_ARGUMENT_TEXT_LIMIT])] if other is not None else []
    holder = expression.parent
    while holder is not None and holder.type in ("parenthesized_expression", "binary_expression", "cast_expression"):
        holder = holder.parent
    target = holder.child_by_field_name("declarator" if holder.type == "init_declarator" else "left") \
        if holder is not None and holder.type in ("init_declarator", "assignment_expression") else None
    if target is not None:
        info.append(("target", _text(target)))
    return tuple(info)


_LINE_COMMENT = re.compile(r"//.*|/\*.*?\*/", re.S)  # a #define's value runs to the end of its line, comment included
_CONSTANT_VALUE = re.compile(r"[\w\s+\-*/%()<>|&~.]*\d[\w\s+\-*/%()<>|&~.]*")


def _named_value(name: Node, initializers: bool = True) -> tuple[Role, str] | None:
    """(CONSTANT, value) for `#define N 96`, `constexpr int N = 96`, `const unsigned N = 4 * K`, `enum { N = 96 }`
    when the value can be a constant expression (digits, names, operators); with `initializers`, (INITIALIZER,
    value) for any other variable initialised from names (`int lane = tid & 31`) and for a for-loop's
    variable; else None."""
    parent = name.parent
    value = parent.child_by_field_name("value") if parent is not None else None
    if parent is None or value is None:
        return None
    constant = parent.type != "init_declarator" or parent.parent is not None and any(
        c.type == "type_qualifier" and c.text in (b"const", b"constexpr") for c in parent.parent.children)
    if not constant and not initializers:
        return None  # most variables: their value's text is never read
    text = " ".join(_LINE_COMMENT.sub(" ", _text(value)).split())[:_ARGUMENT_TEXT_LIMIT]
    if constant and _CONSTANT_VALUE.fullmatch(text):
        return Role.CONSTANT, text
    if not initializers:
        return None
    loop = parent.parent.parent if parent.parent is not None else None  # for (int o = 16; ...): a loop's start
    if parent.type == "init_declarator" and (re.search(r"[A-Za-z_]", text) or loop is not None and loop.type == "for_statement"):
        return Role.INITIALIZER, text
    return None


def _field_use(field: Node | None, expression: Node | None) -> tuple[tuple[str, str], ...]:
    """How a member access is used: the other operand of its binary expression ("other"), the object
    (`grid` of `grid.sync()`), and the calls it is an argument of, innermost first ("call"), which tell
    `prop.major >= 7` and `printf(..., prop.major)` apart."""
    info = []
    if field is not None and expression is not None:
        other = next((c for c in expression.named_children if c != field and c.type != "comment"), None)
        if other is not None:
            info.append(("other", " ".join(_text(other).split())[:_ARGUMENT_TEXT_LIMIT]))
    if field is not None and field.type == "field_expression" and field.child_by_field_name("argument") is not None:
        info.append(("object", _text(field.child_by_field_name("argument"))[:_ARGUMENT_TEXT_LIMIT]))
    if field is not None and field.parent is not None and field.parent.type == "assignment_expression" \
            and field.parent.child_by_field_name("left") == field:
        info.append(("assigned", "1"))  # prop.major = 0: written, not read
    calls, node = [], field
    while node is not None and node.type not in ("compound_statement", "translation_unit", "expression_statement"):
        if node.type == "argument_list" and node.parent is not None and node.parent.child_by_field_name("function"):
            calls.append(_text(node.parent.child_by_field_name("function"))[:_ARGUMENT_TEXT_LIMIT])
        node = node.parent
    if calls:
        info.append(("call", " ".join(calls)))  # innermost first: printf(fmt, f(prop.major)) -> "f printf"
    return tuple(info)


def _guarded(node: Node, index: str) -> bool:
    """Whether an enclosing `if` or `?:` tests the index (`lane < num_warps ? s[lane] : 0`)."""
    words = set(re.findall(r"[A-Za-z_]\w*", index))
    while node.parent is not None and node.type not in ("compound_statement", "function_definition"):
        parent = node.parent
        condition = parent.child_by_field_name("condition") if parent.type in ("conditional_expression", "if_statement") else None
        if condition is not None and condition != node and words & set(re.findall(r"[A-Za-z_]\w*", _text(condition))):
            return True
        node = parent
    return False


_DECLARATIONS = ("declaration", "parameter_declaration", "field_declaration")


def _defined_types(nodes: list[Node]) -> list[Node]:
    """The names of the types that struct, class, union and enum specifiers with a body, and typedefs, define."""
    names: list[Node] = []
    for node in nodes:
        if node.type == "type_definition":
            for declarator in node.children_by_field_name("declarator"):
                names.extend(_typedef_names(declarator))
            continue
        name, body = node.child_by_field_name("name"), node.child_by_field_name("body")
        if name is not None and name.type == "type_identifier" and body is not None and body.is_named:
            names.append(name)
    return names


def _typedef_names(declarator: Node) -> list[Node]:
    """`typedef T name;`, `T *name`, `T name(int)`, `T (*name)(int)`: the name."""
    if declarator.type == "type_identifier":
        return [declarator]
    inner = declarator.child_by_field_name("declarator")
    if inner is None or declarator.type not in ("pointer_declarator", "function_declarator"):
        return []
    if inner.type == "type_identifier":
        return [inner]
    if declarator.type == "pointer_declarator" or inner.type != "parenthesized_declarator":
        return []
    pointed = [c.child_by_field_name("declarator") for c in inner.named_children if c.type == "pointer_declarator"]
    return [name for name in pointed if name is not None and name.type == "type_identifier"]


def _declared_names(declaration: Node) -> str:
    """The plain names a declaration of a type declares (`cudaMemLocation a = {...}, b;` → "a,b"; references
    too, not pointers or arrays): what a call argument spelled as one of them holds."""
    names = []
    for declarator in declaration.children_by_field_name("declarator"):
        if declarator.type == "init_declarator":
            declarator = declarator.child_by_field_name("declarator")
        if declarator is not None and declarator.type == "reference_declarator":
            declarator = declarator.named_children[0] if declarator.named_children else None
        if declarator is not None and declarator.type in ("identifier", "field_identifier"):
            names.append(_text(declarator))
    return ",".join(names)


def _position_key(occurrence: Occurrence) -> tuple[int, int, str]:
    return occurrence.span.start, occurrence.span.end, occurrence.role  # a str enum: orders by its value


def _span(node: Node) -> Span:
    return Span(node.start_byte, node.end_byte)


class _Scopes:
    """Answers "which function encloses this byte?" with a sorted interval list."""

    def __init__(self, functions: list[tuple[int, int, str]]):
        self._functions = sorted(functions)
        self._starts = [f[0] for f in self._functions]

    def name_at(self, offset: int) -> str:
        index = bisect.bisect_right(self._starts, offset) - 1
        while index >= 0:
            start, end, name = self._functions[index]
            if start <= offset < end:
                return name
            index -= 1
        return ""


_FLIPPED = {">": "<", ">=": "<=", "<": ">", "<=": ">=", "==": "==", "!=": "!="}


def _branches(directive: Node) -> tuple[tuple[str, str], ...]:
    """The bytes an #if/#elif selects ("branch": up to its #elif, #else or #endif) and those it leaves to the rest
    of the group ("otherwise"), as "start-end": what a rewritten test would switch on or off."""
    condition, alternative = directive.child_by_field_name("condition"), directive.child_by_field_name("alternative")
    if condition is None:
        return ()
    end = alternative.start_byte if alternative is not None else directive.end_byte
    spans = [("branch", f"{condition.end_byte}-{end}")]
    if alternative is not None:
        spans.append(("otherwise", f"{alternative.start_byte}-{alternative.end_byte}"))
    return tuple(spans)


def _constructs_dim3(node: Node) -> bool:
    """`dim3(x, y, z)` (a call of the name dim3), whose value is a dim3 as written."""
    function = node.child_by_field_name("function") if node.type == "call_expression" else None
    return function is not None and function.text == b"dim3"


def _comparison(name: Node) -> tuple[str, Node, tuple[tuple[str, str], ...]] | None:
    """For a macro compared with a number in #if/#elif (`__CUDA_ARCH__ >= 600`, `530 <= __CUDA_ARCH__`):
    ("<operator> <number>", read as the macro on the left, the comparison node, and the directive's `_branches`)."""
    expression = name.parent
    if expression is None or expression.type != "binary_expression":
        return None
    operator = expression.child_by_field_name("operator")
    left, right = expression.child_by_field_name("left"), expression.child_by_field_name("right")
    if operator is None or _text(operator) not in _FLIPPED or left is None or right is None:
        return None
    number, flip = (right, False) if left == name else (left, True)
    if number.type != "number_literal":
        return None
    node = expression.parent
    while node is not None and node.type not in ("preproc_if", "preproc_elif"):
        node = node.parent
    if node is None:
        return None
    op = _FLIPPED[_text(operator)] if flip else _text(operator)
    return f"{op} {_text(number)}", expression, _branches(node)


# Macros that configure HIP's headers (HIP_ENABLE_WARP_SYNC_BUILTINS): written before them on purpose.
_HIP_CONFIGURATION = re.compile(rb"HIP_ENABLE_\w+$|__HIP_\w+$")
_HIP_TESTS = re.compile(rb"__HIP_PLATFORM_AMD__|__HIP_PLATFORM_HCC__|__HIPCC__|__HIP__|__HIP_DEVICE_COMPILE__")


def _signature(function: Node) -> tuple[tuple[str, str], ...]:
    """The first two parameters' types (`double*`; references as their type), and whether a #if on HIP already
    encloses the definition."""
    info = []
    declarator = function_declarator(function)
    parameters = declarator.child_by_field_name("parameters") if declarator is not None else None
    declared = [p for p in parameters.named_children if p.type == "parameter_declaration"] if parameters else []
    for index, parameter in enumerate(declared[:2]):
        kind = parameter.child_by_field_name("type")
        if kind is not None:
            pointers = _text(parameter.child_by_field_name("declarator") or parameter).count("*")
            info.append((f"param{index}", " ".join(_text(kind).split()) + "*" * pointers))
    node = function.parent
    while node is not None:
        if _tests_for_hip(node):
            info.append(("guarded", "hip"))
            break
        if node.type in ("preproc_else", "preproc_elif", "preproc_elifdef"):
            info.append(("branch", "else"))  # one of a #if's alternatives: the other one may be its twin
            break
        node = node.parent
    return tuple(info)


def _tests_for_hip(node: Node) -> bool:
    """Whether `node` is a #if/#ifdef that tests for HIP (convert's own guard, or the project's)."""
    test = node.child_by_field_name("condition") or node.child_by_field_name("name")
    return node.type.startswith("preproc_if") and test is not None and _HIP_TESTS.search(test.text or b"") is not None


def _under_hip_test(node: Node) -> bool:
    """Whether a #if that tests for HIP encloses `node`."""
    parent = node.parent
    while parent is not None and not _tests_for_hip(parent):
        parent = parent.parent
    return parent is not None


_PRIMITIVE_TYPES = {"primitive_type", "sized_type_specifier", "auto", "placeholder_type_specifier"}


def _declaration_kind(name: Node, api: Keep | None) -> str:
    """How to read a declared name: "declared" (it is), "local" (a block-scope "function
    prototype" that is a variable: `dim3 grid(blocks);`, C++'s most vexing parse), or "use":
    inside a syntax error, or a statement macro without its `;` (`CHECK( cudaMemcpy(...) )`,
    read as a declaration of cudaMemcpy). A misparse never makes a CUDA API the project's own."""
    if name.parent is not None and name.parent.type in ("preproc_def", "preproc_function_def"):
        return "declared"  # a #define is a line of its own: no misparse around it makes one up
    node, through_function = name.parent, False
    while node is not None:
        if node.is_error or node.type == "ERROR" or node.has_error and node.type == "declaration":
            return "use"
        if node.type == "function_declarator":
            through_function = True
        elif node.type in ("function_definition", "parameter_list", "field_declaration_list"):
            return "declared"
        elif node.type == "declaration":
            if not (through_function and node.parent is not None and node.parent.type == "compound_statement"):
                return "declared"
            kind = node.child_by_field_name("type")
            if api is not None and api(_text(name)) and (kind is None or kind.type not in _PRIMITIVE_TYPES):
                return "use"
            return "local"
        node = node.parent
    return "declared"


def _hip_alias(name: Node, hip_alias: HipAlias | None) -> bool:
    """`#define cudaMalloc hipMalloc`: a porting shim's alias of a CUDA API for the HIP name convert
    writes. Renaming the uses means the same where the shim is seen and is needed where it is not:
    the name stays CUDA's."""
    definition = name.parent
    if hip_alias is None or definition is None or definition.type not in ("preproc_def", "preproc_function_def"):
        return False
    value = definition.child_by_field_name("value")
    first = _FIRST_NAME.match(value.text or b"") if value is not None else None
    return first is not None and hip_alias(_text(name), first.group(1).decode("ascii"))


def _c_linkage_blocks(source: bytes) -> list[tuple[int, int]]:
    """The byte ranges of the `extern "C" { }` blocks. Found in the bytes, not the tree: the pre-parse
    fixes blank an `extern "C" {` that `#ifdef __cplusplus` keeps apart from its `}`."""
    if b'extern "C"' not in source:
        return []
    layout, blocks = layout_of(source), []
    for match in _C_LINKAGE.finditer(source):
        if layout.is_code(match.start()):
            closing = layout.closing(match.end() - 1)
            if closing > 0:
                blocks.append((match.end(), closing))
    return blocks


@functools.lru_cache(maxsize=4)
def _kept_answers(keep: Keep | None) -> tuple[dict[bytes, bool], Callable[[bytes], bool]]:
    """`keep` for a name's bytes, remembered per spelling: a file repeats its names many times, and a
    worker sees the same ones in every file, so most nodes cost one dict look-up and no decoding. The
    answers so far, and what answers (and remembers) a spelling not among them."""
    answers: dict[bytes, bool] = {}

    def decide(spelled: bytes) -> bool:
        answer = answers[spelled] = keep is None or keep(spelled.decode("utf-8", "replace"))
        return answer
    return answers, decide


@functools.lru_cache(maxsize=4)
def _kept_spellings(keep: Keep | None) -> Callable[[bytes], bool]:
    """`_kept_answers` as one function."""
    answers, decide = _kept_answers(keep)

    def kept(spelled: bytes) -> bool:
        answer = answers.get(spelled)
        return decide(spelled) if answer is None else answer
    return kept


@functools.lru_cache(maxsize=4)
def _kept_qualified(keep: Keep | None) -> Callable[[bytes], str | None]:
    """A qualified name's spelling without spaces, when `keep` keeps it or its last part (without template
    arguments); else None. Remembered per spelling, as `_kept_spellings` (`std::vector` recurs everywhere)."""
    answers: dict[bytes, str | None] = {}

    def kept(spelled: bytes) -> str | None:
        if spelled in answers:
            return answers[spelled]
        text = _SPACES.sub("", spelled.decode("utf-8", "replace"))
        answer = answers[spelled] = text if keep is None or keep(text) \
            or keep(_TEMPLATE_TAIL.sub("", text).rsplit("::", 1)[-1]) else None
        return answer
    return kept


class _FileParse:
    """One file's parse: each query capture name has a handler that emits occurrences.

    `keep`, if given, filters identifier-like occurrences by name (the rule names
    and CUDA-looking ones); number literals in binary expressions are reported
    when their text is in `literals`.
    """

    def __init__(self, source: bytes, parse_bytes: bytes, captures: dict[str, list[Node]], keep: Keep | None,
                 literals: frozenset[str], api: Keep | None = None, cuda_declared: Keep | None = None,
                 hip_alias: HipAlias | None = None, roles: frozenset[Role] = OPTIONAL_ROLES,
                 arguments: Keep | None = None):
        self.source = source
        self.roles = roles  # the optional roles to make (OPTIONAL_ROLES)
        self.arguments = arguments  # whose calls' argument texts to spell out (None: every call's)
        self.parse_bytes = parse_bytes
        self.captures = captures
        if captures.get("defines_type"):
            captures["definition"] = captures.get("definition", []) + _defined_types(captures["defines_type"])
        self.keep = keep
        self.literals = literals
        self.occurrences: list[Occurrence] = []
        self.scopes = _Scopes([])
        # Declared names matter only where they could be mistaken for a kept name (a variable `texture`):
        # the rest, most of a file's variables and parameters, are dropped before any further look.
        kept = _kept_spellings(keep)
        # C++ reserves __names__ for the implementation: a "declaration" of one is an
        # attribute macro tree-sitter does not know (__cluster_dims__(2, 1, 1)), so keep it as a use.
        declared_nodes = [n for n in self.get("declared") if (spelled := n.text) is not None and kept(spelled)
                          and not _RESERVED.match(spelled) and _declaration_kind(n, api) != "use"]
        definition_nodes: list[Node] = []
        local_nodes: list[Node] = []
        for node in self.get("definition"):
            kind = _declaration_kind(node, api)
            if kind == "declared":
                definition_nodes.append(node)
            elif kind == "local" and kept(node.text or b""):
                local_nodes.append(node)
        # A CUDA API "defined" as a fallback in a preprocessor branch is no project name: its uses stay CUDA's.
        # A name no CUDA header declares (a copied CUDA Samples helper) has no declaration to fall back from.
        fallback = cuda_declared or api
        candidates = [n for n in definition_nodes if fallback is not None and fallback(_text(n))]
        branches = Fallbacks(definition_nodes) if candidates else None
        fallbacks = [n for n in candidates if branches is not None and branches.is_fallback(n)]
        starts = {n.start_byte for n in fallbacks}
        defined = [n for n in definition_nodes if n.start_byte not in starts and not _hip_alias(n, hip_alias)]
        self.definitions = {_text(n) for n in defined}
        self.fallbacks = {_text(n) for n in fallbacks}
        # Names this file defines only with internal linkage: no other translation unit can call them.
        namespaces, members, functions = self.get("anonymous_namespace"), self.get("member_scope"), self.get("function")
        self.internal = self.definitions - {_text(n) for n, internal in zip(
            defined, internal_linkage(defined, namespaces, members, functions)) if not internal}
        self.declared = {_text(n) for n in declared_nodes + local_nodes}
        # A fallback's name is a use: renamed with the uses it stands in for (`#else typedef void* cudaStream_t;`).
        self.skip = {n.start_byte for n in definition_nodes + declared_nodes + local_nodes} - starts
        self.calls = {n.start_byte for n in self.get("call")}

    def get(self, capture: str) -> list[Node]:
        return self.captures.get(capture, [])

    def kept(self, name: str) -> bool:
        return self.keep is None or self.keep(name)

    def emit(self, node: Node, role: Role, text: str | None = None, detail: str = "", parts: tuple[Span, ...] = (),
             span_node: Node | None = None, info: tuple[tuple[str, str], ...] = ()) -> None:
        where = span_node or node
        self.occurrences.append(Occurrence(
            _span(where), role, _text(node) if text is None else text, _position(node),
            self.scopes.name_at(node.start_byte), detail, parts, info,
        ))

    def functions(self, nodes: list[Node]) -> None:
        """Function definitions: the scopes every other occurrence is attributed to; kernels and device functions,
        and host functions the file defines more than once (overloads)."""
        spans = []
        named = [_function_name(node) for node in nodes]
        overloaded = {name for name, count in collections.Counter(named).items() if count > 1}
        for node, name in zip(nodes, named):
            spans.append((node.start_byte, node.end_byte, name))
            qualifiers = {c.type for c in node.children if not c.is_named}
            role = next((r for q, r in _KERNEL_QUALIFIERS.items() if q in qualifiers), None)
            if role is None and name in overloaded:
                role = Role.OVERLOAD
            if role is not None and name:
                detail = "template" if node.parent is not None and node.parent.type == "template_declaration" else ""
                self.occurrences.append(Occurrence(_span(node), role, name, _position(node), name, detail,
                                                   info=_signature(node) + self._spaces(node)))
        self.scopes = _Scopes(spans)

    def _spaces(self, node: Node) -> tuple[tuple[str, str], ...]:
        """A function's execution spaces, their spelling and its parameter count."""
        declarator = function_declarator(node)
        count = str(parameter_count(declarator)) if declarator is not None else ""
        return (("spaces", " ".join(spaces_of(node))), ("spelled", spelled_spaces(node, self.source)),
                ("params", count))

    def members(self, nodes: list[Node]) -> None:
        """Member functions declared in a class body without a definition: `T *get();`."""
        for node in nodes:
            declarator = function_declarator(node)
            owner = member_owner(node)
            name = declarator.child_by_field_name("declarator") if declarator is not None else None
            if name is None or not owner or name.type != "field_identifier":
                continue
            self.emit(node, Role.MEMBER_DECLARATION, f"{owner}::{_text(name)}", " ".join(spaces_of(node)),
                      info=(("params", str(parameter_count(declarator))),))

    def names(self, nodes: list[Node], role: Role) -> None:
        """Identifiers and type identifiers; a called identifier is a CALL with its arguments."""
        # A few hundred thousand nodes a run, nine in ten of them dropped by their spelling: looked up inline.
        skip, calls, (answers, decide), arguments = self.skip, self.calls, _kept_answers(self.keep), self.arguments
        for node in nodes:
            spelled = node.text
            if spelled is None:
                continue
            answer = answers.get(spelled)
            if not (decide(spelled) if answer is None else answer):
                continue
            start = node.start_byte
            if start in skip:
                continue
            text = spelled.decode("utf-8", "replace")
            if start in calls:
                spans, info = _call(node, self.parse_bytes, arguments is None or arguments(text))
                self.emit(node, Role.CALL, text, parts=spans, info=info)
                continue
            parent = node.parent
            comparison = _comparison(node) if role is Role.IDENTIFIER else None
            if comparison is not None:
                compared, expression, branches = comparison
                self.emit(node, role, text, parts=(_span(expression),), info=(("compared", compared), *branches))
            elif role is Role.IDENTIFIER and parent is not None and parent.type == "field_expression":
                self.emit(node, role, text, info=(("accessed", "1"),))  # `texture.x`: a variable, whatever its name
            elif parent is not None and parent.type == "qualified_identifier" \
                    and parent.child_by_field_name("scope") is not None:
                self.emit(node, role, text, info=(("scoped", "1"),))  # `Params::CUDNN_GEMM`: the qualified name decides
            elif role is Role.IDENTIFIER or parent is not None and parent.type == "type_descriptor":
                constant = _constant_context(node)
                self.emit(node, role, text, info=(("constant", constant),) if constant else ())
            elif parent is not None and parent.type == "struct_specifier" and parent.child_by_field_name("body") is None:
                self.emit(node, role, text, info=(("elaborated", "struct"),))  # `struct cudaGraphicsResource *r`
            elif parent is not None and parent.type in _DECLARATIONS:
                declared = _declared_names(parent)
                self.emit(node, role, text, info=(("declares", declared),) if declared else ())
            else:
                self.emit(node, role, text)

    def parameter_qualifiers(self, nodes: list[Node]) -> None:
        """Qualifiers of a parameter that are CUDA names (`__grid_constant__ const P p`): keywords to the grammar."""
        for node in nodes:
            text = _text(node)
            if self.kept(text):
                self.emit(node, Role.IDENTIFIER, text)

    def identifiers(self, nodes: list[Node]) -> None:
        self.names(nodes, Role.IDENTIFIER)

    def types(self, nodes: list[Node]) -> None:
        self.names(nodes, Role.TYPE)

    def qualified(self, nodes: list[Node]) -> None:
        kept = _kept_qualified(self.keep)
        for node in nodes:
            spelled = node.text or b""
            text = kept(spelled)
            if text is None:
                continue
            parent = node.parent  # last: each step up walks down from the root
            if parent is None or parent.type != "qualified_identifier":
                # Spaces taken out (`cub::BlockReduce<T, N>`): the spelling's first bytes up to a space are as
                # written, so a rename of the name before the template arguments is still exact.
                blank = _BLANK.search(spelled) if len(text) != len(spelled) else None
                self.emit(node, Role.QUALIFIED, text, info=(("verbatim", str(blank.start())),) if blank else ())

    def namespace_aliases(self, nodes: list[Node]) -> None:
        for node in nodes:
            name = node.child_by_field_name("name")
            target = node.named_children[-1] if node.named_children else None
            if name is not None and target is not None and target != name:
                self.emit(node, Role.NAMESPACE_ALIAS, _text(name), re.sub(r"\s+", "", _text(target)).lstrip(":"))

    def usings(self, nodes: list[Node]) -> None:
        """`using namespace X;` and `using X::name;`: what the file's unqualified names may stand for."""
        for node in nodes:
            target = next((c for c in node.named_children if c.type != "comment"), None)
            if target is not None:
                kind = "namespace" if any(c.type == "namespace" for c in node.children) else "name"
                self.emit(node, Role.USING, re.sub(r"\s+", "", _text(target)).lstrip(":"), kind)

    def includes(self, nodes: list[Node]) -> None:
        blocks = _c_linkage_blocks(self.source) if nodes else []
        for node in nodes:
            style = "system" if node.type == "system_lib_string" else "local"
            # Included inside `extern "C" { }`: the file's C++ (templates) would be an error there.
            linkage = (("linkage", "C"),) if any(start < node.start_byte < end for start, end in blocks) else ()
            self.emit(node, Role.INCLUDE, _text(node).strip()[1:-1].strip(), style, info=linkage)

    def launches(self, nodes: list[Node]) -> None:
        """k<<<config>>>(args): the kernel and the configuration come from the same call node.

        parts: the kernel expression, the `<<<` token, each configuration argument, the `>>>`
        token and the argument list. nvcc also accepts `<< <` and `>> >`, which clang does not.
        """
        for node in nodes:
            call = node.parent
            name = call.child_by_field_name("function") if call is not None else None
            arguments = call.child_by_field_name("arguments") if call is not None else None
            if call is None or name is None or arguments is None or node.child_count < 2:
                continue
            kernel = name.child_by_field_name("name") if name.type == "template_function" else name
            config = [c for c in node.named_children if c.type != "comment"]
            opening, closing = node.children[0], node.children[-1]
            parts = (_span(name), _span(opening), *map(_span, config), _span(closing), _span(arguments))
            info = (("chevrons", "spaced"),) if opening.text != b"<<<" or closing.text != b">>>" else ()
            if call.parent is None or call.parent.type != "expression_statement":
                info += (("used-as", "expression"),)  # (k<<<...>>>(), check()): a value, not a statement
            built = [name for name, c in zip(("grid", "block"), config) if _constructs_dim3(c)]
            info += (("dim3", ",".join(built)),) if built else ()  # `dim3(x, y, z)`: a dim3 already
            self.emit(name, Role.LAUNCH, _text(kernel or name), ", ".join(" ".join(_text(c).split()) for c in config),
                      parts, span_node=call, info=info)

    def inline_asm(self, nodes: list[Node]) -> None:
        for node in nodes:
            strings = node.child_by_field_name("assembly_code")
            template = b"".join(_STRING_CONTENT.findall(strings.text or b"")).decode("utf-8", "replace") if strings else ""
            self.emit(node, Role.INLINE_ASM, template)

    def conditions(self, nodes: list[Node]) -> None:
        for node in nodes:
            text = _text(node)
            if CUDA_CONDITION_MACROS.search(text):
                directive = node.parent.children[0].type if node.parent is not None and node.parent.children else "#if"
                self.emit(node, Role.PREPROCESSOR_CONDITION, " ".join(text.split()), directive)

    def fields(self, nodes: list[Node]) -> None:
        kept = _kept_spellings(self.keep)  # by the bytes, remembered: most fields are `.x`, `.size`, `.data`
        for node in nodes:
            spelled = node.text
            if spelled is not None and kept(spelled):
                text = spelled.decode("utf-8", "replace")
                holder = node.parent.parent if node.parent is not None else None
                operator = holder.child_by_field_name("operator") if holder is not None and holder.type == "binary_expression" else None
                access = node.parent if node.parent is not None and node.parent.type == "field_expression" else node
                info = (("operator", _text(operator)),) if operator is not None else ()
                self.emit(node, Role.FIELD, text, parts=(_span(access),),
                          info=info + _field_use(node.parent, holder if operator is not None else None))

    def number_literals(self, nodes: list[Node]) -> None:
        for node in nodes:
            text = _text(node)
            if text in self.literals and node.parent is not None:
                operator = node.parent.child_by_field_name("operator")
                self.emit(node, Role.LITERAL, text, _text(operator) if operator is not None else "", info=_operands(node))

    def shared_arrays(self, nodes: list[Node]) -> None:
        for node in nodes:
            if node.text == b"__shared__" and node.parent is not None:
                shared = _shared_array(node.parent)
                if shared is not None:
                    self.emit(shared[0], Role.SHARED_ARRAY, _text(shared[0]), span_node=node.parent, info=shared[1])

    def storage_classes(self, nodes: list[Node]) -> None:
        """`register`: C++17 removed it. The part to delete runs to the next token."""
        for node in nodes:
            end = node.next_sibling.start_byte if node.next_sibling is not None else node.end_byte
            self.emit(node, Role.STORAGE_CLASS, _text(node), parts=(Span(node.start_byte, end),))

    def linkages(self, nodes: list[Node]) -> None:
        """`extern "C"__global__`: a linkage string against the next word. The part is where a space goes."""
        for node in nodes:
            following = node.next_sibling
            if following is not None and following.start_byte == node.end_byte:
                self.emit(node, Role.STORAGE_CLASS, _text(node), parts=(Span(node.end_byte, node.end_byte),))

    def macro_functions(self, nodes: list[Node]) -> None:
        """Function-like #defines: the name, and the span of the line without its newline (to guard it)."""
        for node in nodes:
            name = node.child_by_field_name("name")
            value = node.child_by_field_name("value")
            end = value.end_byte if value is not None else node.end_byte
            if name is not None:
                self.emit(name, Role.MACRO_DEFINITION, _text(name), span_node=node,
                          parts=(Span(node.start_byte, min(end, node.end_byte)),),
                          info=(("guarded", "hip"),) if _under_hip_test(node) else ())

    def launch_bounds(self, nodes: list[Node]) -> None:
        for node in nodes:
            arguments = [_text(c) for c in node.named_children if c.type != "comment"]
            self.emit(node, Role.LAUNCH_BOUNDS, _text(node), info=tuple((f"arg{i}", a) for i, a in enumerate(arguments)))

    def named_values(self, nodes: list[Node]) -> None:
        """Named constants (macros, const/constexpr variables, enumerators) and the initial values of
        variables, as text: the hazards evaluate sizes and masks spelled with constants, and tell lane
        ids (`int lane = threadIdx.x & 31`) from other arithmetic by where a variable's value comes from."""
        initializers = Role.INITIALIZER in self.roles
        for node in nodes:
            named = _named_value(node, initializers)
            if named is not None and (named[0] is Role.CONSTANT or self.scopes.name_at(node.start_byte)):
                self.emit(node, named[0], _text(node), info=(("value", named[1]),))

    def shared_subscripts(self, nodes: list[Node]) -> None:
        """Indexes into the file's __shared__ arrays (`s[lane]`): a [32] array indexed by lane id assumes 32 lanes."""
        shared = {o.text for o in self.occurrences if o.role is Role.SHARED_ARRAY}
        for node in nodes if shared else ():
            if _text(node) not in shared:
                continue  # before any step up the tree: each walks down from the root
            subscript = node.parent
            indices = subscript.child_by_field_name("indices") if subscript is not None else None
            if indices is not None:
                index = " ".join(_text(indices).strip("[] ").split())[:_ARGUMENT_TEXT_LIMIT]
                guarded = (("guarded", "1"),) if _guarded(node, index) else ()
                self.emit(node, Role.SUBSCRIPT, _text(node), info=(("index", index),) + guarded)

    def empty_braces(self, nodes: list[Node]) -> None:
        """`x = {}`: an assignment of an empty brace list (ambiguous for some of HIP's types)."""
        for node in nodes:
            braces = node.parent.child_by_field_name("right") if node.parent is not None else None
            if braces is not None and not any(c.type != "comment" for c in braces.named_children):
                self.emit(node, Role.EMPTY_BRACES, _text(node), parts=(_span(braces),))

    def suppressions(self, nodes: list[Node]) -> None:
        for node in nodes:
            match = SUPPRESSION.search(node.text or b"")
            if match:
                codes = ",".join(c.strip() for c in (match.group(1) or b"").decode("ascii", "replace").split(",") if c.strip())
                self.emit(node, Role.SUPPRESSION, _text(node), codes)

    def macro_bodies(self, nodes: list[Node]) -> None:
        """#define bodies are opaque to tree-sitter: lex them for identifiers, the variables they declare and inline asm."""
        lines = LineIndex(self.source) if nodes else None
        for node in nodes:
            assert lines is not None
            if _diagnostic_text(node):
                continue
            self.occurrences.extend(_macro_occurrences(node, self.source, lines, self.scopes.name_at(node.start_byte), self.keep))
            self.declared.update(_macro_declarations(node.text or b""))


def _macro_declarations(body: bytes) -> Iterator[str]:
    """The variables a #define body declares, outside its comments and strings."""
    code = _MACRO_TOKEN.sub(lambda token: token.group() if token.group(1) is not None else b" ", body)
    return (match.group(2).decode("ascii") for match in _MACRO_DECLARATION.finditer(code) if match.group(1) not in _NOT_TYPES)


def _diagnostic_text(argument: Node) -> bool:
    """The message of an `#error` or `#warning`: text, not code (`#error CUBLAS error names missing`)."""
    call = argument.parent
    directive = call.child_by_field_name("directive") if call is not None and call.type == "preproc_call" else None
    return directive is not None and re.sub(rb"\s+", b"", directive.text or b"") in (b"#error", b"#warning")


# Capture name -> handler, in order: functions first, since they set the scopes the others use.
_HANDLERS: tuple[tuple[str, Callable[[_FileParse, list[Node]], None]], ...] = (
    ("function", _FileParse.functions),
    ("member", _FileParse.members),
    ("identifier", _FileParse.identifiers),
    ("type", _FileParse.types),
    ("qualified", _FileParse.qualified),
    ("namespace_alias", _FileParse.namespace_aliases),
    ("using", _FileParse.usings),
    ("include", _FileParse.includes),
    ("launch", _FileParse.launches),
    ("asm", _FileParse.inline_asm),
    ("condition", _FileParse.conditions),
    ("field", _FileParse.fields),
    ("literal", _FileParse.number_literals),
    ("qualifier", _FileParse.shared_arrays),
    ("parameter_qualifier", _FileParse.parameter_qualifiers),
    ("storage", _FileParse.storage_classes),
    ("linkage", _FileParse.linkages),
    ("macro_function", _FileParse.macro_functions),
    ("launch_bounds", _FileParse.launch_bounds),
    ("constant", _FileParse.named_values),
    ("subscript", _FileParse.shared_subscripts),  # after "qualifier": it needs the shared arrays
    ("comment", _FileParse.suppressions),
    ("empty_braces", _FileParse.empty_braces),
    ("macro_body", _FileParse.macro_bodies),
)


def _macro_occurrences(node: Node, source: bytes, lines: LineIndex[bytes], function: str, keep: Keep | None) -> list[Occurrence]:
    """Identifiers and inline asm of one #define body."""
    base = node.start_byte
    body = source[base:node.end_byte]
    found: list[Occurrence] = []
    for match in _MACRO_TOKEN.finditer(body):
        if match.group(1) is None:
            continue
        name = match.group(1).decode("ascii")
        if keep is not None and not keep(name):
            continue
        start = base + match.start(1)
        found.append(Occurrence(Span(start, start + len(name)), Role.MACRO_BODY, name, lines.position(start), function))
    for match in _ASM_IN_MACRO.finditer(body):
        template = b"".join(_STRING_CONTENT.findall(match.group(1))).decode("utf-8", "replace")
        start = base + match.start()
        found.append(Occurrence(Span(start, base + match.end()), Role.INLINE_ASM, template, lines.position(start), function, "macro"))
    return found


_GUARD = re.compile(rb"#\s*(?:ifndef\s+(\w+)|if\s+!\s*defined\s*\(?\s*(\w+)\s*\)?)\s*$")
_LEADING_COMMENT = re.compile(rb"\s*(?://[^\n]*|/\*.*?\*/)", re.S)
# CUDA's language extensions (and `<<<`): a file using them needs the HIP runtime header under hipcc,
# which (unlike nvcc) includes nothing by itself. Found with bytes.find, the most common first (a regex
# alternation tries each word at every byte: three times slower).
_DEVICE_WORDS = (b"__global__", b"threadIdx", b"__device__", b"__shared__", b"blockIdx", b"blockDim", b"gridDim",
                 b"__syncthreads", b"__constant__", b"__managed__")
_WORD_BYTES = frozenset((string.ascii_letters + string.digits + "_").encode())


def _preamble_end(source: bytes) -> int:
    """The offset after the leading comments, `#pragma once` and the include guard's #define:
    where an #include or #define can go before any code."""
    offset = result = len(BOM) if source.startswith(BOM) else 0
    guard: bytes | None = None  # the guard's name once `#ifndef NAME` is seen, b"" once defined
    in_comment = False
    for line in source[offset:].splitlines(keepends=True):
        text = line.strip()
        offset += len(line)
        if in_comment:
            in_comment = b"*/" not in text
        elif not text:
            continue
        elif text.startswith(b"//") or re.fullmatch(rb"#\s*pragma\s+once", text):
            pass
        elif text.startswith(b"/*"):
            in_comment = b"*/" not in text[2:]
        elif guard is None and _GUARD.match(text):
            opened = _GUARD.match(text)
            guard = opened.group(1) or opened.group(2)
            continue  # not part of the preamble until its #define follows
        elif guard and re.fullmatch(rb"#\s*define\s+" + re.escape(guard) + rb"\b.*", text):
            guard = b""
        else:
            break
        if not guard and not in_comment:  # never inside a comment: one left open runs to the end of the file
            result = offset
    return result


def _device_syntax(source: bytes, cuda_only: tuple[tuple[int, int], ...]) -> tuple[bool, bool]:
    """Whether the file uses CUDA's language extensions, and whether it does outside `cuda_only`."""
    anywhere = False
    for start in _device_syntax_sites(source):
        line_start = source.rfind(b"\n", 0, start) + 1
        if b"//" not in source[line_start:start]:
            anywhere = True
            if not within(start, cuda_only):
                return True, True
    return anywhere, False


def _device_syntax_sites(source: bytes) -> Iterator[int]:
    """Where a CUDA extension keyword (a whole word) or `<<<` starts, keyword by keyword."""
    for word in _DEVICE_WORDS:
        start = source.find(word)
        while start >= 0:
            end = start + len(word)
            if (start == 0 or source[start - 1] not in _WORD_BYTES) and (end == len(source) or source[end] not in _WORD_BYTES):
                yield start
            start = source.find(word, end)
    start = source.find(b"<<<")
    while start >= 0:
        yield start
        start = source.find(b"<<<", start + 3)


# Macros only a GPU compiler defines: a branch that tests nothing else is compiled by nvcc (hipcc), never by g++.
_COMPILER_MACRO = re.compile(r"__CUDACC\w*__|__NVCC__|__CUDA_ARCH\w*__|__HIPCC\w*__|__HIP_DEVICE_COMPILE__|__HIP__")
_CONDITION_NAME = re.compile(r"[A-Za-z_]\w*")


def _cuda_only(conditions: list[Node], groups: list[Node]) -> tuple[tuple[int, int], ...]:
    """The byte ranges of the branches a host compiler never compiles: `#ifdef __NVCC__`, `#if defined(__CUDACC__)`,
    `#if __CUDA_ARCH__ >= 700` (every macro tested is a GPU compiler's, and none negated), up to their #else.
    `groups`: each condition's #if/#elif node, from the query (a node's `.parent` walks down from the root:
    asked for each of 100,000 nested conditions, that is quadratic)."""
    spans = []
    by_start = sorted(groups, key=lambda g: g.start_byte)
    for condition, group in zip(sorted(conditions, key=lambda c: c.start_byte), by_start):
        if group.children[0].type == "#ifndef":
            continue
        text = _LINE_COMMENT.sub(" ", _text(condition))
        names = set(_CONDITION_NAME.findall(text)) - {"defined"}
        if "!" in text or not names or not all(_COMPILER_MACRO.fullmatch(n) for n in names):
            continue
        alternative = group.child_by_field_name("alternative")
        spans.append((condition.end_byte, alternative.start_byte if alternative is not None else group.end_byte))
    return tuple(spans)


def prepare_source(source: bytes, macros: MacroTable | None = None) -> Prepared:
    """What `parse_source` parses, and its tree: the bytes with a BOM blanked (spaces keep every
    offset), then fixed where they parse with errors (portkit/parse/prepare.py)."""
    language = _language()
    return prepare(_without_bom(source), macros if macros is not None else collect_macros([source]),
                   Parser(language).parse)


def _without_bom(source: bytes) -> bytes:
    """A BOM is not C++: spaces instead keep every offset."""
    return b"   " + source[3:] if source.startswith(BOM) else source


def captures(tree: Tree, roles: frozenset[Role] | None = None) -> dict[str, list[Node]]:
    """The query's captures in a tree, by capture name: what `parse_source` reads its occurrences from.
    `roles`: as `parse_source`'s."""
    cursor = QueryCursor(_query(OPTIONAL_ROLES if roles is None else roles))
    cursor.set_max_start_depth(MAX_QUERY_DEPTH)  # bounded work; parse_source reports a deeper file as partial
    return cursor.captures(tree.root_node)


def parse_source(path: str, source: bytes, keep: Keep | None = None, literals: frozenset[str] = frozenset(),
                 api: Keep | None = None, macros: MacroTable | None = None,
                 cuda_declared: Keep | None = None, hip_alias: HipAlias | None = None,
                 prepared: Prepared | None = None, hip_pointer: Keep | None = None,
                 roles: frozenset[Role] | None = None, arguments: Keep | None = None) -> ParsedFile:
    """Parse one file into its occurrences, definitions and declared names.

    `api` says whether a name is a CUDA API a rule knows (which a misparse must not make the
    project's); `cuda_declared` (default `api`) whether a CUDA header declares it, so that a
    definition of it in a preprocessor branch is a fallback, not the project's own; `hip_alias(name,
    alias)` whether `#define name alias` spells a CUDA API as the HIP name convert writes (a porting
    shim's line, not a definition of the project's own); `hip_pointer` whether a type is an integer in
    CUDA and a pointer in HIP (arithmetic on its variables: portkit/parse/handles.py). `macros` is
    the project's macro table (portkit/parse/macros.py); without one, the file's own #defines.
    The tree may be of prepared bytes (portkit/parse/prepare.py): same length and newlines, so
    offsets are the source's; names the tree does not describe are matched token by token.
    `prepared`: what `prepare_source` gave for these bytes and macros, when the caller has it. `roles`: the
    OPTIONAL_ROLES to make (all of them by default). `arguments`: whether a call of a name is read by its
    arguments' texts and what it initialises (by default every call is).
    """
    prepared = prepared or prepare_source(source, macros)
    parse_bytes = _without_bom(source)
    tree = prepared.tree
    error_line = min(filter(None, (first_error_line(tree.root_node), too_deep_line(tree.root_node))), default=None)
    roles = OPTIONAL_ROLES if roles is None else roles
    state = _FileParse(source, parse_bytes, captures(tree, roles), keep, literals, api,
                       cuda_declared, hip_alias, roles, arguments)
    preamble_end = _preamble_end(source)
    cuda_only = _cuda_only(state.get("condition"), state.get("condition_group"))
    defines = [n.start_byte for n in state.get("definition") if n.parent is not None
               and n.parent.type in ("preproc_def", "preproc_function_def") and n.start_byte >= preamble_end
               and not _HIP_CONFIGURATION.match(n.text or b"")]
    device_syntax, unguarded_device_syntax = _device_syntax(source, cuda_only)
    for capture, handler in _HANDLERS:
        handler(state, state.get(capture))
    state.occurrences.extend(unparsed_occurrences(tree.root_node, parse_bytes, prepared.text, state.occurrences,
                                                  state.skip, keep, state.scopes.name_at, CUDA_CONDITION_MACROS))
    if hip_pointer is not None:
        state.occurrences.extend(handle_arithmetic(tree.root_node, parse_bytes, state.occurrences, hip_pointer,
                                                   state.scopes.name_at))
    return ParsedFile(
        path=path,
        occurrences=tuple(sorted(state.occurrences, key=_position_key)),
        definitions=frozenset(state.definitions),
        internal=frozenset(state.internal),
        declared=frozenset(state.declared - state.definitions),
        lines=source.count(b"\n") + (0 if source.endswith(b"\n") or not source else 1),
        error_line=error_line,
        shape=tree_shape(tree.root_node) if error_line is not None else "",
        preamble_end=preamble_end,
        preamble_line=source.count(b"\n", 0, preamble_end) + 1,
        newline="\r\n" if b"\r\n" in source[:4096] else "\n",
        device_syntax=device_syntax,
        cuda_only=cuda_only,
        first_define=min(defines, default=-1),
        unguarded_device_syntax=unguarded_device_syntax,
        fallbacks=frozenset(state.fallbacks),
    )
