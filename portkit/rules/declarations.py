"""C++ declarations of a library's names, written from the rule database.

The clang engine resolves each name to its declaration. On a machine without
NVIDIA's library headers (cuRAND, NCCL...) it parses against these instead of
giving up. A rule knows its name's kind, and that is all a declaration needs:
functions take anything and return an int (`int f(...)`, callable from host and
device code), types are values that convert to and from ints and pointers,
enumerators are distinct constants (so `switch` cases stay distinct), macros
expand to 0. Type errors these cause do not matter: libclang keeps the
references of an expression it cannot type.
"""
from __future__ import annotations

import re
from typing import Iterable

from portkit.rules.index import RuleDatabase

_IDENTIFIER = re.compile(r"^[A-Za-z_]\w*(::[A-Za-z_]\w*)*$")
_STEM = re.compile(r"^[a-z]{4,}")  # cusolverDn.h -> cusolver: names a library's family of headers
_PRELUDE = """\
#pragma once
#ifndef PORTKIT_VALUE_TYPE
#define PORTKIT_HD __attribute__((host)) __attribute__((device))
#define PORTKIT_VALUE_TYPE(T) struct T { PORTKIT_HD T(); PORTKIT_HD T(int); PORTKIT_HD T(decltype(nullptr)); \\
  template <class P> PORTKIT_HD T(P*); PORTKIT_HD operator int() const; int x, y, z, w; }
#endif
"""


def header_libraries(rules: RuleDatabase) -> dict[str, str]:
    """Each header a rule knows (`curand.h`, `thrust/sort.h`) and its library."""
    return {name: rule.library for name, rule in rules.headers.items()}


def library_for_header(rules: RuleDatabase, name: str) -> str | None:
    """The library a header belongs to: a rule's, else the one whose headers share its stem (`cusolver_common.h`)."""
    rule = rules.header(name)
    if rule is not None:
        return rule.library
    stem = _STEM.match(name.rsplit("/", 1)[-1])
    if stem is None:
        return None
    owners = {rule.library for header, rule in rules.headers.items()
              if (_STEM.match(header.rsplit("/", 1)[-1]) or [""])[0] == stem[0]}
    return owners.pop() if len(owners) == 1 else None


def _declaration(kind: str, name: str, value: int) -> str:
    if kind in ("function", "intrinsic"):
        return f"PORTKIT_HD int {name}(...);"
    if kind == "type":
        return f"PORTKIT_VALUE_TYPE({name});"
    if kind == "enum":
        return f"enum {{ {name} = {value} }};"
    return ""


def _namespaced(entries: Iterable[tuple[str, str, int]]) -> list[str]:
    """`a::b::f` becomes `namespace a { namespace b { ... } }`; a name inside a type is left out."""
    entries = list(entries)
    types = {name for kind, name, _ in entries if kind == "type"}
    lines = []
    for kind, name, value in entries:
        *scopes, last = name.split("::")
        if any("::".join(scopes[:i]) in types for i in range(1, len(scopes) + 1)):
            continue
        body = f"template <class...> struct {last} {{}};" if kind == "type" and scopes else _declaration(kind, last, value)
        if body:
            lines.append("".join(f"namespace {s} {{ " for s in scopes) + body + " }" * len(scopes))
    return lines


def library_declarations(rules: RuleDatabase, libraries: Iterable[str], declared: frozenset[str]) -> str:
    """Declarations of the names of `libraries`, each name once, less those already `declared` (by the toolkit)."""
    chosen = set(libraries)
    entries = sorted({(rule.kind, rule.cuda) for rule in rules.named_rules()
                      if rule.library in chosen and _IDENTIFIER.match(rule.cuda) and rule.cuda not in declared})
    numbered = [(kind, name, index) for index, (kind, name) in enumerate(entries, 1)]
    macros = [f"#define {name} 0" for kind, name, _ in numbered if kind == "macro"]
    titles = ", ".join(rules.title(library) for library in sorted(chosen))
    return "\n".join([f"// portkit: the names of {titles} from the rule database, declared for parsing without their headers.",
                      _PRELUDE] + _namespaced(e for e in numbered if e[0] != "macro") + macros) + "\n"
