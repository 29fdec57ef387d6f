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
import functools
import re
from typing import Callable

import tree_sitter_cuda
from tree_sitter import Language, Node, Parser, Query, QueryCursor

from portkit.model import Occurrence, OccurrenceKind, ParsedFile, Position, Span

_QUERY = """
(call_expression function: (identifier) @call)
(call_expression function: (template_function name: (identifier) @call))
(identifier) @identifier
(type_identifier) @type
(qualified_identifier) @qualified
(preproc_include path: (_) @include)
(preproc_arg) @macro_body
(function_definition) @function
(call_expression function: (_) @launch_name (kernel_call_syntax) @launch)
(gnu_asm_expression) @asm
(comment) @comment
(binary_expression right: (number_literal) @literal)
(binary_expression left: (number_literal) @literal)
(declaration (type_qualifier) @qualifier)
(launch_bounds) @launch_bounds
(namespace_alias_definition) @namespace_alias
(field_expression field: (field_identifier) @field)
(preproc_if condition: (_) @condition)
(preproc_elif condition: (_) @condition)
(preproc_ifdef name: (identifier) @condition)
(preproc_elifdef name: (identifier) @condition)
(function_declarator declarator: (identifier) @definition)
(function_declarator declarator: (field_identifier) @definition)
(preproc_def name: (identifier) @definition)
(preproc_function_def name: (identifier) @definition)
(type_definition declarator: (type_identifier) @definition)
(struct_specifier name: (type_identifier) @definition body: (_))
(class_specifier name: (type_identifier) @definition body: (_))
(union_specifier name: (type_identifier) @definition body: (_))
(enum_specifier name: (type_identifier) @definition body: (_))
(enumerator name: (identifier) @definition)
(alias_declaration name: (type_identifier) @definition)
(init_declarator declarator: (identifier) @declared)
(declaration declarator: (identifier) @declared)
(parameter_declaration declarator: (identifier) @declared)
(preproc_params (identifier) @declared)
(pointer_declarator declarator: (identifier) @declared)
(array_declarator declarator: (identifier) @declared)
(reference_declarator (identifier) @declared)
(field_declaration declarator: (field_identifier) @declared)
"""

# Macros whose tests in #if/#ifdef mark code that only one vendor's compiler sees.
CUDA_CONDITION_MACROS = re.compile(r"\b(__CUDA_ARCH\w*__|__CUDACC\w*__|__NVCC__|CUDART_VERSION|CUDA_VERSION|__CUDA_API_VERSION\w*)\b")
_MACRO_TOKEN = re.compile(
    rb'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|/\*.*?\*/|//[^\n]*|([A-Za-z_]\w*)', re.S
)
_ASM_IN_MACRO = re.compile(rb'\b(?:asm|__asm__)\s*(?:volatile|__volatile__)?\s*\(\s*((?:"(?:\\.|[^"\\])*"\s*)+)')
_STRING_CONTENT = re.compile(rb'"((?:\\.|[^"\\])*)"')
_KERNEL_QUALIFIERS = {"__global__": OccurrenceKind.KERNEL, "__device__": OccurrenceKind.DEVICE_FUNCTION}
_BOM = b"\xef\xbb\xbf"
_RESERVED = re.compile(rb"^__\w+__$")
# `// portkit: ignore` or `// portkit: ignore[PK102, PK104]` (the flake8 noqa idea).
_SUPPRESSION = re.compile(rb"portkit:\s*ignore(?:\[([\w\s,-]*)\])?")

Keep = Callable[[str], bool]


@functools.lru_cache(maxsize=1)
def _language() -> tuple[Language, Query]:
    language = Language(tree_sitter_cuda.language())
    return language, Query(language, _QUERY)


def _text(node: Node) -> str:
    return node.text.decode("utf-8", "replace") if node.text is not None else ""


def _position(node: Node) -> Position:
    row, column = node.start_point
    return Position(row + 1, column + 1)


def _function_name(node: Node) -> str:
    """The declared name of a function_definition (qualified names kept whole)."""
    declarator = node.child_by_field_name("declarator")
    while declarator is not None and declarator.type != "function_declarator":
        declarator = declarator.child_by_field_name("declarator")
    if declarator is None:
        return ""
    name = declarator.child_by_field_name("declarator")
    return _text(name) if name is not None else ""


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


def _call_info(name: Node, arguments: tuple[Span, ...], source: bytes) -> tuple[tuple[str, str], ...]:
    """Argument texts, and the declared type when the call initialises a variable."""
    info = [(f"arg{i}", " ".join(source[a.start:a.end].decode("utf-8", "replace").split())[:_ARGUMENT_TEXT_LIMIT])
            for i, a in enumerate(arguments)]
    call = name.parent
    while call is not None and call.type != "call_expression":
        call = call.parent
    holder = call.parent if call is not None else None
    if holder is not None and holder.type == "init_declarator" and holder.parent is not None:
        declared = holder.parent.child_by_field_name("type")
        if declared is not None:
            info.append(("assigned_type", " ".join(_text(declared).split())))
    return tuple(info)


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


