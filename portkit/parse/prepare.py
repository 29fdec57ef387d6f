"""Same-length fixes that let tree-sitter-cuda parse real CUDA code (docs/parser.md).

tree-sitter parses a file as written, without the preprocessor. A macro that
stands for a statement, an attribute or half of a construct then reads as broken
C++, and error recovery loses or mislabels what surrounds it: a launch, a whole
kernel, or `cudaMemcpy` read as a declaration. Each fix here undoes only what the
preprocessor or nvcc would have explained, by writing spaces over text (or a `;`
into a blank), so the prepared bytes keep the source's length and newlines: every
offset, line and column the parser reports is the source's. What is blanked is
matched token by token afterwards (portkit/parse/recovery.py), so no name is lost.

The fixes run only on a file whose parse has errors, or shows the silent shape of
a statement macro (below); their result is kept only if it has no more errors.
A file that parses cleanly is parsed once, as written.
"""
from __future__ import annotations

import dataclasses
import functools
import re
from typing import Callable, Collection, Iterator

from tree_sitter import Node, Tree

from portkit.parse.conditionals import select_branches
from portkit.parse.direct_init import direct_initialisations
from portkit.parse.lexer import IDENTIFIER, SUPPRESSION, Layout, blank, layout_of, word_start
from portkit.parse.macros import MacroTable, words_of
from portkit.parse.recovery import error_weight
from portkit.textutil import line_matches

# Where a statement macro's use may stand: at the start of a line, or after another statement on it
# (`cudaFree(p); CUERR`).
# A capitalised name there may be a macro from a header outside the project (`_statement_starts`).
_ALL_CAPS = re.compile(rb"[A-Z][A-Z0-9_]{2,}")
_BLANK_OR_COMMENT_LINES = rb"((?:[ \t]*(?://[^\n]*|/\*[^\n]*\*/)?[ \t]*\r?\n)*)"
_CPLUSPLUS_GUARD = re.compile(
    rb"^[ \t]*#[ \t]*if(?:def[ \t]+__cplusplus|[ \t]+defined[ \t]*\(?[ \t]*__cplusplus[ \t]*\)?|[ \t]+__cplusplus)[^\n]*\n"
    + _BLANK_OR_COMMENT_LINES + rb'[ \t]*(extern[ \t]+"C"[ \t]*\{|\})[^\n]*\n' + _BLANK_OR_COMMENT_LINES
    + rb"[ \t]*#[ \t]*endif", re.M)
_PRAGMA = re.compile(rb"^[ \t]*#[ \t]*pragma\b[^\n]*", re.M)
# The patterns below start with their letters, a word's start checked behind them (`new(?<=\bnew)` for `\bnew`): the
# engine skips to each spelling at C speed, where a pattern that starts with `\b` or `\w` is tried at every offset
# (10x slower over the files the fixes read).
_NEW_POINTER_ARRAY = re.compile(rb"new(?<=\bnew)\s+(?:(?:const|volatile)\s+)*[A-Za-z_][\w:]*(?:\s*<[^;()<>]*>)?\s*(\*+)\s*\[")
_NEW_QUALIFIED = re.compile(rb"new(?<=\bnew)\s+((?:(?:const|volatile)\s+)+)")
# `enum [[deprecated]] E {`: an attribute between the keyword and the name, which the grammar takes for structs only.
_ENUM_ATTRIBUTE = re.compile(rb"enum(?<=\benum)(?:\s+(?:class|struct))?\s*(\[)\[")
# A macro spelled between string literals, or after one (`"%" PRId64 " rows"`, `"x = %" PRIu64, x`): the grammar
# joins literals only. After a literal a word is nothing else, but where a word comes before the literal too
# (`extern "C" int`, `operator "" _km`), or it is an alternative operator (`"a" and`).
_STRING_MACRO = re.compile(rb'"[ \t]*(?:\r?\n[ \t]*)?([A-Za-z_]\w*)')
_NOT_STRING_MACROS = frozenset((b"and", b"or", b"xor", b"bitand", b"bitor", b"and_eq", b"or_eq", b"xor_eq", b"not_eq"))
# GNU's `__restrict` (not `__restrict__`), which the grammar takes only right after a `*`: `const float* const __restrict x`.
_GNU_RESTRICT = re.compile(rb"__restrict(?<=\b__restrict)\b")
# A parameter's default `= {}` (`const Options& options = {})`), which the grammar lacks: read as `= 0`. Found from
# its `=` (`_EMPTY_BRACES`), the name before it matched then.
_EMPTY_BRACES_DEFAULT = re.compile(rb"\w\s*=\s*(\{\s*\})\s*[,)]")
_EMPTY_BRACES = re.compile(rb"=\s*\{\s*\}\s*[,)]")
# `using typename Base<T>::type;`: the grammar takes `typename` in a type, not in a using-declaration.
_USING_TYPENAME = re.compile(rb"using(?<=\busing)\s+(typename)\b")
# A GNU attribute after a variable's declarator or in an alias (`float a[N] __attribute__((aligned(64)));`,
# `size_t n __attribute__((unused)) = f();`, `using T = uint8_t __attribute__((ext_vector_type(2)));`, `using T =
# __attribute__((...)) float;`): the grammar takes one after a function's declarator or in a typedef only.
_GNU_ATTRIBUTE = re.compile(rb"__attribute__\s*\(\(")
# A header name is no expression: `<nvml.h>` reads as a broken `nvml . h`, so the whole name, brackets too, is blanked.
_HAS_INCLUDE = re.compile(rb"__has_include(?:_next)?\s*\(\s*(<[^>\n]*>)\s*\)")
# A conversion operator called by name (`v.operator __half()`, `s->operator cudaStream_t()`), which the grammar lacks:
# from the `.` to the type blanked, the object is called (`v               ()`), and the type, in the blanked bytes, is
# matched as the call it was read as (recovery.py).
_CONVERSION_CALL = re.compile(rb"(?:\.|->)[ \t]*operator\b[ \t]*(?!new\b|delete\b)[A-Za-z_][\w \t:<>,*&]*(?=\(\s*\))")
_BLOCK_COMMENT = re.compile(rb"/\*.*?\*/", re.S)
_COMMENT_THEN_TEXT = re.compile(rb"\*/[ \t]*[^ \t\r\n]")  # a block comment's end, then more on its line
# A statement macro without `;` before a call: `PERF_BEGIN` / `cudaMemcpy(d, h, n, k);` parses, silently,
# as a block-scope declaration of cudaMemcpy (a function declarator), or of a variable initialised with
# the arguments (an init declarator whose value is an argument list).


