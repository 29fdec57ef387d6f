#!/usr/bin/env python3
"""The floor under a cold scan: tree-sitter-cuda's parses and portkit's query of every file, nothing more.

Usage: bench/parse_floor.py TREE [-j N] [--names] [--prepared FILE]
       bench/parse_floor.py TREE --save-prepared FILE

N worker processes read the sources a scan of the tree parses, handed out as a scan hands them out (largest
first, in small chunks: a fixed share each left one process with the largest files, 8.1 s of CPU against the
other's 5.6 s on bench/scale.toml's tree, and a floor 0.4-0.7 s above what two cores need), parse each with
tree-sitter-cuda and run the query a scan runs over the tree; nothing is read from the captures. A scan that
parses with tree-sitter-cuda and queries in C cannot take less time than this, whatever its Python does before
and after: bench/bench.py prints it beside the cold scan (docs/performance.md, "The floor"). Prints the seconds
of CPU the workers spent in each part. `--names` adds the least a scan's Python must then do: read each
captured identifier, type and called name, look it up among the names the rules know, and take the position
of those it keeps (no occurrence, finding or count is built).

A scan parses some files more than once: where the first tree has errors, or a statement macro hides a call,
portkit's pre-parse fixes (`parse/prepare.py`, with the project's macro table) rewrite the bytes and parse them
again, and the query runs over the tree it keeps. `--save-prepared FILE` finds those parses in a run of its own
(the table, the fixes and the choice are portkit's Python, never timed as floor) and writes the bytes of each;
`--prepared FILE` makes the same parses and queries the same tree.
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import pickle  # nosec B403: bytes this script wrote itself (--save-prepared)
import time
from pathlib import Path
from typing import Any

from tree_sitter import Parser, Tree

from portkit.parse.queries import captures, compile_queries
from portkit.parse.treesitter import _without_bom, grammar  # the scan's own reading of a file's BOM
from portkit.rules import load_database
from portkit.walk import DEFAULT_MAX_FILE_SIZE, SourceFile, discover

NAME_CAPTURES = ("identifier", "type", "call")


# What every worker reads, set before the pool forks them: a scan's workers too receive their job once, at their
# start. (Passed with each task instead, the names were pickled again for every chunk of 8 files.)
_shared: dict[str, Any] = {"known": None, "prepared": {}}

Reparsed = dict[str, tuple[list[bytes], int]]  # path -> the bytes a scan parses after the file's own, the one kept


def _parses(path: str, source: bytes) -> Tree:
    """The scan's parses of `path` (its bytes, then those the pre-parse fixes wrote), and the tree it keeps."""
    again, kept = _shared["prepared"].get(path, ((), 0))
    parser = Parser(grammar())
    trees = [parser.parse(source)] + [parser.parse(text) for text in again]
    return trees[kept]


def _parse_and_query(path: str) -> tuple[float, float, float, int, int]:
    """CPU seconds of the parses, the query and the look-ups among the known names (if given) of `path`; the nodes
    the query captured and the names kept."""
    known: frozenset[bytes] | None = _shared["known"]
    source = _without_bom(Path(path).read_bytes())
    start = time.process_time()
    tree = _parses(path, source)
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


def reparsed(walked: list[SourceFile]) -> Reparsed:
    """Per source a scan parses more than once, the bytes of each parse after the first and which tree it keeps:
    `prepare` as the scan runs it (the project's macro table), with a parse that records what it is given."""
    from portkit.parse.prepare import prepare  # only here: the timed run imports no more
    from portkit.run.plan import FileContents, project_macros

    macros = project_macros(walked, FileContents(None, DEFAULT_MAX_FILE_SIZE))
    parser = Parser(grammar())
    texts: list[bytes] = []  # what one file's preparation parsed, in order

    def recorded(text: bytes) -> Tree:
        texts.append(text)
        return parser.parse(text)

    found: Reparsed = {}
    for path in sorted(f.path for f in walked if f.file_type == "source"):
        texts.clear()
        try:
            kept = prepare(_without_bom(Path(path).read_bytes()), macros, recorded).text
        except OSError:
            continue
        if len(texts) > 1:
            found[path] = (texts[1:], texts.index(kept))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--names", action="store_true", help="also look up each captured name among the rules'")
    parser.add_argument("--prepared", type=Path, help="parse again what a scan parses again (--save-prepared)")
    parser.add_argument("--save-prepared", type=Path,
                        help="write the bytes a scan of TREE parses after each file's own, and stop")
    args = parser.parse_args()
    if not args.tree.is_dir():
        raise SystemExit(f"parse_floor.py: {args.tree}: not a directory")
    # The files a scan parses: its own walk (ignore files, extensions), its sources only.
    walked = discover([str(args.tree)])[0]
    if args.save_prepared:
        args.save_prepared.write_bytes(pickle.dumps(reparsed(walked)))
        return 0
    try:
        prepared = pickle.loads(args.prepared.read_bytes()) if args.prepared else {}  # nosec B301: --save-prepared
    except OSError as err:
        raise SystemExit(f"parse_floor.py: {args.prepared}: {err.strerror}") from None
    paths = sorted(f.path for f in walked if f.file_type == "source")
    jobs = max(1, args.jobs)
    _shared["known"] = frozenset(name.encode() for name in load_database().known_names()) if args.names else None
    _shared["prepared"] = prepared
    compile_queries()  # once, before the fork, as a scan does
    paths.sort(key=lambda path: -os.stat(path).st_size)  # as run/workers.py orders a scan's files
    chunk = max(1, min(8, len(paths) // (jobs * 32)))
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        results = list(pool.imap_unordered(_parse_and_query, paths, chunk))
    parsing, querying, naming, captured, kept = (sum(column) for column in zip(*results))
    names = f", names {naming:.2f} s ({kept} kept)" if args.names else ""
    again = sum(len(texts) for texts, _ in prepared.values())
    print(f"{len(paths)} files, {jobs} processes: parse {parsing:.2f} s ({len(paths) + again} parses) and query "
          f"{querying:.2f} s{names} of CPU, {captured} nodes captured")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
