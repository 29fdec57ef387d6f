"""portkit check / baseline, suppressions, --diff, configuration, and the real pre-commit hook."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, require_tool
from portkit.check.baseline import fingerprint
from portkit.cli import main
from portkit.model import Finding, Position

SHRINK = "  ncclCommShrink(c, nullptr, 0, o, nullptr, 0);\n"
CLEAN = "void ok(float* p) { cudaFree(p); }\n"
LANEID = ('__device__ unsigned lane() {\n  unsigned ret;\n  asm volatile("mov.u32 %0, %%laneid;" : "=r"(ret));\n'
          '  return ret;\n}\n')
# Renames convert makes, some with differences (managed memory) or spelled older at HIP 5.2 (__shfl_down_sync).
RENAMES = ("#include <cuda_runtime.h>\nvoid g(float** p, float* h) {\n  cudaMalloc(p, 4);\n  cudaMallocManaged(p, 4);\n"
           "  cudaMemcpy(*p, h, 4, cudaMemcpyHostToDevice);\n  cudaDeviceSynchronize();\n  cudaFree(*p);\n}\n"
           "__device__ float r(float x) { return x + __shfl_down_sync(0xffffffffull, x, 1); }\n")


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def comm_file(body: str) -> str:
    return f"#include <nccl.h>\nvoid f(ncclComm_t c, ncclComm_t* o) {{\n{body}}}\n"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    subprocess.run(["git", "init", "-q"], check=True)
    return tmp_path


def test_fingerprint_ignores_line_numbers() -> None:
    a = Finding("a.cu", Position(3, 1), "PK102", "ncclCommShrink", "m", function="f")
    b = Finding("a.cu", Position(90, 7), "PK102", "ncclCommShrink", "m", function="f")
    assert fingerprint(a, "a.cu", "ncclCommShrink(c);") == fingerprint(b, "a.cu", "ncclCommShrink(c);")
    assert fingerprint(a, "a.cu", "ncclCommShrink(c);") != fingerprint(a, "b.cu", "ncclCommShrink(c);")


def test_new_unsupported_call_blocks(repo: Path, capsys) -> None:
    write(repo / "a.cu", comm_file(SHRINK))
    assert main(["check"]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("a.cu:3:3: PK102 ncclCommShrink (NCCL) has no RCCL equivalent (")
    assert "1 new, 0 baselined, 0 suppressed, 0 fixed" in err


def test_clean_and_partial_code_passes(repo: Path) -> None:
    write(repo / "a.cu", CLEAN + "void g(float** p) { cudaMallocManaged(p, 4); }\n")
    assert main(["check"]) == 0


def test_baseline_survives_moves_and_counts_copies(repo: Path, capsys) -> None:
    write(repo / "a.cu", comm_file(SHRINK))
    assert main(["baseline"]) == 0
    assert json.loads((repo / ".portkit-baseline.json").read_text())["findings"][0]["name"] == "ncclCommShrink"
    write(repo / "a.cu", "// moved down\n\n" + comm_file("  int unrelated = 1;\n" + SHRINK))
    assert main(["check"]) == 0
    write(repo / "a.cu", comm_file(SHRINK + SHRINK))
    capsys.readouterr()
    assert main(["check"]) == 1
    out, err = capsys.readouterr()
    assert "1 new, 1 baselined" in err
    # Identical lines share a fingerprint: the baseline counts them, so the message names the twin.
    assert out.startswith("a.cu:4:3: PK102 ") and "which is also at line 3: any of them may be the added one" in out


def test_baseline_says_how_many_of_its_findings_check_counts(repo: Path, capsys) -> None:
    """A baseline records partial findings too, which check never counts: 658 recorded and then 367 baselined looked
    like a loss, so the baseline says how many block today."""
    write(repo / "a.cu", comm_file(SHRINK) + RENAMES)
    assert main(["baseline"]) == 0
    said = capsys.readouterr().out
    recorded = len(json.loads((repo / ".portkit-baseline.json").read_text())["findings"])
    assert recorded > 1 and f"{recorded} findings recorded" in said and "; 1 of them block today" in said, said
    assert main(["check"]) == 0
    assert "0 new, 1 baselined" in capsys.readouterr().err


def test_fixed_entries_are_reported_not_fatal(repo: Path, capsys) -> None:
    write(repo / "a.cu", comm_file(SHRINK))
    main(["baseline"])
    write(repo / "a.cu", comm_file(""))
    capsys.readouterr()
    assert main(["check"]) == 0
    assert "a.cu: baseline entry no longer found (PK102 ncclCommShrink, x1)" in capsys.readouterr().err


@pytest.mark.parametrize("comment, blocked", [
    ("  // portkit: ignore[PK102]\n" + SHRINK, False),
    (SHRINK.rstrip("\n") + "  // portkit: ignore[PK102]\n", False),
    (SHRINK.rstrip("\n") + "  // portkit: ignore\n", False),
    (SHRINK.rstrip("\n") + "  // portkit: ignore[PK101]\n", True),
    ("  // portkit: ignore[PK102]\n\n" + SHRINK, True),
], ids=["line-before", "same-line", "all-codes", "other-code", "two-lines-up"])
def test_inline_suppressions(comment: str, blocked: bool, repo: Path) -> None:
    write(repo / "a.cu", comm_file(comment))
    assert main(["check"]) == (1 if blocked else 0)


def test_blocking_levels(repo: Path) -> None:
    write(repo / "a.cu", "void g(float** p) { cudaMallocManaged(p, 4); }\n__device__ void h() { __shfl_down_sync(~0u, 1, 1); }\n")
    assert main(["check", "--rocm-version", "5.2"]) == 0
    assert main(["check", "--rocm-version", "5.2", "--blocking", "unavailable"]) == 1
    assert main(["check", "--blocking", "sometimes"]) == 2


@pytest.mark.parametrize("version", ["5.2", "6.2"])
def test_what_does_not_build_as_written_blocks(version: str, repo: Path, capsys) -> None:
    write(repo / "a.cu", LANEID)
    assert main(["check", "--rocm-version", version]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("a.cu:3:3: PK101 inline PTX") and "does not build for AMD as written (Replace the asm" in out
    assert "'// portkit: ignore[PK101]' on its line or the line before" in err and "'portkit baseline'" in err
    assert "blocking: unsupported, unbuildable" in err
    assert main(["check", "--rocm-version", version, "--blocking", "unsupported"]) == 0
    write(repo / "a.cu", RENAMES)
    assert main(["check", "--rocm-version", version]) == 0


def test_a_name_hip_lacks_at_the_target_blocks(repo: Path) -> None:
    write(repo / "a.cu", "#include <cuda_bf16.h>\n__device__ __nv_bfloat162 h(__nv_bfloat162 x) { return x; }\n")
    assert main(["check", "--rocm-version", "5.2"]) == 1
    assert main(["check", "--rocm-version", "6.2"]) == 0


def test_diff_only_reports_added_lines(repo: Path, capsys) -> None:
    write(repo / "a.cu", comm_file(SHRINK))
    subprocess.run(["git", "add", "."], check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "old"], check=True)
    assert main(["check", "--diff", "HEAD"]) == 0
    write(repo / "a.cu", comm_file(SHRINK + "  ncclCommRevoke(c, 0);\n"))
    capsys.readouterr()
    assert main(["check", "--diff", "HEAD"]) == 1
    assert capsys.readouterr().out.startswith("a.cu:4:3: PK102 ncclCommRevoke")
    assert main(["check", "--diff", "no-such-ref"]) == 2


def commit_all(message: str) -> None:
    subprocess.run(["git", "add", "."], check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message], check=True)


def test_diff_beside_a_baseline_reports_only_the_diff(repo: Path, capsys) -> None:
    for n in range(5):
        write(repo / f"c{n}.cu", comm_file(SHRINK) + LANEID)
    assert main(["baseline"]) == 0
    commit_all("baselined")
    capsys.readouterr()
    # An unchanged tree: nothing new, nothing fixed, no baseline noise at all.
    assert main(["check", "--diff", "HEAD"]) == 0
    out, err = capsys.readouterr()
    assert out == "" and err.strip() == "portkit check: 0 new, 0 baselined, 0 suppressed, 0 fixed; " \
                                        "blocking: unsupported, unbuildable"
    # One baselined call removed, another copied (above the original) into a changed file.
    write(repo / "c0.cu", comm_file("") + LANEID)
    write(repo / "c1.cu", comm_file(SHRINK + SHRINK) + LANEID)
    write(repo / "c2.cu", "// reviewed\n" + comm_file(SHRINK) + LANEID)
    assert main(["check", "--diff", "HEAD"]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("c1.cu:4:3: PK102 ncclCommShrink") and out.count("\n") == 1
    assert err.count("baseline entry no longer found") == 1 and "c0.cu: baseline entry" in err
    assert "1 new, 0 baselined, 0 suppressed, 1 fixed" in err


def test_corrupt_baseline_is_an_error(repo: Path, capsys) -> None:
    write(repo / "a.cu", CLEAN)
    write(repo / ".portkit-baseline.json", "{not json")
    assert main(["check"]) == 2
    assert "not a portkit baseline" in capsys.readouterr().err
    write(repo / ".portkit-baseline.json", json.dumps({"schema_version": 1, "findings": [{"code": "x"}]}))
    assert main(["check"]) == 2


def test_configuration(repo: Path, capsys) -> None:
    write(repo / "a.cu", "void g(float** p) { cudaMallocManaged(p, 4); }\n")
    write(repo / "vendor" / "v.cu", comm_file(SHRINK))
    write(repo / "pyproject.toml", '[tool.portkit]\nblocking = ["unsupported", "partial"]\nexclude = ["vendor/"]\n'
                                   'baseline = "ci/portkit.json"\n')
    assert main(["check"]) == 1
    assert main(["baseline"]) == 0
    assert (repo / "ci" / "portkit.json").exists()
    assert main(["check"]) == 0


@pytest.mark.parametrize("content, message", [
    ('[tool.portkit]\nblock = ["unsupported"]\n', "pyproject.toml: [tool.portkit]: unknown key 'block'"),
    ('[tool.portkit]\nblocking = "unsupported"\n', "key 'blocking': must be a list of strings"),
    ('[tool.portkit]\nblocking = ["never"]\n', "key 'blocking': 'never' is not one of supported, partial, "
                                               "unsupported, removed, unavailable, unbuildable"),
    ("[tool.portkit\n", "pyproject.toml: invalid TOML"),
])
def test_bad_configuration(content: str, message: str, repo: Path, capsys) -> None:
    write(repo / "pyproject.toml", content)
    write(repo / "a.cu", CLEAN)
    assert main(["check"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_portkit_toml_is_read(repo: Path) -> None:
    write(repo / ".portkit.toml", 'blocking = ["partial"]\n')
    write(repo / "a.cu", "void g(float** p) { cudaMallocManaged(p, 4); }\n")
    assert main(["check"]) == 1


# --- the real pre-commit, in a real git repository ---------------------------------


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, env=env, check=check)


# colmap's layout: src/colmap/util/cuda.h, its own header, included as "colmap/util/cuda.h" through -I src.
OWN_CUDA_H = ("#pragma once\n#include <string>\nnamespace mylib {\n"
              "void CudaSafeCall(int error, const std::string& file, int line);\n"
              "#define CUDA_SAFE_CALL(error) mylib::CudaSafeCall(error, __FILE__, __LINE__)\n"
              "int cudaDeviceCount();\n}\n")
USES_OWN_CUDA_H = ('#include "mylib/util/cuda.h"\nnamespace mylib {\n'
                   "int count() { CUDA_SAFE_CALL(0); return cudaDeviceCount(); }\n}\n")


def test_one_named_file_finds_its_own_header_through_an_include_directory(repo: Path, capsys, monkeypatch) -> None:
    """`portkit check src/mylib/mvs/use.cc` (what pre-commit runs) took "mylib/util/cuda.h" for NVIDIA's cuda.h: the
    header sits under src/, which only -I src puts on the include path, and the named file's includes were looked
    for beside it and at the project root only. They are looked for in each directory between too, so the run on
    the one file agrees with the run on the tree: the header is the project's, and so are its declarations."""
    write(repo / "src/mylib/util/cuda.h", OWN_CUDA_H)
    write(repo / "src/mylib/mvs/use.cc", USES_OWN_CUDA_H)
    git(repo, "add", ".")
    assert main(["check", "--blocking", "supported", "src/mylib/mvs/use.cc"]) == 0, capsys.readouterr().out
    for paths in (["src/mylib/mvs/use.cc"], ["."]):
        capsys.readouterr()
        assert main(["scan", "--format", "json", *paths]) == 0
        assert json.loads(capsys.readouterr().out)["findings"] == [], paths
    # Named from a directory that is not the project's (its root is where the run starts): the file's repository is.
    elsewhere = write(repo / "tools" / "README", "")
    monkeypatch.chdir(elsewhere.parent)
    assert main(["check", "--blocking", "supported", str(repo / "src/mylib/mvs/use.cc")]) == 0, capsys.readouterr().out


