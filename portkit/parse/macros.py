"""The project's macro table: which of its #defines the parser must see through.

tree-sitter parses a file as written, without expanding macros, so a use such as
`DEV_INLINE int f()` or `CHECK(cudaFree(p))` without its `;` reads as broken C++.
What the use means depends on the definition, often in another header (and CUDA,
HIP and SYCL variants of one project define the same macro differently), so the
table is collected once per run from every source file, by a regex over #define
lines (no parse), and each file's preparation (portkit/parse/prepare.py) uses it.
"""
from __future__ import annotations

import dataclasses
import hashlib
import re
from typing import Iterable, Mapping, TypeVar

from portkit.parse.foreign_branches import branches, foreign_macros
from portkit.parse.platform_macros import on_amd, platform_sides
from portkit.parse.spaces import SPACES
from portkit.textutil import line_matches

# name, (parameters) when function-like, body with its continuation lines.
_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(\(([^)]*)\))?((?:[^\n\\]|\\.|\\\r?\n)*)", re.M)
_COMMENT = re.compile(rb"/\*.*?\*/|//[^\n]*", re.S)
_NAME = re.compile(rb"[A-Za-z_]\w*")
_KNOWN_NAME = re.compile(rb"\s*([A-Za-z_]\w*)")
# What an attribute macro may expand to: qualifiers, specifiers (`#define FAISS_FINAL final`), calling conventions
# (`#define CUDAAPI __stdcall` on Windows), attributes and pragmas (`_Pragma("omp declare target")`, another model's
# spelling of the same macro) only.
_ATTRIBUTE = re.compile(
    rb"\s*(?:__global__|__device__|__host__|__forceinline__|__noinline__|__inline__|__inline|inline|static"
    rb"|extern(?:\s*\"C(?:\+\+)?\")?"
    rb"|__restrict__|__dpct_inline__|__stdcall|__cdecl|__fastcall|__vectorcall|final\b|override\b"
    rb"|__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)|__declspec\s*\((?:[^()]|\([^()]*\))*\)|__align__\s*\(.*?\)"
    rb"|__launch_bounds__\s*\(.*?\)|\[\[.*?\]\]|_Pragma\s*\(\s*\"(?:[^\"\\\\]|\\\\.)*\"\s*\))")
# The qualifiers tree-sitter-cuda knows, most telling first: what a use keeps when it has room.
_KEPT_QUALIFIERS = (b"__global__", b"__device__", b"__host__", b"__forceinline__", b"inline", b"static")
# Include guards and reserved names never stand for code; keywords redefined (`#define inline __inline`)
# are left to the parser.
_NEVER = re.compile(rb"__\w+__|_*[A-Z0-9_]*_H(PP)?_*|_*[A-Z0-9_]*_INCLUDED_*")
_KEYWORDS = frozenset(b"""if else for while do switch case default return break continue goto try catch throw
    sizeof typedef struct class union enum template typename using namespace public private protected new delete
    operator const volatile static extern inline friend virtual explicit auto register unsigned signed int long
    short char float double void bool asm""".split())
# The other keywords (`#define constexpr` for old MSVC, `#define noexcept throw()`): taken from a #define under no
# condition, which every file that includes it sees; one under an #if would hide the keyword in every other file.
_CONDITIONAL_KEYWORDS = frozenset(b"""constexpr consteval constinit noexcept nullptr decltype alignas alignof
    thread_local static_assert mutable this true false wchar_t char8_t char16_t char32_t typeid dynamic_cast
    static_cast reinterpret_cast const_cast export concept requires co_await co_return co_yield and or not xor
    bitand bitor compl and_eq or_eq xor_eq not_eq""".split())
