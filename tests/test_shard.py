"""`scan --shard I/N` and `merge`: the parts of a CI matrix, merged, are one unsharded scan."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from portkit.cli import main
from portkit.run.project import run_project
from portkit.settings import resolve_settings
from portkit.run.shard import ShardSpec, merge_shards, parse_spec, read_shard

OPTIONS = ["--rocm-version", "5.2", "--max-file-size", "1K"]
FORMATS = ("json", "md", "sarif", "text", "html", "csv")
# Every cross-file effect, with the file that has it and the file that causes it in different parts
# for N = 2 and 3 (test_the_parts_split_the_cross_file_cases checks that):
TREE = {
    # defines what use.cu depends on: a function named like a CUDA API, a namespace alias, a macro.
    "proj/include/helpers.cuh": "#pragma once\n#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
                                "#define DEV_INLINE __device__ __forceinline__\nvoid cudaHelperInit(int *p);\n",
    "proj/src/helpers.cu": '#include "helpers.cuh"\nvoid cudaHelperInit(int *p) { *p = 0; }\n',
    "proj/src/use.cu": '#include "helpers.cuh"\nDEV_INLINE int twice(int a) { return a * 2; }\n'
                       "__global__ void k(float *x) {\n  cg::thread_block b = cg::this_thread_block();\n"
                       "  x[0] = __shfl_down_sync(0xffffffff, x[0], 1);\n}\n"
                       "void host(float *d, int n) {\n  int x;\n  cudaHelperInit(&x);\n"
                       "  cudaMalloc(&d, n);  // portkit: ignore\n  k<<<1, 32>>>(d);\n}\n",
    "proj/src/broken.cu": "void f( {\n  cudaDeviceSynchronize();\n",
    "proj/src/big.cu": "// too large for --max-file-size 1K\n" + "int a;\n" * 400,
    "proj/CMakeLists.txt": "project(x LANGUAGES CXX CUDA)\nset(CMAKE_CUDA_ARCHITECTURES 70)\n",
}


@pytest.fixture
def tree(tmp_path: Path, monkeypatch) -> Path:
    """The project under the current directory, so paths (and the parts they hash to) are fixed."""
    monkeypatch.chdir(tmp_path)
    for name, text in TREE.items():
        Path(name).parent.mkdir(parents=True, exist_ok=True)
        Path(name).write_text(text)
    Path("proj/src/latin1.cu").write_bytes(b"// caf\xe9\nvoid g() { cudaFree(0); }\n")  # an encoding warning
    Path("proj/src/gone.cu").symlink_to("missing.cu")  # a walk warning
    return tmp_path


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def make_shards(capsys, count: int, *extra: str, prefix: str = "shard") -> list[str]:
    names = []
    for index in range(1, count + 1):
        name = f"{prefix}-{index}.json"
        assert run(capsys, "scan", *OPTIONS, *extra, "--shard", f"{index}/{count}", "-o", name, "proj")[0] == 0
        names.append(name)
    return names


@pytest.mark.parametrize("count", [1, 2, 3])
def test_merged_equals_unsharded_byte_for_byte(tree: Path, capsys, count: int) -> None:
    shards = make_shards(capsys, count)
    for fmt in FORMATS:
        assert run(capsys, "scan", *OPTIONS, "-f", fmt, "-o", f"full.{fmt}", "proj")[0] == 0
        assert run(capsys, "merge", *reversed(shards), "-f", fmt, "-o", f"merged.{fmt}")[0] == 0
        assert Path(f"merged.{fmt}").read_bytes() == Path(f"full.{fmt}").read_bytes(), fmt
    full = run(capsys, "scan", *OPTIONS, "--details", "proj")
    assert run(capsys, "merge", "--details", *shards) == full


def test_the_parts_split_the_cross_file_cases() -> None:
    for count in (2, 3):
        parts = {path: next(i for i in range(1, count + 1) if ShardSpec(i, count).holds(path)) for path in TREE}
        assert parts["proj/src/use.cu"] != parts["proj/include/helpers.cuh"], count
        assert parts["proj/src/use.cu"] != parts["proj/src/helpers.cu"], count


def test_the_fixture_needs_the_project_wide_step(tree: Path, capsys) -> None:
    """What the parts hold is not yet the answer: merge must apply the whole project's names and aliases."""
    shards = [read_shard(Path(name)) for name in make_shards(capsys, 3)]
    raw = {f.name for s in shards for r in s.results for f in r.findings if f.path == "proj/src/use.cu"}
    assert "cudaHelperInit" in raw  # a CUDA-looking name, until helpers.cu (another part) defines it
    assert "cooperative_groups::this_thread_block" not in raw  # cg:: is aliased in another part's file
    code, out, _ = run(capsys, "merge", *(s.source for s in shards), "-f", "json")
    assert code == 0
    merged = {f["name"] for f in json.loads(out)["findings"] if f["path"] == "proj/src/use.cu"}
    assert "cudaHelperInit" not in merged
    assert "cooperative_groups::this_thread_block" in merged
    # The macro table came from every file: DEV_INLINE (helpers.cuh, another part) parses in use.cu.
    assert [r.error_line for s in shards for r in s.results if r.file.path == "proj/src/use.cu"] == [None]


