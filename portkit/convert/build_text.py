"""Rewriting a build file's code (not its comments) by pattern, with a marker comment for what cannot be.

A note made while rewriting is tied to its place by a tag (private-use characters) written into the
text, so that later rewrites that add or remove lines keep it on its line; at the end the tags go
and each tagged line gets `# portkit: CODE what: advice` above its logical line (the first line of a
backslash-continued one), once: converting twice changes nothing.
"""
from __future__ import annotations

import dataclasses
import difflib
import re
from typing import Callable, Iterable, Iterator

# A comment: from `#` anywhere in CMake and make (a shell script's: textutil.SHELL_COMMENT).
HASH_COMMENT = re.compile(r"(#[^\n]*)")
MARKER = "# portkit: "
_TAG = re.compile("\ue000([\ue100-\uf8ff]+)\ue001")
_TAG_BASE = 0xE100


@dataclasses.dataclass(frozen=True, order=True)
class BuildNote:
    line: int  # 1-based, in the converted file
    code: str
    message: str
    input_line: int = 0  # 1-based, in the original file (as scan and source markers count): the line it became


@dataclasses.dataclass(frozen=True)
class BuildConversion:
    text: str
    notes: tuple[BuildNote, ...]
    edits: int = 0  # the lines of `text` the conversion rewrote or added, its markers aside


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


def untagged(text: str) -> str:
    """`text` of the current text of a rewrite without the tags of its notes."""
    return _TAG.sub("", text)


class Rewriter:
    """Applies regex rewrites to the code parts of a file and collects notes, each tagged at its place."""

    def __init__(self, text: str, comment: re.Pattern[str] = HASH_COMMENT):
        self.original = text
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

    def insert_lines(self, offset: int, lines: tuple[str, ...]) -> None:
        """`lines` added at `offset` of the current text, the start of a line."""
        self._flush()
        self.text = self.text[:offset] + "".join(f"{line}\n" for line in lines) + self.text[offset:]

    def insert(self, where: Callable[[str], Iterable[tuple[int, str]]]) -> None:
        """Texts added where `where` says, as (offset, text) pairs in the current text it is given."""
        self._flush()
        for offset, text in sorted(where(self.text), key=lambda pair: pair[0], reverse=True):
            self.text = self.text[:offset] + text + self.text[offset:]

    def replace(self, where: Callable[[str], Iterable[tuple[int, int, str]]]) -> None:
        """Texts put in place of the (start, end) spans `where` says, in the current text it is given."""
        self._flush()
        for start, end, text in sorted(where(self.text), key=lambda edit: edit[0], reverse=True):
            self.text = self.text[:start] + text + self.text[end:]

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

    def sub_written(self, pattern: str | re.Pattern[str], replace: Callable[[re.Match], str], flags: int = 0) -> None:
        """Substitute outside comments, where a match touches a line this conversion wrote or changed: the lines
        the project wrote itself, left as they were, stay."""
        self._flush()
        code = re.compile(pattern, flags)
        written = self._written_ranges()

        def only_written(match: re.Match, start: int) -> str:
            begin, end = start + match.start(), start + match.end()
            return replace(match) if any(b <= end and begin < e for b, e in written) else match.group()

        pieces, start = [], 0
        for i, piece in enumerate(self.comment.split(self.text)):  # code, comment, code, comment ..., code
            pieces.append(piece if i % 2 else code.sub(lambda m, at=start: only_written(m, at), piece))
            start += len(piece)
        self.text = "".join(pieces)

    def _written_ranges(self) -> list[tuple[int, int]]:
        """The (start, end) offsets in the current text of the lines that are not the original's, unchanged."""
        lines = self.text.split("\n")
        kept = _unchanged_lines(self.original.split("\n"), [_TAG.sub("", line) for line in lines])
        ranges, offset = [], 0
        for number, line in enumerate(lines):
            if number not in kept:
                ranges.append((offset, offset + len(line)))
            offset += len(line) + 1
        return ranges

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
        origins, written = _input_lines(self.original, lines)  # before the markers, which match no line of the original
        for number in sorted(noted, reverse=True):
            markers = _new_markers(lines, number, noted[number])
            lines[number:number] = markers
            origins[number:number] = [0] * len(markers)
        return BuildConversion("\n".join(lines), _notes_of(lines, origins), written)


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


def _alike_at_ends(before: list[str], lines: list[str]) -> tuple[int, int]:
    """How many lines the two texts share at their start, and then at their end."""
    head = 0
    while head < min(len(before), len(lines)) and before[head] == lines[head]:
        head += 1
    tail = 0
    while tail < min(len(before), len(lines)) - head and before[-1 - tail] == lines[-1 - tail]:
        tail += 1
    return head, tail


