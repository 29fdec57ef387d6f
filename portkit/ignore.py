"""gitignore patterns: parsed and checked once, matched without regular expressions.

`.gitignore` files arrive with the code portkit scans, so their patterns are
untrusted input. Matching here takes time bounded by pattern length x path
length (the classic wildcard algorithm, no regex backtracking: `*a*a*a*a*b` on a
long name stays fast); a bad pattern (`[z-a]`, a lone `\\`, a bare `!`, an
unknown `[[:class:]]`) raises PatternError with the reason, and nothing prints
warnings of its own. Semantics follow gitignore(5): `!` negates, a trailing `/`
matches directories only, a `/` at the start or in the middle anchors the
pattern, `**` matches any number of directories, and the last match wins.
(git's matcher has one quirk not copied here: after a literal prefix, "a**/x"
also matches "ax", as its "**" then starts the rest of the pattern.)
"""
from __future__ import annotations

import dataclasses
import enum
from typing import Callable, Iterable, Optional, Tuple, Union

_POSIX_CLASSES: dict[str, Callable[[str], bool]] = {
    "alnum": str.isalnum, "alpha": str.isalpha, "blank": lambda c: c in " \t", "cntrl": lambda c: ord(c) < 32 or c == "\x7f",
    "digit": lambda c: "0" <= c <= "9", "graph": lambda c: c.isprintable() and not c.isspace(), "lower": str.islower,
    "print": str.isprintable, "punct": lambda c: c.isprintable() and not c.isalnum() and not c.isspace(),
    "space": str.isspace, "upper": str.isupper, "xdigit": lambda c: c in "0123456789abcdefABCDEF",
}
MAX_PATTERN = 4096  # characters; a longer line is refused rather than matched


class PatternError(ValueError):
    """A pattern that cannot be used; the message says why."""


class Wildcard(enum.Enum):
    STAR = "*"  # any run of characters but "/"
    ANY = "?"  # one character but "/"


@dataclasses.dataclass(frozen=True)
class CharClass:
    """[...]: characters, ranges and POSIX classes; `negated` for [!...] and [^...]."""

    negated: bool
    chars: frozenset[str]
    ranges: tuple[tuple[str, str], ...]
    classes: tuple[str, ...]

    def __contains__(self, char: str) -> bool:
        found = (char in self.chars or any(low <= char <= high for low, high in self.ranges)
                 or any(_POSIX_CLASSES[name](char) for name in self.classes))
        return found != self.negated


Token = Union[str, Wildcard, CharClass]  # a literal character, a wildcard or a class
Segment = Optional[Tuple[Token, ...]]  # the tokens of one path component; None for "**"
DOUBLE_STAR: Segment = None


def _class(text: str, start: int) -> tuple[CharClass, int]:
    """Parse the class that opens at text[start] == "["; (class, index after its "]")."""
    i = start + 1
    negated = i < len(text) and text[i] in "!^"
    i += negated
    chars: set[str] = set()
    ranges: list[tuple[str, str]] = []
    classes: list[str] = []
    first = True
    while i < len(text) and (text[i] != "]" or first):
        first = False
        if text.startswith("[:", i):
            end = text.find(":]", i + 2)
            name = text[i + 2:end] if end != -1 else ""
            if name not in _POSIX_CLASSES:
                raise PatternError(f"unknown character class [:{name}:]" if end != -1 else "unclosed [:")
            classes.append(name)
            i = end + 2
            continue
        char, i = _char(text, i)
        if text.startswith("-", i) and i + 1 < len(text) and text[i + 1] != "]":
            high, i = _char(text, i + 1)
            if high < char:
                raise PatternError(f"reversed range {char}-{high}")
            ranges.append((char, high))
        else:
            chars.add(char)
    if i >= len(text):
        raise PatternError("unclosed [")
    return CharClass(negated, frozenset(chars), tuple(ranges), tuple(classes)), i + 1