def test_merged_run_is_the_unsharded_run(tree: Path, capsys) -> None:
    """Beyond what reports show: suppressions and the project-wide context are the same too."""
    settings = resolve_settings(["proj"], rocm_version="5.2", max_file_size="1K")
    full = run_project(settings)
    merged = merge_shards(Path(name) for name in make_shards(capsys, 2))
    assert merged.suppressions == full.suppressions and merged.suppressions
    assert (merged.findings, merged.diagnostics, merged.files) == (full.findings, full.diagnostics, full.files)
    for field in ("target", "project_names", "project_declared", "aliases", "project_paths"):
        assert getattr(merged.context, field) == getattr(full.context, field), field
    assert {d.reason for d in merged.diagnostics} >= {"too-large", "parse-error", "encoding", "skipped"}


def test_user_rules_travel_with_the_shards(tree: Path, capsys) -> None:
    team = Path("team.yaml")
    team.write_text("library: team\nentries:\n  - {cuda: cudaHelperInit, kind: function, status: unsupported}\n")
    shards = make_shards(capsys, 2, "--rules", str(team))
    full = run(capsys, "scan", *OPTIONS, "--rules", str(team), "-f", "json", "proj")
    assert run(capsys, "merge", "-f", "json", *shards) == full  # the rule files the shards recorded
    assert run(capsys, "merge", "-f", "json", "--rules", str(team), *shards) == full
    team.write_text("library: team\nentries:\n  - {cuda: cudaHelperInit, kind: function, hip: hipHelperInit}\n")
    code, out, err = run(capsys, "merge", *shards)
    assert (code, out) == (2, "") and err.startswith("portkit: error: the rule files differ from those the shards")
    assert err.count("\n") == 1


def _edited(name: str, change) -> str:
    data = json.loads(Path(name).read_text())
    change(data)
    Path("edited.json").write_text(json.dumps(data))
    return "edited.json"


MERGE_ERRORS = {
    "missing": (lambda s: [s[0], s[2]], "shard 2 of 3 missing"),
    "two missing": (lambda s: [s[1]], "shards 1, 3 of 3 missing"),
    "duplicate": (lambda s: [*s, s[1]], "shard 2/3 given twice: shard-2.json and shard-2.json"),
    "other split": (lambda s: [s[0], "half-1.json"], "shard-1.json is shard 1/3 but half-1.json is shard 1/2"),
    "other scan": (lambda s: [s[0], "new-2.json", s[2]],
                   "new-2.json and shard-1.json come from different scans (targets ROCm 6.2.0 and ROCm 5.2.0)"),
    "other tree": (lambda s: [s[0], "more-2.json", s[2]],
                   "more-2.json and shard-1.json come from different scans (8 and 7 files walked)"),
    "not a shard": (lambda s: [*s, "full.json"], "full.json: not a portkit shard document (write one"),
    "not JSON": (lambda s: ["proj/src/use.cu"], "proj/src/use.cu: not a portkit shard document (not JSON)"),
    "no such file": (lambda s: ["nope.json"], "nope.json: cannot read: No such file or directory"),
    "truncated": (lambda s: [_truncated(s[0])], "cut.json: not a portkit shard document (not JSON)"),
    "edited": (lambda s: [_edited(s[0], lambda d: d["files"][0]["result"].update(lines=7)), *s[1:]],
               "edited.json: corrupt shard document (checksum mismatch"),
    "other version": (lambda s: [_edited(s[0], lambda d: d.update(version=99))], "edited.json: shard document version 99"),
    "corrupt": (lambda s: [_edited(s[0], _corrupt)], "edited.json: corrupt shard document (KeyError: 'files')"),
}


