"""The rule database as a whole: coverage per library, and every HIP target checked
against the installed HIP/ROCm headers (all of them, not a sample)."""
from __future__ import annotations

import collections
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import require
from portkit.cli.rules import load_targets
from portkit.rules import Target, parse_version
from portkit.toolchain import hip_include_dirs, installed_hip_version
from portkit.rules.verify import INSTALLED_LIBRARIES, present_but_claimed_newer, verify_library


def test_every_library_meets_its_target(database, capsys) -> None:
    counts = collections.Counter(rule.library for rule in database.all_rules())
    targets = load_targets()
    assert set(targets) == set(counts), "every library needs a target in rules/_targets.yaml"
    with capsys.disabled():
        print("\nrules per library (count / target):", ", ".join(f"{lib} {counts[lib]}/{targets[lib]}" for lib in sorted(targets)))
    below = {lib: (counts[lib], target) for lib, target in targets.items() if counts[lib] < target}
    assert not below, f"libraries below target: {below}"


def _include_root() -> Path | None:
    return next((d for d in hip_include_dirs() if (d / "hip" / "hip_runtime_api.h").exists()), None)


@pytest.mark.parametrize("library", sorted(INSTALLED_LIBRARIES))
def test_supported_targets_exist_in_the_installed_headers(library: str, database, capsys) -> None:
    include = _include_root()
    version = installed_hip_version()
    require(include is not None and version is not None, "HIP headers not installed (Debian: libamdhip64-dev)")
    for directory in INSTALLED_LIBRARIES[library]:
        require((include / directory).is_dir(), f"{include / directory} not installed")
    result = verify_library(database, library, include, version, _compiler_include())
    with capsys.disabled():
        print(f"\n{library}: {result.verified} HIP/ROC targets found in {include} headers, "
              f"{result.newer} newer than HIP {'.'.join(map(str, version[:2]))}, {result.elsewhere} in roc* libraries "
              f"not installed, {len(result.missing)} missing")
    assert result.verified > 0
    assert not result.missing, f"{len(result.missing)} targets not in the headers, e.g. {result.missing[:10]}"


