"""The C/C++ lexical facts the pre-parse fixes and the token matcher share.

Both work on bytes without a tree, so they need to know, per byte, whether it is
ordinary code: not a comment, a string or character literal, and not part of a
preprocessor directive (whose lines, continuations included, are marked apart).
"""
from __future__ import annotations

import functools
import re
from typing import Iterator

# Comments, string and character literals (raw strings first: their body may hold quotes). Every branch
# starts with a literal byte, so the engine skips at C speed to the next byte that can start one (2.4x faster
# than `\bR` first).
OPAQUE = re.compile(
    rb'R(?:(?<!\wR)|(?<=\bu8R)|(?<=\b[uUL]R))"([^()\\\s]{0,16})\(.*?\)\1"'  # R"(...)", u8R"(...)"...
    rb'|//(?:[^\n\\]|\\.|\\\n)*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
    re.S,
)
IDENTIFIER = re.compile(rb"[A-Za-z_]\w*")
# `// portkit: ignore` or `// portkit: ignore[PK102, PK104]` (the flake8 noqa idea).
SUPPRESSION = re.compile(rb"portkit:\s*ignore(?:\[([\w\s,-]*)\])?")
_DIRECTIVE_START = re.compile(rb"^[ \t]*#", re.M)
_BLANKS = b" \t\r\n\f\v"
_BLANK_RUN = re.compile(rb"[ \t\r\n\f\v]*")
_NOT_CODE = b"\0" + _BLANKS
_ZERO_OR_FF = bytes([0x00] + [0xFF] * 255)
_TO_SPACE = bytes(c if c in b"\r\n" else 0x20 for c in range(256))
_CHUNK = 16  # bytes looked at first; doubled while only blanks and comments are found
_CLOSING = {ord("("): ord(")"), ord("["): ord("]"), ord("{"): ord("}")}


class Layout:
    """Per byte of a source: `code[i]` is 1 for ordinary code, `directive[i]` 1 inside a directive,
    `opaque[i]` 1 inside a comment or a literal."""

    def __init__(self, source: bytes):
        self.source = source
        self.code = bytearray(b"\x01") * len(source)
        self.opaque = bytearray(len(source))
        for match in OPAQUE.finditer(source):
            self.code[match.start():match.end()] = bytes(match.end() - match.start())
            self.opaque[match.start():match.end()] = b"\x01" * (match.end() - match.start())
        self.directive = bytearray(len(source))
        for match in _DIRECTIVE_START.finditer(source):
            if self.code[match.end() - 1]:
                self._mark_directive(match.start())

    def _mark_directive(self, start: int) -> None:
        source, size = self.source, len(self.source)
        end = source.find(b"\n", start)
        end = size if end < 0 else end
        # A directive goes on after a backslash-newline, and across a comment's newline.
        while end < size and (source[end - 1:end] == b"\\" or source[end - 2:end] == b"\\\r" or not self.code[end]):
            following = source.find(b"\n", end + 1)
            end = size if following < 0 else following
        self.directive[start:end] = b"\x01" * (end - start)
        self.code[start:end] = bytes(end - start)

    def is_code(self, offset: int) -> bool:
        return bool(self.code[offset])

    def next_code(self, text: bytes | bytearray, offset: int) -> int:
        """The first code byte at or after `offset` that is not blank; -1 at the end."""
        # Most often the first byte that is not blank is code: one match finds it, no chunk is masked.
        offset = _BLANK_RUN.match(text, offset).end()  # type: ignore[union-attr]  # a run of none matches too
        if offset < len(text) and self.code[offset] and text[offset]:
            return offset
        size = _CHUNK
        while offset < len(text):
            end = min(offset + size, len(text))
            chunk = self.code_only(text, offset, end)
            rest = chunk.lstrip(_NOT_CODE)
            if rest:
                return offset + len(chunk) - len(rest)
            offset, size = end, size * 2
        return -1

    def previous_code(self, text: bytes | bytearray, offset: int) -> int:
        """The last code byte before `offset` that is not blank; -1 at the start."""
        size = _CHUNK
        while offset > 0:
            start = max(0, offset - size)
            rest = self.code_only(text, start, offset).rstrip(_NOT_CODE)
            if rest:
                return start + len(rest) - 1
            offset, size = start, size * 2
        return -1

    def code_only(self, text: bytes | bytearray, start: int, end: int) -> bytes:
        """`text[start:end]` with every byte that is not code zeroed: one AND of two big integers
        (a per-byte loop in Python is what made the fixes slow)."""
        if end <= start:
            return b""
        masked = int.from_bytes(text[start:end], "big") & int.from_bytes(self._code_ff[start:end], "big")
        return masked.to_bytes(end - start, "big")

    @functools.cached_property
    def _code_ff(self) -> bytes:
        return bytes(self.code).translate(_ZERO_OR_FF)

    def closing(self, opening: int) -> int:
        """The bracket that closes the one at `opening` (code bytes only), or -1."""
        want = self.source[opening]
        return self._partner(_brackets(self.source, want, _CLOSING[want], opening, forward=True), want)

    def opening(self, closing: int) -> int:
        """The bracket that opens the one at `closing` (code bytes only), or -1."""
        want = self.source[closing]
        start = next(o for o, c in _CLOSING.items() if c == want)
        return self._partner(_brackets(self.source, want, start, closing, forward=False), want)

    def _partner(self, offsets: Iterator[int], want: int) -> int:
        """Go through the brackets at `offsets`, from the first, counting nesting (up at each `want`), to
        the code byte that balances the first."""
        source, code, depth = self.source, self.code, 0
        for offset in offsets:
            if not code[offset]:
                continue
            if source[offset] == want:
                depth += 1
            else:
                depth -= 1
                if depth == 0:
                    return offset
        return -1

    def arguments(self, opening: int, closing: int) -> list[tuple[int, int]]:
        """The top-level comma-separated parts between two brackets, without their blanks."""
        parts, depth, start = [], 0, opening + 1
        for offset in range(opening + 1, closing + 1):
            byte = self.source[offset]
            if not self.code[offset]:
                continue
            if byte in b"([{":
                depth += 1
            elif byte in b")]}" and depth:
                depth -= 1
            elif byte == ord(",") and depth == 0 or offset == closing:
                parts.append(_stripped(self.source, start, offset))
                start = offset + 1
        return [p for p in parts if p[0] < p[1]]


