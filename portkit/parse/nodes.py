"""Reading tree-sitter nodes: names, calls and their arguments, declarations, comparisons, preprocessor
context. Pure functions of a node (and the source bytes), for the capture handlers (portkit/parse/handlers.py)."""
from __future__ import annotations

import bisect
import itertools
import re
from typing import Callable, Iterator

from tree_sitter import Node

from portkit.model import CallFacts, FieldFacts, NameFacts, Occurrence, OperandFacts, Position, Role, SharedArrayFacts, Span
from portkit.parse.device_declarations import branch_items, device_functions
from portkit.parse.host_twins import TwinFacts, host_twins
from portkit.parse.lexer import layout_of
from portkit.parse.spaces import function_declarator

# Macros whose tests in #if/#ifdef mark code that only one vendor's compiler sees.
# CUDA's and nvcc's version numbers.
CUDA_VERSION_MACROS = re.compile(r"CUDART_VERSION|CUDA_VERSION|__CUDACC_VER_\w+__|__CUDA_API_VERSION\w*")
CUDA_CONDITION_MACROS = re.compile(r"\b(__CUDA_ARCH\w*__|__CUDACC\w*__|__NVCC__|CUDART_VERSION|CUDA_VERSION|__CUDA_API_VERSION\w*)\b")
# cuDNN's version (cudnn_version.h): a test of it picks the cuDNN API a branch is written for (analyze/dead_branches.py).
CUDNN_VERSION_MACROS = re.compile(r"CUDNN_(?:MAJOR|MINOR|PATCHLEVEL|VERSION)")
# The tests reported as PREPROCESSOR_CONDITION occurrences: those of CUDA's macros and of cuDNN's version.
CONDITION_MACROS = re.compile(rf"{CUDA_CONDITION_MACROS.pattern}|\b({CUDNN_VERSION_MACROS.pattern})\b")

Keep = Callable[[str], bool]
HipAlias = Callable[[str, str], bool]


def node_text(node: Node) -> str:
    text = node.text  # a new bytes object at each access
    return text.decode("utf-8", "replace") if text is not None else ""


def node_position(node: Node) -> Position:
    row, column = node.start_point
    return Position(row + 1, column + 1)


_QUALIFIER_SPACE = re.compile(r"\s*::\s*")


def function_name(node: Node) -> str:
    """The declared name of a function_definition (qualified names kept whole, one-line: `A::f`)."""
    declarator = function_declarator(node)
    name = declarator.child_by_field_name("declarator") if declarator is not None else None
    return _QUALIFIER_SPACE.sub("::", " ".join(node_text(name).split())) if name is not None else ""


ARGUMENT_TEXT_LIMIT = 80
# Where C++ needs a compile-time constant.
_CONSTANT_PARENTS = {"template_argument_list", "static_assert_declaration", "enumerator", "case_statement"}


def constant_context(node: Node, parent: Node | None) -> str:
    """"array-size", "template-argument", "static-assert", "constexpr"... or "", given the node's parent."""
    child = node
    while parent is not None and (kind := parent.type) not in ("compound_statement", "translation_unit", "function_definition"):
        if kind == "array_declarator" and child != parent.child_by_field_name("declarator"):
            return "array-size"
        if kind in _CONSTANT_PARENTS:
            return kind.replace("_declaration", "").replace("_list", "").replace("_", "-")
        if kind == "declaration" and any(c.type == "type_qualifier" and c.text == b"constexpr" for c in parent.children):
            return "constexpr"
        child, parent = parent, parent.parent
    return ""


# What `::` alone may qualify: a name of the global namespace, not a nested `::ns::name`.
_GLOBAL_NAMES = frozenset({"identifier", "type_identifier", "template_function", "template_type"})


def names_global(node: Node) -> bool:
    """`::__ballot_sync`, `::cudaStream_t`: a qualified identifier with no scope before its `::`, which names the
    global namespace's name, the same as the name unqualified (CUDA's and HIP's functions and types are global)."""
    if node.type != "qualified_identifier" or node.child_by_field_name("scope") is not None:
        return False
    name = node.child_by_field_name("name")
    return name is not None and name.type in _GLOBAL_NAMES


def under_global(name: Node, parent: Node | None) -> bool:
    """Whether an identifier is the name a `::` of the global namespace qualifies (`::f`, `::f<T>`)."""
    if parent is not None and parent.type == "template_function":
        parent = parent.parent
    return parent is not None and names_global(parent)


def _balanced(text: bytes) -> bool:
    depth = 0
    for byte in text:
        depth += (byte in b"([{") - (byte in b")]}")
        if depth < 0:
            return False
    return depth == 0


