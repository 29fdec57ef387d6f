"""Byte edits: what each finding's fix writes, and one pure function that applies edits.

Analysis says *what* a use becomes (a finding's `fix`, portkit/analyze/rewrite.py); this module turns that
into bytes. Edits are applied from the back so earlier offsets stay valid; bytes
outside the edits are kept exactly.
"""
from __future__ import annotations

import bisect
import dataclasses
import sys
from typing import Iterable

from portkit.model import Append, ArgEdit, Cast, Edit, Finding, Fix, FixAction, LaunchSyntax, Replace, Span, Wrap


@dataclasses.dataclass(frozen=True)
class Applied:
    data: bytes
    skipped: tuple[Edit, ...] = ()  # edits that overlapped others without nesting in them
    kept: tuple[tuple[int, int, int], ...] = ()  # each stretch of the source kept as it was: its offset in `data`,
    # its offset in the source, its length


def source_offset(kept: tuple[tuple[int, int, int], ...], offset: int) -> int:
    """The source's offset of `offset` in the edited bytes (`Applied.kept`): the same byte where it was kept,
    else where the edit that wrote it begins (so an inserted line belongs to the line it stands before)."""
    index = bisect.bisect_right(kept, (offset, sys.maxsize, 0)) - 1
    if index < 0:
        return 0
    start, source_start, length = kept[index]
    return source_start + min(offset - start, length)


@dataclasses.dataclass(frozen=True)
class EditOptions:
    launch_syntax: LaunchSyntax = LaunchSyntax.CUDA
    hazard_markers: bool = True  # with the other markers, one at each hazard's line (docs/hazards.md)


def _rename(fix: Fix) -> tuple[Edit, ...]:
    edits = [] if fix.arguments_only else [Edit(fix.span, fix.text.encode())]
    if fix.drop_args:
        if len(fix.parts) < fix.drop_args:
            return ()  # cannot drop arguments we cannot see (a macro body): leave it to the marker
        end = fix.parts[fix.drop_args].start if fix.drop_args < len(fix.parts) else fix.parts[-1].end
        edits.append(Edit(Span(fix.parts[0].start, end), b""))
    for edit in fix.args:
        if edit.index < len(fix.parts):
            edits.extend(call_argument_edits(fix.parts, edit))
    return tuple(edits)


def _wrapped(argument: Span, before: str, after: str) -> tuple[Edit, Edit]:
    # One edit on each side, the empty one too: the count is the edits the summary reports.
    return Edit(Span(argument.start, argument.start), before.encode()), Edit(Span(argument.end, argument.end), after.encode())


def call_argument_edits(arguments: tuple[Span, ...], edit: ArgEdit) -> tuple[Edit, ...]:
    """One argument cast, replaced, followed by more, or dropped with the comma after it (before it, for the
    last one)."""
    argument = arguments[edit.index]
    if isinstance(edit, Cast):
        return _wrapped(argument, edit.opening, ")")
    if isinstance(edit, Wrap):
        return _wrapped(argument, f"{edit.macro}(", ")")
    if isinstance(edit, Append):
        return _wrapped(argument, "", edit.text)
    if isinstance(edit, Replace) or len(arguments) == 1:
        return (Edit(argument, edit.text.encode() if isinstance(edit, Replace) else b""),)
    following = edit.index + 1 < len(arguments)
    return (Edit(Span(argument.start if following else arguments[edit.index - 1].end,
                      arguments[edit.index + 1].start if following else argument.end), b""),)


def _include(fix: Fix) -> tuple[Edit, ...]:
    """The new include target; a header HIP needs first, and each header the CUDA one brought that HIP's does not,
    gets its own #include before it."""
    before = [fix.prerequisite] if fix.prerequisite else []
    text = "\n#include ".join([*(f"<{header}>" for header in [*before, *fix.companions]), fix.text])
    return (Edit(fix.span, text.encode()),)


def chevron_edits(fix: Fix) -> tuple[Edit, ...]:
    """`<< <` and `>> >`, which nvcc accepts and clang does not, written as `<<<` and `>>>` (convert's CUDA launch
    syntax, and the shim's sources, which both compilers read)."""
    if not fix.spaced_chevrons or len(fix.parts) < 4:
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
    open_grid, open_block = (b"" if is_dim3 else b"dim3(" for is_dim3 in (fix.grid_is_dim3, fix.block_is_dim3))
    return (
        Edit(Span(kernel.start, kernel.start), b"hipLaunchKernelGGL(" + (b"HIP_KERNEL_NAME(" if templated else b"")),
        Edit(Span(kernel.end, grid.start), (b")" if templated else b"") + b", " + open_grid),
        Edit(Span(grid.end, block.start), (b")" if open_grid else b"") + b", " + open_block),
        Edit(Span(block.end, block.end), b")" if open_block else b""),
        Edit(Span(config[-1].end, arguments.start + 1), (defaults + (", " if has_arguments else "")).encode()),
    )


def edits_for(finding: Finding, options: EditOptions) -> tuple[Edit, ...]:
    """The byte edits that port one finding, or () when it has no fix (or the options leave it)."""
    fix = finding.fix
    if fix is None:
        return ()
    if fix.action is FixAction.RENAME:
        return _rename(fix)
    if fix.action is FixAction.INSERT:
        return (Edit(fix.span, fix.text.encode()),)
    if fix.action is FixAction.GUARD:  # the span starts at a line start
        otherwise = f"\n#else\n{fix.otherwise}" if fix.otherwise else ""
        return (Edit(Span(fix.span.start, fix.span.start), f"#if {fix.text}\n".encode()),
                Edit(Span(fix.span.end, fix.span.end), f"{otherwise}\n#endif".encode()))
    if fix.action is FixAction.INCLUDE:
        return _include(fix)
    if fix.action is FixAction.LAUNCH:
        # hipLaunchKernelGGL is a statement: a launch used as a value keeps <<<>>> (hipcc takes both).
        hip = options.launch_syntax is LaunchSyntax.HIP and not fix.launch_as_value
        return launch_edits(fix) if hip else chevron_edits(fix)
    return ()


def apply_nested(source: bytes, edits: Iterable[Edit]) -> Applied:
    """Apply edits from the front; an edit inside another's span is already decided by the
    outer one (a deleted argument, a rewritten comparison) and is dropped. An edit that only
    partly overlaps another is skipped and returned, so one bad span never costs the file."""
    # At one offset: insertions first (in their given order), then the widest replacement.
    ordered = sorted(dict.fromkeys(edits), key=lambda e: (e.span.start, not e.span.empty, -e.span.end))
    pieces: list[bytes] = []
    skipped: list[Edit] = []
    kept: list[tuple[int, int, int]] = []
    position = written = 0
    outer = Span(0, 0)
    for edit in ordered:
        if edit.span.start < position:
            if not (outer.start <= edit.span.start and edit.span.end <= outer.end):
                skipped.append(edit)
            continue
        kept.append((written, position, edit.span.start - position))
        pieces.append(source[position:edit.span.start])
        pieces.append(edit.replacement)
        written += edit.span.start - position + len(edit.replacement)
        position = edit.span.end
        outer = edit.span
    kept.append((written, position, len(source) - position))
    pieces.append(source[position:])
    return Applied(b"".join(pieces), tuple(skipped), tuple(kept))
