"""portkit's helpers (rules/_helpers.yaml): what rules spell with them exists, each block compiles
with the real compilers, and converted code that uses them builds, links and runs."""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from conftest import require, require_tool
from portkit.cli import main
from portkit.rules.snippets import HELPER_PREFIX, all_helpers, helper_providing

CONVERT_INPUTS = Path(__file__).parent / "convert"
ROCM_SMI = Path("/usr/include/rocm_smi/rocm_smi.h")


def _require_rocm_smi() -> None:
    require(ROCM_SMI.exists(), "ROCm SMI not installed (Debian: librocm-smi-dev)")


def test_every_helper_spelling_a_rule_writes_is_provided(database) -> None:
    spellings = {s for rule in database.all_rules() for s in (rule.hip, rule.older_hip) if s.startswith(HELPER_PREFIX)}
    assert spellings, "some rules are spelled with helpers"
    assert [s for s in spellings if helper_providing(s) is None] == []
    provided = {name for helper in all_helpers() for name in helper.provides}
    # Every name a helper provides is defined by its block, and written by some rule (or used by the block).
    for helper in all_helpers():
        for name in helper.provides:
            assert re.search(rf"\b{name}\s*[;(]|\b{name}\(", helper.text), (helper.name, name)
    assert spellings <= provided