def _argument_bounds(arguments: Node, written: bytes) -> Iterator[tuple[Node, int, int]]:
    """Each argument node, with where the source's text between its separators starts and ends (spaces left out)."""
    opened = arguments.start_byte + 1
    pending: Node | None = None
    for child in arguments.children:
        if child.is_named:
            pending = child if child.type != "comment" else pending
            continue
        if child.type in (",", ")") and pending is not None:
            start, end = opened, child.start_byte
            while start < end and written[start] in b" \t\r\n":
                start += 1
            while end > start and written[end - 1] in b" \t\r\n":
                end -= 1
            yield pending, start, end
            pending = None
        opened = child.end_byte


def written_arguments(spans: tuple[Span, ...], arguments: Node, written: bytes) -> tuple[Span, ...]:
    """The argument spans as the source spells them, for a tree of prepared bytes: where the parse read a blanked
    macro use (`ROCM_ONLY((void *)) kernel` with `#define ROCM_ONLY(x) x`, parse/prepare.py), an argument's span may
    start or end inside that use's parentheses, and an edit of it would straddle them; such an argument spans from
    the separator before it to the one after it, the macro use whole."""
    straddling = {}
    for node, start, end in _argument_bounds(arguments, written):
        text = written[node.start_byte:node.end_byte]
        if text != node.text and not _balanced(text):
            straddling[node.start_byte] = Span(start, end)
    return tuple(straddling.get(span.start, span) for span in spans) if straddling else spans


def call_facts(name: Node, source: bytes, texts: bool = True, prepared: bool = False
               ) -> tuple[tuple[Span, ...], CallFacts | None]:
    """A call's argument spans, given the identifier it calls (`prepared`: the tree is of bytes
    parse/prepare.py blanked, not of `source`); with `texts`, their texts, and the declared type
    when the call initialises a variable, or what it is assigned to (`x = f()`). (Each step up the tree walks
    down from the root: one walk, shared.)"""
    call = name.parent
    if call is not None and call.type == "template_function":
        call = call.parent
    if call is not None and names_global(call):  # `::__ballot_sync(m, p)`
        call = call.parent
    if call is None or call.type != "call_expression":
        return (), None
    arguments = call.child_by_field_name("arguments")
    spans = tuple([Span(c.start_byte, c.end_byte) for c in arguments.named_children if c.type != "comment"]) \
        if arguments is not None else ()
    if prepared and arguments is not None:
        spans = written_arguments(spans, arguments, source)
    if not texts:
        return spans, None
    args = tuple(" ".join(source[a.start:a.end].decode("utf-8", "replace").split())[:ARGUMENT_TEXT_LIMIT] for a in spans)
    holder = call.parent
    if holder is not None and holder.type == "init_declarator" and holder.parent is not None:
        declared = holder.parent.child_by_field_name("type")
        if declared is not None:
            return spans, CallFacts(args, assigned_type=" ".join(node_text(declared).split()))
    elif holder is not None and holder.type == "assignment_expression" and holder.child_by_field_name("right") == call:
        operator, left = holder.child_by_field_name("operator"), holder.child_by_field_name("left")
        if operator is not None and operator.text == b"=" and left is not None:
            return spans, CallFacts(args, assigned_to=" ".join(node_text(left).split())[:ARGUMENT_TEXT_LIMIT])
    elif holder is not None and holder.type == "return_statement":
        returned = _returning_function(holder)
        if returned is not None:
            return spans, CallFacts(args, returned_type=returned[0], returned_by=returned[1])
    return spans, CallFacts(args)


# How far up from a `return` its function's definition may be: its body, and the #if groups around the statement.
_RETURN_DEPTH = 8


def _returning_function(statement: Node) -> tuple[str, str] | None:
    """The declared return type and the name of the function a `return` statement is in (`__device__ inline uint32_t
    ballot(T v) { return __ballot_sync(~0u, v); }`: uint32_t, ballot); None in a lambda or past the depth."""
    node = statement.parent
    for _ in range(_RETURN_DEPTH):
        if node is None or node.type == "lambda_expression":
            return None
        if node.type == "function_definition":
            declared, declarator = node.child_by_field_name("type"), node.child_by_field_name("declarator")
            # `uint32_t *f()` returns a pointer: its declarator is a pointer_declarator, not the function's
            name = declarator.child_by_field_name("declarator") if declarator is not None \
                and declarator.type == "function_declarator" else None
            if declared is None or name is None:
                return None
            return " ".join(node_text(declared).split()), node_text(name)
        node = node.parent
    return None


