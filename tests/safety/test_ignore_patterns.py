"""portkit's gitignore matcher agrees with git, refuses bad patterns with a reason, and stays
fast on patterns built to make regular expressions backtrack."""
from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest

from portkit.ignore import IgnoreSpec, PatternError, parse_pattern

PATTERNS = ["*.o", "build/", "/build", "a/b", "a/**/b", "**/foo", "foo/**", "**", "*", "a*", "*a*b", "?.c", "[ab].c",
            "[!a].c", "[^a].c", "[a-c]x", "[[:digit:]]*", "[[:alpha:]][[:digit:]]*", "\\#x", "x\\ ", "sub/*.c",
            "/sub/*.c", "d*/", "**/d/", "a/**", "doc/frotz/", "*/x.c", "a/*/c", "[]]x", "x[-a]", "**/**/c", "d/**/*.c",
            "*.c\n!keep.c", "d/\n!d/keep.c", "x.c  ", "a//b", "#comment", "\\!x.c"]
PATHS = ["x.o", "build/x", "build", "sub/build", "sub/build/x", "a/b", "a/x/b", "a/x/y/b", "foo", "sub/foo", "foo/x", "ab",
         "xaxb", "1.c", "a.c", "b.c", "c.c", "ax", "bx", "dx", "7up", "a7", "#x", "x ", "sub/x.c", "sub/y/x.c", "d/x", "dd/x",
         "d/keep.c", "keep.c", "x.c", "a/q/c", "a/q/r/c", "]x", "xa", "x-", "doc/frotz/f", "a/doc/frotz/f", "sub/d/z.c",
         "d/z/q.c", "!x.c"]


@pytest.fixture(scope="module")
def layout(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("layout")
    for path in PATHS:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
    for path in PATHS:
        if not (root / path).is_dir():
            (root / path).touch()
    return root


@pytest.mark.parametrize("pattern", PATTERNS)
def test_matches_what_git_ignores(pattern: str, layout: Path, tmp_path: Path) -> None:
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is the reference and is not installed")
    repo = tmp_path / "repo"
    shutil.copytree(layout, repo)
    subprocess.run([git, "init", "-q", str(repo)], check=True)
    (repo / ".gitignore").write_text(pattern + "\n")
    spec = IgnoreSpec.from_lines(pattern.split("\n"))
    listed = "\n".join(PATHS) + "\n"
    done = subprocess.run([git, "-C", str(repo), "check-ignore", "--no-index", "--stdin"], input=listed,
                          capture_output=True, text=True)
    ignored_by_git = set(done.stdout.splitlines())
    for path in PATHS:
        ours = spec.match_file(path + "/" if (repo / path).is_dir() else path)
        assert ours == (path in ignored_by_git), (pattern, path)


@pytest.mark.parametrize("pattern, reason", [("[z-a]", "reversed range z-a"), ("\\", "a lone \\ at the end"),
                                             ("!", "an empty pattern"), ("/", "an empty pattern"),
                                             ("[abc", "unclosed ["), ("[[:nope:]]", "unknown character class"),
                                             ("x" * 5000, "longer than")])
def test_bad_patterns_say_why(pattern: str, reason: str) -> None:
    with pytest.raises(PatternError, match=reason.replace("\\", "\\\\").replace("[", "\\[")):
        parse_pattern(pattern)
    spec, problems = IgnoreSpec.lenient(["ok.c", pattern, "also.c"])
    assert len(spec.patterns) == 2 and len(problems) == 1 and problems[0].startswith("line 2: ")


@pytest.mark.parametrize("pattern, path", [
    ("*a" * 30 + "*b", "a" * 255),
    ("**/" * 40 + "x/**/y", "/".join(["x"] * 200)),
    ("[a-z]*" * 30 + "!", "q" * 255),
    ("?" * 250 + "*" * 30 + "b", "c" * 255),
])
def test_pathological_patterns_are_matched_quickly(pattern: str, path: str) -> None:
    spec = IgnoreSpec.from_lines([pattern])
    start = time.perf_counter()
    for _ in range(5):
        spec.match_file(path)
    assert time.perf_counter() - start < 5


def _random_case(rng) -> tuple[list[str], list[str]]:
    atoms = ["a", "b", "*", "?", "/", "**", "[ab]", "[!a]", "\\*", "[a-b]", "!"]
    patterns = ["".join(rng.choice(atoms) for _ in range(rng.randint(1, 5))) for _ in range(rng.randint(1, 3))]
    files = {"/".join(rng.choice(["a", "b", "ab", "ba", "*"]) for _ in range(rng.randint(1, 3))) for _ in range(10)}
    return patterns, sorted(files, key=len, reverse=True)


@pytest.mark.parametrize("seed", range(6))
def test_random_patterns_agree_with_git(seed: int, tmp_path: Path) -> None:
    import random

    git = shutil.which("git")
    if git is None:
        pytest.skip("git is the reference and is not installed")
    rng = random.Random(seed)
    for trial in range(10):
        patterns, files = _random_case(rng)
        try:
            spec = IgnoreSpec.from_lines(patterns)
        except PatternError:
            continue
        repo = tmp_path / f"r{trial}"
        subprocess.run([git, "init", "-q", str(repo)], check=True)
        made = []
        for name in files:  # longest first: a name that is also a directory stays a directory
            try:
                (repo / name).parent.mkdir(parents=True, exist_ok=True)
                (repo / name).touch(exist_ok=False)
                made.append(name)
            except OSError:
                pass
        paths = sorted({"/".join(m.split("/")[:i]) for m in made for i in range(1, m.count("/") + 2)})
        (repo / ".gitignore").write_text("\n".join(patterns) + "\n")
        done = subprocess.run([git, "-C", str(repo), "check-ignore", "--no-index", "--stdin"],
                              input="\n".join(paths) + "\n", capture_output=True, text=True)
        ignored = set(done.stdout.splitlines())
        for path in paths:
            ours = spec.match_file(path + "/" if (repo / path).is_dir() else path)
            assert ours == (path in ignored), (patterns, path)
