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

from portkit.model import Occurrence, ParsedFile, Position, Role, Span
from portkit.parse.macros import MacroTable, collect_macros
from portkit.parse.prepare import prepare
from portkit.parse.recovery import first_error_line, unparsed_occurrences
from portkit.textutil import LineIndex

_QUERY = """
(call_expression function: (identifier) @call)
(call_expression function: (template_function name: (identifier) @call))
(identifier) @identifier
(type_identifier) @type
(qualified_identifier) @qualified
(preproc_include path: (_) @include)
(preproc_arg) @macro_body
(function_definition) @function
(kernel_call_syntax) @launch
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
_KERNEL_QUALIFIERS = {"__global__": Role.KERNEL, "__device__": Role.DEVICE_FUNCTION}
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
    return occurrence.span.start, occurrence.span.end, occurrence.role.value


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


def _trusted(name: Node) -> bool:
    """Whether a declared name is really declared: not inside a syntax error, and not a
    "function prototype" in a function body, which is how tree-sitter reads a statement
    macro without its `;` (`CHECK( cudaMemcpy(...) )` as a declaration of cudaMemcpy).
    A misparse must never make a CUDA name look like the project's own."""
    node, through_function = name.parent, False
    while node is not None:
        if node.is_error or node.type == "ERROR" or node.has_error and node.type == "declaration":
            return False
        if node.type == "function_declarator":
            through_function = True
        elif node.type in ("function_definition", "parameter_list", "field_declaration_list"):
            return True
        elif node.type == "declaration":
            return not (through_function and node.parent is not None and node.parent.type == "compound_statement")
        node = node.parent
    return True


