"""What `portkit check` says about a blocked finding: why it blocks, its fix, and how to accept it."""
from __future__ import annotations

from typing import Iterable

from portkit.check.baseline import Fingerprinted
from portkit.model import Finding

SUPPRESSION = "// portkit: ignore[{codes}]"


def block_line(finding: Finding, blocking: Iterable[str]) -> str:
    """`path:line:col: CODE message (fix)`; a finding whose status does not block says why it does."""
    why = "" if finding.status is None or finding.status in blocking else "; does not build for AMD as written"
    advice = f" ({finding.advice})" if finding.advice else ""
    return f"{finding.path}:{finding.position.line}:{finding.position.column}: {finding.code} {finding.message}" \
           f"{why}{advice}"


def how_to_accept(blocked: Iterable[Fingerprinted]) -> str:
    """The two ways to let a reviewed finding through, spelled so they can be copied."""
    codes = ", ".join(sorted({item.finding.code for item in blocked}))
    return (f"portkit check: fix each line above as its parentheses say, or accept a reviewed one with "
            f"'{SUPPRESSION.format(codes=codes)}' on its line or the line before, or record every "
            f"current finding in the baseline with 'portkit baseline' and commit the baseline file")
