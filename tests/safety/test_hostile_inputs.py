"""Hostile or odd input: bounded time and memory, and a clear exit 2 with one line, never exit 3."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from portkit.cli import main
from safety_kit import CUDA, UNSUPPORTED, environment, portkit, write

BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
    f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n" for i in range(9))
RULE = "library: mine\nentries:\n  - cuda: myCall\n    kind: function\n    hip: hipMyCall\n"


def _baseline(findings: object) -> str:
    return json.dumps({"schema_version": 1, "findings": findings})


def _row(count: object) -> str:
    return _baseline([{"fingerprint": "f", "code": "PK102", "name": "n", "path": "k.cu", "count": 1}]).replace(
        '"count": 1', f'"count": {count}')


def _setup(tmp: Path, files: dict[str, str | bytes]) -> None:
    write(tmp / "src" / "k.cu", CUDA)
    for name, data in files.items():
        write(tmp / name, data)


# Every malformed input: (name, extra files, arguments, what the one line says). Each
# must end with exit 2 and exactly that one line on stderr, quickly, with nothing written.
RULES = ["scan", "--rules"]
BASELINE = ["check", "--baseline", "b.json", "src"]
MALFORMED = [
    ("yaml alias bomb", {"bomb.yaml": BOMB}, [*RULES, "bomb.yaml", "src"], "anchors and aliases"),
    ("yaml anchor alone", {"a.yaml": "library: &l mine\nentries: []\n"}, [*RULES, "a.yaml", "src"], "anchors and aliases"),
    ("yaml nested 100000 deep", {"d.yaml": "[" * 100_000 + "]" * 100_000}, [*RULES, "d.yaml", "src"],
     "line 1: nested deeper than 32 levels"),
    ("yaml too large", {"big.yaml": "# " + "x" * (9 << 20) + "\n"}, [*RULES, "big.yaml", "src"], "larger than"),
    ("yaml python tag", {"t.yaml": "library: !!python/object/apply:os.system [id]\n"}, [*RULES, "t.yaml", "src"],
     "line 1: tags (tag:yaml.org,2002:python/object/apply:os.system) are not allowed"),
    ("weight nan", {"w.yaml": RULE + "    weight: .nan\n"}, ["report", "--rules", "w.yaml", "src"], "key 'weight'"),
    ("weight inf", {"w.yaml": RULE + "    weight: .inf\n"}, ["report", "--rules", "w.yaml", "src"], "key 'weight'"),
    ("weight 1e400", {"w.yaml": RULE + "    weight: 1e400\n"}, ["report", "--rules", "w.yaml", "src"], "key 'weight'"),
    ("library weights nan", {"w.yaml": RULE.replace("entries:", "weights: {partial: .nan}\nentries:")},
     ["report", "--rules", "w.yaml", "src"], "key 'weights'"),
    ("exclude [z-a]", {}, ["scan", "--exclude", "[z-a]", "src"], "reversed range"),
    ("exclude lone backslash", {}, ["scan", "--exclude", "\\", "src"], "a lone"),
    ("exclude bare !", {}, ["scan", "--exclude", "!", "src"], "empty pattern"),
    ("exclude unknown class", {}, ["scan", "--exclude", "[[:nope:]]", "src"], "unknown character class"),
    ("exclude unclosed [", {}, ["scan", "--exclude", "src/[abc", "src"], "unclosed ["),
    ("exclude in config", {"pyproject.toml": '[tool.portkit]\nexclude = ["[z-a]"]\n'}, ["scan", "src"], "reversed range"),
    ("baseline count 1e400", {"b.json": _row("1e400")}, BASELINE, "count must be"),
    ("baseline count NaN", {"b.json": _row("NaN")}, BASELINE, "count must be"),
    ("baseline count Infinity", {"b.json": _row("-Infinity")}, BASELINE, "count must be"),
    ("baseline count true", {"b.json": _row("true")}, BASELINE, "count must be"),
    ("baseline count negative", {"b.json": _row("-3")}, BASELINE, "count must be"),
    ("baseline count 5000 digits", {"b.json": _row("9" * 5000)}, BASELINE, "not a portkit baseline"),
    ("baseline nested 100000 deep", {"b.json": "[" * 100_000 + "]" * 100_000}, BASELINE, "nested too deeply"),
    ("baseline entry not an object", {"b.json": _baseline([[1, 2]])}, BASELINE, "malformed"),
    ("baseline not json", {"b.json": "\xff\xfe garbage"}, BASELINE, "invalid JSON"),
    ("shim -o a directory", {"include/.keep": ""}, ["shim", "-o", "include", "src"], "is a directory"),
    ("shim -o into a missing directory", {}, ["shim", "-o", "missing/gpu.h", "src"], "No such file or directory"),
    ("shim header name with a quote", {}, ["shim", "-o", 'inc/a"b.h', "src"], "header name"),
    ("shim header name with a newline", {}, ["shim", "-o", "inc/a\nb.h", "src"], "header name"),
    ("shim header name with a backslash", {}, ["shim", "-o", "inc/a\\b.h", "src"], "header name"),
    ("max-file-size words", {}, ["scan", "--max-file-size", "lots", "src"], "file size"),
    ("max-file-size zero", {}, ["scan", "--max-file-size", "0", "src"], "file size"),
    ("max-file-size in config", {".portkit.toml": 'max-file-size = "huge"\n'}, ["scan", "src"], "max-file-size"),
    ("config nested deep", {".portkit.toml": "a = " + "[" * 5000 + "]" * 5000 + "\n"}, ["scan", "src"], "nested too deeply"),
    ("config too large", {".portkit.toml": "# " + "x" * (2 << 20) + "\n"}, ["scan", "src"], "larger than"),
    ("report -o a source", {}, ["report", "-f", "md", "-o", "src/k.cu", "src"], "is the input"),
    ("convert -o its input's parent", {}, ["convert", "src/k.cu", "-o", "src"], "contains the input"),
    ("convert into a foreign directory", {"out/mine.txt": "mine\n"}, ["convert", "src", "-o", "out"], "not written by portkit"),
    ("check --diff option as ref", {}, ["check", "--diff=--output=pwned", "src"],
     "git diff --output=pwned: git failed"),
    ("check --diff unknown ref", {}, ["check", "--diff", "no-such-ref", "src"], "git failed"),
    ("unknown report extension", {}, ["report", "-o", "r.docx", "src"], "report format"),
]


@pytest.mark.parametrize("name, files, argv, says", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_input_is_exit_2_with_one_line(name: str, files: dict[str, str], argv: list[str], says: str,
                                                 tmp_path: Path) -> None:
    _setup(tmp_path, files)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)  # no config from above the test is read
    start = time.perf_counter()
    run = portkit(argv, tmp_path, timeout=120)
    assert run.code == 2, (run.code, run.err)
    assert len(run.err_lines) == 1 and run.err.startswith("portkit: error: ") and says in run.err, run.err
    assert "internal error" not in run.err and "Traceback" not in run.err
    assert time.perf_counter() - start < 60
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize("argv", [["scan", "src"], ["scan", "-f", "json", "src"], ["report", "src"], ["check", "src"],
                                  ["report", "-o", "-", "src"], ["convert", "--diff", "src"]])
def test_stdout_to_dev_full_is_exit_2_with_a_message(argv: list[str], tmp_path: Path) -> None:
    _setup(tmp_path, {f"src/f{i}.cu": CUDA + UNSUPPORTED for i in range(30)})
    with open("/dev/full", "wb") as full:
        run = portkit(argv, tmp_path, stdout=full)
    assert run.code == 2, run.err
    assert run.err_lines[-1] == "portkit: error: cannot write to standard output: No space left on device", run.err
    assert "internal error" not in run.err and "Exception ignored" not in run.err
    if argv[0] in ("scan", "report"):
        assert len(run.err_lines) == 1, run.err


@pytest.mark.parametrize("argv", [["scan", "src"], ["scan", "-f", "json", "src"], ["report", "-f", "html", "src"],
                                  ["check", "src"], ["convert", "--diff", "src"]])
def test_a_closed_pipe_ends_quietly(argv: list[str], tmp_path: Path) -> None:
    """`portkit ... | head`: the reader goes away; portkit stops without a message and never
    with exit 1 (which reads as blocking findings)."""
    _setup(tmp_path, {f"src/f{i:03d}.cu": CUDA + UNSUPPORTED * 20 for i in range(150)})
    process = subprocess.Popen([sys.executable, "-m", "portkit", *argv], cwd=tmp_path, env=environment(tmp_path),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.read(10)
    process.stdout.close()
    err = process.stderr.read().decode()
    code = process.wait(120)
    assert code in (0, 141), (code, err)
    assert err == "" or "portkit check:" in err or "portkit convert:" in err, err


# --- ignore patterns -------------------------------------------------------------------

PATHOLOGICAL = ["*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", "**/**/**/**/**/**/**/**/**/**/**/**/x/**/y",
                "[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*!", "?" * 300 + "*" * 20 + "b"]


@pytest.mark.parametrize("where", ["gitignore", "exclude"])
def test_pathological_patterns_finish_quickly(where: str, tmp_path: Path) -> None:
    deep = "/".join(["a" * 40] * 20)
    _setup(tmp_path, {f"src/{'a' * 200}.cu": CUDA, f"src/{deep}/{'a' * 200}.cu": CUDA})
    if where == "gitignore":
        write(tmp_path / "src" / ".gitignore", "\n".join(PATHOLOGICAL) + "\n")
        extra: list[str] = []
    else:
        extra = [a for p in PATHOLOGICAL for a in ("--exclude", p)]
    start = time.perf_counter()
    assert main(["scan", "--no-cache", "-f", "json", *extra, str(tmp_path / "src")]) == 0
    assert time.perf_counter() - start < 20


def test_bad_gitignore_lines_are_skipped_with_a_warning(tmp_path: Path, capsys) -> None:
    _setup(tmp_path, {"src/skip.cu": CUDA, "src/keep.cu": CUDA,
                      "src/.gitignore": "[z-a]\n\\\n!\nskip.cu\n[[:nope:]]\n"})
    assert main(["scan", "--no-cache", "-f", "json", str(tmp_path / "src")]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [Path(f["path"]).name for f in data["files"]] == ["k.cu", "keep.cu"]
    messages = [d["message"] for d in data["diagnostics"]]
    assert len([m for m in messages if "skipped" in m and "line" in m]) == 4, messages


def test_posix_classes_work_without_warnings(tmp_path: Path) -> None:
    _setup(tmp_path, {"src/a1.cu": CUDA, "src/1a.cu": CUDA})
    run = portkit(["scan", "-f", "json", "--exclude", "[[:alpha:]][[:digit:]].cu", "src"], tmp_path,
                  PYTHONWARNINGS="error")
    assert run.code == 0 and run.err == "", run.err
    assert sorted(Path(f["path"]).name for f in json.loads(run.out)["files"]) == ["1a.cu", "k.cu"]


# --- size, memory, workers ---------------------------------------------------------------

def test_files_over_the_size_limit_are_skipped_unread(tmp_path: Path, capsys, monkeypatch) -> None:
    _setup(tmp_path, {})
    huge = tmp_path / "src" / "huge.cu"
    with open(huge, "wb") as handle:  # sparse: 1 GiB on paper, nothing on disk; reading it would take GBs of memory
        handle.truncate(1 << 30)
    write(tmp_path / "src" / "mid.cu", CUDA * 100)
    start = time.perf_counter()
    assert main(["scan", "--no-cache", "-f", "json", str(tmp_path / "src")]) == 0
    assert main(["scan", "-f", "json", "--max-file-size", "1K", str(tmp_path / "src")]) == 0
    assert time.perf_counter() - start < 30
    first, second = [json.loads(chunk) for chunk in _json_documents(capsys.readouterr().out)]
    assert _too_large(first) == ["huge.cu"] and _too_large(second) == ["huge.cu", "mid.cu"]
    assert "skipped: too large (1024.0 MiB; the limit is 16.0 MiB, max-file-size)" in json.dumps(first)
    write(tmp_path / ".portkit.toml", 'max-file-size = "1K"\n')
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    assert main(["scan", "-f", "json", "src"]) == 0
    assert _too_large(json.loads(capsys.readouterr().out)) == ["huge.cu", "mid.cu"]


def _too_large(data: dict) -> list[str]:
    return sorted(Path(d["path"]).name for d in data["diagnostics"] if d["kind"] == "too-large")


def _json_documents(text: str) -> list[str]:
    decoder, documents, index = json.JSONDecoder(), [], 0
    while index < len(text):
        _, end = decoder.raw_decode(text, index)
        documents.append(text[index:end])
        index = end + 1
    return documents


def test_convert_reports_a_file_it_skipped_as_too_large(tmp_path: Path, capsys) -> None:
    _setup(tmp_path, {"src/big.cu": CUDA * 100})
    assert main(["convert", "--in-place", "--max-file-size", "1K", str(tmp_path / "src")]) == 2
    assert "big.cu: skipped: too large" in capsys.readouterr().err
    assert (tmp_path / "src" / "big.cu").read_bytes() == CUDA * 100


def test_workers_never_exceed_the_cores(tmp_path: Path, monkeypatch) -> None:
    import concurrent.futures

    from portkit.run.project import run_project
    from portkit.settings import available_cpus, resolve_settings

    _setup(tmp_path, {f"src/f{i}.cu": CUDA for i in range(40)})
    started: list[int] = []
    real = concurrent.futures.ProcessPoolExecutor

    def counting(workers: int, **kwargs):
        started.append(workers)
        return real(workers, **kwargs)

    # run/workers.py imports the pool class when it starts one (not with the module): patched where it comes from.
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", counting)
    settings = resolve_settings([str(tmp_path / "src")], jobs=40, cache=False)
    assert settings.jobs <= available_cpus()
    run_project(settings)
    assert started and all(w <= available_cpus() for w in started)


def test_many_jobs_on_the_command_line(tmp_path: Path) -> None:
    _setup(tmp_path, {f"src/f{i}.cu": CUDA for i in range(40)})
    run = portkit(["scan", "--no-cache", "-j", "64", "-f", "json", "src"], tmp_path)
    assert run.code == 0 and len(json.loads(run.out)["files"]) == 41
