"""`check` and `baseline` over a project: scan, fingerprint, compare with the baseline."""
from __future__ import annotations

from pathlib import Path

from portkit.check.baseline import (
    Fingerprinted, Verdict, decide, fingerprint_all, is_blocking, is_recorded, read_baseline, relative_path,
    write_baseline,
)
from portkit.check.gitdiff import added_lines
from portkit.config import DEFAULT_BASELINE
from portkit.errors import InputError, OutputError
from portkit.fileio import write_output
from portkit.outpath import refuse_escape, refuse_missing_directory, refuse_overlap
from portkit.run.project import run_project
from portkit.run.request import RunRequest
from portkit.settings import RunSettings
from portkit.walk import not_analysed


def baseline_path(settings: RunSettings, explicit: Path | None = None) -> Path:
    return explicit or settings.baseline or settings.root / DEFAULT_BASELINE


def record_baseline(settings: RunSettings, output: Path | None = None) -> tuple[Path, int, int]:
    """Write today's recordable findings to the baseline; (its path, how many, how many of them block today)."""
    target = baseline_path(settings, output)
    if output is not None:  # `-o`: the directory is the user's to make; a configured path's is made (ci/portkit.json)
        refuse_missing_directory(target)
    result = run_project(settings, RunRequest(keep_sources=True))
    recorded = [f for f in fingerprint_all(result.findings, result.sources, settings.root) if is_recorded(f.finding)]
    refuse_overlap(target, [*settings.inputs(), *result.read_paths()], directory=False)
    if output is None:
        refuse_escape(target, settings.root)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"{target}: cannot write: {exc.strerror or exc}") from None
    write_output(target, write_baseline(target, recorded))
    return target, len(recorded), sum(is_blocking(f.finding, settings.blocking) for f in recorded)


def run_check(settings: RunSettings, baseline_file: Path | None = None, diff_ref: str | None = None,
              partial: bool = False) -> Verdict:
    """New, baselined, suppressed and fixed findings. `partial`: only some files were named, so
    baseline entries for other files are not reported as fixed."""
    path = baseline_path(settings, baseline_file)
    if baseline_file is not None and not path.exists():
        raise InputError(f"{path}: baseline not found")
    entries = read_baseline(path) if path.exists() else []
    result = run_project(settings, RunRequest(keep_sources=True))
    findings = fingerprint_all(result.findings, result.sources, settings.root)
    checked = {relative_path(f.path, settings.root) for f in result.files} if partial else None
    if not diff_ref:
        verdict = decide(findings, settings.blocking, entries, result.suppressions, checked)
    else:
        added = added_lines(diff_ref, settings.root)
        # The code outside the diff consumes its baseline entries first: a baselined call copied by the
        # change is the new one, wherever the copy sits in the file.
        findings.sort(key=lambda f: f.finding.position.line in added.get(f.path, ()))
        verdict = within_diff(decide(findings, settings.blocking, entries, result.suppressions, checked), added)
    # A file the gate could not read may hold anything: "0 new" over it would be a lie.
    verdict.unanalysed = [f"{d.path}: {d.message}" for d in result.diagnostics if not_analysed(d.message, d.reason)]
    return verdict


def within_diff(verdict: Verdict, added: dict[str, set[int]]) -> Verdict:
    """Only what the diff touched: findings on the lines it adds, baseline entries gone from the files it changes
    (an entry not found is one whose line changed, since its fingerprint is that line's text)."""
    def inside(items: list[Fingerprinted]) -> list[Fingerprinted]:
        return [f for f in items if f.finding.position.line in added.get(f.path, ())]

    return Verdict(inside(verdict.new), inside(verdict.baselined), inside(verdict.suppressed),
                   [entry for entry in verdict.fixed if entry.path in added])
