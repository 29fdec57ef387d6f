"""The capture handlers: what each query capture becomes (occurrences, definitions, declared names).

`HANDLERS` is the table from capture name to handler, run in order by portkit/parse/treesitter.py.
"""
from __future__ import annotations

import bisect
import collections
import functools
import re
from typing import Callable, Iterator

from tree_sitter import Node

from portkit.model import (
    CallFacts, Facts, FunctionFacts, IncludeFacts, LaunchFacts, MacroFacts, NameFacts, Occurrence, Position, QualifiedFacts,
    Role, Span, SubscriptFacts, ValueFacts,
)
from portkit.parse import pragma_operators
from portkit.parse.guarded import GuardedDefinitions, branch_not_hipccs
from portkit.parse.launch_alias import aliased_kernels
from portkit.parse.lexer import SUPPRESSION
from portkit.parse.linkage import internal_linkage
from portkit.parse.nodes import (
    ARGUMENT_TEXT_LIMIT, CONDITION_MACROS, CUDA_CONDITION_MACROS, DECLARATIONS,
    HipAlias, Keep, Scopes, body_positions, c_linkage_blocks, call_facts,
    chain_tests_hip, compared_with, constant_context, constructs_dim3, declaration_kind, declared_names, defined_types, field_use,
    function_name, index_guarded, is_hip_alias, less_one, lone_test, named_value, names_global, node_position,
    node_span, node_text, operands, pointer_names, read_in_code, shared_array, signature, under_global, under_hip_test,
)
from portkit.parse.overloads import overloads
from portkit.parse.queries import OPTIONAL_ROLES
from portkit.parse.prepare import MacroNumbers, MacroSpaces, Prepared
from portkit.parse.vendor_layers import alias_name
from portkit.parse.spaces import SPACES, function_declarator, member_owner, parameter_count, spaces_of, spelled_spaces

# A #define body's tokens: literals and comments whole, and names, a qualified one whole (`thrust::cuda::par`, blanks
# around `::` allowed): decided by its whole spelling, as the tree's qualified names are.
_MACRO_TOKEN = re.compile(
    rb'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|/\*.*?\*/|//[^\n]*|([A-Za-z_]\w*(?:[ \t]*::[ \t]*[A-Za-z_]\w*)*)', re.S
)
# In a #define body blanks include a backslash-newline (`asm( \` with its template on the next line), and a template
# may splice in a parameter (`"{.reg ."#ptx_type" r0;"`); one spelled by a macro of its own reads as "".
_GAP = rb"(?:\s|\\\r?\n)*"
_ASM_IN_MACRO = re.compile(rb"\b(?:asm|__asm__)" + _GAP + rb"(?:(?:volatile|__volatile__)" + _GAP + rb")?\(" + _GAP
                           + rb'((?:(?:"(?:\\.|[^"\\])*"|#\s*\w+)' + _GAP + rb")*)", re.S)
_STRING_CONTENT = re.compile(rb'"((?:\\.|[^"\\])*)"', re.S)
# A backslash-newline inside a literal is no part of it (a template continued over lines: llama.cpp's dp4a asm).
_SPLICE = re.compile(rb"\\\r?\n")
# What a call's parentheses in a #define body hold: literals and comments whole, brackets and commas one by one.
_ARGUMENT_TOKEN = re.compile(rb'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|/\*.*?\*/|//[^\n]*|[()\[\]{},]', re.S)
_CALL_OPEN = re.compile(_GAP + rb"\(")
# A #define body that is one name, a comment after it or not: the macro is another spelling of that name.
_ALIAS_BODY = re.compile(rb"\s*([A-Za-z_]\w*)\s*(?://.*|/\*.*?\*/)?\s*", re.S)
# A CUDA compiler macro compared in a #define body (`(__CUDA_ARCH__ >= 800)`, `BNB_CC_ADA <= __CUDA_ARCH__`): the
# operator and the number or named number after the name, or (read backwards) before it; not a shift nor `->`.
_VALUE = rb"(?:\d[\w.']*|[A-Za-z_]\w*)"
_COMPARED_AFTER = re.compile(_GAP + rb"(>=|<=|==|!=|>(?![>=])|<(?![<=]))" + _GAP + rb"(" + _VALUE + rb")\b(?!" + _GAP + rb"\()")
_COMPARED_BEFORE = re.compile(rb"(?<![\w.'])(" + _VALUE + rb")" + _GAP + rb"(>=|<=|==|!=|(?<![>-])>|(?<!<)<)" + _GAP + rb"$")
_FLIP = {b">": b"<", b">=": b"<=", b"<": b">", b"<=": b">=", b"==": b"==", b"!=": b"!="}
_BLANK_EDGES = re.compile(rb"(?:\s|\\\r?\n)*(.*?)(?:\s|\\\r?\n)*$", re.S)
# A #pragma a #define body spells (not `##pragma`, a paste): its text runs to the end of the body.
_PRAGMA_IN_MACRO = re.compile(rb"(?<![#\w])#[ \t]*pragma\b")
_SPLICE = re.compile(rb"\\\r?\n")
# A variable a #define body declares (`cudaError_t err = call;`): a name after a type, then `=`, `;` or `[`.
_MACRO_DECLARATION = re.compile(rb"\b([A-Za-z_]\w*)[\s*&]+([A-Za-z_]\w*)\s*[=;\[]")
_NOT_TYPES = frozenset(b"return else delete throw goto case new sizeof do".split())
_SPACES = re.compile(r"\s+")
_BLANK = re.compile(rb"\s")
_TEMPLATE_TAIL = re.compile(r"<.*")
_RESERVED = re.compile(rb"^__\w+__$")
_KERNEL_QUALIFIERS = {"__global__": Role.KERNEL, "__device__": Role.DEVICE_FUNCTION}
# The facts many names share: one record each.
_ACCESSED, _SCOPED, _ELABORATED = NameFacts(accessed=True), NameFacts(scoped=True), NameFacts(elaborated=True)
_TESTED, _MACRO_NAME = NameFacts(tested=True), NameFacts(macro_name=True)
_TESTED_BESIDE_HIP = NameFacts(tested=True, beside_hip=True)
_GLOBAL = NameFacts(global_scope=True)
_COORDINATES = frozenset({b"threadIdx", b"blockIdx", b"blockDim", b"gridDim"})
_TESTS = ("preproc_ifdef", "preproc_elifdef", "preproc_defined")  # `#ifdef X`, `#elifdef X`, `defined(X)`


