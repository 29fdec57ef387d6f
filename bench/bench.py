#!/usr/bin/env python3
"""Benchmark portkit at monorepo scale against its targets (docs/performance.md), in one run.

Usage:
  bench/bench.py                          # >1M lines of real public CUDA (bench/scale.toml) + real CUDA code
  bench/bench.py --tree DIR               # measure an existing tree instead
  bench/bench.py --stress                 # bench/gen_tree.py's generated tree instead (a stress test of
                                          # dense code; it proves no target)
  bench/bench.py --hipify-perl PATH       # also convert with hipify-perl (else: looked up on PATH)
  bench/bench.py --real DIR               # real CUDA code for the convert row (default: the
                                          # pinned cuda-samples of bench/scale.toml)

Rows: scan cold (`--no-cache`), the floor under it (tree-sitter's parses of each file, its own bytes and
those the scan's pre-parse fixes write, portkit's query and the look-up of each captured name alone, none
of portkit's Python that prepares them: bench/parse_floor.py), the first run (fills the cache),
warm (nothing changed), warm after touching 10 files, peak memory, the linearity row (the
tree's two halves scanned cold apart and together: together must cost no more than 1.1 times
the sum), `portkit check` on 5 touched files (what pre-commit runs), a scan of one small
file, and convert of real CUDA files beside hipify-perl on the same files. Every portkit
run is the installed `portkit` (or `--portkit CMD`) as a subprocess; peak memory is the
largest resident set of the process and its workers (ru_maxrss of the children). The generated tree's files
are dated an hour back, as in a checkout nobody is editing: a file modified within two
seconds of being read is read again on the next run (portkit/run/statindex.py).
Python modules are byte-compiled (into the run's own cache, never the package), as in
an installed package: a sandbox's PYTHONDONTWRITEBYTECODE would otherwise compile every
module at every start. The cold scan and the floor alternate `--repeat` times (default 3), as
do the convert row and hipify-perl, and each reports its median; the warm scan and the scan after touching 10 files
(each round edits the same files again), the check, the small file and the linearity ratio (each round's three
scans) are the medians of as many runs. So one slow run on a shared
machine does not decide a row.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import shlex
import statistics
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".h", ".hpp")
REAL_DEFAULT = Path.home() / ".cache" / "portkit-bench"
# Directories of hand-written ports and other models in the real corpora: not CUDA input.
NOT_CUDA = ("hip", "sycl", "dpcpp", "openmp", "omp", "kokkos", "raja", "opencl", "ocl", "acc", "std", "deps")

SCALE = HERE / "scale.toml"

FLOOR = "floor: parse, query, name look-ups"
COLD = "scan, cold (--no-cache)"
TARGETS = {  # row -> (target, "s", "MB" or "x")
    "scan, cold per million lines": (10.0, "s"),
    "scan, cold / floor": (1.5, "x"),
    "scan, warm (nothing changed)": (1.0, "s"),
    "scan, warm after touching 10 files": (2.0, "s"),
    "peak memory (any scan above)": (500.0, "MB"),
    "linearity: together / (A + B)": (1.1, "x"),
    "check, 5 touched files (pre-commit)": (0.5, "s"),
    "scan, one small file": (0.25, "s"),
    "convert vs hipify-perl (time ratio)": (0.33, "x"),
}


def run(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one command, run to completion."""
    start = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    error = process.stderr.read().decode(errors="replace") if process.stderr else ""
    # 1 is a scan that found something; Python exits 1 on an uncaught exception too, so a traceback is a failure.
    if os.waitstatus_to_exitcode(status) not in (0, 1) or "Traceback (most recent call last)" in error:
        raise SystemExit(f"failed: {shlex.join(command)}: {error[-500:]}")
    return elapsed, usage.ru_maxrss / 1024


def sources(tree: Path) -> list[Path]:
    return sorted(p for p in tree.rglob("*") if p.suffix in SOURCE_SUFFIXES and p.is_file())


def count_lines(files: list[Path]) -> int:
    return sum(p.read_bytes().count(b"\n") for p in files)


def age(tree: Path, seconds: int = 3600) -> None:
    then = time.time_ns() - seconds * 10**9
    for path in tree.rglob("*"):
        os.utime(path, ns=(then, then), follow_symlinks=False)


