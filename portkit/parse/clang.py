"""The precise engine: libclang resolves each name to its declaration.

tree-sitter sees tokens; clang sees what they mean. With `--engine clang` each
translation unit is parsed as CUDA (host side), against a precompiled header of
what it includes from outside the project (clang_pch.py) and stand-ins for the
CUDA headers this machine lacks (clang_headers.py). Every reference whose declaration lives in a
CUDA header is a CUDA use, attributed to the place it is written, or to the
macro use it comes through; in the unit's own file and in the project's headers
it includes. References to the project's own declarations (a
`mock::cudaDeviceReset`) are not CUDA uses. clang_merge.py merges them into
tree-sitter's occurrences, which keep everything that is not a name.
"""
from __future__ import annotations

import ctypes
import dataclasses
import os
import re

from portkit.fileio import read_bytes
from portkit.model import Role
from portkit.parse.clang_headers import HeaderEnvironment, Prefix, macro_names, prefix_of
from portkit.parse.clang_pch import Precompiled, discard, precompiled
from portkit.parse.clang_setup import load_cindex

_KEEP_GOING = 0x200  # CXTranslationUnit_KeepGoing: one missing include does not stop the unit
_QUALIFIER = re.compile(rb"(?:[A-Za-z_]\w*\s*::\s*)+$")
_IDENTIFIER = re.compile(rb"[A-Za-z_]\w*")
# Errors that mean "no declaration at all": tree-sitter's view of the name stands.
_UNDECLARED = re.compile(r"^(use of undeclared identifier|unknown type name|no template named|unknown template name"
                         r"|no member named '\w+' in namespace|no type named '\w+' in namespace)")
_OFFSET_BITS, _LOADED_FROM = 0x7FFFFFFF, 1 << 30  # a raw SourceLocation: a macro bit, then the offset
_RESERVED = re.compile(r"^(_[A-Z_]|$)")  # implementation namespaces (cooperative_groups::__v1) and anonymous ones


@dataclasses.dataclass(frozen=True)
class Reference:
    """One use of a CUDA declaration: written at `start`..`end`, or (empty) through `macro` or an alias."""

    start: int
    end: int
    role: Role
    text: str
    line: int
    column: int
    function: str = ""
    macro: str = ""


@dataclasses.dataclass
class FileNames:
    """What clang found in one file of a unit: CUDA references, undeclared names, inactive branches."""

    references: list[Reference] = dataclasses.field(default_factory=list)
    undeclared: set[int] = dataclasses.field(default_factory=set)  # offsets of names clang found no declaration for
    skipped: list[tuple[int, int]] = dataclasses.field(default_factory=list)  # inactive preprocessor branches


@dataclasses.dataclass
class UnitNames:
    files: dict[str, FileNames]  # by real path: the unit and the project headers it includes
    sources: dict[str, bytes]  # their bytes, by real path
    macros: frozenset[str]  # the macros its CUDA headers define
    depends: tuple[str, ...]  # the non-system files it read, for the cache
    problem: str = ""


class _Locator:
    """Locations as (real path, line, column, offset), through libclang's C API: the bindings' objects are slow."""

    def __init__(self, cindex):
        self._cindex = cindex
        self._paths: dict[int, str | None] = {}
        self._calls = {}
        for name in ("clang_getExpansionLocation", "clang_getSpellingLocation"):
            function = getattr(cindex.conf.lib, name)
            function.argtypes = [cindex.SourceLocation, ctypes.POINTER(cindex.c_object_p)] + [ctypes.POINTER(ctypes.c_uint)] * 3
            function.restype = None
            self._calls[name] = function

    def _locate(self, name: str, location) -> tuple[str | None, int, int, int]:
        file, line, column, offset = self._cindex.c_object_p(), ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint()
        self._calls[name](location, ctypes.byref(file), ctypes.byref(line), ctypes.byref(column), ctypes.byref(offset))
        key = ctypes.cast(file, ctypes.c_void_p).value or 0
        if key not in self._paths:
            self._paths[key] = os.path.realpath(self._cindex.File(file).name) if key else None
        return self._paths[key], line.value, column.value, offset.value

    def expansion(self, location) -> tuple[str | None, int, int, int]:
        return self._locate("clang_getExpansionLocation", location)

    def spelling(self, location) -> tuple[str | None, int, int, int]:
        return self._locate("clang_getSpellingLocation", location)


