"""The precise engine: libclang resolves each name to its declaration.

tree-sitter sees tokens; clang sees what they mean. With `--engine clang` each
translation unit is parsed as CUDA (host side) and every reference whose
declaration lives in a CUDA/NVIDIA header becomes an occurrence, attributed to
the line where it is written, or where the macro that expands to it is used.
References to the project's own declarations (a `mock::cudaDeviceReset`) are not
CUDA uses. Everything else (includes, kernels, launches, asm, conditions) still
comes from tree-sitter, so both engines share one occurrence model.
"""
from __future__ import annotations

import dataclasses
import functools
import glob
import json
import os
import shlex
import shutil
import tempfile
from pathlib import Path

from portkit.errors import InputError, ToolError
from portkit.model import Occurrence, ParsedFile, Position, Role, Span

# Marks occurrences whose declaration clang found in a CUDA header: no name-based shadowing applies.
RESOLVED = (("engine", "clang"),)
_KEEP_GOING = 0x200  # CXTranslationUnit_KeepGoing: one missing include does not stop the unit
_PASSED_FLAGS = ("-I", "-isystem", "-D", "-U", "-include", "-std=")


def load_cindex():
    try:
        import clang.cindex as cindex
    except ImportError:
        raise ToolError("the clang engine needs libclang's Python bindings: pip install 'portkit[clang]' (or libclang)") from None
    try:
        cindex.Index.create()
    except Exception as exc:  # noqa: BLE001 - the bindings raise several kinds when the library is missing
        raise ToolError(f"the clang engine: libclang cannot be loaded ({exc}); pip install libclang") from None
    return cindex


@functools.lru_cache(maxsize=1)
def resource_dir() -> str:
    """An installed clang's resource directory (the libclang wheel ships none)."""
    explicit = os.environ.get("PORTKIT_CLANG_RESOURCE_DIR")
    if explicit:
        return explicit
    found = sorted(glob.glob("/usr/lib/llvm-*/lib/clang/*/include/stddef.h"), reverse=True)
    if not found:
        raise ToolError("the clang engine: no clang resource directory found; install Debian's libclang-common-15-dev "
                         "(hipcc brings one) or set PORTKIT_CLANG_RESOURCE_DIR")
    return str(Path(found[0]).parent.parent)


@functools.lru_cache(maxsize=1)
def _stub_dir() -> str:
    """clang's CUDA wrapper includes texture_fetch_functions.h, which CUDA 13 removed: an empty stand-in."""
    directory = Path(tempfile.gettempdir()) / "portkit-clang-stubs"
    directory.mkdir(exist_ok=True)
    (directory / "texture_fetch_functions.h").touch()
    return str(directory)


def cuda_include_dirs() -> list[str]:
    dirs = []
    nvcc = shutil.which("nvcc")
    if nvcc:
        dirs.append(str(Path(os.path.realpath(nvcc)).parent.parent / "include"))
    for candidate in (os.environ.get("CUDA_PATH", ""), "/usr/local/cuda"):
        if candidate and (Path(candidate) / "include" / "cuda_runtime.h").exists():
            dirs.append(str(Path(candidate) / "include"))
    if os.environ.get("PORTKIT_CUDA_HEADERS"):
        dirs.append(os.environ["PORTKIT_CUDA_HEADERS"])
    # CUDA 13 keeps Thrust, CUB and libcu++ under include/cccl, which nvcc adds by itself.
    dirs += [str(Path(d) / "cccl") for d in dirs if (Path(d) / "cccl").is_dir()]
    return list(dict.fromkeys(dirs))


def find_compile_database(paths: list[str], explicit: str | None) -> Path | None:
    if explicit:
        path = Path(explicit)
        path = path / "compile_commands.json" if path.is_dir() else path
        if not path.is_file():
            raise InputError(f"{explicit}: no compile_commands.json there")
        return path
    for root in paths:
        for candidate in (Path(root) / "compile_commands.json", Path(root) / "build" / "compile_commands.json"):
            if candidate.is_file():
                return candidate
    return None


def read_compile_database(path: Path) -> dict[str, list[str]]:
    """Per source file (resolved), the include/define flags of its compile command."""
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError(f"{path}: not a compile database: {exc}") from None
    flags: dict[str, list[str]] = {}
    for entry in entries if isinstance(entries, list) else []:
        try:
            directory = Path(entry["directory"])
            words = entry.get("arguments") or shlex.split(entry["command"])
            source = str((directory / entry["file"]).resolve())
        except (KeyError, TypeError, ValueError):
            continue
        kept: list[str] = []
        words = _expand_response_files(list(words)[1:], directory)
        for index, word in enumerate(words):
            if word in ("-I", "-isystem", "-D", "-U", "-include") and index + 1 < len(words):
                value = words[index + 1]
                if word in ("-I", "-isystem") and not os.path.isabs(value):
                    value = str(directory / value)
                kept += [word, value]
            elif word.startswith(_PASSED_FLAGS) and word not in ("-I", "-isystem", "-D", "-U", "-include"):
                if word.startswith("-I") and not os.path.isabs(word[2:]):
                    word = "-I" + str(directory / word[2:])
                kept.append(word)
        flags[source] = kept
    return flags


