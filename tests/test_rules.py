from __future__ import annotations

import runpy
from pathlib import Path

import pytest

from portkit.errors import RuleFileError
from portkit.codes import Status
from portkit.rules import Rule, Target, load_database, load_file, parse_library
from portkit.rules.versions import Resolution

GOOD = {"library": "mylib", "entries": [{"cuda": "myCudaThing", "kind": "function", "hip": "myHipThing"}]}


@pytest.mark.parametrize("data, message", [
    ([], "a rule file must be a mapping"),
    ({"entries": []}, "key 'library': required"),
    ({"library": "Bad Name", "entries": []}, "key 'library'"),
    ({"library": "x"}, "key 'entries': required, a list"),
    ({"library": "x", "entries": [], "extra": 1}, "unknown top-level key 'extra'"),
    ({"library": "x", "entries": [], "vendored": "yes"}, "key 'vendored': must be true or false"),
    ({"library": "x", "entries": [], "hip_amd_only": 1}, "key 'hip_amd_only': must be true or false"),
    ({"library": "x", "entries": ["cudaMalloc"]}, "entry 1: must be a mapping"),
    ({"library": "x", "entries": [{"kind": "function"}]}, "entry 1: key 'cuda': required"),
    ({"library": "x", "entries": [{"cuda": "a", "kind": "widget"}]}, "entry 1 (a): key 'kind': 'widget' is not one of"),
    ({"library": "x", "entries": [{"cuda": "a", "kind": "function", "status": "maybe"}]}, "key 'status': 'maybe' is not one of"),
    ({"library": "x", "entries": [{"cuda": "a", "kind": "function", "status": "supported"}]}, "status 'supported' needs a 'hip'"),
    ({"library": "x", "entries": [{"cuda": "a", "kind": "function", "hip": "b", "hip_added": "six"}]},
     "key 'hip_added': 'six' is not a version"),
    ({"library": "x", "entries": [{"cuda": "a", "kind": "function", "weight": -1}]}, "key 'weight': must be a number from 0 to 10000"),
    ({"library": "x", "entries": [{"cuda": "a", "kind": "function", "colour": "red"}]}, "entry 1 (a): unknown key 'colour'"),
    ({"library": "x", "entries": [{"cuda": "a", "kind": "asm"}]}, "kind 'asm' needs a 'pattern'"),
    ({"library": "x", "entries": [{"cuda": "a", "kind": "asm", "pattern": "("}]}, "key 'pattern': not a regular expression"),
    ({"library": "x", "entries": [{"cuda": "a", "kind": "function"}, {"cuda": "a", "kind": "type"}]}, "entry a: defined twice"),
    ({"library": "x", "entries": [{"cuda": "a", "kind": "function", "hip": "portkit_mine"}]},
     "key 'hip': 'portkit_mine' is no helper's name"),
    ({"library": "x", "entries": [{"cuda": "a", "kind": "function", "hip": "a", "helper": "mixed-max"}]},
     "entry 1 (a): key 'helper': 'mixed-max' is no helper"),
    ({"library": "x", "entries": [{"cuda": "a", "kind": "function", "hip": "b", "shape": {"hip_for_args": {"three": "c"}}}]},
     "key 'hip_for_args': a mapping from argument count to a HIP name"),
    ({"library": "x", "entries": [{"cuda": "a", "kind": "function", "hip": "b", "shape": {"form_args": {2: "T"}}}]},
     "key 'form_rule' goes with 'form_args' or 'null_args'"),
    ({"library": "x", "entries": [{"cuda": "a", "kind": "function", "hip": "b", "null_args": {5: 3}}]},
     "key 'form_rule' goes with 'form_args' or 'null_args'"),
    ({"library": "x", "entries": [{"cuda": "a", "kind": "function", "hip": "b", "null_args": {3: 5}, "form_rule": "a"}]},
     "key 'null_args': a mapping from argument count to the index"),
    ({"library": "x", "entries": [{"cuda": "a", "kind": "function", "hip": "b", "shape": {"form_args": {2: "T"}}, "form_rule": "a2"}]},
     "entry a: key 'form_rule': 'a2' is no entry of this file"),
    ({"library": "x", "entries": [{"cuda": "a", "kind": "function", "hip": "b", "shape": {"form_args": {0: ["T*", 3]}}, "form_rule": "a"}]},
     "key 'form_args': a mapping from argument index to the CUDA type (or a list of types)"),
    ({"library": "x", "entries": [{"cuda": "a", "kind": "enum", "shape": {"argument_of": ["f"]}}]},
     "key 'argument_of': a mapping from a CUDA call to the entry"),
    ({"library": "x", "entries": [{"cuda": "a", "kind": "enum", "shape": {"argument_of": {"f": "b"}}}]},
     "entry a: key 'argument_of': 'b' is no entry of this file"),
    ({"library": "x", "entries": [{"cuda": "a", "kind": "enum", "shape": {"older_hip_in": {"f": ""}}}]},
     "key 'older_hip_in': a mapping from a CUDA call to the constant's spelling"),
    ({"library": "x", "entries": [{"cuda": "f", "kind": "function", "hip": "g_v2", "hip_added": "6.0.0"},
                                  {"cuda": "a", "kind": "enum", "hip": "A", "shape": {"older_hip_in": {"f": "B"}}}]},
     "entry a: key 'older_hip_in': 'f' is no entry of this file with an older_hip"),
    ({"library": "x", "entries": [{"cuda": "a", "kind": "enum", "hip": "A", "shape": {"as_compute": "C"}}]},
     "entry a: key 'as_compute': 'C' is no entry of this file"),
    ({"library": "x", "entries": [{"cuda": "f", "kind": "function", "hip": "g", "compute_arg": 40}]},
     "key 'compute_arg': an argument index from 0 to 31"),
    # The keys for a few rules each live under `shape`: the old top-level spelling is refused, naming the new one.
    ({"library": "x", "entries": [{"cuda": "a", "kind": "macro", "hip": "b", "compare_as": "c"}]},
     "entry 1 (a): key 'compare_as' now goes under 'shape' (shape: {compare_as: ...}): move it"),
    ({"library": "x", "entries": [{"cuda": "a", "kind": "type", "hip": "b", "shape": {"hip_structure": "c"}}]},
     "entry 1 (a): key 'shape': unknown key 'hip_structure'"),
    ({"library": "x", "entries": [{"cuda": "a", "kind": "type", "hip": "b", "shape": "hip_struct"}]},
     "entry 1 (a): key 'shape': a mapping of one or more of compare_as, hip_struct"),
    # A library's names are no older than the library (hipBLASLt's names before ROCm 5.5 would be written unmarked).
    ({"library": "x", "hip_library": "hipX", "hip_library_added": "5.5", "entries": [{"cuda": "a", "kind": "type", "hip": "b"}]},
     "entry a: key 'hip_added' is missing: hipX first shipped in ROCm 5.5 (hip_library_added)"),
    ({"library": "x", "hip_library_added": "5.5", "entries": [{"cuda": "a", "kind": "type", "hip": "b", "hip_added": "5.2.0"}]},
     "entry a: key 'hip_added' is 5.2.0: the HIP library first shipped in ROCm 5.5"),
    ({"library": "x", "hip_library_added": "soon", "entries": []}, "key 'hip_library_added': 'soon' is not a version"),
    ({"library": "x", "entries": [{"cuda": "x/cuda/", "kind": "header", "hip": "x/hip/"}]},
     "entry 1 (x/cuda/): a directory's rule (a path ending in '/') is for the headers below it that no entry names"),
    ({"library": "x", "entries": [{"cuda": "x/r.h", "kind": "header", "declares": "x::reduce"}]},
     "entry 1 (x/r.h): key 'declares': a list of the CUDA names the header brings"),
    ({"library": "x", "entries": [{"cuda": "x::reduce", "kind": "function", "declares": ["x::plus"]}]},
     "entry 1 (x::reduce): key 'declares' is for a header's entry"),
], ids=lambda v: v if isinstance(v, str) else None)
def test_malformed_rules_name_file_entry_and_key(data, message: str) -> None:
    with pytest.raises(RuleFileError) as info:
        parse_library("my.yaml", data)
    text = str(info.value)
    assert text.startswith("my.yaml: ") and message in text and "\n" not in text


