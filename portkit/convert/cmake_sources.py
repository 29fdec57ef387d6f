""".cu sources in CMake files for CMake's HIP language, which compiles only .hip files by itself: LANGUAGE HIP on
those named, and on those of a variable picked out when CMake runs."""
from __future__ import annotations

import re

from portkit.analyze.builds import CMAKE_ARGUMENT
from portkit.convert.build_text import Rewriter
from portkit.textutil import HASH_COMMENT, blank


# A file that enables the CUDA (or, converted, the HIP) language.
HIP_ENABLED = r"\benable_language\s*\(\s*(?:CUDA|HIP)\s*\)|\bproject\s*\([^)]*(?<![\w$])(?:CUDA|HIP)(?!\w)"
# Where a target's sources are in variables the file may not fill with literal names (a glob, a parent's list), its
# .cu files are picked out when CMake runs.
CU_SOURCES = "portkit_cu_sources"


# A command that fills a variable: set() and list() with the names (groups 1, 2), a glob, a directory's sources.
_SOURCE_LIST = re.compile(r"\b(?:(set)\s*\(|(list)\s*\(\s*(?:APPEND|PREPEND|INSERT)\s+|file\s*\(\s*GLOB\w*\s+"
                          r"|aux_source_directory\s*\(\s*\S+\s+)\s*(\w+)([^)]*)\)", re.I)


def literal_variables(code: str) -> set[str]:
    """The variables `code` fills only with names written out (`set(SRC a.cu b.cpp)`): mark_cu_sources gives their
    .cu files the HIP language where they are named."""
    written: dict[str, bool] = {}
    for match in _SOURCE_LIST.finditer(code):
        literal = bool(match.group(1) or match.group(2)) and not re.search(r"[$*<]", match.group(4))
        written[match.group(3)] = written.get(match.group(3), True) and literal
    return {name for name, literal in written.items() if literal}


def cu_sources_of(variables: list[str], indent: str) -> list[str]:
    """The lines that put the .cu files of `variables` in ${portkit_cu_sources} when CMake runs."""
    return [f"{indent}set({CU_SOURCES} {' '.join(variables)})",
            f'{indent}list(FILTER {CU_SOURCES} INCLUDE REGEX "\\\\.cu$")']


def picked_cu_sources(variables: list[str], indent: str) -> list[str]:
    """The lines that give the .cu files of `variables` the HIP language when CMake runs."""
    return [*cu_sources_of(variables, indent),
            f"{indent}set_source_files_properties(${{{CU_SOURCES}}} PROPERTIES LANGUAGE HIP)"]


# A target's sources: add_executable/add_library (not IMPORTED, ALIAS or INTERFACE: no sources) or target_sources;
# the call up to its first argument, the rest.
_TARGET_SOURCES = r"\b(?:add_executable|add_library|target_sources)\s*\(\s*[\w${}.-]+([^)]*)\)"
_NO_SOURCES = re.compile(r"\b(?:IMPORTED|ALIAS|INTERFACE)\b")
_SCOPES = {"PRIVATE", "PUBLIC", "INTERFACE"}
# A glob whose patterns name .cu files: the variable it fills.
_CU_GLOB = re.compile(r"\bfile\s*\(\s*GLOB\w*\s+(\w+)[^)]*\.cu\b[^)]*\)", re.I)
_NEXT_TARGET = re.compile(r"\b(?:add_executable|add_library|target_sources|cuda_add_\w+)\s*\(", re.I)


def pick_cu_sources_of_variables(rw: Rewriter) -> None:
    """CMake's CUDA language compiles a .cu file as CUDA whatever list holds it; HIP's takes only .hip files, so a
    target whose .cu sources are in a variable (`file(GLOB SRC *.cu)`, `add_library(x ${SRC})`) gets them picked out
    when CMake runs, as a FindCUDA target does, where the file enables the language or globs .cu files into the
    variable (a subdirectory's file; the project enables the language)."""
    code = blank(rw.text, HASH_COMMENT)
    literal = literal_variables(code)
    globbed = {match.group(1) for match in _CU_GLOB.finditer(code)}
    enabled = re.search(HIP_ENABLED, code, re.I) is not None

    def picked(match: re.Match) -> str:
        if _NO_SOURCES.search(match.group(1)):
            return match.group()
        variables = [word for word in CMAKE_ARGUMENT.findall(match.group(1)) if word not in _SCOPES
                     and re.fullmatch(r"\$\{\w+\}", word) and word[2:-1] not in literal
                     and (enabled or word[2:-1] in globbed)]
        if not variables:
            return match.group()
        lines = picked_cu_sources(variables, line_indent(match))
        following = match.string[match.end():]
        until = _NEXT_TARGET.search(following)
        if f"set({CU_SOURCES} " in following[:until.start() if until else len(following)]:
            return match.group()  # converted before, or a FindCUDA target's (of all its variables)
        return "\n".join([match.group(), *lines])

    rw.sub(_TARGET_SOURCES, picked, re.I)


# The architectures a target's HIP_ARCHITECTURES property holds (set from CMAKE_HIP_ARCHITECTURES, as for the HIP
# language, which passes them itself) as hipcc's options, for hipcc as the C++ compiler.
OFFLOAD_ARCH_OPTIONS = ("$<$<BOOL:$<TARGET_PROPERTY:HIP_ARCHITECTURES>>:"
                        "--offload-arch=$<JOIN:$<TARGET_PROPERTY:HIP_ARCHITECTURES>,;--offload-arch=>>")
# hipcc as CMake's C++ compiler: CMake passes `-x c++` for a .cu file of LANGUAGE CXX, the source's own
# option after it makes it HIP again.
CXX_LANGUAGE = f'LANGUAGE CXX COMPILE_OPTIONS "-xhip;{OFFLOAD_ARCH_OPTIONS}"'


def line_indent(match: re.Match) -> str:
    """The indentation of the line `match` starts on, for a line written after it in the same block."""
    line_start = match.string.rfind("\n", 0, match.start()) + 1
    return re.match(r"[ \t]*", match.string[line_start:]).group()


def mark_cu_sources(rw: Rewriter) -> None:
    """CMake compiles .cu files as CUDA; with HIP they need LANGUAGE HIP."""
    def add_property(match: re.Match) -> str:
        sources = re.findall(r"[\w./${}-]+\.cu\b", match.group())
        line = f"set_source_files_properties({' '.join(sources)} PROPERTIES LANGUAGE HIP)"
        if not sources or line in rw.text or line.replace("LANGUAGE HIP", CXX_LANGUAGE) in rw.text:
            return match.group()
        return f"{match.group()}\n{line_indent(match)}{line}"

    # Where sources are named: in the target, or in a variable (FindCUDA projects: set(SOURCES a.cu ...)).
    rw.sub(r"\b(?:add_executable|add_library|target_sources|set|list)\s*\([^)]*\)", add_property, re.I)
