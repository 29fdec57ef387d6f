"""Never write where not asked: outputs that are, contain or lie inside an input; output
directories portkit does not own; symlinks and special files where output goes."""
from __future__ import annotations

import os
import stat
import threading
from pathlib import Path, PurePosixPath

import pytest

from portkit.cli import main
from safety_kit import CUDA, HIP, portkit, snapshot, swapping, write

MANIFEST = ".portkit-manifest.json"


def project(tmp: Path) -> Path:
    write(tmp / "p" / "src" / "k.cu", CUDA)
    write(tmp / "p" / "src" / "notes.txt", "mine\n")
    return tmp / "p"


# --- an output that is, contains or lies inside an input -----------------------------

@pytest.mark.parametrize("argv", [
    ["convert", "{p}/src/k.cu", "-o", "{p}/src"],  # the file's own directory
    ["convert", "{p}/src", "-o", "{p}"],  # a parent that holds the same-named subtree
    ["convert", "{p}/src", "-o", "{p}/src"],  # the input itself
    ["convert", "{p}/src", "-o", "{p}/src/hip"],  # inside the input
    ["convert", "{p}/src", "-o", "{p}/link-to-src"],  # the input, through a symlink
    ["convert", "{p}/src", "-o", "{p}/link-to-src/out"],  # inside the input, through a symlink
    ["convert", "{p}/src", "-o", "{p}/src/../src"],  # the input, spelled differently
    ["shim", "{p}/src", "-o", "{tmp}/gpu.h", "--sources", "{p}"],
    ["shim", "{p}/src", "-o", "{tmp}/gpu.h", "--sources", "{p}/src/out"],
    ["report", "{p}/src", "-f", "md", "-o", "{p}/src/k.cu"],  # report -o SOURCE
    ["report", "{p}/src", "-f", "json", "-o", "{p}/link-to-src/k.cu"],
    ["report", "{p}/src", "-f", "md", "-o", "{p}/hardlink.cu"],  # a hard link to a source
    ["scan", "{p}/src", "-o", "{p}/src/k.cu"],
    ["scan", "{p}/src", "--report", "{p}/src/k.cu.md"],  # allowed: not an input; checked below
    ["scan", "{p}/src/k.cu", "-f", "sarif", "-o", "{p}/src/k.cu"],
    ["baseline", "{p}/src", "-o", "{p}/src/k.cu"],
], ids=lambda a: " ".join(a).replace("{p}/", "").replace("{tmp}/", ""))
def test_an_output_over_an_input_is_refused_before_anything_is_written(argv: list[str], tmp_path: Path, capsys) -> None:
    p = project(tmp_path)
    os.symlink(p / "src", p / "link-to-src")
    os.link(p / "src" / "k.cu", p / "hardlink.cu")
    before = snapshot(p)
    args = [a.format(p=p, tmp=tmp_path) for a in argv]
    code = main(args)
    if args[-1].endswith("k.cu.md"):  # a new report beside the sources is fine
        assert code == 0
        return
    err = capsys.readouterr().err
    assert code == 2, err
    assert len(err.splitlines()) == 1 and ("input" in err), err
    assert snapshot(p) == before
    assert not (tmp_path / "gpu.h").exists()


def test_refusal_happens_before_the_scan_for_directories(tmp_path: Path, capsys) -> None:
    p = project(tmp_path)
    assert main(["convert", str(p / "src"), "-o", str(p)]) == 2
    assert "contains the input" in capsys.readouterr().err
    assert sorted(os.listdir(p)) == ["src"]


# --- output directories portkit does not own -------------------------------------

def test_a_non_empty_output_directory_is_refused_unless_forced(tmp_path: Path, capsys) -> None:
    p = project(tmp_path)
    out = write(tmp_path / "out" / "k.cu", b"// the user's own file\n").parent
    assert main(["convert", str(p / "src"), "-o", str(out)]) == 2
    assert "not empty, and not written by portkit" in capsys.readouterr().err
    assert (out / "k.cu").read_bytes() == b"// the user's own file\n"
    assert main(["convert", "--force", str(p / "src"), "-o", str(out)]) == 0
    assert (out / "k.cu").read_bytes() == HIP