def test_invalid_yaml_names_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("library: x\nentries:\n  - {cuda: a, kind: function\n")
    with pytest.raises(RuleFileError, match=r"bad.yaml: line \d+: invalid YAML"):
        load_file(bad)


def test_yaml_tags_are_not_executed(tmp_path: Path) -> None:
    evil = tmp_path / "evil.yaml"
    evil.write_text("library: x\nentries: !!python/object/apply:os.system ['echo pwned']\n")
    with pytest.raises(RuleFileError, match=r"evil.yaml: line 2: tags \(tag:yaml.org,2002:python/object/apply:os.system\) "
                                            "are not allowed in portkit's YAML files"):
        load_file(evil)


def test_status_defaults() -> None:
    _, rules = parse_library("t", {"library": "t", "entries": [
        {"cuda": "a", "kind": "function", "hip": "b"},
        {"cuda": "c", "kind": "function"},
        {"cuda": "d", "kind": "function", "cuda_removed": "12.0"},
    ]})
    assert [r.status for r in rules] == ["supported", "unsupported", "removed"]


@pytest.mark.parametrize("rocm, status", [((5, 2, 0), "unavailable"), ((6, 2, 0), "partial"), (None, "partial")])
def test_target_version_changes_status(rocm, status: str) -> None:
    rule = Rule(cuda="__shfl_down_sync", kind="intrinsic", library="cuda-device", status="partial",
                hip="__shfl_down_sync", hip_added="6.2.0")
    assert rule.resolve(Target(rocm=rocm)).status == status


