"""The shape of the code (docs/architecture.md): layers, one home for codes and statuses, short functions."""
from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "portkit"

# Lowest first. A module may import its own layer and the ones below, never one above.
LAYERS = (
    ("portkit", "portkit.errors", "portkit.model", "portkit.codes", "portkit.resources",
     "portkit.textutil", "portkit.fileio", "portkit.outpath", "portkit.store", "portkit.templating",
     "portkit.tally"),
    ("portkit.rules", "portkit.ignore", "portkit.tracked",
     "portkit.walk", "portkit.included", "portkit.toolchain", "portkit.config", "portkit.settings"),
    ("portkit.parse",),
    ("portkit.analyze",),
    ("portkit.run",),
    ("portkit.convert", "portkit.shim", "portkit.check", "portkit.report"),
    ("portkit.cli", "portkit.__main__"),
)
MODULES = sorted(PACKAGE.rglob("*.py"))


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(module: str) -> int:
    """The layer of the longest prefix listed in LAYERS."""
    best = (-1, -1)
    for index, layer in enumerate(LAYERS):
        for prefix in layer:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best[1]:
                best = (index, len(prefix))
    assert best[0] >= 0, f"{module} is in no layer: add it to LAYERS and docs/architecture.md"
    return best[0]


def imported_modules(tree: ast.AST) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("portkit"):
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names
                         if (PACKAGE.parent / (node.module + "." + alias.name).replace(".", "/")).exists())
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("portkit"))
    return found


@pytest.mark.parametrize("path", MODULES, ids=[module_name(p) for p in MODULES])
def test_imports_never_point_up(path: Path) -> None:
    name = module_name(path)
    own = layer_of(name)
    upward = sorted(m for m in imported_modules(ast.parse(path.read_text(encoding="utf-8"))) if layer_of(m) > own)
    assert not upward, f"{name} (layer {own}) imports higher layers: {upward}"


def test_no_code_or_status_literals_outside_codes() -> None:
    """Codes and status words are named through portkit/codes.py; their texts live in rules/_codes.yaml."""
    literal = re.compile(r"""["']PK\d|["'](supported|partial|unsupported|removed|unavailable)["']""")
    offenders = []
    for path in MODULES:
        if path.name == "codes.py" and path.parent == PACKAGE:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if literal.search(line):
                offenders.append(f"{path.relative_to(PACKAGE.parent)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


def test_functions_fit_on_a_screen() -> None:
    """No function over 60 lines unless a comment on its first line says why."""
    long = []
    for path in MODULES:
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > 60 and "# long:" not in lines[node.lineno - 1]:
                    long.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {node.name} ({length} lines)")
    assert not long, "\n".join(long)


def test_architecture_doc_names_every_package() -> None:
    doc = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    for path in MODULES:
        name = module_name(path)
        if name.count(".") == 1 or path.name == "__init__.py":
            short = name.removeprefix("portkit.").replace(".", "/")
            if name != "portkit" and short != "__main__":
                assert f"`{short}" in doc, f"docs/architecture.md does not mention {short}"


def _module_bullets(doc: str) -> dict[str, str]:
    """docs/architecture.md's bullets "- `name` — ..." (a module, or a package written `name/`), by name."""
    return {m.group(1): m.group(2) for m in re.finditer(r"^- `([\w/]+)` — (.*?)(?=^- |^#|\Z)", doc, re.M | re.S)}


def test_architecture_doc_names_every_module_and_only_those() -> None:
    """Every module of portkit/ is named in docs/architecture.md (a package's in its package's bullet, as
    `name.py`), and every module the bullets name exists."""
    bullets = _module_bullets((PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8"))
    missing, stale = [], []
    for path in MODULES:
        relative = path.relative_to(PACKAGE)
        if len(relative.parts) == 1:
            if path.stem not in ("__init__", "__main__") and path.stem not in bullets:
                missing.append(str(relative))
        elif path.name != "__init__.py" and f"`{path.name}`" not in bullets.get(f"{relative.parts[0]}/", ""):
            missing.append(str(relative))
    for name, text in bullets.items():
        if name.endswith("/"):
            stale += [f"{name}{m}" for m in re.findall(r"`(\w+\.py)`", text) if not (PACKAGE / name / m).is_file()]
        elif not (PACKAGE / f"{name}.py").is_file() and not (PACKAGE / name).is_dir():
            stale.append(name)
    assert not missing, f"docs/architecture.md does not name: {missing}"
    assert not stale, f"docs/architecture.md names modules that do not exist: {stale}"


def test_flake8_is_clean() -> None:
    """The style check pre-commit runs (.pre-commit-config.yaml), with the repo's .flake8."""
    root = PACKAGE.parent
    result = subprocess.run([sys.executable, "-m", "flake8", "portkit", "bench", "scripts", "tests"],
                            cwd=root, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_loading_the_cli_imports_no_command_implementation() -> None:
    """Every command pays for loading the CLI: each command imports its run, reports, shards or shim when it runs."""
    probe = ("import sys, portkit.cli; print(' '.join(sorted(m for m in sys.modules if m.startswith(("
             "'portkit.run', 'portkit.report', 'portkit.convert', 'portkit.check', 'portkit.shim')))))")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    assert loaded == []
