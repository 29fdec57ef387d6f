#!/usr/bin/env python3
"""Precision of `portkit scan` on public CUDA code: sample findings, print a judging sheet, score.

The corpora are the public projects of bench/realworld.toml (repository and commit pinned),
extracted from git mirrors into ~/.cache/portkit-bench (never into this repository). Each
program's CUDA directory (never the hand-written HIP port) is scanned on its own, as its
owner would scan it, with a fixed target. From the findings, a stratified sample is drawn
with a fixed seed; each sampled finding is judged by a person, and the verdicts are kept in
bench/precision_judgments.toml, keyed by the finding (corpus, path, line, column, code,
name), so a later run reuses every verdict whose finding is still reported and lists the
new ones to judge. docs/precision.md has the method and the measured numbers.

Usage:
  bench/precision.py scan                 # scan every program into --work (JSON per program)
  bench/precision.py sheet                # print the judging sheet of the sample (source lines)
  bench/precision.py sheet --unjudged     # only the sampled findings without a verdict yet
  bench/precision.py score                # precision overall, per stratum, per code, per corpus
  bench/precision.py score --markdown     # the same as Markdown tables, for docs/precision.md
  bench/precision.py score --census       # every needs-attention finding instead of the sample
  bench/precision.py sheet --census --unjudged

Not part of CI, not a unit test. Exit 0 when it ran, 1 when `score` finds findings without
a verdict, 2 with one line on stderr on bad input.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tomllib
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import realworld  # noqa: E402  (corpus configuration and extraction)

SEED = 17
ROCM_VERSION = "5.2"     # fixed, so that statuses do not depend on the machine (bench/realworld.py's HIP)
JUDGMENTS = HERE / "precision_judgments.toml"

# What is scanned: (corpus of realworld.toml, program, paths relative to the corpus root).
# A path ending in "/*" stands for each of its subdirectories, scanned as its own program.
TARGETS: list[tuple[str, str, list[str]]] = [
    ("hip-examples", "rodinia/*", ["rodinia_3.0/cuda/*"]),
    ("hip-examples", "mini-nbody", ["mini-nbody/cuda"]),
    ("hip-examples", "strided-access", ["strided-access/benchmark-cuda.cu"]),
    ("hip-examples", "rtm8", ["rtm8/rtm8.cu"]),
    ("velocity-bench", "QuickSilver", ["QuickSilver/CUDA"]),
    ("velocity-bench", "SeisAcoMod2D", ["SeisAcoMod2D/CUDA"]),
    ("velocity-bench", "bitcracker", ["bitcracker/CUDA"]),
    ("velocity-bench", "cudaSift", ["cudaSift/CUDA"]),
    ("velocity-bench", "dl-cifar", ["dl-cifar/CUDA"]),
    ("velocity-bench", "dl-mnist", ["dl-mnist/CUDA"]),
    ("velocity-bench", "easywave", ["easywave/CUDA"]),
    ("velocity-bench", "ethminer", ["ethminer/libethash-cuda"]),
    ("velocity-bench", "hashtable", ["hashtable/CUDA"]),
    ("velocity-bench", "hplinpack", ["hplinpack/cuda"]),
    ("velocity-bench", "lc0", ["lc0/src/neural/cuda"]),
    ("velocity-bench", "reverse_time_migration",
     ["reverse_time_migration/libs/SeismicOperations/src/components/concrete/cuda"]),
    ("velocity-bench", "sobel_filter", ["sobel_filter/CUDA"]),
    ("velocity-bench", "svm", ["svm/CUDA"]),
    ("velocity-bench", "tsne", ["tsne/CUDA"]),
    ("velocity-bench", "voxelizer", ["voxelizer/CUDA"]),
    ("enccs", "cuda-hip", ["content/examples/cuda-hip/cuda"]),
    ("enccs", "non-portable-kernel-models",
     ["content/examples/non-portable-kernel-models/" + f for f in (
         "cuda-hello-world.c", "cuda-matrix-transpose-v0.cu", "cuda-matrix-transpose-v1.cu",
         "cuda-matrix-transpose-v2.cu", "cuda-matrix-transpose-v3.cu", "cuda-vector-add-unified-memory.cu",
         "cuda-vector-add.cu")]),
    ("enccs", "stencil", ["content/examples/stencil/_cuda"]),
    ("enccs", "hipify-exercise", ["content/examples/exercise_hipify/Hipify_perl/vec_add_cuda.cu"]),
    ("babelstream", "BabelStream", ["src/cuda"]),
    ("tealeaf", "TeaLeaf", ["src/cuda"]),
    ("cloverleaf", "CloverLeaf", ["src/cuda"]),
    ("minibude", "miniBUDE", ["src/cuda"]),
    ("mixbench", "mixbench", ["mixbench-cuda"]),
    ("xsbench", "XSBench", ["cuda"]),
    ("rsbench", "RSBench", ["cuda"]),
]

# The strata and how many findings each contributes: every needs-attention status, the
# supported API uses, and the GPU-code inventory. Within a stratum the corpora take turns
# (in an order drawn from the seed), so that no single large corpus fills it.
STRATA: list[tuple[str, str, tuple[str, ...], int]] = [
    # (stratum, group, codes, quota)
    ("partial", "needs attention", ("PK101",), 15),
    ("unsupported", "needs attention", ("PK102",), 15),
    ("removed", "needs attention", ("PK103",), 8),
    ("unavailable", "needs attention", ("PK104",), 12),
    ("unknown", "needs attention", ("PK105",), 10),
    ("supported", "supported", ("PK100",), 50),
    ("kernel", "inventory", ("PK200",), 15),
    ("launch", "inventory", ("PK201",), 15),
    ("device function", "inventory", ("PK202",), 15),
]
NEEDS_ATTENTION = [stratum for stratum, group, _, _ in STRATA if group == "needs attention"]
CODES = {code: stratum for stratum, _, codes, _ in STRATA for code in codes}


class BadInput(Exception):
    """Wrong configuration or arguments: reported in one line, exit 2."""


@dataclass(frozen=True)
class Sampled:
    corpus: str
    program: str
    root: Path
    finding: dict

    @property
    def key(self) -> str:
        f = self.finding
        return f"{self.corpus}:{f['path']}:{f['line']}:{f['column']}:{f['code']}:{f['name']}"

    @property
    def stratum(self) -> str:
        return CODES[self.finding["code"]]


# ---------------------------------------------------------------- scanning


def corpus_roots(mirror: Path, cache: Path) -> dict[str, Path]:
    corpora = {c.name: c for c in realworld.load_config(HERE / "realworld.toml")}
    wanted = sorted({corpus for corpus, _, _ in TARGETS})
    missing = [name for name in wanted if name not in corpora]
    if missing:
        raise BadInput(f"corpora not in realworld.toml: {', '.join(missing)}")
    return {name: realworld.extract(corpora[name], mirror, cache) for name in wanted}


def programs(roots: dict[str, Path]) -> list[tuple[str, str, list[str]]]:
    """Every (corpus, program, paths) to scan, the "/*" entries expanded."""
    out = []
    for corpus, program, paths in TARGETS:
        if len(paths) == 1 and paths[0].endswith("/*"):
            base = paths[0][:-2]
            for sub in sorted(p for p in (roots[corpus] / base).iterdir() if p.is_dir()):
                out.append((corpus, program.replace("*", sub.name), [f"{base}/{sub.name}"]))
        else:
            out.append((corpus, program, paths))
    return out


def result_file(work: Path, corpus: str, program: str) -> Path:
    return work / f"{corpus}--{program.replace('/', '+')}.json"


def scan(args: argparse.Namespace) -> int:
    roots = corpus_roots(args.mirror, args.cache)
    args.work.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    for corpus, program, paths in programs(roots):
        out = result_file(args.work, corpus, program)
        command = [sys.executable, "-m", "portkit", "scan", "-f", "json", "--rocm-version", ROCM_VERSION,
                   "-j", str(args.jobs), "-o", str(out), *paths]
        done = subprocess.run(command, cwd=roots[corpus], env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise BadInput(f"portkit scan failed on {corpus}/{program}: {done.stderr.strip()[-300:]}")
        findings = json.loads(out.read_text())["findings"]
        print(f"{corpus}/{program}: {len(findings)} findings", file=sys.stderr)
    return 0


# ---------------------------------------------------------------- sampling


def population(args: argparse.Namespace) -> dict[str, list[Sampled]]:
    """Every finding of a sampled code, per stratum, in a deterministic order."""
    roots = corpus_roots(args.mirror, args.cache)
    strata: dict[str, list[Sampled]] = defaultdict(list)
    for corpus, program, _ in programs(roots):
        path = result_file(args.work, corpus, program)
        if not path.is_file():
            raise BadInput(f"no scan result {path}: run `bench/precision.py scan` first")
        for finding in json.loads(path.read_text())["findings"]:
            if finding["code"] in CODES:
                item = Sampled(corpus, program, roots[corpus], finding)
                strata[item.stratum].append(item)
    for items in strata.values():
        items.sort(key=lambda s: (s.corpus, s.finding["path"], s.finding["line"], s.finding["column"],
                                  s.finding["code"], s.finding["name"]))
    return strata


def draw(strata: dict[str, list[Sampled]], seed: int) -> list[Sampled]:
    """Per stratum, the corpora take turns in a seeded order, each giving a seeded-random finding."""
    rng = random.Random(seed)
    sample: list[Sampled] = []
    for stratum, _, _, quota in STRATA:
        by_corpus: dict[str, list[Sampled]] = defaultdict(list)
        for item in strata.get(stratum, []):
            by_corpus[item.corpus].append(item)
        order = sorted(by_corpus)
        rng.shuffle(order)
        for corpus in order:
            rng.shuffle(by_corpus[corpus])
        taken = 0
        while taken < quota and any(by_corpus.values()):
            for corpus in order:
                if by_corpus[corpus] and taken < quota:
                    sample.append(by_corpus[corpus].pop())
                    taken += 1
    return sample


@dataclass
class Judgments:
    verdicts: dict[str, dict]   # finding key -> {true = bool, cause = "...", note = "..."}
    causes: dict[str, str]      # cause id -> what makes such a finding false


def load_judgments() -> Judgments:
    if not JUDGMENTS.is_file():
        return Judgments({}, {})
    try:
        data = tomllib.loads(JUDGMENTS.read_text())
    except tomllib.TOMLDecodeError as err:
        raise BadInput(f"cannot read {JUDGMENTS}: {err}") from None
    causes = data.get("cause", {})
    verdicts = data.get("judgment", {})
    for key, value in verdicts.items():
        if not isinstance(value.get("true"), bool):
            raise BadInput(f"{JUDGMENTS}: judgment {key!r} needs true = true|false")
        if not value["true"] and value.get("cause") not in causes:
            raise BadInput(f"{JUDGMENTS}: false judgment {key!r} needs a cause listed under [cause]")
    return Judgments(verdicts, causes)


# ---------------------------------------------------------------- output


def source_lines(item: Sampled, around: int) -> list[str]:
    f = item.finding
    try:  # lines as portkit counts them: split at \n only (a lone \r is no line break there)
        text = (item.root / f["path"]).read_bytes().decode("utf-8", errors="replace").split("\n")
    except OSError:
        return ["    (file not readable)"]
    line = f["line"]
    out = []
    for number in range(max(1, line - around), min(len(text), line + around) + 1):
        mark = ">" if number == line else " "
        out.append(f"  {mark}{number:5d}| {text[number - 1].rstrip()[:160]}")
        if number == line:
            out.append("        " + " " * (f["column"] - 1) + "^")
    return out


def print_sheet(items: list[tuple[int, Sampled]], judged: Judgments, unjudged_only: bool, context: int) -> None:
    for index, item in items:
        verdict = judged.verdicts.get(item.key)
        if unjudged_only and verdict is not None:
            continue
        f = item.finding
        state = "unjudged" if verdict is None else ("TRUE" if verdict["true"] else f"FALSE ({verdict['cause']})")
        print(f"#{index:03d} [{item.stratum}] {item.key}  -> {state}")
        print(f"     {item.program}: {f['message']}  (function: {f.get('function')})")
        print("\n".join(source_lines(item, context)))
        print()


def sheet(args: argparse.Namespace) -> int:
    strata = population(args)
    judged = load_judgments()
    if args.census:
        items = [item for stratum in NEEDS_ATTENTION for item in strata.get(stratum, [])]
    else:
        items = draw(strata, args.seed)
    print_sheet(list(enumerate(items, 1)), judged, args.unjudged, args.context)
    return 0


def wilson(true: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion."""
    if n == 0:
        return (0.0, 0.0)
    p = true / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def fraction(counter: Counter) -> tuple[str, str, str]:
    """true/judged, the share, and its 95% interval."""
    n = counter["true"] + counter["false"]
    low, high = wilson(counter["true"], n)
    share = 100 * counter["true"] / n if n else 0.0
    return f"{counter['true']}/{n}", f"{share:.1f}%", f"{100 * low:.1f}–{100 * high:.1f}%"