def _tested(node: Node, parent: Node, kind: str) -> bool:
    """Whether the preprocessor only tests the name (`#ifdef X`, `defined(X)`, `#if X`): a build switch."""
    return kind in _TESTS or kind in ("preproc_if", "preproc_elif") and parent.child_by_field_name("condition") == node


_C_LINKAGE_INCLUDE = IncludeFacts(c_linkage=True)


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
def kept_spellings(keep: Keep | None) -> Callable[[bytes], bool]:
    """`_kept_answers` as one function."""
    answers, decide = _kept_answers(keep)

    def kept(spelled: bytes) -> bool:
        answer = answers.get(spelled)
        return decide(spelled) if answer is None else answer
    return kept


@functools.lru_cache(maxsize=4)
def _kept_qualified(keep: Keep | None) -> Callable[[bytes], str | None]:
    """A qualified name's spelling without spaces, when `keep` keeps it or its last part (without template
    arguments); else None. Remembered per spelling, as `kept_spellings` (`std::vector` recurs everywhere)."""
    answers: dict[bytes, str | None] = {}

    def kept(spelled: bytes) -> str | None:
        if spelled in answers:
            return answers[spelled]
        text = _SPACES.sub("", spelled.decode("utf-8", "replace"))
        answer = answers[spelled] = text if keep is None or keep(text) \
            or keep(_TEMPLATE_TAIL.sub("", text).rsplit("::", 1)[-1]) else None
        return answer
    return kept


