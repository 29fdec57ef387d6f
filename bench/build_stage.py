"""The build stage of bench/realworld.py: does the converted project build with its own converted build file?

For each program of a [[build]] corpus (realworld.toml), the CUDA program directory (with the
corpus directories it needs, `support`) is converted with `portkit convert --offload-arch gfx90a`
and built with the converted Makefile or CMakeLists.txt, unchanged: `make`, or `cmake` then
`cmake --build`; a real compile and link for gfx90a (no GPU is needed to link). The hand-written
HIP port is built the same way with its own build file: only programs whose hand port builds
count. The environment is the bench's: HIP_PLATFORM=amd, HIP_PATH=ROCM_PATH=/usr (Debian's HIP),
HCC_AMDGPU_TARGET=gfx90a for build files that name no architecture, and, for CMake, hipcc as the
C++ compiler (`portkit convert --cmake-hipcc`; docs/convert.md says why CMake's HIP language
fails on Debian 12) and Debian's FindHIP.cmake directory on CMAKE_MODULE_PATH.
"""
from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

BUILD_TIMEOUT = 900
BUILD_ENV = {"HIP_PLATFORM": "amd", "HIP_PATH": "/usr", "ROCM_PATH": "/usr", "HCC_AMDGPU_TARGET": "gfx90a"}
# Debian keeps hip's FindHIP.cmake in its multiarch directory, not in ROCM_PATH/lib/cmake/hip where projects look.
CMAKE_CONFIGURE = ["-DCMAKE_CXX_COMPILER=hipcc", "-DCMAKE_BUILD_TYPE=Release",
                   "-DCMAKE_MODULE_PATH=/usr/lib/x86_64-linux-gnu/cmake/hip"]
ERROR = re.compile(r"\b(?:error|Error|undefined reference)\b")


@dataclass
class BuildProgram:
    name: str
    cuda: str                 # CUDA program directory, relative to the corpus root
    hip: str                  # hand port's directory
    support: list[str]        # corpus directories the build file reaches outside the program directory


@dataclass
class BuildCorpus:
    name: str
    repo: str
    commit: str
    system: str               # make or cmake
    programs: list[BuildProgram]
    support: list[str] = field(default_factory=list)
    discover: dict = field(default_factory=dict)
    make_args: list[str] = field(default_factory=list)  # variables for both builds, e.g. an old HIP_PLATFORM spelling
    root: Path | None = None


@dataclass
class BuildResult:
    ok: bool
    error: str = ""           # the first error line
    where: str = ""
    explained: bool = False   # a portkit marker sits at the error's line, or the build file has one
    markers: int = 0          # markers portkit wrote into the program's build files


def load_build_corpora(data: dict, bad_input) -> list[BuildCorpus]:
    corpora = []
    for raw in data.get("build", []):
        if raw.get("system") not in ("make", "cmake") or not re.fullmatch(r"[0-9a-f]{40}", raw.get("commit", "")):
            raise bad_input(f"[[build]] {raw.get('name', '?')}: needs system = make|cmake and a 40-digit commit")
        support = raw.get("support", [])
        programs = [BuildProgram(p["name"], p["cuda"], p["hip"], p.get("support", support)) for p in raw.get("program", [])]
        corpora.append(BuildCorpus(raw["name"], raw["repo"], raw["commit"], raw["system"], programs, support,
                                   raw.get("discover", {}), raw.get("make_args", [])))
    return corpora


def discover(corpus: BuildCorpus) -> list[BuildProgram]:
    """Every `every`-th program directory (sorted by name, from the first) whose build file matches `glob`
    and whose twin (the path rewritten by the regex pair `twin`) has one too: a fixed selection."""
    rule = corpus.discover
    if not rule:
        return []
    pattern, replacement = rule["twin"]
    pairs = []
    for match in sorted(glob.glob(rule["glob"], root_dir=corpus.root)):
        twin = re.sub(pattern, replacement, match)
        if twin != match and (corpus.root / twin).is_file():
            pairs.append((str(Path(match).parent), str(Path(twin).parent)))
    every, excluded = int(rule.get("every", 1)), rule.get("exclude", {})
    programs = [BuildProgram(_name(cuda, rule.get("suffix", "")), cuda, hip,
                             corpus.support + ([str(Path(cuda).parent)] if rule.get("parent") else []))
                for cuda, hip in pairs[::every]]
    return [p for p in programs if p.name not in excluded]


def _name(directory: str, suffix: str) -> str:
    """The program's name: its directory's, or its parent's where the directory is CUDA/ (Velocity-Bench)."""
    path = Path(directory)
    return (path.parent.name if path.name == "CUDA" else path.name).removesuffix(suffix)


def _copy(src: Path, dest: Path) -> None:
    shutil.copytree(src, dest, symlinks=True, dirs_exist_ok=True)


def build(tree: Path, directory: Path, system: str, make_args: list[str] = ()) -> BuildResult:
    """Build `directory` (inside `tree`) with its build file; the first error line if it fails."""
    # HIP 5.2's clang leaves two empty directories in TMPDIR for every file it compiles and links: a private one
    # keeps them out of /tmp, where thousands had made creating any file 5-30 times slower (150-800 us each).
    with tempfile.TemporaryDirectory(prefix="portkit-build-tmp-") as scratch:
        return _build(tree, directory, system, make_args, {**os.environ, **BUILD_ENV, "TMPDIR": scratch})