def test_cuda_version_marks_removed_names() -> None:
    rule = Rule(cuda="cudaBindTexture", kind="function", library="r", status="supported", hip="hipBindTexture", cuda_removed="12.0")
    assert rule.resolve(Target(cuda=(11, 8, 0))).status == "supported"
    assert rule.resolve(Target(cuda=(12, 0, 0))).status == "removed"


def test_the_targeted_cuda_decides_a_removal_the_rule_implies(database) -> None:
    """A rule with cuda_removed and no status is removed by default; --cuda-version 11.0 said nothing to it
    (cudaBindTexture stayed removed, 9.7 h a site). cuDNN's removal versions are cuDNN releases: no CUDA version decides
    them, and the advice names cuDNN."""
    texture = database.lookup("cudaBindTexture")
    assert texture.resolve(Target(rocm=(5, 2, 0))).status == "removed"
    assert texture.resolve(Target(rocm=(5, 2, 0), cuda=(11, 0, 0))) == Resolution(Status.SUPPORTED, "hipBindTexture", "")
    assert texture.resolve(Target(cuda=(12, 0, 0))).advice.startswith("removed in CUDA 12.0.")
    assert database.lookup("cudaBindSurfaceToArray").resolve(Target(cuda=(11, 0, 0))).status == "unsupported"
    cudnn = database.lookup("CUDNN_CONVOLUTION_FWD_NO_WORKSPACE")
    for cuda in (None, (11, 0, 0), (12, 0, 0)):
        resolved = cudnn.resolve(Target(cuda=cuda))
        assert resolved.status == "removed" and resolved.advice.startswith("removed in cuDNN 8.0.1."), cuda
    assert database.lookup("cudnnRNNForwardTraining").resolve(Target(cuda=(12, 0, 0))).status == "partial"


def test_removed_in_hip() -> None:
    rule = Rule(cuda="x", kind="function", library="r", status="supported", hip="hipX", hip_removed="6.0")
    assert rule.resolve(Target(rocm=(5, 7, 0))).status == "supported"
    assert rule.resolve(Target(rocm=(6, 0, 0))).status == "unavailable"


def test_a_cub_header_hipcub_added_late_is_its_umbrella_until_6_3(database) -> None:
    """hipCUB's device_memcpy.hpp came in 6.1 and compiles on its own only from 6.3: the umbrella in between."""
    rule = database.header("cub/device/device_memcpy.cuh")
    assert rule.resolve(Target(rocm=(6, 2, 0))) == Resolution(Status.SUPPORTED, "hipcub/hipcub.hpp", rule.action)
    assert rule.resolve(Target(rocm=(6, 3, 0))).hip == "hipcub/device/device_memcpy.hpp"
    assert rule.resolve(Target(rocm=(5, 2, 0))).status == "unavailable"


