"""Parse CUDA/C++ source bytes with tree-sitter-cuda into occurrences.

The parser knows C++ and CUDA syntax, not CUDA libraries: it reports what each
token is (a call, a type, an include, a kernel...) and where. tree-sitter-cuda
is used rather than tree-sitter-cpp because the latter turns `<<<...>>>` and
`__global__` into syntax errors (docs/parser.md).

Comments and string literals never produce name occurrences: the query (queries.py) only
captures identifier-like nodes, which tree-sitter never creates inside them. The
one opaque region is a `#define` body, which is lexed separately. A file that calls a name
whose string arguments the analyzers read (NVRTC's) gets its literals' values (strings.py).

This module runs a parse: the query's captures go through the handler table
(handlers.py, which reads nodes with nodes.py); it also finds what a file needs
before its code (the preamble's end, CUDA's language extensions, CUDA-only branches, and the branches hipcc never
compiles for AMD: a project's own NVIDIA side).
"""
from __future__ import annotations

import re
import string
from typing import Iterator, Mapping, Optional

from tree_sitter import Node, Parser

from portkit.model import Occurrence, ParsedFile, Role
from portkit.parse import pragma_operators
from portkit.parse.guarded import branch_chain, opening_group, spelled_test
from portkit.parse.handlers import FileParse, HANDLERS, kept_spellings
from portkit.parse.handles import handle_arithmetic
from portkit.parse.hip_switches import hip_switch_facts
from portkit.parse.hipcc_branch import amd_value, reads_cuda_compiler
from portkit.parse.macros import MacroTable, collect_macros
from portkit.parse.vendor_layers import hip_facts, layer_facts
from portkit.parse.nodes import CONDITION_MACROS, HIP_TESTS, HipAlias, Keep, LINE_COMMENT, node_text, position_key
from portkit.parse.prepare import Prepared, prepare
from portkit.parse.queries import OPTIONAL_ROLES, captures, grammar
from portkit.parse.strings import calls_one_of, may_hold_kernel_text, string_literals
from portkit.parse.recovery import error_sites, first_error_line, too_deep_line, tree_shape, unparsed_occurrences
from portkit.textutil import BOM, within

# A directive line may end in a comment (`#pragma once  // one copy`, `#ifndef X_H /* guard */`): still the preamble's.
_TRAILING_COMMENT = rb"\s*(?://.*|/\*.*?\*/\s*)?"
_GUARD = re.compile(rb"#\s*(?:ifndef\s+(\w+)|if\s+!\s*defined\s*\(?\s*(\w+)\s*\)?)" + _TRAILING_COMMENT + rb"$")
# The guard's #define: the name is compared after the match (a regex of each file's guard name was compiled
# once per file, as re's own cache holds 512: 0.4% of a cold scan of the 1M-line scale tree).
_DEFINE_LINE = re.compile(rb"#\s*define\s+(\w+)\b.*")
_PRAGMA_ONCE = re.compile(rb"#\s*pragma\s+once" + _TRAILING_COMMENT)
_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")  # as bytes.splitlines(keepends=True) splits
_LEADING_COMMENT = re.compile(rb"\s*(?://[^\n]*|/\*.*?\*/)", re.S)
# CUDA's language extensions (and `<<<`): a file using them needs the HIP runtime header under hipcc,
# which (unlike nvcc) includes nothing by itself. Found with bytes.find, the most common first (a regex
# alternation tries each word at every byte: three times slower).
_DEVICE_WORDS = (b"__global__", b"threadIdx", b"__device__", b"__shared__", b"blockIdx", b"blockDim", b"gridDim",
                 b"__syncthreads", b"__constant__", b"__managed__")
# Macros that configure HIP's headers (HIP_ENABLE_WARP_SYNC_BUILTINS): written before them on purpose.
_HIP_CONFIGURATION = re.compile(rb"HIP_ENABLE_\w+$|__HIP_\w+$")
_WORD_BYTES = frozenset((string.ascii_letters + string.digits + "_").encode())
# An identifier in a test: looked up in the project's macros HIP's platform decides.
_WORD = re.compile(rb"[A-Za-z_]\w*")


def _preamble_end(source: bytes) -> int:
    """The offset after the leading comments, `#pragma once` and the include guard's #define:
    where an #include or #define can go before any code."""
    offset = result = len(BOM) if source.startswith(BOM) else 0
    guard: bytes | None = None  # the guard's name once `#ifndef NAME` is seen, b"" once defined
    in_comment = False
    for line in _lines(source, offset):
        text = line.strip()
        offset += len(line)
        if in_comment:
            in_comment = b"*/" not in text
        elif not text:
            continue
        elif text.startswith(b"//") or _PRAGMA_ONCE.fullmatch(text):
            pass
        elif text.startswith(b"/*"):
            in_comment = b"*/" not in text[2:]
        elif guard is None and _GUARD.match(text):
            opened = _GUARD.match(text)
            guard = opened.group(1) or opened.group(2)
            continue  # not part of the preamble until its #define follows
        elif guard and (defined := _DEFINE_LINE.fullmatch(text)) is not None and defined.group(1) == guard:
            guard = b""
        else:
            break
        if not guard and not in_comment:  # never inside a comment: one left open runs to the end of the file
            result = offset
    return result