def test_a_foreign_output_directory_is_refused_before_anything_is_analysed(tmp_path: Path, capsys, monkeypatch) -> None:
    import portkit.convert.project_conversion as project_module

    p = project(tmp_path)
    out = write(tmp_path / "out" / "k.cu", b"// the user's own file\n").parent
    monkeypatch.setattr(project_module, "run_project", lambda *args, **kwargs: pytest.fail("analysed first"))
    assert main(["convert", str(p / "src"), "-o", str(out)]) == 2
    assert "not empty, and not written by portkit" in capsys.readouterr().err


def test_a_run_that_fails_before_writing_leaves_no_output_directory(tmp_path: Path, capsys) -> None:
    p = project(tmp_path)
    bad = write(tmp_path / "bad.yaml", b"library: [\n")
    assert main(["convert", "--rules", str(bad), str(p / "src"), "-o", str(tmp_path / "new" / "out")]) == 2
    assert "invalid YAML" in capsys.readouterr().err and not (tmp_path / "new").exists()


def test_portkit_may_write_again_where_it_wrote(tmp_path: Path, capsys) -> None:
    p = project(tmp_path)
    out = tmp_path / "out"
    assert main(["convert", str(p / "src"), "-o", str(out)]) == 0
    assert (out / MANIFEST).is_file()
    write(p / "src" / "k.cu", CUDA + b"// more\n")
    assert main(["convert", str(p / "src"), "-o", str(out)]) == 0
    assert (out / "k.cu").read_bytes() == HIP + b"// more\n"
    write(out / "extra.txt", "the user's notes\n")  # files portkit does not write are left alone
    assert main(["convert", str(p / "src"), "-o", str(out)]) == 0
    assert (out / "extra.txt").read_text() == "the user's notes\n"