def touch(files: list[Path], count: int, tag: str) -> list[Path]:
    """Edit `count` files spread over the tree (a comment appended), as a commit would."""
    step = max(1, len(files) // count)
    chosen = files[::step][:count]
    for path in chosen:
        with path.open("a") as handle:
            handle.write(f"// edited: {tag}\n")
    return chosen


def real_cuda(root: Path, work: Path) -> Path:
    """Copy the CUDA sources of the real corpora (never their HIP ports) into one tree."""
    out = work / "real"
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if path.suffix not in SOURCE_SUFFIXES or not path.is_file() \
                or any(part.lower() in NOT_CUDA or "hip" in part.lower() for part in relative.parts[1:-1]):
            continue
        if path.suffix in (".cu", ".cuh") or any(path.parent.glob("*.cu")):
            (out / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, out / relative)
    return out


def hipify_batches(hipify: str, files: list[Path], jobs: int) -> float:
    """hipify-perl's batch mode (many files per process), one batch per core, output discarded."""
    batches = [files[i::jobs] for i in range(jobs)]
    start = time.perf_counter()
    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(lambda batch: subprocess.run(["perl", hipify, "-quiet-warnings", *map(str, batch)],
                                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False),
                      [b for b in batches if b]))
    return time.perf_counter() - start


def warm_up(portkit: list[str], work: Path, env: dict[str, str]) -> None:
    """Scan and convert one small file first: every module is byte-compiled before anything is timed."""
    small = work / "warm-up"
    small.mkdir()
    (small / "k.cu").write_text("__global__ void k(float* x) { x[threadIdx.x] = 0; }\n"
                                "int main() { float* d; cudaMalloc(&d, 4); k<<<1, 1>>>(d); return 0; }\n")
    run([*portkit, "scan", "--no-cache", str(small)], env)
    run([*portkit, "convert", "--no-cache", str(small), "-o", str(work / "warm-up-hip")], env)


def report(rows: list[tuple[str, float, str]]) -> None:
    print(f"\n{'measure':40} {'measured':>12} {'target':>10}  verdict")
    for label, value, note in rows:
        target, unit = TARGETS.get(label, (None, ""))
        shown = f"{value:.2f} {unit}" if unit != "x" else f"{value:.2f}x"
        goal = "" if target is None else (f"<= {target:g} {unit}" if unit != "x" else f"<= {target:g}x")
        verdict = "" if target is None else ("met" if value <= target else "missed")
        print(f"{label:40} {shown:>12} {goal:>10}  {verdict} {note}".rstrip())


def scan_rows(portkit: list[str], tree: Path, jobs: int, env: dict[str, str], lines: int,
              work: Path, repeat: int = 1) -> list[tuple[str, float, str]]:
    files = sources(tree)
    scan = [*portkit, "scan", "-j", str(jobs), "--no-color", str(tree)]
    cold, floor, cold_peak = cold_and_floor([*scan, "--no-cache"], tree, jobs, env, repeat)
    print(f"{COLD:40} {cold:8.2f} s  {lines / cold / 1000:8.1f} klines/s  peak {cold_peak:7.0f} MB", flush=True)
    measured: list[tuple[str, float, float]] = [(COLD, cold, cold_peak)]
    measured.append(timed("scan, first run (fills the cache)", scan, env, lines))
    # Warm, then warm after an edit of 10 files, `repeat` rounds (each edits the same files again): their medians.
    warm, touched = [], []
    for round_number in range(repeat):
        warm.append(run(scan, env))
        touch(files, 10, f"scan {round_number}")
        touched.append(run(scan, env))
    for label, runs in (("scan, warm (nothing changed)", warm), ("scan, warm after touching 10 files", touched)):
        measured.append(printed(label, statistics.median(s for s, _ in runs), max(p for _, p in runs), lines))
    json_scan = [*scan[:-1], "-f", "json", "-o", str(work / "scan.json"), str(tree)]
    measured.append(timed("scan, warm JSON (nothing changed)", json_scan, env, lines))
    note = f"(median of {repeat})" if repeat > 1 else ""
    repeated = (COLD, "scan, warm (nothing changed)", "scan, warm after touching 10 files")
    rows = [(label, seconds, note if label in repeated else "") for label, seconds, _ in measured]
    rows.insert(1, ("scan, cold per million lines", cold * 1e6 / lines, f"({lines} lines)"))
    if floor is not None:
        rows.insert(2, (FLOOR, floor, f"(bench/parse_floor.py: no scan is faster) {note}".rstrip()))
        rows.insert(3, ("scan, cold / floor", cold / floor, ""))
    rows.append(("peak memory (any scan above)", max(peak for _, _, peak in measured), ""))
    return rows + latency_rows(portkit, files, env, work, repeat)