def _lines(source: bytes, offset: int) -> Iterator[bytes]:
    """`source[offset:].splitlines(keepends=True)`, one line at a time: the preamble ends within a few lines,
    and splitting a whole large file first cost more than reading its preamble."""
    for match in _LINE.finditer(source, offset):
        yield match.group()


def _device_syntax(source: bytes, cuda_only: tuple[tuple[int, int], ...]) -> tuple[bool, bool]:
    """Whether the file uses CUDA's language extensions, and whether a host compiler meets them: outside `cuda_only`
    and outside #define bodies, which are text until a file expands them (llama.cpp's ggml-common.h, included by C
    files too, defines `GGML_TABLE_BEGIN` with `__device__` for its CUDA includers)."""
    anywhere = False
    for start in _device_syntax_sites(source):
        line_start = source.rfind(b"\n", 0, start) + 1
        if b"//" not in source[line_start:start]:
            anywhere = True
            if not within(start, cuda_only) and not _in_define(source, line_start):
                return True, True
    return anywhere, False


_DEFINE = re.compile(rb"[ \t]*#[ \t]*define\b")


def _in_define(source: bytes, line_start: int) -> bool:
    """Whether the line at `line_start` is part of a #define: its own, or one a backslash continues."""
    while not _DEFINE.match(source, line_start):
        if line_start < 2 or source[max(0, line_start - 3):line_start].rstrip(b"\r\n")[-1:] != b"\\":
            return False
        line_start = source.rfind(b"\n", 0, line_start - 1) + 1
    return True


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
# Macros only a compile for some AMD GPUs defines: `defined(__gfx1100__)`, `__AMDGCN_WAVEFRONT_SIZE == 32`.
_AMD_TARGET_MACRO = re.compile(r"__gfx\w+__|__AMDGCN_WAVEFRONT_SIZE(__)?")
_CONDITION_NAME = re.compile(r"\b[A-Za-z_]\w*")  # \b: not the suffix of `32u`


def _branches_testing(conditions: list[Node], groups: list[Node], macro: re.Pattern[str],
                      refused: str) -> tuple[tuple[int, int], ...]:
    """The byte ranges of the branches whose test reads only `macro`s (none negated, no operator of `refused`), up
    to their #else. `groups`: each condition's #if/#elif node, from the query (a node's `.parent` walks down from the
    root: asked for each of 100,000 nested conditions, that is quadratic)."""
    spans = []
    by_start = sorted(groups, key=lambda g: g.start_byte)
    for condition, group in zip(sorted(conditions, key=lambda c: c.start_byte), by_start):
        if group.children[0].type == "#ifndef":
            continue
        text = LINE_COMMENT.sub(" ", node_text(condition))
        names = set(_CONDITION_NAME.findall(text)) - {"defined"}
        if any(c in text for c in refused) or not names or not all(macro.fullmatch(n) for n in names):
            continue
        alternative = group.child_by_field_name("alternative")
        spans.append((condition.end_byte, alternative.start_byte if alternative is not None else group.end_byte))
    return tuple(spans)


def _cuda_only(conditions: list[Node], groups: list[Node]) -> tuple[tuple[int, int], ...]:
    """The branches a host compiler never compiles: `#ifdef __NVCC__`, `#if defined(__CUDACC__)`,
    `#if __CUDA_ARCH__ >= 700` (every macro tested is a GPU compiler's, and none negated)."""
    return _branches_testing(conditions, groups, _COMPILER_MACRO, "!")


def _amd_only(conditions: list[Node], groups: list[Node]) -> tuple[tuple[int, int], ...]:
    """The branches only a compile for AMD GPUs takes: `#elif defined(__gfx1100__)`, `#if __AMDGCN_WAVEFRONT_SIZE ==
    32` (nvcc reads the macro as 0, so an ordering test such as `< 64` would hold there too: not counted)."""
    return _branches_testing(conditions, groups, _AMD_TARGET_MACRO, "!<>")


