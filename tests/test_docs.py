"""The committed example reports must match what portkit produces now."""
from __future__ import annotations

import json
import re
import shlex
import subprocess
import shutil

import pytest
import yaml

from conftest import ROOT, parse_portkit


@pytest.mark.parametrize("example", ["saxpy", "option-pricer"])
def test_example_reports_are_current(example: str) -> None:
    committed = json.loads((ROOT / "docs" / "examples" / f"{example}.json").read_text())
    out = subprocess.run([shutil.which("portkit") or "portkit", "scan", "--rocm-version", "5.2", "-f", "json",
                          f"examples/{example}"], cwd=ROOT, check=True, capture_output=True, text=True)
    assert json.loads(out.stdout) == committed, "run scripts/gen-example-reports and commit docs/examples/"


def test_code_docs_are_current() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("gen_docs", ROOT / "scripts" / "gen_docs.py")
    gen_docs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen_docs)
    assert (ROOT / "docs" / "codes.md").read_text() == gen_docs.codes_md(), "run scripts/gen_docs.py"
    assert (ROOT / "docs" / "hazards.md").read_text() == gen_docs.hazards_md(), "run scripts/gen_docs.py"


def test_every_hazard_code_has_a_flagged_case() -> None:
    from portkit.codes import CODES

    cases = "\n".join(p.read_text() for p in (ROOT / "tests" / "cases").iterdir() if p.is_file())
    for code in CODES:
        if code.startswith(("PK3", "PK4")):
            assert "expect: " in cases and any(code in line and "expect:" in line for line in cases.splitlines()), code


def _blocks(name: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", (ROOT / name).read_text(), re.S)


def test_docs_install_portkit_from_its_repository() -> None:
    """portkit is not on PyPI: no `pip install portkit`; the repository, a checkout or a wheel built there."""
    for name in ("README.md", "docs/ci.md", "docs/pre-commit.md", "docs/engines.md"):
        text = (ROOT / name).read_text()
        assert not re.search(r"pip install ['\"]?portkit(\[\w+\])?['\"]?(?!\s*@)(\s|$)", text), name  # from PyPI
    readme = (ROOT / "README.md").read_text()
    for command in ("pip install \"portkit @ git+https://github.com/portkit/portkit@", "pip install .",
                    "pip wheel --no-deps -w dist .", "pip install dist/portkit-"):
        assert command in readme, command
    assert "git+https://github.com/portkit/portkit@" in (ROOT / "docs" / "pre-commit.md").read_text()
    hook = yaml.safe_load(_blocks("docs/pre-commit.md", "yaml")[0])
    assert hook["repos"][0]["repo"] == "https://github.com/portkit/portkit"


def _portkit_commands(run: str) -> list[list[str]]:
    lines = run.replace("${{ matrix.shard }}", "1").splitlines()
    return [shlex.split(line, comments=True)[1:] for line in lines if line.startswith("portkit ")]


def test_actions_workflows_are_right_for_private_repositories(monkeypatch) -> None:
    """docs/ci.md's workflows: one job and a matrix; each job that uploads SARIF may read the repository and the
    run and write alerts; each scanning job restores portkit's cache directory first; portkit comes from its
    repository; every portkit command in them parses."""
    from portkit.store import cache_root

    workflows = [yaml.safe_load(block) for block in _blocks("docs/ci.md", "yaml")]
    assert [len(w["jobs"]) for w in workflows] == [1, 2]
    for workflow in workflows:
        assert workflow["env"]["PORTKIT"].startswith("portkit @ git+https://github.com/portkit/portkit@")
        for name, job in workflow["jobs"].items():
            steps = job["steps"]
            uses = [step.get("uses", "") for step in steps]
            runs = [step.get("run", "") for step in steps]
            granted = {**workflow.get("permissions", {}), **job.get("permissions", {})}
            assert granted.get("contents") == "read", name
            if any(u.startswith("github/codeql-action/upload-sarif@") for u in uses):
                assert {"contents": "read", "actions": "read", "security-events": "write"}.items() <= granted.items()
            assert 'pip install "$PORTKIT"' in [r.split("#")[0].strip() for r in runs]
            scanning = [i for i, run in enumerate(runs) if "portkit scan" in run]
            caches = [i for i, u in enumerate(uses) if u.startswith("actions/cache@")]
            if scanning:
                assert caches and caches[0] < scanning[0], name
                assert steps[caches[0]]["with"]["path"] == "~/.cache/portkit"
            for run in runs:
                for argv in _portkit_commands(run):
                    parse_portkit(argv)
    monkeypatch.delenv("PORTKIT_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", "/home/runner")
    assert str(cache_root()) == "/home/runner/.cache/portkit"  # the directory the cache step keeps


def test_rules_md_documents_every_entry_key_where_it_goes() -> None:
    """docs/rules.md's tables: every key an entry may hold at its top level in the first, every key of `shape`
    in the one under it, and no key validation does not know."""
    from portkit.rules.validate import _ENTRY_KEYS, SHAPE_KEYS

    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    entries, shape = text.split("Entry keys:", 1)[1].split("Keys under `shape`:", 1)
    shape = shape.split("\n\n", 2)[1]

    def keys(table: str) -> set[str]:
        return {key for row in table.splitlines() if row.startswith("| `")
                for key in re.findall(r"`(\w+)`", row.split(" | ", 1)[0])}

    assert keys(entries.split("\n\n", 2)[1]) == _ENTRY_KEYS | {"shape"}
    assert keys(shape) == set(SHAPE_KEYS)
