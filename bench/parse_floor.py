#!/usr/bin/env python3
"""The floor under a cold scan: tree-sitter-cuda's parse and portkit's query of every file, nothing more.

Usage: bench/parse_floor.py TREE [-j N]

Each of N worker processes reads its share of the tree's sources, parses each as a scan does
(`prepare_source`: the parse, and for a file with syntax errors the pre-parse fixes and parse again) and
runs the query a scan runs over the tree; nothing is read from the captures. A scan that parses with
tree-sitter-cuda and queries in C cannot take less time than this, whatever its Python does afterwards:
bench/bench.py prints it beside the cold scan (docs/performance.md, "The floor"). Prints the seconds of
CPU the workers spent in each part.
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import time
from pathlib import Path

from portkit.parse.treesitter import captures, compile_queries, prepare_source

SOURCE_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".h", ".hpp")


def _parse_and_query(paths: list[str]) -> tuple[float, float, int]:
    """CPU seconds of the parses and of the queries of `paths`, and how many nodes the queries captured."""
    parsing = querying = 0.0
    captured = 0
    for path in paths:
        source = Path(path).read_bytes()
        start = time.process_time()
        tree = prepare_source(source).tree
        middle = time.process_time()
        captured += sum(map(len, captures(tree).values()))
        parsing += middle - start
        querying += time.process_time() - middle
    return parsing, querying, captured


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    if not args.tree.is_dir():
        raise SystemExit(f"parse_floor.py: {args.tree}: not a directory")
    paths = sorted(str(p) for p in args.tree.rglob("*") if p.suffix in SOURCE_SUFFIXES and p.is_file())
    jobs = max(1, args.jobs)
    compile_queries()  # once, before the fork, as a scan does
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        results = pool.map(_parse_and_query, [paths[i::jobs] for i in range(jobs)])
    parsing, querying, captured = (sum(column) for column in zip(*results))
    print(f"{len(paths)} files, {jobs} processes: parse {parsing:.2f} s and query {querying:.2f} s of CPU, "
          f"{captured} nodes captured")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
