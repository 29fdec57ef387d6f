"""Where a file's namespace alias holds: a port's alias of a CUDA namespace to HIP's (`namespace cub = hipcub;`, the
alias convert's rule would write) in a branch hipcc may not take (the `#else` of `#ifndef USE_ROCM`: the project
decides) holds in that branch only. Elsewhere the file's `cub::` is CUDA's, which convert renames: the other branch
now includes hipCUB's headers. Any other alias holds file-wide (and, through the project analysis, for the files that
include it), as before: reading a name as CUDA's where an alias to a CUDA namespace might not hold only renames it
to a spelling HIP has too.
"""
from __future__ import annotations

import dataclasses

from portkit.analyze.registry import Context
from portkit.model import Occurrence, ParsedFile, Role
from portkit.rules import RuleDatabase


def _confined(alias: Occurrence, rules: RuleDatabase) -> bool:
    return bool(alias.parts) and rules.is_hip_alias(alias.text, alias.detail)


def file_wide_aliases(parsed: ParsedFile, rules: RuleDatabase) -> tuple[tuple[str, str], ...]:
    """(alias, namespace) for the file's aliases that hold wherever the file is compiled."""
    return tuple((o.text, o.detail) for o in parsed.of(Role.NAMESPACE_ALIAS) if not _confined(o, rules))


def with_branch_aliases(parsed: ParsedFile, context: Context, offset: int) -> Context:
    """The file's context where `offset` lies: with the port's aliases confined to a branch that holds it."""
    confined = tuple((o.text, o.detail) for o in parsed.of(Role.NAMESPACE_ALIAS)
                     if _confined(o, context.rules) and o.parts[0].start <= offset < o.parts[0].end)
    return dataclasses.replace(context, aliases=context.aliases + confined) if confined else context
