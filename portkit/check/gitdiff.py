"""Which lines a git diff adds: `portkit check --diff REF` looks only at those.

The ref comes from the user (or a CI variable), so it is passed after
`--end-of-options`: `--diff=--output=FILE` is a ref git cannot find, never an
option that makes git write a file. The output is read as bytes with explicit
prefixes, whatever the user's git configuration says (diff.noprefix,
diff.mnemonicPrefix, diff.relative, color, external diff tools), and file names
that git quotes (non-ASCII, quotes, control characters) are unquoted.
"""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from portkit.check.baseline import relative_path
from portkit.errors import InputError
from portkit.textutil import printable

_HUNK = re.compile(rb"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
_ESCAPES = {ord("a"): 7, ord("b"): 8, ord("t"): 9, ord("n"): 10, ord("v"): 11, ord("f"): 12, ord("r"): 13,
            ord('"'): ord('"'), ord("\\"): ord("\\")}
_DIFF = ["diff", "-U0", "--no-color", "--no-ext-diff", "--no-textconv", "--no-relative",
         "--src-prefix=a/", "--dst-prefix=b/"]


def unquote(name: bytes) -> bytes:
    """A path as git prints it in a diff header: C-quoted ("a\\303\\251.cu") when it has to be."""
    if not (name.startswith(b'"') and name.endswith(b'"') and len(name) >= 2):
        return name
    out = bytearray()
    body, i = name[1:-1], 0
    while i < len(body):
        if body[i] == ord("\\") and i + 1 < len(body):
            if body[i + 1:i + 4].isdigit() and len(body[i + 1:i + 4]) == 3:
                out.append(int(body[i + 1:i + 4], 8) & 0xFF)
                i += 4
                continue
            out.append(_ESCAPES.get(body[i + 1], body[i + 1]))
            i += 2
        else:
            out.append(body[i])
            i += 1
    return bytes(out)


def _git(arguments: list[str], root: Path, ref: str) -> bytes:
    try:
        done = subprocess.run(["git", *arguments], cwd=root, capture_output=True, check=True)
    except FileNotFoundError:
        raise InputError("checking a diff needs git on PATH") from None
    except subprocess.CalledProcessError as exc:
        message = exc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise InputError(f"git diff {printable(ref)}: git failed: "
                         f"{printable(message[-1]) if message else 'unknown error'}") from None
    return done.stdout


def is_revision(ref: str, root: Path) -> bool:
    """Whether git at `root` resolves `ref` to a commit (a path named on the command line does not)."""
    try:
        return subprocess.run(["git", "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"],
                              cwd=root, capture_output=True, check=False).returncode == 0
    except FileNotFoundError:
        return False


def added_lines(ref: str, root: Path) -> dict[str, set[int]]:
    """Lines added since `ref` in the working tree, per path relative to the project root; every path
    the diff touches is a key, one with lines only removed (or the file deleted) with no lines."""
    top = _git(["rev-parse", "--show-toplevel"], root, ref).rstrip(b"\n")
    diff = _git([*_DIFF, "--end-of-options", ref, "--"], root, ref)
    repo = Path(os.fsdecode(top))
    lines: dict[str, set[int]] = {}
    current: str | None = None
    header = False  # between "diff --git" and the first hunk: an added line "++ x" is not a header
    for line in diff.split(b"\n"):
        if line.startswith(b"diff --git "):
            header, current = True, None
        elif header and line[:4] in (b"--- ", b"+++ "):
            name = unquote(line[4:].rstrip(b"\t"))
            if name != b"/dev/null":  # the new name, else the deleted file's old one
                current = relative_path(str(repo / os.fsdecode(name[2:])), root)
        elif line.startswith(b"@@"):
            header = False
            match = _HUNK.match(line)
            if match and current is not None:
                start, count = int(match.group(1)), int(match.group(2) or b"1")
                lines.setdefault(current, set()).update(range(start, start + count))
    return lines