MacroSpaces = tuple[tuple[int, int, tuple[str, ...]], ...]  # a use's start, end, and the spaces it stands for
MacroNumbers = dict[str, str]  # the number literal each macro the file spells stands for (MacroTable.numbers)


@dataclasses.dataclass(frozen=True)
class Prepared:
    """What to parse (the source's length and newlines) and its tree; `spaces`, what the bytes cannot say: the
    uses of attribute macros too short for the execution spaces they stand for (`macro_spaces`); `numbers`, the
    number each macro the file spells stands for, where the project defines it as one."""

    text: bytes
    tree: Tree
    spaces: MacroSpaces = ()
    numbers: MacroNumbers = dataclasses.field(default_factory=dict)


def prepare(source: bytes, table: MacroTable, parse: Callable[[bytes], Tree]) -> Prepared:
    """The source's own tree, unless the fixes give one with no more errors (and, to keep only the
    first branch of split #if groups, fewer)."""
    table = table.narrowed(words_of(source))
    prepared = _prepared(source, table, parse)
    prepared = dataclasses.replace(prepared, spaces=macro_spaces(source, table)) if table.spaces else prepared
    numbers = {name.decode(): number.decode() for name, number in table.numbers.items()}
    return dataclasses.replace(prepared, numbers=numbers) if numbers else prepared


def _prepared(source: bytes, table: MacroTable, parse: Callable[[bytes], Tree]) -> Prepared:
    tree = parse(source)
    # Each tree's error weight is computed once and carried with it (it was computed again for every
    # comparison: 2 of the 6 walks of a fixed file's error sites).
    weight = error_weight(tree.root_node)
    if not _needs_fixing(source, tree, weight, table):
        if tree.root_node.has_error and _COMMENT_THEN_TEXT.search(source):
            # The MISSING newline a comment gives a #define counts as no error (recovery.is_benign), but
            # text after the comment is read as code: rejoin it to its directive, and change nothing else.
            out = bytearray(source)
            _define_comments(out, layout_of(source), table)
            return _better(Prepared(source, tree), weight, bytes(out), parse, ties=True)[0]
        return Prepared(source, tree)
    layout = layout_of(source)
    normalised = normalise(source, table, layout)
    best, weight = _better(Prepared(source, tree), weight, normalised, parse, ties=True)
    if weight != (0, 0):
        best, weight = _better(best, weight, select_branches(normalised, layout), parse, ties=False)
    if weight != (0, 0):
        # Read from the tree, not the text: only where a declarator's parameter list failed to parse.
        best, weight = _better(best, weight, direct_initialisations(best.text, best.tree.root_node), parse, ties=False)
    return best


Weight = tuple[int, int]  # recovery.error_weight


def _better(current: Prepared, current_weight: Weight, text: bytes, parse: Callable[[bytes], Tree],
            ties: bool) -> tuple[Prepared, Weight]:
    """`text` parsed, if its tree weighs less than `current`'s (or as much, with `ties`); else `current`."""
    if text == current.text:
        return current, current_weight
    tree = parse(text)
    weight = error_weight(tree.root_node)
    if weight < current_weight or ties and weight == current_weight:
        return Prepared(text, tree), weight
    return current, current_weight


def _needs_fixing(source: bytes, tree: Tree, weight: Weight, table: MacroTable) -> bool:
    if weight != (0, 0):
        return True
    if not table.object_statements:
        return False
    root = tree.root_node
    return any(_silent_statement(root, start, end) for start, end in _uses(source, table.object_statements))


def _silent_statement(root: Node, start: int, end: int) -> bool:
    """Whether the name at `start:end` is the type of a block-scope declaration of that silent shape (found
    from the name's offset down the tree: no query to build, and only where one of the names is)."""
    name = root.descendant_for_byte_range(start, end)
    declaration = name.parent if name is not None and name.type == "type_identifier" else None
    if declaration is None or declaration.type != "declaration" or declaration.child_by_field_name("type") != name:
        return False
    block = declaration.parent
    declarator = declaration.child_by_field_name("declarator")
    if block is None or block.type != "compound_statement" or declarator is None:
        return False
    if declarator.type == "function_declarator":
        return True
    value = declarator.child_by_field_name("value") if declarator.type == "init_declarator" else None
    return value is not None and value.type == "argument_list"