class FileParse:
    """One file's parse: each query capture name has a handler that emits occurrences.

    `keep`, if given, filters identifier-like occurrences by name (the rule names
    and CUDA-looking ones); number literals in binary expressions are reported
    when their text is in `literals`.
    """

    def __init__(self, source: bytes, parse_bytes: bytes, captures: dict[str, list[Node]], keep: Keep | None,
                 literals: frozenset[str], api: Keep | None = None, cuda_declared: Keep | None = None,
                 hip_alias: HipAlias | None = None, roles: frozenset[Role] = OPTIONAL_ROLES,
                 arguments: Keep | None = None, prepared: Prepared | None = None, hip_spelling: Keep | None = None):
        self.source = source
        self.preparation = prepared  # what parse/prepare.py made of the bytes: see macro_spaces, numbers, prepared
        self.roles = roles  # the optional roles to make (OPTIONAL_ROLES)
        self.arguments = arguments  # whose calls' argument texts to spell out (None: every call's)
        self.parse_bytes = parse_bytes
        self.captures = captures
        if captures.get("defines_type"):
            captures["definition"] = captures.get("definition", []) + defined_types(captures["defines_type"])
        self.keep = keep
        self.literals = literals
        self.occurrences: list[Occurrence] = []
        self.scopes = Scopes([])
        # Declared names matter only where they could be mistaken for a kept name (a variable `texture`):
        # the rest, most of a file's variables and parameters, are dropped before any further look.
        kept = kept_spellings(keep)
        answers, decide = _kept_answers(keep)  # inline, as in `names`: most declared names are asked once each
        # C++ reserves __names__: a "declaration" of one is an attribute macro tree-sitter does not know (__cluster_dims__(2, 1, 1)), a use.
        declared_nodes = [n for n in self.get("declared") if (spelled := n.text) is not None
                          and ((answer := answers.get(spelled)) or answer is None and decide(spelled))
                          and not _RESERVED.match(spelled) and declaration_kind(n, api) != "use"]
        definition_nodes: list[Node] = []
        local_nodes: list[Node] = []
        for node in self.get("definition"):
            kind = declaration_kind(node, api)
            if kind == "declared":
                definition_nodes.append(node)
            elif kind == "local" and kept(node.text or b""):
                local_nodes.append(node)
        # A CUDA API "defined" in a preprocessor branch that stands in for CUDA's header is no project name:
        # its uses stay CUDA's. A name no CUDA header declares (a copied CUDA Samples helper) stands in for none.
        self.is_cuda = is_cuda = cuda_declared or api
        # A port's alias (`#define cudaSuccess hipSuccess` under its own HIP test) stands in for nothing: left as written.
        self.hip_aliases = [n for n in definition_nodes if is_hip_alias(n, hip_alias)]  # (a HIP layer's: run/scope.py)
        self.hip_macros = _cuda_redefinitions(definition_nodes, self.hip_aliases, is_cuda)  # (a layer's own)
        candidates = [n for n in definition_nodes if is_cuda is not None and is_cuda(node_text(n)) and n not in self.hip_aliases]
        branches = GuardedDefinitions(definition_nodes) if candidates else None
        guarded = [n for n in candidates if branches is not None and branches.is_guarded(n)]
        starts = {n.start_byte for n in guarded}
        defined = [n for n in definition_nodes if n.start_byte not in starts and n not in self.hip_aliases and not overloads(n, is_cuda)]
        self.definitions = {node_text(n) for n in defined}
        # Object-like #defines of kept names (a library's switch the project sets): their name, no parts.
        self.occurrences.extend(Occurrence(node_span(n), Role.MACRO_DEFINITION, node_text(n), node_position(n), "",
                                           "object", info=MacroFacts(under_hip_test(n)))
                                for n in defined if n.parent is not None and n.parent.type == "preproc_def"
                                and kept(n.text or b""))
        self.guarded = {node_text(n) for n in guarded}
        self.internal = self._internal(defined)
        self.declared = {node_text(n) for n in declared_nodes + local_nodes}
        # A guarded definition's name is a use: renamed with the uses it stands in for (`#else typedef void* cudaStream_t;`).
        # But a #define keeps its name where renaming it would define HIP's own: one of CUDA's compiler or version
        # macros (`#define __CUDA_ARCH__ 800` in a project's HIP layer: `__HIP_DEVICE_COMPILE__` in the host pass too),
        # or one the project maps to a HIP name (`#define CUBLAS_FILL_MODE_LOWER HIPSOLVER_FILL_MODE_LOWER`).
        self.skip = {n.start_byte for n in definition_nodes + declared_nodes + local_nodes} - starts \
            | {n.start_byte for n in guarded if _defines_for_hip(n, hip_spelling)}
        self.calls = {n.start_byte for n in self.get("call")}
        self.shared: set[str] = set()  # the names of its __shared__ arrays (`shared_arrays`)

    def _internal(self, defined: list[Node]) -> set[str]:
        """The names this file defines only with internal linkage: no other translation unit can call them.
        Only an anonymous namespace or `static` gives it: most files have neither (the fixes only blank bytes)."""
        namespaces, members, functions = self.get("anonymous_namespace"), self.get("member_scope"), self.get("function")
        if not namespaces and b"static" not in self.parse_bytes:
            return set()
        return self.definitions - {node_text(n) for n, internal in zip(
            defined, internal_linkage(defined, namespaces, members, functions)) if not internal}

    @functools.cached_property
    def macro_spaces(self) -> MacroSpaces:
        """Short attribute macros' uses, and the spaces each stands for."""
        return self.preparation.spaces if self.preparation is not None else ()

    @functools.cached_property
    def call_aliases(self) -> dict[bytes, str]:
        """The file's object-like macros whose body is one name (`#define SHFL_UP_SYNC __shfl_up_sync`): a call of
        one is a call of that name, whose arguments the analyzers read as they would the name's."""
        aliases = {}
        for body in self.get("macro_body"):
            definition, one = body.parent, _ALIAS_BODY.fullmatch(body.text or b"")
            if definition is not None and definition.type == "preproc_def" and one is not None:
                name = definition.child_by_field_name("name")
                if name is not None and name.text:
                    aliases[name.text] = one.group(1).decode("ascii")
        return aliases

    @functools.cached_property
    def numbers(self) -> MacroNumbers:
        """The number each macro the file spells stands for."""
        return self.preparation.numbers if self.preparation is not None else {}

    @functools.cached_property
    def prepared(self) -> bool:
        """Whether the tree is of bytes parse/prepare.py blanked, not of parse_bytes."""
        return self.preparation is not None and self.preparation.text != self.parse_bytes

    def cuda_namespace_aliases(self) -> list[tuple[str, Node]]:
        """The namespace aliases that define a CUDA namespace (`namespace cuda { namespace std = ::std; }`), with the
        name: where a branch hipcc takes for AMD holds one, the project's HIP spelling of it, whatever it names."""
        is_cuda = self.is_cuda
        return [(name, n) for n in self.get("namespace_alias") if is_cuda is not None and is_cuda(name := alias_name(n))]

    def get(self, capture: str) -> list[Node]:
        return self.captures.get(capture, [])

    def kept(self, name: str) -> bool:
        return self.keep is None or self.keep(name)

    def emit(self, node: Node, role: Role, text: str | None = None, detail: str = "", parts: tuple[Span, ...] = (),
             span_node: Node | None = None, info: Facts | None = None) -> None:
        where = span_node or node
        self.occurrences.append(Occurrence(
            node_span(where), role, node_text(node) if text is None else text, node_position(node),
            self.scopes.name_at(node.start_byte), detail, parts, info,
        ))

    def functions(self, nodes: list[Node]) -> None:
        """Function definitions: the scopes every other occurrence is attributed to; kernels and device functions,
        and host functions the file defines more than once (overloads)."""
        spans = []
        named = [function_name(node) for node in nodes]
        overloaded = {name for name, count in collections.Counter(named).items() if count > 1}
        for node, name in zip(nodes, named):
            spans.append((node.start_byte, node.end_byte, name))
            qualifiers = {c.type for c in node.children if not c.is_named}
            qualifiers.update(space for _, space in self._macro_spaces(node))
            role = next((r for q, r in _KERNEL_QUALIFIERS.items() if q in qualifiers), None)
            if role is None and name in overloaded:
                role = Role.OVERLOAD
            if role is not None and name:
                detail = "template" if node.parent is not None and node.parent.type == "template_declaration" else ""
                self.occurrences.append(Occurrence(node_span(node), role, name, node_position(node), name, detail,
                                                   info=self._function_facts(node)))
        self.scopes = Scopes(spans)

    def _function_facts(self, node: Node) -> FunctionFacts:
        """A function's signature, execution spaces, their spelling and its parameter count."""
        declarator = function_declarator(node)
        count = str(parameter_count(declarator)) if declarator is not None else ""
        return FunctionFacts(*signature(node), *self._spaces(node), count)

    def _spaces(self, node: Node) -> tuple[str, str]:
        """A declaration's execution spaces and how the source spells them, short attribute macros' included."""
        used = self._macro_spaces(node)
        if not used:
            return " ".join(spaces_of(node)), spelled_spaces(node, self.source)
        found = set(spaces_of(node)) | {space for _, space in used}
        spelled = [spelled_spaces(node, self.source)] + list(dict.fromkeys(name for name, _ in used))
        return " ".join(s for s in SPACES if s in found), " ".join(filter(None, spelled))

    def _macro_spaces(self, node: Node) -> list[tuple[str, str]]:
        """(macro name, space) for each short attribute macro written among the declaration's leading words: before
        its declarator, or just before the node (blanked, the macro is no token of the tree)."""
        if not self.macro_spaces:
            return []
        declarator = function_declarator(node)
        limit = declarator.start_byte if declarator is not None else node.start_byte
        start = node.start_byte
        found = []
        for index in range(bisect.bisect_left(self.macro_spaces, (limit,)) - 1, -1, -1):
            use_start, use_end, spaces = self.macro_spaces[index]
            if use_start >= node.start_byte or not self.parse_bytes[use_end:start].strip():
                start = min(start, use_start)
                name = self.parse_bytes[use_start:use_end].decode("ascii", "replace")
                found.extend((name, space) for space in spaces)
            elif use_end <= start:
                break
        return found

    def members(self, nodes: list[Node]) -> None:
        """Member functions declared in a class body without a definition: `T *get();`."""
        for node in nodes:
            declarator = function_declarator(node)
            owner = member_owner(node)
            name = declarator.child_by_field_name("declarator") if declarator is not None else None
            if name is None or not owner or name.type != "field_identifier":
                continue
            self.emit(node, Role.MEMBER_DECLARATION, f"{owner}::{node_text(name)}", self._spaces(node)[0],
                      info=FunctionFacts(params=str(parameter_count(declarator))))

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
                self._call(node, spelled, text, arguments)
                continue
            parent = node.parent  # once, and its type once: each step up walks down from the root
            kind = parent.type if parent is not None else ""
            if kind == "qualified_identifier" and names_global(parent):
                self.emit(node, role, text, info=_GLOBAL)  # `::cudaStream_t`
                continue
            comparison = compared_with(node, parent) if role is Role.IDENTIFIER and kind == "binary_expression" else None
            if comparison is not None:
                compared, parts = comparison
                self.emit(node, role, text, parts=parts, info=compared)
            elif role is Role.IDENTIFIER and _tested(node, parent, kind):
                beside_hip = chain_tests_hip(node)
                alone = lone_test(node, parent) if kind in _TESTS else None
                if alone is not None:  # `#ifdef X`: a rewrite may replace the whole test
                    self.emit(node, role, text, parts=(alone[1],), info=alone[0]._replace(beside_hip=beside_hip))
                else:
                    self.emit(node, role, text, info=_TESTED_BESIDE_HIP if beside_hip else _TESTED)
            elif role is Role.IDENTIFIER and kind in ("preproc_def", "preproc_function_def"):
                self.emit(node, role, text, info=_MACRO_NAME)  # a fallback's own name (definitions are skipped)
            elif role is Role.IDENTIFIER and kind == "field_expression":
                self.emit(node, role, text, info=_ACCESSED)  # `texture.x`: a variable, whatever its name
            elif kind == "qualified_identifier" and parent.child_by_field_name("scope") is not None:
                self.emit(node, role, text, info=_SCOPED)  # `Params::CUDNN_GEMM`: the qualified name decides
            elif role is Role.IDENTIFIER or kind == "type_descriptor":
                constant = constant_context(node, parent)
                # CUDA's compiler macro read as a number in code (`int a = __CUDA_ARCH__;`): no test to rewrite
                read = role is Role.IDENTIFIER and CUDA_CONDITION_MACROS.fullmatch(text) is not None and read_in_code(node)
                self.emit(node, role, text, info=NameFacts(constant=constant, read=read) if constant or read else None)
            elif kind == "struct_specifier" and parent.child_by_field_name("body") is None:
                self.emit(node, role, text, info=_ELABORATED)  # `struct cudaGraphicsResource *r`
            elif kind in DECLARATIONS:
                declared = declared_names(parent)
                # A variable declaration's extent: one at file scope may redeclare a variable HIP's headers define
                # (analyze/clashes.py keeps it out of the HIP build).
                extent = (node_span(parent),) if declared and kind == "declaration" else ()
                pointers = pointer_names(parent)
                self.emit(node, role, text, parts=extent,
                          info=NameFacts(declares=declared, declares_pointers=pointers) if declared or pointers else None)
            else:
                self.emit(node, role, text)

    def _call(self, node: Node, spelled: bytes, text: str, arguments: Callable[[str], bool] | None) -> None:
        """A called identifier: a CALL with its arguments (read where an analysis asks for the name's, or for the
        name an object-like macro alias of it stands for)."""
        alias = self.call_aliases.get(spelled) if self.call_aliases else None
        read = arguments is None or arguments(text) or alias is not None and arguments(alias)
        spans, info = call_facts(node, self.parse_bytes, read, self.prepared)
        if alias is not None:
            info = (info or CallFacts())._replace(stands_for=alias)
        if under_global(node, node.parent):
            info = (info or CallFacts())._replace(global_scope=True)
        self.emit(node, Role.CALL, text, parts=spans, info=info)

    def parameter_qualifiers(self, nodes: list[Node]) -> None:
        """Qualifiers of a parameter that are CUDA names (`__grid_constant__ const P p`): keywords to the grammar."""
        for node in nodes:
            text = node_text(node)
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
            if names_global(node):
                continue  # `::__ballot_sync`: the name it qualifies is the use, as if unqualified
            parent = node.parent  # last: each step up walks down from the root
            if parent is None or parent.type != "qualified_identifier":
                # Spaces taken out (`cub::BlockReduce<T, N>`): the spelling's first bytes up to a space are as
                # written, so a rename of the name before the template arguments is still exact.
                blank = _BLANK.search(spelled) if len(text) != len(spelled) else None
                self.emit(node, Role.QUALIFIED, text, info=QualifiedFacts(blank.start()) if blank else None)

    def namespace_aliases(self, nodes: list[Node]) -> None:
        for node in nodes:
            name = node.child_by_field_name("name")
            target = node.named_children[-1] if node.named_children else None
            if name is not None and target is not None and target != name:
                scope = branch_not_hipccs(node)  # parts: the branch it holds in, where hipcc may not take that branch
                self.emit(node, Role.NAMESPACE_ALIAS, node_text(name), re.sub(r"\s+", "", node_text(target)).lstrip(":"),
                          parts=(Span(*scope),) if scope else ())

    def usings(self, nodes: list[Node]) -> None:
        """`using namespace X;` and `using X::name;`: what the file's unqualified names may stand for."""
        for node in nodes:
            target = next((c for c in node.named_children if c.type != "comment"), None)
            if target is not None:
                kind = "namespace" if any(c.type == "namespace" for c in node.children) else "name"
                self.emit(node, Role.USING, re.sub(r"\s+", "", node_text(target)).lstrip(":"), kind)

    def includes(self, nodes: list[Node]) -> None:
        # A block starts after its `extern "C"`: no need to find the blocks (a lexed layout of the whole file,
        # 0.7% of a cold scan of the 1M-line scale tree) when every #include comes before the first `extern`.
        first = self.source.find(b"extern")
        blocks = c_linkage_blocks(self.source) if first >= 0 and any(n.start_byte > first for n in nodes) else []
        for node in nodes:
            style = "system" if node.type == "system_lib_string" else "local"
            # Included inside `extern "C" { }`: the file's C++ (templates) would be an error there.
            linkage = _C_LINKAGE_INCLUDE if any(start < node.start_byte < end for start, end in blocks) else None
            directive = node.parent  # `#include <x>` from its `#`: what convert comments out where x is unused
            whole = (Span(directive.start_byte, node.end_byte),) if directive is not None and directive.type == "preproc_include" else ()
            self.emit(node, Role.INCLUDE, node_text(node).strip()[1:-1].strip(), style, whole, info=linkage)

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
            parts = (node_span(name), node_span(opening), *map(node_span, config), node_span(closing), node_span(arguments))
            # (k<<<...>>>(), check()): a value, not a statement
            info = LaunchFacts(opening.text != b"<<<" or closing.text != b">>>",
                               call.parent is None or call.parent.type != "expression_statement",
                               *(len(config) > i and constructs_dim3(config[i]) for i in (0, 1)),  # a dim3 already
                               aliased_kernels(name))
            self.emit(name, Role.LAUNCH, node_text(kernel or name), ", ".join(" ".join(node_text(c).split()) for c in config),
                      parts, span_node=call, info=info)

    def inline_asm(self, nodes: list[Node]) -> None:
        for node in nodes:
            strings = node.child_by_field_name("assembly_code")
            template = _asm_template(strings.text or b"") if strings else ""
            self.emit(node, Role.INLINE_ASM, template)

    def conditions(self, nodes: list[Node]) -> None:
        for node in nodes:
            # As the source spells it, not as the fixes left it for the grammar (`__has_include(<x.h>)` blanked)
            text = self.parse_bytes[node.start_byte:node.end_byte].decode("utf-8", "replace")
            if CONDITION_MACROS.search(text):
                directive = node.parent.children[0].type if node.parent is not None and node.parent.children else "#if"
                self.emit(node, Role.PREPROCESSOR_CONDITION, " ".join(text.split()), directive)

    def fields(self, nodes: list[Node]) -> None:
        kept = kept_spellings(self.keep)  # by the bytes, remembered: most fields are `.x`, `.size`, `.data`
        for node in nodes:
            spelled = node.text
            if spelled is not None and kept(spelled):
                text = spelled.decode("utf-8", "replace")
                holder = node.parent.parent if node.parent is not None else None
                operator = holder.child_by_field_name("operator") if holder is not None and holder.type == "binary_expression" else None
                access = node.parent if node.parent is not None and node.parent.type == "field_expression" else node
                self.emit(node, Role.FIELD, text, parts=(node_span(access),),
                          info=field_use(node.parent, holder if operator is not None else None,
                                         node_text(operator) if operator is not None else ""))

    def number_literals(self, nodes: list[Node]) -> None:
        for node in nodes:
            text = node_text(node)
            if text in self.literals and node.parent is not None:
                folded = less_one(node, text)
                if folded is not None:  # `tid & (32 - 1)`: the mask 31, as the enclosing expression uses it
                    value, operator, whole = folded
                    self.emit(node, Role.LITERAL, value, node_text(operator),
                              info=operands(whole)._replace(named=" ".join(node_text(whole).split())))
                    continue
                operator = node.parent.child_by_field_name("operator")
                self.emit(node, Role.LITERAL, text, node_text(operator) if operator is not None else "", info=operands(node))

    def named_literals(self, nodes: list[Node]) -> None:
        """A project macro that stands for one of the `literals` (`threadIdx.x >> WARP_SIZE_BITS`), as that number."""
        for node in nodes if self.numbers else ():
            name = node_text(node)
            number = self.numbers.get(name)
            if number in self.literals and node.parent is not None:
                operator = node.parent.child_by_field_name("operator")
                self.emit(node, Role.LITERAL, number, node_text(operator) if operator is not None else "",
                          info=operands(node)._replace(named=name))

    def shared_arrays(self, nodes: list[Node]) -> None:
        for node in nodes:
            if node.text == b"__shared__" and (declaration := node.parent) is not None:
                shared = shared_array(declaration)
                if shared is not None:
                    self.shared.add(name := node_text(shared[0]))
                    self.emit(shared[0], Role.SHARED_ARRAY, name, span_node=declaration, info=shared[1])

    def storage_classes(self, nodes: list[Node]) -> None:
        """`register`: C++17 removed it. The part to delete runs to the next token."""
        for node in nodes:
            end = node.next_sibling.start_byte if node.next_sibling is not None else node.end_byte
            self.emit(node, Role.STORAGE_CLASS, node_text(node), parts=(Span(node.start_byte, end),))

    def linkages(self, nodes: list[Node]) -> None:
        """`extern "C"__global__`: a linkage string against the next word. The part is where a space goes."""
        for node in nodes:
            following = node.next_sibling
            if following is not None and following.start_byte == node.end_byte:
                self.emit(node, Role.STORAGE_CLASS, node_text(node), parts=(Span(node.end_byte, node.end_byte),))

    def macro_functions(self, nodes: list[Node]) -> None:
        """Function-like #defines: the name, and the span of the line without its newline (to guard it)."""
        for node in nodes:
            name = node.child_by_field_name("name")
            value = node.child_by_field_name("value")
            end = value.end_byte if value is not None else node.end_byte
            if name is not None:
                self.emit(name, Role.MACRO_DEFINITION, node_text(name), span_node=node,
                          parts=(Span(node.start_byte, min(end, node.end_byte)),),
                          info=MacroFacts(under_hip_test(node)))

    def launch_bounds(self, nodes: list[Node]) -> None:
        for node in nodes:
            arguments = [node_text(c) for c in node.named_children if c.type != "comment"]
            self.emit(node, Role.LAUNCH_BOUNDS, node_text(node), info=CallFacts(tuple(arguments)))

    def named_values(self, nodes: list[Node]) -> None:
        """Named constants (macros, const/constexpr variables, enumerators) and the initial values of
        variables, as text: the hazards evaluate sizes and masks spelled with constants, and tell lane
        ids (`int lane = threadIdx.x & 31`) from other arithmetic by where a variable's value comes from."""
        initializers = Role.INITIALIZER in self.roles
        for node in nodes:
            named = named_value(node, initializers)
            if named is not None and (named[0] is Role.CONSTANT or self.scopes.name_at(node.start_byte)):
                self.emit(node, named[0], node_text(node), info=ValueFacts(named[1]))

    def type_aliases(self, nodes: list[Node]) -> None:
        """`typedef unsigned int U32;` and `using U32 = uint32_t;`: the type a name stands for, where it is the name
        itself (not a pointer or function type), so a value stored in a U32 is known to be 32 bits wide."""
        for node in nodes:
            aliased = node.child_by_field_name("type")
            if aliased is None:
                continue
            if node.type == "alias_declaration":
                names = [n for n in (node.child_by_field_name("name"),) if n is not None]
            else:
                names = [d for d in node.children_by_field_name("declarator") if d.type == "type_identifier"]
            for name in names:
                self.emit(name, Role.TYPE_ALIAS, node_text(name), " ".join(node_text(aliased).split()))

    def shared_subscripts(self, nodes: list[Node]) -> None:
        """Indexes into the file's __shared__ arrays (`s[lane]`): a [32] array indexed by lane id assumes 32 lanes."""
        for node in nodes if self.shared else ():
            if node_text(node) not in self.shared:
                continue  # before any step up the tree: each walks down from the root
            subscript = node.parent
            indices = subscript.child_by_field_name("indices") if subscript is not None else None
            if indices is not None:
                index = " ".join(node_text(indices).strip("[] ").split())[:ARGUMENT_TEXT_LIMIT]
                self.emit(node, Role.SUBSCRIPT, node_text(node), info=SubscriptFacts(index, index_guarded(node, index)))

    def empty_braces(self, nodes: list[Node]) -> None:
        """`x = {}`: an assignment of an empty brace list (ambiguous for some of HIP's types)."""
        for node in nodes:
            braces = node.parent.child_by_field_name("right") if node.parent is not None else None
            if braces is not None and not any(c.type != "comment" for c in braces.named_children):
                self.emit(node, Role.EMPTY_BRACES, node_text(node), parts=(node_span(braces),))

    def auto_coordinates(self, nodes: list[Node]) -> None:
        """`auto i = threadIdx.x`: unsigned int in CUDA; in HIP the coordinate is a proxy object, and `auto` takes its
        type (`i += blockDim.x` then has no operator)."""
        for node in nodes:
            if node.text in _COORDINATES:
                declaration = node.parent.parent.parent  # the pattern's field_expression, init_declarator, declaration
                kind = declaration.child_by_field_name("type")
                if kind is not None and kind.text == b"auto":
                    self.emit(node, Role.AUTO_COORDINATE, node_text(node.parent), parts=(node_span(kind),))

    def suppressions(self, nodes: list[Node]) -> None:
        for node in nodes:
            match = SUPPRESSION.search(node.text or b"")
            if match:
                codes = ",".join(c.strip() for c in (match.group(1) or b"").decode("ascii", "replace").split(",") if c.strip())
                self.emit(node, Role.SUPPRESSION, node_text(node), codes)

    def macro_bodies(self, nodes: list[Node]) -> None:
        """#define bodies are opaque to tree-sitter: lex them for identifiers, the variables they declare and inline asm.
        A #pragma's text is the same node: the directive is an occurrence of its own."""
        for node in nodes:
            if _diagnostic_text(node) or _undefines_cuda_macro(node):
                continue
            directive = _pragma_directive(node)
            if directive is not None:
                self.occurrences.append(_pragma(directive, node, self.scopes.name_at(directive.start_byte)))
            self.occurrences.extend(_macro_occurrences(node, self.source, self.scopes.name_at(node.start_byte), self.keep))
            self.occurrences.extend(pragma_operators.in_define(node, self.source, _macro_code))
            self.declared.update(_macro_declarations(node.text or b""))


