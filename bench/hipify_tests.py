#!/usr/bin/env python3
"""HIPIFY's unit tests as a mapping spec: score `portkit convert` and hipify-perl on their CHECK lines.

ROCm/HIPIFY's tests/unit_tests hold CUDA files whose `// CHECK:` (and `// CHECK-NEXT:`) lines say what
the HIP output must contain, in order (LLVM FileCheck: a line's text anywhere in an output line,
whitespace runs alike, `{{regex}}` parts). Both tools convert every test file in ONE run, each with the
options its RUN line asks for that the tool has (hipify's --roc, --hip-kernel-execution-syntax,
--experimental), and each CHECK line counts as matched when the output has it after the previous match, on a line that is
not a line comment (the CHECK lines themselves are in the output).
An `#include` line is matched by the included file's name, anywhere in the output (`"hip/hip_runtime.h"`
and `<hip/hip_runtime.h>` both name hip_runtime.h; where each tool puts the runtime header differs).
portkit runs with --no-markers (hipify-perl writes none) and the target given (default HIP 6.3).

Usage:
  bench/hipify_tests.py                                    # pinned HIPIFY commit, /work/tools/hipify-perl
  bench/hipify_tests.py --details                          # every CHECK line each tool misses
  bench/hipify_tests.py --repo PATH --commit SHA --hipify-perl PATH --rocm-version 6.3

The tests are extracted from the bare mirror --repo at --commit into a temporary directory (never
into this repository). Not part of CI, not a unit test. Exit 0 when it ran, 2 with one line on
stderr on bad input.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = "/work/.mirror/ROCm+HIPIFY/repo"
COMMIT = "014177bc"  # HIPIFY at "Merge pull request #1721 from emankov/HIPIFY"
HIPIFY_PERL = "/work/tools/hipify-perl"
TESTS = "tests/unit_tests"
SOURCES = (".cu", ".cuh", ".cpp", ".c", ".h", ".hpp")
_CHECK = re.compile(r"^\s*//\s*CHECK(?:-NEXT)?:\s?(.*)$")
_INCLUDE = re.compile(r"^\s*#\s*include\s*[<\"]([^>\"]+)[>\"]")
_REGEX_PART = re.compile(r"\{\{(.*?)\}\}")
# HIPIFY's options of a RUN line, and what each tool spells for them (None: the tool has no such option).
_OPTIONS = {
    "--roc": ("--roc", "-roc"),
    "--hip-kernel-execution-syntax": ("--launch-syntax=hip", "-hip-kernel-execution-syntax"),
    "--experimental": (None, "-experimental"),
}


@dataclasses.dataclass
class TestFile:
    path: str  # relative to the extracted tests
    checks: list[str]
    options: tuple[str, ...]  # HIPIFY's options from the RUN line that some tool has


@dataclasses.dataclass
class Score:
    matched: int = 0
    files: int = 0  # files whose every CHECK line matched
    missed: dict[str, list[str]] = dataclasses.field(default_factory=dict)


def _fail(message: str) -> None:
    print(f"hipify_tests: {message}", file=sys.stderr)
    raise SystemExit(2)


def extract(repo: str, commit: str, into: Path) -> Path:
    archive = subprocess.run(["git", "-C", repo, "archive", commit, TESTS], capture_output=True)
    if archive.returncode != 0:
        _fail(f"cannot read {TESTS} at {commit} from {repo}: {archive.stderr.decode(errors='replace').strip()}")
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into / TESTS


def test_files(root: Path) -> list[TestFile]:
    found = []
    for path in sorted(root.rglob("*")):
        if path.suffix not in SOURCES or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        checks = [m.group(1) for m in map(_CHECK.match, text.splitlines()) if m]
        if checks:
            run = next((line for line in text.splitlines() if "RUN:" in line), "")
            found.append(TestFile(str(path.relative_to(root)), checks, tuple(o for o in _OPTIONS if o in run.split())))
    return found


def _pattern(check: str) -> re.Pattern[str]:
    """FileCheck's reading of a CHECK line: literal text with `{{regex}}` parts, any run of blanks alike."""
    pieces = []
    for index, piece in enumerate(_REGEX_PART.split(check.strip())):
        if index % 2:
            pieces.append(f"(?:{piece})")
        else:
            pieces += [r"\s+" if word.isspace() else re.escape(word) for word in re.split(r"(\s+)", piece) if word]
    return re.compile("".join(pieces))