def _nvidia_side(conditions: list[Node], own: Mapping[bytes, Optional[bytes]]) -> dict[str, tuple[tuple[int, int], ...]]:
    """The byte ranges of the branches hipcc never compiles for AMD: those a test of HIP's platform macros leaves
    there (the #else of `#if defined(__HIP_PLATFORM_AMD__)` or `#ifdef __HIPCC__`, `#if !defined(__HIP_PLATFORM_AMD__)`
    itself), where a project with HIP branches of its own keeps the code its NVIDIA builds compile. A chain whose
    other tests read other macros counts from a test that decides it (`#if X` / `#elif defined(__HIPCC__)` / `#else`:
    the #else).
    And, apart (its cuda_side), the project's CUDA branches: in a chain that tests for HIP, where convert leaves CUDA's tests as
    written (analyze/own_hip_branches.py), a branch whose own test reads CUDA's compiler macros (`#if
    defined(__CUDACC__)` ... `#elif defined(__HIP__)`) and that hipcc so never compiles for AMD.
    `own`: the project's macros HIP's platform decides (parse/platform_macros.py: DeepSpeed's PTX_AVAILABLE, defined
    only in its NVIDIA side), read as HIP's are."""
    openings = {}
    for condition in conditions:
        text = condition.text or b""
        if (b"__HIP" in text or own and any(name in own for name in _WORD.findall(text))) \
                and condition.parent is not None:  # few files: the walk up is rare
            group = opening_group(condition.parent)
            openings[group.start_byte] = group
    spans, cuda = [], []
    for group in openings.values():
        tests, ranges, _ = branch_chain(group)
        spelled = [spelled_test(test) for test in tests] + ["1"]  # the #else, if any
        hip_chain = any(HIP_TESTS.search(test.text or b"") for test in tests)
        taken = kept_taken = False  # whether an earlier branch is the one hipcc takes for AMD (its CUDA tests kept)
        for index, branch in enumerate(ranges):
            value = amd_value(spelled[index], own=own) if spelled[index] is not None else None
            if taken or value == 0:  # from after its test: hipcc for AMD reads an #elif's test all the same
                spans.append((tests[index].end_byte, branch[1]) if index < len(tests) else branch)
            taken = taken or value == 1
            kept = amd_value(spelled[index], cuda_kept=True) if hip_chain and spelled[index] is not None else None
            if (kept_taken or kept == 0) and index < len(tests) and reads_cuda_compiler(spelled[index] or ""):
                cuda.append(branch)
            kept_taken = kept_taken or kept == 1
    return {"nvidia_side": tuple(sorted(spans)), "cuda_side": tuple(sorted(cuda))}


def _platform_macros(macros: MacroTable | None, source: bytes) -> Mapping[bytes, Optional[bytes]]:
    """The project's macros HIP's platform decides (MacroTable.on_amd), or without a table the file's own."""
    if macros is not None:
        return macros.on_amd
    return collect_macros([source]).on_amd if b"__HIP" in source else {}


def _first_define(definitions: list[Node], preamble_end: int) -> int:
    """The offset of the first #define after the preamble (not one configuring HIP's headers), or -1. The
    definitions in order, up to it: each asks for its parent, a walk down from the root."""
    for name in sorted(definitions, key=lambda n: n.start_byte):
        if name.start_byte >= preamble_end and (parent := name.parent) is not None \
                and parent.type in ("preproc_def", "preproc_function_def") and not _HIP_CONFIGURATION.match(name.text or b""):
            return name.start_byte
    return -1


def prepare_source(source: bytes, macros: MacroTable | None = None) -> Prepared:
    """What `parse_source` parses, and its tree: the bytes with a BOM blanked (spaces keep every
    offset), then fixed where they parse with errors (portkit/parse/prepare.py)."""
    language = grammar()
    return prepare(_without_bom(source), macros if macros is not None else collect_macros([source]),
                   Parser(language).parse)


def _without_bom(source: bytes) -> bytes:
    """A BOM is not C++: spaces instead keep every offset."""
    return b"   " + source[3:] if source.startswith(BOM) else source


def _searched(root: Node, parse_bytes: bytes, state: FileParse, hip_pointer: Keep | None,
              strings: frozenset[str]) -> list[Occurrence]:
    """What only some files are searched for, once the query's occurrences are made: arithmetic on handles (in a
    file that declares one), string literals' values (in a file that calls one of `strings`, or whose literals
    may define a kernel) and `_Pragma` operators in code."""
    found = handle_arithmetic(root, parse_bytes, state.occurrences, hip_pointer, state.scopes.name_at) \
        if hip_pointer is not None else []
    if b"_Pragma" in parse_bytes:
        found += pragma_operators.in_code(root, parse_bytes, state.scopes.name_at)
    if strings and (calls_one_of(parse_bytes, state.occurrences, strings) or may_hold_kernel_text(parse_bytes)):
        found += string_literals(root, parse_bytes, state.scopes.name_at)
    return found