def timed(label: str, command: list[str], env: dict[str, str], lines: int) -> tuple[str, float, float]:
    """One run of `command`, printed as it ends: its seconds and peak memory."""
    return printed(label, *run(command, env), lines)


def printed(label: str, seconds: float, peak: float, lines: int) -> tuple[str, float, float]:
    print(f"{label:40} {seconds:8.2f} s  {lines / seconds / 1000:8.1f} klines/s  peak {peak:7.0f} MB", flush=True)
    return label, seconds, peak


def cold_and_floor(command: list[str], tree: Path, jobs: int, env: dict[str, str],
                   repeat: int) -> tuple[float, float | None, float]:
    """The cold scan and the floor under it, alternating `repeat` times (a slow spell of the machine hits both):
    their medians, and the scans' peak memory."""
    colds: list[float] = []
    floors: list[float] = []
    peak = 0.0
    prepared = floor_prepared(tree, env)
    for _ in range(repeat):
        seconds, used = run(command, env)
        colds.append(seconds)
        peak = max(peak, used)
        floor = parse_floor(tree, jobs, env, prepared)
        if floor is not None:
            floors.append(floor)
    return statistics.median(colds), statistics.median(floors) if floors else None, peak


def latency_rows(portkit: list[str], files: list[Path], env: dict[str, str], work: Path,
                 repeat: int = 1) -> list[tuple[str, float, str]]:
    """What a developer waits for: the pre-commit check of a small commit, and a scan of one small file (each the
    median of `repeat` runs: a command of a fifth of a second moves by half of that on a busy machine)."""
    checks = []
    for _ in range(repeat):
        changed = touch(files, 5, "check")
        checks.append(run([*portkit, "check", *map(str, changed)], env)[0])
    smalls = [run([*portkit, "scan", "--no-cache", str(work / "warm-up" / "k.cu")], env)[0] for _ in range(repeat)]
    check, small = statistics.median(checks), statistics.median(smalls)
    print(f"{'check, 5 touched files':40} {check:8.2f} s", flush=True)
    print(f"{'scan, one small file':40} {small:8.2f} s", flush=True)
    note = f"(median of {repeat})" if repeat > 1 else ""
    return [("check, 5 touched files (pre-commit)", check, note), ("scan, one small file", small, note)]