# An object-like macro whose body looks like a statement: `;`, a call, an assignment, a block...
_STATEMENT_BODY = re.compile(rb";|\bdo\b|\{|\w\s*\(|=|\breturn\b|\bif\b|\bfor\b|\bwhile\b")
# A body that is a try block's handlers: `catch (std::exception &e) { ... }` (faiss's CATCH_AND_HANDLE).
_CATCH_BODY = re.compile(rb"catch\s*\(")
# The start of a loop's or a test's head.
_HEAD = re.compile(rb"\s*(?:for|while|if|switch)\s*\(")
# A body that is a function's whole body: a block of statements (`{ throw NotImplemented(...); }`, maybe
# followed by more, ginkgo's `static_assert(true, "...")` that takes the use's `;`), not an initializer (`{0, 0}`).
_FUNCTION_BODY = re.compile(rb"\{\s*\}|\{[^}]*;")
# A body that is a declaration or a definition: it starts with a word only a declaration starts with, or is a
# function definition (a return type, a name, parameters, a block), never with a statement's keyword first.
_DECLARATION_START = re.compile(rb"(?:template|struct|class|union|enum|typedef|using|namespace|extern|static|inline"
                                rb"|constexpr|friend|__global__|__device__|__host__|__forceinline__)\b")
_FUNCTION_DEFINITION = re.compile(rb"(?!(?:if|else|for|while|do|switch|return|case|goto)\b)[^;{}()=]*[\w>*&]\s+"
                                  rb"[*&]*\s*(?:operator\s*[^\s(]+|[~\w:]+)\s*\([^;{}]*\)[\w\s]*\{")


@dataclasses.dataclass(frozen=True)
class Definition:
    parameters: tuple[bytes, ...] | None  # None: object-like
    body: bytes  # comments removed, blanks collapsed
    # Where it stands for hipcc compiling for AMD (parse/platform_macros.py): "amd", "nvidia" or "".
    side: str = ""

    @property
    def identity(self) -> bool:
        """`#define M(x) x`: a use is its argument."""
        return self.parameters is not None and len(self.parameters) == 1 and self.body in (
            self.parameters[0], b"(" + self.parameters[0] + b")")


