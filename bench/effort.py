#!/usr/bin/env python3
"""Effort model validation: portkit's effort estimate against the work real hand ports did.

For every program pair of the corpora in bench/realworld.toml and bench/effort.toml (a
public CUDA program and the HIP port its authors wrote by hand), this converts the CUDA
program with `portkit convert`, and measures the residual work: the lines a human changed
beyond what convert writes (bench/effort_residual.py: the diff of the converted tree against
the hand port over the sources present in both, what is no port work spelled alike on both
sides). It scans the CUDA program (`portkit scan --format json`) for the estimate's data, and
counts its lines of code (non-blank source lines). Each pair is taken as of the commit of its
port (bench/effort_history.py: the first commit that added the HIP version), where the history
has one apart from the CUDA version's; `--pinned` takes every pair at the corpus's pinned commit.

The pairs are split once, by name: the fit part is every other program of each corpus in
name order (even positions), the held-out part the rest (odd positions). `--fit` fits the
model's weights (rules/_effort.yaml) to the fit part only and prints them; the report gives,
per part, Spearman(effort hours, residual), Spearman(lines of code, residual) and the median
absolute error of the hours, where the residual is turned into hours at the model's
`hours_per_changed_line`. Hours are portkit's own estimate under the bundled model.

Usage:
  bench/effort.py                       # measure (cached in --work) and report
  bench/effort.py --fit                 # also fit the weights to the fit part
  bench/effort.py --every 4             # one HeCBench pair in 4 (the documented run)
  bench/effort.py --pinned              # every pair at the pinned commit (measurements 0 to 9)

Corpora come from bench/realworld.py's mirrors and cache. Not part of CI, not a unit test.
Exit 0 when it ran, 2 with one line on stderr on bad input.
"""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import json
import re
import shutil
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
import effort_fit  # noqa: E402  (bench/, beside this script)
import effort_history  # noqa: E402
import effort_residual  # noqa: E402
import realworld  # noqa: E402
from portkit.rules import load_database  # noqa: E402

TARGET = "5.2"  # the installed HIP: both the conversion and the estimate are for it
SAMPLED_CORPUS = "hecbench"  # ~500 pairs: --every N takes one in N


def pair_rules(path: Path) -> dict[str, list[dict]]:
    """[[corpus.pairs]]: directories matching `glob` whose twin (the regex pair `twin`) exists are programs."""
    data = tomllib.loads(path.read_text())
    return {raw["name"]: raw.get("pairs", []) for raw in data.get("corpus", [])}


def expand_pairs(corpus: realworld.Corpus, rules: list[dict]) -> list[realworld.Program]:
    """Directory pairs (the program is the directory), or with `files = true` file pairs: the program is
    the one CUDA file, diffed against its twin file (RAJAPerf's NAME-Cuda.cpp and NAME-Hip.cpp). A file pair
    is named by its path (less the first directory) without what the rule's `strip` regex matches, by
    default the twin's pattern; two pairs named alike are an error."""
    programs = []
    for rule in rules:
        pattern, replacement = rule["twin"]
        of_kind = Path.is_file if rule.get("files") else Path.is_dir
        for match in sorted(p for p in corpus.root.glob(rule["glob"]) if of_kind(p)):
            relative = match.relative_to(corpus.root).as_posix()
            twin = re.sub(pattern, replacement, relative)
            if twin == relative or not of_kind(corpus.root / twin):
                continue
            if rule.get("files"):
                name = re.sub(rule.get("strip", pattern), "", relative.split("/", 1)[-1])
                programs.append(realworld.Program(name, match.parent.relative_to(corpus.root).as_posix(), twin,
                                                  [], [], [], [], [match.name], []))
            else:  # a directory named by its variant alone (Velocity-Bench's NAME/CUDA): its parent's name
                name = re.sub(pattern, "", match.name) or match.parent.name
                programs.append(realworld.Program(name, relative, twin, [], [], [], [], [], []))
    names = [p.name for p in programs]
    if len(set(names)) < len(names):
        clash = sorted({n for n in names if names.count(n) > 1})
        raise realworld.BadInput(f"{corpus.name}: pairs named alike ({', '.join(clash)}): give their rules a `strip`")
    return programs


