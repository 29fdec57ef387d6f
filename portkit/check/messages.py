"""What `portkit check` says about a blocked finding: why it blocks, its fix, and how to accept it."""
from __future__ import annotations

from typing import Iterable

from portkit.check.baseline import Fingerprinted, Verdict
from portkit.model import Finding

SUPPRESSION = "// portkit: ignore[{codes}]"


def block_line(finding: Finding, blocking: Iterable[str]) -> str:
    """`path:line:col: CODE message (fix)`; a finding whose status does not block says why it does."""
    why = "" if finding.status is None or finding.status in blocking else "; does not build for AMD as written"
    advice = f" ({finding.advice})" if finding.advice else ""
    return f"{finding.path}:{finding.position.line}:{finding.position.column}: {finding.code} {finding.message}" \
           f"{why}{advice}"


def twins_note(item: Fingerprinted, verdict: Verdict) -> str:
    """For a new finding whose line the baseline holds fewer times than the file now does: which identical lines
    share its fingerprint. The baseline counts them; it cannot tell which one the change added."""
    twins = sorted({other.finding.position.line for other in verdict.baselined if other.fingerprint == item.fingerprint})
    if not twins:
        return ""
    lines = ", ".join(map(str, twins))
    return (f" [one more than the baseline holds of this line, which is also at line{'s' if len(twins) > 1 else ''} "
            f"{lines}: any of them may be the added one; 'portkit check --diff REF' names it]")


def how_to_accept(blocked: Iterable[Fingerprinted]) -> str:
    """The two ways to let a reviewed finding through, spelled so they can be copied."""
    codes = ", ".join(sorted({item.finding.code for item in blocked}))
    return (f"portkit check: fix each line above as its parentheses say, or accept a reviewed one with "
            f"'{SUPPRESSION.format(codes=codes)}' on its line or the line before, or record every "
            f"current finding in the baseline with 'portkit baseline' and commit the baseline file")