def normalise(source: bytes, table: MacroTable, layout: Layout | None = None) -> bytes:
    """Every fix, in order (attribute macros before lambda qualifiers: `[=] HOST_DEVICE (int i)`)."""
    layout = layout or Layout(source)
    out = bytearray(source)
    for fix in (_define_comments, _grammar_gaps, _attributes, _empty_macros, _lambda_qualifiers, _extern_c_guards, _pragmas,
                _identity_macros, _function_bodies, _declaring_macros, _statement_arguments, _control_heads,
                _catch_clauses, _statement_macros, _type_arguments):
        fix(out, layout, table)
    assert len(out) == len(source)
    return bytes(out)


def _code_matches(pattern: re.Pattern[bytes], text: bytes | bytearray, layout: Layout,
                  needle: bytes = b"") -> list[re.Match[bytes]]:
    """The matches that start in code; none when `needle` is not in the text (a quick test first)."""
    if needle and needle not in text:
        return []
    return [m for m in pattern.finditer(text) if layout.is_code(m.start())]


_WORD_REST = re.compile(rb"\w*")
_WORD = re.compile(rb"\w+")
# More names than this: one pass over the text's words costs less than a bytes.find pass per name (a pass over
# the words costs about 70 finds).
_NAMES_FOUND_ONE_BY_ONE = 32


def _uses(text: bytes, names: Collection[bytes]) -> list[tuple[int, int]]:
    """Where `text` spells one of `names` (identifiers the file spells: few, `MacroTable.narrowed`) as a whole
    word, in order. bytes.find skips to each spelling at C speed: one regex of all the names, tried name by name
    at every offset, took 0.9 s of the 10 MB the fixes read in 0.5M real lines (bench/bench.py's tree A). But
    a file may spell hundreds of the project's macros (CImg.h: 490 statement macros in 2.4 MB, 1.2 GB of finds,
    0.4 s): then its words are looked up, one pass."""
    if len(names) > _NAMES_FOUND_ONE_BY_ONE:
        return [match.span() for match in _WORD.finditer(text) if match.group() in names]
    spans = []
    for name in names:
        start = text.find(name)
        while start >= 0:
            end = start + len(name)
            word_end = _WORD_REST.match(text, end).end()  # type: ignore[union-attr]  # `\w*` always matches
            if word_end == end and (start == 0 or _WORD_REST.match(text, start - 1, start).end() == start - 1):
                spans.append((start, end))
            start = text.find(name, word_end)  # no whole word starts inside this one
    return sorted(spans)


def _code_uses(names: Collection[bytes], layout: Layout) -> list[tuple[int, int]]:
    """`_uses` of `names` that start in code."""
    return [(start, end) for start, end in _uses(layout.source, names) if layout.code[start]]


def _statement_starts(source: bytes, names: frozenset[bytes]) -> Iterator[re.Match[bytes]]:
    """Where a statement macro's use may stand (group 1: the name), for names that start as one of `names`
    does or with a capital (`_ALL_CAPS`): most lines start with a keyword or a lowercase name, passed over at
    C speed."""
    first, later = _starting_with(b"".join(sorted({n[:1] for n in names if n[:1] and not n[:1].isupper()})))
    match = first.match(source)
    if match is not None:
        yield match
    yield from later.finditer(source, match.end() if match is not None else 0)


@functools.lru_cache(maxsize=64)
def _starting_with(initials: bytes) -> tuple[re.Pattern[bytes], re.Pattern[bytes]]:
    """`_statement_starts`' patterns for names that start with a capital or one of `initials`: at the start of
    the text, and after a newline or a `;` (a pattern that starts with `^|;` is tried at every offset: starting
    with the newline or `;`, the regex engine skips to each at C speed: 0.37 s -> 0.22 s over half the scale tree).
    Remembered by the initials, not by the names: the scale tree's 4,068 sources spell 2,564 distinct sets of
    statement macros but 1,382 sets of initials (671 files none), so fewer regexes are compiled again."""
    name = rb"[ \t]*(?=[A-Z" + re.escape(initials) + rb"])([A-Za-z_]\w*)"
    return re.compile(name), re.compile(rb"[\n;]" + name)


def _define_comments(out: bytearray, layout: Layout, table: MacroTable) -> None:
    """`#define A(x) x /* c */ \\` or `#define A(x) f(x) /* c */ g(x)` ends the directive for tree-sitter at
    the comment, so the rest of the body is parsed as code (and its first name as the macro's). Blank such
    comments (convert's markers inside a continued macro too; not a suppression, which must stay a comment);
    where one spans lines, put the backslash the preprocessor implies before each newline."""
    for match in _BLOCK_COMMENT.finditer(layout.source):
        start, end = match.span()
        if not layout.directive[start] or SUPPRESSION.search(match.group()):
            continue
        if b"\n" not in match.group() and not _directive_goes_on(layout, end):
            continue
        blank(out, start, end)
        for newline in (o for o in range(start, end) if out[o] == ord("\n")):
            before = newline - 2 if out[newline - 1] == ord("\r") else newline - 1
            if before >= start:
                out[before] = ord("\\")