def shared_array(declaration: Node) -> tuple[Node, SharedArrayFacts] | None:
    """The name and (element type, dimensions) of a `__shared__ T name[a][b];` declaration."""
    declarator = declaration.child_by_field_name("declarator")
    dims: list[str] = []
    while declarator is not None and declarator.type == "array_declarator":
        size = declarator.child_by_field_name("size")
        dims.insert(0, node_text(size) if size is not None else "")
        declarator = declarator.child_by_field_name("declarator")
    if declarator is None or not dims:
        return None
    element = declaration.child_by_field_name("type")
    extern = any(c.type == "storage_class_specifier" and c.text == b"extern" for c in declaration.children)
    return declarator, SharedArrayFacts(" ".join(node_text(element).split()) if element is not None else "", tuple(dims), extern)


def operands(literal: Node) -> OperandFacts:
    """For a number in a binary expression: the other operand's text ("other") and the variable the
    expression initialises or is assigned to ("target"), which tell a lane id from other arithmetic."""
    expression = literal.parent
    assert expression is not None
    other = next((c for c in expression.named_children if c != literal and c.type != "comment"), None)
    other_text = " ".join(node_text(other).split())[:ARGUMENT_TEXT_LIMIT] if other is not None else ""
    holder = expression.parent
    while holder is not None and holder.type in ("parenthesized_expression", "binary_expression", "cast_expression"):
        holder = holder.parent
    target = holder.child_by_field_name("declarator" if holder.type == "init_declarator" else "left") \
        if holder is not None and holder.type in ("init_declarator", "assignment_expression") else None
    return OperandFacts(other_text, node_text(target) if target is not None else "")


# `N - 1` for these N: a mask of the low bits (`32 - 1`, the lane mask 31), spelled as the number it is.
_LESS_ONE = {"32": "31", "32u": "31u"}


def less_one(literal: Node, text: str) -> tuple[str, Node, Node] | None:
    """For the 32 of `32 - 1` where an enclosing expression uses it (`tid & (32 - 1)`, `lane == 32 - 1`): the
    number it makes (31), the enclosing expression's operator and the operand `32 - 1` is in it; else None."""
    expression = literal.parent
    if text not in _LESS_ONE or expression is None or expression.type != "binary_expression" \
            or expression.child_by_field_name("left") != literal:
        return None
    operator, right = expression.child_by_field_name("operator"), expression.child_by_field_name("right")
    if operator is None or operator.type != "-" or right is None or right.type != "number_literal" or right.text != b"1":
        return None
    whole = expression
    while whole.parent is not None and whole.parent.type == "parenthesized_expression":
        whole = whole.parent
    outer = whole.parent
    used = outer.child_by_field_name("operator") if outer is not None and outer.type == "binary_expression" else None
    return (_LESS_ONE[text], used, whole) if used is not None else None


LINE_COMMENT = re.compile(r"//.*|/\*.*?\*/", re.S)  # a #define's value runs to the end of its line, comment included
_LETTER = re.compile(r"[A-Za-z_]")
_CONSTANT_VALUE = re.compile(r"[\w\s+\-*/%()<>|&~.]*\d[\w\s+\-*/%()<>|&~.]*")


def named_value(name: Node, initializers: bool = True) -> tuple[Role, str] | None:
    """(CONSTANT, value) for `#define N 96`, `constexpr int N = 96`, `const unsigned N = 4 * K`, `enum { N = 96 }`
    when the value can be a constant expression (digits, names, operators); with `initializers`, (INITIALIZER,
    value) for any other variable initialised from names (`int lane = tid & 31`) and for a for-loop's
    variable; else None."""
    parent = name.parent
    if parent is not None and parent.type == "function_declarator":
        return _returned_constant(parent)
    value = parent.child_by_field_name("value") if parent is not None else None
    if parent is None or value is None:
        return None
    variable = parent.type == "init_declarator"
    holder = parent.parent if variable else None  # the variable's declaration (each step up is a walk: once)
    # Its children (each a new node) are read only where the declaration's bytes spell `const` at all.
    constant = not variable or holder is not None and b"const" in (holder.text or b"") and any(
        c.type == "type_qualifier" and c.text in (b"const", b"constexpr") for c in holder.children)
    if not constant and not initializers:
        return None  # most variables: their value's text is never read
    text = " ".join(LINE_COMMENT.sub(" ", node_text(value)).split())[:ARGUMENT_TEXT_LIMIT]
    if constant and _CONSTANT_VALUE.fullmatch(text):
        return Role.CONSTANT, text
    if not initializers or not variable:
        return None
    if _LETTER.search(text):
        return Role.INITIALIZER, text
    loop = holder.parent if holder is not None else None  # for (int o = 16; ...): a loop's start, asked last
    if loop is not None and loop.type == "for_statement":
        return Role.INITIALIZER, text
    declared = holder.child_by_field_name("type") if holder is not None and text[:1] in "({" else None
    # `dim3 block(32, 8)`: a block's shape in numbers (a block of one warp per row, analyze/warp_rows.py).
    return (Role.INITIALIZER, text) if declared is not None and declared.text == b"dim3" else None