def _cuda_redefinitions(definitions: list[Node], aliases: list[Node], is_cuda: Keep | None) -> list[Node]:
    """The #defines of CUDA names as more than a rename (kaldi's `cublasStrsm_v2(...)` with its const_cast,
    `curandSetGeneratorOrdering(x, y) 0`, `__fdiv_rd __fdiv_rn`): a function-like macro, or a body that is no alias
    (`aliases`); CUDA's compiler and version macros aside, whose tests hipcc_branch.py reads. In a HIP layer, their
    uses are left to it (run/scope.py: HipLayer)."""
    if is_cuda is None:
        return []
    return [name for name in definitions if (definition := name.parent) is not None
            and (definition.type == "preproc_function_def" and not (name in aliases and _forwards(definition))
                 or definition.type == "preproc_def" and name not in aliases)
            and not CUDA_CONDITION_MACROS.fullmatch(node_text(name)) and is_cuda(node_text(name))]


def _forwards(definition: Node) -> bool:
    """A function-like macro that calls another name with its parameters as they come, and nothing else (colmap's
    `#define cudaDeviceSynchronize() hipDeviceSynchronize()`): a rename all the same."""
    parameters, value = definition.child_by_field_name("parameters"), definition.child_by_field_name("value")
    if parameters is None or value is None or b"..." in (parameters.text or b""):
        return False
    spelled, body = b"".join((parameters.text or b"").split()), b"".join((value.text or b"").split())
    return body.endswith(spelled) and _ONE_NAME.fullmatch(body[:len(body) - len(spelled)]) is not None