def _directive_goes_on(layout: Layout, offset: int) -> bool:
    """Whether the directive holding `offset` has more after it than blanks: text, or a continuation."""
    source, directive = layout.source, layout.directive
    while offset < len(source) and directive[offset] and source[offset] in b" \t\r":
        offset += 1
    return offset < len(source) and bool(directive[offset])


def _grammar_gaps(out: bytearray, layout: Layout, table: MacroTable) -> None:
    """`new int*[n]` (read as a lambda) -> `new int [n]`; `new const T` -> `new       T` (the grammar has no
    qualifier there); `enum [[deprecated]] E` -> `enum                E`; `"%" PRId64 "\\n"` -> `"%"        "\\n"`;
    `const __restrict` -> `const           `; a parameter's `= {}` -> `= 0 `; `__has_include(<x.h>)` -> `__has_include(     )`;
    `using typename B::t;` -> `using          B::t;`; `v.operator __half()` -> `v               ()`;
    `float a[N] __attribute__((aligned(64)));` -> `float a[N]       ...;`."""
    for pattern in (_NEW_POINTER_ARRAY, _NEW_QUALIFIED):
        for match in _code_matches(pattern, layout.source, layout, b"new"):
            blank(out, *match.span(1))
    for match in _code_matches(_ENUM_ATTRIBUTE, layout.source, layout, b"[["):
        closing = layout.closing(match.start(1))
        if closing > 0:
            blank(out, match.start(1), closing + 1)
    for match in _code_matches(_GNU_RESTRICT, layout.source, layout, b"__restrict"):
        blank(out, *match.span())
    for match in _code_matches(_USING_TYPENAME, layout.source, layout, b"typename"):
        blank(out, *match.span(1))
    for match in _code_matches(_GNU_ATTRIBUTE, layout.source, layout, b"__attribute__"):
        _variable_attribute(out, layout, match.start(), match.end() - 2)
    for match in _empty_braces_defaults(layout):
        blank(out, *match.span(1))
        out[match.start(1)] = ord("0")
    for match in _STRING_MACRO.finditer(layout.source):
        if layout.opaque[match.start()] and not layout.directive[match.start()] and layout.is_code(match.start(1)) \
                and match.group(1) not in _NOT_STRING_MACROS and _after_a_lone_literal(layout, match.start()):
            blank(out, *match.span(1))
    for match in _code_matches(_CONVERSION_CALL, layout.source, layout, b"operator"):
        blank(out, *match.span())
    for match in _HAS_INCLUDE.finditer(layout.source):
        if layout.directive[match.start()]:
            blank(out, *match.span(1))


def _empty_braces_defaults(layout: Layout) -> Iterator[re.Match[bytes]]:
    """`_code_matches(_EMPTY_BRACES_DEFAULT, ...)`, found from each `= {}`: its word is the last byte before the
    `=` that is no blank."""
    source = layout.source
    for braces in _EMPTY_BRACES.finditer(source):
        start = braces.start()
        while start > 0 and source[start - 1] in b" \t\n\r\f\v":
            start -= 1
        match = _EMPTY_BRACES_DEFAULT.match(source, start - 1) if start > 0 else None
        if match is not None and layout.is_code(match.start()):
            yield match


def _variable_attribute(out: bytearray, layout: Layout, start: int, opening: int) -> None:
    """Blank the attribute at `start` where it follows a variable's declarator (a name or `]`) and the declaration
    goes on with `;`, `=` or `,`, or where it follows an alias's `=`: not after a function's `)`, where the
    grammar reads it (and where clang's `__attribute__((device))` may stand for `__device__`)."""
    source = layout.source
    closing = layout.closing(opening)
    before = layout.previous_code(source, start)
    after = layout.next_code(source, closing + 1) if closing > 0 else -1
    if before < 0 or after < 0:
        return
    follows_declarator = (source[before] == ord("]") or word_start(source, before + 1) <= before) \
        and source[after] in b";=,"
    if follows_declarator or source[before] == ord("="):
        blank(out, start, closing + 1)


def _after_a_lone_literal(layout: Layout, closing_quote: int) -> bool:
    """Whether the `"` at `closing_quote` ends a string literal (not a comment's quote) that no word comes right before
    (`extern "C"`)."""
    opening = layout.opaque.rfind(b"\0", 0, closing_quote) + 1
    if layout.source[opening:opening + 1] != b'"':
        return False  # a comment, or a prefixed literal (u8"", L"", R"()"): left alone
    before = layout.previous_code(layout.source, opening)
    return before < 0 or word_start(layout.source, before + 1) > before  # no word ends there


# Letters first, as `_NEW_QUALIFIED`.
_ALIGN = re.compile(rb"__(?<=\b__)(?:builtin_)?align__\s*\(")
_CLUSTER_DIMS = re.compile(rb"__cluster_dims__(?<=\b__cluster_dims__)\s*\(")
_LAUNCH_BOUNDS = re.compile(rb"__launch_bounds__(?<=\b__launch_bounds__)\s*\(")