def _returned_constant(declarator: Node) -> tuple[Role, str] | None:
    """(CONSTANT, value) for a constexpr or inline function without parameters whose body is `return <constant>;`
    (`constexpr int WarpThreads() { return 32; }`): a call of it is that constant, as a named one's use is."""
    definition = declarator.parent
    parameters = declarator.child_by_field_name("parameters")
    if definition is None or definition.type != "function_definition" or parameters is None or any(
            c.type != "comment" and node_text(c) != "void" for c in parameters.named_children):
        return None
    if not any(c.type in ("type_qualifier", "storage_class_specifier") and c.text in (b"constexpr", b"inline")
               for c in definition.children):
        return None
    body = definition.child_by_field_name("body")
    statements = [c for c in body.named_children if c.type != "comment"] if body is not None else []
    if len(statements) != 1 or statements[0].type != "return_statement":
        return None
    returned = [c for c in statements[0].named_children if c.type != "comment"]
    text = " ".join(LINE_COMMENT.sub(" ", node_text(returned[0])).split())[:ARGUMENT_TEXT_LIMIT] if len(returned) == 1 else ""
    return (Role.CONSTANT, text) if _CONSTANT_VALUE.fullmatch(text) else None


def field_use(field: Node | None, expression: Node | None, operator: str) -> FieldFacts:
    """How a member access is used: the other operand of its binary expression ("other"), the object
    (`grid` of `grid.sync()`), and the calls it is an argument of, innermost first ("call"), which tell
    `prop.major >= 7` and `printf(..., prop.major)` apart."""
    other_text = object_text = ""
    if field is not None and expression is not None:
        other = next((c for c in expression.named_children if c != field and c.type != "comment"), None)
        if other is not None:
            other_text = " ".join(node_text(other).split())[:ARGUMENT_TEXT_LIMIT]
    if field is not None and field.type == "field_expression" and field.child_by_field_name("argument") is not None:
        object_text = node_text(field.child_by_field_name("argument"))[:ARGUMENT_TEXT_LIMIT]
    assigned = field is not None and field.parent is not None and field.parent.type == "assignment_expression" \
        and field.parent.child_by_field_name("left") == field  # prop.major = 0: written, not read
    calls, node = [], field
    while node is not None and node.type not in ("compound_statement", "translation_unit", "expression_statement"):
        if node.type == "argument_list" and node.parent is not None and node.parent.child_by_field_name("function"):
            calls.append(node_text(node.parent.child_by_field_name("function"))[:ARGUMENT_TEXT_LIMIT])
        node = node.parent
    # innermost first: printf(fmt, f(prop.major)) -> "f printf"
    return FieldFacts(operator, other_text, object_text, assigned, " ".join(calls))


def index_guarded(node: Node, index: str) -> bool:
    """Whether an enclosing `if` or `?:` tests the index (`lane < num_warps ? s[lane] : 0`)."""
    words = set(re.findall(r"[A-Za-z_]\w*", index))
    while node.parent is not None and node.type not in ("compound_statement", "function_definition"):
        parent = node.parent
        condition = parent.child_by_field_name("condition") if parent.type in ("conditional_expression", "if_statement") else None
        if condition is not None and condition != node and words & set(re.findall(r"[A-Za-z_]\w*", node_text(condition))):
            return True
        node = parent
    return False


DECLARATIONS = ("declaration", "parameter_declaration", "field_declaration")


def defined_types(nodes: list[Node]) -> list[Node]:
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


def _declarators(declaration: Node) -> Iterator[Node]:
    """A declaration's declarators, each without its initializer and its reference (`&x = y` -> `x`)."""
    for declarator in declaration.children_by_field_name("declarator"):
        if declarator.type == "init_declarator":
            declarator = declarator.child_by_field_name("declarator")
        if declarator is not None and declarator.type == "reference_declarator":
            declarator = declarator.named_children[0] if declarator.named_children else None
        if declarator is not None:
            yield declarator


def declared_names(declaration: Node) -> str:
    """The plain names a declaration of a type declares (`cudaMemLocation a = {...}, b;` → "a,b"; references
    too, not pointers or arrays): what a call argument spelled as one of them holds."""
    return ",".join(node_text(d) for d in _declarators(declaration) if d.type in ("identifier", "field_identifier"))


