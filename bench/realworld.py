#!/usr/bin/env python3
"""Real-world conversion benchmark: do converted public CUDA programs compile for AMD?

For every program listed in bench/realworld.toml (public projects pinned by repository
and commit), this converts the CUDA version with `portkit convert` (and, with
--hipify-perl, with hipify-perl), compiles each translation unit with
`hipcc -fsyntax-only -x hip` for gfx90a, and compiles the project's own hand-written HIP
version the same way. Only programs whose hand port compiles count: the report gives
"programs compiling / programs whose hand port compiles" per corpus, the unit counts,
and the first error of every failure grouped by cause.

Usage:
  bench/realworld.py                                  # every corpus in realworld.toml
  bench/realworld.py --corpus rodinia --jobs 2
  bench/realworld.py --hipify-perl /path/to/hipify-perl --json results.json --keep /tmp/trees
  bench/realworld.py --stage build                    # build with the converted build files (build_stage.py)
  bench/realworld.py --stage build --corpus hecbench --keep /tmp/builds

Corpora come from git repositories under --mirror (default /work/.mirror): a bare mirror
MIRROR/OWNER+NAME/repo, or a plain clone (MIRROR/OWNER+NAME or MIRROR/NAME, as
`git clone URL` makes it). The pinned commit is extracted into --cache (default
~/.cache/portkit-bench), never into this repository. Not part of CI, not a unit test.
Exit 0 when it ran (whatever compiled), 2 with one line on stderr on bad input.
"""
from __future__ import annotations

import argparse
import fnmatch
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import build_stage

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent
HIPCC_BASE = ["--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip"]
# The extensions hipify-perl is run on; every other file is copied as it is.
SOURCE_SUFFIXES = {".cu", ".cuh", ".cpp", ".cxx", ".cc", ".c", ".h", ".hpp", ".hh", ".hxx", ".inl", ".inc"}
HIPCC_TIMEOUT = 600
CONVERT_TIMEOUT = 900
TOOLS = ("portkit", "hipify-perl")


class BadInput(Exception):
    """Wrong configuration or arguments: reported in one line, exit 2."""


# ---------------------------------------------------------------- configuration


@dataclass
class Program:
    name: str
    cuda: str                 # CUDA program directory, relative to the corpus root
    hip: str                  # hand-written HIP directory, relative to the corpus root
    units: list[str]          # globs of translation units, relative to `cuda`
    hip_units: list[str]      # the same for `hip`
    flags: list[str]
    hip_flags: list[str]
    files: list[str]          # if set, only these globs of `cuda` are converted
    exclude: list[str]        # globs of `cuda` left out of the conversion
    generated: dict[str, str] = field(default_factory=dict)  # files the project's build writes


@dataclass
class Corpus:
    name: str
    repo: str
    commit: str
    programs: list[Program]
    discover: list[dict]      # rules expanded into programs once the tree is extracted
    root: Path | None = None  # the extracted tree


@dataclass
class Dependency:
    """A header-only library some programs need that the installed ROCm lacks (Debian packages
    no rocThrust): extracted like a corpus; `{dep:NAME}` in flags stands for its root."""

    name: str
    repo: str
    commit: str
    generated: dict[str, str]
    programs: list = field(default_factory=list)  # none: extract() treats it like a corpus
    root: Path | None = None


def load_dependencies(path: Path) -> list[Dependency]:
    data = tomllib.loads(path.read_text())
    deps = []
    for raw in data.get("dependency", []):
        if not all(isinstance(raw.get(k), str) for k in ("name", "repo", "commit")):
            raise BadInput(f"{path}: every [[dependency]] needs string 'name', 'repo' and 'commit'")
        deps.append(Dependency(raw["name"], raw["repo"], raw["commit"], raw.get("generated", {})))
    return deps


