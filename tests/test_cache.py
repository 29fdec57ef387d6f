"""The scan cache: same results warm and cold, invalidated by content, rules and options."""
from __future__ import annotations

import json
from pathlib import Path

from portkit.cli import main


def scan(capsys, *args: str) -> dict:
    assert main(["scan", "-f", "json", "--rocm-version", "5.2", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_warm_equals_cold_and_changes_are_seen(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("PORTKIT_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.cu").write_text("void f(float* p) { cudaFree(p); }\n")
    (src / "b.cu").write_text("void g() { cudaDeviceSynchronize(); }\n")
    cold = scan(capsys, str(src))
    assert list((tmp_path / "cache" / "scan").rglob("*.json")), "the cold run fills the cache"
    assert scan(capsys, str(src)) == cold
    assert scan(capsys, "--no-cache", str(src)) == cold
    (src / "a.cu").write_text("void f(float* p) { cudaFree(p); ncclCommRevoke(0, 0); }\n")
    changed = scan(capsys, str(src))
    assert {f["name"] for f in changed["findings"] if f["library"]} == {"cudaFree", "ncclCommRevoke", "cudaDeviceSynchronize"}


def test_rules_and_target_are_part_of_the_key(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("PORTKIT_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "a.cu").write_text("void f() { teamAlloc(); __shfl_down_sync(~0u, 1, 1); }\n")
    rules = tmp_path / "team.yaml"
    rules.write_text("library: team\nentries:\n  - {cuda: teamAlloc, kind: function, status: unsupported}\n")
    first = scan(capsys, "--rules", str(rules), str(tmp_path / "a.cu"))
    assert {f["code"] for f in first["findings"] if f["name"] == "teamAlloc"} == {"PK102"}
    rules.write_text("library: team\nentries:\n  - {cuda: teamAlloc, kind: function, hip: teamHipAlloc}\n")
    second = scan(capsys, "--rules", str(rules), str(tmp_path / "a.cu"))
    assert {f["code"] for f in second["findings"] if f["name"] == "teamAlloc"} == {"PK100"}
    newer = json.loads(json.dumps(scan(capsys, "--rocm-version", "6.2", str(tmp_path / "a.cu"))))
    statuses = {f["status"] for f in newer["findings"] if f["name"] == "__shfl_down_sync" and f["status"]}
    assert statuses == {"partial"}


def test_corrupt_cache_entries_are_misses(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("PORTKIT_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "a.cu").write_text("void f(float* p) { cudaFree(p); }\n")
    cold = scan(capsys, str(tmp_path / "a.cu"))
    entries = list((tmp_path / "cache").rglob("*.json"))
    assert entries
    for entry in entries:
        entry.write_bytes(b"not an entry")
    assert scan(capsys, str(tmp_path / "a.cu")) == cold


def test_output_does_not_depend_on_what_was_cached(tmp_path: Path, capsys, monkeypatch) -> None:
    """Cache hits come before the files parsed afresh; the report still lists files in walk order."""
    monkeypatch.setenv("PORTKIT_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "src"
    src.mkdir()
    for name in ("a.cu", "b.cu", "c.cu"):
        (src / name).write_text(f"void {name[0]}(float* p) {{ cudaFree(p); }}\n")
    scan(capsys, str(src))
    (src / "a.cu").write_text("void a(float* p) { cudaFree(p); cudaFree(p); }\n")  # a miss before two hits
    warm = scan(capsys, str(src))
    assert [Path(f["path"]).name for f in warm["files"]] == ["a.cu", "b.cu", "c.cu"]
    assert warm == scan(capsys, "--no-cache", str(src))