def pointer_names(declaration: Node) -> str:
    """The names a declaration of a type declares as one pointer to it or an array of it (`__half2 *p, s[4];` →
    "p,s"; references to such a pointer too): what a call argument spelled as `p`, `p + i` or `&s[i]` points to."""
    names = (d.child_by_field_name("declarator") for d in _declarators(declaration)
             if d.type in ("pointer_declarator", "array_declarator"))
    # not `T **p`, `T s[2][2]`
    return ",".join(node_text(n) for n in names if n is not None and n.type in ("identifier", "field_identifier"))


def position_key(occurrence: Occurrence) -> tuple[int, int, str]:
    return occurrence.span.start, occurrence.span.end, occurrence.role  # a str enum: orders by its value


def node_span(node: Node) -> Span:
    return Span(node.start_byte, node.end_byte)


class Scopes:
    """Answers "which function encloses this byte?" with a sorted interval list."""

    def __init__(self, functions: list[tuple[int, int, str]]):
        self._functions = sorted(functions)
        self._starts = [f[0] for f in self._functions]
        # The furthest end of the functions up to each: the search back stops where none before can reach the
        # offset (it went back through every function before an offset outside them: a header's global names).
        self._reach = list(itertools.accumulate((f[1] for f in self._functions), max))

    def name_at(self, offset: int) -> str:
        index = bisect.bisect_right(self._starts, offset) - 1
        while index >= 0 and self._reach[index] > offset:
            start, end, name = self._functions[index]
            if offset < end:  # and start <= offset, as bisect found
                return name
            index -= 1
        return ""


_FLIPPED = {">": "<", ">=": "<=", "<": ">", "<=": ">=", "==": "==", "!=": "!="}
# Where an expression ends: a statement, a declaration or the file (code), or a preprocessor directive.
_EXPRESSION_ENDS = ("expression_statement", "declaration", "field_declaration", "return_statement", "compound_statement",
                    "translation_unit", "function_definition", "init_declarator", "argument_list", "initializer_list")


def read_in_code(name: Node) -> bool:
    """Whether a macro's name is read as a value in code (`int a = __CUDA_ARCH__;`, `printf("%d", __CUDA_ARCH__)`),
    not in a preprocessor test (`#if __CUDA_ARCH__ + 0`, `defined(__CUDA_ARCH__)`)."""
    node = name.parent
    while node is not None and node.type not in _EXPRESSION_ENDS:
        if node.type.startswith("preproc_"):
            return False
        node = node.parent
    return node is not None


def _branches(directive: Node, selects_device: bool | None) -> NameFacts:
    """The bytes an #if/#elif/#ifdef selects (up to its #elif, #else or #endif) and those it leaves to the rest of the
    group, as (start, end): what a rewritten test would switch on or off; the device functions each declares; and,
    where a true test selects the directive's own branch (`selects_device`) or the rest (False), the functions that
    side defines `__device__` and the other for the host."""
    test = directive.child_by_field_name("condition") or directive.child_by_field_name("name")
    alternative = directive.child_by_field_name("alternative")
    if test is None:
        return NameFacts()
    end = alternative.start_byte if alternative is not None else directive.end_byte
    otherwise = (alternative.start_byte, alternative.end_byte) if alternative is not None else None
    own, rest = branch_items(directive), [alternative] if alternative is not None else []
    twins = TwinFacts() if selects_device is None or not rest else \
        host_twins(own, rest) if selects_device else host_twins(rest, own)
    return NameFacts(branch=(test.end_byte, end), otherwise=otherwise,
                     branch_functions=device_functions(own), otherwise_functions=device_functions(rest),
                     twins=twins.names, twin_edits=twins.edits, twins_left=twins.left)


def lone_test(name: Node, parent: Node) -> tuple[NameFacts, Span] | None:
    """For a macro that is the whole test of its directive (`#ifdef X`, `#ifndef X`, `#if defined(X)`,
    `#elif !defined(X)`): its facts (how it is tested, `NameFacts.alone`, and the directive's branches) and what a
    rewrite of the test replaces (the `#ifdef X` of a directive, the condition of an #if). None for anything else."""
    if parent.type == "preproc_ifdef":
        directive = parent.children[0].type if parent.children else ""
        if parent.child_by_field_name("name") != name or directive not in ("#ifdef", "#ifndef"):
            return None
        return _branches(parent, directive == "#ifdef")._replace(tested=True, alone=directive), \
            Span(parent.start_byte, name.end_byte)
    if parent.type != "preproc_defined":
        return None
    node, negated = parent.parent, False
    while node is not None and (node.type == "parenthesized_expression" or _negated_operand(node) is not None):
        negated ^= node.type == "unary_expression"
        node = node.parent
    condition = node.child_by_field_name("condition") if node is not None and node.type in ("preproc_if", "preproc_elif") else None
    if condition is None or not (condition.start_byte <= parent.start_byte and parent.end_byte <= condition.end_byte) \
            or _lone_defined(condition) != parent:
        return None
    return _branches(node, not negated)._replace(tested=True, alone="!defined" if negated else "defined"), \
        node_span(condition)