def test_cub_names_hipcub_added_after_its_first_release_need_that_release(database) -> None:
    """The blanket `cub` -> `hipcub` rule holds for the names hipCUB had from its first release; later ones carry the
    ROCm release whose hipcub/hipcub.hpp first reaches them (hipCUB's release tags), as do their headers."""
    for name, first, before in (("cub::BlockRakingLayout", (5, 4, 0), (5, 3, 0)), ("cub::WarpLoad", (5, 1, 0), (5, 0, 0)),
                                ("cub::LOAD_LDG", (5, 0, 0), (4, 5, 0)), ("cub::CastOp", (5, 3, 0), (5, 2, 0))):
        rule = database.lookup(name)
        assert rule.resolve(Target(rocm=before)).status == "unavailable", name
        assert rule.resolve(Target(rocm=first)).hip == "hipcub::" + name[5:], name
    assert database.header("cub/block/block_raking_layout.cuh").resolve(Target(rocm=(5, 2, 0))).status == "unavailable"
    assert database.lookup_qualified("cub::BlockReduce")[0].resolve(Target(rocm=(5, 2, 0))).status == "supported"


def test_cub_names_hipcub_never_had_are_not_supported(database) -> None:
    """CUB's agent/dispatch layer, its device-query helpers and its algorithm specializations have no hipCUB
    counterpart (hipCUB's headers at every release tag to 6.2, its changelog since): the blanket `cub` -> `hipcub`
    rule made them "supported". The single-pass scan state came with hipCUB 4.0 (ROCm 7.0), as a partial wrapper over
    rocPRIM's look-back; TexRefInputIterator left in 7.1."""
    for name in ("cub::AgentScan", "cub::DispatchScan", "cub::DeviceReduceKernel", "cub::AgentReducePolicy",
                 "cub::PtxVersion", "cub::SyncStream", "cub::BlockReduceRaking", "cub::WarpReduceShfl", "cub::ThreadTrap"):
        rule = database.lookup_qualified(name)[0]
        assert rule.cuda == name and rule.status == "unsupported" and rule.action, name
    for name in ("cub::ScanTileState", "cub::TilePrefixCallbackOp", "cub::BlockScanRunningPrefixOp"):
        rule = database.lookup(name)
        before = rule.resolve(Target(rocm=(6, 4, 0)))
        assert before.status == "unavailable" and "rocprim::detail::lookback_scan_state" in before.advice, name
        assert rule.resolve(Target(rocm=(7, 0, 0))) == Resolution(Status.PARTIAL, "hipcub::" + name[5:], rule.action)
    assert database.header("cub/agent/agent_scan.cuh").status == "unsupported"
    assert database.header("cub/device/dispatch/dispatch_scan.cuh").status == "unsupported"
    texref = database.lookup("cub::TexRefInputIterator")
    assert texref.resolve(Target(rocm=(7, 0, 0))).status == "supported"
    assert texref.resolve(Target(rocm=(7, 1, 0))).status == "unavailable"


def test_cub_device_copy_is_its_own_header_from_6_2(database) -> None:
    """hipCUB added DeviceCopy in ROCm 6.2 (hipCUB 3.2.0, tag rocm-6.2.0), but 6.2's hipcub/hipcub.hpp does not include
    device_copy.hpp: the umbrella convert wrote there lacked hipcub::DeviceCopy. Its own header includes config.hpp
    (the other per-primitive headers only from 6.3), so it is the include from 6.2 on."""
    header = database.header("cub/device/device_copy.cuh")
    assert header.resolve(Target(rocm=(6, 2, 0))) == Resolution(Status.SUPPORTED, "hipcub/device/device_copy.hpp", header.note)
    assert header.resolve(Target(rocm=(6, 1, 0))).status == "unavailable"
    copy = database.lookup("cub::DeviceCopy")
    assert copy.resolve(Target(rocm=(6, 2, 0))).hip == "hipcub::DeviceCopy"
    assert copy.resolve(Target(rocm=(6, 1, 0))).status == "unavailable"


def test_the_deprecated_launch_api_points_at_the_one_call_launch(database) -> None:
    """cuLaunchGrid, cuParamSetv...: HIP has no counterpart of each call, only of the launch they make together."""
    for name in ("cuLaunch", "cuLaunchGrid", "cuLaunchGridAsync", "cuParamSetv", "cuParamSeti", "cuFuncSetBlockShape"):
        rule = database.lookup(name)
        assert rule.status == "unsupported" and "hipModuleLaunchKernel" in rule.action, name


def test_user_rules_add_and_override(tmp_path: Path) -> None:
    user = tmp_path / "team.yaml"
    user.write_text(
        "library: team\nentries:\n"
        "  - {cuda: teamCudaAlloc, kind: function, hip: teamHipAlloc}\n"
        "  - {cuda: cudaMalloc, kind: function, status: partial, hip: hipMalloc, note: use the team allocator}\n"
    )
    database = load_database([user])
    assert database.lookup("teamCudaAlloc").hip == "teamHipAlloc"
    assert database.lookup("cudaMalloc").status == "partial"
    assert database.lookup("cudaFree").library == "cuda-runtime"