# A plain name, nothing around it.
_ONE_NAME = re.compile(rb"[A-Za-z_]\w*")


def _defines_for_hip(name: Node, hip_spelling: Keep | None) -> bool:
    """A guarded `#define` of CUDA's compiler or version macro, or of a CUDA name whose body starts with a HIP name."""
    definition = name.parent
    if definition is None or definition.type not in ("preproc_def", "preproc_function_def"):
        return False
    if CUDA_CONDITION_MACROS.fullmatch(node_text(name)):
        return True
    value = definition.child_by_field_name("value")
    first = _HIP_BODY_NAME.search(value.text or b"") if value is not None and hip_spelling is not None else None
    return first is not None and hip_spelling(first.group(1).decode("ascii"))


# A body's first name, past any opening parentheses.
_HIP_BODY_NAME = re.compile(rb"\A[\s(]*([A-Za-z_]\w*)")


def _undefines_cuda_macro(node: Node) -> bool:
    """`#undef __CUDACC__`: the project undefines CUDA's compiler or version macro for itself. Renamed, it would
    undefine HIP's own (`__HIPCC__`), which HIP's headers test."""
    directive = node.parent.child_by_field_name("directive") if node.parent is not None and node.parent.type == "preproc_call" else None
    return directive is not None and directive.text == b"#undef" and CUDA_CONDITION_MACROS.fullmatch(node_text(node).strip()) is not None