def _lone_defined(condition: Node) -> Node | None:
    """The `defined(X)` a condition is, through parentheses and `!`; None where it is anything more."""
    node: Node | None = condition
    while node is not None and node.type in ("parenthesized_expression", "unary_expression"):
        node = _negated_operand(node) if node.type == "unary_expression" else \
            node.named_children[0] if node.named_child_count == 1 else None
    return node if node is not None and node.type == "preproc_defined" else None


def constructs_dim3(node: Node) -> bool:
    """`dim3(x, y, z)` (a call of the name dim3), whose value is a dim3 as written."""
    function = node.child_by_field_name("function") if node.type == "call_expression" else None
    return function is not None and function.text == b"dim3"


def compared_with(name: Node, expression: Node | None) -> tuple[NameFacts, tuple[Span, ...]] | None:
    """For a macro compared with a number in #if/#elif (`__CUDA_ARCH__ >= 600`, `530 <= __CUDA_ARCH__`), or a version
    macro with a named version (`CUDART_VERSION >= CUDART_HMAX`):
    its facts ("<operator> <number>", read as the macro on the left, and the directive's branches), and its parts: the
    comparison, what a rewrite of it replaces (`_rewritten`) and the whole test. `expression`: the name's parent."""
    if expression is None or expression.type != "binary_expression":
        return None
    operator = expression.child_by_field_name("operator")
    left, right = expression.child_by_field_name("left"), expression.child_by_field_name("right")
    if operator is None or node_text(operator) not in _FLIPPED or left is None or right is None:
        return None
    number, flip = (right, False) if left == name else (left, True)
    op = _FLIPPED[node_text(operator)] if flip else node_text(operator)
    node = expression.parent
    while node is not None and node.type not in ("preproc_if", "preproc_elif"):
        node = node.parent
    condition = node.child_by_field_name("condition") if node is not None else None
    if condition is not None and not condition.start_byte <= expression.start_byte < condition.end_byte:
        node = condition = None  # code inside an #if's branch, not its test
    condition_macro = CUDA_CONDITION_MACROS.fullmatch(node_text(name)) is not None
    if node is None or condition is None:  # code: the macro's value read (`__CUDA_ARCH__ >= 800 ? a : b`), with
        # anything (`static_assert(__CUDA_ARCH__ >= MIN_ARCH * 10)`): renamed, it would compare 1 with the number
        return (NameFacts(valued=f"{op} {node_text(number)}"), (node_span(expression),)) if condition_macro else None
    if number.type != "number_literal" and not (number.type == "identifier" and condition_macro):
        return None  # a version is also compared with a named one (llama.cpp's `CUDART_VERSION >= CUDART_HMAX`), an
        # architecture too (bitsandbytes' `__CUDA_ARCH__ >= BNB_CC_AMPERE`)
    selects = True if op in (">", ">=") else False if op in ("<", "<=") else None
    facts = _branches(node, selects)._replace(compared=f"{op} {node_text(number)}", beside_hip=chain_tests_hip(name),
                                              ranged=_ranged(expression, node_text(name), op))
    return facts, (node_span(expression), _rewritten(expression, name, op), node_span(condition))


_BOUNDS = {">": 1, ">=": 1, "<": -1, "<=": -1}
_NUMBERS = ("number_literal", "identifier")  # 860, or a named one (BNB_CC_ADA)


def _ranged(comparison: Node, name: str, op: str) -> bool:
    """Whether the && or || chain the comparison stands in also compares `name` with a number the other way
    (`X >= 860 && X <= 890`, `X < 700 || X >= 900`): the chain as a whole then answers the same for AMD's device pass
    as written (the macro undefined reads 0) as rewritten (AMD newer than any generation)."""
    if op not in _BOUNDS:
        return False
    chain, joined = _chain(comparison)
    if chain is comparison:
        return False
    bounds = set()
    for operand in _operands(chain, joined):
        operator = operand.child_by_field_name("operator") if operand.type == "binary_expression" else None
        left, right = operand.child_by_field_name("left"), operand.child_by_field_name("right")
        if operator is None or node_text(operator) not in _BOUNDS or left is None or right is None:
            continue
        if node_text(left) == name and right.type in _NUMBERS:
            bounds.add(_BOUNDS[node_text(operator)])
        elif node_text(right) == name and left.type in _NUMBERS:
            bounds.add(-_BOUNDS[node_text(operator)])
    return len(bounds) == 2