@pytest.mark.parametrize("edit", ["edited", "replaced-by-new-file", "not-in-manifest"])
def test_a_file_changed_in_the_output_since_portkit_wrote_it_is_a_conflict(edit: str, tmp_path: Path, capsys) -> None:
    p = project(tmp_path)
    out = tmp_path / "out"
    assert main(["convert", str(p / "src"), "-o", str(out)]) == 0
    if edit == "edited":
        write(out / "k.cu", HIP + b"// tuned by hand\n")
    elif edit == "replaced-by-new-file":
        (out / "notes.txt").unlink()
        write(out / "notes.txt", "rewritten\n")
    else:
        write(p / "src" / "new.cu", CUDA)
        write(out / "new.cu", b"// the user's\n")
    before = snapshot(out)
    capsys.readouterr()
    assert main(["convert", str(p / "src"), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "exist that portkit did not write or that changed since" in err and len(err.splitlines()) == 1
    assert snapshot(out) == before


def test_excluded_files_copied_into_the_output_follow_its_rules(tmp_path: Path, capsys) -> None:
    """An excluded file is copied like any other: in the manifest, so an edited copy is a conflict and a
    file of the user's where one goes is refused."""
    p = project(tmp_path)
    write(p / "src" / "vendor" / "v.h", "int vendored;\n")
    out, argv = tmp_path / "out", ["convert", str(p / "src"), "-x", "vendor/", "-o"]
    assert main([*argv, str(out)]) == 0
    write(out / "vendor" / "v.h", "int tuned_by_hand;\n")
    before = snapshot(out)
    capsys.readouterr()
    assert main([*argv, str(out)]) == 2
    assert "exist that portkit did not write or that changed since" in capsys.readouterr().err
    assert snapshot(out) == before
    write(tmp_path / "other" / "vendor" / "v.h", "the user's\n")
    assert main([*argv, str(tmp_path / "other")]) == 2
    assert (tmp_path / "other" / "vendor" / "v.h").read_text() == "the user's\n"


def test_a_planted_or_broken_manifest_makes_the_directory_foreign(tmp_path: Path, capsys) -> None:
    p = project(tmp_path)
    out = tmp_path / "out"
    write(out / "k.cu", b"// the user's\n")
    for manifest in (b"not json", b'{"tool": "portkit", "files": {"k.cu": 1}}', b"[" * 100000):
        write(out / MANIFEST, manifest)
        assert main(["convert", str(p / "src"), "-o", str(out)]) == 2
        assert (out / "k.cu").read_bytes() == b"// the user's\n"
    (out / MANIFEST).unlink()
    os.symlink(tmp_path / "elsewhere.json", out / MANIFEST)
    assert main(["convert", str(p / "src"), "-o", str(out)]) == 2


@pytest.mark.parametrize("layout", [["a/src", "b/src"], ["a/k.cu", "b/k.cu"], ["a/src", "b/src", "c/d/src"],
                                    ["x/src", "x/src/sub"]])
def test_inputs_with_the_same_name_never_collide(layout: list[str], tmp_path: Path) -> None:
    for index, name in enumerate(layout):
        path = tmp_path / name
        if name.endswith(".cu"):
            write(path, CUDA + b"// %d\n" % index)
        else:
            write(path / "k.cu", CUDA + b"// %d\n" % index)
    assert main(["convert", *[str(tmp_path / n) for n in layout], "-o", str(tmp_path / "out")]) == 0
    written = sorted(p.read_bytes() for p in (tmp_path / "out").rglob("*.cu"))
    assert written == sorted(HIP + b"// %d\n" % i for i in range(len(layout)))


# --- symlinks and special files in the output directory ----------------------------

@pytest.mark.parametrize("where", ["src", "src/deeper"])
def test_no_directory_is_made_through_a_symlink_in_the_output(where: str, tmp_path: Path, capsys) -> None:
    write(tmp_path / "in" / "src" / "deeper" / "k.cu", CUDA)
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    elsewhere.mkdir()
    (out / where).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(elsewhere, out / where)
    assert main(["convert", "--force", str(tmp_path / "in"), "-o", str(out)]) == 2
    assert "a symbolic link inside the output directory" in capsys.readouterr().err
    assert list(elsewhere.iterdir()) == []


def test_a_directory_swapped_for_a_symlink_after_its_check_is_never_followed(tmp_path: Path) -> None:
    """The swap comes once `sub` was checked and opened: the next file still goes where it was checked."""
    from portkit.outpath import OutputTree

    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    elsewhere.mkdir()
    tree = OutputTree(out)
    tree.open([PurePosixPath("sub/a.cu"), PurePosixPath("sub/b.cu")], force=False)
    tree.write(PurePosixPath("sub/a.cu"), data=HIP)
    os.rename(out / "sub", out / "moved")
    os.symlink(elsewhere, out / "sub")
    tree.write(PurePosixPath("sub/b.cu"), data=HIP)
    tree.save()
    assert list(elsewhere.iterdir()) == [] and sorted(p.name for p in (out / "moved").iterdir()) == ["a.cu", "b.cu"]


def test_a_directory_swapped_back_and_forth_while_portkit_writes_is_never_followed(tmp_path: Path) -> None:
    """A real race: a thread swaps `sub` for a symlink out and back while files go into sub/ and other/
    in turn (each write opens its directory again); some writes may be refused, none leaves the output."""
    from portkit.errors import OutputError
    from portkit.outpath import OutputTree

    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    elsewhere.mkdir()
    names = [PurePosixPath(d) / f"f{i}.txt" for i in range(300) for d in ("sub", "other")]
    tree = OutputTree(out)
    tree.open(names, force=False)
    (out / "sub").mkdir()
    written = 0
    with swapping(out / "sub", elsewhere):
        for name in names:
            try:
                written += tree.write(name, data=b"x\n")
            except OutputError:
                continue
    tree.save()
    assert list(elsewhere.iterdir()) == [] and written > 300


def test_a_symlink_or_fifo_where_an_output_file_goes_is_left_alone(tmp_path: Path, capsys) -> None:
    write(tmp_path / "in" / "k.cu", CUDA)
    write(tmp_path / "in" / "pipe.txt", "x\n")
    target = write(tmp_path / "victim.cu", b"// must survive\n")
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(target, out / "k.cu")
    os.mkfifo(out / "pipe.txt")
    assert main(["convert", "--force", str(tmp_path / "in"), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "k.cu: a symbolic link where portkit's output goes" in err and "pipe.txt: not a regular file" in err
    assert target.read_bytes() == b"// must survive\n"
    assert os.path.islink(out / "k.cu") and stat.S_ISFIFO(os.lstat(out / "pipe.txt").st_mode)


def test_names_of_255_bytes_can_be_written(tmp_path: Path) -> None:
    name = "k" * 252 + ".cu"
    write(tmp_path / "in" / name, CUDA)
    assert main(["convert", str(tmp_path / "in"), "-o", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / name).read_bytes() == HIP
    assert main(["convert", "--in-place", "--no-backup", str(tmp_path / "in")]) == 0
    assert (tmp_path / "in" / name).read_bytes() == HIP
    assert not [p for p in (tmp_path / "in").iterdir() if p.name != name]  # no temporary file left behind


# --- special targets: devices, FIFOs, stdout, symlinks the user named -----------------

def _private_null(tmp: Path) -> Path:
    """A character device like /dev/null (1, 3) inside the test's directory: a portkit that
    wrongly replaced its target would replace this one, never the machine's /dev/null."""
    node = tmp / "null"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a device node here: {exc}")
    return node


def test_a_character_device_stays_a_character_device(tmp_path: Path) -> None:
    write(tmp_path / "in" / "k.cu", CUDA)
    null = _private_null(tmp_path)
    for argv in (["report", "-f", "md", "-o"], ["scan", "-f", "json", "-o"], ["scan", "-o"], ["shim", "-o"],
                 ["baseline", "-o"]):
        assert main([*argv, str(null), str(tmp_path / "in")]) == 0, argv
        found = os.lstat(null)
        assert stat.S_ISCHR(found.st_mode) and found.st_rdev == os.makedev(1, 3), argv
    assert sorted(os.listdir(tmp_path)) == ["in", "null"]  # no temporary file left beside it


@pytest.mark.parametrize("command", [["report", "-f", "md"], ["scan", "-f", "json"], ["shim"]])
def test_a_fifo_is_written_into_not_replaced(command: list[str], tmp_path: Path) -> None:
    write(tmp_path / "in" / "k.cu", CUDA)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)  # never blocks the run
    reader.start()
    assert main([*command, "-o", str(fifo), str(tmp_path / "in")]) == 0
    reader.join(30)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert received and len(received[0]) > 100


def test_a_symlinked_report_target_keeps_its_link(tmp_path: Path) -> None:
    write(tmp_path / "in" / "k.cu", CUDA)
    real = write(tmp_path / "reports" / "real.md", "old\n", mode=0o640)
    os.symlink(real, tmp_path / "link.md")
    assert main(["report", "-o", str(tmp_path / "link.md"), str(tmp_path / "in")]) == 0
    assert os.path.islink(tmp_path / "link.md")
    assert real.read_text().startswith("# CUDA")
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    dangling = tmp_path / "dangling.md"
    os.symlink(tmp_path / "nowhere" / "x.md", dangling)
    assert main(["report", "-o", str(dangling), str(tmp_path / "in")]) == 2


@pytest.mark.parametrize("target", ["-", "link"])
def test_stdout_targets(target: str, tmp_path: Path) -> None:
    """"-", and a symlink to /proc/self/fd/1 (what /dev/stdout is; the machine's own is never
    used, so a portkit that replaced the link would replace only this one)."""
    write(tmp_path / "in" / "k.cu", CUDA)
    if target == "link":
        os.symlink("/proc/self/fd/1", tmp_path / "link")
        target = str(tmp_path / "link")
    with open(tmp_path / "captured", "wb") as captured:
        run = portkit(["report", "-f", "md", "-o", target, "in"], tmp_path, stdout=captured)
    assert run.code == 0, run.err
    assert (tmp_path / "captured").read_text().startswith("# CUDA")
    assert target == "-" or os.readlink(target) == "/proc/self/fd/1"


def test_shim_header_that_is_a_directory_or_foreign_file(tmp_path: Path, capsys) -> None:
    write(tmp_path / "in" / "k.cu", CUDA)
    (tmp_path / "include").mkdir()
    assert main(["shim", "-o", str(tmp_path / "include"), str(tmp_path / "in")]) == 2
    assert "is a directory" in capsys.readouterr().err
    own = write(tmp_path / "include" / "gpu.h", "// the user's header\n")
    assert main(["shim", "-o", str(own), str(tmp_path / "in")]) == 2
    assert own.read_text() == "// the user's header\n"


def test_a_streamed_report_appears_whole_or_not_at_all(tmp_path: Path) -> None:
    """Reports are written as they are rendered (never held whole), into a temporary file renamed at the end."""
    from portkit.fileio import output_stream

    target = tmp_path / "report.json"
    target.write_text("previous report")
    with pytest.raises(RuntimeError):
        with output_stream(target) as out:
            out.write("half a report")
            raise RuntimeError("the renderer failed")
    assert target.read_text() == "previous report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]  # no temporary file left
    with output_stream(target) as out:
        out.write("line\nnew \udc80 report")
    assert target.read_bytes() == b"line\nnew \\udc80 report"