def _attributes(out: bytearray, layout: Layout, table: MacroTable) -> None:
    """Attribute macros become the qualifiers that fit in their name (`DEV_INLINE` -> `__device__`, so the
    function is still a device function), or spaces; CUDA attributes the grammar lacks are blanked:
    `__align__(n)`, `__cluster_dims__(...)`, a third `__launch_bounds__` argument."""
    unknown = _code_matches(_ALIGN, layout.source, layout, b"align__") \
        + _code_matches(_CLUSTER_DIMS, layout.source, layout, b"__cluster_dims__")
    for match in unknown:
        closing = layout.closing(match.end() - 1)
        if closing > 0:
            blank(out, match.start(), closing + 1)
    for match in _code_matches(_LAUNCH_BOUNDS, layout.source, layout, b"__launch_bounds__"):
        closing = layout.closing(match.end() - 1)
        arguments = layout.arguments(match.end() - 1, closing) if closing > 0 else []
        if len(arguments) > 2:
            blank(out, arguments[1][1], closing)
    for start, end in _code_uses(table.attributes.keys() | table.attribute_calls, layout):
        name = layout.source[start:end]
        if name in table.attributes:
            out[start:end] = table.attributes[name]
        elif name in table.attribute_calls:
            opening = layout.next_code(layout.source, end)
            closing = layout.closing(opening) if opening > 0 and layout.source[opening] == ord("(") else -1
            if closing > 0:
                blank(out, start, closing + 1)


def _empty_macros(out: bytearray, layout: Layout, table: MacroTable) -> None:
    """`__global__ void LAUNCH_BOUNDS(T, B) kernel(...)` with `#define LAUNCH_BOUNDS(t, b)` (s3d, whose definition
    with a body is commented out): a use inside a declaration reads as a function declarator, the real one then an
    error. The preprocessor makes it nothing: blank it with its arguments. A use that starts a statement is left to
    the statement macros' fixes."""
    source = layout.source
    for start, end in _code_uses(table.empties, layout):
        opening = layout.next_code(source, end)
        closing = layout.closing(opening) if opening > 0 and source[opening] == ord("(") else -1
        if closing > 0 and not _at_statement_start(out, layout, start):
            blank(out, start, closing + 1)


def macro_spaces(source: bytes, table: MacroTable) -> MacroSpaces:
    """The uses of attribute macros too short for the spaces they stand for (`#define HD __host__ __device__`:
    `_attributes` writes spaces over `HD`), in code, in order: the parse gives those spaces to the function
    each use stands before (the bytes cannot)."""
    if not table.spaces:
        return ()
    return tuple((start, end, table.spaces[source[start:end]]) for start, end in _code_uses(table.spaces, layout_of(source)))


_LAMBDA_QUALIFIERS = re.compile(rb"\]\s*(?:mutable\s+)?((?:(?:__host__|__device__)\s*)+)(?=\(|\{|->)")


def _lambda_qualifiers(out: bytearray, layout: Layout, table: MacroTable) -> None:
    """`[=] __device__ (int i) {...}`: tree-sitter-cuda knows the qualifiers on functions only."""
    for match in _code_matches(_LAMBDA_QUALIFIERS, bytes(out), layout, b"__"):
        blank(out, *match.span(1))


def _extern_c_guards(out: bytearray, layout: Layout, table: MacroTable) -> None:
    """`extern "C" {` and its `}`, each alone in an `#ifdef __cplusplus` group: every branch of an #if
    must be complete for tree-sitter. Blanked when openers and closers pair up."""
    found = [m.span(2) for m in line_matches(layout.source, b"__cplusplus", _CPLUSPLUS_GUARD)]
    opened = [s for s in found if layout.source.startswith(b"extern", s[0])]
    if opened and 2 * len(opened) == len(found):
        for start, end in found:
            blank(out, start, end)


def _pragmas(out: bytearray, layout: Layout, table: MacroTable) -> None:
    """`for (...)` / `#pragma unroll` / body: a directive cannot sit between a statement's header and body."""
    for match in line_matches(layout.source, b"pragma", _PRAGMA):
        before = layout.previous_code(out, match.start())
        if before >= 0 and layout.directive[match.start()] and _header_ends_at(out, layout, before):
            blank(out, *match.span())


_CONTROL = re.compile(rb"\b(?:if|for|while|switch)\Z")
# A statement may follow these words directly.
_OPENS_STATEMENT = re.compile(rb"(?<!\w)(?:else|do)\Z")


def _header_ends_at(out: bytearray, layout: Layout, offset: int) -> bool:
    """Whether a statement body may follow the byte at `offset`: `if (...)`, `for (...)`, `else`, `do`..."""
    if out[offset] == ord(")"):
        opening = layout.opening(offset)
        word_end = layout.previous_code(out, opening) + 1 if opening > 0 else 0
        return word_end > 0 and _CONTROL.search(out, max(0, word_end - 7), word_end) is not None
    return _OPENS_STATEMENT.search(out, max(0, offset - 4), offset + 1) is not None


def _identity_macros(out: bytearray, layout: Layout, table: MacroTable) -> None:
    """`STDC_ARGS((int, double *))` with `#define STDC_ARGS(p) p`: a use is its argument."""
    for start, end in _code_uses(table.identities, layout):
        opening = layout.next_code(layout.source, end)
        closing = layout.closing(opening) if opening > 0 and layout.source[opening] == ord("(") else -1
        if closing > 0:
            blank(out, start, opening + 1)
            blank(out, closing, closing + 1)