def _chain(node: Node) -> tuple[Node, str]:
    """The outermost && (or ||) expression `node` is an operand of, through parentheses and the same operator."""
    chain, joined = node, ""
    parent = node.parent
    while parent is not None:
        if parent.type == "parenthesized_expression":
            parent = parent.parent
            continue
        operator = parent.child_by_field_name("operator") if parent.type == "binary_expression" else None
        spelled = node_text(operator) if operator is not None else ""
        if spelled not in ("&&", "||") or joined and spelled != joined:
            break
        chain, joined, parent = parent, spelled, parent.parent
    return chain, joined


def _operands(chain: Node, joined: str) -> Iterator[Node]:
    """The operands of a chain of `joined`, through parentheses and nested uses of the same operator."""
    if chain.type == "parenthesized_expression" and chain.named_child_count == 1:
        yield from _operands(chain.named_children[0], joined)
        return
    operator = chain.child_by_field_name("operator") if chain.type == "binary_expression" else None
    if operator is not None and node_text(operator) == joined:
        for side in (chain.child_by_field_name("left"), chain.child_by_field_name("right")):
            if side is not None:
                yield from _operands(side, joined)
        return
    yield chain


def _rewritten(comparison: Node, name: Node, op: str) -> Span:
    """What a rewrite of the comparison replaces: itself, or with the test of the same macro before it that the
    rewrite makes say the same twice: `defined(X) &&` before a `>` comparison (`defined(__CUDA_ARCH__) &&
    __CUDA_ARCH__ >= 600`), `!defined(X) ||` before a `<` one (`!defined(__CUDA_ARCH__) || __CUDA_ARCH__ < 600`)."""
    joined, negated = ("&&", False) if op in (">", ">=") else ("||", True) if op in ("<", "<=") else ("", False)
    parent = comparison.parent
    operator = parent.child_by_field_name("operator") if parent is not None else None
    if not joined or operator is None or node_text(operator) != joined or parent.child_by_field_name("right") != comparison:
        return node_span(comparison)
    before = parent.child_by_field_name("left")
    while before is not None and before.type == "binary_expression" and node_text(before.child_by_field_name("operator")) == joined:
        before = before.child_by_field_name("right")  # `a && defined(X) && X >= 600` is `(a && defined(X)) && ...`
    start = before.start_byte if before is not None else 0
    if negated:
        before = _negated_operand(before)
    tested = [c for c in before.named_children if c.type == "identifier"] if before is not None else []
    if before is None or before.type != "preproc_defined" or [node_text(c) for c in tested] != [node_text(name)]:
        return node_span(comparison)
    return Span(start, comparison.end_byte)


def _negated_operand(node: Node | None) -> Node | None:
    """What `!` negates in `!defined(X)` (or `!(defined(X))`); None where `node` is no negation."""
    if node is None or node.type != "unary_expression" or node_text(node.child_by_field_name("operator")) != "!":
        return None
    operand = node.child_by_field_name("argument")
    while operand is not None and operand.type == "parenthesized_expression" and operand.named_child_count == 1:
        operand = operand.named_children[0]
    return operand


HIP_TESTS = re.compile(rb"__HIP_PLATFORM_AMD__|__HIP_PLATFORM_HCC__|__HIPCC__|__HIP__|__HIP_DEVICE_COMPILE__")


def signature(function: Node) -> tuple[tuple[str, ...], bool, bool]:
    """The first two parameters' types (`double*`; references as their type), and whether a #if on HIP already
    encloses the definition, or it is one of a #if's alternatives."""
    types = []
    declarator = function_declarator(function)
    parameters = declarator.child_by_field_name("parameters") if declarator is not None else None
    declared = [p for p in parameters.named_children if p.type == "parameter_declaration"] if parameters else []
    for index, parameter in enumerate(declared[:2]):
        kind = parameter.child_by_field_name("type")
        if kind is not None:
            pointers = node_text(parameter.child_by_field_name("declarator") or parameter).count("*")
            types.append(" ".join(node_text(kind).split()) + "*" * pointers)
    node = function.parent
    while node is not None:
        if _tests_for_hip(node):
            return tuple(types), True, False
        if node.type in ("preproc_else", "preproc_elif", "preproc_elifdef"):
            return tuple(types), False, True  # one of a #if's alternatives: the other one may be its twin
        node = node.parent
    return tuple(types), False, False


def _tests_for_hip(node: Node) -> bool:
    """Whether `node` is a #if/#ifdef that tests for HIP (convert's own guard, or the project's)."""
    if not node.type.startswith("preproc_if"):
        return False  # most of a function's ancestors: not a field looked up
    test = node.child_by_field_name("condition") or node.child_by_field_name("name")
    return test is not None and HIP_TESTS.search(test.text or b"") is not None