def _char(text: str, i: int) -> tuple[str, int]:
    """One (possibly backslash-escaped) character at text[i]."""
    if text[i] == "\\":
        if i + 1 >= len(text):
            raise PatternError("a lone \\ at the end")
        return text[i + 1], i + 2
    return text[i], i + 1


def _segment(text: str) -> Segment:
    if len(text) >= 2 and text.strip("*") == "":  # "**" (or "****") as a whole component
        return DOUBLE_STAR
    tokens: list[Token] = []
    i = 0
    while i < len(text):
        if text[i] == "*":
            if not tokens or tokens[-1] is not Wildcard.STAR:  # "a**b" is "a*b"
                tokens.append(Wildcard.STAR)
            i += 1
        elif text[i] == "?":
            tokens.append(Wildcard.ANY)
            i += 1
        elif text[i] == "[":
            char_class, i = _class(text, i)
            tokens.append(char_class)
        else:
            char, i = _char(text, i)
            tokens.append(char)
    return tuple(tokens)


def _strip_trailing_spaces(line: str) -> str:
    """Trailing spaces go, unless escaped with a backslash."""
    end = len(line)
    while end > 0 and line[end - 1] == " " and not (end > 1 and line[end - 2] == "\\"):
        end -= 1
    return line[:end]


@dataclasses.dataclass(frozen=True)
class Pattern:
    text: str
    negated: bool
    directory_only: bool
    segments: tuple[Segment, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "_test", _path_matcher(self.segments))

    def matches(self, parts: tuple[str, ...], is_dir: bool) -> bool:
        if self.directory_only and not is_dir:
            return False
        return self._test(parts)  # type: ignore[attr-defined]


def _segment_matcher(tokens: tuple[Token, ...]) -> Callable[[str], bool]:
    """A fast test for the common shapes ("name", "*.o", "tmp*", "*"); the general matcher otherwise."""
    literal = all(isinstance(t, str) for t in tokens)
    if literal:
        text = "".join(tokens)  # type: ignore[arg-type]
        return text.__eq__
    rest = tokens[1:]
    if tokens[0] is Wildcard.STAR and all(isinstance(t, str) for t in rest):
        suffix = "".join(rest)  # type: ignore[arg-type]
        return lambda part: part.endswith(suffix)
    return lambda part: _match_segment(tokens, part)


def _path_matcher(segments: tuple[Segment, ...]) -> Callable[[tuple[str, ...]], bool]:
    """The test for a whole path: the last component only for an unanchored one-component
    pattern ("*.o", "build"), component by component without "**", else the general walk."""
    if len(segments) == 2 and segments[0] is DOUBLE_STAR and segments[1] is not DOUBLE_STAR:
        last = _segment_matcher(segments[1])
        return lambda parts: bool(parts) and last(parts[-1])
    if DOUBLE_STAR not in segments:
        tests = [_segment_matcher(s) for s in segments]  # type: ignore[arg-type]
        return lambda parts: len(parts) == len(tests) and all(t(p) for t, p in zip(tests, parts))
    return lambda parts: _match_path(segments, parts)


def parse_pattern(line: str) -> Pattern | None:
    """One gitignore line as a Pattern; None for a blank line or a comment."""
    line = _strip_trailing_spaces(line.rstrip("\n\r"))
    if not line or line.startswith("#"):
        return None
    if len(line) > MAX_PATTERN:
        raise PatternError(f"longer than {MAX_PATTERN} characters")
    negated = line.startswith("!")
    body = line[1:] if negated else line
    directory_only = body.endswith("/") and not body.endswith("\\/")
    body = body[:-1] if directory_only else body  # one slash only, as git: "a//" matches nothing
    if not body:
        raise PatternError("an empty pattern")
    anchored = "/" in body
    parts = (body[1:] if body.startswith("/") else body).split("/")  # a leading "/" only anchors
    if parts == [""]:
        raise PatternError("an empty pattern")
    segments = tuple(_segment(p) for p in parts)
    if not anchored:
        segments = (DOUBLE_STAR,) + segments  # "name" matches at any depth
    return Pattern(line, negated, directory_only, segments)


