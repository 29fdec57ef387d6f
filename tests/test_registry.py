"""What each analyzer declares it may report (`@analyzer(..., codes=, fixes=)`) against what it reports, and the
convert that runs only the analyzers whose findings it acts on."""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Callable

import pytest

from conftest import EXAMPLES, ROOT
from portkit.analyze import Context, TextFile, analyze
from portkit.analyze.registry import Registration, analyzers_for, registrations, roles_read, strings_read
from portkit.codes import CODES, Status
from portkit.convert.markers import may_need_marker, needs_marker
from portkit.convert.sources import acting
from portkit.model import Finding, Position, Role
from portkit.parse.queries import OPTIONAL_ROLES
from portkit.run.file import Job, held_job, parse_bytes
from portkit.run.project import run_project
from portkit.run.request import RunRequest
from portkit.rules import Target
from portkit.settings import RunSettings
from portkit.walk import discover

HIP52 = Target(rocm=(5, 2, 0))
CORPUS = discover([str(ROOT / "tests" / "cases"), str(EXAMPLES)])[0]
# And the files the convert tests compile, which call what the rules rewrite by its arguments.
WITH_CONVERTED = CORPUS + discover([str(ROOT / "tests" / "convert")])[0]


def _whole(findings) -> list:
    """Findings with what their equality leaves out: the fix, and whether a project name may shadow them."""
    return [(f, f.fix, f.shadowable, f.engine) for f in findings]


def test_every_finding_an_analyzer_reports_is_of_a_code_it_declares(database) -> None:
    context = Context(rules=database, target=HIP52)
    job = held_job(context, None)
    reported: dict[str, set[str]] = {}
    for file in CORPUS:
        path = Path(file.path)
        data = path.read_bytes()
        subject = parse_bytes(file.path, data, job) if file.file_type == "source" else \
            TextFile(file.path, file.file_type, data.decode("utf-8", "replace"))
        for registration in registrations(file.file_type):
            for finding in registration.function(subject, context):
                name = registration.function.__name__
                assert finding.code in registration.codes, f"{path.name}: {name} reported {finding.code}"
                assert finding.fix is None or registration.fixes, f"{path.name}: {name} wrote a fix"
                reported.setdefault(name, set()).add(finding.code)
    # The corpus reaches nearly every analyzer: the check above is not vacuous.
    assert len(reported) >= len({r.function.__name__ for t in ("source", "cmake", "make") for r in registrations(t)}) - 3


@pytest.mark.parametrize("code", sorted(CODES))
def test_a_code_that_may_need_a_marker_is_told_so(code: str) -> None:
    for status in (None, *Status):
        for name in ("cudaThing", "cub::Thing", "thrust/thing.h"):
            finding = Finding("a.cu", Position(1, 1), code, name, "m", CODES[code].severity, status=status)
            assert not needs_marker(finding) or may_need_marker(code)


def test_without_a_cache_convert_runs_only_the_analyzers_whose_findings_it_acts_on(
        tmp_path: Path, database, monkeypatch) -> None:
    monkeypatch.setenv("PORTKIT_CACHE_DIR", str(tmp_path / "cache"))
    source = tmp_path / "k.cu"
    source.write_bytes(b"#define WARP_SIZE 32\n__global__ void k(float *x) { int lane = threadIdx.x % 32;\n"
                       b"  x[lane] = __shfl_down_sync(0xffffffff, 1.0f, 1); int b = __ballot_sync(~0u, 1); }\n"
                       b"void h(float *d) { cudaMalloc(&d, 4); k<<<1, 32>>>(d); cudaLaunchCooperativeKernel(0); }\n")
    acted_on, may_act_on = acting(hazard_markers=False)  # with hazard markers every hazard is acted on
    skipped = set(analyzers_for("source")) - set(analyzers_for("source", may_act_on))
    assert skipped and all(not r.fixes for r in registrations("source") if r.function in skipped)
    for cache in (False, True):
        settings = RunSettings(paths=(str(source),), root=tmp_path, target=HIP52, jobs=1, cache=cache)
        every = run_project(settings, RunRequest(rules=database)).findings
        assert {"PK300", "PK301", "PK332"} <= {f.code for f in every}  # warnings of skipped analyzers
        acted = run_project(settings, RunRequest(keep_sources=True, rules=database, wanted=acted_on, analyzers=may_act_on)).findings
        assert acted == [f for f in every if acted_on(f)] and acted
    # With a cache the analyzers all ran: a scan reading the cache still finds the warnings.
    settings = RunSettings(paths=(str(source),), root=tmp_path, target=HIP52, jobs=1, cache=True)
    assert {"PK300", "PK301", "PK332"} <= {f.code for f in run_project(settings, RunRequest(rules=database)).findings}


