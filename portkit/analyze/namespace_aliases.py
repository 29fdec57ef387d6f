"""Qualified names that a namespace alias defined in another file resolves: a project analysis.

`namespace cg = cooperative_groups;` in a header makes `cg::this_grid()` in every file that includes it a
CUDA name, but the file's own analysis sees no alias for `cg`. Each source file's fact is its own aliases and
the qualified names that neither its aliases nor the rules resolve; the project's aliases (every file's, those
read only for their definitions too) are the run's `Context.aliases`, and the finish resolves the pending
names through them.

(The module sorts after names.py on purpose: analyze/__init__.py imports modules in name order, and that
order is the order findings come in.)
"""
from __future__ import annotations

from typing import Any, Iterator, NamedTuple, Sequence

from portkit.analyze.names import CUDA_LOOKING, namespace_member_finding, qualified_finding
from portkit.analyze.registry import Context, ProjectAnalysis, project_analysis
from portkit.model import Finding, Occurrence, ParsedFile, Role
from portkit.packing import pack_occurrence, unpack_occurrence


class AliasFacts(NamedTuple):
    aliases: tuple[tuple[str, str], ...] = ()  # the file's namespace aliases: (cg, cooperative_groups)
    pending: tuple[Occurrence, ...] = ()  # its qualified names that only another file's alias may resolve
    members: tuple[Occurrence, ...] = ()  # its member accesses (`tb.group_dim()`) a namespace among those may own


# How a project definition spells a namespace alias of its own (`namespace cub = mylib::blocks;`): the alias's name
# with `::` after it, never a C++ name, so that a namespace the project reopens (`namespace cub { ... }`) is not one.
OWN_ALIAS_SUFFIX = "::"


def own_namespace_aliases(parsed: ParsedFile, context: Context) -> frozenset[str]:
    """The file's namespace aliases to a namespace that is not CUDA's (no rule knows it, and it does not look like
    CUDA's) nor HIP's twin of the CUDA one it names (`namespace cub = hipcub;`, a port's: analyze/alias_scope.py),
    spelled `cub::`: a name the alias starts is the project's, wherever a file sees the alias."""
    own = set()
    for alias in parsed.of(Role.NAMESPACE_ALIAS):
        target = alias.detail.lstrip(":")
        member = f"{target}::_"
        if CUDA_LOOKING.match(member) is None and context.rules.lookup_qualified(member)[0] is None \
                and not context.rules.is_hip_alias(alias.text, target):
            own.add(alias.text + OWN_ALIAS_SUFFIX)
    return frozenset(own)


def needs_aliases(occurrence: Occurrence, context: Context) -> bool:
    """A qualified name whose namespace may be an alias another file defines."""
    head = occurrence.text.partition("::")[0]
    return head not in dict(context.aliases) and context.rules.lookup_qualified(occurrence.text)[0] is None


def alias_facts(parsed: ParsedFile, context: Context, findings: Sequence[Finding]) -> AliasFacts:
    """One file's fact; `context` is the file's own (its aliases only). A member access counts only where the file
    has pending names (whose namespaces the project's aliases may turn out to be) and its own findings miss it."""
    pending = tuple(o for o in parsed.of(Role.QUALIFIED) if needs_aliases(o, context))
    found = {f.span.start for f in findings} if pending else set()
    members = tuple(o for o in parsed.of(Role.FIELD) if o.span.start not in found
                    and context.rules.namespace_members(o.text)) if pending else ()
    return AliasFacts(context.aliases, pending, members)


def project_aliases(facts: Sequence[AliasFacts]) -> dict[str, Any]:
    """The project's aliases, from every file read: the run's context."""
    return {"aliases": tuple(sorted({alias for fact in facts for alias in fact.aliases}))}


def resolve_pending(files: Sequence[tuple[str, AliasFacts | None]], context: Context) -> Iterator[Finding]:
    """Qualified names that only the project-wide aliases resolve (`cg::` defined in a header); a file's own
    alias of the same name wins."""
    aliases = dict(context.aliases)
    for path, fact in files:
        if fact is None or not fact.pending:
            continue
        local = {name for name, _ in fact.aliases}
        namespaces = set()
        for occurrence in fact.pending:
            head = occurrence.text.partition("::")[0]
            if head in aliases and head not in local:
                namespaces.add(aliases[head])
                finding = qualified_finding(path, occurrence, context)
                if finding is not None:
                    yield finding
        for occurrence in fact.members if namespaces else ():  # `tb.group_dim()` of a `cg::thread_block tb`
            finding = namespace_member_finding(path, occurrence, context, namespaces)
            if finding is not None:
                yield finding


def _pack(fact: AliasFacts) -> dict[str, Any]:
    return {"aliases": [list(a) for a in fact.aliases], "pending": [pack_occurrence(o) for o in fact.pending],
            "members": [pack_occurrence(o) for o in fact.members]}


def _unpack(packed: dict[str, Any], fixes: bool) -> AliasFacts:
    return AliasFacts(tuple((a, b) for a, b in packed["aliases"]), tuple(unpack_occurrence(o) for o in packed["pending"]),
                      tuple(unpack_occurrence(o) for o in packed["members"]))


NAMESPACE_ALIASES = project_analysis(ProjectAnalysis("aliases", alias_facts, resolve_pending, _pack, _unpack,
                                                     share=project_aliases))