def load_config(path: Path) -> list[Corpus]:
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise BadInput(f"cannot read {path}: {err}") from None
    corpora = []
    for raw in data.get("corpus", []):
        for key in ("name", "repo", "commit"):
            if not isinstance(raw.get(key), str):
                raise BadInput(f"{path}: every [[corpus]] needs a string '{key}'")
        if not re.fullmatch(r"[0-9a-f]{40}", raw["commit"]):
            raise BadInput(f"{path}: corpus {raw['name']}: commit must be a full 40-digit sha")
        base_flags = raw.get("flags", [])
        programs = [make_program(p, base_flags, f"{path}: corpus {raw['name']}") for p in raw.get("program", [])]
        discover = [{**rule, "flags": base_flags + rule.get("flags", [])} for rule in raw.get("discover", [])]
        if any(not isinstance(r.get("glob"), str) or len(r.get("twin", [])) != 2 for r in discover):
            raise BadInput(f"{path}: corpus {raw['name']}: every [[corpus.discover]] needs 'glob' and a 'twin' pair")
        corpora.append(Corpus(raw["name"], raw["repo"], raw["commit"], programs, discover))
    if not corpora:
        raise BadInput(f"{path}: no [[corpus]] entries")
    return corpora


def make_program(raw: dict, base_flags: list[str], where: str) -> Program:
    for key in ("name", "cuda", "hip", "units"):
        if key not in raw:
            raise BadInput(f"{where}: program {raw.get('name', '?')} needs '{key}'")
    flags = base_flags + raw.get("flags", [])
    return Program(
        name=raw["name"], cuda=raw["cuda"], hip=raw["hip"],
        units=raw["units"], hip_units=raw.get("hip_units", raw["units"]),
        flags=flags, hip_flags=base_flags + raw["hip_flags"] if "hip_flags" in raw else flags,
        files=raw.get("files", []), exclude=raw.get("exclude", []), generated=raw.get("generated", {}),
    )


def discover_programs(corpus: Corpus) -> list[Program]:
    """Expand [[corpus.discover]]: each file matching `glob` is a one-file program whose
    hand port is the path rewritten by the regex pair `twin`; files without a twin are skipped."""
    programs = []
    for rule in corpus.discover:
        pattern, replacement = rule["twin"]
        stem = rule["glob"].split("*", 1)[0]  # names are relative to the glob's fixed prefix
        for match in sorted(glob.glob(rule["glob"], root_dir=corpus.root, recursive=True)):
            twin = re.sub(pattern, replacement, match)
            if twin == match or not (corpus.root / twin).is_file():
                continue
            name = rule.get("prefix", "") + str(Path(match[len(stem):]).with_suffix(""))
            programs.append(Program(
                name=name, cuda=str(Path(match).parent), hip=str(Path(twin).parent),
                units=[Path(match).name], hip_units=[Path(twin).name],
                flags=rule["flags"], hip_flags=rule["flags"], files=[], exclude=rule.get("exclude", []),
            ))
    return programs


# ---------------------------------------------------------------- corpora


def git(git_dir: Path, *args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True, check=False, **kwargs)


def find_git_dir(mirror: Path, repo: str) -> Path:
    """The git directory holding `repo`: a bare mirror OWNER+NAME/repo, or a clone."""
    owner_name = repo.replace("/", "+")
    for candidate in (mirror / owner_name / "repo", mirror / owner_name, mirror / repo.split("/")[1]):
        if (candidate / ".git").is_dir():
            return candidate / ".git"
        if (candidate / "objects").is_dir() and (candidate / "HEAD").is_file():
            return candidate
    name = repo.split("/")[1]
    raise BadInput(f"no copy of {repo} under {mirror}: run `git clone https://github.com/{repo} {mirror / name}` "
                   f"(or pass --mirror DIR)")


def extract(corpus: Corpus, mirror: Path, cache: Path) -> Path:
    """Extract the pinned commit once into the cache; a marker file says it is complete."""
    root = cache / f"{corpus.repo.replace('/', '+')}-{corpus.commit[:12]}"
    if (root / ".complete").is_file():
        return root
    git_dir = find_git_dir(mirror, corpus.repo)
    if git(git_dir, "cat-file", "-e", f"{corpus.commit}^{{commit}}").returncode != 0:
        raise BadInput(f"commit {corpus.commit} of {corpus.repo} is not in {git_dir}: fetch it (git fetch)")
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    missing = write_tree(git_dir, corpus.commit, root)
    if missing:
        # Mirrors fetched with a size filter lack big data files; sources are small.
        print(f"  {corpus.repo}: {len(missing)} blobs absent from the mirror, skipped "
              f"(e.g. {missing[0]})", file=sys.stderr)
    (root / ".complete").write_text(corpus.commit + "\n")
    return root