# A name after a `)` (and the qualifiers a member function may have): where a macro standing for a function's
# body is used, `void f(int a) const NOT_IMPLEMENTED;`. Group 1: the name, a capital's or a body macro's.
_AFTER_PARENTHESIS = re.compile(rb"\)\s*(?:(?:const|volatile|noexcept|override|final)\s+)*([A-Za-z_]\w*)")
# Words before a `(` whose `)` ends no function declarator: `decltype(x) NAME;`, a cast after `return`...
_NOT_A_FUNCTION_NAME = frozenset(b"""decltype alignas alignof sizeof typeof __typeof__ __attribute__ __declspec
    __align__ __launch_bounds__ return throw case new delete co_return co_yield""".split())


def _function_bodies(out: bytearray, layout: Layout, table: MacroTable) -> None:
    """`void f(int a) NOT_IMPLEMENTED;` with `#define NOT_IMPLEMENTED { throw ...; }` (ginkgo's GKO_NOT_IMPLEMENTED,
    GKO_NOT_COMPILED(module)): tree-sitter reads a declarator followed by a name, an error that takes the function
    with it. A use of a macro whose body is a block becomes the empty body `{}` (its arguments and the use's `;`
    blanked): the definition the preprocessor makes. A capitalised name the table does not know, between a
    function's `)` and its `;`, is blanked: a declaration, as far as can be told without the macro's definition.
    A use after a statement's header (`if (x) NOT_IMPLEMENTED;`) reads as written already."""
    source = layout.source
    if b")" not in source:
        return
    for match in _AFTER_PARENTHESIS.finditer(source):
        name, start, end = match.group(1), match.start(1), match.end(1)
        known = name in table.bodies
        if not known and not _unknown_body_macro(name, table) or not layout.is_code(match.start()) \
                or not layout.is_code(start) or _header_ends_at(out, layout, match.start()):
            continue
        opening = layout.opening(match.start())
        before = layout.previous_code(source, opening) if opening > 0 else -1
        word = source[word_start(source, before + 1):before + 1] if before >= 0 else b""
        if source[before:before + 1] != b">" and (not IDENTIFIER.fullmatch(word) or word in _NOT_A_FUNCTION_NAME):
            continue  # a cast, a parenthesised expression, a type's operand
        if not known and (word in table.statements or _ALL_CAPS.fullmatch(word)):
            continue  # `CHECK(x)` / `SYNC;`: a statement macro's use before another's
        after = layout.next_code(source, end)
        if after > 0 and source[after] == ord("(") and b"\n" not in source[end:after]:
            end = layout.closing(after) + 1
            after = layout.next_code(source, end) if end > 0 else -1
        if end <= 0 or not known and (after < 0 or source[after] != ord(";")):
            continue
        if known or not _has_return_type(layout, before):
            # tree-sitter reads a constructor only with its body: a use the table does not know makes one too.
            if after > 0 and source[after] == ord(";"):
                end = after + 1
            blank(out, start, end)
            out[start:start + 2] = b"{}"
        else:
            blank(out, start, end)


_QUALIFIED_NAME_BEFORE = re.compile(rb"(?:[A-Za-z_]\w*\s*::\s*)*~?\s*[A-Za-z_]\w*\Z")


def _has_return_type(layout: Layout, name_end: int) -> bool:
    """Whether something stands before the function name that ends at `name_end` (`A::A`, `~A` included)
    other than the end of a declaration or a directive: a constructor has no return type."""
    source = layout.source
    name = _QUALIFIED_NAME_BEFORE.search(source, max(0, name_end - 255), name_end + 1)
    before = layout.previous_code(source, name.start() if name is not None else name_end)
    return before >= 0 and source[before] not in b";{}" and not any(layout.directive[before + 1:name_end])


def _unknown_body_macro(name: bytes, table: MacroTable) -> bool:
    return name not in table.statements and name not in table.declarations and _unknown_statement_macro(name, table)


def _declaring_macros(out: bytearray, layout: Layout, table: MacroTable) -> None:
    """`DEFINE_LDG_TYPE(long long)` at namespace scope, with `#define DEFINE_LDG_TYPE(T) template <> ...`: a macro
    whose body is a declaration or a definition, used where one may stand, with or without its `;`. Read as a
    statement it takes a `;` and becomes a declaration of a function whose parameters are the arguments, an
    error where an argument is no parameter (`long long`, `unsigned int`, `+, +=`). Blank the use (its names are
    matched token by token): what it declares is in the #define."""
    source = layout.source
    for start, end in _code_uses(table.declarations, layout):
        opening = layout.next_code(source, end)
        if opening > 0 and source[opening] == ord("("):
            end = layout.closing(opening) + 1
        if end <= 0 or not _at_statement_start(out, layout, start) or not _statement_follows(layout, end) \
                and source[layout.next_code(source, end)] != ord(";"):
            continue
        blank(out, start, end)


# A statement starts with one of these, or ends with a `;`: in a call's arguments, only a macro's.
_STATEMENT_KEYWORD = re.compile(rb"(?:for|while|if|do|switch|return)\b")


