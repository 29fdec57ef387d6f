"""Parse: source bytes in, occurrences out (what each token is, and where).

treesitter.py is the default engine (tree-sitter-cuda); clang.py resolves names
with libclang for `--engine clang`. Neither knows anything about CUDA libraries.
Before tree-sitter parses a file, prepare.py (with macros.py, the project's macro
table, and conditionals.py) rewrites what the grammar cannot read, keeping every
offset; recovery.py matches the names in what still fails, token by token.
"""
from portkit.parse.macros import MacroTable, collect_macros
from portkit.parse.queries import compile_queries
from portkit.parse.nodes import CUDA_CONDITION_MACROS
from portkit.parse.treesitter import parse_source, prepare_source

__all__ = ["CUDA_CONDITION_MACROS", "MacroTable", "collect_macros", "compile_queries", "parse_source", "prepare_source"]