def _truncated(name: str) -> str:
    Path("cut.json").write_bytes(Path(name).read_bytes()[:500])
    return "cut.json"


def _corrupt(data: dict) -> None:
    """Well-formed JSON with a valid checksum, but not what a shard holds."""
    from portkit.run.shard import _checksum

    del data["files"]
    data["checksum"] = _checksum(data)


@pytest.mark.parametrize("case", MERGE_ERRORS, ids=list(MERGE_ERRORS))
def test_merge_refuses_an_incomplete_or_inconsistent_set(tree: Path, capsys, case: str) -> None:
    shards = make_shards(capsys, 3)
    make_shards(capsys, 2, prefix="half")
    make_shards(capsys, 3, "--rocm-version", "6.2", prefix="new")
    Path("proj/src/more.cu").write_text("void more() {}\n")
    make_shards(capsys, 3, prefix="more")
    Path("proj/src/more.cu").unlink()
    assert run(capsys, "scan", *OPTIONS, "-f", "json", "-o", "full.json", "proj")[0] == 0
    pick, message = MERGE_ERRORS[case]
    code, out, err = run(capsys, "merge", *pick(shards))
    assert (code, out) == (2, ""), err
    assert err.startswith(f"portkit: error: {message}") and err.count("\n") == 1, err


@pytest.mark.parametrize("args, message", [
    (["--shard", "0/2"], "--shard '0/2': give I/N with 1 <= I <= N"),
    (["--shard", "3/2"], "--shard '3/2': give I/N with 1 <= I <= N"),
    (["--shard", "a/b"], "--shard 'a/b': give I/N with 1 <= I <= N"),
    (["--shard", "1/0"], "--shard '1/0': give I/N with 1 <= I <= N"),
    (["--shard", "2"], "--shard '2': give I/N with 1 <= I <= N"),
    (["--shard", "1/2", "-f", "md"], "--shard writes a shard document; give --format"),
    (["--shard", "1/2", "--report", "r.md"], "--shard writes a shard document; give --format"),
], ids=["zero", "past-the-end", "letters", "no-parts", "no-count", "format", "report"])
def test_bad_shard_option(tree: Path, capsys, args: list[str], message: str) -> None:
    code, out, err = run(capsys, "scan", *args, "proj")
    assert (code, out) == (2, "")
    assert err.startswith(f"portkit: error: {message}") and err.count("\n") == 1, err
    assert not Path("r.md").exists()


def test_outputs_never_overwrite_inputs(tree: Path, capsys) -> None:
    shards = make_shards(capsys, 2)
    code, _, err = run(capsys, "merge", *shards, "-o", shards[0])
    assert code == 2 and "refusing to overwrite it" in err
    code, _, err = run(capsys, "scan", *OPTIONS, "--shard", "1/2", "-o", "proj/src/use.cu", "proj")
    assert code == 2 and "refusing to overwrite it" in err
    assert Path("proj/src/use.cu").read_text() == TREE["proj/src/use.cu"]


def test_shards_are_stable_and_cover_every_path() -> None:
    paths = [f"src/f{i}.cu" for i in range(200)]
    before = {p: [i for i in range(1, 5) if ShardSpec(i, 4).holds(p)] for p in paths}
    assert all(len(parts) == 1 for parts in before.values())
    assert len({parts[0] for parts in before.values()}) == 4
    after = {p: [i for i in range(1, 5) if ShardSpec(i, 4).holds(p)] for p in [*paths, "src/new.cu"]}
    assert {p: after[p] for p in paths} == before  # a new file moves nothing else
    assert parse_spec(" 2/4 ") == ShardSpec(2, 4)


def test_help_explains_the_ci_matrix(capsys) -> None:
    for command in ("scan", "merge"):
        code, out, _ = run(capsys, command, "--help")
        assert code == 0 and "CI matrix" in " ".join(out.split()) and "--shard I/N" in out, command
