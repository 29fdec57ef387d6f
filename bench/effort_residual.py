"""bench/effort.py's residual: the lines a human changed beyond what `portkit convert` writes.

The converted tree is diffed against the hand port over the C/C++/CUDA sources present in
both (each translation unit the corpus names with the unit its port builds, else matched by path,
or by path without extension, `kernel.cu` ~ `kernel.hip`). Both sides
are first brought to one spelling of what is no port work, so that only real edits count:

- whitespace and comments (portkit's `portkit:` markers among them), and the helpers portkit
  writes (a guarded block: done work);
- the runtime include, and the order and extension of the project's own includes (a port that
  renames `x.cuh` to `x.h` includes the same file);
- the vendor in the project's own names and messages (`checkCuda` ~ `checkHip`, `cublasStat` ~
  `hipblasStat`): every word but the CUDA names that have a HIP counterpart, so a CUDA name
  convert left alone still differs from the HIP name the hand port wrote;
- the spellings of one launch: `hipLaunchKernelGGL(k, dim3(g), b, 0, 0, a)` ~ `k<<<g, b>>>(a)`
  (the shared-memory size and stream default to 0, `dim3(...)` and `HIP_KERNEL_NAME(...)` are
  wrappers, line breaks inside the launch are whitespace), `HIP_SYMBOL(x)` ~ `x`, and the
  deprecated HIP aliases of one function (`hipMallocHost` ~ `hipHostMalloc`).

A hand file with the bytes of its CUDA original is no port (a port in the same directory). Code is
compared statement by statement (each ends at `;`; braces and line breaks are layout), a preprocessor
line as one unit. A replaced block counts its longer side; an include one side lacks counts one line.
"""
from __future__ import annotations

import collections
import difflib
import re
from pathlib import Path
from typing import Callable

import realworld

_MARKER = re.compile(r"//\s*portkit:[^\n]*|/\*\s*portkit:.*?\*/", re.S)
_HELPER = re.compile(r"^#ifndef (PORTKIT_HELPER_\w+)\n.*?^#endif /\* \1 \*/$", re.S | re.M)
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|\S")
_WORD = re.compile(r"[A-Za-z_]\w*")
_VENDOR = re.compile(r"cuda|cu(?=blas|rand|fft|sparse|solver)", re.I)
_INCLUDE = re.compile(r'#\s*include\s*([<"])([^>"]+)[>"]')
_PROJECT_HEADER = re.compile(r"\.(cuh|h|hh|hpp|hxx|inl|cu|hip)$")
_RUNTIME_HEADERS = {"hip/hip_runtime.h", "hip/hip_runtime_api.h"}
_ALIASES = {"hipMallocHost": "hipHostMalloc", "hipFreeHost": "hipHostFree"}
_ALIAS = re.compile(r"\b(hipMallocHost|hipFreeHost)\b|\bhip(ThreadIdx|BlockIdx|BlockDim|GridDim)_([xyz])\b")
_LAUNCH_MACRO = re.compile(r"\bhipLaunchKernelGGL\s*\(")
_CHEVRONS = re.compile(r"\s*<<<")
_WRAPPER = re.compile(r"^(?:dim3|HIP_KERNEL_NAME|)\s*\(")  # the last: bare parentheses, `(k)`
_SYMBOL = re.compile(r"\bHIP_SYMBOL\s*\(\s*(\w+)\s*\)")
_CLOSING = {"(": ")", "[": "]", "{": "}"}

IsCudaName = Callable[[str], bool]


def sources(tree: Path) -> dict[str, Path]:
    return {p.relative_to(tree).as_posix(): p for p in sorted(tree.rglob("*"))
            if p.is_file() and p.suffix.lower() in realworld.SOURCE_SUFFIXES | {".hip"}}