def _match_path(segments: tuple[Segment, ...], parts: tuple[str, ...]) -> bool:
    """Whether the pattern's components match the path's: a set of reachable positions per
    component, so `**` costs (components x parts), never exponential."""
    reachable = {0}
    last = len(segments) - 1
    for index, segment in enumerate(segments):
        if segment is DOUBLE_STAR:
            # a trailing "/**" needs something inside; elsewhere "**" may match no directory
            low = min(reachable) + (1 if index == last and index > 0 else 0)
            reachable = set(range(low, len(parts) + 1))
        else:
            reachable = {j + 1 for j in reachable if j < len(parts) and _match_segment(segment, parts[j])}
        if not reachable:
            return False
    return len(parts) in reachable


def _one(token: Token, char: str) -> bool:
    if isinstance(token, str):
        return token == char
    if isinstance(token, CharClass):
        return char in token
    return token is Wildcard.ANY


def _match_segment(tokens: tuple[Token, ...], text: str) -> bool:
    """Glob match of one component: on a mismatch, back up only to the last `*` (O(len x tokens))."""
    t = p = 0
    star = -1
    resume = 0
    while t < len(text):
        if p < len(tokens) and tokens[p] is Wildcard.STAR:
            star, resume = p, t
            p += 1
        elif p < len(tokens) and _one(tokens[p], text[t]):
            p += 1
            t += 1
        elif star >= 0:
            resume += 1
            p, t = star + 1, resume
        else:
            return False
    while p < len(tokens) and tokens[p] is Wildcard.STAR:
        p += 1
    return p == len(tokens)


class IgnoreSpec:
    """The patterns of one .gitignore file or one list of excludes."""

    def __init__(self, patterns: Iterable[Pattern]):
        self.patterns = tuple(patterns)
        self.used: set[str] = set()  # the texts of the patterns that decided some path (to tell one that never did)

    @classmethod
    def from_lines(cls, lines: Iterable[str]) -> "IgnoreSpec":
        """Every line must be a valid pattern (PatternError names the first bad one)."""
        patterns = []
        for line in lines:
            try:
                pattern = parse_pattern(line)
            except PatternError as exc:
                raise PatternError(f"{line.rstrip()!r}: {exc}") from None
            if pattern is not None:
                patterns.append(pattern)
        return cls(patterns)

    @classmethod
    def lenient(cls, lines: Iterable[str]) -> tuple["IgnoreSpec", list[str]]:
        """The valid patterns, and a message per bad line (skipped, as git skips what it cannot use)."""
        patterns, problems = [], []
        for number, line in enumerate(lines, 1):
            try:
                pattern = parse_pattern(line)
            except PatternError as exc:
                problems.append(f"line {number}: pattern {line.rstrip()!r} skipped: {exc}")
                continue
            if pattern is not None:
                patterns.append(pattern)
        return cls(patterns), problems

    def _decide(self, parts: tuple[str, ...], is_dir: bool) -> bool | None:
        for pattern in reversed(self.patterns):  # the last match wins
            if pattern.matches(parts, is_dir):
                self.used.add(pattern.text)
                return not pattern.negated
        return None

    def match_file(self, path: str) -> bool:
        """Whether a "/"-separated relative path is ignored ("dir/" for a directory).

        A path inside an ignored directory is ignored, as git never looks inside one.
        """
        is_dir = path.endswith("/")
        parts = tuple(p for p in path.split("/") if p)
        for depth in range(1, len(parts)):
            if self._decide(parts[:depth], True):
                return True
        return bool(self._decide(parts, is_dir))

    def match_entry(self, path: str) -> bool:
        """`match_file` for a path whose directories are known not to be ignored: a walk that never
        entered an ignored directory asks only about the entry itself, once."""
        return bool(self._decide(tuple(p for p in path.split("/") if p), path.endswith("/")))