def _statement_arguments(out: bytearray, layout: Layout, table: MacroTable) -> None:
    """`NAME(a, b, auto x = f(a); for (...) { ... });`, a macro that runs the code given as its last argument
    (ginkgo's GKO_PRECONDITIONER_JACOBI_RESOLVE_PRECISION): tree-sitter reads no statement in an argument list,
    and its recovery runs the enclosing function on into the next ones (a host launch below then reads as
    launched from the kernel). Where a use starts a statement and its last argument ends one (`;` or `}`),
    make it a block of its arguments: `{   a; b; auto x = f(a); for (...) { ... }}` (the name blanked, each
    top-level comma a `;`, the parentheses braces)."""
    source = layout.source
    for line in _statement_starts(source, table.statements | table.object_statements):
        start = line.start(1)
        if not layout.is_code(start):
            continue  # first: a line of a comment has no code after it for next_code to find at C speed
        opening = layout.next_code(source, line.end(1))
        if opening < 0 or source[opening] != ord("("):
            continue
        closing = layout.closing(opening)
        if closing < 0 or b";" not in source[opening:closing] and not _STATEMENT_KEYWORD.search(source, opening, closing):
            continue  # most uses: no statement inside, found at C speed
        commas = _statement_commas(layout, opening, closing)
        if commas is None or source[layout.previous_code(source, closing)] not in b";}" \
                or not _at_statement_start(out, layout, start):
            continue
        blank(out, start, opening + 1)
        out[start], out[closing] = ord("{"), ord("}")
        for comma in commas:
            out[comma] = ord(";")


def _control_heads(out: bytearray, layout: Layout, table: MacroTable) -> None:
    """`KERNEL_LOOP(i, n + 1) {` where `#define KERNEL_LOOP(i, n) for (...)` (kaldi's loops, Caffe's
    CUDA_KERNEL_LOOP): a use that the statement it controls follows reads as a call missing its `;`. The name
    becomes `if`, padded (`if         (i, n + 1) {`): a test of the arguments that controls the same statement.
    Not where an argument is a type (`if (int, i)` is no test)."""
    source = layout.source
    for start, end in _code_uses(table.heads, layout):
        opening = layout.next_code(source, end)
        closing = layout.closing(opening) if opening > 0 and source[opening] == ord("(") else -1
        after = layout.next_code(source, closing + 1) if closing > 0 else -1
        if after < 0 or source[after] == ord(";") or layout.directive[after] \
                or any(_BUILT_IN_TYPE.fullmatch(source, a, b) for a, b in layout.arguments(opening, closing)) \
                or not _at_statement_start(out, layout, start):
            continue
        out[start:end] = b"if".ljust(end - start)


def _catch_clauses(out: bytearray, layout: Layout, table: MacroTable) -> None:
    """`try { ... } CATCH_AND_HANDLE` with `#define CATCH_AND_HANDLE catch (std::exception &e) { ... }` (faiss's C API):
    a try block without its handlers is an error that takes the function with it, the use read as a statement.
    Blank the `try` and the use (with its arguments): the block parses as a block, its code as written; what the
    handlers do is in the #define."""
    source = layout.source
    for start, end in _code_uses(table.handlers, layout):
        opening = layout.next_code(source, end)
        if source[start:end] in table.statements and opening > 0 and source[opening] == ord("("):
            end = layout.closing(opening) + 1  # a function-like one's arguments
        block_end = layout.previous_code(source, start)
        block_start = layout.opening(block_end) if block_end >= 0 and source[block_end] == ord("}") else -1
        keyword_end = layout.previous_code(source, block_start) + 1 if block_start > 0 else 0
        keyword_start = word_start(source, keyword_end)
        if end <= 0 or keyword_end <= 0 or source[keyword_start:keyword_end] != b"try":
            continue
        blank(out, keyword_start, keyword_end)
        blank(out, start, end)


# A built-in type as tree-sitter reads one (its primitive types), alone as a macro's argument.
_BUILT_IN_TYPE = re.compile(rb"\s*(?:const\s+)?(?:(?:unsigned|signed|short|long)\s+)*(?:bool|char|short|int|long|float|"
                            rb"double|void|unsigned|signed|size_t|ssize_t|ptrdiff_t|u?int(?:8|16|32|64)_t|u?intptr_t|"
                            rb"char(?:8|16|32)_t)\s*")


def _type_arguments(out: bytearray, layout: Layout, table: MacroTable) -> None:
    """`RUN_PASS_DIR(int32_t, true);` in a function, `#define RUN_PASS_DIR(T, DIR) ...` (faiss's dispatch macros): a
    statement macro's use with a built-in type for an argument reads as a declaration, the type a parameter's, and
    fails at the next argument. Each such argument becomes a placeholder name of its length (no CUDA name is a
    built-in type): the use reads as the call it is, its other arguments as they are."""
    source = layout.source
    for use, name_end in _code_uses(table.statements, layout):
        opening = layout.next_code(source, name_end)
        closing = layout.closing(opening) if opening > 0 and source[opening] == ord("(") else -1
        if closing < 0 or any(b in source[opening + 1:closing] for b in b"([{<\"'"):
            continue  # nested brackets, templates, strings: not a plain list of arguments
        after = layout.next_code(source, closing + 1)
        if after < 0 or source[after] != ord(";") or not _at_statement_start(out, layout, use):
            continue
        start = opening + 1
        for argument in source[opening + 1:closing].split(b","):
            if _BUILT_IN_TYPE.fullmatch(argument):
                first = start + len(argument) - len(argument.lstrip())
                out[first:start + len(argument.rstrip())] = b"_" * len(argument.strip())
            start += len(argument) + 1


