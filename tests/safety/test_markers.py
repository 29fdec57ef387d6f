"""Markers and what convert writes never change the program or smuggle code: raw strings, backslashes,
rule values, architecture names; and --diff escapes control characters."""
from __future__ import annotations

from pathlib import Path

import pytest

from safety_kit import UNSUPPORTED, portkit, write

CALL = "ncclCommShrink(c, nullptr, 0, o, nullptr, 0);"
RAW = [  # (source, the raw string's text, which must survive conversion)
    ('const char* s = R"(first\n)"; ' + CALL + "\n", "first\n"),
    ('const char* s = R"x(one\ntwo )" still\n)x"; ' + CALL + "\n", 'one\ntwo )" still\n'),
    ('auto s = u8R"(a\n\n)"; ' + CALL + "\n", "a\n\n"),
    ("/* a comment\n*/ " + CALL + "\n", None),
]


@pytest.mark.parametrize("source,text", RAW, ids=["raw", "delimited raw", "u8 raw", "block comment"])
def test_a_marker_never_lands_inside_a_raw_string(source: str, text: str | None, tmp_path: Path) -> None:
    write(tmp_path / "src" / "k.cu", "void f(ncclComm_t c) {\n" + source + "}\n")
    run = portkit(["convert", "src", "-o", "out"], tmp_path)
    assert run.code == 0, run.err
    out = (tmp_path / "out" / "k.cu").read_text()
    assert "portkit: PK102 ncclCommShrink" in out
    if text is not None:
        assert text in out, out
    again = portkit(["convert", "out", "-o", "again"], tmp_path)  # idempotent: no second marker
    assert again.code == 0 and (tmp_path / "again" / "k.cu").read_text() == out
    body = out[out.index("void f"):]
    assert body.count("portkit: PK102") == 1 and "/* portkit: PK102" in body.split(CALL)[0].splitlines()[-1], body


@pytest.mark.parametrize("action", ["see C:\\\\temp\\\\", "ends in a backslash \\\\", "trigraph ??/", "two \\\\\\\\"])
def test_a_marker_never_splices_the_next_line(action: str, tmp_path: Path) -> None:
    write(tmp_path / "r.yaml", "library: mine\nentries:\n  - cuda: myCall\n    kind: function\n"
                               f"    status: unsupported\n    action: \"{action}\"\n")
    write(tmp_path / "src" / "k.cu", "int g;\nvoid f() {\n  myCall();\n  g = 1;\n}\n")
    run = portkit(["convert", "--rules", "r.yaml", "src", "-o", "out"], tmp_path)
    assert run.code == 0, run.err
    lines = (tmp_path / "out" / "k.cu").read_text().splitlines()
    marker = next(line for line in lines if "portkit: " in line)
    assert not marker.rstrip().endswith("\\") and "??/" not in marker, marker
    assert "  g = 1;" in lines


@pytest.mark.parametrize("hip", ['system(\\"id\\"); hipMyCall', "hipMy Call", "a;b", "x\\nint y", "hip/../../etc"])
def test_a_rule_hip_value_must_be_a_name(hip: str, tmp_path: Path) -> None:
    write(tmp_path / "r.yaml", f"library: mine\nentries:\n  - cuda: myCall\n    kind: function\n    hip: \"{hip}\"\n")
    write(tmp_path / "src" / "k.cu", "void f() { myCall(); }\n")
    run = portkit(["scan", "--rules", "r.yaml", "src"], tmp_path)
    assert run.code == 2 and len(run.err_lines) == 1 and "key 'hip'" in run.err, run.err


@pytest.mark.parametrize("arch", ["gfx90a;rm -rf /", "gfx90a rm", "$(id)", "gfx90a\n", "'gfx90a'", "", "sm_80", "gfx9999",
                                  "gfx90a:xnack", "gfx90a:fast+"])
def test_offload_arch_must_be_an_architecture_name(arch: str, tmp_path: Path) -> None:
    """Written into build files, so a GPU hipcc knows (rules/_build.yaml), never shell or CMake syntax."""
    write(tmp_path / "src" / "CMakeLists.txt", "project(p LANGUAGES CXX CUDA)\nadd_executable(k k.cu)\n")
    write(tmp_path / "src" / "k.cu", UNSUPPORTED)
    run = portkit(["convert", "--rocm-version", "6.2", "--offload-arch", arch, "src", "-o", "out"], tmp_path)
    assert run.code == 2 and len(run.err_lines) == 1 and "offload-arch" in run.err and "gfx90a, " in run.err, run.err
    assert not (tmp_path / "out").exists()
    ok = portkit(["convert", "--rocm-version", "6.2", "--offload-arch", "gfx942:sramecc+:xnack-", "src", "-o", "out"],
                 tmp_path)
    assert ok.code == 0, ok.err


def test_offload_arch_must_be_known_to_the_targeted_hip(tmp_path: Path) -> None:
    """HIP 5.2's compiler rejects gfx1100 (no device library for it); HIP 6.2's takes it."""
    write(tmp_path / "src" / "k.cu", UNSUPPORTED)
    run = portkit(["convert", "--rocm-version", "5.2", "--offload-arch", "gfx1100", "src", "-o", "out"], tmp_path)
    assert run.code == 2 and len(run.err_lines) == 1 and "HIP 5.2.0" in run.err and "gfx1100" not in run.err.split(";")[1]
    ok = portkit(["convert", "--rocm-version", "6.2", "--offload-arch", "gfx1100", "src", "-o", "out"], tmp_path)
    assert ok.code == 0, ok.err


def test_diff_escapes_control_characters(tmp_path: Path) -> None:
    write(tmp_path / "src" / "k.cu", "// \x1b]8;;http://x\x07link\x1b]8;;\x07 \u202e\x1b[2J\tend\r\n"
                                     "void f(float* p) { cudaMalloc(&p, 4); }\r\n")
    run = portkit(["convert", "--diff", "src"], tmp_path)
    assert run.code == 0, run.err
    assert "\x1b" not in run.out and "\u202e" not in run.out and "\x07" not in run.out
    assert "\\x1b]8;;http://x\\x07" in run.out and "\\u202e" in run.out and "\tend" in run.out


def test_an_input_named_like_the_manifest_is_reported(tmp_path: Path) -> None:
    write(tmp_path / "src" / "k.cu", UNSUPPORTED)
    write(tmp_path / "src" / ".portkit-manifest.json", "my own data\n")
    run = portkit(["convert", "src", "-o", "out"], tmp_path)
    assert run.code == 2 and ".portkit-manifest.json: an input named" in run.err, run.err