def _macro_pragma(node: Node, body: bytes, base: int, position: Callable[[int], Position], function: str) -> Occurrence | None:
    """A #pragma the body spells, outside its comments and strings, whose text holds none of the macro's parameters
    (`_Pragma("...")` would not substitute them)."""
    if b"pragma" not in body:  # most bodies: a test at C speed, before the lexing
        return None
    match = _PRAGMA_IN_MACRO.search(_macro_code(body))
    if match is None:
        return None
    text = b" ".join(_SPLICE.sub(b" ", body[match.end():]).split())
    definition = node.parent
    parameters = definition.child_by_field_name("parameters") if definition is not None else None
    named = {p.text for p in parameters.named_children} if parameters is not None else set()
    if not text or named & set(re.findall(rb"[A-Za-z_]\w*", text)):
        return None
    start = base + match.start()
    return Occurrence(Span(start, base + len(body.rstrip())), Role.MACRO_PRAGMA, text.decode("utf-8", "replace"),
                      position(start - base), function)


def _macro_declarations(body: bytes) -> Iterator[str]:
    """The variables a #define body declares, outside its comments and strings."""
    return (match.group(2).decode("ascii") for match in _MACRO_DECLARATION.finditer(_macro_code(body))
            if match.group(1) not in _NOT_TYPES)