def source_lines(path: Path) -> int:
    return sum(1 for line in path.read_bytes().splitlines() if line.strip())


def lines_of_code(tree: Path) -> int:
    return sum(source_lines(p) for p in effort_residual.sources(tree).values())


def portkit(*argv: str) -> int:
    """portkit's CLI in this process (one rule load for the whole run); its own output is dropped."""
    from portkit.cli import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(list(argv))


def cuda_original(corpus: realworld.Corpus, program: realworld.Program) -> Path:
    """The CUDA program in the corpus: its directory, or its one file (a file pair)."""
    return corpus.root / program.cuda / (program.files[0] if (corpus.root / program.hip).is_file() else "")


def unit_twins(program: realworld.Program) -> list[tuple[str, str]]:
    """The corpus's translation units, each with the one its hand port builds (by position), where both
    lists name the same number of plain paths: a port beside its CUDA twin (strided-access) is diffed
    against the file its authors wrote, not the CUDA one."""
    if len(program.units) != len(program.hip_units) or any("*" in u for u in program.units + program.hip_units):
        return []
    return list(zip(program.units, program.hip_units))


def at_port(corpus: realworld.Corpus, program: realworld.Program, args: argparse.Namespace) -> realworld.Corpus:
    """The corpus as of the pair's port commit (bench/effort_history.py), holding the pair's two versions
    at their paths of the pinned commit; the corpus itself where the pair stays at the pinned commit."""
    if args.pinned:
        return corpus
    hand = corpus.root / program.hip
    cuda = f"{program.cuda}/{program.files[0]}" if hand.is_file() else program.cuda
    git_dir = realworld.find_git_dir(args.mirror, corpus.repo)
    port = effort_history.port_commit(git_dir, corpus.commit, cuda, program.hip)
    if port is None:
        return corpus
    commit, cuda_then, hip_then = port
    root = args.work / "ports" / corpus.name / re.sub(r"[^\w.-]", "_", program.name) / commit[:12]
    effort_history.extract(git_dir, commit, [(cuda_then, cuda), (hip_then, program.hip)], root)
    return dataclasses.replace(corpus, commit=commit, root=root)


def measure(corpus: realworld.Corpus, program: realworld.Program, work: Path) -> dict | None:
    """One pair's residual, lines of code and scan data, or None when nothing matches."""
    hand = corpus.root / program.hip  # a directory, or one file (a file pair)
    slot = work / "trees" / corpus.name / program.cuda / (program.files[0] if hand.is_file() else "")
    stage, out = slot / "cuda", slot / "converted"
    for tree in (stage, out):
        shutil.rmtree(tree, ignore_errors=True)
    try:
        realworld.copy_filtered(corpus.root / program.cuda, stage, program.files, program.exclude)
    except OSError as err:  # a link to a file the mirror lacks (HeCBench's hpl)
        print(f"    skipped: {err.strerror}: {err.filename}", file=sys.stderr)
        return None
    realworld.write_generated(stage, program.generated)
    portkit("convert", str(stage), "-o", str(out), "--rocm-version", TARGET, "-j", "1")
    converted = out / program.files[0] if hand.is_file() else out
    if not effort_residual.file_pairs(converted, hand, cuda_original(corpus, program), unit_twins(program)):
        return None
    portkit("scan", str(stage), "--format", "json", "-o", str(slot / "scan.json"), "--rocm-version", TARGET, "-j", "1")
    scan = json.loads((slot / "scan.json").read_text())
    return {"corpus": corpus.name, "program": program.name, "converted": str(converted),
            "hand": str(hand), "loc": lines_of_code(stage), "apis": scan["apis"],
            "codes": scan["codes"], "files": scan["files"], "kernels": scan["kernels"]}


