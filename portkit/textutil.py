"""Small text helpers shared by every stage: a line index, comment blanking."""
from __future__ import annotations

import bisect
import re
from typing import AnyStr, Generic

from portkit.model import Position

# '#' comments of CMake, make, shell, Dockerfiles and Python requirement files.
HASH_COMMENT = re.compile(r"#[^\n]*")
C_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


class LineIndex(Generic[AnyStr]):
    """Line starts of a text (bytes or str), to turn offsets into lines and back."""

    def __init__(self, text: AnyStr):
        self.text = text
        newline = b"\n" if isinstance(text, bytes) else "\n"
        self.starts = [0]
        start = text.find(newline)  # type: ignore[arg-type]
        while start != -1:
            self.starts.append(start + 1)
            start = text.find(newline, start + 1)  # type: ignore[arg-type]

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


def blank(text: str, pattern: re.Pattern[str]) -> str:
    """`text` with each match of `pattern` replaced by spaces (newlines kept), so offsets still hold."""
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)