def _position_key(occurrence: Occurrence) -> tuple[int, int, str]:
    return occurrence.span.start, occurrence.span.end, occurrence.kind.value


def _span(node: Node) -> Span:
    return Span(node.start_byte, node.end_byte)


def _argument_spans(name: Node) -> tuple[Span, ...]:
    """The spans of a call's arguments, given the identifier it calls."""
    call = name.parent
    if call is not None and call.type == "template_function":
        call = call.parent
    arguments = call.child_by_field_name("arguments") if call is not None else None
    if arguments is None:
        return ()
    return tuple(_span(c) for c in arguments.named_children if c.type != "comment")


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


_COMPLETE_ITEM = re.compile(r"(definition|declaration|statement|^preproc_|^comment$|^linkage_specification$)")


def _first_error_line(root: Node) -> int | None:
    """The line where the first syntax error starts.

    tree-sitter often wraps a whole region, valid code included, in one ERROR
    node; inside it, the first child that is not a complete item is the culprit.
    """
    if not root.has_error:
        return None
    node = root
    while True:
        if node.is_missing:
            return node.start_point[0] + 1
        for child in node.children:
            if child.has_error or child.is_missing or child.is_error:
                node = child
                break
            if node.is_error and not _COMPLETE_ITEM.search(child.type):
                return child.start_point[0] + 1
        else:
            return node.start_point[0] + 1


def _line_starts(source: bytes) -> list[int]:
    return [0] + [m.end() for m in re.finditer(rb"\n", source)]


def _macro_occurrences(node: Node, source: bytes, starts: list[int], context: str, keep: Keep | None) -> list[Occurrence]:
    """Lex a #define body (opaque to tree-sitter) for identifiers and inline asm."""
    base = node.start_byte
    body = source[base:node.end_byte]
    found: list[Occurrence] = []

    def position(offset: int) -> Position:
        line = bisect.bisect_right(starts, offset) - 1
        return Position(line + 1, offset - starts[line] + 1)

    for match in _MACRO_TOKEN.finditer(body):
        if match.group(1) is None:
            continue
        name = match.group(1).decode("ascii")
        if keep is not None and not keep(name):
            continue
        start = base + match.start(1)
        found.append(Occurrence(Span(start, start + len(name)), OccurrenceKind.MACRO_BODY, name, position(start), context))
    for match in _ASM_IN_MACRO.finditer(body):
        template = b"".join(_STRING_CONTENT.findall(match.group(1))).decode("utf-8", "replace")
        start = base + match.start()
        found.append(Occurrence(Span(start, base + match.end()), OccurrenceKind.INLINE_ASM, template, position(start), context, "macro"))
    return found


