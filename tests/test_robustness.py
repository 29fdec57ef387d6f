"""Bad input, faults and interruptions: per-file diagnostics, no tracebacks, nothing lost."""
from __future__ import annotations

import os
import random
import signal
import subprocess
import shutil
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import ROOT
from portkit.cli import main

FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
CUDA_BITS = [b"cudaMalloc(&p, 4);", b"__global__ void k() {", b"}", b"{", b"#if __CUDA_ARCH__ >= 700", b"#endif",
             b"#define M(x) cudaFree(x) \\", b"k<<<1, 32>>>(", b"asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(l));",
             b"/* unterminated", b"\"unterminated string", b"\r\n", b"\n", b"\xef\xbb\xbf", b"caf\xe9", b"\xff\xfe",
             b"__shfl_down_sync(0xffffffff, v, 1);", b"ncclCommShrink(c, 0, 0, 0, 0, 0);", b"#include <curand.h>"]


def run_all(tmp_path: Path, data: bytes, capsys) -> None:
    """scan, convert and check on one file: each finishes with a defined exit code, no traceback."""
    src = tmp_path / "in"
    shutil.rmtree(src, ignore_errors=True)
    src.mkdir()
    (src / "fuzz.cu").write_bytes(data)
    scanned = main(["scan", "-f", "json", "--no-cache", str(src)])
    # A file that cannot be scanned, and nothing else: exit 2, saying so (a report of nothing is no clean bill).
    assert scanned == 0 or scanned == 2 and "nothing was scanned: " in capsys.readouterr().err
    out = tmp_path / "out"
    shutil.rmtree(out, ignore_errors=True)
    assert main(["convert", "--no-markers", str(src), "-o", str(out)]) in (0, 2)
    checked = main(["check", str(src / "fuzz.cu")])
    err = capsys.readouterr().err
    # A gate never passes a file it could not analyse (binary-looking, not UTF-8/16 text): exit 2, saying so.
    assert checked in (0, 1) or checked == 2 and "not analysed" in err, (checked, err)
    assert "Traceback" not in err and "internal error" not in err, err


@FUZZ
@given(st.binary(max_size=400))
def test_random_bytes(tmp_path: Path, capsys, data: bytes) -> None:
    run_all(tmp_path, data, capsys)