def _qualified_name(cindex, declaration) -> str:
    """`thrust::sort` for a declaration inside namespaces; inline and implementation namespaces are skipped."""
    parts = [declaration.spelling]
    parent = declaration.semantic_parent
    while parent is not None and parent.kind == cindex.CursorKind.NAMESPACE:
        if not cindex.conf.lib.clang_Cursor_isInlineNamespace(parent) and not _RESERVED.match(parent.spelling):
            parts.insert(0, parent.spelling)
        parent = parent.semantic_parent
    return "::".join(parts)


class _Walk:
    """One pass over a unit's tree: the CUDA references in the files of interest."""

    def __init__(self, cindex, unit, env: HeaderEnvironment, sources: dict[str, bytes]):
        self.cindex, self.unit, self.env, self.sources = cindex, unit, env, sources
        self.locate = _Locator(cindex)
        self.files: dict[str, FileNames] = {path: FileNames() for path in sources}
        kinds = cindex.CursorKind
        self.reference_kinds = {kinds.DECL_REF_EXPR: Role.IDENTIFIER, kinds.TYPE_REF: Role.TYPE,
                                kinds.TEMPLATE_REF: Role.TYPE, kinds.OVERLOADED_DECL_REF: Role.CALL}
        self.function_kinds = {kinds.FUNCTION_DECL, kinds.FUNCTION_TEMPLATE, kinds.CXX_METHOD, kinds.CONSTRUCTOR,
                               kinds.DESTRUCTOR, kinds.CONVERSION_FUNCTION}
        self.device_attributes = {kinds.CUDADEVICE_ATTR, kinds.CUDAGLOBAL_ATTR}

    def run(self) -> dict[str, FileNames]:
        for top in self.unit.cursor.get_children():
            location = top.location
            # Declarations from the precompiled header (thousands, <bits/stdc++.h>) are never the project's;
            # clang gives loaded locations the top of its location space, this unit's own the bottom.
            if location.int_data & _OFFSET_BITS < _LOADED_FROM and self.locate.expansion(location)[0] in self.files:
                self._visit(top)
        return self.files

    def written_offset(self, location) -> tuple[str | None, int]:
        """Where a location is written in its file: a macro argument's own place, else the macro use."""
        path, _, _, offset = self.locate.expansion(location)
        spelled_path, _, _, spelled_offset = self.locate.spelling(location)
        return path, spelled_offset if spelled_path == path else offset

    def _visit(self, top) -> None:
        stack = [(top, "", False)]
        while stack:
            cursor, function, device = stack.pop()
            children = list(cursor.get_children())
            if cursor.kind in self.function_kinds:
                function = cursor.spelling
                device = any(child.kind in self.device_attributes for child in children)
            role = self.reference_kinds.get(cursor.kind)
            if role is not None:
                self._reference(cursor, role, function, device)
            stack.extend((child, function, device) for child in children)

    def _declarations(self, cursor) -> list:
        if cursor.kind != self.cindex.CursorKind.OVERLOADED_DECL_REF:
            referenced = cursor.referenced
            return [referenced] if referenced is not None else []
        lib = self.cindex.conf.lib
        return [lib.clang_getOverloadedDecl(cursor, i) for i in range(lib.clang_getNumOverloadedDecls(cursor))]

    def _reference(self, cursor, role: Role, function: str, device: bool) -> None:
        path, line, column, offset = self.locate.expansion(cursor.location)
        if path not in self.files:
            return
        declarations = self._declarations(cursor)
        # No declaration, or one clang made up at this very use (a builtin such as __syncthreads): tree-sitter's view.
        if not declarations or self.locate.spelling(declarations[0].location) == self.locate.spelling(cursor.location):
            self.files[path].undeclared.add(self.written_offset(cursor.location)[1])
            return
        cuda = next((d for d in declarations if self._in_cuda_header(d)), None)
        standard = next((d for d in declarations if self._system_function(d)), None) if cuda is None and device else None
        if cuda is None and standard is None:
            return
        declaration = cuda or standard
        if role is Role.IDENTIFIER and declaration.kind in self.function_kinds:
            role = Role.CALL
        # std::sqrt in device code is the device function `sqrt`: named as the rules name it.
        reference = self._placed(cursor, declaration, role, (path, line, column, offset), function, cuda is not None)
        if reference is not None:
            self.files[path].references.append(reference)

    def _in_cuda_header(self, declaration) -> bool:
        path = self.locate.expansion(declaration.location)[0]
        return path is not None and self.env.is_cuda(path)

    def _system_function(self, declaration) -> bool:
        """A standard library function (std::sqrt) called in device code: a CUDA device function there."""
        return declaration.kind in self.function_kinds and declaration.location.is_in_system_header

    def _placed(self, cursor, declaration, role: Role, where: tuple, function: str, qualify: bool) -> Reference | None:
        """Where the reference is written (a macro argument is written too), or the macro use it comes through."""
        path, line, column, offset = where
        source = self.sources[path]
        name = declaration.spelling
        qualified = _qualified_name(self.cindex, declaration) if qualify else name
        spelled_path, spelled_line, spelled_column, spelled_offset = self.locate.spelling(cursor.location)
        if spelled_path == path and source[spelled_offset:spelled_offset + len(name.encode())] == name.encode():
            end = spelled_offset + len(name.encode())
            # `thrust::sort` starts at its qualifier; `std::sqrt` reaching the global ::sqrt is the name alone.
            qualifier = _QUALIFIER.search(source, max(0, spelled_offset - 200), spelled_offset) if qualified != name else None
            start = qualifier.start() if qualifier else spelled_offset
            written = re.sub(rb"\s+", b"", source[start:end]).decode("utf-8", "replace")
            if qualified != name:
                role = Role.QUALIFIED
            if written != qualified:  # `using namespace thrust; sort(...)`, `cg::sync`: seen, not renamed
                end = start
            return Reference(start, end, role, qualified if qualified != name else name,
                             spelled_line, spelled_column - (spelled_offset - start), function)
        # From a macro's body: the use starts with the macro's name. Else implicit (an operator, a launch's setup).
        macro = _IDENTIFIER.match(source, offset)
        if macro is None:
            return None
        macro = macro.group().decode()
        role = Role.QUALIFIED if qualified != name else role
        return Reference(offset, offset, role, qualified, line, column, function, macro)