def _trimmed_parses_agree(files: list, context: Context, job: Job, trim: Callable[[Registration], Job], what: str) -> set[str]:
    """Run every source analyzer over each file's full parse and over the parse `trim` makes for it: the
    same findings, fixes included; the analyzers that found something (so that the check is not vacuous)."""
    compared: set[str] = set()
    for file in [f for f in files if f.file_type == "source"]:
        data = Path(file.path).read_bytes()
        full = parse_bytes(file.path, data, job)
        for registration in registrations("source"):
            expected = _whole(registration.function(full, context))
            if not expected:
                continue
            trimmed = parse_bytes(file.path, data, trim(registration))
            assert _whole(registration.function(trimmed, context)) == expected, \
                f"{Path(file.path).name}: {registration.function.__name__} reads {what} it does not declare"
            compared.add(registration.function.__name__)
    return compared


def test_every_analyzer_declares_the_optional_occurrences_it_reads(database) -> None:
    """Each analyzer finds the same over a parse made with only the optional roles it declares (`reads`) as over
    a full one: a convert without a cache asks the parser for only those of the analyzers it runs."""
    context = Context(rules=database, target=HIP52)
    job = held_job(context, None)
    compared = _trimmed_parses_agree(CORPUS, context, job, lambda r: dataclasses.replace(job, roles=r.reads),
                                     "an optional role")
    # Not vacuous: every analyzer that reads an optional role found something, and most others did.
    assert {r.function.__name__ for r in registrations("source") if r.reads} <= compared
    assert len(compared) >= len(registrations("source")) - 6


def test_a_convert_without_a_cache_parses_only_the_optional_roles_its_analyzers_read(database) -> None:
    _, may_act_on = acting(hazard_markers=False)  # hazard markers read the warp-size heuristics' inputs
    assert roles_read(None) is None
    assert roles_read(may_act_on) < OPTIONAL_ROLES  # the warp-size heuristics' inputs are not made
    assert roles_read(lambda codes, fixes: True) == OPTIONAL_ROLES  # each optional role has a reader
    job = held_job(Context(rules=database, target=HIP52), None, analyzers=may_act_on)
    parsed = parse_bytes("k.cu", b"__global__ void k(int *s) { int lane = threadIdx.x % 32; s[lane] = 0;\n"
                                 b"  const int q = f(s, 1); }\n", job)
    assert not {o.role for o in parsed.occurrences} & (OPTIONAL_ROLES - roles_read(may_act_on))


@pytest.mark.parametrize("target", [HIP52, Target()], ids=["hip5.2", "newest"])
def test_every_analyzer_declares_the_calls_whose_arguments_it_reads(database, target: Target) -> None:
    """Each analyzer finds the same over a parse that spells out the arguments of only the calls it declares
    (`arguments_of`) and those the rules ask for (`RuleDatabase.reads_arguments`) as over a full one (the newest
    target too: a lane mask is read only where HIP has the `_sync` form)."""
    context = Context(rules=database, target=target)
    job = dataclasses.replace(held_job(context, None), argument_names=None)
    compared = _trimmed_parses_agree(
        WITH_CONVERTED, context, job,
        lambda r: dataclasses.replace(job, argument_names=(r.arguments_of,) if r.arguments_of else ()),
        "the arguments of a call")
    assert {r.function.__name__ for r in registrations("source") if r.arguments_of} <= compared
    # The calls the rules rewrite by an argument's text, whether or not the files above have them.
    data = (b"__global__ void k(unsigned *w, long long v, int n) { w[0] = __ffsll(v) + min(threadIdx.x, n);\n"
            b"  w[1] = __shfl_sync(0xffffffff, w[2], 0); }\n"
            b"void h(cudaGraph_t g, cudaGraphNode_t *a, cudaGraphNode_t *b, float *p, size_t n, cudaMemLocation l) {\n"
            b"  cudaGraphAddDependencies(g, a, b, NULL, 1); cudaMemPrefetchAsync(p, n, l, 0); }\n")
    full, trimmed = (parse_bytes("calls.cu", data, dataclasses.replace(job, argument_names=names))
                     for names in (None, ()))
    assert _whole(analyze(full, context)) == _whole(analyze(trimmed, context))
    # The rules' own: a call whose form, cast or mask depends on an argument; a name no rule knows.
    assert database.reads_arguments("__shfl_sync") and database.reads_arguments("no_such_call")
    assert not database.reads_arguments("cudaDeviceSynchronize")


def test_every_analyzer_declares_the_calls_that_make_it_read_string_literals(database) -> None:
    """Each analyzer finds the same over a parse that reads the string literals of only the files calling what it
    declares (`strings_of`) as over one that reads them for every analyzer's: the parser reads no other file's."""
    context = Context(rules=database, target=HIP52)
    job = held_job(context, None)
    compared = _trimmed_parses_agree(
        CORPUS, context, job,
        lambda r: dataclasses.replace(job, analyzers=lambda codes, fixes, own=r.codes: codes == own), "string literals")
    assert {r.function.__name__ for r in registrations("source") if r.strings_of} <= compared
    # And a file that calls none of those has none read.
    parsed = parse_bytes("opts.cpp", b'const char* o[] = {"--use_fast_math"};\nvoid f() { g(o); }\n', job)
    assert not parsed.of(Role.STRING) and strings_read(None)