def programs(args: argparse.Namespace) -> list[tuple[realworld.Corpus, realworld.Program]]:
    chosen = []
    listed: dict[str, set[str]] = {}  # per corpus, the names of its programs so far (over all --config files)
    for config in args.config:
        pairs = pair_rules(config)
        for corpus in realworld.load_config(config):
            corpus.root = realworld.extract(corpus, args.mirror, args.cache)
            found = corpus.programs + realworld.discover_programs(corpus)
            # A pair a corpus already lists by name keeps its listed form (its files, what it excludes).
            known = listed.setdefault(corpus.name, set())
            found += [p for p in expand_pairs(corpus, pairs.get(corpus.name, [])) if p.name not in known | {q.name for q in found}]
            known.update(p.name for p in found)
            if corpus.name == SAMPLED_CORPUS:
                found = found[::args.every]
            # One-file programs of one directory (ENCCS' examples) are that directory's one pair.
            unique = {(p.cuda, tuple(p.files), tuple(p.exclude)): p for p in reversed(found)}
            chosen.extend((corpus, program) for program in found if program in unique.values())
    return chosen


def collect(args: argparse.Namespace) -> list[dict]:
    """Every pair's measurement, kept in --work/measured.json so a second run only reports."""
    store = args.work / "measured.json"
    known = json.loads(store.read_text()) if store.is_file() and not args.again else {}
    rules = load_database()

    def has_hip(word: str) -> bool:  # a CUDA name with a HIP counterpart: the residual keeps its vendor
        rule = rules.lookup(word)
        return rule is not None and bool(rule.hip)

    rows = []
    for pinned, program in programs(args):
        corpus = at_port(pinned, program, args)
        key = f"{corpus.name}/{program.name}@{corpus.commit[:12]}"
        if key not in known:
            print(f"  {key}", file=sys.stderr, flush=True)
            known[key] = measure(corpus, program, args.work)
            store.write_text(json.dumps(known))
        if known[key] is not None:
            row = known[key]
            row["at_port"] = corpus.commit != pinned.commit
            row["residual"], row["matched"] = effort_residual.residual(
                Path(row["converted"]), Path(row["hand"]), cuda_original(corpus, program), has_hip, unit_twins(program))
            if row["matched"]:  # else nothing to diff (every hand file is its CUDA original)
                rows.append(row)
    return rows


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", type=Path, action="append",
                        help="corpus files (default: bench/realworld.toml and bench/effort.toml)")
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "portkit-bench")
    parser.add_argument("--work", type=Path, default=Path("/tmp/portkit-effort"), help="trees and measurements")
    parser.add_argument("--every", type=int, default=4, help="take one HeCBench pair in N (default 4)")
    parser.add_argument("--again", action="store_true", help="measure again, ignoring --work/measured.json")
    parser.add_argument("--pinned", action="store_true",
                        help="diff every pair at the corpus's pinned commit, not at the commit of its port")
    parser.add_argument("--fit", action="store_true", help="fit the model's weights to the fit part and print them")
    args = parser.parse_args(argv)
    args.config = args.config or [HERE / "realworld.toml", HERE / "effort.toml"]
    if args.every < 1:
        raise realworld.BadInput("--every must be at least 1")
    return args


def main(argv: list[str]) -> int:
    try:
        args = parse_args(argv)
        args.work.mkdir(parents=True, exist_ok=True)
        rows = collect(args)
    except realworld.BadInput as err:
        print(f"effort.py: {err}", file=sys.stderr)
        return 2
    fit, held = effort_fit.split(rows)
    if args.fit:
        effort_fit.print_fit(effort_fit.fit(fit))
    effort_fit.print_report(fit, held, f"bench/effort.py --every {args.every}" + " --pinned" * args.pinned)
    ported = {c: sum(r["at_port"] for r in rows if r["corpus"] == c) for c in sorted({r["corpus"] for r in rows})}
    print(f"{sum(ported.values())} of {len(rows)} pairs diffed at the commit of their port ("
          + ", ".join(f"{c} {n}" for c, n in ported.items() if n) + "); the rest at the pinned commit")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
