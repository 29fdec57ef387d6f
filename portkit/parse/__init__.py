"""Parse: source bytes in, occurrences out (what each token is, and where).

treesitter.py is the default engine (tree-sitter-cuda); clang.py resolves names
with libclang for `--engine clang`. Neither knows anything about CUDA libraries.
"""
from portkit.parse.treesitter import CUDA_CONDITION_MACROS, parse_source

__all__ = ["CUDA_CONDITION_MACROS", "parse_source"]
