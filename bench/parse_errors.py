#!/usr/bin/env python3
"""Parse errors on real code: how many files have them, and how many lose or misread a finding.

For every project directory under the given roots (a project is one directory: its
macro table is collected over it, as `portkit scan` on it would), each source file is
parsed twice with tree-sitter-cuda: as written ("before"), and as portkit prepares it
("after", docs/parser.md). For each it counts

  * files with real parse errors (benign marks excluded, as portkit counts them);
  * files whose parse errors affect a finding: a token a finding is made of (a name a
    rule knows or that looks like CUDA, `__global__`/`__device__`, a `<<<` launch) sits
    in an ERROR node or in a statement or declaration that did not parse cleanly, or
    was blanked by a fix and is not reported by portkit's token matching.

Two selections are reported: every source file portkit walks, and "CUDA files"
(.cu/.cuh, and .cpp/.h/.hpp in a directory whose path names CUDA or that holds a .cu/.cuh).

Usage:  bench/parse_errors.py ROOT [ROOT...]      (ROOT/PROJECT/... ; never committed corpora)
Not part of CI, not a unit test.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

import tree_sitter_cuda
from tree_sitter import Language, Node, Parser

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from portkit.analyze.hazards import INTERESTING_NAMES  # noqa: E402
from portkit.analyze.names import CUDA_LOOKING, is_interesting  # noqa: E402
from portkit.parse import parse_source  # noqa: E402
from portkit.parse.lexer import Layout  # noqa: E402
from portkit.parse.macros import MacroTable  # noqa: E402
from portkit.parse.prepare import prepare  # noqa: E402
from portkit.parse.recovery import error_sites  # noqa: E402
from portkit.walk import DEFAULT_MAX_FILE_SIZE  # noqa: E402
from portkit.run.plan import FileContents, project_macros  # noqa: E402
from portkit.rules import RuleDatabase, load_database  # noqa: E402
from portkit.walk import discover  # noqa: E402

PARSER = Parser(Language(tree_sitter_cuda.language()))
TOKEN = re.compile(rb"(?<![\w:])[A-Za-z_]\w*(?:[ \t]*::[ \t]*[A-Za-z_]\w*)*(?![\w:])")
COMPLETE = re.compile(r"(definition|declaration|statement$|^preproc_|^linkage_specification$)")
QUALIFIERS = ("__global__", "__device__")


def relevant(name: str, rules: RuleDatabase) -> bool:
    """A name analysis makes a finding of (unless the project defines it)."""
    if "::" in name:
        return rules.lookup_qualified(name)[0] is not None or CUDA_LOOKING.match(name) is not None
    return name in QUALIFIERS or rules.lookup(name) is not None or CUDA_LOOKING.match(name) is not None


def token_state(root: Node, start: int, end: int) -> str:
    """"ok", or why the token's statement or declaration did not parse cleanly."""
    node = root.descendant_for_byte_range(start, end)
    if node is None or node.start_byte != start or node.end_byte < end:
        return "no node"
    while node is not None:
        if node.is_error:
            return "in ERROR"
        if COMPLETE.search(node.type) and node.type != "translation_unit":
            return "statement with error" if node.has_error else "ok"
        node = node.parent
    return "ok"


def affected(source: bytes, text: bytes, root: Node, rules: RuleDatabase, reported: set[int]) -> list[str]:
    """The finding tokens of `source` that the parse of `text` (its prepared bytes) does not describe."""
    if not error_sites(root) and source == text:
        return []
    layout, found = Layout(source), []
    for match in TOKEN.finditer(source):
        name = re.sub(r"\s+", "", match.group().decode())
        if not layout.code[match.start()] or not relevant(name, rules):
            continue
        if text[match.start():match.end()] != match.group():  # blanked by a fix
            if match.start() not in reported and name not in QUALIFIERS:
                found.append(f"{name}: blanked, not reported")
        elif token_state(root, match.start(), match.end()) != "ok":
            found.append(f"{name}: {token_state(root, match.start(), match.end())}")
    for match in re.finditer(rb"<<<", source):
        if layout.code[match.start()] and not launch_parsed(root, match.start()):
            found.append("<<<: launch")
    return found


def launch_parsed(root: Node, start: int) -> bool:
    """Whether the `<<<` at `start` is a launch in a statement that parsed cleanly."""
    node = root.descendant_for_byte_range(start, start + 3)
    launch = False
    while node is not None:
        launch = launch or node.type == "kernel_call_syntax"
        if node.is_error or COMPLETE.search(node.type) and node.type != "translation_unit":
            return launch and not node.is_error and not node.has_error
        node = node.parent
    return launch


def cuda_file(project: Path, path: str) -> bool:
    file = Path(path)
    if file.suffix in (".cu", ".cuh"):
        return True
    directory = os.path.relpath(file.parent, project)
    return file.suffix in (".cpp", ".h", ".hpp") and (
        directory != "." and "cuda" in directory.lower() or any(p.suffix in (".cu", ".cuh") for p in file.parent.iterdir()))


def measure_file(path: str, table: MacroTable, rules: RuleDatabase, keep) -> dict[str, object] | None:
    data = Path(path).read_bytes()
    if b"\0" in data[:8192]:
        return None
    source = b"   " + data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    before = PARSER.parse(source).root_node
    prepared = prepare(source, table, PARSER.parse)
    reported = {o.span.start for o in parse_source(path, data, keep=keep, macros=table).occurrences}
    return {"before": bool(error_sites(before)), "after": bool(error_sites(prepared.tree.root_node)),
            "affected before": affected(source, source, before, rules, reported),
            "affected after": affected(source, prepared.text, prepared.tree.root_node, rules, reported)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roots", nargs="+", help="directories whose subdirectories are projects")
    parser.add_argument("-v", "--verbose", action="store_true", help="list the files whose errors affect a finding")
    args = parser.parse_args()
    rules = load_database()
    known = rules.known_names() | INTERESTING_NAMES
    rows: list[tuple[str, bool, dict[str, object]]] = []
    for root in args.roots:
        for project in sorted(Path(root).iterdir()):
            files = [f for f in discover([str(project)])[0] if f.file_type == "source"]
            table = project_macros(files, FileContents(None, DEFAULT_MAX_FILE_SIZE))
            for file in files:
                row = measure_file(file.path, table, rules, lambda name: is_interesting(name, known))
                if row is not None:
                    rows.append((file.path, cuda_file(project, file.path), row))
    for label, chosen in (("CUDA files", [r for r in rows if r[1]]), ("every source file", rows)):
        total = len(chosen) or 1
        print(f"{label}: {len(chosen)}")
        for key in ("before", "after"):
            errors = sum(bool(r[2][key]) for r in chosen)
            hit = [r for r in chosen if r[2][f"affected {key}"]]
            print(f"  {key:6s}  real parse errors {errors:5d} ({100 * errors / total:4.1f} %)"
                  f"   errors affecting a finding {len(hit):4d} ({100 * len(hit) / total:4.1f} %)")
            if args.verbose and key == "after":
                for path, _, row in hit:
                    print(f"      {path}: {', '.join(sorted(set(row['affected after'])))[:160]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
