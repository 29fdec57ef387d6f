"""Where convert writes CMake's CUDA language as its HIP language (convert/cmake_files.py, cmake_sources.py): the
language's variables and properties, generator expressions, LANGUAGE and check_language, and the .cu sources it gives
LANGUAGE HIP, named or in a variable. The patterns are convert's; scan lists each site where convert rewrites (PK409)."""
from __future__ import annotations

import re
from typing import Iterable

from portkit.analyze.builds import (CMAKE_ARGUMENT, CMAKE_CUDA_VARIABLE, CUDA_GENEX, FINDCUDA_CALL, FINDCUDA_TARGETS,
                                    LANGUAGE_GENEX, text_location)
from portkit.analyze.registry import Context, TextFile, analyzer
from portkit.codes import CMAKE_HIP_LANGUAGE, CODES
from portkit.model import Finding
from portkit.rules.build_facts import build_facts
from portkit.textutil import HASH_COMMENT, LineIndex, blank
from portkit.walk import CMAKE_SUFFIXES

_GENEX_CUDA = re.compile(r"(?<![\w-])CUDA(?![\w-])")
# A source's or target's language set to CUDA's, and a test for CUDA's compiler.
SOURCE_LANGUAGE = re.compile(r"\bLANGUAGE\s+CUDA\b")
CHECK_LANGUAGE = re.compile(r"\b(check)_language\s*\(\s*CUDA\s*\)", re.I)
# The target properties of the language where a command names them (CMAKE_CUDA_* are the variables').
LANGUAGE_PROPERTY = re.compile(r"\bCUDA_(STANDARD|ARCHITECTURES)\b")

# A file that enables the CUDA (or, converted, the HIP) language.
HIP_ENABLED = r"\benable_language\s*\(\s*(?:CUDA|HIP)\s*\)|\bproject\s*\([^)]*(?<![\w$])(?:CUDA|HIP)(?!\w)"
# Where a target's sources are in variables the file may not fill with literal names (a glob, a parent's list), its
# .cu files are picked out when CMake runs.
CU_SOURCES = "portkit_cu_sources"
# A command that fills a variable: set() and list() with the names (groups 1, 2), a glob, a directory's sources.
_SOURCE_LIST = re.compile(r"\b(?:(set)\s*\(|(list)\s*\(\s*(?:APPEND|PREPEND|INSERT)\s+|file\s*\(\s*GLOB\w*\s+"
                          r"|aux_source_directory\s*\(\s*\S+\s+)\s*(\w+)([^)]*)\)", re.I)
# A target's sources: add_executable/add_library (not IMPORTED, ALIAS or INTERFACE: no sources) or target_sources;
# the call up to its first argument, the rest.
TARGET_SOURCES = re.compile(r"\b(?:add_executable|add_library|target_sources)\s*\(\s*[\w${}.-]+([^)]*)\)", re.I)
_NO_SOURCES = re.compile(r"\b(?:IMPORTED|ALIAS|INTERFACE)\b")
_SCOPES = {"PRIVATE", "PUBLIC", "INTERFACE"}
# A glob whose patterns name .cu files: the variable it fills.
_CU_GLOB = re.compile(r"\bfile\s*\(\s*GLOB\w*\s+(\w+)[^)]*\.cu\b[^)]*\)", re.I)
_NEXT_TARGET = re.compile(r"\b(?:add_executable|add_library|target_sources|cuda_add_\w+)\s*\(", re.I)
# A command that names sources (a target's, or a variable's: FindCUDA projects' set(SOURCES a.cu ...)), and a .cu
# source it names.
NAMING_SOURCES = re.compile(r"\b(?:add_executable|add_library|target_sources|set|list)\s*\([^)]*\)", re.I)
CU_SOURCE = re.compile(r"[\w./${}-]+\.cu\b")


def included_module(path: str) -> bool:
    """Whether `path` is a CMake module (cmake/CMakeHelper.cmake) a project include()s: it runs in the scope of the
    file that includes it, which enables the language, so its targets' variables (a macro's arguments:
    `add_library(${NAME} ${SRCS})`) are picked out as that file's are."""
    return path.endswith(CMAKE_SUFFIXES)


def genex_arguments(expression: str, arguments: str) -> str:
    """CUDA -> HIP in a language generator expression's arguments. The compiler ids of *_LANG_AND_ID stay: NVIDIA is
    nvcc's, so `$<COMPILE_LANG_AND_ID:HIP,NVIDIA>` is false under hipcc (clang), and what it guards, written for nvcc,
    stays off there, as `$<HIP_COMPILER_ID:NVIDIA>` does; the test gets a PK403 marker (builds.nvcc_value_tests)."""
    return _GENEX_CUDA.sub("HIP", arguments)


def literal_variables(code: str) -> set[str]:
    """The variables `code` fills only with names written out (`set(SRC a.cu b.cpp)`): their .cu files are given the
    HIP language where they are named."""
    written: dict[str, bool] = {}
    for match in _SOURCE_LIST.finditer(code):
        literal = bool(match.group(1) or match.group(2)) and not re.search(r"[$*<]", match.group(4))
        written[match.group(3)] = written.get(match.group(3), True) and literal
    return {name for name, literal in written.items() if literal}