Tally = tuple[dict[str, dict[str, Counter]], list[tuple[Sampled, dict]], list[str]]


def tally(items: list[Sampled], judged: Judgments) -> Tally:
    """Per table (group, stratum, code, corpus), true/false counts; the false items; the unjudged keys."""
    group_of = {stratum: group for stratum, group, _, _ in STRATA}
    rows: dict[str, dict[str, Counter]] = {t: defaultdict(Counter) for t in ("group", "stratum", "code", "corpus")}
    false_items, missing = [], []
    for item in items:
        verdict = judged.verdicts.get(item.key)
        if verdict is None:
            missing.append(item.key)
            continue
        outcome = "true" if verdict["true"] else "false"
        for table, value in (("group", group_of[item.stratum]), ("stratum", item.stratum),
                             ("code", item.finding["code"]), ("corpus", item.corpus)):
            rows[table][value][outcome] += 1
        rows["group"]["all"][outcome] += 1
        if not verdict["true"]:
            false_items.append((item, verdict))
    return rows, false_items, missing


def print_table(title: str, rows: dict[str, Counter], sizes: Counter, markdown: bool) -> None:
    order = sorted(rows, key=lambda value: (value == "all", value))
    if markdown:
        print(f"| {title} | findings in the scans | true / judged | precision | 95% interval |")
        print("|---|---:|---:|---:|---|")
        for value in order:
            print(f"| {value} | {sizes.get(value, '')} | {' | '.join(fraction(rows[value]))} |")
        print()
    else:
        print(f"per {title}:")
        for value in order:
            true, share, interval = fraction(rows[value])
            print(f"  {value:<26} {sizes.get(value, ''):>6}  {true:>9}  {share:>6}  ({interval})")
        print()