@pytest.mark.parametrize("helper", [h.name for h in all_helpers()])
def test_each_helper_compiles_alone(helper: str, tmp_path: Path) -> None:
    """hipcc for every block; a C compiler too for those that claim to be valid C. Twice in one unit:
    the guard holds."""
    _require_rocm_smi()
    block = next(h for h in all_helpers() if h.name == helper)
    source = tmp_path / "unit.cpp"
    source.write_text(block.text + block.text)
    run = subprocess.run([require_tool("hipcc"), "--offload-arch=gfx90a", "-fsyntax-only", "-x", "hip", "-Wall", "-Werror",
                          "-Wno-unused-command-line-argument",
                          str(source)], capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"})
    assert run.returncode == 0, run.stderr[-2000:]
    if block.language == "c":
        run = subprocess.run([require_tool("gcc"), "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
                              "-x", "c", str(source)], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr[-2000:]


def test_converted_nvml_program_links_and_runs_against_rocm_smi(tmp_path: Path) -> None:
    """A C program reading a clock through NVML, converted, compiled, linked with the real
    librocm_smi64 and run: it reads the clock of an AMD GPU, or says why not in ROCm SMI's words."""
    _require_rocm_smi()
    out = tmp_path / "out"
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(CONVERT_INPUTS / "nvml_monitor.c"), "-o", str(out)]) == 0
    text = (out / "nvml_monitor.c").read_text()
    assert "#include <rocm_smi/rocm_smi.h>" in text and text.count("#define PORTKIT_HELPER_NVML") == 1
    assert "portkit_nvmlDevice_t device;" in text and "portkit_nvmlDeviceGetClockInfo(device, RSMI_CLK_TYPE_MEM, &mhz)" in text
    program = tmp_path / "monitor"
    build = subprocess.run([require_tool("gcc"), "-std=c99", "-Wall", "-Werror", str(out / "nvml_monitor.c"), "-o", str(program),
                            "-lrocm_smi64"], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-2000:]
    run = subprocess.run([str(program)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr[-2000:]
    assert re.fullmatch(r"memory clock: \d+ MHz\n|no reading: \S.*\n", run.stdout), run.stdout
    assert "unknown ROCm SMI status" not in run.stdout
    # Converting the output again adds nothing.
    assert main(["convert", "--no-cache", "--rocm-version", "5.2", str(out), "-o", str(tmp_path / "again")]) == 0
    assert (tmp_path / "again" / "nvml_monitor.c").read_text() == text


@pytest.mark.parametrize("version, helper", [("5.2", True), ("6.2", False)])
def test_occupancy_helper_only_where_hip_lacks_the_call(version: str, helper: bool, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert main(["convert", "--no-cache", "--rocm-version", version, str(CONVERT_INPUTS / "compiles" / "monitoring.cu"),
                 "-o", str(out)]) == 0
    text = (out / "monitoring.cu").read_text()
    assert ("#define PORTKIT_HELPER_OCCUPANCY_VARIABLE_SMEM" in text) == helper
    call = "portkit_hipOccupancyMaxPotentialBlockSizeVariableSMem(" if helper else "hipOccupancyMaxPotentialBlockSizeVariableSMem("
    assert f"  {call}&min_grid, &block, apply<Twice>, staging_bytes);" in text
    assert text.count("#define PORTKIT_HELPER_NVML") == 1


def test_scan_says_convert_writes_the_helper(capsys) -> None:
    import json

    assert main(["scan", "-f", "json", "--no-cache", "--rocm-version", "5.2", str(CONVERT_INPUTS / "nvml_monitor.c")]) == 0
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert [f["message"] for f in findings if f["code"] == "PK204"] == ["hipcc needs portkit's nvml helper before the code"]
    rename = next(f for f in findings if f["name"] == "nvmlDeviceGetHandleByIndex")
    assert rename["status"] == "partial" and rename["hip"] == "portkit_nvmlDeviceGetHandleByIndex"


@pytest.mark.parametrize("version, expected", [
    ("5.2", ["unsigned same = portkit_match_any_sync(0xffffffff, key);",
             "portkit_match_all_sync(portkit_activemask(), firsts[0], &uniform);", "#define PORTKIT_HELPER_WARP_MATCH\n"]),
    ("6.2", ["#define HIP_ENABLE_WARP_SYNC_BUILTINS\n", "__match_any_sync(0xffffffffffffffffull, key)",
             "__match_all_sync(__activemask(), firsts[0], &uniform)"]),
])
def test_warp_match_helper_only_before_hip_6_2(version: str, expected: list[str], tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert main(["convert", "--no-cache", "--rocm-version", version, str(CONVERT_INPUTS / "compiles" / "warp_match.cu"),
                 "-o", str(out)]) == 0
    text = (out / "warp_match.cu").read_text()
    for piece in expected:
        assert piece in text, (version, piece)
    assert ("PORTKIT_HELPER" in text) == (version == "5.2")


def test_a_name_written_as_one_whose_rule_brings_a_helper_brings_it_too(database) -> None:
    """Converting the output again must add nothing: `umin` becomes `min`, whose rule brings the
    mixed-min-max helper, so the first run brings it too."""
    by_helper = {rule.cuda: rule.helper for rule in database.all_rules() if rule.helper}
    assert by_helper.get("min") == by_helper.get("max") == "mixed-min-max"
    missing = [rule.cuda for rule in database.all_rules() if rule.hip in by_helper and rule.helper != by_helper[rule.hip]]
    assert missing == []


_DOT_DRIVER = r"""
#include <cstdio>
int main() {
  const unsigned values[] = {0u, 1u, 0x7f80ff01u, 0x80808080u, 0xffffffffu, 0x01020304u, 0xdeadbeefu, 0x12345678u};
  for (unsigned a : values) for (unsigned b : values) for (unsigned c : {0u, 5u, 0x7fffffffu, 0x80000000u}) {
    char4 ca = make_char4(a, a >> 8, a >> 16, a >> 24), cb = make_char4(b, b >> 8, b >> 16, b >> 24);
    uchar4 ua = make_uchar4(a, a >> 8, a >> 16, a >> 24), ub = make_uchar4(b, b >> 8, b >> 16, b >> 24);
    short2 sa = make_short2(a, a >> 16); ushort2 usa = make_ushort2(a, a >> 16);
    printf("%u %u %u %d %u %d %u %d %u %d %u %d %u %d %u\n", a, b, c,
           portkit_dp4a((int)a, (int)b, (int)c), portkit_dp4a(a, b, c), portkit_dp4a(ca, cb, (int)c), portkit_dp4a(ua, ub, c),
           portkit_dp2a_lo((int)a, (int)b, (int)c), portkit_dp2a_lo(a, b, c), portkit_dp2a_lo(sa, cb, (int)c),
           portkit_dp2a_lo(usa, ub, c), portkit_dp2a_hi((int)a, (int)b, (int)c), portkit_dp2a_hi(a, b, c),
           portkit_dp2a_hi(sa, cb, (int)c), portkit_dp2a_hi(usa, ub, c));
  }
}
"""


def _field(value: int, shift: int, bits: int, signed: bool) -> int:
    field = (value >> shift) & ((1 << bits) - 1)
    return field - (1 << bits) if signed and field >> (bits - 1) else field


def _wrap(value: int, signed: bool) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if signed and value >> 31 else value


def _run_on_host(helper: str, driver: str, tmp_path: Path) -> str:
    """A helper's block and a `main` that prints its results, built by hipcc for the host only and run: the output."""
    block = next(h for h in all_helpers() if h.name == helper)
    source, program = tmp_path / "driver.cpp", tmp_path / "driver"
    source.write_text(block.text + driver)
    build = subprocess.run([require_tool("hipcc"), "--offload-arch=gfx90a", "--cuda-host-only", "-x", "hip", "-Wall", "-Werror",
                            "-Wno-unused-command-line-argument", str(source), "-o", str(program)],
                           capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"})
    assert build.returncode == 0, build.stderr[-2000:]
    run = subprocess.run([str(program)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout


def _unary(name: str) -> bool:
    """Whether the SIMD intrinsic `name` takes one operand (__vneg4, __vabsss2; not __vabsdiffu4)."""
    return name[1:4] in ("neg", "abs") and not name.startswith("vabsdiff")


def _dot_reference(a: int, b: int, c: int) -> list[int]:
    """PTX's dp4a and dp2a (lo: bytes 0 and 1 of b, hi: bytes 2 and 3), signed and unsigned, from their definitions."""
    row = []
    for signed in (True, False):
        row.append(_wrap(c + sum(_field(a, 8 * i, 8, signed) * _field(b, 8 * i, 8, signed) for i in range(4)), signed))
    dp4a = row * 2  # the vector forms are the same sums
    dp2a = []
    for first in (0, 2):
        for signed in (True, False):
            total = c + sum(_field(a, 16 * i, 16, signed) * _field(b, 8 * (first + i), 8, signed) for i in range(2))
            dp2a.append(_wrap(total, signed))
    lo, hi = dp2a[:2] * 2, dp2a[2:] * 2
    return [dp4a[0], dp4a[1], dp4a[2], dp4a[3], lo[0], lo[1], lo[2], lo[3], hi[0], hi[1], hi[2], hi[3]]


def test_dot_products_helper_computes_cudas_sums(tmp_path: Path) -> None:
    """The dot-products helper against PTX's definitions of dp4a and dp2a, for signed and unsigned operands, the
    integer and the vector forms, at the edges (0x80 bytes, all ones, overflow of the accumulator); run on the host."""
    rows = [list(map(int, line.split())) for line in _run_on_host("dot-products", _DOT_DRIVER, tmp_path).splitlines()]
    assert len(rows) == 256
    for a, b, c, *computed in rows:
        assert computed == _dot_reference(a, b, c), (hex(a), hex(b), hex(c))


def _lanes_reference(name: str, a: int, b: int) -> int:
    """CUDA's SIMD-within-a-word intrinsic `name` (without its `__`), lane by lane, from the Math API's definitions."""
    match = re.fullmatch(r"v(add|sub|neg|abs|max|min|absdiff|sad|avg|hadd|cmp|set)(eq|ne|ge|gt|le|lt)?(ss|us|s|u)?([24])", name)
    assert match, name
    op, relation, sign, width = match.groups()
    bits = 32 // int(width)
    signed = sign in ("s", "ss") or op in ("neg", "abs") and sign != "us"
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    result = 0
    for shift in range(0, 32, bits):
        x, y = _field(a, shift, bits, signed), _field(b, shift, bits, signed)
        if op == "sad":
            result += abs(x - y)
            continue
        if op in ("cmp", "set"):
            true = {"eq": x == y, "ne": x != y, "ge": x >= y, "gt": x > y, "le": x <= y, "lt": x < y}[relation]
            lane = ((1 << bits) - 1 if op == "cmp" else 1) if true else 0
        else:
            lane = {"add": x + y, "sub": x - y, "neg": -x, "abs": abs(x), "max": max(x, y), "min": min(x, y),
                    "absdiff": abs(x - y), "avg": (x + y + 1) // 2, "hadd": (x + y) // 2}[op]
            if sign in ("ss", "us"):
                lane = min(max(lane, low), high)  # saturated to the lane's range
        result |= (lane & ((1 << bits) - 1)) << shift
    return result


def test_simd_lanes_helper_computes_cudas_lanes(tmp_path: Path) -> None:
    """Every function of the simd-lanes helper against the Math API's per-lane definitions, at the lanes' edges
    (0x80 and 0x8000, all ones, carries between lanes, saturation); run on the host."""
    block = next(h for h in all_helpers() if h.name == "simd-lanes")
    names = sorted(n[len(HELPER_PREFIX):] for n in block.provides)
    values = [0, 1, 0x7F80FF01, 0x80808080, 0xFFFFFFFF, 0x01020304, 0xDEADBEEF, 0x80007FFF, 0x00FF00FF]
    calls = "\n".join(f'  for (unsigned a : v) for (unsigned b : v) printf("{n} %u %u %u\\n", a, b, portkit_{n}(a'
                      f'{"" if _unary(n) else ", b"}));' for n in names)
    driver = ("#include <cstdio>\nint main() {\n  const unsigned v[] = {" + ", ".join(f"{x}u" for x in values) + "};\n"
              + calls + "\n}\n")
    rows = [line.split() for line in _run_on_host("simd-lanes", driver, tmp_path).splitlines()]
    assert len(rows) == len(names) * len(values) ** 2
    for name, a, b, computed in rows:
        assert int(computed) == _lanes_reference(name, int(a), 0 if _unary(name) else int(b)), (name, hex(int(a)), hex(int(b)))
