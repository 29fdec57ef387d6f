"""A file's work never grows with the project (#45): a project-wide set reaches a file's steps only narrowed
to the names that file spells, so nothing per file loops over it or builds a regex of it.

The project's sets here refuse to be listed: any per-file step that iterates over one (a loop over every
macro name, a regex of all of them) fails, whatever it costs on the machine running the test.
"""
from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from portkit.parse import collect_macros, parse_source
from portkit.parse.hip_switches import _ANY_HIP
from portkit.parse.lexer import Layout
from portkit.parse.macros import MacroTable
from portkit.parse.vendor_layers import HIP_LAYER
from portkit.run.scope import HipLayer, IncludeGraph

CASES = sorted((Path(__file__).parent / "cases").glob("*.cu")) + sorted(
    (Path(__file__).parent / "convert").rglob("*.cu"))


class Unlisted(frozenset):
    """A project-wide set of names: asked whether it holds a name, never listed."""

    def __iter__(self):
        raise AssertionError("a per-file step listed a project-wide set")


class UnlistedTable(dict):
    """The project's attribute macros: looked up by name, never listed."""

    def __iter__(self):
        raise AssertionError("a per-file step listed the project's attribute macros")

    def items(self):
        raise AssertionError("a per-file step listed the project's attribute macros")

    keys = values = items


def project_sized(table: MacroTable, extra: int) -> MacroTable:
    """`table` as a large project's would be: `extra` more macros of each kind, none of them in the file."""
    more = lambda tag: {b"PROJECT_%s_%d" % (tag, i) for i in range(extra)}  # noqa: E731
    attributes = dict(table.attributes)
    attributes.update((name, b" " * len(name)) for name in more(b"ATTR"))
    return MacroTable(UnlistedTable(attributes), Unlisted(table.attribute_calls | more(b"CALL")),
                      Unlisted(table.statements | more(b"STMT")), Unlisted(table.object_statements | more(b"OBJ")),
                      Unlisted(table.identities | more(b"ID")), Unlisted(table.bodies | more(b"BODY")),
                      Unlisted(table.declarations | more(b"DECL")),
                      UnlistedTable({**table.spaces, **{name: ("__device__",) for name in more(b"SPACES")}}),
                      Unlisted(table.heads | more(b"HEAD")),
                      UnlistedTable({**table.numbers, **{name: b"32" for name in more(b"NUM")}}),
                      UnlistedTable({**table.on_amd, **{name: None for name in more(b"AMD")}}),
                      Unlisted(table.handlers | more(b"CATCH")), Unlisted(table.empties | more(b"EMPTY")))


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.name)
def test_a_file_is_prepared_from_its_own_names_only(path: Path) -> None:
    source = path.read_bytes()
    table = collect_macros(p.read_bytes() for p in CASES)
    plain = parse_source(path.name, source, macros=table)
    large = parse_source(path.name, source, macros=project_sized(table, 1_000))
    assert large.occurrences == plain.occurrences


class CountedBytes(bytes):
    """A file's bytes that count how often a step searches all of them for a word."""

    searches = 0

    def __contains__(self, word: object) -> bool:
        CountedBytes.searches += 1
        return super().__contains__(word)


def test_a_files_defines_are_read_without_searching_the_file_again_for_each() -> None:
    """The #defines of a file with no Windows-only test are read in one pass: a search of the whole file for the
    foreign platforms' macros at each #define made the table's cost the file's length times its #defines."""
    from portkit.parse.macros import file_definitions

    for count in (10, 1_000):
        CountedBytes.searches = 0
        source = CountedBytes(b"".join(b"#define M%d %d\nint v%d;\n" % (i, i, i) for i in range(count)))
        assert len(file_definitions(source)) == count
        assert CountedBytes.searches < 40, f"{CountedBytes.searches} searches of the file for {count} #defines"