def print_false(false_items: list[tuple[Sampled, dict]], judged: Judgments, markdown: bool) -> None:
    by_cause: dict[str, list[Sampled]] = defaultdict(list)
    for item, verdict in false_items:
        by_cause[verdict["cause"]].append(item)
    for cause, items in sorted(by_cause.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        if markdown:
            print(f"- **{cause}** ({len(items)}): {judged.causes[cause]}")
            for item in items:
                print(f"  - `{item.key}`")
        else:
            print(f"false, {cause} ({len(items)}): {judged.causes[cause]}")
            for item in items:
                print(f"    {item.key}")
    if markdown and by_cause:
        print()


def sizes_of(items: list[Sampled]) -> dict[str, Counter]:
    """Per table, how many findings each group, stratum, code and corpus has among `items` (the population)."""
    group_of = {stratum: group for stratum, group, _, _ in STRATA}
    sizes: dict[str, Counter] = {t: Counter() for t in ("group", "stratum", "code", "corpus")}
    for item in items:
        for table, value in (("group", group_of[item.stratum]), ("stratum", item.stratum),
                             ("code", item.finding["code"]), ("corpus", item.corpus), ("group", "all")):
            sizes[table][value] += 1
    return sizes


def score(args: argparse.Namespace) -> int:
    strata = population(args)
    judged = load_judgments()
    everything = [item for items in strata.values() for item in items]
    if args.census:
        items = [item for item in everything if item.stratum in NEEDS_ATTENTION]
        what = "every needs-attention finding (PK101-PK105) of the scans"
        sizes = sizes_of(items)
    else:
        items = draw(strata, args.seed)
        what = f"the sample (seed {args.seed})"
        sizes = sizes_of(everything)
    rows, false_items, missing = tally(items, judged)
    true, share, interval = fraction(rows["group"]["all"])
    line = f"{what}, target ROCm {ROCM_VERSION}: {true} true = {share} (95% Wilson interval {interval})"
    if not args.census:
        # Weighted by stratum size: the precision of one finding drawn at random from all of them.
        judged_strata = {s: c for s, c in rows["stratum"].items() if c["true"] + c["false"]}
        total = sum(sizes["stratum"][s] for s in judged_strata)
        weighted = sum(sizes["stratum"][s] * c["true"] / (c["true"] + c["false"])
                       for s, c in judged_strata.items()) / max(1, total)
        line += f"; weighted by stratum size: {100 * weighted:.1f}%"
    print(line, end="\n\n")
    for table in ("group", "stratum", "code", "corpus"):
        if args.census and table in ("group", "stratum"):
            continue
        print_table(table, rows[table], sizes[table], args.markdown)
    print_false(false_items, judged, args.markdown)
    if args.census:
        chosen = {item.key for item in items}
        others = [(item, judged.verdicts[item.key]) for item in everything if item.key not in chosen
                  and item.key in judged.verdicts and not judged.verdicts[item.key]["true"]]
        if others:
            print("Judged false outside the census (found by targeted review):" + ("\n" if args.markdown else ""))
            print_false(others, judged, args.markdown)
    if missing:
        print(f"{len(missing)} findings have no verdict yet; `bench/precision.py sheet --unjudged"
              f"{' --census' if args.census else ''}` lists them", file=sys.stderr)
        return 1
    return 0


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("scan", "sheet", "score"))
    parser.add_argument("--work", type=Path, default=Path("/tmp/portkit-precision"),
                        help="where the scan results are written (default /tmp/portkit-precision)")
    parser.add_argument("--seed", type=int, default=SEED, help=f"sampling seed (default {SEED}, the measured one)")
    parser.add_argument("--jobs", type=int, default=2, help="portkit scan workers (default 2)")
    parser.add_argument("--unjudged", action="store_true", help="sheet: only the findings without a verdict")
    parser.add_argument("--context", type=int, default=2, help="sheet: source lines around each finding")
    parser.add_argument("--markdown", action="store_true", help="score: Markdown tables")
    parser.add_argument("--census", action="store_true",
                        help="sheet/score: every needs-attention finding instead of the sample")
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"), help="where the git repositories are")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "portkit-bench",
                        help="where pinned commits are extracted")
    args = parser.parse_args(argv)
    args.cache = args.cache.expanduser()
    if args.work.resolve().is_relative_to(REPO_ROOT):
        parser.error("--work must be outside the repository")
    return args


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        return {"scan": scan, "sheet": sheet, "score": score}[args.command](args)
    except (BadInput, realworld.BadInput) as err:
        print(f"precision: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