def _unchanged_lines(before: list[str], lines: list[str]) -> set[int]:
    """The numbers (0-based) of `lines` that are lines of `before` left as they were."""
    head, tail = _alike_at_ends(before, lines)
    kept = set(range(head)) | set(range(len(lines) - tail, len(lines)))
    # Past the lines alike at both ends (most of a file), a diff of the few between.
    matcher = difflib.SequenceMatcher(None, before[head:len(before) - tail], lines[head:len(lines) - tail], autojunk=False)
    kept.update(head + j + k for op, _, _, j, end in matcher.get_opcodes() if op == "equal" for k in range(end - j))
    return kept


def _input_lines(original: str, lines: list[str]) -> tuple[list[int], int]:
    """For each of the rewritten `lines`, the 1-based line of the original it came from: a rewritten one the line it
    replaced (the last, where a rewrite left fewer), an added one the original line after it; and how many of `lines`
    are not lines of the original left as they were (rewritten or added)."""
    before = original.split("\n")
    # Most rewrites keep the number of lines (nvcc's options, in a Makefile of 5,000 lines): line for line, without
    # diffing (difflib: 1.6 -> 5.1 s); past the lines alike at both ends, CMake's added lines are few.
    if len(before) == len(lines):
        return list(range(1, len(lines) + 1)), sum(old != new for old, new in zip(before, lines))
    head, tail = _alike_at_ends(before, lines)
    numbers = list(range(1, head + 1)) + [0] * (len(lines) - head - tail)
    matcher = difflib.SequenceMatcher(None, before[head:len(before) - tail], lines[head:len(lines) - tail], autojunk=False)
    written = 0
    for operation, start, end, out_start, out_end in matcher.get_opcodes():
        written += (out_end - out_start) * (operation != "equal")
        if operation == "equal":
            pairs = [start + k for k in range(end - start)]
        else:
            pairs = _paired(before[head + start:head + end], lines[head + out_start:head + out_end], start)
        for out, line in zip(range(out_start, out_end), pairs):
            numbers[head + out] = head + min(line, len(before) - head - 1) + 1
    return numbers + list(range(len(before) - tail + 1, len(before) + 1)), written


# Past this many pairs of lines a rewritten stretch is paired in order, without comparing its lines.
_PAIRED_AT_MOST = 4000


def _paired(old: list[str], new: list[str], first: int) -> list[int]:
    """For each of the `new` lines that replaced the `old` ones (numbered from `first`, 0-based), the old line it
    rewrote, or, a line added (set_source_files_properties after add_library, in a stretch where the next line was
    rewritten too), the old line after it: the alignment of the two in order that pairs the most alike lines, so that
    an added line does not take the place of the line it precedes."""
    if len(old) * len(new) > _PAIRED_AT_MOST:
        return [first + min(k, max(len(old) - 1, 0)) for k in range(len(new))]
    # best[i][j]: the most likeness pairing old[:i] with new[:j] in order, each line paired once or not at all.
    best = [[0.0] * (len(new) + 1) for _ in range(len(old) + 1)]
    for i, old_line in enumerate(old, 1):
        for j, new_line in enumerate(new, 1):
            alike = difflib.SequenceMatcher(None, old_line, new_line, autojunk=False).ratio()
            best[i][j] = max(best[i - 1][j], best[i][j - 1], best[i - 1][j - 1] + alike)
    paired: list[int | None] = [None] * len(new)
    i, j = len(old), len(new)
    while i and j:
        if best[i][j] == best[i - 1][j]:
            i -= 1
        elif best[i][j] == best[i][j - 1]:
            j -= 1
        else:
            i, j = i - 1, j - 1
            paired[j] = first + i
    following = first + len(old)  # an added line at the end of the stretch: the line after it
    for k in range(len(new) - 1, -1, -1):
        if paired[k] is None:
            paired[k] = min(following, first + max(len(old) - 1, 0)) if k == len(new) - 1 else following
        following = paired[k]
    return paired


def _notes_of(lines: list[str], origins: list[int]) -> tuple[BuildNote, ...]:
    """Every marker of the converted file (`lines`), as a note on the line it is about (`origins`: each line's in the
    original)."""
    notes = []
    for number, line in enumerate(lines):
        if line.strip().startswith(MARKER):
            target = number + 1
            while target < len(lines) and lines[target].strip().startswith(MARKER):
                target += 1
            code, _, message = line.strip()[len(MARKER):].partition(" ")
            notes.append(BuildNote(target + 1, code, message, origins[min(target, len(lines) - 1)]))
    return tuple(sorted(set(notes)))