def _problem(cindex, unit) -> str:
    """Why clang's view of the unit cannot be trusted: a fatal error, or a missing header that is not a stand-in's."""
    for diagnostic in unit.diagnostics:
        if diagnostic.severity >= cindex.Diagnostic.Fatal or (
                diagnostic.severity >= cindex.Diagnostic.Error and "file not found" in diagnostic.spelling):
            where = diagnostic.location
            at = f" ({os.path.basename(where.file.name)}:{where.line})" if where.file is not None else ""
            return f"clang: {diagnostic.spelling}{at}"
    return ""


def _undeclared(unit, walk: _Walk) -> None:
    for diagnostic in unit.diagnostics:
        if _UNDECLARED.match(diagnostic.spelling):
            path, offset = walk.written_offset(diagnostic.location)
            if path in walk.files:
                walk.files[path].undeclared.add(offset)


class _RangeList(ctypes.Structure):
    _fields_ = [("count", ctypes.c_uint), ("ranges", ctypes.c_void_p)]


def _skipped(cindex, unit, walk: _Walk) -> None:
    """The inactive preprocessor branches of each file (clang_getAllSkippedRanges has no binding)."""
    lib = cindex.conf.lib
    lib.clang_getAllSkippedRanges.argtypes = [cindex.TranslationUnit]
    lib.clang_getAllSkippedRanges.restype = ctypes.POINTER(_RangeList)
    lib.clang_disposeSourceRangeList.argtypes = [ctypes.POINTER(_RangeList)]
    found = lib.clang_getAllSkippedRanges(unit)
    try:
        ranges = ctypes.cast(found.contents.ranges, ctypes.POINTER(cindex.SourceRange))
        for index in range(found.contents.count):
            path, _, _, start = walk.locate.expansion(ranges[index].start)
            if path in walk.files:
                walk.files[path].skipped.append((start, walk.locate.expansion(ranges[index].end)[3]))
    finally:
        lib.clang_disposeSourceRangeList(found)


