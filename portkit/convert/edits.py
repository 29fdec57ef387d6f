"""Byte edits: what each finding's fix writes, and one pure function that applies edits.

Analysis says *what* a use becomes (a finding's `fix`); this module turns that
into bytes. Edits are applied from the back so earlier offsets stay valid; bytes
outside the edits are kept exactly.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Iterable

from portkit.model import Edit, Finding, Fix, FixAction, Span
from portkit.rules import RuleDatabase


@dataclasses.dataclass(frozen=True)
class Applied:
    data: bytes
    skipped: tuple[Edit, ...] = ()  # edits that overlapped others without nesting in them


@dataclasses.dataclass(frozen=True)
class EditOptions:
    launch_syntax: str = "cuda"  # "hip": k<<<...>>>(...) becomes hipLaunchKernelGGL(k, ...)
    hazard_markers: bool = True  # with the other markers, one at each hazard's line (docs/hazards.md)


def _rename(fix: Fix) -> tuple[Edit, ...]:
    edits = [] if fix.arguments_only else [Edit(fix.span, fix.text.encode())]
    if fix.drop_args:
        if len(fix.parts) < fix.drop_args:
            return ()  # cannot drop arguments we cannot see (a macro body): leave it to the marker
        end = fix.parts[fix.drop_args].start if fix.drop_args < len(fix.parts) else fix.parts[-1].end
        edits.append(Edit(Span(fix.parts[0].start, end), b""))
    for index, template in fix.args:
        if index < len(fix.parts):
            edits.extend(_rewrite_argument(fix.parts, index, template))
    return tuple(edits)


def _rewrite_argument(arguments: tuple[Span, ...], index: int, template: str) -> tuple[Edit, ...]:
    """Wrap an argument ("cast<T>({})"), replace it (a template without "{}"), or drop it with the comma after it
    (before it, for the last one: an empty template)."""
    argument = arguments[index]
    if not template and len(arguments) > 1:
        following = index + 1 < len(arguments)
        return (Edit(Span(argument.start if following else arguments[index - 1].end,
                          arguments[index + 1].start if following else argument.end), b""),)
    if "{}" not in template:
        return (Edit(argument, template.encode()),)
    before, after = template.split("{}", 1)
    return Edit(Span(argument.start, argument.start), before.encode()), Edit(Span(argument.end, argument.end), after.encode())


_INCLUDE_LINE = re.compile(r"^#include <([^>]+)>", re.M)


def requires_met(findings: list[Finding], rules: RuleDatabase) -> list[Finding]:
    """`findings`, with an include whose HIP header needs another first (hip_cooperative_groups.h on HIP 5.x needs
    hip_runtime.h) marked "requires-included" where the file's own preamble inserts that header before it: one
    #include of it, not two."""
    inserted = [(f.fix.span.start, header) for f in findings if f.fix is not None and f.fix.action is FixAction.INSERT
                for header in _INCLUDE_LINE.findall(f.fix.text)]
    if not inserted:
        return findings
    met = []
    for finding in findings:
        fix = finding.fix
        rule = rules.header(finding.name) if fix is not None and fix.action is FixAction.INCLUDE else None
        if rule is not None and rule.hip_requires and "requires-included" not in fix.flags and any(
                header == rule.hip_requires and start <= fix.span.start for start, header in inserted):
            finding = dataclasses.replace(finding, fix=dataclasses.replace(fix, flags=(*fix.flags, "requires-included")))
        met.append(finding)
    return met


def _include(fix: Fix, name: str, rules: RuleDatabase) -> tuple[Edit, ...]:
    """The new include target; a header HIP needs first gets its own #include before it."""
    rule = rules.header(name)
    requires = rule.hip_requires if rule is not None and "requires-included" not in fix.flags else ""
    text = f"<{requires}>\n#include {fix.text}" if requires else fix.text
    return (Edit(fix.span, text.encode()),)