@dataclasses.dataclass(frozen=True)
class MacroTable:
    """What a use of each interesting macro stands for.

    `attributes`: object-like macros that expand to qualifiers only, with what to write
    over a use (the qualifiers that fit in the name, padded with spaces); `attribute_calls`:
    function-like ones (`ALIGN(16)`), blanked with their arguments; `statements` and
    `object_statements`: macros a use of which may be a whole statement; `heads`: the statement
    macros that stand for a loop's or a test's head (`#define KERNEL_LOOP(i, n) for (...)`), whose
    use the statement they control follows; `identities`:
    `#define M(x) x`; `bodies`: those among the statement macros that stand for a function's
    whole body (`void f() NOT_IMPLEMENTED;`); `declarations`: those whose body is a declaration
    or a definition (`DEFINE_LDG_TYPE(long long)` at namespace scope); `numbers`: object-like macros that every
    definition makes one integer literal (`#define WARP_SIZE_BITS 5`), with it: a use in arithmetic is that number;
    `on_amd`: the macros HIP's platform decides (DeepSpeed's PTX_AVAILABLE, bitsandbytes' BNB_HIP), with what each
    reads as under hipcc for AMD: None (undefined) or its body (parse/platform_macros.py); `handlers`: the statement
    macros whose every body is catch clauses (`try { ... } CATCH_AND_HANDLE`); `empties`: the function-like macros
    every definition of which is empty (`#define LAUNCH_BOUNDS(t, b)`, where the one with a body is commented out).
    """

    attributes: dict[bytes, bytes] = dataclasses.field(default_factory=dict)
    attribute_calls: frozenset[bytes] = frozenset()
    statements: frozenset[bytes] = frozenset()
    object_statements: frozenset[bytes] = frozenset()
    identities: frozenset[bytes] = frozenset()
    bodies: frozenset[bytes] = frozenset()
    declarations: frozenset[bytes] = frozenset()
    # Attribute macros whose name is too short for the execution spaces they stand for (`#define HD __host__
    # __device__`): those spaces, which the parse adds to the function a use stands before (prepare.macro_spaces).
    spaces: dict[bytes, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    heads: frozenset[bytes] = frozenset()
    numbers: dict[bytes, bytes] = dataclasses.field(default_factory=dict)
    on_amd: dict[bytes, bytes | None] = dataclasses.field(default_factory=dict)
    handlers: frozenset[bytes] = frozenset()
    empties: frozenset[bytes] = frozenset()

    def fingerprint(self) -> str:
        """Changes whenever what the table makes of some use changes (for the scan cache's key)."""
        digest = hashlib.sha256()
        for name, replacement in sorted(self.attributes.items()):
            digest.update(b"a" + name + b"=" + replacement + b"\0")
        for tag, names in ((b"c", self.attribute_calls), (b"s", self.statements), (b"o", self.object_statements),
                           (b"i", self.identities), (b"b", self.bodies), (b"d", self.declarations),
                           (b"h", self.heads), (b"t", self.handlers), (b"z", self.empties)):
            digest.update(tag + b"\0".join(sorted(names)) + b"\1")
        for name, spaces in sorted(self.spaces.items()):
            digest.update(b"e" + name + b"=" + " ".join(spaces).encode() + b"\0")
        for name, number in sorted(self.numbers.items()):
            digest.update(b"n" + name + b"=" + number + b"\0")
        for name, body in sorted(self.on_amd.items()):
            digest.update(b"p" + name + (b" undefined" if body is None else b"=" + body) + b"\0")
        return digest.hexdigest()[:16]

    def narrowed(self, words: frozenset[bytes]) -> MacroTable:
        """Only the macros among `words` (the words of one file, `words_of`): what a file's preparation
        reads, so that its cost depends on the file, never on how many macros the project defines."""
        return MacroTable(_narrowed(self.attributes, words), words & self.attribute_calls, words & self.statements,
                          words & self.object_statements, words & self.identities, words & self.bodies,
                          words & self.declarations, _narrowed(self.spaces, words), words & self.heads,
                          _narrowed(self.numbers, words), _narrowed(self.on_amd, words), words & self.handlers,
                          words & self.empties)


_Value = TypeVar("_Value")


def _narrowed(table: dict[bytes, _Value], words: frozenset[bytes]) -> dict[bytes, _Value]:
    """The entries of `table` whose names are among `words`: the words tested at C speed (`filter`), and none for a
    table with no entries (most projects define no short attribute macro, and no macro HIP's platform decides). A
    comprehension over every word of the file for each of the four tables took twice as long."""
    return {word: table[word] for word in filter(table.__contains__, words)} if table else {}


# Every byte that cannot be part of a C identifier becomes a space: split() then gives the words at C speed.
_WORD_BYTES = bytes(b if chr(b).isalnum() or b == ord("_") else ord(" ") for b in range(128)) + b" " * 128


def words_of(source: bytes) -> frozenset[bytes]:
    """The identifiers (and numbers) a source spells, as whole words."""
    return frozenset(source.translate(_WORD_BYTES).split())


FileDefinitions = tuple[tuple[bytes, Definition], ...]


def file_definitions(source: bytes) -> FileDefinitions:
    """The #defines of one file, in order: what the project's table is built from (and what
    a warm run keeps per file instead of reading the file again). Not those in a branch no build
    of the port takes, nor a keyword's under any #if (portkit/parse/foreign_branches.py)."""
    if b"define" not in source:
        return ()
    found = []
    structure = None  # the file's #if branches, read only where a define may be under a foreign or keyword test
    # Once a file: searched again at each #define, it cost the file's length times its #defines.
    foreign = any(name.encode() in source for name in foreign_macros())
    side = platform_sides(source)
    for match in line_matches(source, b"define", _DEFINE):
        if structure is None and (foreign or match.group(1) in _CONDITIONAL_KEYWORDS):
            structure = branches(source)
        if structure is not None and (structure.never_taken(match.start()) or match.group(1) in _CONDITIONAL_KEYWORDS
                                      and structure.conditional(match.start())):
            continue  # a #define no build of the port sees, or a keyword's under some #if
        body = re.sub(rb"\\\r?\n", b" ", match.group(4))
        body = b" ".join(_COMMENT.sub(b" ", body).split())
        parameters = None if match.group(2) is None else tuple(
            p.strip() for p in match.group(3).split(b",") if p.strip())
        found.append((match.group(1), Definition(parameters, body, side(match.start()))))
    return tuple(found)


def definitions(per_file: Iterable[FileDefinitions]) -> dict[bytes, list[Definition]]:
    """Every distinct #define of each name."""
    table: dict[bytes, list[Definition]] = {}
    for defined in per_file:
        for name, definition in defined:
            found = table.setdefault(name, [])
            if definition not in found:
                found.append(definition)
    return table


def collect_macros(sources: Iterable[bytes]) -> MacroTable:
    """The macro table of a project, from the bytes of its source files."""
    return macro_table(file_definitions(source) for source in sources)


def macro_table(per_file: Iterable[FileDefinitions]) -> MacroTable:
    """The macro table of a project, from each source file's #defines (file_definitions)."""
    defined = definitions(per_file)
    found_by_name = {name: found for name, found in defined.items()
                     if not _NEVER.fullmatch(name) and name not in _KEYWORDS}
    sided = {name: found for name, found in found_by_name.items() if any(d.side for d in found)}
    readings = on_amd({name: [(d.side, d.body) for d in found] for name, found in sided.items()})
    for name, found in sided.items():  # what a use stands for is the same on either side
        found_by_name[name] = list(dict.fromkeys(Definition(d.parameters, d.body) for d in found))
    expansions = _attribute_expansions(found_by_name)
    aliases = _space_aliases(defined, expansions)
    expansions.update(aliases)
    attributes: dict[bytes, bytes] = {}
    spaces: dict[bytes, tuple[str, ...]] = {}
    attribute_calls, statements, object_statements, identities = set(), set(), set(), set()
    bodies, declarations, heads, handlers, empties = set(), set(), set(), set(), set()
    for name, found in [*found_by_name.items(), *((name, defined[name]) for name in aliases)]:
        function_like = any(d.parameters is not None for d in found)
        if name in expansions:
            if function_like:
                attribute_calls.add(name)
            else:
                attributes[name] = _fitting(expansions[name], len(name))
                lost = _spaces(expansions[name], attributes[name])
                if lost:
                    spaces[name] = lost
        elif any(d.identity for d in found):
            identities.add(name)
        elif function_like:
            statements.add(name)
            if all(_control_head(d.body) for d in found):
                heads.add(name)
            elif all(not d.body for d in found):
                empties.add(name)
        elif any(_STATEMENT_BODY.search(d.body) for d in found):
            object_statements.add(name)
        if name in statements or name in object_statements:
            if all(_CATCH_BODY.match(d.body) for d in found):
                handlers.add(name)
            elif all(_FUNCTION_BODY.match(d.body) for d in found):
                bodies.add(name)
            elif all(_declaration_body(d.body) for d in found):
                declarations.add(name)
    return MacroTable(attributes, frozenset(attribute_calls), frozenset(statements), frozenset(object_statements),
                      frozenset(identities), frozenset(bodies), frozenset(declarations), spaces, frozenset(heads),
                      _numbers(found_by_name), readings, frozenset(handlers),
                      frozenset(empties))


_NUMBER_BODY = re.compile(rb"\(?\s*((?:0[xX][0-9a-fA-F]+|\d+)[uUlL]*)\s*\)?")


def _numbers(found_by_name: dict[bytes, list[Definition]]) -> dict[bytes, bytes]:
    """The object-like macros whose every definition is the same integer literal (in parentheses or not)."""
    numbers = {}
    for name, found in found_by_name.items():
        spelled = {m.group(1) if d.parameters is None and (m := _NUMBER_BODY.fullmatch(d.body)) else None for d in found}
        if len(spelled) == 1 and None not in spelled:
            numbers[name] = spelled.pop()
    return numbers


def _control_head(body: bytes) -> bool:
    """Whether a body is one or more heads of loops or tests and nothing else: `for (...)`, `for (...) for (...)`."""
    offset = 0
    while body[offset:].strip():
        match = _HEAD.match(body, offset)
        closing = _closing_parenthesis(body, match.end() - 1) if match else -1
        if closing < 0:
            return False
        offset = closing + 1
    return offset > 0


def _closing_parenthesis(text: bytes, opening: int) -> int:
    depth = 0
    for offset in range(opening, len(text)):
        depth += {ord("("): 1, ord(")"): -1}.get(text[offset], 0)
        if depth == 0:
            return offset
    return -1


def _declaration_body(body: bytes) -> bool:
    return _DECLARATION_START.match(body) is not None or _FUNCTION_DEFINITION.match(body) is not None


def _attribute_expansions(found_by_name: dict[bytes, list[Definition]]) -> dict[bytes, bytes]:
    """The attribute macros, each with every definition's body joined, other attribute macros in it expanded:
    `#define MGPU_DEVICE __device__ INLINESYMBOL` is one once INLINESYMBOL is (`__forceinline__` or `inline`).
    Rounds until none is added: as many as macros nest (two or three). An empty function-like macro
    (`REGISTER(key, ...)`) is a statement, not an attribute, unless another definition makes it one (faiss's
    `ALIGNED(x)`: `__attribute__((aligned(x)))`, or nothing where the compiler has no such attribute)."""
    expansions: dict[bytes, bytes] = {}
    pending = {name: found for name, found in found_by_name.items()
               if not all(d.parameters is not None and not d.body for d in found)}
    while True:
        added = {name: found for name, found in pending.items()
                 if all(_attribute_only(d.body, expansions) for d in found)}
        if not added:
            return expansions
        for name, found in added.items():
            del pending[name]
            expansions[name] = b" ".join(_NAME.sub(lambda m: expansions.get(m.group(), m.group()), d.body) for d in found)


_RESERVED = re.compile(rb"__\w+__")


def _space_aliases(defined: Mapping[bytes, list[Definition]], expansions: Mapping[bytes, bytes]) -> dict[bytes, bytes]:
    """`#define __both__ __gdt_host __gdt_device` (ssim's gdt): a reserved name stands for no code (`_NEVER`: a host
    build's `#define __device__`, the compiler's own macros), except a project's own name for execution spaces: an
    object-like macro, not a space itself, whose every definition is attributes only and names one. With their
    expansions."""
    aliases = {}
    for name, found in defined.items():
        if not _RESERVED.fullmatch(name) or name.decode() in SPACES or any(d.parameters is not None for d in found) \
                or not all(_attribute_only(d.body, expansions) for d in found):
            continue
        expansion = b" ".join(_NAME.sub(lambda m: expansions.get(m.group(), m.group()), d.body) for d in found)
        if any(space.encode() in expansion.split() for space in SPACES):
            aliases[name] = expansion
    return aliases


def _attribute_only(body: bytes, known: Mapping[bytes, bytes]) -> bool:
    """Whether the body is qualifiers and attributes only, or `known` attribute macros."""
    offset = 0
    while offset < len(body):
        match = _ATTRIBUTE.match(body, offset) or _KNOWN_NAME.match(body, offset)
        if match is None or match.end() == offset or match.re is _KNOWN_NAME and match.group(1) not in known:
            return not body[offset:].strip()
        offset = match.end()
    return True


def _spaces(expansion: bytes, fitted: bytes) -> tuple[str, ...]:
    """The execution spaces of `expansion` (in CUDA's order), when its fitted replacement lacks one; else ()."""
    words = set(expansion.split())
    spaces = tuple(s for s in SPACES if s.encode() in words)
    return spaces if any(s.encode() not in fitted.split() for s in spaces) else ()


def _fitting(expansion: bytes, width: int) -> bytes:
    """The most telling qualifiers of `expansion` that fit in `width` bytes, padded with spaces."""
    chosen = b""
    for qualifier in _KEPT_QUALIFIERS:
        longer = (chosen + b" " + qualifier).strip()
        if re.search(rb"(?<!\w)" + qualifier + rb"(?!\w)", expansion) and len(longer) <= width:
            chosen = longer
    return chosen.ljust(width)