def test_a_cached_database_builds_a_rule_when_it_is_first_looked_up(tmp_path: Path, monkeypatch) -> None:
    """Read from the cache, the named rules are built as they are asked for, and answer as the validated ones do;
    a user's rule still overrides the built-in one of the same name."""
    monkeypatch.setenv("PORTKIT_CACHE_DIR", str(tmp_path))
    user = tmp_path / "team.yaml"
    user.write_text("library: team\nentries:\n  - {cuda: cudaMalloc, kind: function, status: partial, hip: hipMalloc}\n")
    validated = load_database([user], cache=False)
    load_database([user])  # writes the cache entry
    cached = load_database([user])
    assert len(cached.by_name) < 100  # links, asm families and namespace members: built at once
    assert len(cached) == len(validated) and cached.known_names() == validated.known_names()
    assert cached.lookup("cudaMalloc").status == "partial" and cached.lookup("cudaMalloc") is cached.lookup("cudaMalloc")
    assert cached.is_api("cudaFree") and not cached.is_api("floor") and cached.lookup("noSuchName") is None
    assert cached.lookup_qualified("thrust::device_vector<int>::iterator")[1] == \
        validated.lookup_qualified("thrust::device_vector<int>::iterator")[1]
    assert cached.all_rules() == validated.all_rules()


