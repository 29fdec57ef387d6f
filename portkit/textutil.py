"""Small text helpers shared by every stage: a line index, comment blanking, printable text."""
from __future__ import annotations

import bisect
import collections
import itertools
import operator
import os
import re
from typing import AnyStr, Generic, Iterable, Iterator, Sequence

from portkit.model import Position

# '#' comments of CMake, make, shell, Dockerfiles and Python requirement files.
HASH_COMMENT = re.compile(r"#[^\n]*")
# A shell script's comments: from `#` only where a word starts (`$#`, `${#list[@]}` are no comments). Group 1 (re.split
# keeps it).
SHELL_COMMENT = re.compile(r"((?:(?<=\s)|^)#[^\n]*)", re.M)
# What configure.ac holds that is no build code: '#' and m4's `dnl` comments, and an option's help text, which
# configure --help prints (`AC_ARG_WITH([cuda], [  --with-cuda=PATH  prefix [default=/usr/local/cuda]])`,
# `AS_HELP_STRING([--with-cuda], [...])`): one bracket level inside. Group 1 (re.split keeps it).
AUTOCONF_COMMENT = re.compile(r"((?:(?<=\s)|^)#[^\n]*|(?<![\w-])dnl\b[^\n]*|AS_HELP_STRING\([^()]*\)"
                              r"|\[[ \t]*--[\w-]+[^\[\]]*(?:\[[^\[\]]*\][^\[\]]*)*\])", re.M)
C_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
BOM = b"\xef\xbb\xbf"  # UTF-8's byte-order mark: it stays a file's first bytes
PIPE_WIDTH = 100  # columns of a text output that is not a terminal (a valid COLUMNS overrides)


class LineIndex(Generic[AnyStr]):
    """Line starts of a text (bytes or str), to turn offsets into lines and back."""

    def __init__(self, text: AnyStr):
        self.text = text
        newline = b"\n" if isinstance(text, bytes) else "\n"
        # Each line starts one past the previous line's end: summed at C speed (a find() per line in Python was
        # 0.7% of a cold scan of the 1M-line scale tree, for the whole files whose #defines or errors it places).
        lengths = map(operator.add, map(len, text.split(newline)), itertools.repeat(1))  # type: ignore[arg-type]
        self.starts = list(itertools.accumulate(lengths, initial=0))[:-1]

    def __len__(self) -> int:
        return len(self.starts)

    def line_of(self, offset: int) -> int:
        """The 0-based line holding `offset`."""
        return bisect.bisect_right(self.starts, offset) - 1

    def position(self, offset: int) -> Position:
        """1-based line and column (in the text's units: bytes or characters)."""
        line = self.line_of(offset)
        return Position(line + 1, offset - self.starts[line] + 1)

    def line(self, index: int) -> AnyStr:
        """Line `index` (0-based) with its line ending."""
        end = self.starts[index + 1] if index + 1 < len(self.starts) else len(self.text)
        return self.text[self.starts[index]:end]


def within(offset: int, ranges: Iterable[tuple[int, int]]) -> bool:
    """Whether `offset` lies in one of the half-open byte `ranges`."""
    return any(start <= offset < end for start, end in ranges)


def blank(text: str, pattern: re.Pattern[str]) -> str:
    """`text` with each match of `pattern` replaced by spaces (newlines kept), so offsets still hold."""
    return pattern.sub(_spaces, text)


_NOT_NEWLINE = re.compile(r"[^\n]")
_TEMPLATE_ARGUMENTS = re.compile(r"<[^<>]*>")


def without_template_arguments(name: str) -> str:
    """`a::b<c<d>>::e` -> `a::b::e`."""
    while "<" in name:
        stripped = _TEMPLATE_ARGUMENTS.sub("", name)
        if stripped == name:
            break
        name = stripped
    return name


def _spaces(match: re.Match[str]) -> str:
    """A match as spaces, its newlines kept. Most matches (a `#` comment) are one line: spaces without a regex
    (a substitution per comment was 0.6% of a cold scan of the 1M-line scale tree, over its build files)."""
    text = match.group()
    return _NOT_NEWLINE.sub(" ", text) if "\n" in text else " " * len(text)


# C0 and C1 control characters, DEL, bidirectional overrides (they reorder what a reader
# sees), and the lone surrogates that stand for undecodable bytes in file names
# (os.fsdecode): none may reach a terminal, a report or a log raw.
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: object) -> str:
    """`text` safe to show anywhere: control characters and undecodable file-name bytes
    become backslash escapes (ESC -> \\x1b, a newline -> \\n, byte 0xff -> \\xff), so one
    line stays one line and nothing drives the terminal."""
    return _UNPRINTABLE.sub(_escape, str(text))


