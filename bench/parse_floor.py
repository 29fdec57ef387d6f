#!/usr/bin/env python3
"""The floor under a cold scan: tree-sitter-cuda's parse and portkit's query of every file, nothing more.

Usage: bench/parse_floor.py TREE [-j N] [--names] [--macros FILE]
       bench/parse_floor.py TREE --save-macros FILE

N worker processes read the sources a scan of the tree parses, handed out as a scan hands them out (largest
first, in small chunks: a fixed share each left one process with the largest files, 8.1 s of CPU against the
other's 5.6 s on bench/scale.toml's tree, and a floor 0.4-0.7 s above what two cores need), parse each as a scan does
(`prepare_source`: the parse, and for a file with syntax errors the pre-parse fixes and parse again) and
runs the query a scan runs over the tree; nothing is read from the captures. A scan that parses with
tree-sitter-cuda and queries in C cannot take less time than this, whatever its Python does afterwards:
bench/bench.py prints it beside the cold scan (docs/performance.md, "The floor"). Prints the seconds of
CPU the workers spent in each part. `--names` adds the least a scan's Python must then do: read each
captured identifier, type and called name, look it up among the names the rules know, and take the
position of those it keeps (no occurrence, finding or count is built). `--macros FILE` prepares each file with
the project's macro table, as a scan does (without it, each file's own #defines): `--save-macros FILE` writes
that table first, in a run of its own, so that building it (portkit's Python) is never timed as floor.
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import pickle  # nosec B403: a table this script wrote itself
import time
from pathlib import Path
from typing import Any

from portkit.parse.macros import MacroTable
from portkit.parse.queries import captures, compile_queries
from portkit.parse.treesitter import prepare_source
from portkit.rules import load_database
from portkit.walk import DEFAULT_MAX_FILE_SIZE, discover

NAME_CAPTURES = ("identifier", "type", "call")


# What every worker reads, set before the pool forks them: a scan's workers too receive their job once, at their
# start. (Passed with each task instead, the names and the table were pickled again for every chunk of 8 files.)
_shared: dict[str, Any] = {"known": None, "macros": None}


def _parse_and_query(path: str) -> tuple[float, float, float, int, int]:
    """CPU seconds of the parse (with the project's macro table, if given), the query and the look-ups among the
    known names (if given) of `path`; the nodes the query captured and the names kept."""
    known: frozenset[bytes] | None = _shared["known"]
    macros: MacroTable | None = _shared["macros"]
    source = Path(path).read_bytes()
    start = time.process_time()
    tree = prepare_source(source, macros).tree
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
    parser.add_argument("--macros", type=Path, help="prepare each file with this project macro table (--save-macros)")
    parser.add_argument("--save-macros", type=Path, help="write the macro table a scan of TREE builds, and stop")
    args = parser.parse_args()
    if not args.tree.is_dir():
        raise SystemExit(f"parse_floor.py: {args.tree}: not a directory")
    # The files a scan parses: its own walk (ignore files, extensions), its sources only.
    walked = discover([str(args.tree)])[0]
    if args.save_macros:
        from portkit.run.plan import FileContents, project_macros  # only here: the timed run imports no more

        args.save_macros.write_bytes(pickle.dumps(project_macros(walked, FileContents(None, DEFAULT_MAX_FILE_SIZE))))
        return 0
    try:
        macros = pickle.loads(args.macros.read_bytes()) if args.macros else None  # nosec B301: --save-macros wrote it
    except OSError as err:
        raise SystemExit(f"parse_floor.py: {args.macros}: {err.strerror}") from None
    paths = sorted(f.path for f in walked if f.file_type == "source")
    jobs = max(1, args.jobs)
    _shared["known"] = frozenset(name.encode() for name in load_database().known_names()) if args.names else None
    _shared["macros"] = macros
    compile_queries()  # once, before the fork, as a scan does
    paths.sort(key=lambda path: -os.stat(path).st_size)  # as run/workers.py orders a scan's files
    chunk = max(1, min(8, len(paths) // (jobs * 32)))
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        results = list(pool.imap_unordered(_parse_and_query, paths, chunk))
    parsing, querying, naming, captured, kept = (sum(column) for column in zip(*results))
    names = f", names {naming:.2f} s ({kept} kept)" if args.names else ""
    print(f"{len(paths)} files, {jobs} processes: parse {parsing:.2f} s and query {querying:.2f} s{names} of CPU, "
          f"{captured} nodes captured")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