def _depends(cindex, unit, env: HeaderEnvironment) -> tuple[str, ...]:
    """The files the unit read that are neither CUDA's nor the system's: a change to one changes the result."""
    found = set()
    for inclusion in unit.get_includes():
        path = os.path.realpath(inclusion.include.name)
        if path in found or env.is_cuda(path):
            continue
        if not cindex.SourceLocation.from_offset(unit, inclusion.include, 0).is_in_system_header:
            found.add(path)
    return tuple(sorted(found))


def _parse(cindex, path: str, data: bytes, arguments: list[str], pch: Precompiled | None):
    # The detailed record holds the inactive #if branches (clang_getAllSkippedRanges).
    options = cindex.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD | _KEEP_GOING
    extra = ["-include-pch", pch.path] if pch is not None else []
    return cindex.Index.create().parse(path, args=arguments + extra, options=options,
                                       unsaved_files=[(path, data)])


def _refused(cindex, unit, pch: Precompiled | None) -> bool:
    """clang would not load the precompiled header (a header changed since it was built)."""
    return pch is not None and any(d.severity >= cindex.Diagnostic.Fatal and
                                   ("precompiled" in d.spelling or pch.path in d.spelling) for d in unit.diagnostics)


def _parsed(cindex, path: str, data: bytes, arguments: list[str], headers: tuple[str, ...], env: HeaderEnvironment):
    """The unit parsed with its precompiled header; one clang refuses (its headers changed since) is rebuilt once."""
    pch = precompiled(arguments, headers, env)
    try:
        unit = _parse(cindex, path, data, arguments, pch)
        if not _refused(cindex, unit, pch):
            return unit, pch
    except cindex.TranslationUnitLoadError:
        if pch is None:
            raise
    discard(pch)
    pch = precompiled(arguments, headers, env)
    return _parse(cindex, path, data, arguments, pch), pch


def _read(paths) -> dict[str, bytes]:
    found = {}
    for path in paths:
        try:
            found[path] = read_bytes(path)  # a regular file, capped
        except OSError:
            continue
    return found


def _cuda_macros(unit, env: HeaderEnvironment, pch: Precompiled | None) -> frozenset[str]:
    """The precompiled header's checked macros; without one, every name its CUDA headers #define."""
    if pch is not None:
        return pch.macros
    return macro_names(p for p in (os.path.realpath(i.include.name) for i in unit.get_includes()) if env.is_cuda(p))


def parse_unit(path: str, data: bytes, flags: list[str], env: HeaderEnvironment,
               project_headers: frozenset[str], prefix: Prefix | None = None) -> UnitNames:
    """The CUDA names of a unit, in its own file and in the `project_headers` (real paths) it includes;
    `prefix`: what its precompiled header holds (by default, what it includes from outside the project)."""
    cindex = load_cindex()
    arguments = env.arguments(flags)
    prefix = prefix or prefix_of(path, data, flags, env)
    try:
        unit, pch = _parsed(cindex, path, data, arguments, prefix.lines, env)
    except cindex.TranslationUnitLoadError as exc:
        return UnitNames({}, {}, frozenset(), (), f"clang could not parse it ({exc})")
    problem = _problem(cindex, unit)
    if problem:
        return UnitNames({}, {}, frozenset(), (), problem)
    depends = tuple(sorted(set(_depends(cindex, unit, env)) | set(prefix.files)))
    sources = {os.path.realpath(path): data, **_read(p for p in depends if p in project_headers)}
    walk = _Walk(cindex, unit, env, sources)
    files = walk.run()
    _undeclared(unit, walk)
    _skipped(cindex, unit, walk)
    return UnitNames(files, sources, _cuda_macros(unit, env, pch), depends)
