"""The tree-sitter query: one pattern per capture the parser reads, built once per process."""
from __future__ import annotations

import functools

import tree_sitter_cuda
from tree_sitter import Language, Node, Query, QueryCursor, Tree

from portkit.model import Role
from portkit.parse.recovery import MAX_QUERY_DEPTH

# Patterns under one parent are one pattern with alternatives: building the query is a third of a run's
# start, and each pattern is analysed against the grammar on its own (merged: 0.076 -> 0.053 s, the same
# captures in the same order). The types a file defines are read from their few nodes in Python
# (`defined_types`): as patterns they cost 0.016 s of the build.
_QUERY = """
(call_expression function: [(identifier) @call (template_function name: (identifier) @call)
  (qualified_identifier !scope name: [(identifier) @call (template_function name: (identifier) @call)])])
(identifier) @identifier
(type_identifier) @type
(qualified_identifier) @qualified
(preproc_include path: (_) @include)
(preproc_arg) @macro_body
(function_definition) @function
(field_declaration_list (field_declaration) @member)
(kernel_call_syntax) @launch
(gnu_asm_expression) @asm
(comment) @comment
(declaration [(type_qualifier) @qualifier declarator: (identifier) @declared])
(parameter_declaration [(type_qualifier) @parameter_qualifier declarator: (identifier) @declared])
((storage_class_specifier) @storage (#eq? @storage "register"))
(linkage_specification value: (string_literal) @linkage)
(preproc_function_def) @macro_function
(namespace_alias_definition) @namespace_alias
(using_declaration) @using
(field_expression field: (field_identifier) @field)
(preproc_if condition: (_) @condition) @condition_group
(preproc_elif condition: (_) @condition) @condition_group
(preproc_ifdef name: (identifier) @condition) @condition_group
(preproc_elifdef name: (identifier) @condition) @condition_group
(namespace_definition !name) @anonymous_namespace
[(class_specifier) (struct_specifier) (field_declaration_list)] @member_scope
(function_declarator declarator: [(identifier) (field_identifier)] @definition)
(preproc_def name: (identifier) @definition)
(preproc_function_def name: (identifier) @definition)
[(struct_specifier) (class_specifier) (union_specifier) (enum_specifier) (type_definition)] @defines_type
(enumerator name: (identifier) @definition)
(alias_declaration name: (type_identifier) @definition)
(namespace_definition name: (namespace_identifier) @definition)
(init_declarator declarator: (identifier) @declared)
(preproc_params (identifier) @declared)
(pointer_declarator declarator: [(identifier) (field_identifier)] @declared)
(array_declarator declarator: [(identifier) (field_identifier)] @declared)
(reference_declarator [(identifier) (field_identifier)] @declared)
(field_declaration declarator: (field_identifier) @declared)
(optional_parameter_declaration declarator: (identifier) @declared)
(preproc_def name: (identifier) @constant value: (preproc_arg))
(init_declarator declarator: (identifier) @constant value: (_))
(enumerator name: (identifier) @constant value: (_))
(function_definition declarator: (function_declarator declarator: [(identifier) (field_identifier)] @constant)
  body: (compound_statement (return_statement)))
(assignment_expression left: (identifier) @empty_braces right: (initializer_list))
(declaration type: (placeholder_type_specifier) declarator: (init_declarator value: (field_expression argument: (identifier) @auto_value)))
"""

# Occurrences only a few heuristics read (warp-size arithmetic, lane-indexed arrays, cooperative launches, launch
# bounds, the types a ballot is stored in): made only when an analyzer that will run reads them (analyze.registry.roles_read).
OPTIONAL_ROLES = frozenset({Role.LITERAL, Role.SUBSCRIPT, Role.LAUNCH_BOUNDS, Role.INITIALIZER, Role.TYPE_ALIAS})

# The patterns that capture for an optional role alone: added to _QUERY only for a parse that makes the role
# (the query builds and matches faster without them).
_OPTIONAL_PATTERNS = {
    Role.LITERAL: "(binary_expression [left: (number_literal) @literal right: (number_literal) @literal])\n"
                  "(assignment_expression operator: \"+=\" right: (number_literal) @literal)\n"
                  "(binary_expression [left: (identifier) @named_literal right: (identifier) @named_literal])\n"
                  "(assignment_expression operator: \"+=\" right: (identifier) @named_literal)\n",
    Role.SUBSCRIPT: "(subscript_expression argument: (identifier) @subscript)\n",
    Role.LAUNCH_BOUNDS: "(launch_bounds) @launch_bounds\n",
    Role.TYPE_ALIAS: "[(type_definition) (alias_declaration)] @type_alias\n",
}


@functools.lru_cache(maxsize=1)
def grammar() -> Language:
    return Language(tree_sitter_cuda.language())


@functools.lru_cache(maxsize=4)
def _query(roles: frozenset[Role]) -> Query:
    """The query for a parse that makes the optional `roles`: each pattern costs its build and its matches."""
    return Query(grammar(), _QUERY + "".join(p for role, p in _OPTIONAL_PATTERNS.items() if role in roles))


def compile_queries(roles: frozenset[Role] | None = None) -> None:
    """Build the query parsing needs now, once: worker processes forked afterwards share it
    instead of each spending 0.04 s building its own. `roles`: as `parse_source`'s."""
    _query(OPTIONAL_ROLES if roles is None else roles)


def captures(tree: Tree, roles: frozenset[Role] | None = None) -> dict[str, list[Node]]:
    """The query's captures in a tree, by capture name: what `parse_source` reads its occurrences from.
    `roles`: as `parse_source`'s."""
    cursor = QueryCursor(_query(OPTIONAL_ROLES if roles is None else roles))
    cursor.set_max_start_depth(MAX_QUERY_DEPTH)  # bounded work; parse_source reports a deeper file as partial
    return cursor.captures(tree.root_node)
