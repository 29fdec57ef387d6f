""".cu sources in CMake files for CMake's HIP language, which compiles only .hip files by itself: LANGUAGE HIP on
those named, and on those of a variable picked out when CMake runs."""
from __future__ import annotations

import re

from portkit.analyze.cmake_language import (CU_SOURCE, CU_SOURCES, NAMING_SOURCES, TARGET_SOURCES, SourceVariables,
                                            source_language_line)
from portkit.convert.build_text import Rewriter
from portkit.textutil import HASH_COMMENT, blank


def pick_cu_sources_of_variables(rw: Rewriter, module: bool = False) -> None:
    """A target whose .cu sources are in a variable (`file(GLOB SRC *.cu)`, `add_library(x ${SRC})`) gets them picked
    out when CMake runs, as a FindCUDA target does (SourceVariables says which); `module`: the file is an included
    module (analyze/cmake_language.py's included_module), whose includer enables the language."""
    variables = SourceVariables(blank(rw.text, HASH_COMMENT), module)

    def picked(match: re.Match) -> str:
        found = variables.picked(match)
        return "\n".join([match.group(), *picked_cu_sources(found, line_indent(match))]) if found else match.group()

    rw.sub(TARGET_SOURCES, picked)


def cu_sources_of(variables: list[str], indent: str) -> list[str]:
    """The lines that put the .cu files of `variables` in ${portkit_cu_sources} when CMake runs."""
    return [f"{indent}set({CU_SOURCES} {' '.join(variables)})",
            f'{indent}list(FILTER {CU_SOURCES} INCLUDE REGEX "\\\\.cu$")']


def picked_cu_sources(variables: list[str], indent: str) -> list[str]:
    """The lines that give the .cu files of `variables` the HIP language when CMake runs."""
    return [*cu_sources_of(variables, indent),
            f"{indent}set_source_files_properties(${{{CU_SOURCES}}} PROPERTIES LANGUAGE HIP)"]


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
    """CMake compiles .cu files as CUDA; with HIP they need LANGUAGE HIP: where sources are named, in the target or in
    a variable (FindCUDA projects: set(SOURCES a.cu ...))."""
    def add_property(match: re.Match) -> str:
        sources = CU_SOURCE.findall(match.group())
        line = source_language_line(sources)
        if not sources or line in rw.text or line.replace("LANGUAGE HIP", CXX_LANGUAGE) in rw.text:
            return match.group()
        return f"{match.group()}\n{line_indent(match)}{line}"

    rw.sub(NAMING_SOURCES, add_property)
