"""`check` never reports "0 new" over a file it did not analyse, and `convert` never passes one over silently."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from safety_kit import CUDA, UNSUPPORTED, portkit, unprivileged, write

# Each hides an unsupported call from the analysis: (name, bytes, extra arguments).
UNANALYSED = [
    ("nul in a comment", UNSUPPORTED + b"// \0\n", []),
    ("utf-16 without a byte order mark", UNSUPPORTED.decode().encode("utf-16-le"), []),
    ("over the size limit", UNSUPPORTED + b"//" + b"x" * 2048 + b"\n", ["--max-file-size", "1K"]),
]


@pytest.mark.parametrize("name,data,extra", UNANALYSED, ids=[u[0] for u in UNANALYSED])
def test_check_fails_on_a_file_it_could_not_analyse(name: str, data: bytes, extra: list[str], tmp_path: Path) -> None:
    write(tmp_path / "src" / "k.cu", CUDA)
    write(tmp_path / "src" / "hidden.cu", data)
    run = portkit(["check", *extra, "src"], tmp_path)
    assert run.code == 2, run.err
    assert "hidden.cu" in run.err and "not analysed" in run.err and "1 not analysed" in run.err_lines[-1], run.err
    allowed = portkit(["check", "--allow-unanalysed", *extra, "src"], tmp_path)
    assert allowed.code == 0 and "hidden.cu" in allowed.err and "not analysed" in allowed.err, allowed.err


@pytest.mark.parametrize("name,data,extra", UNANALYSED, ids=[u[0] for u in UNANALYSED])
def test_convert_says_it_did_not_convert_such_a_file(name: str, data: bytes, extra: list[str], tmp_path: Path) -> None:
    write(tmp_path / "src" / "hidden.cu", data)
    run = portkit(["convert", *extra, "src", "-o", "out"], tmp_path)
    assert run.code == 2 and "hidden.cu" in run.err and "not converted" in run.err, run.err


@pytest.mark.parametrize("name,data,extra", UNANALYSED, ids=[u[0] for u in UNANALYSED])
def test_scan_and_convert_name_the_same_file_and_convert_does_the_rest(
        name: str, data: bytes, extra: list[str], tmp_path: Path) -> None:
    """bitsandbytes' trial: one binary .cu among the inputs, `scan` exited 0 naming nothing but "1 skipped" (the file
    behind --details) while `convert` exited 2. Both name it now, as not scanned and not converted: the scan of the
    rest is whole (0); convert converts the rest, copies the file as it is and exits 2 (docs/guarantees.md: a file
    that could not be converted), and with the file excluded it exits 0."""
    write(tmp_path / "src" / "k.cu", CUDA)
    write(tmp_path / "src" / "hidden.cu", data)
    scanned = portkit(["scan", *extra, "src"], tmp_path)
    assert scanned.code == 0 and "hidden.cu" in scanned.err and "not scanned" in scanned.err, scanned.err
    converted = portkit(["convert", *extra, "src", "-o", "out"], tmp_path)
    assert converted.code == 2 and "hidden.cu" in converted.err and "not converted" in converted.err, converted.err
    assert b"hipMalloc" in (tmp_path / "out" / "k.cu").read_bytes()
    assert (tmp_path / "out" / "hidden.cu").read_bytes() == data
    excluded = portkit(["convert", *extra, "src", "-o", "excluded", "--exclude", "hidden.cu"], tmp_path)
    assert excluded.code == 0 and "hidden.cu" not in excluded.err, excluded.err
    assert (tmp_path / "excluded" / "hidden.cu").read_bytes() == data


def test_utf16_with_a_byte_order_mark_is_analysed_so_the_gate_sees_its_calls(tmp_path: Path) -> None:
    """A UTF-16 file that says so (a BOM: a Windows editor's) is read as text: check blocks the unsupported call in
    it, and convert converts it, in UTF-16 again."""
    write(tmp_path / "src" / "k.cu", CUDA)
    write(tmp_path / "src" / "wide.cu", "\ufeff".encode("utf-16-le") + UNSUPPORTED.decode().encode("utf-16-le"))
    run = portkit(["check", "src"], tmp_path)
    assert run.code == 1 and "src/wide.cu:1:" in run.out and "not analysed" not in run.err, run.out + run.err
    converted = portkit(["convert", "src", "-o", "out"], tmp_path)
    assert converted.code == 0 and "not converted" not in converted.err, converted.err
    assert (tmp_path / "out" / "wide.cu").read_bytes().startswith("\ufeff".encode("utf-16-le"))


def test_an_unreadable_directory_fails_the_check(tmp_path: Path) -> None:
    mode = unprivileged()
    if mode is None:
        pytest.skip("no way to run without root's permission overrides")
    write(tmp_path / "src" / "k.cu", CUDA)
    write(tmp_path / "src" / "locked" / "bad.cu", UNSUPPORTED)
    os.chmod(tmp_path / "src" / "locked", 0)
    try:
        run = portkit(["check", "src"], tmp_path, as_user=mode[1])
    finally:
        os.chmod(tmp_path / "src" / "locked", 0o755)
    assert run.code == 2 and "locked" in run.err and "not analysed" in run.err, run.err


def test_links_skipped_are_not_unanalysed_files(tmp_path: Path) -> None:
    write(tmp_path / "src" / "k.cu", CUDA)
    os.symlink("missing.cu", tmp_path / "src" / "dangling.cu")
    os.symlink("/etc/hostname", tmp_path / "src" / "out.cu")
    run = portkit(["check", "src"], tmp_path)
    assert run.code == 0 and "not analysed" not in run.err, run.err