def write_tree(git_dir: Path, commit: str, root: Path) -> list[str]:
    """Write every file of `commit` under `root`, blob by blob, so that blobs missing from
    a partial mirror are skipped instead of failing the whole extraction (git archive would)."""
    listing = git(git_dir, "ls-tree", "-r", "-z", commit).stdout.decode().split("\0")
    entries = []
    for line in filter(None, listing):
        meta, path = line.split("\t", 1)
        mode, kind, sha = meta.split()
        if kind == "blob":
            entries.append((mode, sha, path))
    batch = subprocess.Popen(["git", f"--git-dir={git_dir}", "cat-file", "--batch"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    missing = []
    for mode, sha, path in entries:
        batch.stdin.write(sha.encode() + b"\n")
        batch.stdin.flush()
        header = batch.stdout.readline().split()
        if header[1] == b"missing":
            missing.append(path)
            continue
        content = batch.stdout.read(int(header[2]))
        batch.stdout.read(1)  # the newline after each object
        write_entry(root / path, mode, content)
    batch.stdin.close()
    batch.wait()
    return missing


def write_entry(target: Path, mode: str, content: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if mode == "120000":
        target.symlink_to(content.decode())
    else:
        target.write_bytes(content)
        if mode == "100755":
            target.chmod(0o755)


# ---------------------------------------------------------------- conversion


def copy_filtered(src: Path, dest: Path, files: list[str], exclude: list[str]) -> None:
    """Copy a program directory, keeping only `files` globs (if any) and dropping `exclude` globs."""
    for path in sorted(src.rglob("*")):
        rel = path.relative_to(src).as_posix()
        if path.is_dir() or (files and not any(fnmatch.fnmatch(rel, g) for g in files)):
            continue
        if any(fnmatch.fnmatch(rel, g) for g in exclude):
            continue
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, dest / rel, follow_symlinks=True)


def write_generated(tree: Path, generated: dict[str, str]) -> None:
    """Write the files the project's build would generate (e.g. a version header)."""
    for rel, content in generated.items():
        (tree / rel).write_text(content)


def run_portkit(command: list[str], env: dict | None, src: Path, out: Path, rocm_version: str,
                extra: tuple[str, ...] = ()) -> str:
    """Convert `src` into `out`; returns portkit's complaints (empty when it exited 0)."""
    proc = subprocess.run([*command, "convert", str(src), "-o", str(out), "--rocm-version", rocm_version, *extra],
                          capture_output=True, text=True, env=env, timeout=CONVERT_TIMEOUT, check=False)
    if proc.returncode == 0:
        return ""
    # Exit 2 can still leave a tree, with the files it refused copied unconverted.
    errors = [line.removeprefix("portkit: error: ") for line in proc.stderr.splitlines()
              if line.startswith("portkit: error:")]
    return f"portkit exited {proc.returncode}: " + ("; ".join(errors) or first_line(proc.stderr or proc.stdout))


def run_hipify_perl(hipify: str, src: Path, out: Path) -> str:
    """hipify-perl works file by file: write each converted source to the same relative path."""
    problems = []
    for path in sorted(p for p in src.rglob("*") if p.is_file()):
        target = out / path.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix not in SOURCE_SUFFIXES:
            shutil.copy2(path, target)
            continue
        proc = subprocess.run(["perl", hipify, "-quiet-warnings", str(path)], capture_output=True,
                              timeout=CONVERT_TIMEOUT, check=False)
        if proc.returncode != 0:
            problems.append(f"{path.relative_to(src)}: hipify-perl exited {proc.returncode}")
            shutil.copy2(path, target)
        else:
            target.write_bytes(proc.stdout)
    return "; ".join(problems)


def first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


# ---------------------------------------------------------------- compiling


@dataclass
class UnitResult:
    unit: str
    ok: bool
    error: str = ""      # the first error line, paths made relative
    cause: str = ""      # the normalised class of that error
    where: str = ""      # file:line of the first error
    errors: int = 0      # how many error lines the compile printed
    explained: bool = False  # a `portkit:` marker sits on or just above the first error's line


DEPENDENCY_ROOTS: dict[str, str] = {}  # "{dep:NAME}" -> the extracted dependency


def compile_unit(tree: Path, unit: str, flags: list[str], corpus_root: Path) -> UnitResult:
    """hipcc -fsyntax-only one unit, from its program directory so relative -I flags work."""
    args = []
    for flag in flags:
        for placeholder, value in {"{corpus}": str(corpus_root), **DEPENDENCY_ROOTS}.items():
            flag = flag.replace(placeholder, value)
        args.append(flag)
    try:
        proc = subprocess.run(["hipcc", *HIPCC_BASE, *args, unit], cwd=tree, capture_output=True, text=True,
                              env={**os.environ, "HIP_PLATFORM": "amd"}, timeout=HIPCC_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        return UnitResult(unit, False, "hipcc timed out", "hipcc timed out", unit, 1)
    if proc.returncode == 0:
        return UnitResult(unit, True)
    lines = [line for line in proc.stderr.splitlines() if re.search(r"\berror:", line)]
    if not lines:
        return UnitResult(unit, False, first_line(proc.stderr), f"hipcc exited {proc.returncode}", unit, 0)
    error, cause, where = classify(lines[0], tree, corpus_root)
    return UnitResult(unit, False, error, cause, where or unit, len(lines), marked(lines[0], tree))


def marked(error_line: str, tree: Path) -> bool:
    """Whether portkit said why: its marker is on the error's line or on one of the three above
    (markers go right above the line they are about, several may stack)."""
    match = LOCATION.match(error_line.strip())
    if not match:
        return False
    try:
        text = (tree / match["file"]).read_text(errors="replace").splitlines()
    except OSError:
        return False
    line = int(match["line"])
    return any("portkit:" in text[i] for i in range(max(0, line - 4), min(line, len(text))))


LOCATION = re.compile(r"^(?P<file>[^:\s][^:]*):(?P<line>\d+):(?:\d+:)?\s*(?:fatal )?error:\s*(?P<msg>.*)$")


def classify(line: str, tree: Path, corpus_root: Path) -> tuple[str, str, str]:
    """Split a compiler error line into (readable error, cause class, file:line).

    The class keeps quoted names (which identifier is undeclared is what tells how to fix
    it) but drops paths, line numbers, column numbers and counts, so that the same problem
    in different files groups together."""
    match = LOCATION.match(line.strip())
    if not match:
        msg = re.sub(r"^.*?error:\s*", "", line.strip())
        return msg, normalise(msg), ""
    where = f"{short_path(match['file'], tree, corpus_root)}:{match['line']}"
    return match["msg"], normalise(match["msg"]), where


def short_path(path: str, tree: Path, corpus_root: Path) -> str:
    full = (tree / path).resolve()
    for base in (tree.resolve(), corpus_root.resolve()):
        if full.is_relative_to(base):
            return full.relative_to(base).as_posix()
    return Path(path).name


def normalise(msg: str) -> str:
    msg = re.sub(r"\s*\[-W[^\]]*\]$", "", msg)
    msg = re.sub(r"(?<![\w.])(?:/[\w.+-]+)+/([\w.+-]+)", r"\1", msg)  # absolute paths -> base names
    # Digits outside quotes are counts and positions; inside quotes they are part of a name.
    parts = re.split(r"('[^']*')", msg)
    return "".join(p if p.startswith("'") else re.sub(r"\d+", "N", p) for p in parts)


def resolve_units(tree: Path, patterns: list[str]) -> list[str]:
    units = []
    for pattern in patterns:
        found = sorted(glob.glob(pattern, root_dir=tree, recursive=True))
        units.extend(found if found else [pattern])  # a missing unit fails to compile, visibly
    return list(dict.fromkeys(units))


# ---------------------------------------------------------------- running a corpus


@dataclass
class Variant:
    """One way of getting HIP sources for a program: the hand port or a converter's output."""
    tree: Path | None
    units: list[str]
    flags: list[str]
    note: str = ""                       # converter complaints
    results: list[UnitResult] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.tree is not None and all(r.ok for r in self.results)


class Runner:
    def __init__(self, args: argparse.Namespace, work: Path):
        self.args = args
        self.work = work
        # By default the portkit of this checkout, whatever is installed.
        self.portkit = shlex.split(args.portkit) if args.portkit else [sys.executable, "-m", "portkit"]
        self.portkit_env = None if args.portkit else {**os.environ, "PYTHONPATH": os.pathsep.join(
            filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))}
        self.converted: dict[tuple, tuple[Path, str]] = {}  # one conversion per directory and filter

    def convert(self, tool: str, corpus: Corpus, program: Program) -> tuple[Path, str]:
        key = (tool, corpus.name, program.cuda, tuple(program.files), tuple(program.exclude))
        if key not in self.converted:
            slot = PurePosixPath(corpus.name, program.cuda)
            if program.files or program.exclude:  # another filter of the same directory gets its own tree
                slot = slot.with_name(f"{slot.name}@{len(self.converted)}")
            stage, out = self.work / "stage" / tool / slot, (self.args.keep or self.work) / tool / slot
            shutil.rmtree(stage, ignore_errors=True)
            shutil.rmtree(out, ignore_errors=True)
            copy_filtered(corpus.root / program.cuda, stage, program.files, program.exclude)
            write_generated(stage, program.generated)
            if tool == "portkit":
                note = run_portkit(self.portkit, self.portkit_env, stage, out, self.args.rocm_version)
            else:
                note = run_hipify_perl(self.args.hipify_perl, stage, out)
            self.converted[key] = (out if out.is_dir() else None, note)
        return self.converted[key]

    def variants(self, corpus: Corpus, program: Program) -> dict[str, Variant]:
        write_generated(corpus.root / program.hip, program.generated)
        found = {"hand": Variant(corpus.root / program.hip, program.hip_units, program.hip_flags)}
        for tool in self.tools():
            tree, note = self.convert(tool, corpus, program)
            found[tool] = Variant(tree, program.units, program.flags, note)
        return found

    def tools(self) -> list[str]:
        return ["portkit", "hipify-perl"] if self.args.hipify_perl else ["portkit"]

    def run_corpus(self, corpus: Corpus, pool: ThreadPoolExecutor) -> dict[str, dict[str, Variant]]:
        table = {program.name: self.variants(corpus, program) for program in corpus.programs}
        jobs = []
        for variants in table.values():
            for variant in variants.values():
                if variant.tree is None:
                    continue
                for unit in resolve_units(variant.tree, variant.units):
                    jobs.append((variant, pool.submit(compile_unit, variant.tree, unit, variant.flags, corpus.root)))
        for variant, future in jobs:
            variant.results.append(future.result())
        return table


# ---------------------------------------------------------------- reporting


def summarise(corpus: Corpus, table: dict[str, dict[str, Variant]], tools: list[str]) -> dict:
    counted = [name for name, v in table.items() if v["hand"].ok]
    summary = {"programs": len(table), "hand_ports_compiling": len(counted),
               "hand_port_units": sum(len(v["hand"].results) for v in table.values())}
    for tool in tools:
        variants = [table[name][tool] for name in counted]
        summary[tool] = {
            "programs_compiling": sum(v.ok for v in variants), "programs": len(counted),
            "units_compiling": sum(r.ok for v in variants for r in v.results),
            "units": sum(len(v.results) for v in variants),
        }
    return summary


def group_causes(corpora: list[tuple[Corpus, dict]], tool: str) -> dict[str, list[str]]:
    """Cause -> examples 'program:file:line', from the first error of each failing unit of
    each counted program (hand port compiles, converted one does not)."""
    causes: dict[str, list[str]] = defaultdict(list)
    for corpus, table in corpora:
        for name, variants in table.items():
            if not variants["hand"].ok or variants[tool].ok:
                continue
            if variants[tool].tree is None:
                causes[f"conversion failed: {variants[tool].note}"].append(f"{corpus.name}/{name}")
            for r in variants[tool].results:
                if not r.ok:
                    causes[r.cause].append(f"{corpus.name}/{name}:{r.where}")
    return dict(sorted(causes.items(), key=lambda kv: (-len(programs_of(kv[1])), kv[0])))


def programs_of(examples: list[str]) -> set[str]:
    return {e.split(":", 1)[0] for e in examples}


def print_report(corpora: list[tuple[Corpus, dict]], tools: list[str]) -> None:
    for corpus, table in corpora:
        s = summarise(corpus, table, tools)
        print(f"\n{corpus.name} ({corpus.repo} @ {corpus.commit[:12]}): {s['programs']} programs, "
              f"{s['hand_ports_compiling']} hand ports compile")
        for tool in tools:
            t = s[tool]
            print(f"  {tool:12} {t['programs_compiling']:3}/{t['programs']:<3} programs   "
                  f"{t['units_compiling']:3}/{t['units']:<3} units")
        for name, variants in table.items():
            hand = variants["hand"]
            if not hand.ok:
                bad = next(r for r in hand.results if not r.ok)
                print(f"  hand port fails, not counted: {name}: {bad.where}: {bad.error}")
            for tool in tools:
                if variants[tool].note:
                    print(f"  {tool} said, for {name}: {variants[tool].note}")
    print_unexplained(corpora)
    for tool in tools:
        causes = group_causes(corpora, tool)
        print(f"\n{tool}: first error of each failing unit, by cause (programs, units)")
        for cause, examples in causes.items():
            shown = ", ".join(examples[:3]) + (", ..." if len(examples) > 3 else "")
            print(f"  {len(programs_of(examples)):3} {len(examples):3}  {cause}\n           {shown}")
        if not causes:
            print("  none")


def print_unexplained(corpora: list[tuple[Corpus, dict]]) -> None:
    """Failing portkit programs whose failures carry no portkit marker: the ones portkit did not explain."""
    failing = [(f"{c.name}/{name}", v["portkit"]) for c, table in corpora for name, v in table.items()
               if "portkit" in v and v["hand"].ok and not v["portkit"].ok]
    unexplained = [(name, r) for name, variant in failing for r in variant.results if not r.ok and not r.explained]
    programs = {name for name, _ in unexplained}
    print(f"\nportkit: {len(failing) - len(programs)} of {len(failing)} failing programs carry a portkit marker "
          f"at every first error")
    for name, r in unexplained:
        print(f"  no marker: {name}: {r.where}: {r.error}")


def to_json(corpora: list[tuple[Corpus, dict]], tools: list[str], args: argparse.Namespace) -> dict:
    def variant_json(v: Variant) -> dict:
        return {"ok": v.ok, "note": v.note, "units": [r.__dict__ for r in v.results]}
    return {
        "rocm_version": args.rocm_version, "tools": tools, "hipcc": ["hipcc", *HIPCC_BASE],
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "corpora": [{
            "name": c.name, "repo": c.repo, "commit": c.commit, "summary": summarise(c, table, tools),
            "programs": [{"name": p.name, "cuda": p.cuda, "hip": p.hip,
                          **{k: variant_json(v) for k, v in table[p.name].items()}} for p in c.programs],
        } for c, table in corpora],
        "causes": {tool: group_causes(corpora, tool) for tool in tools},
    }


# ---------------------------------------------------------------- main


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, default=HERE / "realworld.toml")
    parser.add_argument("--corpus", action="append", help="only this corpus (repeatable)")
    parser.add_argument("--stage", choices=("units", "build", "all"), default="units",
                        help="units: compile each unit (default); build: build with the converted build files; all")
    parser.add_argument("--hipify-perl", metavar="PATH", help="also measure hipify-perl")
    parser.add_argument("--portkit", metavar="CMD", help="portkit command (default: python3 -m portkit of this checkout)")
    parser.add_argument("--jobs", type=int, default=2, help="parallel hipcc runs (default 2)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write machine-readable results here")
    parser.add_argument("--keep", type=Path, metavar="DIR", help="keep the converted trees here")
    parser.add_argument("--rocm-version", default="5.2", help="passed to portkit (default 5.2)")
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"), help="where the git repositories are")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "portkit-bench",
                        help="where pinned commits are extracted")
    return parser.parse_args(argv)


