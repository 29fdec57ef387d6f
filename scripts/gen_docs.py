#!/usr/bin/env python3
"""Write docs/codes.md and docs/hazards.md from rules/_codes.yaml (tests check they are current)."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from portkit.codes import CODES, GROUPS  # noqa: E402


# The groups docs/hazards.md explains code by code; codes.md explains the others under their table.
HAZARD_GROUPS = tuple(GROUPS)[2:]


def anchor(code: str) -> str:
    """The stable anchor of a code in codes.md and hazards.md (SARIF's helpUri links it)."""
    return f'<a id="{code.lower()}"></a>'


def codes_md() -> str:
    lines = ["# Finding codes", "",
             "Generated from `rules/_codes.yaml` by `scripts/gen_docs.py`. Codes are stable and never reused. "
             "Text output uses the flake8 shape, `path:line:col: CODE message`. Each code has an anchor here "
             "(`codes.md#pk101`): SARIF rules link it.", ""]
    for prefix, group in GROUPS.items():
        codes = [c for c in CODES.values() if c.code.startswith(prefix)]
        lines += [f"## {prefix}xx: {group.title}", ""] + ([group.intro, ""] if group.intro else [])
        lines += ["| code | name | severity | meaning |", "|---|---|---|---|"]
        if prefix in HAZARD_GROUPS:
            lines += [f"| {anchor(c.code)}{c.code} | [{c.name}](hazards.md#{c.code.lower()}) | {c.severity.value} | {c.summary} |"
                      for c in codes]
        else:
            lines += [f"| {anchor(c.code)}{c.code} | {c.name} | {c.severity.value} | {c.summary} |" for c in codes]
            lines += [""] + [f"- **{c.code} {c.name}**: {c.explanation} *Fix:* {c.fix}" for c in codes]
        lines.append("")
    return "\n".join(lines)


# docs/hazards.md ends with hand-written sections (the precision measured on real code): kept as they are.
HAND_WRITTEN = "<!-- Hand-written below this line: scripts/gen_docs.py keeps it as it is. -->"


def _hand_written(path: Path) -> str:
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    return text[text.index(HAND_WRITTEN):] if HAND_WRITTEN in text else HAND_WRITTEN + "\n"


def hazards_md() -> str:
    lines = ["# Hazards and environment findings", "",
             "What renaming cannot fix. Generated from `rules/_codes.yaml` by `scripts/gen_docs.py`; each code has "
             "test cases that must be flagged and twins that must not (`tests/cases/`).", ""]
    for prefix in HAZARD_GROUPS:
        lines += [f"## {prefix}xx: {GROUPS[prefix].title}", ""]
        for c in CODES.values():
            if c.code.startswith(prefix):
                lines += [anchor(c.code), f"### {c.code} {c.name} ({c.severity.value})", "", f"{c.summary[0].upper()}{c.summary[1:]}.", "",
                          c.explanation, "", f"**Fix:** {c.fix}", ""]
    return "\n".join(lines) + "\n" + _hand_written(ROOT / "docs" / "hazards.md")


def main() -> int:
    (ROOT / "docs" / "codes.md").write_text(codes_md(), encoding="utf-8")
    (ROOT / "docs" / "hazards.md").write_text(hazards_md(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