def _statement_commas(layout: Layout, opening: int, closing: int) -> list[int] | None:
    """The top-level commas between the brackets at `opening` and `closing`, where an argument there is a
    statement (a top-level `;`, or a statement's keyword first); else None."""
    source, code = layout.source, layout.code
    commas, depth, statement = [], 0, _STATEMENT_KEYWORD.match(source, layout.next_code(source, opening + 1))
    for offset in range(opening + 1, closing):
        byte = source[offset]
        if not code[offset] or byte not in b"()[]{},;":
            continue
        if byte in b"([{":
            depth += 1
        elif byte in b")]}":
            depth -= 1
        elif depth == 0 and byte == ord(";"):
            statement = True
        elif depth == 0:
            commas.append(offset)
            statement = statement or _STATEMENT_KEYWORD.match(source, layout.next_code(source, offset + 1))
    return commas if statement else None


def _statement_macros(out: bytearray, layout: Layout, table: MacroTable) -> None:
    """`CHECK(cudaFree(p))` or `PERF_BEGIN` ending its line without its `;` (alone on it, or after another
    statement): tree-sitter glues it to the next statement (a declaration of `cudaMemcpy`, a function body
    read as an initializer list).
    Write the `;` into the first blank after the use, else into the last blank inside it; with no
    blank at all (`TIMER_END()` before a directive), blank the use: its names are matched token by token."""
    source = layout.source
    for line in _statement_starts(source, table.statements | table.object_statements):
        if not _maybe_statement_macro(line.group(1), table) \
                or line.group(1) in table.declarations | table.heads | table.handlers:
            continue  # a declaration's use, blanked (`_declaring_macros`), a loop's head (`_control_heads`), a handler's
        use = _macro_use(layout, table, line.start(1))
        if use is None or not _at_statement_start(out, layout, use[0]) or not _statement_follows(layout, use[1]):
            continue
        start, end = use
        slot = _blank_after(layout, end)
        if slot >= 0:
            out[slot] = ord(";")
            continue
        # `CHECK( f(x) )` -> `CHECK( f(x));`: only the closing punctuation moves, one byte left.
        inner = next((o for o in range(end - 1, start, -1) if source[o] in b" \t" and layout.code[o]), -1)
        if inner > 0 and not IDENTIFIER.search(source, inner, end):
            out[inner:end - 1] = out[inner + 1:end]
            out[end - 1] = ord(";")
        else:
            blank(out, start, end)


def _macro_use(layout: Layout, table: MacroTable, start: int) -> tuple[int, int] | None:
    """The span of a statement macro's use that starts a line and ends it (comments aside), or None."""
    source = layout.source
    match = IDENTIFIER.match(source, start)
    if match is None or not layout.is_code(start):
        return None
    name, end = match.group(), match.end()
    opening = layout.next_code(source, end)
    if opening > 0 and source[opening] == ord("(") and b"\n" not in source[end:opening]:
        if name not in table.statements and not _unknown_statement_macro(name, table):
            return None
        end = layout.closing(opening) + 1
    elif name not in table.object_statements:
        return None
    line_end = source.find(b"\n", end) if end > 0 else -1
    line_end = len(source) if line_end < 0 else line_end
    if end <= 0 or any(layout.code[o] and source[o] not in b" \t\r" for o in range(end, line_end)):
        return None
    return start, end


def _maybe_statement_macro(name: bytes, table: MacroTable) -> bool:
    return name in table.statements or name in table.object_statements or _ALL_CAPS.fullmatch(name) is not None


def _unknown_statement_macro(name: bytes, table: MacroTable) -> bool:
    """An ALL_CAPS name the table does not know is taken for a statement macro (one from a header
    outside the project)."""
    known = table.object_statements | table.identities | table.attribute_calls
    return _ALL_CAPS.fullmatch(name) is not None and name not in known and name not in table.attributes


def _blank_after(layout: Layout, end: int) -> int:
    """The first blank of code after `end`, before the next token and any directive; -1 if none."""
    for offset in range(end, len(layout.source)):
        byte = layout.source[offset]
        if layout.directive[offset] or layout.code[offset] and byte not in b" \t\r\n\f\v":
            return -1
        if layout.code[offset] and byte in b" \t":
            return offset
    return -1


def _at_statement_start(out: bytearray, layout: Layout, start: int) -> bool:
    before = layout.previous_code(out, start)
    if before < 0 or any(layout.directive[before:start]):
        return True
    if out[before] in b";{}":
        return True
    if out[before] == ord(":"):
        return out[before - 1:before] != b":"  # a label, not `::`
    return _header_ends_at(out, layout, before)


def _statement_follows(layout: Layout, end: int) -> bool:
    """A new statement, a `}`, a directive or the end of the file comes next."""
    offset = end
    while offset < len(layout.source) and not layout.directive[offset]:
        if layout.code[offset] and layout.source[offset] not in b" \t\r\n\f\v":
            byte = layout.source[offset:offset + 1]
            return byte == b"}" or byte == b"_" or byte.isalpha()
        offset += 1
    return True