def test_pre_commit_hook_blocks_new_unportable_calls(tmp_path: Path) -> None:
    pre_commit = require_tool("pre-commit")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    if head.returncode != 0 or not (ROOT / ".pre-commit-hooks.yaml").exists():
        pytest.skip("needs a git checkout of portkit with at least one commit")
    shown = subprocess.run(["git", "show", "HEAD:.pre-commit-hooks.yaml"], cwd=ROOT, capture_output=True, text=True)
    assert shown.returncode == 0, "commit .pre-commit-hooks.yaml before running this test"
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q")
    write(repo / ".pre-commit-config.yaml",
          f"repos:\n- repo: {ROOT}\n  rev: {head.stdout.strip()}\n  hooks:\n  - id: portkit\n")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    subprocess.run([pre_commit, "install"], cwd=repo, check=True, capture_output=True, env=env)
    os.environ["PRE_COMMIT_HOME"] = env["PRE_COMMIT_HOME"]
    try:
        # Existing unportable code, recorded in a baseline: committing it passes.
        write(repo / "comm.cu", comm_file(SHRINK))
        subprocess.run([shutil.which("portkit") or "portkit", "baseline"], cwd=repo, check=True, capture_output=True)
        git(repo, "add", ".")
        first = git(repo, "commit", "-m", "existing code", check=False)
        assert first.returncode == 0, first.stdout + first.stderr

        # A clean change passes.
        write(repo / "clean.cu", CLEAN)
        git(repo, "add", "clean.cu")
        assert git(repo, "commit", "-m", "clean", check=False).returncode == 0

        # Touching the file with the baselined call passes.
        write(repo / "comm.cu", "// reviewed\n" + comm_file(SHRINK))
        git(repo, "add", "comm.cu")
        assert git(repo, "commit", "-m", "touch", check=False).returncode == 0

        # A new unsupported call is blocked with its file:line.
        write(repo / "new.cu", comm_file("  ncclCommRevoke(c, 0);\n"))
        git(repo, "add", "new.cu")
        blocked = git(repo, "commit", "-m", "new call", check=False)
        assert blocked.returncode != 0
        assert "new.cu:3:3: PK102 ncclCommRevoke" in blocked.stdout + blocked.stderr

        # The same call with a suppression passes.
        write(repo / "new.cu", comm_file("  ncclCommRevoke(c, 0);  // portkit: ignore[PK102]\n"))
        git(repo, "add", "new.cu")
        suppressed = git(repo, "commit", "-m", "suppressed", check=False)
        assert suppressed.returncode == 0, suppressed.stdout + suppressed.stderr

        # Inline PTX has a HIP counterpart but cannot build as written: blocked, saying how to accept it.
        write(repo / "lane.cu", LANEID)
        git(repo, "add", "lane.cu")
        blocked = git(repo, "commit", "-m", "laneid", check=False)
        output = blocked.stdout + blocked.stderr
        assert blocked.returncode != 0, output
        assert "lane.cu:3:3: PK101 inline PTX" in output and "does not build for AMD as written" in output
        assert "'// portkit: ignore[PK101]'" in output and "'portkit baseline'" in output
        git(repo, "reset", "-q", "lane.cu")
        (repo / "lane.cu").unlink()

        # Plain renames, which convert makes, pass.
        write(repo / "renames.cu", RENAMES)
        git(repo, "add", "renames.cu")
        renamed = git(repo, "commit", "-m", "renames", check=False)
        assert renamed.returncode == 0, renamed.stdout + renamed.stderr
    finally:
        os.environ.pop("PRE_COMMIT_HOME", None)