def _compiler_include() -> Path | None:
    """hipcc's own HIP headers (clang's resource directory): device functions such as the OCML ones live there."""
    hipcc = shutil.which("hipcc")
    if hipcc is None:
        return None
    run = subprocess.run([hipcc, "-print-resource-dir"], capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"})
    directory = Path(run.stdout.strip()) / "include"
    return directory if run.returncode == 0 and directory.is_dir() else None


def test_version_facts_agree_with_the_installed_headers(database) -> None:
    """A HIP name said to come after the installed release must not be in its headers already."""
    include = _include_root()
    version = installed_hip_version()
    require(include is not None and version is not None, "HIP headers not installed (Debian: libamdhip64-dev)")
    assert present_but_claimed_newer(database, include, version) == []


def test_show_and_stats(capsys) -> None:
    from portkit.cli import main

    assert main(["rules", "show", "ncclAlltoAll"]) == 0
    out = capsys.readouterr().out
    assert "HIP:" in out and "ncclAllToAll" in out and "capital T" in out
    assert main(["rules", "show", "cudaStreamGetCaptureInfo"]) == 0
    out = capsys.readouterr().out
    assert "HIP by argument count:   2: hipStreamGetCaptureInfo_v2, 4: hipStreamGetCaptureInfo_v2" in out
    assert "form:                    cudaStreamGetCaptureInfo_v3 when a call of 7 arguments passes other than NULL as" in out
    assert main(["rules", "show", "cudaMemPrefetchAsync"]) == 0
    assert "cudaMemPrefetchAsync_v2 when a call passes a cudaMemLocation as argument 2" in capsys.readouterr().out
    assert main(["rules", "stats"]) == 0
    out = capsys.readouterr().out
    assert "BELOW" not in out and "NCCL" in out and "Thrust" in out
    assert main(["rules", "list", "--library", "nvtx", "--status", "supported"]) == 0
    assert "nvtxRangePushA\tsupported\troctxRangePushA" in capsys.readouterr().out
    assert main(["rules", "list", "--library", "nope"]) == 2


def test_every_hip_version_the_rules_name_is_a_known_target(database) -> None:
    """A rule's hip_added/hip_deprecated/hip_removed version is one a target may name (rules/_rocm_versions.yaml)."""
    from portkit.rules.versions import parse_version
    from portkit.settings import is_known_rocm

    named = {getattr(rule, key) for rule in database.all_rules()
             for key in ("hip_added", "hip_deprecated", "hip_removed") if getattr(rule, key)}
    unknown = sorted(v for v in named if not is_known_rocm(parse_version(v)))
    assert len(named) > 40 and unknown == []


def test_no_name_of_a_hip_library_is_available_before_the_library(database) -> None:
    """hipBLASLt first shipped with ROCm 5.5: at 5.2 every cuBLASLt name is unavailable (left with a PK104 marker),
    cublasLtMatrixLayout_t too, whose HIPIFY row gives no HIP version (convert wrote hipblasLtMatrixLayout_t unmarked);
    rocWMMA's rocwmma:: names came with ROCm 5.2."""
    from portkit.codes import Status

    for names, before, first in ((("cublasLt.h", "cublasLtMatrixLayout_t", "cublasLtMatrixLayoutOpaque_t", "cublasLtMatmulDesc_t"),
                                  "5.2", "5.5"),
                                 (("mma.h", "wmma::fragment", "nvcuda::wmma::mma_sync"), "5.1", "5.2")):
        for name in names:
            rule = database.header(name) if name.endswith(".h") else database.lookup(name)
            assert rule.resolve(Target(rocm=parse_version(before))).status is Status.UNAVAILABLE, name
            assert rule.resolve(Target(rocm=parse_version(first))).status is not Status.UNAVAILABLE, name


def test_cuda_headers_hip_has_no_counterpart_for_are_ruled_not_unknown(tmp_path: Path, capsys) -> None:
    """cooperative_groups/scan.h (HIP's cooperative groups have no scans) and NVTX's naming of CUDA runtime objects
    (roctx has none) are unsupported headers with advice, not CUDA-looking headers no rule knows."""
    import json

    from portkit.cli import main

    source = tmp_path / "k.cu"
    source.write_text("#include <cooperative_groups.h>\n#include <cooperative_groups/scan.h>\n#include <nvtx3/nvToolsExt.h>\n"
                      "#include <nvtx3/nvToolsExtCudaRt.h>\n#include <nvToolsExtCudaRt.h>\n"
                      "__device__ int scanned(cooperative_groups::thread_block_tile<32> t, int x) {\n"
                      "  return cooperative_groups::inclusive_scan(t, x);\n}\n")  # used: an unused one is PK212
    assert main(["scan", "-f", "json", "--no-cache", "--rocm-version", "6.2", str(source)]) == 0
    found = {f["name"]: (f["code"], f["status"], f["advice"]) for f in json.loads(capsys.readouterr().out)["findings"]}
    for header in ("cooperative_groups/scan.h", "nvtx3/nvToolsExtCudaRt.h", "nvToolsExtCudaRt.h"):
        code, status, advice = found[header]
        assert (code, status) == ("PK102", "unsupported") and advice, header
    assert "__shfl_up" in found["cooperative_groups/scan.h"][2] and "roctxNameHipStream" in found["nvToolsExtCudaRt.h"][2]


MIOPEN_NAMES = Path(__file__).parent / "data" / "miopen" / "miopen-6.2.2-names.txt"


def test_every_miopen_name_a_cudnn_rule_gives_is_in_miopens_header(database) -> None:
    """Debian packages no MIOpen: its header's names, recorded as data, stand in for verify_library's installed headers."""
    from portkit.rules.versions import parse_version

    declared = {line.strip() for line in MIOPEN_NAMES.read_text().splitlines() if line.strip() and line[0] != "#"}
    named = [rule for rule in database.all_rules() if rule.library.startswith("cudnn") and rule.hip
             and rule.kind not in ("header", "link")
             and not (rule.hip_removed and parse_version(rule.hip_removed) <= parse_version("6.2.2"))]
    assert len(named) > 500
    assert sorted((rule.cuda, rule.hip) for rule in named if rule.hip not in declared) == []


PYTORCH_ROCM_NAMES = Path(__file__).parent / "data" / "pytorch-rocm" / "pytorch-rocm-names.txt"


def test_every_name_a_pytorch_rule_gives_is_one_pytorchs_rocm_build_declares(database) -> None:
    """No HIP install has PyTorch's ROCm headers: the names they declare (ATen/hip/impl's MasqueradingAsCUDA classes,
    the hipified c10/hip and ATen/hip), recorded as data, stand in for them. Every rule is supported (the names do
    what CUDA's do there) and its note says that only PyTorch's ROCm build has it."""
    declared = {line.strip() for line in PYTORCH_ROCM_NAMES.read_text().splitlines() if line.strip() and line[0] != "#"}
    rules = [rule for rule in database.all_rules() if rule.library == "pytorch"]
    assert len(rules) > 50
    assert sorted((rule.cuda, rule.hip) for rule in rules if rule.hip not in declared) == []
    assert [rule.cuda for rule in rules if rule.status.value != "supported" or "PyTorch's ROCm build" not in rule.note] == []


@pytest.mark.parametrize("cuda, miopen, differs", [
    ("cudnnPoolingForward", "miopenPoolingForward", "workSpace"),
    ("cudnnConvolutionBackwardFilter", "miopenConvolutionBackwardWeights", "miopenFindConvolutionBackwardWeightsAlgorithm"),
    ("cudnnSetActivationDescriptor", "miopenSetActivationDescriptor", "activAlpha"),
    ("cudnnSetConvolution2dDescriptor", "miopenInitConvolutionDescriptor", "mode comes first"),
    ("cudnnLRNCrossChannelForward", "miopenLRNForward", "workspace"),
    ("cudnnConvolutionBwdFilterAlgo_t", "miopenConvBwdWeightsAlgorithm_t", "miopenFindConvolutionBackwardWeightsAlgorithm"),
    ("cudnnConvolutionForward", "miopenConvolutionForward", "workspace"),
])
def test_cudnn_names_with_a_miopen_counterpart_name_it(cuda: str, miopen: str, differs: str, database) -> None:
    """Partial, with what differs (arguments, workspace, the find step), as hipCaffe's hand port calls them: not
    'no MIOpen equivalent'."""
    rule = database.lookup(cuda)
    assert (rule.hip, rule.status.value) == (miopen, "partial") and differs in rule.note


@pytest.mark.parametrize("cuda, says", [
    ("cudaEventWaitDefault", "Pass 0 as hipStreamWaitEvent's flags"),
    ("cudaEventRecordDefault", "hipEventRecord(event, stream)"),
    ("cuFuncSetCacheConfig", "Drop the call on AMD"),
])
def test_names_whose_hip_form_is_a_default_or_nothing_say_what_to_write(cuda: str, says: str, database) -> None:
    """A flag whose value is the default, or a hint AMD ignores, has no HIP name but a plain edit: the advice says it,
    not only "no HIP equivalent" (gpu-burn's and xgboost's trial)."""
    rule = database.lookup(cuda)
    assert rule is not None and not rule.hip and says in rule.action