def check_args(args: argparse.Namespace, corpora: list[Corpus]) -> list[Corpus]:
    if args.jobs < 1:
        raise BadInput("--jobs must be at least 1")
    if args.hipify_perl and not Path(args.hipify_perl).is_file():
        raise BadInput(f"--hipify-perl: no file {args.hipify_perl}")
    if not shutil.which("hipcc"):
        raise BadInput("hipcc is not on PATH (install HIP, e.g. Debian's hipcc)")
    if args.corpus:
        unknown = set(args.corpus) - {c.name for c in corpora} - {c.name for c in build_stage.load_build_corpora(
            tomllib.loads(args.config.read_text()), BadInput)}
        if unknown:
            raise BadInput(f"unknown corpus {', '.join(sorted(unknown))}; known: {', '.join(c.name for c in corpora)}")
        corpora = [c for c in corpora if c.name in args.corpus]
    if args.keep and args.keep.resolve().is_relative_to(REPO_ROOT):
        raise BadInput("--keep must be outside the repository")
    return corpora


def run_build_stage(args: argparse.Namespace) -> None:
    """bench/build_stage.py over the [[build]] corpora: one program at a time (a build uses the cores)."""
    corpora = build_stage.load_build_corpora(tomllib.loads(args.config.read_text()), BadInput)
    corpora = [c for c in corpora if not args.corpus or c.name in args.corpus]
    command = shlex.split(args.portkit) if args.portkit else [sys.executable, "-m", "portkit"]
    env = None if args.portkit else {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))}

    def convert(src: Path, out: Path, extra: list[str]) -> str:
        return run_portkit(command, env, src, out, args.rocm_version, tuple(extra))

    results = []
    with tempfile.TemporaryDirectory(prefix="portkit-build-") as tmp:
        work = args.keep or Path(tmp)
        for corpus in corpora:
            corpus.root = extract(corpus, args.mirror, args.cache.expanduser())  # type: ignore[arg-type]
            corpus.programs += build_stage.discover(corpus)
            start = time.perf_counter()
            table = {p.name: build_stage.run_program(corpus, p, work, convert) for p in corpus.programs}
            print(f"{corpus.name}: {len(table)} programs built in {time.perf_counter() - start:.0f} s",
                  file=sys.stderr, flush=True)
            results.append((corpus, table))
    print("\n".join(build_stage.report(results)), flush=True)
    if args.json:
        build_json = args.json.with_name(args.json.stem + "-build.json")
        build_json.write_text(json.dumps([build_stage.summary_json(c, t) for c, t in results], indent=1) + "\n")


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        corpora = check_args(args, load_config(args.config))
        for dep in load_dependencies(args.config):
            dep.root = extract(dep, args.mirror, args.cache.expanduser())  # type: ignore[arg-type]
            write_generated(dep.root, dep.generated)
            DEPENDENCY_ROOTS[f"{{dep:{dep.name}}}"] = str(dep.root)
        for corpus in corpora:
            corpus.root = extract(corpus, args.mirror, args.cache.expanduser())
            corpus.programs += discover_programs(corpus)
    except BadInput as err:
        print(f"realworld: {err}", file=sys.stderr)
        return 2
    if args.stage in ("build", "all"):
        run_build_stage(args)
    if args.stage == "build":
        return 0
    with tempfile.TemporaryDirectory(prefix="portkit-realworld-") as tmp, ThreadPoolExecutor(args.jobs) as pool:
        runner = Runner(args, Path(tmp))
        results = []
        for corpus in corpora:
            start = time.perf_counter()
            results.append((corpus, runner.run_corpus(corpus, pool)))
            print(f"{corpus.name}: {len(corpus.programs)} programs in {time.perf_counter() - start:.0f} s",
                  file=sys.stderr, flush=True)
        print_report(results, runner.tools())
        if args.json:
            args.json.write_text(json.dumps(to_json(results, runner.tools(), args), indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