@FUZZ
@given(st.lists(st.sampled_from(CUDA_BITS), max_size=30))
def test_cuda_fragments_truncated_and_unbalanced(tmp_path: Path, capsys, pieces: list[bytes]) -> None:
    data = b" ".join(pieces)
    run_all(tmp_path, data, capsys)
    run_all(tmp_path, data[: len(data) // 2], capsys)


@FUZZ
@given(st.lists(st.sampled_from(CUDA_BITS), max_size=20))
def test_convert_is_idempotent_on_anything(tmp_path: Path, pieces: list[bytes]) -> None:
    data = b"\n".join(pieces).replace(b"\0", b"")
    for name in ("once", "twice"):
        shutil.rmtree(tmp_path / name, ignore_errors=True)
    (tmp_path / "a").mkdir(exist_ok=True)
    (tmp_path / "a" / "x.cu").write_bytes(data)
    assert main(["convert", "--rocm-version", "5.2", str(tmp_path / "a"), "-o", str(tmp_path / "once")]) == 0
    assert main(["convert", "--rocm-version", "5.2", str(tmp_path / "once"), "-o", str(tmp_path / "twice")]) == 0
    assert (tmp_path / "twice" / "x.cu").read_bytes() == (tmp_path / "once" / "x.cu").read_bytes()


@pytest.mark.parametrize("name, data", [
    ("nested-macros", b"".join(b"#define M%d(x) M%d(x)\n" % (i + 1, i) for i in range(2000)) + b"int y = M2000(cudaFree(0));\n"),
    ("deep-braces", b"void f() " + b"{" * 3000 + b"cudaFree(0);" + b"}" * 3000 + b"\n"),
    ("unbalanced-if", b"#if __CUDA_ARCH__ >= 700\n#if 1\nvoid f() { cudaFree(0); }\n#else\n"),
    ("long-line", b"void f() { " + b"cudaFree(0); " * 8000 + b"}\n"),
    ("crlf-bom-latin1", b"\xef\xbb\xbf// r\xe9sum\xe9\r\nvoid f() { cudaFree(0); }\r\n"),
    ("nul-bytes", b"void f() { cudaFree(0); }\x00\x00\x00"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_hostile_inputs_finish_quickly(name: str, data: bytes, tmp_path: Path, capsys) -> None:
    start = time.perf_counter()
    run_all(tmp_path, data, capsys)
    assert time.perf_counter() - start < 30


def test_ten_megabyte_file(tmp_path: Path, capsys) -> None:
    line = b"void f%d(float* p) { cudaFree(p); } // padding padding padding padding\n"
    data = b"".join(line % i for i in range(140_000))
    assert len(data) > 10_000_000
    start = time.perf_counter()
    (tmp_path / "big.cu").write_bytes(data)
    assert main(["scan", "--no-cache", "-f", "json", "-o", str(tmp_path / "r.json"), str(tmp_path / "big.cu")]) == 0
    assert time.perf_counter() - start < 120
    assert '"PK100"' in (tmp_path / "r.json").read_text()[:100_000] or (tmp_path / "r.json").stat().st_size > 1000


def test_unreadable_directory_and_vanishing_files(tmp_path: Path, capsys) -> None:
    (tmp_path / "ok.cu").write_text("void f() { cudaFree(0); }\n")
    os.symlink(tmp_path / "gone.cu", tmp_path / "dangling.cu")
    assert main(["scan", "--no-cache", "-f", "json", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "broken symbolic link skipped" in out and "cudaFree" in out


def test_output_directory_on_a_file_is_a_clean_error(tmp_path: Path, capsys) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.cu").write_text("void f() { cudaFree(0); }\n")
    (tmp_path / "blocker").write_text("a file where a directory should go\n")
    assert main(["convert", str(tmp_path / "src"), "-o", str(tmp_path / "blocker" / "out")]) == 2
    err = capsys.readouterr().err
    assert "cannot write" in err and "Traceback" not in err


def test_full_disk_is_a_clean_error(tmp_path: Path, capsys) -> None:
    tiny = tmp_path / "tiny"
    tiny.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", str(tiny)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    try:
        src = tmp_path / "src"
        src.mkdir()
        (src / "a.cu").write_text("void f() { cudaFree(0); }\n" * 5000)
        assert main(["convert", "--no-cache", str(src), "-o", str(tiny / "out")]) == 2
        err = capsys.readouterr().err
        assert "cannot write" in err and "Traceback" not in err
        assert not [p for p in (tiny / "out").rglob("*") if p.is_file() and p.stat().st_size and p.suffix == ".cu"]
    finally:
        subprocess.run(["umount", str(tiny)], capture_output=True)


def test_kill_during_in_place_convert_leaves_whole_files(tmp_path: Path) -> None:
    portkit = shutil.which("portkit")
    assert portkit
    src = tmp_path / "src"
    src.mkdir()
    original = {f"f{i:03d}.cu": (f"// unit {i}\n" + "void f(float* p) { cudaFree(p); cudaMalloc(&p, 4); }\n" * 200).encode()
                for i in range(120)}
    converted = None
    rng = random.Random(7)
    for attempt in range(3):
        for name, data in original.items():
            (src / name).write_bytes(data)
        for backup in src.glob("*.orig"):
            backup.unlink()
        process = subprocess.Popen([portkit, "convert", "--in-place", "--no-cache", "-j", "2", str(src)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.3, 2.0))
        process.send_signal(signal.SIGKILL)
        process.wait()
        for name, data in original.items():
            now = (src / name).read_bytes()
            if now != data:
                converted = converted or now
                assert b"hipFree(p); hipMalloc(&p, 4);" in now and b"cudaFree" not in now, f"{name} is half-written"
    assert main(["convert", "--in-place", "--no-cache", str(src)]) == 0
    for name in original:
        assert b"cudaFree" not in (src / name).read_bytes()


def test_subprocesses_never_use_a_shell() -> None:
    sources = "\n".join(p.read_text() for p in (ROOT / "portkit").rglob("*.py"))
    assert "shell=True" not in sources and "os.system" not in sources and "eval(" not in sources.replace("literal_eval(", "")


def test_interrupt_exits_130(tmp_path: Path) -> None:
    (tmp_path / "a.cu").write_text("void f() { cudaFree(0); }\n" * 50_000)
    process = subprocess.Popen([sys.executable, "-m", "portkit", "scan", "--no-cache", str(tmp_path)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode in (0, 130), err
    assert "Traceback" not in err


def test_unreadable_files_and_read_only_output_without_root_privileges(tmp_path: Path) -> None:
    """root reads everything: run portkit as root *without* its permission-override
    capabilities, so the real permission bits apply."""
    setpriv = shutil.which("setpriv")
    portkit = shutil.which("portkit")
    if os.geteuid() != 0 or not setpriv or not portkit:
        pytest.skip("needs root and setpriv (util-linux) to drop capabilities")
    drop = "-dac_override,-dac_read_search"
    command = [setpriv, f"--inh-caps={drop}", f"--ambient-caps={drop}", f"--bounding-set={drop}", "--", portkit]
    src = tmp_path / "src"
    (src / "locked").mkdir(parents=True)
    (src / "ok.cu").write_text("void f() { cudaFree(0); }\n")
    (src / "secret.cu").write_text("void g() { cudaFree(0); }\n")
    (src / "locked" / "hidden.cu").write_text("void h() { cudaFree(0); }\n")
    readonly = tmp_path / "readonly"
    readonly.mkdir()
    (src / "secret.cu").chmod(0o000)
    (src / "locked").chmod(0o000)
    readonly.chmod(0o555)
    env = {**os.environ, "PORTKIT_CACHE_DIR": str(tmp_path / "cache")}
    try:
        scan = subprocess.run(command + ["scan", "--no-cache", "-f", "json", str(src)], capture_output=True, text=True, env=env)
        assert scan.returncode == 0, scan.stderr
        assert "cannot read file: Permission denied" in scan.stdout
        assert "cannot read directory: Permission denied" in scan.stdout
        assert '"cudaFree"' in scan.stdout and "Traceback" not in scan.stderr
        convert = subprocess.run(command + ["convert", "--no-cache", str(src), "-o", str(readonly / "out")],
                                 capture_output=True, text=True, env=env)
        assert convert.returncode == 2, convert.stderr
        assert "cannot write" in convert.stderr and "Traceback" not in convert.stderr
    finally:
        (src / "locked").chmod(0o755)
        (src / "secret.cu").chmod(0o644)
        readonly.chmod(0o755)


def test_in_place_never_overwrites_a_file_edited_meanwhile(tmp_path: Path) -> None:
    from portkit.convert.output import Change, write_in_place

    target = tmp_path / "a.cu"
    target.write_bytes(b"void f() { cudaFree(0); } // edited by someone else\n")
    log = write_in_place([Change(str(target), b"void f() { cudaFree(0); }\n", b"void f() { hipFree(0); }\n")], backup=True)
    assert log.failures == [f"{target}: changed while portkit was running; left as it is, run again"]
    assert target.read_bytes() == b"void f() { cudaFree(0); } // edited by someone else\n"
    assert not (tmp_path / "a.cu.orig").exists()
