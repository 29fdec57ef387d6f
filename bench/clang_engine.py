#!/usr/bin/env python3
"""Measure `--engine clang` on a tree: fallbacks, findings by engine against tree-sitter, seconds per unit.

Usage:
  bench/clang_engine.py PATH... [-p BUILD_DIR] [--headers DIR] [--jobs N]

Runs this checkout's portkit as a subprocess, four times, each in a fresh cache
directory shared by its runs: tree-sitter, then clang cold (no precompiled
header yet), clang warm (precompiled headers reused, every unit parsed again:
--no-cache) and clang cached (results reused). With --headers DIR the NVIDIA
library headers are on the engine's path ($PORTKIT_CUDA_HEADERS); without, the
engine parses against its stand-ins. Then, in this process, each unit is parsed
once more with the warm cache, one at a time: the engine's own seconds per unit
(libclang's parse with the precompiled header, and the walk over its tree), in
CPU seconds. The load average is printed: wall seconds on a busy machine are not
the engine's.
Prints a Markdown table row and the findings only one engine has, by kind.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UNITS = (".cu", ".cpp", ".cc", ".cxx", ".c")


def portkit(args: list[str], env: dict[str, str]) -> tuple[float, dict]:
    start = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "portkit", "scan", "-f", "json", "--rocm-version", "6.2", *args],
                         env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if run.returncode != 0:
        raise SystemExit(f"portkit failed: {run.stderr[-2000:]}")
    return elapsed, json.loads(run.stdout)


def api_sites(data: dict) -> set[tuple[str, int, int, str]]:
    return {(f["path"], f["line"], f["column"], f["name"]) for f in data["findings"] if f["code"].startswith("PK1")}


def unit_seconds(paths: list[Path], database: str | None) -> list[tuple[float, float]]:
    """Each unit's parse (warm precompiled headers), one after another, in this process: CPU seconds, which
    other work on a shared machine inflates far less than wall seconds (libclang runs in this thread)."""
    sys.path.insert(0, str(ROOT))
    from portkit.parse.clang import parse_unit
    from portkit.run.engines import CLANG_UNITS, clang_job
    from portkit.rules import load_database
    from portkit.settings import resolve_settings
    from portkit.walk import discover

    settings = resolve_settings([str(p) for p in paths], engine="clang", compile_database=database)
    files, _ = discover(settings.paths, settings.extensions, settings.excludes)
    job = clang_job(settings, load_database(), files)
    seconds = []
    for file in files:
        if file.file_type == "source" and file.path.lower().endswith(CLANG_UNITS):
            data = Path(file.path).read_bytes()
            cpu, wall = time.process_time(), time.perf_counter()
            parse_unit(file.path, data, job.flags(file.path), job.env, frozenset(job.project_headers),
                       job.prefixes.get(os.path.realpath(file.path)))
            seconds.append((time.process_time() - cpu, time.perf_counter() - wall))
    return seconds


def mean(values: list[float]) -> float:
    return sum(values) / max(len(values), 1)


def difference(tree: dict, clang: dict) -> dict[str, int]:
    """The API sites only one engine reports, by why."""
    tree_sites, clang_sites = api_sites(tree), api_sites(clang)
    by_site = {(f["path"], f["line"], f["column"], f["name"]): f for f in clang["findings"]}
    kinds: collections.Counter = collections.Counter()
    for site in clang_sites - tree_sites:
        message = by_site[site]["message"]
        kinds["clang only: through a macro, at its use" if "(via macro" in message else
              "clang only: qualified by clang (using-directive, alias, template)"] += 1
    for _ in tree_sites - clang_sites:
        kinds["tree-sitter only: not a CUDA declaration to clang, or inactive code"] += 1
    return dict(kinds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path, help="the tree (or files) to scan")
    parser.add_argument("-p", dest="database", help="a directory with compile_commands.json")
    parser.add_argument("--headers", help="NVIDIA library headers (scripts/cuda-headers prints the directory)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PORTKIT_CUDA_HEADERS", None)
    if args.headers:
        env["PORTKIT_CUDA_HEADERS"] = args.headers
    common = ["-j", str(args.jobs), *(["-p", args.database] if args.database else []), *map(str, args.paths)]
    with tempfile.TemporaryDirectory() as cache:
        env["PORTKIT_CACHE_DIR"] = cache
        tree_seconds, tree = portkit(["--no-cache", *common], env)
        cold, clang = portkit(["--engine", "clang", "--no-cache", *common], env)
        warm, _ = portkit(["--engine", "clang", "--no-cache", *common], env)
        portkit(["--engine", "clang", *common], env)  # fills the result cache
        cached, _ = portkit(["--engine", "clang", *common], env)
        os.environ.clear()
        os.environ.update(env)  # the same headers and cache directory, for this process
        per_unit = unit_seconds(args.paths, args.database)
    units = sum(1 for f in clang["files"] if f["path"].lower().endswith(UNITS))
    fallbacks = [d for d in clang["diagnostics"] if d["kind"] == "engine"]
    engines = collections.Counter(f["engine"] for f in clang["findings"] if f["code"].startswith("PK1"))
    print("| tree | headers | units | fallbacks | API sites: tree-sitter / clang (by clang) | wall s: tree-sitter "
          "| clang cold | warm | cached | warm s per unit: CPU mean / max, wall mean |")
    print(f"| {' '.join(p.name for p in args.paths)} | {'wheels' if args.headers else 'stand-ins'} | {units} "
          f"| {len(fallbacks)} | {len(api_sites(tree))} / {len(api_sites(clang))} ({engines['clang']}) "
          f"| {tree_seconds:.1f} | {cold:.1f} | {warm:.1f} | {cached:.1f} "
          f"| {mean([c for c, _ in per_unit]):.2f} / {max((c for c, _ in per_unit), default=0):.2f}, "
          f"{mean([w for _, w in per_unit]):.2f} |")
    print(f"  load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for kind, count in sorted(difference(tree, clang).items()):
        print(f"  {kind}: {count}")
    for diagnostic in fallbacks:
        print(f"  fell back: {diagnostic['path']}: {diagnostic['message']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