def test_a_files_macro_uses_are_found_without_a_regex_of_their_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fixes find the uses of the macros a file spells by their spellings (bytes.find): a regex of those names was
    compiled for each new set of them (most files of a real tree have a set of their own) and tried name by name at
    every offset of the file, 0.9 s of bench/bench.py's tree A."""
    real_compile = re.compile
    compiled: list[bytes | str] = []

    def compile_and_note(pattern, flags=0):
        compiled.append(pattern)
        return real_compile(pattern, flags)

    monkeypatch.setattr(re, "compile", compile_and_note)
    source = (b"#define CHECK_ONCE_HERE(x) do { x; } while (0)\n"
              b"void f(float *p) {\n  CHECK_ONCE_HERE(cudaFree(p))\n  cudaMalloc(&p, 4);\n}\n")
    parsed = parse_source("a.cu", source)
    assert [o.text for o in parsed.occurrences if o.text.startswith("cuda")] == ["cudaFree", "cudaMalloc"]
    assert [p for p in compiled if b"CHECK_ONCE_HERE" in (p if isinstance(p, bytes) else p.encode())] == []


def test_the_next_token_is_found_without_masking_the_text_where_it_is_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fixes ask for the next token after each macro use and each capitalised line start (165,000 times over
    bench/bench.py's tree A): masking a chunk of the text (two big-integer conversions) is needed only where a
    comment, a literal or a directive comes first."""
    layout = Layout(b"CHECK (x);\n/* c */ f();\n")
    assert layout.next_code(layout.source, 10) == 19  # past the comment: the masked chunk
    monkeypatch.setattr(Layout, "code_only", lambda *_: pytest.fail("a chunk was masked"))
    assert layout.next_code(layout.source, 5) == 6
    assert layout.next_code(bytearray(layout.source), 9) == 9


def test_the_look_for_hip_code_skips_to_its_spellings() -> None:
    """hip_switches' quick look runs over every file with an #if. A pattern that starts with `\\b` is tried at every
    offset; one that starts with its letters is skipped to each spelling at C speed (8x faster over real code)."""
    from re import _constants, _parser  # the engine's own reading of a pattern: what it starts with

    for pattern in _ANY_HIP:
        assert _parser.parse(pattern.pattern)[0][0] is _constants.LITERAL, pattern.pattern
    assert [bool(any(p.search(text) for p in _ANY_HIP)) for text in (
        b"relationship(process)", b"hipMalloc(&p, 4)", b"#include <rocblas/rocblas.h>", b"__ockl_activelane_u32()")] \
        == [False, True, True, True]


def _defining(includes: tuple[str, ...] = (), aliases: tuple[tuple[str, bool], ...] = ()) -> SimpleNamespace:
    return SimpleNamespace(includes=includes, alternative_includes=frozenset(), vendor_layer=HIP_LAYER if aliases else "",
                           hip_aliases=aliases, hip_macros=(), hip_includes=frozenset(), definitions=frozenset(),
                           internal=frozenset(), declared=frozenset())


def test_which_layer_names_a_file_sees_is_asked_of_the_layer_files_not_of_each_files_includes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A file's includes, followed to the end, are as many as the project's headers: asked for every file to find
    the project's HIP layer among them, they made the layer's scoping grow with the square of the project."""
    files = [("src/hip/layer.h", _defining(aliases=(("cudaMalloc", True),))),
             ("src/common.h", _defining(("layer.h",))),
             ("src/a.cu", _defining(("common.h",))),
             ("src/b.cu", _defining(("other.h",))),
             ("src/other.h", _defining())]
    graph = IncludeGraph(files)
    monkeypatch.setattr(IncludeGraph, "reached", lambda self, path: pytest.fail("walked a file's includes"))
    layer = HipLayer(files, graph)
    assert layer.seen_by("src/a.cu") == {"cudaMalloc": "src/hip/layer.h"}
    assert layer.seen_by("src/hip/layer.h") == {"cudaMalloc": "src/hip/layer.h"}
    assert layer.seen_by("src/b.cu") == {}


class CountedFinds(bytes):
    """A file's bytes that count the passes `bytes.find` makes over them."""

    finds = 0

    def find(self, *args) -> int:  # type: ignore[override]
        CountedFinds.finds += 1
        return super().find(*args)


def test_a_file_that_spells_hundreds_of_macros_is_read_once_for_their_uses() -> None:
    """A file may spell hundreds of the project's statement macros (CImg.h: 490 in 2.4 MB): a bytes.find pass per
    name read it 490 times (0.4 s); past a few dozen names its words are looked up in one pass."""
    from portkit.parse.prepare import _uses

    names = frozenset(b"M%d" % i for i in range(200))
    text = CountedFinds(b"".join(b"M%d(x); xM%d M%d_ 0M%d;\n" % (i, i, i, i) for i in range(200)))
    CountedFinds.finds = 0
    spans = _uses(text, names)
    assert CountedFinds.finds < 40, f"{CountedFinds.finds} passes over the file for {len(names)} names"
    assert [text[start:end] for start, end in spans] == [b"M%d" % i for i in range(200)]
    few = frozenset((b"M1", b"M2"))
    assert _uses(text, few) == [span for span in spans if text[span[0]:span[1]] in few]


def test_the_next_token_is_not_looked_for_after_a_line_of_a_comment(monkeypatch: pytest.MonkeyPatch) -> None:
    """A statement macro's use is looked for at each line start that may be one (a capital first): its next token
    only where the line start is code. A line of a block comment sent the look past the comment, chunk by chunk
    (a fifth of the fixes' time over bench/bench.py's tree A)."""
    from portkit.parse.prepare import _statement_arguments

    source = b"/*\n" + b"".join(b"CHECK_%d(a; b)\n" % i for i in range(50)) + b"*/\nvoid f() {}\n"
    layout = Layout(source)
    out = bytearray(source)
    monkeypatch.setattr(Layout, "next_code", lambda *_: pytest.fail("the next token was looked for in a comment"))
    _statement_arguments(out, layout, MacroTable(statements=frozenset({b"CHECK_1"})))
    assert bytes(out) == source


def test_the_fixes_and_the_kernel_text_look_skip_to_their_spellings() -> None:
    """The fixes' patterns run over every file that needs fixing, the look for kernel text in literals over every
    file with a `__global__`. One that starts with `\\b`, `\\w` or a look-behind is tried at every offset (0.1 s each
    over the files bench/bench.py's tree A fixes); one that starts with its letters is skipped to each at C speed."""
    from re import _constants, _parser  # the engine's own reading of a pattern: what it starts with

    from portkit.parse import prepare, strings

    patterns = (prepare._NEW_POINTER_ARRAY, prepare._NEW_QUALIFIED, prepare._ENUM_ATTRIBUTE, prepare._GNU_RESTRICT,
                prepare._USING_TYPENAME, prepare._EMPTY_BRACES, prepare._ALIGN, prepare._CLUSTER_DIMS,
                prepare._LAUNCH_BOUNDS, strings._KERNEL_QUOTED, strings._RAW_OPENING)
    for pattern in patterns:
        assert _parser.parse(pattern.pattern)[0][0] is _constants.LITERAL, pattern.pattern
    assert [strings.may_hold_kernel_text(text) for text in (
        b'extern "C" __global__ void k();', b'const char *s = "__global__ void k() {}";', b'auto s = R"(\n__global__',
        b'auto s = uR"(\n__global__', b'auto s = xR"(\n__global__')] == [False, True, True, False, False]


@pytest.mark.parametrize("source, fixed", [
    (b"new int*[n]; anew int*[n];", b"new int [n]; anew int*[n];"),
    (b"new const T; renew const T;", b"new       T; renew const T;"),
    (b"void f(const Options& o = {}, int b = { });", b"void f(const Options& o = 0 , int b = 0  );"),
    (b"void f(int a ==  {});", b"void f(int a ==  {});"),
    (b"void f(int a /* = {} */, int b\n  =\n{});", b"void f(int a /* = {} */, int b\n  =\n0 );"),
    (b"float* const __restrict x; float* a__restrict y;", b"float* const            x; float* a__restrict y;"),
    (b"using typename B::t; xusing typename B::t;", b"using          B::t; xusing typename B::t;"),
])
def test_the_grammar_gaps_are_found_from_their_letters(source: bytes, fixed: bytes) -> None:
    from portkit.parse.prepare import normalise

    assert normalise(source, MacroTable()) == fixed
