"""Where a parse failed, and the names inside it, matched token by token so none is missed.

tree-sitter wraps what it cannot parse in ERROR nodes. Inside one, a name may be a
leaf no query captures, or misread (a declarator, a macro's name); and the
pre-parse fixes (portkit/parse/prepare.py) blank text the parser then never sees
(an attribute macro's name, the other branches of an #if group that splits a
construct). In those regions every name a handler did not report is lexed from
the source: a CALL when `(` follows, a QUALIFIED name when it has `::`, else an
IDENTIFIER.

Two kinds of error mark change nothing in the tree and are not counted: the
hidden MISSING newline of a directive (`#include <x>` followed by a blank, an
`#endif` at the end of a file that lacks one), and the MISSING declarator
tree-sitter adds to `template class X<T>;`.
"""
from __future__ import annotations

import hashlib
import re
from typing import Callable, Iterable

from tree_sitter import Node

from portkit.model import CallFacts, NameFacts, Occurrence, Role, Span
from portkit.parse.lexer import layout_of, word_start
from portkit.textutil import LineIndex

# A name, qualified or not; not the tail of a number (`1e5f`, `0x1fu`) or of another name.
_NAME = re.compile(rb"(?<![\w.])[A-Za-z_]\w*(?:[ \t]*::[ \t]*~?[A-Za-z_]\w*)*")
# In a tree's S-expression, what convert inserts without changing the code around it: a marker comment,
# an #include of a header by name.
_INSERTED = re.compile(r" \(comment\)| \(preproc_include path: \((?:system_lib_string|string_literal(?: \(string_content\))?)\)\)")
# A conditional directive and its condition (comments aside).
_CONDITION = re.compile(rb"#[ \t]*(if|ifdef|ifndef|elif)\b[ \t]*")
# Directives whose text holds no names: a header's path, a message, a pragma.
_TEXT_DIRECTIVE = re.compile(rb"[ \t]*#[ \t]*(?:include|include_next|import|error|warning|pragma|line)\b")
_TEST_DIRECTIVE = re.compile(rb"[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|elifdef|elifndef)\b")
# A name on a conditional directive's line the fixes blanked: tested by the preprocessor, as the tree's handlers say of
# one on an #if they parsed (a version comparison convert keeps is kept here too, whichever line the parse blanked).
_TESTED = NameFacts(tested=True)
_NONZERO = re.compile(rb"[^\x00]+")
_COMPLETE_ITEM = re.compile(r"(definition|declaration|statement|^preproc_|^comment$|^linkage_specification$)")
_ARGUMENT_TEXT_LIMIT = 80  # as the tree's calls (portkit/parse/treesitter.py)


def _carries_error(node: Node) -> bool:
    return node.is_error or node.is_missing or node.has_error


def is_benign(node: Node) -> bool:
    """An error mark that changes nothing in the tree (see the module's docstring)."""
    if node.is_missing:
        return node.parent is not None and node.parent.type == "template_instantiation"
    return node.type.startswith("preproc_") and not any(_carries_error(c) for c in node.children)


