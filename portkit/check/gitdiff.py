"""Which lines a git diff adds: `portkit check --diff REF` looks only at those."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

from portkit.check.baseline import relative_path
from portkit.errors import InputError

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.M)


def added_lines(ref: str, root: Path) -> dict[str, set[int]]:
    """Lines added since `ref` in the working tree, per path relative to the repository root."""
    try:
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=root, capture_output=True, text=True, check=True)
        diff = subprocess.run(["git", "diff", "-U0", "--no-color", "--no-ext-diff", ref, "--"], cwd=root,
                              capture_output=True, text=True, check=True)
    except FileNotFoundError:
        raise InputError("checking a diff needs git on PATH") from None
    except subprocess.CalledProcessError as exc:
        message = (exc.stderr or "").strip().splitlines()
        raise InputError(f"git diff {ref}: git failed: {message[-1] if message else 'unknown error'}") from None
    repo = Path(top.stdout.strip())
    lines: dict[str, set[int]] = {}
    current: str | None = None
    for line in diff.stdout.splitlines():
        if line.startswith("+++ "):
            name = line[4:]
            current = None if name == "/dev/null" else relative_path(str(repo / name[2:]), root)
        elif line.startswith("@@") and current is not None:
            match = _HUNK.match(line)
            if match:
                start, count = int(match.group(1)), int(match.group(2) or "1")
                lines.setdefault(current, set()).update(range(start, start + count))
    return lines