def matched_files(converted: Path, hand: Path, units: list[tuple[str, str]] = ()) -> list[tuple[Path, Path]]:
    """Files present in both trees: each translation unit with the unit its port built (`units`: the corpus's
    `units` and `hip_units`, position by position), else the same path, else the same path without its
    extension (unique)."""
    mine, theirs = sources(converted), sources(hand)
    paired = [(a, b) for a, b in units if a in mine and b in theirs]
    pairs = [(mine[a], theirs[b]) for a, b in paired]
    mine = {rel: path for rel, path in mine.items() if rel not in {a for a, _ in paired}}
    theirs = {rel: path for rel, path in theirs.items() if rel not in {b for _, b in paired}}
    pairs += [(mine[rel], theirs[rel]) for rel in mine if rel in theirs]
    stems: dict[str, list[str]] = {}
    for rel in theirs:
        if rel not in mine:
            stems.setdefault(rel.rsplit(".", 1)[0], []).append(rel)
    for rel in mine:
        if rel not in theirs and len(stems.get(rel.rsplit(".", 1)[0], [])) == 1:
            pairs.append((mine[rel], theirs[stems[rel.rsplit(".", 1)[0]][0]]))
    return pairs


def _arguments(text: str, start: int) -> tuple[list[str], int]:
    """The comma-separated arguments of the parenthesis opened just before `start`, and the end offset
    after its `)`; nesting counts (), [] and {}, and string literals are skipped."""
    depth, args, begin, i = [], [], start, start
    while i < len(text):
        char = text[i]
        if char in "\"'":
            match = re.compile(rf"{char}(?:\\.|[^{char}\\\n])*{char}").match(text, i)
            i = match.end() if match else i + 1
            continue
        if char in _CLOSING:
            depth.append(_CLOSING[char])
        elif depth and char == depth[-1]:
            depth.pop()
        elif not depth and char in ",)":
            args.append(text[begin:i])
            if char == ")":
                return args, i + 1
            begin = i + 1
        i += 1
    return args, len(text)


def _unwrapped(arg: str) -> str:
    """`dim3(g)`, `HIP_KERNEL_NAME(k<T>)` and `(k)` as `g`, `k<T>` and `k`: wrappers that change nothing
    (old hipify wrote `hipLaunchKernelGGL((k), ...)`)."""
    arg = " ".join(arg.split())
    match = _WRAPPER.match(arg)
    if match is None:
        return arg
    inner, end = _arguments(arg, match.end())
    whole = end == len(arg) and (len(inner) == 1 or arg.startswith("HIP_KERNEL_NAME"))
    return _unwrapped(arg[match.end():-1]) if whole else arg


def _launch(kernel: str, config: list[str], args: list[str]) -> str:
    """One spelling of a launch, on one line: `k<<<g, b, shared, stream>>>(args)`."""
    config = [_unwrapped(c) for c in config] + ["0"] * (4 - len(config))
    args = [" ".join(a.split()) for a in args if a.strip()]
    return f"{_unwrapped(kernel)}<<<{', '.join(config)}>>>({', '.join(args)})"


def launches_spelled_alike(text: str) -> str:
    """Every `hipLaunchKernelGGL(k, g, b, s, t, args)` and `k<<<g, b>>>(args)` as `_launch` writes it."""
    while (found := _LAUNCH_MACRO.search(text)) is not None:
        parts, end = _arguments(text, found.end())
        if len(parts) < 5:  # not a launch (the macro's own definition): leave the rest alone
            break
        text = text[:found.start()] + _launch(parts[0], parts[1:5], parts[5:]) + text[end:]
    pieces, at = [], 0
    for found in _CHEVRONS.finditer(text):
        close = text.find(">>>", found.end())
        paren = text.find("(", close) if close >= 0 else -1
        if found.start() < at or paren < 0 or text[close + 3:paren].strip() or ";" in text[found.end():close]:
            continue
        config, _ = _arguments(text[found.end():close] + ")", 0)
        args, end = _arguments(text, paren + 1)
        pieces += [text[at:found.start()], _launch("", config, args)]
        at = end
    return "".join(pieces) + text[at:]


def _project_word(word: str, is_cuda_name: IsCudaName) -> str:
    """A word with the vendor in the project's own names spelled as HIP; a CUDA name as it is."""
    if word.startswith(("'", '"')) or _WORD.fullmatch(word) and not is_cuda_name(word):
        return _VENDOR.sub("hip", word)
    return word