def _macro_code(body: bytes) -> bytes:
    """A #define body with its comments and strings blanked, each byte kept in place."""
    return _MACRO_TOKEN.sub(lambda token: token.group() if token.group(1) is not None else b" " * len(token.group()),
                            body)


def _pragma_directive(argument: Node) -> Node | None:
    """The `#pragma` directive whose text this is, or None."""
    call = argument.parent
    directive = call.child_by_field_name("directive") if call is not None and call.type == "preproc_call" else None
    return call if directive is not None and re.sub(rb"\s+", b"", directive.text or b"") == b"#pragma" else None


def _pragma(directive: Node, words: Node, function: str) -> Occurrence:
    """A #pragma directive: its words (without comments; strings blanked), and its span from `#` to the end of its
    line (a guard goes around the line)."""
    end = directive.start_byte + len((directive.text or b"").rstrip(b"\r\n"))
    spelled = b" ".join(_macro_code(_SPLICE.sub(b" ", words.text or b"")).split()).decode("utf-8", "replace")
    return Occurrence(Span(directive.start_byte, end), Role.PRAGMA, spelled,
                      node_position(directive), function, info=MacroFacts(under_hip_test(directive)))


def _diagnostic_text(argument: Node) -> bool:
    """The message of an `#error` or `#warning`: text, not code (`#error CUBLAS error names missing`)."""
    call = argument.parent
    directive = call.child_by_field_name("directive") if call is not None and call.type == "preproc_call" else None
    return directive is not None and re.sub(rb"\s+", b"", directive.text or b"") in (b"#error", b"#warning")