class SourceVariables:
    """Which variables of a target's sources (a match of TARGET_SOURCES) have their .cu files picked out when CMake
    runs: CMake's CUDA language compiles a .cu file as CUDA whatever list holds it, HIP's only a .hip file. Where the
    file enables the language, or globs .cu files into the variable (a subdirectory's file; the project enables it)."""

    def __init__(self, code: str, enabled: bool = False):
        """`code`: the file, its comments blanked; `enabled`: whether something else enables the language in it."""
        self.literal = literal_variables(code)
        self.globbed = {match.group(1) for match in _CU_GLOB.finditer(code)}
        self.enabled = enabled or re.search(HIP_ENABLED, code, re.I) is not None

    def picked(self, call: re.Match) -> list[str]:
        """The variables of `call` whose .cu files are picked out, none where the lines that do it follow already."""
        if _NO_SOURCES.search(call.group(1)):
            return []
        variables = [word for word in CMAKE_ARGUMENT.findall(call.group(1)) if word not in _SCOPES
                     and re.fullmatch(r"\$\{\w+\}", word) and word[2:-1] not in self.literal
                     and (self.enabled or word[2:-1] in self.globbed)]
        following = call.string[call.end():]
        until = _NEXT_TARGET.search(following)
        if f"set({CU_SOURCES} " in following[:until.start() if until else len(following)]:
            return []  # converted before, or a FindCUDA target's (of all its variables)
        return variables


def source_language_line(sources: list[str]) -> str:
    """The line that gives .cu `sources` the HIP language, added after the command that names them."""
    return f"set_source_files_properties({' '.join(sources)} PROPERTIES LANGUAGE HIP)"


def _given_language(sources: list[str], code: str) -> bool:
    """Whether the file gives `sources` a language itself (CUDA's, which becomes HIP's, or HIP's already)."""
    return source_language_line(sources).replace("LANGUAGE HIP", "LANGUAGE ") in code


def _findcuda_enables(code: str) -> bool:
    """Whether convert enables the HIP language for a FindCUDA target or cuda_compile of .cu sources or variables."""
    return any(call.group().split("(")[0].strip().lower() in (*FINDCUDA_TARGETS, "cuda_compile")
               and re.search(r"\.cu\b|\$\{", call.group(1)) for call in FINDCUDA_CALL.finditer(code))


def _sites(code: str, module: bool) -> Iterable[tuple[int, str, str]]:
    """(offset, as written, what convert writes) of each site of the CUDA language convert writes as HIP's;
    `module`: the file is an included module (included_module)."""
    facts = build_facts()
    for use in CMAKE_CUDA_VARIABLE.finditer(code):
        if facts.cmake_cuda_only(use.group(1)) is None:
            yield use.start(), use.group(), f"convert writes CMAKE_HIP_{use.group(1)}"
    for use in LANGUAGE_PROPERTY.finditer(code):
        yield use.start(), use.group(), f"convert writes HIP_{use.group(1)}"
    for genex in CUDA_GENEX.finditer(code):
        if genex.group(1) in facts.cmake_hip_genexes:
            yield genex.start(), genex.group(), f"convert writes $<HIP_{genex.group()[len('$<CUDA_'):]}"
    for genex in LANGUAGE_GENEX.finditer(code):
        hip = genex_arguments(genex.group(1), genex.group(2))
        if hip != genex.group(2):
            yield genex.start(), genex.group(), f"convert writes $<{genex.group(1)}:{hip}>"
    for pattern, hip in ((SOURCE_LANGUAGE, "LANGUAGE HIP"), (CHECK_LANGUAGE, "check_language(HIP)")):
        yield from ((use.start(), use.group(), f"convert writes {hip}") for use in pattern.finditer(code))
    for command in NAMING_SOURCES.finditer(code):
        sources = CU_SOURCE.findall(command.group())
        if sources and not _given_language(sources, code):
            at = command.start() + command.group().index(sources[0])
            yield at, " ".join(sources), (f"CMake's HIP language compiles .cu files given its LANGUAGE only: convert "
                                          f"writes {source_language_line(sources)} after the command")
    variables = SourceVariables(code, module or _findcuda_enables(code))
    for call in TARGET_SOURCES.finditer(code):
        for variable in variables.picked(call):
            yield (call.start(1) + call.group(1).index(variable), variable,
                   f"CMake's HIP language compiles .cu files given its LANGUAGE only: convert writes the lines that "
                   f"pick out the .cu files of {variable} when CMake runs (list(FILTER {CU_SOURCES} ...)) and give "
                   f"them LANGUAGE HIP")


@analyzer("cmake", codes=(CMAKE_HIP_LANGUAGE,))
def analyze_cmake_language(file: TextFile, context: Context) -> Iterable[Finding]:
    module = included_module(file.path)
    if "CUDA" not in file.text and ".cu" not in file.text and not module:
        return
    code = blank(file.text, HASH_COMMENT)
    lines = LineIndex(file.text)
    found = CODES[CMAKE_HIP_LANGUAGE]
    for offset, written, advice in sorted(set(_sites(code, module))):
        span, position = text_location(lines, offset, len(written.encode()))
        yield Finding(path=file.path, position=position, code=found.code, name=written, severity=found.severity,
                      message=f"{found.summary}: {written}", advice=advice, span=span)
