"""Rewriting a build file's code (not its comments) by pattern, with a marker comment for what cannot be.

A note made while rewriting is tied to its place by a tag (private-use characters) written into the
text, so that later rewrites that add or remove lines keep it on its line; at the end the tags go
and each tagged line gets `# portkit: CODE what: advice` above its logical line (the first line of a
backslash-continued one), once: converting twice changes nothing.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Callable, Iterator

# A comment: from `#` anywhere in CMake and make; in a shell script only where a word starts (`$#`,
# `${#list[@]}` are no comments).
HASH_COMMENT = re.compile(r"(#[^\n]*)")
SHELL_COMMENT = re.compile(r"((?:(?<=\s)|^)#[^\n]*)", re.M)
MARKER = "# portkit: "
_TAG = re.compile("\ue000([\ue100-\uf8ff]+)\ue001")
_TAG_BASE = 0xE100


@dataclasses.dataclass(frozen=True, order=True)
class BuildNote:
    line: int  # 1-based, in the converted file
    code: str
    message: str


@dataclasses.dataclass(frozen=True)
class BuildConversion:
    text: str
    notes: tuple[BuildNote, ...]


def _tag(index: int) -> str:
    digits = ""
    while True:
        index, digit = divmod(index, 0x1000)
        digits = chr(_TAG_BASE + digit) + digits
        if not index:
            return "\ue000" + digits + "\ue001"


def _untag(digits: str) -> int:
    value = 0
    for char in digits:
        value = value * 0x1000 + ord(char) - _TAG_BASE
    return value


class Rewriter:
    """Applies regex rewrites to the code parts of a file and collects notes, each tagged at its place."""

    def __init__(self, text: str, comment: re.Pattern[str] = HASH_COMMENT):
        self.text = text
        self.comment = comment
        self._notes: list[tuple[str, str]] = []
        self._pending: list[tuple[int, int]] = []  # (offset, note): tags written before the next rewrite

    def note(self, offset: int, code: str, message: str) -> None:
        """A note about what is at `offset` of the current text, which stays."""
        self._pending.append((offset, len(self._notes)))
        self._notes.append((code, _TAG.sub("", message)))

    def removed(self, code: str, message: str) -> str:
        """The replacement for something removed: its note's tag, and the tags of the notes the removed text had."""
        # A message quotes the text it is about, which may hold another note's tag (nccl's `-Xptxas` option swallowed
        # the tag of an MSVC option removed beside it): in the message the tag would be written out in the marker,
        # and read as a note of the next convert's own; the note it stands for stays on the line.
        self._notes.append((code, _TAG.sub("", message)))
        return _tag(len(self._notes) - 1) + "".join(tag.group() for tag in _TAG.finditer(message))

    def kept(self, text: str, code: str, message: str) -> str:
        """The replacement for something that stays as it is but needs a note: `text` and its note's tag."""
        return text + self.removed(code, message)

    def _flush(self) -> None:
        for offset, index in sorted(self._pending, reverse=True):
            self.text = self.text[:offset] + _tag(index) + self.text[offset:]
        self._pending.clear()

    def sub(self, pattern: str | re.Pattern[str], replace: Callable[[re.Match], str], flags: int = 0) -> None:
        """Substitute outside comments."""
        self._flush()
        code = re.compile(pattern, flags)
        pieces = self.comment.split(self.text)  # code, comment, code, comment ..., code
        self.text = "".join(piece if i % 2 else code.sub(replace, piece) for i, piece in enumerate(pieces))

    def find(self, pattern: str, flags: int = 0) -> Iterator[tuple[int, re.Match]]:
        """(offset, match) of `pattern` outside comments; notes made meanwhile are tagged afterwards."""
        self._flush()
        start = 0
        for comment in [*self.comment.finditer(self.text), None]:
            end = comment.start() if comment is not None else len(self.text)
            for match in re.finditer(pattern, self.text[start:end], flags):
                yield start + match.start(), match
            start = comment.end() if comment is not None else end

    def finish(self) -> BuildConversion:
        """The text without tags, with a marker above each noted line, and the notes."""
        self._flush()
        lines = self.text.split("\n")
        noted: dict[int, list[tuple[str, str]]] = {}
        for number, line in enumerate(lines):
            for tag in _TAG.finditer(line):
                noted.setdefault(_logical_start(lines, number), []).append(self._notes[_untag(tag.group(1))])
        lines = [_TAG.sub("", line) for line in lines]
        for number in sorted(noted, reverse=True):
            lines[number:number] = _new_markers(lines, number, noted[number])
        text = "\n".join(lines)
        return BuildConversion(text, _notes_of(text))


def _logical_start(lines: list[str], number: int) -> int:
    while number > 0 and lines[number - 1].rstrip().endswith("\\"):
        number -= 1
    return number


def _new_markers(lines: list[str], number: int, notes: list[tuple[str, str]]) -> list[str]:
    """The marker lines `notes` need above line `number` that are not there already."""
    above = set()
    index = number - 1
    while index >= 0 and lines[index].strip().startswith(MARKER):
        above.add(lines[index].strip())
        index -= 1
    indent = re.match(r"[ ]*", lines[number]).group() if number < len(lines) else ""
    wanted = [f"{MARKER}{code} {' '.join(message.split())}" for code, message in dict.fromkeys(notes)]
    return [indent + marker for marker in wanted if marker not in above]


def _notes_of(text: str) -> tuple[BuildNote, ...]:
    """Every marker of the converted file, as a note on the line it is about."""
    notes = []
    lines = text.split("\n")
    for number, line in enumerate(lines):
        if line.strip().startswith(MARKER):
            target = number + 1
            while target < len(lines) and lines[target].strip().startswith(MARKER):
                target += 1
            code, _, message = line.strip()[len(MARKER):].partition(" ")
            notes.append(BuildNote(target + 1, code, message))
    return tuple(sorted(set(notes)))