def _chevrons(fix: Fix) -> tuple[Edit, ...]:
    """`<< <` and `>> >`, which nvcc accepts and clang does not, written as `<<<` and `>>>`."""
    if "spaced-chevrons" not in fix.flags or len(fix.parts) < 4:
        return ()
    return Edit(fix.parts[1], b"<<<"), Edit(fix.parts[-2], b">>>")


def launch_edits(fix: Fix) -> tuple[Edit, ...]:
    """Edits turning `k<<<g, b[, s[, q]]>>>(args)` into `hipLaunchKernelGGL(k, g, b, s, q, args)`.

    Only the punctuation between the parts changes, so renames inside the
    kernel expression, the configuration or the arguments still apply.
    """
    if len(fix.parts) < 6:
        return ()
    kernel, _, *config, _, arguments = fix.parts
    if not 2 <= len(config) <= 4:
        return ()
    # A template kernel's commas would split the macro's arguments: HIP_KERNEL_NAME keeps them together.
    templated = kernel.end - kernel.start > len(fix.text.encode())
    defaults = ", 0" * (4 - len(config))
    has_arguments = arguments.end - arguments.start > 2
    grid, block = config[0], config[1]
    # A `dim3(...)` argument is a dim3 already: wrapped again it would read dim3(dim3(...)).
    open_grid, open_block = (b"" if f"{part}-dim3" in fix.flags else b"dim3(" for part in ("grid", "block"))
    return (
        Edit(Span(kernel.start, kernel.start), b"hipLaunchKernelGGL(" + (b"HIP_KERNEL_NAME(" if templated else b"")),
        Edit(Span(kernel.end, grid.start), (b")" if templated else b"") + b", " + open_grid),
        Edit(Span(grid.end, block.start), (b")" if open_grid else b"") + b", " + open_block),
        Edit(Span(block.end, block.end), b")" if open_block else b""),
        Edit(Span(config[-1].end, arguments.start + 1), (defaults + (", " if has_arguments else "")).encode()),
    )


def edits_for(finding: Finding, options: EditOptions, rules: RuleDatabase) -> tuple[Edit, ...]:
    """The byte edits that port one finding, or () when it has no fix (or the options leave it)."""
    fix = finding.fix
    if fix is None:
        return ()
    if fix.action is FixAction.RENAME:
        return _rename(fix)
    if fix.action is FixAction.INSERT:
        return (Edit(fix.span, fix.text.encode()),)
    if fix.action is FixAction.GUARD:  # the span starts at a line start
        return (Edit(Span(fix.span.start, fix.span.start), f"#if {fix.text}\n".encode()),
                Edit(Span(fix.span.end, fix.span.end), b"\n#endif"))
    if fix.action is FixAction.INCLUDE:
        return _include(fix, finding.name, rules)
    if fix.action is FixAction.LAUNCH:
        # hipLaunchKernelGGL is a statement: a launch used as a value keeps <<<>>> (hipcc takes both).
        hip = options.launch_syntax == "hip" and "expression" not in fix.flags
        return launch_edits(fix) if hip else _chevrons(fix)
    return ()


def apply_nested(source: bytes, edits: Iterable[Edit]) -> Applied:
    """Apply edits from the front; an edit inside another's span is already decided by the
    outer one (a deleted argument, a rewritten comparison) and is dropped. An edit that only
    partly overlaps another is skipped and returned, so one bad span never costs the file."""
    # At one offset: insertions first (in their given order), then the widest replacement.
    ordered = sorted(dict.fromkeys(edits), key=lambda e: (e.span.start, not e.span.empty, -e.span.end))
    pieces: list[bytes] = []
    skipped: list[Edit] = []
    position = 0
    outer = Span(0, 0)
    for edit in ordered:
        if edit.span.start < position:
            if not (outer.start <= edit.span.start and edit.span.end <= outer.end):
                skipped.append(edit)
            continue
        pieces.append(source[position:edit.span.start])
        pieces.append(edit.replacement)
        position = edit.span.end
        outer = edit.span
    pieces.append(source[position:])
    return Applied(b"".join(pieces), tuple(skipped))