def _brackets(source: bytes, one: int, other: int, start: int, forward: bool) -> Iterator[int]:
    """The offsets of the bytes `one` and `other` from `start` on (backwards: down to 0), in order. bytes.find
    skips to each at C speed: a walk over every byte between was a loop in Python as long as an
    `extern "C" { }` block, which is often the whole file."""
    first, second = bytes([one]), bytes([other])
    if forward:
        a, b = source.find(first, start), source.find(second, start)
        while a >= 0 or b >= 0:
            if b < 0 or 0 <= a < b:
                yield a
                a = source.find(first, a + 1)
            else:
                yield b
                b = source.find(second, b + 1)
    else:
        a, b = source.rfind(first, 0, start + 1), source.rfind(second, 0, start + 1)
        while a >= 0 or b >= 0:
            if a > b:
                yield a
                a = source.rfind(first, 0, a)
            else:
                yield b
                b = source.rfind(second, 0, b)


@functools.lru_cache(maxsize=2)
def layout_of(source: bytes) -> Layout:
    """The layout of `source`, computed once for the fixes and the token matcher of one parse."""
    return Layout(source)


def _stripped(source: bytes, start: int, end: int) -> tuple[int, int]:
    while start < end and source[start] in _BLANKS:
        start += 1
    while end > start and source[end - 1] in _BLANKS:
        end -= 1
    return start, end


_WORD_BYTE = re.compile(rb"\w")


def word_start(source: bytes, offset: int) -> int:
    """Where the word that holds the byte before `offset` starts (`offset` itself outside a word)."""
    while offset > 0 and _WORD_BYTE.match(source, offset - 1):
        offset -= 1
    return offset


def word_end(source: bytes, offset: int) -> int:
    """Where the word that holds the byte at `offset` ends (`offset` itself outside a word)."""
    while offset < len(source) and _WORD_BYTE.match(source, offset):
        offset += 1
    return offset


def blank(out: bytearray, start: int, end: int) -> None:
    """Spaces over `out[start:end]`, line endings kept: offsets, lines and columns stay."""
    out[start:end] = bytes(out[start:end]).translate(_TO_SPACE)