class _FileParse:
    """One file's parse: each query capture name has a handler that emits occurrences.

    `keep`, if given, filters identifier-like occurrences by name (the rule names
    and CUDA-looking ones); number literals in binary expressions are reported
    when their text is in `literals`.
    """

    def __init__(self, source: bytes, parse_bytes: bytes, captures: dict[str, list[Node]], keep: Keep | None,
                 literals: frozenset[str]):
        self.source = source
        self.parse_bytes = parse_bytes
        self.captures = captures
        self.keep = keep
        self.literals = literals
        self.occurrences: list[Occurrence] = []
        self.scopes = _Scopes([])
        # C++ reserves __names__ for the implementation: a "declaration" of one is an
        # attribute macro tree-sitter does not know (__cluster_dims__(2, 1, 1)), so keep it as a use.
        declared_nodes = [n for n in self.get("declared") if not _RESERVED.match(n.text or b"") and _trusted(n)]
        definition_nodes = [n for n in self.get("definition") if _trusted(n)]
        self.definitions = {_text(n) for n in definition_nodes}
        self.declared = {_text(n) for n in declared_nodes}
        self.skip = {n.start_byte for n in definition_nodes} | {n.start_byte for n in declared_nodes}
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
        """Function definitions: the scopes every other occurrence is attributed to; kernels and device functions."""
        spans = []
        for node in nodes:
            name = _function_name(node)
            spans.append((node.start_byte, node.end_byte, name))
            qualifiers = {c.type for c in node.children if not c.is_named}
            role = next((r for q, r in _KERNEL_QUALIFIERS.items() if q in qualifiers), None)
            if role is not None and name:
                detail = "template" if node.parent is not None and node.parent.type == "template_declaration" else ""
                self.occurrences.append(Occurrence(_span(node), role, name, _position(node), name, detail))
        self.scopes = _Scopes(spans)

    def names(self, nodes: list[Node], role: Role) -> None:
        """Identifiers and type identifiers; a called identifier is a CALL with its arguments."""
        for node in nodes:
            text = _text(node)
            if node.start_byte in self.skip or not self.kept(text):
                continue
            if node.start_byte in self.calls:
                arguments = _argument_spans(node)
                self.emit(node, Role.CALL, text, parts=arguments, info=_call_info(node, arguments, self.parse_bytes))
            elif role is Role.IDENTIFIER or node.parent is not None and node.parent.type == "type_descriptor":
                constant = _constant_context(node)
                self.emit(node, role, text, info=(("constant", constant),) if constant else ())
            else:
                self.emit(node, role, text)

    def identifiers(self, nodes: list[Node]) -> None:
        self.names(nodes, Role.IDENTIFIER)

    def types(self, nodes: list[Node]) -> None:
        self.names(nodes, Role.TYPE)

    def qualified(self, nodes: list[Node]) -> None:
        for node in nodes:
            text = re.sub(r"\s+", "", _text(node))
            outermost = node.parent is None or node.parent.type != "qualified_identifier"
            if outermost and (self.kept(text) or self.kept(re.sub(r"<.*", "", text).rsplit("::", 1)[-1])):
                self.emit(node, Role.QUALIFIED, text)

    def namespace_aliases(self, nodes: list[Node]) -> None:
        for node in nodes:
            name = node.child_by_field_name("name")
            target = node.named_children[-1] if node.named_children else None
            if name is not None and target is not None and target != name:
                self.emit(node, Role.NAMESPACE_ALIAS, _text(name), re.sub(r"\s+", "", _text(target)).lstrip(":"))

    def includes(self, nodes: list[Node]) -> None:
        for node in nodes:
            style = "system" if node.type == "system_lib_string" else "local"
            self.emit(node, Role.INCLUDE, _text(node).strip()[1:-1].strip(), style)

    def launches(self, nodes: list[Node]) -> None:
        """k<<<config>>>(args): the kernel and the configuration come from the same call node."""
        for node in nodes:
            call = node.parent
            name = call.child_by_field_name("function") if call is not None else None
            if call is None or name is None:
                continue
            kernel = name.child_by_field_name("name") if name.type == "template_function" else name
            arguments = call.child_by_field_name("arguments")
            parts = (_span(name),) + tuple(_span(c) for c in node.named_children if c.type != "comment")
            parts += (_span(arguments),) if arguments is not None else ()
            config = " ".join(_text(node)[3:-3].split())
            self.emit(name, Role.LAUNCH, _text(kernel or name), config, parts, span_node=call)

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
        for node in nodes:
            text = _text(node)
            if self.kept(text):
                holder = node.parent.parent if node.parent is not None else None
                operator = holder.child_by_field_name("operator") if holder is not None and holder.type == "binary_expression" else None
                self.emit(node, Role.FIELD, text, info=(("operator", _text(operator)),) if operator is not None else ())

    def number_literals(self, nodes: list[Node]) -> None:
        for node in nodes:
            text = _text(node)
            if text in self.literals and node.parent is not None:
                operator = node.parent.child_by_field_name("operator")
                self.emit(node, Role.LITERAL, text, _text(operator) if operator is not None else "")

    def shared_arrays(self, nodes: list[Node]) -> None:
        for node in nodes:
            if node.text == b"__shared__" and node.parent is not None:
                shared = _shared_array(node.parent)
                if shared is not None:
                    self.emit(shared[0], Role.SHARED_ARRAY, _text(shared[0]), span_node=node.parent, info=shared[1])

    def launch_bounds(self, nodes: list[Node]) -> None:
        for node in nodes:
            arguments = [_text(c) for c in node.named_children if c.type != "comment"]
            self.emit(node, Role.LAUNCH_BOUNDS, _text(node), info=tuple((f"arg{i}", a) for i, a in enumerate(arguments)))

    def suppressions(self, nodes: list[Node]) -> None:
        for node in nodes:
            match = _SUPPRESSION.search(node.text or b"")
            if match:
                codes = ",".join(c.strip() for c in (match.group(1) or b"").decode("ascii", "replace").split(",") if c.strip())
                self.emit(node, Role.SUPPRESSION, _text(node), codes)

    def macro_bodies(self, nodes: list[Node]) -> None:
        """#define bodies are opaque to tree-sitter: lex them for identifiers and inline asm."""
        lines = LineIndex(self.source) if nodes else None
        for node in nodes:
            assert lines is not None
            self.occurrences.extend(_macro_occurrences(node, self.source, lines, self.scopes.name_at(node.start_byte), self.keep))