def test_a_directory_rule_stands_for_the_headers_below_it_no_entry_names(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PORTKIT_CACHE_DIR", str(tmp_path))
    user = tmp_path / "team.yaml"
    user.write_text("library: team\nentries:\n  - {cuda: x/cuda/, kind: header, note: none in HIP}\n"
                    "  - {cuda: x/cuda/sub/, kind: header, note: nor these}\n"
                    "  - {cuda: x/cuda/par.h, kind: header, hip: x/hip/par.h}\n")
    validated = load_database([user], cache=False)
    load_database([user])  # writes the cache entry
    for database in (validated, load_database([user])):
        assert database.header("x/cuda/par.h").hip == "x/hip/par.h"
        assert database.header("x/cuda/detail/util.h").note == "none in HIP"
        assert database.header("x/cuda/sub/a/b.h").note == "nor these"
        assert database.header("x/cudax/a.h") is None and database.header("y/x/cuda/a.h") is None
        assert database.hip_header("x/cuda/detail/util.h") == ""
        assert "x/cuda/" not in database.headers and database.find("x/cuda/").status == "unsupported"
    assert len(database) == len(validated) and database.all_rules() == validated.all_rules()


def test_missing_user_rule_file(tmp_path: Path) -> None:
    with pytest.raises(RuleFileError, match="no such rule file"):
        load_database([tmp_path / "nope.yaml"])


def test_builtin_database_covers_the_core_libraries(database) -> None:
    libraries = {r.library for r in database.all_rules()}
    assert {"cuda-runtime", "curand", "cusolver", "nccl", "ptx"} <= libraries
    assert database.lookup("cudaMalloc").hip == "hipMalloc"
    assert database.lookup("curandCreateGenerator").roc == "rocrand_create_generator"
    assert database.lookup("cusolverDnSpotrf").hip == "hipsolverDnSpotrf"
    assert database.lookup("ncclAllReduce").hip == "ncclAllReduce"
    assert database.header("curand_kernel.h").hip == "hiprand/hiprand_kernel.h"
    # rocThrust ships Thrust's public headers under the same paths, the CUDA backend's under system/hip.
    assert database.header("thrust/iterator/discard_iterator.h").hip == "thrust/iterator/discard_iterator.h"
    assert database.header("thrust/system/cuda/memory.h").hip == "thrust/system/hip/memory.h"
    assert database.link("CUDA::cusolver").hip == "hipsolver"
    assert database.match_asm("mov.u32 %0, %%laneid;").hip == "__lane_id"


def test_every_nccl_function_in_the_header_has_a_rule(database, cuda_headers: Path) -> None:
    import re

    header = (cuda_headers / "nccl.h").read_text()
    functions = set(re.findall(r"^ncclResult_t\s+(nccl\w+)\s*\(", header, flags=re.M))
    functions |= set(re.findall(r"^const char\*\s+(nccl\w+)\s*\(", header, flags=re.M))
    assert len(functions) > 60
    missing = sorted(f for f in functions if database.lookup(f) is None)
    assert not missing, f"NCCL functions without a rule: {missing}"


def test_bundled_rule_files_validate() -> None:
    from portkit.resources import rules_dir
    from portkit.rules import rule_files

    files = rule_files(rules_dir())
    assert len(files) >= 10
    for path in files:
        load_file(path)


def test_vendored_library_names_are_not_declared_by_cuda(tmp_path: Path, monkeypatch) -> None:
    """A CUDA Samples helper is an API, but no CUDA header declares it; the flag survives the rule cache."""
    monkeypatch.setenv("PORTKIT_CACHE_DIR", str(tmp_path))
    for _ in range(2):  # written to the cache, then read from it
        database = load_database()
        assert database.is_api("checkCudaErrors") and not database.is_cuda_declared("checkCudaErrors")
        assert database.is_cuda_declared("cudnnHandle_t") and not database.is_cuda_declared("floor")
    assert list(tmp_path.glob("rules-*.json"))


def test_a_library_whose_hip_spellings_only_amd_has_is_marked(tmp_path: Path, monkeypatch) -> None:
    """rocThrust's thrust::hip::par: HIP on NVIDIA builds with NVIDIA's Thrust; hipCUB wraps CUB there. The flag
    survives the rule cache."""
    monkeypatch.setenv("PORTKIT_CACHE_DIR", str(tmp_path))
    for _ in range(2):  # written to the cache, then read from it
        libraries = load_database().libraries
        assert libraries["thrust"].hip_amd_only and not libraries["cub"].hip_amd_only
    assert list(tmp_path.glob("rules-*.json"))


def test_cached_database_is_the_validated_one_and_a_damaged_entry_is_rebuilt(tmp_path: Path, monkeypatch) -> None:
    """The cache stores the rules column by column, as runs of equal values: read back, every rule is the
    validated one, field for field; an entry whose columns do not line up is not trusted but rebuilt."""
    from portkit.store import read_entry, write_entry

    monkeypatch.setenv("PORTKIT_CACHE_DIR", str(tmp_path))
    validated = load_database(cache=False)
    written = load_database()
    (entry,) = tmp_path.glob("rules-*.json")
    cached = load_database()
    assert cached.all_rules() == validated.all_rules() == written.all_rules()
    data = read_entry(entry)
    values, counts = data["columns"][0]  # each run's value, each run's length
    counts[0] -= 1  # the first column one rule short
    write_entry(entry, data)
    assert load_database().all_rules() == validated.all_rules()
    assert read_entry(entry)["columns"][0][1][0] == counts[0] + 1  # rebuilt whole
    values.pop()  # a run's length without its value
    counts[0] += 1
    write_entry(entry, data)
    assert load_database().all_rules() == validated.all_rules()
    assert len(read_entry(entry)["columns"][0][0]) == len(values) + 1


def test_the_generator_makes_no_rule_of_an_opengl_name_a_cuda_table_lists(tmp_path: Path) -> None:
    """HIPIFY's driver table lists OpenGL's GLuint and GLenum (CUDA's GL-interop functions take them): as rules they
    billed every OpenGL program's types as CUDA driver names. The generator leaves them out; the CUDA names stay."""
    generator = runpy.run_path(str(Path(__file__).resolve().parent.parent / "scripts" / "gen_rules.py"))
    tables = tmp_path / "hipify" / "docs" / "tables"
    tables.mkdir(parents=True)
    for table, *_rest in generator["LIBRARIES"].values():
        (tables / table).write_text("", encoding="utf-8")
    row = "|`{}`| | | | |`{}`|5.1.0| | | | |\n"
    (tables / "CUDA_Driver_API_functions_supported_by_HIP.md").write_text(
        "## **36. Data types used by CUDA driver**\n\n" + row.format("GLuint", "GLuint") + row.format("GLenum", "GLenum")
        + row.format("CUdeviceptr", "hipDeviceptr_t"), encoding="utf-8")
    out = tmp_path / "rules"
    out.mkdir()
    assert generator["main"]([str(tmp_path / "hipify"), "--out", str(out)]) == 0
    _library, rules = load_file(out / "cuda_driver.yaml")
    assert {rule.cuda for rule in rules} == {"CUdeviceptr"}