def test_a_named_file_of_no_known_kind_is_left_out_with_a_note(repo: Path, capsys) -> None:
    """pre-commit names every staged C, C++ and CUDA file, some the walk reads in no directory (kernels.ipp, or a
    .hpp beside `extensions = [".cu"]`): check reads it as the scan of the project does (not at all, so a
    baseline of the project holds nothing for it), with a note, and does not stop the commit; scan refuses it."""
    write(repo / "a.cu", comm_file(SHRINK))
    write(repo / "kernels.ipp", comm_file(SHRINK))
    assert main(["check", "kernels.ipp"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("portkit check: kernels.ipp: not a source or build file: .ipp is not a source extension (")
    assert err.endswith("; not checked\n")
    assert main(["check", "kernels.ipp", "a.cu"]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("a.cu:3:3: PK102 ") and "kernels.ipp" not in out
    assert "; not checked\n" in err and "1 new, 0 baselined" in err
    assert main(["check", "--extensions", ".cu,.ipp", "kernels.ipp"]) == 1
    assert capsys.readouterr().out.startswith("kernels.ipp:3:3: PK102 ")
    assert main(["scan", "kernels.ipp"]) == 2


def test_diff_given_a_path_says_it_takes_a_revision(tmp_path: Path) -> None:
    """`portkit check --diff csrc` took the path as the revision: "git diff csrc: bad revision". A path that is no
    revision gets a one-line usage error naming the command it likely meant; a revision still works."""
    require_tool("git")
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc" / "a.cu").write_text("int x;\n")
    for command in (["init", "-q"], ["add", "."], ["-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "i"]):
        subprocess.run(["git", *command], cwd=tmp_path, check=True)
    import sys
    run = [sys.executable, "-m", "portkit", "check", "--no-cache"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    wrong = subprocess.run([*run, "--diff", "csrc"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert wrong.returncode == 2 and "Traceback" not in wrong.stderr
    assert wrong.stderr.strip().splitlines() == [
        "portkit: error: --diff takes a git revision; csrc is a path: did you mean 'portkit check --diff HEAD csrc'?"]
    right = subprocess.run([*run, "--diff", "HEAD", "csrc"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert right.returncode == 0, right.stderr