def _hip_facts(state: FileParse, source: bytes, macros: MacroTable | None) -> dict:
    """ParsedFile's fields for the project's NVIDIA side and CUDA branches, its own HIP switches (not a macro HIP's
    platform decides: MacroTable.on_amd), and its HIP layer's aliases and includes."""
    platform = _platform_macros(macros, source)
    namespaces = state.cuda_namespace_aliases()
    switches = hip_switch_facts(state.get("condition"), source, platform, [node.start_byte for _, node in namespaces])
    aliases = [(node_text(node), node) for node in state.hip_aliases if node not in state.hip_macros] + namespaces
    return {**_nvidia_side(state.get("condition"), platform), **switches,
            **hip_facts(state.get("include"), aliases, state.hip_macros, switches.get("hip_switches", ()), platform)}


def parse_source(path: str, source: bytes, keep: Keep | None = None, literals: frozenset[str] = frozenset(),
                 api: Keep | None = None, macros: MacroTable | None = None,
                 cuda_declared: Keep | None = None, hip_alias: HipAlias | None = None,
                 prepared: Prepared | None = None, hip_pointer: Keep | None = None,
                 roles: frozenset[Role] | None = None, arguments: Keep | None = None, shape: bool = True,
                 strings: frozenset[str] = frozenset(), hip_spelling: Keep | None = None) -> ParsedFile:
    """Parse one file into its occurrences, definitions and declared names.

    `api` says whether a name is a CUDA API a rule knows (which a misparse must not make the project's); `cuda_declared`
    (default `api`) whether a CUDA header declares it, so that a definition of it in a preprocessor branch is a guarded
    definition, not the project's own; `hip_alias(name, alias)` whether `#define name alias` spells a CUDA API as the HIP
    name convert writes, or as another vendor's (a porting shim's line, not a definition of the project's own);
    `hip_spelling` whether a name is HIP's (a guarded `#define` of a CUDA name as one keeps its name); `hip_pointer`
    whether a type is an integer in CUDA and a pointer in HIP (arithmetic on its variables: portkit/parse/handles.py).
    `macros` is the project's macro table (portkit/parse/macros.py); without one, the file's own #defines.
    The tree may be of prepared bytes (portkit/parse/prepare.py): same length and newlines, so
    offsets are the source's; names the tree does not describe are matched token by token.
    `prepared`: what `prepare_source` gave for these bytes and macros, when the caller has it. `roles`: the
    OPTIONAL_ROLES to make (all of them by default). `arguments`: whether a call of a name is read by its
    arguments' texts and what it initialises (by default every call is). `shape`: whether a file parsed with errors
    gets its tree's shape (`ParsedFile.shape`: only convert reads it). `strings`: the names a call of which makes the
    file's string literals STRING occurrences (portkit/parse/strings.py).
    """
    prepared = prepared or prepare_source(source, macros)
    parse_bytes = _without_bom(source)
    tree = prepared.tree
    sites = error_sites(tree.root_node) if tree.root_node.has_error else []  # once: two readers
    error_line = min(filter(None, (first_error_line(sites), too_deep_line(tree.root_node))), default=None)
    roles = OPTIONAL_ROLES if roles is None else roles
    state = FileParse(source, parse_bytes, captures(tree, roles), keep, literals, api,
                      cuda_declared, hip_alias, roles, arguments, prepared, hip_spelling)
    preamble_end = _preamble_end(source)
    cuda_only = _cuda_only(state.get("condition"), state.get("condition_group"))
    first_define = _first_define(state.get("definition"), preamble_end)
    device_syntax, unguarded_device_syntax = _device_syntax(source, cuda_only)
    for capture, handler in HANDLERS:
        handler(state, state.get(capture))
    state.occurrences.extend(unparsed_occurrences(sites, parse_bytes, prepared.text, state.occurrences,
                                                  state.skip, kept_spellings(keep), state.scopes.name_at,
                                                  CONDITION_MACROS))
    state.occurrences.extend(_searched(tree.root_node, parse_bytes, state, hip_pointer, strings))
    return ParsedFile(
        path=path,
        occurrences=tuple(sorted(state.occurrences, key=position_key)),
        definitions=frozenset(state.definitions),
        internal=frozenset(state.internal),
        declared=frozenset(state.declared - state.definitions),
        lines=source.count(b"\n") + (0 if source.endswith(b"\n") or not source else 1),
        error_line=error_line,
        shape=tree_shape(tree.root_node) if error_line is not None and shape else "",
        preamble_end=preamble_end,
        preamble_line=source.count(b"\n", 0, preamble_end) + 1,
        newline="\r\n" if b"\r\n" in source[:4096] else "\n",
        device_syntax=device_syntax,
        cuda_only=cuda_only, amd_only=_amd_only(state.get("condition"), state.get("condition_group")),
        **_hip_facts(state, source, macros),
        first_define=first_define,
        unguarded_device_syntax=unguarded_device_syntax,
        guarded=frozenset(state.guarded), **layer_facts(state.get("include")), macro_numbers=tuple(sorted(prepared.numbers.items())),
    )