def parse_source(path: str, source: bytes, keep: Keep | None = None, literals: frozenset[str] = frozenset()) -> ParsedFile:
    """Parse one file. `keep`, if given, filters identifier-like occurrences by name;
    number literals in binary expressions are reported when their text is in `literals`."""
    language, query = _language()
    parser = Parser(language)
    # A BOM is not C++; blank it out with spaces so byte offsets stay the same.
    parse_bytes = b"   " + source[3:] if source.startswith(_BOM) else source
    tree = parser.parse(parse_bytes)
    captures = QueryCursor(query).captures(tree.root_node)
    get = lambda name: captures.get(name, ())  # noqa: E731

    functions: list[tuple[int, int, str]] = []
    occurrences: list[Occurrence] = []
    for node in get("function"):
        name = _function_name(node)
        functions.append((node.start_byte, node.end_byte, name))
        qualifiers = {c.type for c in node.children if not c.is_named}
        for qualifier, kind in _KERNEL_QUALIFIERS.items():
            if qualifier in qualifiers and name:
                detail = "template" if node.parent is not None and node.parent.type == "template_declaration" else ""
                occurrences.append(Occurrence(Span(node.start_byte, node.end_byte), kind, name, _position(node), name, detail))
                break
    scopes = _Scopes(functions)

    # C++ reserves __names__ for the implementation: a "declaration" of one is an
    # attribute macro tree-sitter does not know (__cluster_dims__(2, 1, 1)), so keep it as a use.
    declared_nodes = [n for n in get("declared") if not _RESERVED.match(n.text or b"")]
    definitions = {_text(n) for n in get("definition")}
    declared = {_text(n) for n in declared_nodes}
    skip = {n.start_byte for n in get("definition")} | {n.start_byte for n in declared_nodes}
    calls = {n.start_byte for n in get("call")}

    def emit(node: Node, kind: OccurrenceKind, text: str | None = None, detail: str = "",
             parts: tuple[Span, ...] = (), span_node: Node | None = None, info: tuple[tuple[str, str], ...] = ()) -> None:
        text = _text(node) if text is None else text
        where = span_node or node
        occurrences.append(Occurrence(
            Span(where.start_byte, where.end_byte), kind, text, _position(node), scopes.name_at(node.start_byte),
            detail, parts, info,
        ))

    for capture, kind in (("identifier", OccurrenceKind.IDENTIFIER), ("type", OccurrenceKind.TYPE)):
        for node in get(capture):
            if node.start_byte in skip:
                continue
            text = _text(node)
            if keep is not None and not keep(text):
                continue
            if node.start_byte in calls:
                arguments = _argument_spans(node)
                emit(node, OccurrenceKind.CALL, text, parts=arguments, info=_call_info(node, arguments, parse_bytes))
            elif kind is OccurrenceKind.IDENTIFIER or node.parent is not None and node.parent.type == "type_descriptor":
                constant = _constant_context(node)
                emit(node, kind, text, info=(("constant", constant),) if constant else ())
            else:
                emit(node, kind, text)
    for node in get("qualified"):
        text = re.sub(r"\s+", "", _text(node))
        outermost = node.parent is None or node.parent.type != "qualified_identifier"
        if outermost and (keep is None or keep(text) or keep(re.sub(r"<.*", "", text).rsplit("::", 1)[-1])):
            emit(node, OccurrenceKind.QUALIFIED, text)
    for node in get("namespace_alias"):
        name = node.child_by_field_name("name")
        target = node.named_children[-1] if node.named_children else None
        if name is not None and target is not None and target != name:
            emit(node, OccurrenceKind.NAMESPACE_ALIAS, _text(name), re.sub(r"\s+", "", _text(target)).lstrip(":"))
    for node in get("include"):
        emit(node, OccurrenceKind.INCLUDE, _text(node).strip()[1:-1].strip(), "system" if node.type == "system_lib_string" else "local")
    names = get("launch_name")
    for name, node in zip(names, get("launch")):
        config = " ".join(_text(node)[3:-3].split())
        kernel = name.child_by_field_name("name") if name.type == "template_function" else name
        call = node.parent
        arguments = call.child_by_field_name("arguments") if call is not None else None
        parts = (_span(name),) + tuple(_span(c) for c in node.named_children if c.type != "comment")
        parts += (_span(arguments),) if arguments is not None else ()
        emit(name, OccurrenceKind.LAUNCH, _text(kernel or name), config, parts, span_node=call)
    for node in get("asm"):
        strings = node.child_by_field_name("assembly_code")
        template = b"".join(_STRING_CONTENT.findall(strings.text or b"")).decode("utf-8", "replace") if strings else ""
        emit(node, OccurrenceKind.INLINE_ASM, template)
    for node in get("condition"):
        text = _text(node)
        if CUDA_CONDITION_MACROS.search(text):
            directive = node.parent.children[0].type if node.parent is not None and node.parent.children else "#if"
            emit(node, OccurrenceKind.PREPROCESSOR_CONDITION, " ".join(text.split()), directive)
    for node in get("field"):
        text = _text(node)
        if keep is None or keep(text):
            holder = node.parent.parent if node.parent is not None else None
            operator = holder.child_by_field_name("operator") if holder is not None and holder.type == "binary_expression" else None
            emit(node, OccurrenceKind.FIELD, text, info=(("operator", _text(operator)),) if operator is not None else ())
    for node in get("literal"):
        text = _text(node)
        if text in literals and node.parent is not None:
            operator = node.parent.child_by_field_name("operator")
            emit(node, OccurrenceKind.LITERAL, text, _text(operator) if operator is not None else "")
    for node in get("qualifier"):
        if node.text == b"__shared__" and node.parent is not None:
            shared = _shared_array(node.parent)
            if shared is not None:
                emit(shared[0], OccurrenceKind.SHARED_ARRAY, _text(shared[0]), span_node=node.parent, info=shared[1])
    for node in get("launch_bounds"):
        arguments = [_text(c) for c in node.named_children if c.type != "comment"]
        emit(node, OccurrenceKind.LAUNCH_BOUNDS, _text(node), info=tuple((f"arg{i}", a) for i, a in enumerate(arguments)))
    for node in get("comment"):
        match = _SUPPRESSION.search(node.text or b"")
        if match:
            codes = ",".join(c.strip() for c in (match.group(1) or b"").decode("ascii", "replace").split(",") if c.strip())
            emit(node, OccurrenceKind.SUPPRESSION, _text(node), codes)
    starts = _line_starts(source) if get("macro_body") else []
    for node in get("macro_body"):
        occurrences.extend(_macro_occurrences(node, source, starts, scopes.name_at(node.start_byte), keep))

    return ParsedFile(
        path=path,
        occurrences=tuple(sorted(occurrences, key=_position_key)),
        definitions=frozenset(definitions),
        declared=frozenset(declared - definitions),
        lines=source.count(b"\n") + (0 if source.endswith(b"\n") or not source else 1),
        error_line=_first_error_line(tree.root_node),
    )
