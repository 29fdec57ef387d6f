#!/usr/bin/env python3
"""Benchmark portkit scan and convert (cold and warm, with peak memory), and hipify-perl
on the same files when it is available, in one run.

Usage:
  bench/bench.py                      # generate a 2,000-file (~1M lines) tree and measure it
  bench/bench.py --tree DIR           # measure a real tree instead
  bench/bench.py --hipify-perl PATH   # also time hipify-perl (else: looked up on PATH)

Each measurement runs the installed `portkit` as a subprocess; peak memory is the
largest resident set of that process and its workers (ru_maxrss of the children).
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent


def run(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one command, run to completion."""
    start = time.perf_counter()
    pid = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(pid.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"failed: {' '.join(command)}: {pid.stderr.read().decode()[-500:] if pid.stderr else ''}")
    return elapsed, usage.ru_maxrss / 1024


def count_lines(tree: Path) -> tuple[int, int]:
    files = [p for p in tree.rglob("*") if p.suffix in (".cu", ".cuh", ".cpp", ".h", ".hpp", ".cc")]
    return len(files), sum(p.read_bytes().count(b"\n") for p in files)


def time_hipify(hipify: str, tree: Path, jobs: int) -> float:
    files = [str(p) for p in tree.rglob("*") if p.suffix in (".cu", ".cuh", ".cpp", ".h", ".hpp", ".cc")]
    start = time.perf_counter()
    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(lambda f: subprocess.run([hipify, "-quiet-warnings", f], capture_output=True, check=False), files))
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, help="an existing tree to measure")
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--hipify-perl", default=shutil.which("hipify-perl"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    portkit = shutil.which("portkit")
    if not portkit:
        raise SystemExit("portkit is not installed (pip install .)")
    work = Path(tempfile.mkdtemp(prefix="portkit-bench-"))
    tree = args.tree
    if tree is None:
        tree = work / "tree"
        subprocess.run([sys.executable, str(HERE / "gen_tree.py"), str(tree), "--files", str(args.files)], check=True)
    files, lines = count_lines(tree)
    env = {**os.environ, "PORTKIT_CACHE_DIR": str(work / "cache")}
    print(f"tree: {tree} ({files} files, {lines} lines), {args.jobs} jobs")
    rows = []
    for label, command in [
        ("scan cold (text)", [portkit, "scan", "-j", str(args.jobs), "--no-color", str(tree)]),
        ("scan warm (text)", [portkit, "scan", "-j", str(args.jobs), "--no-color", str(tree)]),
        ("scan warm (json)", [portkit, "scan", "-j", str(args.jobs), "-f", "json", "-o", str(work / "scan.json"), str(tree)]),
        ("scan --no-cache (text)", [portkit, "scan", "-j", str(args.jobs), "--no-cache", "--no-color", str(tree)]),
        ("convert warm", [portkit, "convert", "-j", str(args.jobs), str(tree), "-o", str(work / "hip")]),
    ]:
        seconds, peak = run(command, env)
        rows.append((label, seconds, peak))
        print(f"{label:24} {seconds:8.2f} s  {lines / seconds / 1000:8.1f} klines/s  peak {peak:7.0f} MB", flush=True)
    if args.hipify_perl:
        seconds = time_hipify(args.hipify_perl, tree, args.jobs)
        convert = next(s for label, s, _ in rows if label.startswith("convert"))
        print(f"{'hipify-perl':24} {seconds:8.2f} s  {lines / seconds / 1000:8.1f} klines/s")
        print(f"convert / hipify-perl throughput ratio: {seconds / convert:.1f}x")
    else:
        print("hipify-perl: not found (pass --hipify-perl PATH); no ratio measured")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