_DIRECTIVES = ("preproc_if", "preproc_ifdef", "preproc_elif", "preproc_elifdef")
_ALTERNATIVES = ("preproc_elif", "preproc_elifdef", "preproc_else")


def chain_tests_hip(name: Node) -> bool:
    """Whether the #if/#elif chain whose test holds `name` tests for HIP in one of its directives, its own
    included (`#if defined(__CUDACC__)` ... `#elif defined(__HIP__)`): the project already provides for hipcc."""
    node = name.parent
    while node is not None and node.type not in _DIRECTIVES:
        node = node.parent
    while node is not None and node.type in _ALTERNATIVES and node.parent is not None \
            and node.parent.type in _DIRECTIVES:
        node = node.parent  # up to the #if that opens the chain
    while node is not None and node.type in _DIRECTIVES:
        test = node.child_by_field_name("condition") or node.child_by_field_name("name")
        if test is not None and HIP_TESTS.search(test.text or b"") is not None:
            return True
        node = node.child_by_field_name("alternative")
    return False


def under_hip_test(node: Node) -> bool:
    """Whether a #if that tests for HIP encloses `node`."""
    parent = node.parent
    while parent is not None and not _tests_for_hip(parent):
        parent = parent.parent
    return parent is not None


_PRIMITIVE_TYPES = {"primitive_type", "sized_type_specifier", "auto", "placeholder_type_specifier"}


def declaration_kind(name: Node, api: Keep | None) -> str:
    """How to read a declared name: "declared" (it is), "local" (a block-scope "function
    prototype" that is a variable: `dim3 grid(blocks);`, C++'s most vexing parse), or "use":
    inside a syntax error, or a statement macro without its `;` (`CHECK( cudaMemcpy(...) )`,
    read as a declaration of cudaMemcpy). A misparse never makes a CUDA API the project's own."""
    parent = name.parent  # each step up walks down from the root: once each
    if parent is not None and parent.type in ("preproc_def", "preproc_function_def"):
        return "declared"  # a #define is a line of its own: no misparse around it makes one up
    node, through_function = parent, False
    while node is not None:
        kind = node.type
        if node.is_error or kind == "ERROR" or kind == "declaration" and node.has_error:
            return "use"
        if kind == "function_declarator":
            through_function = True
        elif kind in ("function_definition", "parameter_list", "field_declaration_list"):
            return "declared"
        elif kind == "declaration":
            above = node.parent if through_function else None
            if above is None or above.type != "compound_statement":
                return "declared"
            specifier = node.child_by_field_name("type")
            if api is not None and api(node_text(name)) and (specifier is None or specifier.type not in _PRIMITIVE_TYPES):
                return "use"
            return "local"
        node = node.parent
    return "declared"


_FIRST_NAME = re.compile(rb"\s*([A-Za-z_]\w*)")


def is_hip_alias(name: Node, hip_alias: HipAlias | None) -> bool:
    """`#define cudaMalloc hipMalloc`, `using cudaError_t = hipError_t;`, `typedef hipEvent_t cudaEvent_t;`: a porting
    shim's alias of a CUDA API for the HIP name convert writes (colmap's util/cuda_to_hip.h). Renaming the uses means
    the same where the shim is seen and is needed where it is not: the name stays CUDA's. The alias itself is left as
    written: renamed, it would define the HIP name as itself."""
    definition = name.parent
    if hip_alias is None or definition is None:
        return False
    if definition.type in ("preproc_def", "preproc_function_def"):
        value = definition.child_by_field_name("value")
        first = _FIRST_NAME.match(value.text or b"") if value is not None else None
        aliased = first.group(1) if first is not None else None
    elif definition.type in ("alias_declaration", "type_definition") and name.type == "type_identifier":
        value = definition.child_by_field_name("type")
        aliased = value.text.strip() if value is not None and value.text is not None else None
        aliased = aliased if aliased is not None and _ONE_NAME.fullmatch(aliased) else None
    else:
        return False
    return aliased is not None and hip_alias(node_text(name), aliased.decode("ascii"))


_ONE_NAME = re.compile(rb"[A-Za-z_]\w*")


_C_LINKAGE = re.compile(rb'\bextern\s*"C"\s*\{')


def c_linkage_blocks(source: bytes) -> list[tuple[int, int]]:
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


def body_positions(node: Node, body: bytes) -> Callable[[int], Position]:
    """The line and column of an offset into a #define body, from the body's own start (a line index of the
    whole file, for its #defines only, cost more than their names)."""
    row, column = node.start_point

    def position(offset: int) -> Position:
        newline = body.rfind(b"\n", 0, offset)  # a body runs on past an escaped newline
        if newline < 0:
            return Position(row + 1, column + offset + 1)
        return Position(row + 1 + body.count(b"\n", 0, offset), offset - newline)
    return position