def linearity_rows(portkit: list[str], tree: Path, jobs: int, env: dict[str, str], repeat: int = 1
                   ) -> list[tuple[str, float, str]]:
    """The halves A and B of the tree scanned cold apart, then together: a per-file cost that grows with the
    project makes the whole cost more than its parts. `repeat` rounds, each a ratio of its own three scans (the
    machine's mood moves all three alike): their median, as for the other rows."""
    halves = [tree / "A", tree / "B"]
    if not all(half.is_dir() for half in halves):
        print("linearity: the tree has no A/ and B/ halves; not measured")
        return []
    scan = [*portkit, "scan", "-j", str(jobs), "--no-color", "--no-cache"]
    rounds = []
    for _ in range(repeat):
        apart = [run([*scan, str(half)], env)[0] for half in halves]
        together, _ = run([*scan, *map(str, halves)], env)
        print(f"{'linearity: A, B, A and B together':40} {apart[0]:8.2f} s {apart[1]:8.2f} s {together:8.2f} s", flush=True)
        rounds.append((together / sum(apart), together, apart))
    ratio, together, apart = sorted(rounds)[len(rounds) // 2]
    return [("linearity: together / (A + B)", ratio,
             f"({together:.2f} s / {apart[0]:.2f} s + {apart[1]:.2f} s{f', median of {repeat}' if repeat > 1 else ''})")]


def floor_prepared(tree: Path, env: dict[str, str]) -> Path | None:
    """The bytes a scan of `tree` parses after each file's own (its pre-parse fixes), found once, untimed (the
    macro table, the fixes and the choice of tree are portkit's Python, not floor), for the floor to make the
    scan's parses; None where portkit cannot be imported here."""
    if importlib.util.find_spec("portkit") is None:
        return None
    prepared = tree.parent / "floor-prepared.pickle"
    subprocess.run([sys.executable, str(HERE / "parse_floor.py"), str(tree), "--save-prepared", str(prepared)],
                   env=env, check=True)
    return prepared


def parse_floor(tree: Path, jobs: int, env: dict[str, str], prepared: Path | None = None) -> float | None:
    """Wall seconds of tree-sitter's parses (each file's bytes, and those a scan parses again, `prepared`) and
    portkit's query of the tree and the look-up of each captured name alone, in as many processes as the scans: the
    floor under a cold scan. It needs portkit importable here."""
    if importlib.util.find_spec("portkit") is None:
        print(f"{FLOOR:40} not measured: {sys.executable} cannot import portkit")
        return None
    again = ["--prepared", str(prepared)] if prepared is not None else []
    seconds, _ = run([sys.executable, str(HERE / "parse_floor.py"), "-j", str(jobs), "--names", *again, str(tree)], env)
    print(f"{FLOOR:40} {seconds:8.2f} s", flush=True)
    return seconds


def creation_cost(probe: Path, count: int = 200) -> float:
    """Seconds to create one small file in `probe`, a new directory. On the machine of docs/performance.md it
    ranged from 30 to 350 µs by where the directory was: ext4 slows down where many files were just deleted (an
    earlier run's tree), and convert creates a file for each of its 488 sources. The files are left for `work`'s
    removal: deleting them here would slow what comes next."""
    probe.mkdir()
    start = time.perf_counter()
    for i in range(count):
        (probe / f"f{i}").write_bytes(b"x" * 4096)
    return (time.perf_counter() - start) / count


def convert_rows(portkit: list[str], real: Path, jobs: int, env: dict[str, str], hipify: str | None,
                 work: Path, repeat: int) -> list[tuple[str, float, str]]:
    files = sources(real)
    lines = count_lines(files)
    print(f"\nreal CUDA code: {real} ({len(files)} files, {lines} lines)")
    print(f"creating a file in {work}: {creation_cost(work / 'probe') * 1e6:.0f} µs (convert creates one per "
          "source; hipify-perl's output goes to a pipe)")
    if not hipify:
        print("hipify-perl: not found (pass --hipify-perl PATH); no ratio measured")
    ours: list[float] = []
    theirs: list[float] = []
    for attempt in range(repeat):  # alternating, so that a slow spell of the machine hits both
        # A fresh output directory each time, all removed with `work` at the end: deleting the last attempt's
        # files right before the next made creating its files slower on a file system without a journal
        # (ext4 then skips recently freed inodes one by one), a cost of the harness, not of converting.
        out = work / f"hip-{attempt}"
        seconds, peak = run([*portkit, "convert", "-j", str(jobs), "--no-cache", str(real), "-o", str(out)], env)
        ours.append(seconds)
        print(f"{'convert (--no-cache)':40} {seconds:8.2f} s  {lines / seconds / 1000:8.1f} klines/s  peak {peak:7.0f} MB")
        if hipify:
            theirs.append(hipify_batches(hipify, files, jobs))
            print(f"{'hipify-perl (batch, one per core)':40} {theirs[-1]:8.2f} s  {lines / theirs[-1] / 1000:8.1f} klines/s")
    seconds = statistics.median(ours)
    rows = [("convert real files (--no-cache)", seconds, f"(median of {repeat})")]
    if not theirs:
        return rows
    reference = statistics.median(theirs)
    return rows + [("hipify-perl, same files", reference, f"(median of {repeat})"),
                   ("convert vs hipify-perl (time ratio)", seconds / reference, "(portkit time / hipify-perl time)")]


def scale_tree(config: Path, mirror: Path, cache: Path, work: Path) -> Path:
    """The pinned real trees of `config` (bench/scale.toml) copied into halves A/ and B/ of one tree (copied,
    since the bench touches files: never the extracted originals)."""
    import realworld  # bench/realworld.py's extraction: pinned commits, blobs absent from a mirror skipped

    tree = work / "tree"
    for entry in tomllib.loads(config.read_text())["tree"]:
        corpus = realworld.Corpus(entry["name"], entry["repo"], entry["commit"], [], [])
        root = realworld.extract(corpus, mirror, cache)
        for pattern in entry["paths"]:
            for directory in sorted(root.glob(pattern)):
                if directory.name.startswith("."):
                    continue
                target = tree / entry["half"] / entry["name"] / directory.relative_to(root)
                if directory.is_dir():
                    shutil.copytree(directory, target, symlinks=True)
                else:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(directory, target, follow_symlinks=False)
    return tree


def the_tree(args: argparse.Namespace, work: Path) -> Path:
    if args.stress:
        tree = work / "tree"
        subprocess.run([sys.executable, str(HERE / "gen_tree.py"), str(tree), "--files", str(args.files)], check=True)
    elif args.tree is not None:
        tree = Path(shutil.copytree(args.tree, work / "tree", symlinks=True))  # touched below: never the original
    else:
        tree = scale_tree(args.scale, args.mirror, args.cache.expanduser(), work)
    age(tree)
    return tree


def installed_portkit() -> str | None:
    """The `portkit` script pip installed beside the Python running the bench: what a virtual environment runs.
    A version manager's shim found first on PATH (pyenv's: bash, then pyenv, then the script) is not timed: it
    cost 0.12 s of every command on the machine of docs/performance.md, none of it portkit's."""
    beside = Path(sys.executable).parent / "portkit"
    return str(beside) if beside.is_file() and os.access(beside, os.X_OK) else shutil.which("portkit")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, help="an existing tree to scan (default: bench/scale.toml's real code)")
    parser.add_argument("--stress", action="store_true", help="scan bench/gen_tree.py's generated tree instead")
    parser.add_argument("--files", type=int, default=2000, help="files in the generated tree (default 2000)")
    parser.add_argument("--scale", type=Path, default=SCALE, help="the pinned real trees (default bench/scale.toml)")
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"), help="where the git mirrors are")
    parser.add_argument("--cache", type=Path, default=REAL_DEFAULT / "scale",
                        help="where the pinned commits of --scale are extracted")
    parser.add_argument("--real", type=Path, help="real CUDA code for the convert row (default: the cuda-samples "
                        "of bench/scale.toml, pinned; a tree of --tree or --stress has none)")
    parser.add_argument("--hipify-perl", default=shutil.which("hipify-perl"))
    parser.add_argument("--portkit", default=installed_portkit(),
                        help="portkit command (default: the script installed beside this Python, else on PATH)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of the cold scan and the floor, alternating; of each latency row; of convert and "
                             "hipify-perl, alternating (medians)")
    args = parser.parse_args()
    if not args.portkit:
        raise SystemExit("portkit is not installed (pip install .), or pass --portkit CMD")
    portkit = shlex.split(args.portkit)
    work = Path(tempfile.mkdtemp(prefix="portkit-bench-"))
    try:
        tree = the_tree(args, work)
        env = {**os.environ, "PORTKIT_CACHE_DIR": str(work / "cache"), "PYTHONPYCACHEPREFIX": str(work / "pycache")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        warm_up(portkit, work, env)
        lines = count_lines(sources(tree))
        print(f"tree: {tree} ({len(sources(tree))} files, {lines} lines), {args.jobs} jobs")
        rows = scan_rows(portkit, tree, args.jobs, env, lines, work, max(1, args.repeat)) \
            + linearity_rows(portkit, tree, args.jobs, env, args.repeat)
        real = args.real or tree / "B" / "cuda-samples"
        if real.is_dir():
            rows += convert_rows(portkit, real_cuda(real, work), args.jobs, env, args.hipify_perl, work,
                                 max(1, args.repeat))
        else:
            print(f"real CUDA code: {real} not found; no convert row")
        report(rows)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
