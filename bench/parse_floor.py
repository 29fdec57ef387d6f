#!/usr/bin/env python3
"""The floor under a cold scan: tree-sitter-cuda's parse and portkit's query of every file, nothing more.

Usage: bench/parse_floor.py TREE [-j N] [--names]

N worker processes read the sources a scan of the tree parses, handed out as a scan hands them out (largest
first, in small chunks: a fixed share each left one process with the largest files, 8.1 s of CPU against the
other's 5.6 s on bench/scale.toml's tree, and a floor 0.4-0.7 s above what two cores need), parse each as a scan does
(`prepare_source`: the parse, and for a file with syntax errors the pre-parse fixes and parse again) and
runs the query a scan runs over the tree; nothing is read from the captures. A scan that parses with
tree-sitter-cuda and queries in C cannot take less time than this, whatever its Python does afterwards:
bench/bench.py prints it beside the cold scan (docs/performance.md, "The floor"). Prints the seconds of
CPU the workers spent in each part. `--names` adds the least a scan's Python must then do: read each
captured identifier, type and called name, look it up among the names the rules know, and take the
position of those it keeps (no occurrence, finding or count is built).
"""
from __future__ import annotations

import argparse
import functools
import multiprocessing
import os
import time
from pathlib import Path

from portkit.parse.queries import captures, compile_queries
from portkit.parse.treesitter import prepare_source
from portkit.rules import load_database

from portkit.walk import discover

NAME_CAPTURES = ("identifier", "type", "call")


def _parse_and_query(path: str, known: frozenset[bytes] | None) -> tuple[float, float, float, int, int]:
    """CPU seconds of the parse, the query and the look-ups among the `known` names (if given) of `path`;
    the nodes the query captured and the names kept."""
    source = Path(path).read_bytes()
    start = time.process_time()
    tree = prepare_source(source).tree
    middle = time.process_time()
    found = captures(tree)
    parsed = time.process_time()
    kept = 0
    if known is not None:
        for capture in NAME_CAPTURES:
            for node in found.get(capture, ()):
                if node.text in known:
                    kept += 1
                    node.start_point  # the line and column every finding carries
    return middle - start, parsed - middle, time.process_time() - parsed, sum(map(len, found.values())), kept


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--names", action="store_true", help="also look up each captured name among the rules'")
    args = parser.parse_args()
    if not args.tree.is_dir():
        raise SystemExit(f"parse_floor.py: {args.tree}: not a directory")
    # The files a scan parses: its own walk (ignore files, extensions), its sources only.
    paths = sorted(f.path for f in discover([str(args.tree)])[0] if f.file_type == "source")
    jobs = max(1, args.jobs)
    known = frozenset(name.encode() for name in load_database().known_names()) if args.names else None
    compile_queries()  # once, before the fork, as a scan does
    paths.sort(key=lambda path: -os.stat(path).st_size)  # as run/workers.py orders a scan's files
    chunk = max(1, min(8, len(paths) // (jobs * 32)))
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        results = list(pool.imap_unordered(functools.partial(_parse_and_query, known=known), paths, chunk))
    parsing, querying, naming, captured, kept = (sum(column) for column in zip(*results))
    names = f", names {naming:.2f} s ({kept} kept)" if args.names else ""
    print(f"{len(paths)} files, {jobs} processes: parse {parsing:.2f} s and query {querying:.2f} s{names} of CPU, "
          f"{captured} nodes captured")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