def _expand_response_files(words: list[str], directory: Path) -> list[str]:
    """Inline `--options-file F` / `@F` (CMake puts nvcc's include flags there)."""
    expanded: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        name = words[index + 1] if word in ("--options-file", "-optf") and index + 1 < len(words) else (
            word[1:] if word.startswith("@") else None)
        if name is None:
            expanded.append(word)
            index += 1
            continue
        try:
            expanded += shlex.split((directory / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            pass
        index += 2 if word in ("--options-file", "-optf") else 1
    return expanded


def default_flags(path: str) -> list[str]:
    here = Path(path).resolve().parent
    dirs = [here] + [d for d in (here / "include", here.parent / "include") if d.is_dir()]
    return [f"-I{d}" for d in dirs]


def clang_arguments(extra: list[str]) -> list[str]:
    includes = [f"-I{d}" for d in cuda_include_dirs()]
    cuda_path = next((str(Path(d).parent) for d in cuda_include_dirs() if (Path(d) / "cuda_runtime.h").exists()), "")
    return (["-x", "cuda", "--cuda-host-only", "-nocudalib", "-std=c++17", "-resource-dir", resource_dir(),
             f"-I{_stub_dir()}", "-Wno-unknown-cuda-version"] + ([f"--cuda-path={cuda_path}"] if cuda_path else [])
            + includes + extra)


def _is_cuda_header(path: str, roots: tuple[str, ...]) -> bool:
    return path.startswith(roots)


def _qualified_name(cindex, declaration) -> str:
    """`thrust::sort` for a declaration inside namespaces; versioned inline namespaces are skipped."""
    parts = [declaration.spelling]
    parent = declaration.semantic_parent
    while parent is not None and parent.kind == cindex.CursorKind.NAMESPACE:
        if not cindex.conf.lib.clang_Cursor_isInlineNamespace(parent):
            parts.insert(0, parent.spelling)
        parent = parent.semantic_parent
    return "::".join(parts)


def clang_name_occurrences(path: str, source: bytes, flags: list[str]) -> tuple[list[Occurrence], str]:
    """Occurrences of CUDA declarations in `path`, and "" or the reason clang gave up."""
    cindex = load_cindex()
    roots = tuple(os.path.realpath(d) + os.sep for d in cuda_include_dirs())
    index = cindex.Index.create()
    try:
        unit = index.parse(path, args=clang_arguments(flags), unsaved_files=[(path, source.decode("utf-8", "replace"))],
                           options=cindex.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD | _KEEP_GOING)
    except cindex.TranslationUnitLoadError as exc:
        return [], f"clang could not parse it ({exc})"
    # A missing header leaves its names undeclared: tree-sitter then knows more than clang.
    fatal = [d for d in unit.diagnostics if d.severity >= cindex.Diagnostic.Fatal or
             (d.severity >= cindex.Diagnostic.Error and "file not found" in d.spelling)]
    if fatal:
        return [], f"clang: {fatal[0].spelling}"
    main = os.path.realpath(path)
    kinds = {cindex.CursorKind.DECL_REF_EXPR: Role.IDENTIFIER, cindex.CursorKind.TYPE_REF: Role.TYPE}
    found: dict[tuple[int, str], Occurrence] = {}
    macros = sorted((c.extent.start.offset, c.extent.end.offset, c.spelling) for c in unit.cursor.get_children()
                    if c.kind == cindex.CursorKind.MACRO_INSTANTIATION and c.location.file is not None
                    and os.path.realpath(c.location.file.name) == main)
    stack = [unit.cursor]
    while stack:
        cursor = stack.pop()
        for child in cursor.get_children():
            location = child.location
            in_main = location.file is not None and os.path.realpath(location.file.name) == main
            if location.file is not None and not in_main:
                continue
            stack.append(child)
            kind = kinds.get(child.kind)
            referenced = child.referenced if kind is not None else None
            if referenced is None or referenced.location.file is None:
                continue
            if not _is_cuda_header(os.path.realpath(referenced.location.file.name), roots):
                continue
            name = referenced.spelling
            qualified = _qualified_name(cindex, referenced)
            if cursor.kind == cindex.CursorKind.CALL_EXPR and kind is Role.IDENTIFIER:
                kind = Role.CALL
            start = location.offset
            written = source[start:start + len(name.encode())] == name.encode()
            if qualified != name:
                kind, name = Role.QUALIFIED, qualified
                written = False  # the spelling in the source may be shorter (using-directives): no rename
            # A name written through a macro has no span of its own to rename.
            span = Span(start, start + len(name.encode())) if written else Span(start, start)
            macro = next((m for a, b, m in macros if a <= start < b), "") if not written else ""
            occurrence = Occurrence(span, kind, name, Position(location.line, location.column), "",
                                    f"via macro {macro}" if macro else "", info=RESOLVED)
            found.setdefault((start, name), occurrence)
    return sorted(found.values(), key=lambda o: (o.span.start, o.text)), ""


# What clang replaces. Macro bodies stay from tree-sitter: they carry the renames of #define lines,
# which clang only sees expanded at each use.
_NAME_ROLES = (Role.CALL, Role.TYPE, Role.IDENTIFIER)


def with_clang_names(parsed: ParsedFile, data: bytes, flags: list[str]) -> tuple[ParsedFile, str]:
    """tree-sitter's parse with its name occurrences replaced by clang's; unchanged, with the reason, on failure."""
    names, problem = clang_name_occurrences(parsed.path, data, flags)
    if problem:
        return parsed, f"{problem}; fell back to tree-sitter for this file"
    kept = [o for o in parsed.occurrences if o.role not in _NAME_ROLES]
    return dataclasses.replace(parsed, occurrences=tuple(sorted(kept + names, key=lambda o: (o.span.start, o.span.end)))), ""