# Capture name -> handler, in order: functions first, since they set the scopes the others use.
_HANDLERS: tuple[tuple[str, Callable[[_FileParse, list[Node]], None]], ...] = (
    ("function", _FileParse.functions),
    ("identifier", _FileParse.identifiers),
    ("type", _FileParse.types),
    ("qualified", _FileParse.qualified),
    ("namespace_alias", _FileParse.namespace_aliases),
    ("include", _FileParse.includes),
    ("launch", _FileParse.launches),
    ("asm", _FileParse.inline_asm),
    ("condition", _FileParse.conditions),
    ("field", _FileParse.fields),
    ("literal", _FileParse.number_literals),
    ("qualifier", _FileParse.shared_arrays),
    ("launch_bounds", _FileParse.launch_bounds),
    ("comment", _FileParse.suppressions),
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
# CUDA's language extensions: a file using them needs the HIP runtime header under hipcc,
# which (unlike nvcc) includes nothing by itself.
_DEVICE_SYNTAX = re.compile(rb"\b(?:__global__|__device__|__shared__|__constant__|__managed__|threadIdx|blockIdx|blockDim"
                            rb"|gridDim|__syncthreads)\b|<<<")


def _preamble_end(source: bytes) -> int:
    """The offset after the leading comments, `#pragma once` and the include guard's #define:
    where an #include or #define can go before any code."""
    offset = result = len(_BOM) if source.startswith(_BOM) else 0
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
        if not guard:
            result = offset
    return result


def _has_device_syntax(source: bytes) -> bool:
    for match in _DEVICE_SYNTAX.finditer(source):
        line_start = source.rfind(b"\n", 0, match.start()) + 1
        if b"//" not in source[line_start:match.start()]:
            return True
    return False


def parse_source(path: str, source: bytes, keep: Keep | None = None, literals: frozenset[str] = frozenset(),
                 macros: MacroTable | None = None) -> ParsedFile:
    """Parse one file into its occurrences, definitions and declared names.

    `macros` is the project's macro table (portkit/parse/macros.py); without one, the file's own
    #defines. The tree may be of prepared bytes (portkit/parse/prepare.py): same length and
    newlines, so offsets are the source's; names the tree does not describe are matched token by token.
    """
    language, query = _language()
    # A BOM is not C++; blank it out with spaces so byte offsets stay the same.
    parse_bytes = b"   " + source[3:] if source.startswith(_BOM) else source
    prepared = prepare(parse_bytes, macros if macros is not None else collect_macros([source]), Parser(language).parse)
    tree = prepared.tree
    state = _FileParse(source, parse_bytes, QueryCursor(query).captures(tree.root_node), keep, literals)
    preamble_end = _preamble_end(source)
    for capture, handler in _HANDLERS:
        handler(state, state.get(capture))
    state.occurrences.extend(unparsed_occurrences(tree.root_node, parse_bytes, prepared.text, state.occurrences,
                                                  state.skip, keep, state.scopes.name_at, CUDA_CONDITION_MACROS))
    return ParsedFile(
        path=path,
        occurrences=tuple(sorted(state.occurrences, key=_position_key)),
        definitions=frozenset(state.definitions),
        declared=frozenset(state.declared - state.definitions),
        lines=source.count(b"\n") + (0 if source.endswith(b"\n") or not source else 1),
        error_line=first_error_line(tree.root_node),
        preamble_end=preamble_end,
        preamble_line=source.count(b"\n", 0, preamble_end) + 1,
        newline="\r\n" if b"\r\n" in source[:4096] else "\n",
        device_syntax=_has_device_syntax(source),
    )