def error_sites(root: Node) -> list[Node]:
    """The outermost ERROR nodes and the MISSING ones (or the node hiding one), benign ones left out."""
    sites, stack = [], [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing or not node.has_error or is_benign(node):
            if (node.is_error or node.is_missing) and not is_benign(node):
                sites.append(node)
            continue
        carriers = [c for c in node.children if _carries_error(c)]
        if not carriers:
            sites.append(node)  # a MISSING token of a hidden rule
        stack.extend(reversed(carriers))
    return sites


def error_weight(root: Node) -> tuple[int, int]:
    """How broken a tree is: its error sites, then the bytes inside ERROR nodes."""
    sites = error_sites(root)
    return len(sites), sum(s.end_byte - s.start_byte for s in sites if s.is_error)


# Patterns start matching at most this deep. A node finds its parent by walking down from the root, and
# tree-sitter's query cursor costs depth squared too (a
# 40,000-term sum: 62 s; 100,000 nested #if blocks: minutes, as its 16-bit depths wrap); no
# written code nests this deep, and a file that does is reported as parsed only in part.
MAX_QUERY_DEPTH = 512


def too_deep_line(root: Node) -> int | None:
    """The line of a node deeper than MAX_QUERY_DEPTH, found along the heaviest path (the child with
    the most descendants, where a deep chain lies), or None. Cheap: a small tree cannot be that deep."""
    if root.descendant_count <= MAX_QUERY_DEPTH:
        return None
    cursor, depth = root.walk(), 0
    while cursor.goto_first_child():
        depth += 1
        heaviest = cursor.node
        while cursor.goto_next_sibling():
            if cursor.node.descendant_count > heaviest.descendant_count:
                heaviest = cursor.node
        if depth > MAX_QUERY_DEPTH:
            return heaviest.start_point[0] + 1
        if depth + heaviest.descendant_count - 1 <= MAX_QUERY_DEPTH:
            return None  # too few nodes below it (itself counted) for a chain that deep
        cursor.reset(heaviest)
    return None


def first_error_line(sites: list[Node]) -> int | None:
    """The line where the first syntax error starts, given the tree's `error_sites`.

    tree-sitter often wraps a whole region, valid code included, in one ERROR
    node; inside it, the first child that is not a complete item is the culprit.
    """
    if not sites:
        return None
    node = sites[0]
    while True:
        if node.is_missing:
            return node.start_point[0] + 1
        for child in node.children:
            if _carries_error(child):
                node = child
                break
            if node.is_error and not _COMPLETE_ITEM.search(child.type):
                return child.start_point[0] + 1
        else:
            return node.start_point[0] + 1


def tree_shape(root: Node) -> str:
    """A digest of a tree's structure: its node kinds, fields and error nodes, not the names in it,
    its comments or its plain #includes. Two texts of one shape read the same to every analyzer but
    for their names, comments and included headers: the shape tells whether renames and markers
    changed how tree-sitter recovered from a syntax error (portkit/convert/sources.py)."""
    if too_deep_line(root) is not None:  # str() recurses in C: on a tree this deep it overflows the stack
        return _deep_shape(root)
    return hashlib.blake2b(_INSERTED.sub("", str(root)).encode(), digest_size=16).hexdigest()


def _deep_shape(root: Node) -> str:
    """`tree_shape` of a very deep tree, walked with a cursor (no recursion): each node's depth, field and kind."""
    digest = hashlib.blake2b(b"deep", digest_size=16)
    cursor, depth = root.walk(), 0
    while True:
        node = cursor.node
        if node.type != "comment":  # as _INSERTED: markers and #include spellings are no change of shape
            digest.update(f"{depth} {cursor.field_name} {node.type} {node.is_missing}\n".encode())
        if node.type != "preproc_include" and cursor.goto_first_child():
            depth += 1
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return digest.hexdigest()
            depth -= 1


def changed_regions(source: bytes, parsed: bytes, chunk: int = 4096) -> list[tuple[int, int]]:
    """The runs of bytes the pre-parse fixes changed (compared a chunk at a time: most are equal). In a chunk
    that differs, the runs are those of nonzero bytes in the two chunks' XOR, found at C speed (a loop over
    each of its bytes was 0.6% of a cold scan of the 1M-line scale tree)."""
    regions: list[tuple[int, int]] = []
    for base in range(0, len(source) if source != parsed else 0, chunk):
        before, after = source[base:base + chunk], parsed[base:base + chunk]
        if before == after:
            continue
        different = (int.from_bytes(before, "big") ^ int.from_bytes(after, "big")).to_bytes(len(before), "big")
        for match in _NONZERO.finditer(different):
            start, end = base + match.start(), base + match.end()
            if regions and regions[-1][1] == start:
                regions[-1] = (regions[-1][0], end)
            else:
                regions.append((start, end))
    return regions


def unparsed_regions(sites: list[Node], source: bytes, parsed: bytes) -> list[tuple[int, int]]:
    """What the tree does not describe: its ERROR nodes (of its `error_sites`), a literal that lacks its closing
    quote (it swallows the rest of the line), and the bytes the fixes changed (from the start of the name they
    touch); merged and sorted."""
    errors = [(s.start_byte, s.end_byte) for s in sites if s.is_error]
    errors += [(s.parent.start_byte, s.parent.end_byte) for s in sites
               if s.is_missing and s.parent is not None and s.parent.type.endswith("_literal")]
    merged: list[tuple[int, int]] = []
    for start, end in sorted(errors + changed_regions(source, parsed)):
        start = word_start(source, start)
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


class TokenMatcher:
    """Occurrences for the names in `regions` of `source` that no handler reported."""

    def __init__(self, source: bytes, regions: list[tuple[int, int]], kept: Callable[[bytes], bool]):
        self.source = source
        self.regions = regions
        self.kept = kept  # whether to keep a name, by its bytes (remembered per spelling: handlers.kept_spellings)
        self.layout = layout_of(source)
        self.lines = LineIndex(source)

    def _names(self) -> Iterable[tuple[int, int]]:
        """The names in the regions: not in comments or literals, nor in an #include, #error, #pragma..."""
        for start, end in self.regions:
            for match in _NAME.finditer(self.source, start, end):
                offset = match.start()
                if self.layout.opaque[offset]:
                    continue
                if self.layout.directive[offset] and _TEXT_DIRECTIVE.match(self.source, self.source.rfind(b"\n", 0, offset) + 1):
                    continue
                yield offset, match.end()

    def occurrences(self, seen: set[int], function_at: Callable[[int], str]) -> Iterable[Occurrence]:
        """As the tree's handlers would: `a::b(x)` is a QUALIFIED name, and `b` an IDENTIFIER."""
        for start, end in self._names():
            text, qualified = self.source[start:end], False
            if b"::" in text and start not in seen:
                name = re.sub(rb"\s+", b"", text)
                if self.kept(name) or self.kept(name.rsplit(b"::", 1)[-1]):
                    yield Occurrence(Span(start, end), Role.QUALIFIED, name.decode("ascii"), self.lines.position(start),
                                     function_at(start))
                start, qualified = end - len(re.split(rb"::\s*~?", text)[-1]), True
            if start not in seen and self.kept(spelled := self.source[start:end]):
                yield self._occurrence(start, end, spelled.decode("ascii"), function_at(start), qualified)
            seen.add(start)

    def _occurrence(self, start: int, end: int, name: str, function: str, qualified: bool) -> Occurrence:
        position = self.lines.position(start)
        opening = self.layout.next_code(self.source, end)
        if self.layout.directive[start] and _TEST_DIRECTIVE.match(self.source, self.source.rfind(b"\n", 0, start) + 1):
            return Occurrence(Span(start, end), Role.IDENTIFIER, name, position, function, info=_TESTED)
        if qualified or opening < 0 or self.source[opening] != ord("(") or not self.layout.is_code(start):
            return Occurrence(Span(start, end), Role.IDENTIFIER, name, position, function)
        closing = self.layout.closing(opening)
        parts = tuple(Span(a, b) for a, b in self.layout.arguments(opening, closing)) if closing > 0 else ()
        texts = tuple(" ".join(self.source[p.start:p.end].decode("utf-8", "replace").split())[:_ARGUMENT_TEXT_LIMIT]
                      for p in parts)
        return Occurrence(Span(start, end), Role.CALL, name, position, function, parts=parts, info=CallFacts(texts))

    def conditions(self, cuda_macros: re.Pattern[str], seen: set[int], function_at: Callable[[int], str]) -> Iterable[Occurrence]:
        """The #if/#ifdef/#elif lines testing `cuda_macros` that the fixes blanked, as the tree reports them."""
        for start, end in self.regions:
            for match in _CONDITION.finditer(self.source, start, end):
                first = match.end()
                while self.source[first:first + 1] in (b" ", b"\t"):
                    first += 1  # the region may end at the keyword
                if not self.layout.directive[match.start()] or self.source[first:first + 1] in b"\n\r" or first in seen:
                    continue
                last = first
                while last < len(self.source) and self.layout.directive[last]:
                    last += 1
                while last > first and (self.layout.opaque[last - 1] or self.source[last - 1] in b" \t\r\\"):
                    last -= 1
                text = " ".join(self.source[first:last].decode("utf-8", "replace").split())
                if cuda_macros.search(text):
                    yield Occurrence(Span(first, last), Role.PREPROCESSOR_CONDITION, text, self.lines.position(first),
                                     function_at(first), "#" + match.group(1).decode("ascii"))


def unparsed_occurrences(sites: list[Node], source: bytes, parsed: bytes, occurrences: list[Occurrence], skip: set[int],
                         kept: Callable[[bytes], bool], function_at: Callable[[int], str],
                         cuda_macros: re.Pattern[str]) -> list[Occurrence]:
    """The names in what the tree (with these `error_sites`) does not describe that no handler reported (nor
    declared, `skip`), and the conditions testing `cuda_macros` on the #if lines the fixes blanked."""
    regions = unparsed_regions(sites, source, parsed)
    if not regions:
        return []
    seen = set(skip) | {o.span.start for o in occurrences}
    for occurrence in occurrences:
        if occurrence.role is Role.QUALIFIED:  # its inner names are part of it
            seen.update(range(occurrence.span.start, occurrence.span.end))
    matcher = TokenMatcher(source, regions, kept)
    found = list(matcher.conditions(cuda_macros, seen, function_at))
    return found + list(matcher.occurrences(seen, function_at))