# Capture name -> handler, in order: functions first, since they set the scopes the others use.
HANDLERS: tuple[tuple[str, Callable[[FileParse, list[Node]], None]], ...] = (
    ("function", FileParse.functions),
    ("member", FileParse.members),
    ("identifier", FileParse.identifiers),
    ("type", FileParse.types),
    ("qualified", FileParse.qualified),
    ("namespace_alias", FileParse.namespace_aliases),
    ("using", FileParse.usings),
    ("include", FileParse.includes),
    ("launch", FileParse.launches),
    ("asm", FileParse.inline_asm),
    ("condition", FileParse.conditions),
    ("field", FileParse.fields),
    ("literal", FileParse.number_literals),
    ("named_literal", FileParse.named_literals),
    ("qualifier", FileParse.shared_arrays),
    ("parameter_qualifier", FileParse.parameter_qualifiers),
    ("storage", FileParse.storage_classes),
    ("linkage", FileParse.linkages),
    ("macro_function", FileParse.macro_functions),
    ("launch_bounds", FileParse.launch_bounds),
    ("constant", FileParse.named_values),
    ("type_alias", FileParse.type_aliases),
    ("subscript", FileParse.shared_subscripts),  # after "qualifier": it needs the shared arrays
    ("comment", FileParse.suppressions),
    ("empty_braces", FileParse.empty_braces),
    ("auto_value", FileParse.auto_coordinates),
    ("macro_body", FileParse.macro_bodies),
)


def _body_arguments(body: bytes, after: int, base: int) -> tuple[Span, ...]:
    """The argument spans of a call a #define body spells, its name ending at `after`: what convert needs to drop a
    mask (`__shfl_sync((a), (b), (c))` on HIP 5.2). None where no `(` follows or it does not close in the body."""
    opened = _CALL_OPEN.match(body, after)
    if opened is None:
        return ()
    depth, start, spans = 0, opened.end(), []
    for token in _ARGUMENT_TOKEN.finditer(body, opened.end()):
        text = token.group()
        if text in (b"(", b"[", b"{"):
            depth += 1
        elif text in (b")", b"]", b"}") and depth:
            depth -= 1
        elif text == b")" or text == b"," and not depth:
            inner = _BLANK_EDGES.match(body, start, token.start())
            if inner.end(1) > inner.start(1):
                spans.append(Span(base + inner.start(1), base + inner.end(1)))
            if text == b")":
                return tuple(spans)
            start = token.end()
    return ()


def _body_comparison(body: bytes, start: int, end: int) -> NameFacts | None:
    """A CUDA compiler macro a #define body compares (`(__CUDA_ARCH__ >= 800)`): its comparison, read as the macro on
    the left (`>= 800`). Such a body is a value, which `#if HAS_BF16` or code reads."""
    after = _COMPARED_AFTER.match(body, end)
    if after is not None:
        return NameFacts(valued=f"{after.group(1).decode()} {after.group(2).decode('ascii', 'replace')}")
    before = _COMPARED_BEFORE.search(body, max(0, start - 80), start)
    if before is not None:
        return NameFacts(valued=f"{_FLIP[before.group(2)].decode()} {before.group(1).decode('ascii', 'replace')}")
    return None


def _asm_template(strings: bytes) -> str:
    """An asm statement's template: its string literals' contents, joined, escapes as written."""
    return b"".join(_STRING_CONTENT.findall(_SPLICE.sub(b"", strings))).decode("utf-8", "replace")


def _defined_name(body: Node) -> str:
    """The name of the #define whose body this is."""
    name = body.parent.child_by_field_name("name") if body.parent is not None else None
    return node_text(name) if name is not None else ""


def _macro_occurrences(node: Node, source: bytes, function: str, keep: Keep | None) -> list[Occurrence]:
    """Identifiers and inline asm of one #define body (each identifier's detail: the macro's name)."""
    defined = None  # the macro's name: asked only of a body with a kept name (a step up walks down from the root)
    base = node.start_byte
    body = source[base:node.end_byte]
    position = body_positions(node, body)
    found: list[Occurrence] = []
    kept = kept_spellings(keep)  # by the bytes, remembered: a #define body repeats the file's names
    kept_qualified = _kept_qualified(keep)
    for match in _MACRO_TOKEN.finditer(body):
        spelled = match.group(1)
        if spelled is None:
            continue
        start = base + match.start(1)
        if b":" in spelled:  # `thrust::cuda::par`: a QUALIFIED name, as in code
            qualified = kept_qualified(spelled)
            if qualified is not None:
                blank = _BLANK.search(spelled) if len(qualified) != len(spelled) else None
                found.append(Occurrence(Span(start, base + match.end(1)), Role.QUALIFIED, qualified,
                                        position(start - base), function,
                                        info=QualifiedFacts(blank.start()) if blank else None))
            continue
        if not kept(spelled):
            continue
        name = spelled.decode("ascii")
        defined = _defined_name(node) if defined is None else defined
        found.append(Occurrence(Span(start, start + len(name)), Role.MACRO_BODY, name, position(start - base), function,
                                defined, _body_arguments(body, match.end(1), base),
                                _body_comparison(body, match.start(1), match.end(1)) if CUDA_CONDITION_MACROS.fullmatch(name)
                                else None))
    pragma = _macro_pragma(node, body, base, position, function)
    if pragma is not None:
        found.append(pragma)
    for match in _ASM_IN_MACRO.finditer(body):
        template = _asm_template(match.group(1))
        start = base + match.start()
        found.append(Occurrence(Span(start, base + match.end()), Role.INLINE_ASM, template, position(start - base), function,
                                "macro"))
    return found