def _alias(found: re.Match) -> str:
    """The current spelling of a deprecated HIP alias: `hipThreadIdx_x` -> `threadIdx.x`."""
    if found.group(1):
        return _ALIASES[found.group(1)]
    return f"{found.group(2)[0].lower()}{found.group(2)[1:]}.{found.group(3)}"


def normalised(path: Path, is_cuda_name: IsCudaName) -> tuple[list[str], collections.Counter]:
    """The lines that count, each as its tokens in lower case; and the includes, by header."""
    text = _HELPER.sub("", _MARKER.sub("", path.read_bytes().decode("utf-8", "replace")))
    text = launches_spelled_alike(_SYMBOL.sub(r"\1", _ALIAS.sub(_alias, _COMMENT.sub("", text))))
    lines, includes, statement, directive = [], collections.Counter(), [], False
    for raw in text.splitlines():
        include = _INCLUDE.match(raw.strip())
        if include:
            bracket, header = include.groups()
            if header not in _RUNTIME_HEADERS:
                includes[_VENDOR.sub("hip", _PROJECT_HEADER.sub("", header)).lower() if bracket == '"' else header] += 1
            continue
        words = [_project_word(word, is_cuda_name) for word in _TOKEN.findall(raw)]
        directive = directive or raw.lstrip().startswith("#")
        if directive:  # a preprocessor line (and its continuations) is a unit of its own
            lines += _statements(statement) + ([" ".join(words).lower()] if words else [])
            statement, directive = [], raw.rstrip().endswith("\\")
        else:
            statement += words
    return lines + _statements(statement), includes


def _statements(words: list[str]) -> list[str]:
    """Code as statements, each ending at `;`, without its braces. Where a statement breaks its lines, and
    whether one statement is braced, is layout, not port work: `if (x) {\n  y;\n}` is `if (x) y;`."""
    units, current = [], []
    for word in words:
        if word not in ("{", "}"):
            current.append(word)
        if word == ";":
            units.append(current)
            current = []
    return [" ".join(unit).lower() for unit in units + [current] if unit]


def changed_lines(a: list[str], b: list[str]) -> int:
    """A replaced block counts its longer side."""
    opcodes = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    return sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in opcodes if tag != "equal")


def file_residual(converted: Path, hand: Path, is_cuda_name: IsCudaName) -> int:
    (mine, my_includes), (theirs, their_includes) = normalised(converted, is_cuda_name), normalised(hand, is_cuda_name)
    return changed_lines(mine, theirs) + max(sum((my_includes - their_includes).values()),
                                             sum((their_includes - my_includes).values()))


def file_pairs(converted: Path, hand: Path, original: Path, units: list[tuple[str, str]] = ()) -> list[tuple[Path, Path]]:
    """What to diff: two trees' files present in both, or two files (a file pair). Not a hand file with the
    bytes of the CUDA file it is matched with (`original`: the CUDA program's tree, or its file): that is
    the CUDA original itself (a port in the same directory, strided-access), or a copy the port left as it was."""
    if converted.is_file() and hand.is_file():
        pairs = [(converted, hand)]
    else:
        pairs = matched_files(converted, hand, units) if converted.is_dir() and hand.is_dir() else []
    return [(mine, theirs) for mine, theirs in pairs if not _same_bytes(theirs, _original(mine, converted, original))]


def _original(mine: Path, converted: Path, original: Path) -> Path:
    return original if mine == converted else original / mine.relative_to(converted)


def _same_bytes(a: Path, b: Path) -> bool:
    return b.is_file() and a.stat().st_size == b.stat().st_size and a.read_bytes() == b.read_bytes()


def residual(converted: Path, hand: Path, original: Path, is_cuda_name: IsCudaName,
             units: list[tuple[str, str]] = ()) -> tuple[int, int]:
    """The lines changed beyond convert's output, over the files present in both; and how many files."""
    pairs = file_pairs(converted, hand, original, units)
    return sum(file_residual(a, b, is_cuda_name) for a, b in pairs), len(pairs)