def _build(tree: Path, directory: Path, system: str, make_args: list[str], env: dict[str, str]) -> BuildResult:
    if system == "make":
        commands = [["make", "-C", str(directory), *make_args]]
    else:
        out = directory / "build-portkit-bench"
        commands = [["cmake", "-S", str(directory), "-B", str(out), *CMAKE_CONFIGURE], ["cmake", "--build", str(out)]]
    for command in commands:
        try:
            proc = subprocess.run(command, capture_output=True, text=True, env=env, timeout=BUILD_TIMEOUT, check=False)
        except subprocess.TimeoutExpired:
            return BuildResult(False, f"{command[0]} timed out")
        if proc.returncode != 0:
            return _failure(proc.stdout + proc.stderr, tree, directory)
    return BuildResult(True)


def _failure(output: str, tree: Path, directory: Path) -> BuildResult:
    all_lines = [line.strip() for line in output.splitlines()]
    found = [i for i, line in enumerate(all_lines) if ERROR.search(line)]
    first = all_lines[found[0]] if found else (all_lines or ["failed, no output"])[-1]
    if found and first.startswith("CMake Error"):  # the message is on the lines after
        first += " " + " ".join(line for line in all_lines[found[0] + 1:found[0] + 4] if line)
    match = re.match(r"(?P<file>[^:\s]+):(?P<line>\d+):", first)
    where, explained = "", False
    if match:
        path = Path(match["file"]) if Path(match["file"]).is_absolute() else directory / match["file"]
        where = f"{_relative(path, tree)}:{match['line']}"
        explained = _marked(path, int(match["line"]))
    return BuildResult(False, _shorten(first, tree), where, explained)


def _relative(path: Path, tree: Path) -> str:
    try:
        return path.resolve().relative_to(tree.resolve()).as_posix()
    except ValueError:
        return path.name


def _shorten(line: str, tree: Path) -> str:
    return line.replace(str(tree.resolve()) + "/", "").replace(str(tree) + "/", "")[:300]


def _marked(path: Path, line: int) -> bool:
    """A portkit marker on the error's line or on one of the three above."""
    try:
        text = path.read_text(errors="replace").splitlines()
    except OSError:
        return False
    return any("portkit:" in text[i] for i in range(max(0, line - 4), min(line, len(text))))


def build_markers(directory: Path) -> int:
    names = ("Makefile", "makefile", "CMakeLists.txt")
    return sum(p.read_text(errors="replace").count("# portkit: ") for p in directory.rglob("*")
               if p.name in names or p.suffix in (".mk", ".cmake"))


def run_program(corpus: BuildCorpus, program: BuildProgram, work: Path, convert) -> dict[str, BuildResult]:
    """Build the hand port and portkit's conversion of `program`, each in its own copy under `work`."""
    results = {}
    hand = work / "hand" / corpus.name / program.name
    shutil.rmtree(hand, ignore_errors=True)
    for rel in [program.hip, program.cuda, *program.support]:  # HeCBench's ports use their CUDA twin's files
        _copy(corpus.root / rel, hand / rel)
    results["hand"] = build(hand, hand / program.hip, corpus.system, corpus.make_args)
    stage, out = work / "stage" / corpus.name / program.name, work / "portkit" / corpus.name / program.name
    shutil.rmtree(stage, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    for rel in [program.cuda, *program.support]:
        _copy(corpus.root / rel, stage / rel)
    note = convert(stage, out, ["--offload-arch", "gfx90a"] + (["--cmake-hipcc"] if corpus.system == "cmake" else []))
    if not (out / program.cuda).is_dir():
        results["portkit"] = BuildResult(False, f"conversion failed: {note}")
        return results
    result = build(out, out / program.cuda, corpus.system, corpus.make_args)
    result.markers = build_markers(out / program.cuda)
    results["portkit"] = result
    return results


def report(corpora: list[tuple[BuildCorpus, dict[str, dict[str, BuildResult]]]]) -> list[str]:
    lines = ["\nbuild stage: converted tree built with its converted build file, unchanged (gfx90a, compile + link)"]
    for corpus, table in corpora:
        counted = [name for name, r in table.items() if r["hand"].ok]
        builds = sum(table[name]["portkit"].ok for name in counted)
        lines.append(f"  {corpus.name} ({corpus.system}, {corpus.repo} @ {corpus.commit[:12]}): {builds}/{len(counted)} "
                     f"build (of {len(table)} programs; {len(table) - len(counted)} hand ports do not build)")
        for name in counted:
            r = table[name]["portkit"]
            if not r.ok:
                why = "marker at the cause" if r.explained else f"{r.markers} build-file markers, none at the error"
                lines.append(f"    fails: {name}: {r.where}: {r.error}  [{why}]")
        for name, r in table.items():
            if not r["hand"].ok:
                lines.append(f"    hand port fails, not counted: {name}: {r['hand'].where}: {r['hand'].error}")
    return lines


def summary_json(corpus: BuildCorpus, table: dict[str, dict[str, BuildResult]]) -> dict:
    counted = [name for name, r in table.items() if r["hand"].ok]
    return {"name": corpus.name, "system": corpus.system, "repo": corpus.repo, "commit": corpus.commit,
            "programs": len(table), "hand_ports_building": len(counted),
            "portkit_building": sum(table[n]["portkit"].ok for n in counted),
            "results": {name: {k: v.__dict__ for k, v in r.items()} for name, r in table.items()}}
