"""Direct initialisation read as a function declarator: `const MatrixBase<Real> &src_mat(src.Mat());` (kaldi).

In a function, `T &name(expression);` declares a reference initialised with the expression; tree-sitter reads a
declarator followed by `(` as a function's, and an argument that cannot be a parameter (`src.Mat()`, `*data`,
`first + 1`) is an error inside its parameter list. Where the tree has an error in such a list, its parentheses
become braces, `T &name{expression};`: the list initialisation the grammar reads, of the same length, with the
same names in it. Found from the tree's error sites, so a declarator that parses as written is left alone.
"""
from __future__ import annotations

from tree_sitter import Node

from portkit.parse.recovery import error_sites

# What may stand between a declaration and the function declarator that holds its name: `&`, `*`, `&&`.
_DECLARATOR_WRAPPERS = frozenset(("reference_declarator", "pointer_declarator"))
# Where a declaration initialises a variable (a block, a `for` statement's first clause), not a function's.
_VARIABLE_SCOPES = frozenset(("compound_statement", "for_statement", "for_range_loop"))


def direct_initialisations(text: bytes, root: Node) -> bytes:
    """`text` with the parentheses of each block-scope declarator whose parameter list fails to parse made
    braces; `text` itself where there is none."""
    lists = {parameters.start_byte: parameters for parameters in map(_failed_parameter_list, error_sites(root))
             if parameters is not None}
    if not lists:
        return text
    out = bytearray(text)
    for parameters in lists.values():
        out[parameters.start_byte], out[parameters.end_byte - 1] = ord("{"), ord("}")
    return bytes(out)


def _failed_parameter_list(site: Node) -> Node | None:
    """The parameter list holding an error site, where it is that of a variable's declarator in a block."""
    parameters: Node | None = site
    while parameters is not None and parameters.type != "parameter_list":
        if parameters.type in _VARIABLE_SCOPES or parameters.type.endswith("definition"):
            return None  # the error is outside any parameter list
        parameters = parameters.parent
    declarator = parameters.parent if parameters is not None else None
    if declarator is None or declarator.type != "function_declarator" \
            or declarator.child_by_field_name("declarator").type != "identifier" \
            or not _closed(parameters):
        return None
    declaration = declarator.parent
    while declaration is not None and declaration.type in _DECLARATOR_WRAPPERS:
        declaration = declaration.parent
    if declaration is None or declaration.type != "declaration" or declaration.parent is None \
            or declaration.parent.type not in _VARIABLE_SCOPES:
        return None
    return parameters


def _closed(parameters: Node) -> bool:
    """Whether the list has both its parentheses as written (none MISSING)."""
    first, last = parameters.children[0], parameters.children[-1]
    return first.type == "(" and last.type == ")" and not first.is_missing and not last.is_missing