def score_file(checks: list[str], output: str) -> list[str]:
    """The CHECK lines `output` misses: in order, each after the previous match; includes by file name."""
    # The CHECK comments are in the output too: a line comment never matches (unless the CHECK is one).
    every = output.splitlines()
    lines = [line if not line.lstrip().startswith("//") else "" for line in every]
    includes = {os.path.basename(m.group(1)) for m in map(_INCLUDE.match, lines) if m}
    missed, at = [], 0
    for check in checks:
        include = _INCLUDE.match(check.strip())
        if include is not None:
            if os.path.basename(include.group(1)) not in includes:
                missed.append(check)
            continue
        pattern = _pattern(check)
        searched = every if check.lstrip().startswith("//") else lines
        found = next((i for i in range(at, len(lines)) if pattern.search(searched[i])), None)
        if found is None:
            missed.append(check)
        else:
            at = found + 1
    return missed


def run_portkit(root: Path, files: list[TestFile], rocm: str, work: Path) -> dict[str, str]:
    """Each group of files with the same options converted in one `portkit convert` run."""
    outputs: dict[str, str] = {}
    groups: dict[tuple[str, ...], list[TestFile]] = {}
    for test in files:
        groups.setdefault(tuple(_OPTIONS[o][0] for o in test.options if _OPTIONS[o][0]), []).append(test)
    for number, (options, group) in enumerate(sorted(groups.items())):
        tree, out = work / f"portkit-in-{number}", work / f"portkit-out-{number}"
        for test in group:
            (tree / test.path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(root / test.path, tree / test.path)
        command = [sys.executable, "-m", "portkit", "convert", "--no-cache", "--no-markers", "--rocm-version", rocm,
                   *options, str(tree), "-o", str(out)]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode not in (0, 1):
            _fail(f"portkit convert failed: {result.stderr.strip()[-400:]}")
        for test in group:
            converted = out / test.path
            outputs[test.path] = converted.read_text(encoding="utf-8", errors="replace") if converted.exists() else ""
    return outputs


def run_hipify_perl(tool: str, root: Path, files: list[TestFile], jobs: int) -> dict[str, str]:
    def one(test: TestFile) -> tuple[str, str]:
        options = [_OPTIONS[o][1] for o in test.options if _OPTIONS[o][1]]
        result = subprocess.run([tool, "-quiet-warnings", *options, str(root / test.path)], capture_output=True)
        return test.path, result.stdout.decode("utf-8", "replace") if result.returncode == 0 else ""

    with ThreadPoolExecutor(jobs) as pool:
        return dict(pool.map(one, files))


def score(files: list[TestFile], outputs: dict[str, str]) -> Score:
    result = Score()
    for test in files:
        missed = score_file(test.checks, outputs.get(test.path, ""))
        result.matched += len(test.checks) - len(missed)
        result.files += not missed
        if missed:
            result.missed[test.path] = missed
    return result


def _report(files: list[TestFile], scores: dict[str, Score], details: bool) -> None:
    total = sum(len(t.checks) for t in files)
    for name, result in scores.items():
        print(f"{name:12} {result.matched:6} of {total} CHECK lines matched; {result.files:4} of {len(files)} files whole")
    if details:
        for name, result in scores.items():
            print(f"\n{name}: missed")
            for path, missed in sorted(result.missed.items()):
                for check in missed:
                    print(f"  {path}: {check.strip()}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", default=REPO, help="HIPIFY's git repository (bare mirror or clone)")
    parser.add_argument("--commit", default=COMMIT, help="the HIPIFY commit whose tests are read")
    parser.add_argument("--hipify-perl", default=HIPIFY_PERL, help="hipify-perl to score beside portkit")
    parser.add_argument("--rocm-version", default="6.3", help="portkit's target")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--details", action="store_true", help="list every CHECK line each tool misses")
    args = parser.parse_args(argv)
    if not os.access(args.hipify_perl, os.X_OK):
        _fail(f"{args.hipify_perl}: not an executable hipify-perl")
    with tempfile.TemporaryDirectory(prefix="hipify-tests-") as temporary:
        work = Path(temporary)
        root = extract(args.repo, args.commit, work)
        files = test_files(root)
        if not files:
            _fail(f"no test file with CHECK lines under {TESTS} at {args.commit}")
        scores = {"portkit": score(files, run_portkit(root, files, args.rocm_version, work)),
                  "hipify-perl": score(files, run_hipify_perl(args.hipify_perl, root, files, args.jobs))}
    print(f"HIPIFY {args.commit} {TESTS}: {len(files)} files; portkit --rocm-version {args.rocm_version}")
    _report(files, scores, args.details)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