def counted(count: int, noun: str, plural: str = "") -> str:
    """'1 file', '0 files', '2 files': a count with its noun in the number it takes."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def pipe_width() -> int:
    """Columns for text written to a pipe or file: COLUMNS when it is a positive number, else PIPE_WIDTH."""
    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isdigit() and int(columns) > 0 else PIPE_WIDTH


# Where a summary line may wrap: after the separator of two of its parts ('a 1, b 2; c 3'), else between words.
_PART_BREAK = re.compile(r"[;.,] ")
_WORD_BREAK = re.compile(r" (?=\S)")
# A number, alone or in brackets ('94%', '(8.6', '5.7.0,'): it stays on the line of the word before it and after it.
_NUMBER = re.compile(r"\(?\d[\d.%]*\)?[,;.:]?")


def wrap_points(text: str, width: int, indent: int = 2) -> list[int]:
    """Where to break `text` (offsets: each continuation line starts there, indented by `indent`) so that no line is
    wider than `width`: after a part's separator where one ends the second half of the line (after '; ' or '. '
    first), else between words; never inside a word, nor between a number and its word. A word wider than a line
    stays whole on its own line."""
    parts = {m.end() for m in _PART_BREAK.finditer(text)}
    points = sorted(parts | {m.end() for m in _WORD_BREAK.finditer(text)
                             if m.end() in parts or not _beside_a_number(text, m.start())})
    cuts: list[int] = []
    start, room = 0, width
    while len(text[start:].rstrip()) > room:
        fitting = [p for p in points if start < p and len(text[start:p].rstrip()) <= room]
        if not fitting:
            later = [p for p in points if p > start]
            if not later:
                break
            fitting = later[:1]
        late = [p for p in fitting if p in parts and len(text[start:p]) > room // 2]
        strong = [p for p in late if text[p - 2] in ";."]
        start = (strong or late or fitting)[-1]
        cuts.append(start)
        room = width - indent
    return cuts


def _beside_a_number(text: str, space: int) -> bool:
    before, after = text[:space].rsplit(" ", 1)[-1], text[space + 1:].split(" ", 1)[0]
    return bool(_NUMBER.fullmatch(before) or _NUMBER.fullmatch(after))


def cut(text: str, width: int) -> str:
    """Cut to `width` with an ellipsis: at the end, or at the start for a path (its end tells files apart)."""
    if len(text) <= width:
        return text
    if "/" in text and " " not in text:
        return "…" + text[len(text) - width + 1:]
    return text[:max(width - 1, 0)] + "…"


# Where a name's last part starts: a scope or path component first, then a word within it.
_PART_STARTS = (re.compile(r"(?=::)|(?<=/)"), re.compile(r"(?<=[._])"))


def _middle(text: str, width: int, tail: int) -> str:
    return text[:width - 1 - tail] + "…" + text[len(text) - tail:]


def cut_column(texts: Sequence[str], width: int) -> list[str]:
    """Each text `cut` to `width`; where different names or paths would then look the same (two long names with
    one prefix), those are cut in the middle instead, keeping the end that tells them apart, from the start of its
    last part where that suffices ('cooperative_gro…::meta_group_size'); the shortest distinct end otherwise."""
    shown = [cut(text, width) for text in texts]
    groups: dict[str, set[str]] = collections.defaultdict(set)
    for text, short in zip(texts, shown):
        groups[short].add(text)
    taken = set(shown)
    for short, originals in groups.items():
        if len(originals) < 2 or width < 4 or any(" " in text for text in originals):
            continue  # prose (advice) reads best cut at its end; only names and paths are told apart
        members = sorted(originals)
        for tail in _tails(members, width):
            cuts = {text: _middle(text, width, tail) if len(text) > width else text for text in members}
            if len(set(cuts.values())) == len(members) and not (set(cuts.values()) - {short}) & taken:
                shown = [cuts.get(text, value) if value == short else value for text, value in zip(texts, shown)]
                taken |= set(cuts.values())
                break
    return shown


def _tails(members: list[str], width: int) -> list[int]:
    """Lengths of the end to keep, the most readable first: the longest of the members' last components (from
    its '::', or after its '/'), then of their last words, then every length, longest first."""
    ends = []
    for pattern in _PART_STARTS:
        lengths = [len(text) - starts[-1] for text in members if (starts := [m.start() for m in pattern.finditer(text)])]
        ends += [max(lengths)] if lengths else []
    return [tail for tail in ends if 0 < tail <= width - 4] + list(range(width - 4, 0, -1))


def line_matches(source: bytes, word: bytes, pattern: re.Pattern[bytes]) -> Iterator[re.Match[bytes]]:
    """`pattern` matched from the start of each line where `word` is, matches not overlapping (a multi-line
    regex would try every line of the file): the #defines or #includes of a file."""
    end = 0
    found = source.find(word)
    while found >= 0:
        line_start = source.rfind(b"\n", 0, found) + 1
        match = pattern.match(source, line_start) if line_start >= end else None
        if match is not None:
            yield match
            end = match.end()
        found = source.find(word, max(found + len(word), end))
