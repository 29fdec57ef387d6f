"""Link libraries named in CMake files, Makefiles, shell build scripts and autoconf's configure.ac, and FindCUDA's
variables and commands used in CMake files."""
from __future__ import annotations

import re
from typing import Iterable

from portkit.analyze.findings import rule_finding
from portkit.analyze.registry import Context, TextFile, analyzer
from portkit.codes import (CODES, CUDA_PATH, FIND_CUDA, FINDCUDA_COMMAND, FINDCUDA_VARIABLE, GPU_ARCHITECTURE, NVCC_FLAG,
                           RULE_CODES, TRY_CUDA_SOURCE)
from portkit.model import Finding, Position, Span
from portkit.rules import Rule, RuleDatabase, Target
from portkit.rules.build_facts import BuildFacts, FindCudaCommand, FindCudaVariable, build_facts
from portkit.textutil import LineIndex, blank

# Each pattern starts with its literal text and looks behind only after it: a pattern that starts with `\b` or a
# lookbehind is tried at every offset, one with a literal skips to each at C speed (each of the four over the 1M-line
# scale tree's 1,405 CMake files and Makefiles: 35-37 ms -> 2-12 ms of CPU).
_CMAKE_TARGET = re.compile(r"(?:CUDA|NCCL)::(?<!\w(?:CUDA|NCCL)::)(\w+)")
_LINK_FLAG = re.compile(r"-l(?<![\w-]-l)(\w+)")
_CMAKE_LINK_CALL = re.compile(r"target_link_libraries(?<!\wtarget_link_libraries)\s*\(([^)]*)\)", re.S)
_WORD = re.compile(r"[\w:.+-]+")
_SM = re.compile(r"(?:sm|compute)_(?<!\wsm_)(?<!\wcompute_)(\d{2,3})[af]?\b")
# autoconf's library tests: `AC_CHECK_LIB([cudart], [cudaMalloc], ...)`, `AC_SEARCH_LIBS([cuInit], [cuda nvcuda])`:
# groups `library` and `function` (AC_CHECK_LIB's), `searched` and `libraries` (AC_SEARCH_LIBS' function and list).
AUTOCONF_LIBRARY_TEST = re.compile(r"AC_CHECK_LIB(?<!\wAC_CHECK_LIB)\(\s*\[?(?P<library>\w+)\]?\s*,\s*\[?(?P<function>\w+)\]?"
                                   r"|AC_SEARCH_LIBS(?<!\wAC_SEARCH_LIBS)\(\s*\[?(?P<searched>\w+)\]?\s*,\s*\[?(?P<libraries>[\w \t]+)\]?")
_CMAKE_ARCHS = re.compile(r"CUDA_ARCHITECTURES\s+\"?([\d;\s]+(?:-real|-virtual)?)")


# Where a make or shell variable holds library names: `-l$(LIB)`, `-l${LIB}`, `-l$LIB`, `$(LIBS:%=-l%)`,
# `$(addprefix -l,$(LIBS))`, `$(patsubst %,-l%,$(LIBS))`, `$(foreach lib,$(LIBS),-l$(lib))` (caffe). Group `name`,
# `listed`, `prefixed` or `each`.
LIBRARY_VARIABLE_USE = re.compile(r"-l(?<![\w-]-l)\$[({]?(?P<name>\w+)|\$[({](?P<listed>\w+):%=-l%[)}]"
                                  r"|\$\((?:addprefix[ \t]+-l,|patsubst[ \t]+%,-l%,)[ \t]*\$[({](?P<prefixed>\w+)[)}]"
                                  r"|\$\(foreach[ \t]+(?P<loop>\w+)[ \t]*,[ \t]*\$[({](?P<each>\w+)[)}][ \t]*,"
                                  r"[^\n]*?-l\$[({](?P=loop)[)}]")
# `NAME = value`, `override NAME += value`, `export NAME ?= value`, a script's `NAME="value"`, on one line: the
# assignment up to the value, the name, the value.
ASSIGNMENT = re.compile(r"(?m)^([ \t]*(?:(?:override|export)[ \t]+)*(\w+)[ \t]*(?:\+=|::?=|\?=|=)[ \t]*)([^\n#]*)")
# A library name in such a value (`cudart`, not a path, a flag or a variable).
LIBRARY_NAME = re.compile(r"(?<![\w$(){}/.+-])[A-Za-z][\w+-]*(?![\w/.+-])")


def library_variables(text: str) -> set[str]:
    """The variables whose values a build file links as libraries (`text`: its comments blanked)."""
    return {m.group("name") or m.group("listed") or m.group("prefixed") or m.group("each")
            for m in LIBRARY_VARIABLE_USE.finditer(text)}


def _assigned_libraries(text: str) -> list[tuple[int, str]]:
    """(offset, word) of each word assigned to a variable the file links as libraries."""
    used = library_variables(text)
    return [(m.start(3) + w.start(), w.group()) for m in ASSIGNMENT.finditer(text) if used and m.group(2) in used
            for w in LIBRARY_NAME.finditer(m.group(3))]


# The targets a CMake file defines itself, IMPORTED or built: add_library(NAME ...), add_executable(NAME ...). A word of
# target_link_libraries naming one is that target, not a library of the rules' (a project's `add_library(nccl UNKNOWN
# IMPORTED)` from its find_library and find_path: those convert rewrites, and the target keeps its name).
_CMAKE_DEFINED_TARGET = re.compile(r"add_(?<!\wadd_)(?:library|executable)\s*\(\s*([\w.+-]+)", re.I)
# find_library(VAR NAMES nccl ...), find_path(VAR NAMES nccl.h ...), find_file(...): the command (group 1) and the
# arguments after the variable (group 2).
CMAKE_FIND_CALL = re.compile(r"find_(?<!\wfind_)(library|path|file)\s*\(\s*\w+([^)]*)\)", re.I)
# A header's name among such arguments: `nccl.h`, `cudnn/cudnn.h`, not a path made of variables.
CMAKE_HEADER_WORD = re.compile(r"(?<![\w/.${}+-])[A-Za-z_][\w/.+-]*\.(?:h|hh|hpp|hxx|cuh)(?![\w/.+-])")


def defined_targets(text: str) -> set[str]:
    """The targets a CMake file defines (`text`: its comments blanked)."""
    return {m.group(1) for m in _CMAKE_DEFINED_TARGET.finditer(text)}


def found_headers(text: str) -> list[tuple[int, str]]:
    """(offset, name) of each header a CMake file's find_path or find_file looks for (`text`: its comments blanked),
    whose directory the build then includes: a CUDA header's is where its HIP header is now."""
    return [(call.start(2) + word.start(), word.group()) for call in CMAKE_FIND_CALL.finditer(text)
            if call.group(1).lower() != "library" for word in CMAKE_HEADER_WORD.finditer(call.group(2))]


# A library's file named by itself or at the end of a path (`IMPORTED_LOCATION /usr/lib/libnccl.so.2`,
# `${NCCL_HOME}/lib/libnccl.a`): group `library`, its name as -l names it. The literal first, as those above.
LIBRARY_FILE = re.compile(r"lib(?<![\w.+-]lib)(?P<library>[A-Za-z_][\w+-]*?)\.(?:so(?:\.\d+)*|a|dylib)(?![\w.+-])")


def library_file_advice(rule: Rule, target: Target) -> str:
    """What a build file naming a CUDA library's file (LIBRARY_FILE) needs: the file is not on a ROCm machine."""
    resolved = rule.resolve(target)
    if not rule.hip or not resolved.hip:
        return f"CUDA's {rule.cuda} library by its file, which ROCm does not have: {resolved.advice or 'drop it'}"
    target_name = f", or link its CMake target {rule.hip_cmake}" if rule.hip_cmake else ""
    return (f"CUDA's {rule.cuda} library by its file, which a ROCm machine does not have: use HIP's {resolved.hip} "
            f"(lib{resolved.hip} in ROCm's lib directory, /opt/rocm/lib; CMake's find_library(<VAR> {resolved.hip}) "
            f"finds it{target_name}).")


def library_files(text: str, rules: RuleDatabase) -> list[tuple[int, str, Rule]]:
    """(offset, file as written, rule) of each CUDA library's file a build file names (`text`: its comments blanked)."""
    if "lib" not in text:
        return []
    found = [(m.start(), m.group(), rules.link(m.group("library"))) for m in LIBRARY_FILE.finditer(text)]
    return [(offset, written, rule) for offset, written, rule in found if rule is not None]


def link_names(file_type: str, text: str) -> list[tuple[int, str]]:
    """(offset, name) of each library the build file links, as the rules name them (`text`: its comments blanked)."""
    found = [(m.start(1), m.group(1)) for m in _LINK_FLAG.finditer(text)]
    if file_type == "make":
        found += _assigned_libraries(text)
    if file_type == "autoconf":
        for test in AUTOCONF_LIBRARY_TEST.finditer(text):
            group = "library" if test.group("library") else "libraries"
            found += [(test.start(group) + w.start(), w.group()) for w in re.finditer(r"\w+", test.group(group))]
    if file_type == "cmake":
        found += [(m.start(), m.group()) for m in _CMAKE_TARGET.finditer(text)]
        own = defined_targets(text)
        for call in _CMAKE_LINK_CALL.finditer(text):
            for word in _WORD.finditer(call.group(1)):
                if "::" not in word.group() and word.group() not in own:
                    found.append((call.start(1) + word.start(), word.group()))
        found += [(call.start(2) + word.start(), word.group()) for call in CMAKE_FIND_CALL.finditer(text)
                  if call.group(1).lower() == "library" for word in _WORD.finditer(call.group(2))]
    return sorted(set(found))


def architectures(file_type: str, text: str) -> list[tuple[int, str]]:
    """(offset, compute capability) of each NVIDIA GPU architecture the build targets (`text`: its comments blanked)."""
    found = [(m.start(), m.group(1)) for m in _SM.finditer(text)]
    if file_type == "cmake":
        for match in _CMAKE_ARCHS.finditer(text):
            found += [(match.start(1) + n.start(), n.group()) for n in re.finditer(r"\d{2,3}", match.group(1))]
    return sorted(set(found))


# A use of a variable FindCUDA sets: `${NAME}`, or the bare name, as if() and list() read it (not `$ENV{NAME}`, another
# variable). Each pattern starts with its literal text, as those above.
FINDCUDA_USES = (re.compile(r"\$\{(?P<name>CUDA(?:Toolkit)?_\w+)\}"),
                 re.compile(r"(?P<name>CUDA(?<![\w{]CUDA)(?:Toolkit)?_\w+)"))
# The variables a CMake file sets itself: those are the project's, whatever their names.
_ASSIGNED = re.compile(r"\b(?:set|option|find_library|find_path|find_file|find_program)\s*\(\s*(\w+)"
                       r"|\blist\s*\(\s*(?:APPEND|PREPEND|INSERT|REMOVE_\w+)\s+(\w+)", re.I)


# The commands that write a variable after other arguments, the variable (group 1): string()'s that parse or build a
# string (`string(REGEX MATCH "^[0-9]+\\.[0-9]+" CUDA_VERSION "${CMAKE_CUDA_COMPILER_VERSION}")` sets the project's
# own CUDA_VERSION from another string), math(EXPR), get_filename_component, file(STRINGS|READ).
_ARGUMENT = r'(?:"(?:[^"\\]|\\.)*"|[^\s"()]+)'
_WRITTEN = re.compile(rf"\bstring\s*\(\s*(?:REGEX\s+(?:MATCH|MATCHALL)\s+{_ARGUMENT}|REGEX\s+REPLACE\s+{_ARGUMENT}\s+{_ARGUMENT}"
                      rf"|REPLACE\s+{_ARGUMENT}\s+{_ARGUMENT}|(?:STRIP|TOLOWER|TOUPPER|LENGTH|MAKE_C_IDENTIFIER)\s+{_ARGUMENT}"
                      rf"|JOIN\s+{_ARGUMENT}|CONCAT|APPEND|PREPEND)\s+(\w+)"
                      rf"|\bmath\s*\(\s*EXPR\s+(\w+)|\bget_filename_component\s*\(\s*(\w+)"
                      rf"|\bfile\s*\(\s*(?:STRINGS|READ)\s+{_ARGUMENT}\s+(\w+)", re.I)


# find_package() of FindCUDA (CUDA) or FindCUDAToolkit, the module.
_FINDS_CUDA = re.compile(r"\bfind_package\s*\(\s*(CUDAToolkit|CUDA)\b", re.I)


def assigned_variables(text: str, original: str | None = None) -> set[str]:
    """The variables a CMake file sets (`text`: its comments blanked), but one of a CUDA module's that find_package(hip)
    has a variable for where the file finds that module too (`original`: the file as the project wrote it, comments
    blanked; `text` where None): colmap sets CUDA_FOUND after find_package(CUDAToolkit), as find_package(CUDA) does in
    its other branch, and tests it after both; made hip_FOUND everywhere, both branches are HIP's."""
    assigned = ({m.group(1) or m.group(2) for m in _ASSIGNED.finditer(text)}
                | {next(name for name in m.groups() if name) for m in _WRITTEN.finditer(text)})
    modules = {"FindCUDAToolkit" if m.group(1).lower() == "cudatoolkit" else "FindCUDA"
               for m in _FINDS_CUDA.finditer(text if original is None else original)}
    facts = build_facts()
    return {name for name in assigned if (variable := facts.findcuda_variable(name)) is None or not variable.hip
            or variable.module not in modules}


# A command whose next argument is the variable it sets (as _ASSIGNED).
_ASSIGNING = re.compile(r"(?:\b(?:set|option|find_library|find_path|find_file|find_program)\s*\("
                        r"|\blist\s*\(\s*(?:APPEND|PREPEND|INSERT|REMOVE_\w+))\s*\Z", re.I)


def findcuda_variable(use: re.Match, assigned: set[str]) -> FindCudaVariable | None:
    """The FindCUDA variable a match of FINDCUDA_USES is a use of, or None: another name, one the file sets, or the
    name a command sets (`set(CUDA_FOUND ON)` stays the project's, where its reads are find_package(hip)'s)."""
    name = use.group("name")
    if name in assigned or _ASSIGNING.search(use.string, max(0, use.start() - 80), use.start()):
        return None
    return build_facts().findcuda_variable(name)


def is_expanded(use: re.Match) -> bool:
    """Whether a match of FINDCUDA_USES is `${NAME}`, not the bare name."""
    return use.group() != use.group("name")


# A call of a command of FindCUDA's (rules/_build.yaml's findcuda_commands; cuda_add_library and cuda_add_executable):
# its name and arguments. Each of CMake's arguments is a quoted string or a word.
FINDCUDA_CALL = re.compile(r"(?:cuda_(?<!\wcuda_)|find_cuda_(?<!\wfind_cuda_))\w+\s*\(([^)]*)\)", re.I)
CMAKE_ARGUMENT = re.compile(r'"(?:[^"\\]|\\.)*"|[^\s"]+')
# FindCUDA's commands for a target of .cu and host sources, which convert writes as add_* (not in rules/_build.yaml).
FINDCUDA_TARGETS = ("cuda_add_executable", "cuda_add_library")
_DEFINED = re.compile(r"\b(?:function|macro)\s*\(\s*(\w+)", re.I)


def defined_commands(text: str) -> set[str]:
    """The commands a CMake file defines, function() or macro(), in lower case (`text`: its comments blanked)."""
    return {m.group(1).lower() for m in _DEFINED.finditer(text)}


def findcuda_command(call: re.Match, defined: set[str]) -> FindCudaCommand | None:
    """The FindCUDA command a match of FINDCUDA_CALL calls, or None: another command, or one the file defines."""
    name = call.group().split("(")[0].strip().lower()
    return None if name in defined else build_facts().findcuda_commands.get(name)


def command_arguments(call: re.Match) -> list[str]:
    """The arguments of a call matched by FINDCUDA_CALL."""
    return CMAKE_ARGUMENT.findall(call.group(1))


# A variable of CMake's CUDA language, CMAKE_CUDA_<NAME>: group 1, the name (literal first, as those above).
CMAKE_CUDA_VARIABLE = re.compile(r"CMAKE_CUDA_(?<!\wCMAKE_CUDA_)(\w+)")


def cuda_only_genex(facts: BuildFacts, name: str) -> str | None:
    """The advice for a $<CUDA_<NAME>> generator expression convert keeps (`$<CUDA_COMPILER_VERSION>`: empty in a HIP
    project, where HIP's would be clang's version, not a CUDA release), None for one it writes as HIP's or leaves."""
    return None if name in facts.cmake_hip_genexes else facts.cmake_cuda_only(name)


def _cmake_cuda_only(file: TextFile, code: str, lines: LineIndex[str]) -> Iterable[Finding]:
    """CMAKE_CUDA_<NAME> variables CMake's HIP language does not define, and $<CUDA_<NAME>> generator expressions of
    such a name (convert keeps them, with a marker)."""
    found = CODES[NVCC_FLAG]
    uses = [(use, build_facts().cmake_cuda_only(use.group(1))) for use in CMAKE_CUDA_VARIABLE.finditer(code)]
    uses += [(use, cuda_only_genex(build_facts(), use.group(1))) for use in CUDA_GENEX.finditer(code)]
    for use, advice in uses:
        if advice is not None:
            span, position = text_location(lines, use.start(), len(use.group()))
            yield Finding(path=file.path, position=position, code=NVCC_FLAG, name=use.group(), severity=found.severity,
                          message=f"{found.summary}: {use.group()}", advice=advice, span=span)


# A comparison in if(): the two operands (a word or a quoted string) and the operator between them.
_COMPARED = r'"?(?:\$\{{)?{left}\}}?"?\s+(?P<{operator}>STREQUAL|MATCHES|EQUAL)\s+"?{right}"?'
# A generator expression of the CUDA language's (`$<CUDA_COMPILER_ID:NVIDIA,Clang>`): <NAME> (group 1), the values
# it compares with (group 2, where it compares). The literal first, as those above.
CUDA_GENEX = re.compile(r"\$<CUDA_(\w+)(?::([^<>]*))?>")
# A language generator expression: which one (group 1) and its arguments (group 2): for *_LANG_AND_ID the language,
# then the compiler ids.
LANGUAGE_GENEX = re.compile(r"\$<((?:COMPILE|LINK)_LANG(?:UAGE|_AND_ID)):([^>]*)>")


def _holds(operator: str, left: str, right: str) -> bool:
    """Whether if()'s `left OPERATOR right` holds (MATCHES: `right` a regex; one Python cannot read holds for none)."""
    if operator != "MATCHES":
        return left == right
    try:
        return re.search(right, left) is not None
    except re.error:
        return False


def _compared(operator: str, variable_first: bool, operand: str, value: str) -> bool:
    """Whether a comparison of the variable, holding `value`, with `operand` holds, the variable on either side."""
    return _holds(operator, value, operand) if variable_first else _holds(operator, operand, value)


def nvcc_value_tests(code: str) -> Iterable[tuple[int, str, str]]:
    """(offset, the test as written, advice) of each test of a CMAKE_CUDA_<NAME> variable, or of its generator
    expression, that holds for a value nvcc gives it (`CMAKE_CUDA_COMPILER_ID STREQUAL "NVIDIA"`, `MATCHES
    "NVIDIA|Clang"`, `$<CUDA_COMPILER_ID:NVIDIA>`): false once the variable is HIP's, or true for clang as well, with the
    advice for which (`code`: comments blanked)."""
    for name, values in build_facts().cmake_nvcc_values.items():
        variable = f"CMAKE_CUDA_{name}"
        if variable in code:
            value = r'(?P<{}>[^\s"()]+)'
            test = re.compile(_COMPARED.format(left=variable, operator="after", right=value.format("value")) + "|"
                              + _COMPARED.format(left=value.format("before"), operator="operator",
                                                 right=rf"(?:\$\{{)?{variable}\}}?"))
            for match in test.finditer(code):
                operator, first = (match.group("after"), True) if match.group("after") else (match.group("operator"), False)
                operand = match.group("value") or match.group("before")
                if any(_compared(operator, first, operand, nvcc) for nvcc in values.nvcc):
                    hip = _compared(operator, first, operand, values.hip)
                    yield match.start(), " ".join(match.group().split()), values.advice_hip if hip else values.advice
        for genex in CUDA_GENEX.finditer(code):
            compared = genex.group(2).split(",") if genex.group(1) == name and genex.group(2) else []
            if any(nvcc in compared for nvcc in values.nvcc):
                yield genex.start(), genex.group(), values.advice_hip if values.hip in compared else values.advice
        if name == "COMPILER_ID":  # `$<COMPILE_LANG_AND_ID:CUDA,NVIDIA>` tests the same id
            for genex in LANGUAGE_GENEX.finditer(code):
                language, *compared = [word.strip() for word in genex.group(2).split(",")]
                if genex.group(1).endswith("_AND_ID") and language == "CUDA" and any(n in compared for n in values.nvcc):
                    yield genex.start(), genex.group(), values.advice_hip if values.hip in compared else values.advice


_CONDITION = re.compile(r"\b(?:elseif|if|while)\s*\(", re.I)


def _conditions(code: str) -> Iterable[tuple[int, int]]:
    """The (start, end) of each if(), elseif() and while() condition in `code` (comments blanked): its parentheses
    nest."""
    for call in _CONDITION.finditer(code):
        depth, at = 1, call.end()
        while depth and at < len(code):
            depth += {"(": 1, ")": -1}.get(code[at], 0)
            at += 1
        yield call.end(), at - 1


def cuda_version_tests(code: str) -> Iterable[tuple[int, int, str, str]]:
    """(start, end, the variable, the test as written) of each comparison of a CUDA version in a condition that an
    unset version passes (`CUDA_VERSION VERSION_LESS 10.2`, `NOT CUDA_VERSION VERSION_GREATER 9.0`), as it does under
    HIP, but not one written `(VAR AND ...)` already (convert's own)."""
    tests = build_facts().cuda_version_tests
    if "VERSION" not in code:
        return
    operators = "|".join(tests.operators)
    comparison = re.compile(rf'(?P<not>\bNOT\s+)?(?<![\w$])(?:"\$\{{(?P<expanded>{tests.variables})\}}"|(?P<name>{tests.variables}))'
                            rf'\s+(?P<operator>{operators})\s+(?:"[^"]*"|[^\s()"]+)')
    for start, end in _conditions(code):
        for test in comparison.finditer(code, start, end):
            variable = test.group("expanded") or test.group("name")
            guarded = re.search(rf"\(\s*{re.escape(variable)}\s+AND\s+\Z", code[max(start, test.start() - 200):test.start()])
            if not guarded and tests.passes_unset(bool(test.group("not")), test.group("operator")):
                yield test.start(), test.end(), variable, " ".join(test.group().split())


_TRY_CALL = re.compile(r"\btry_(?:run|compile)\s*\(([^()]*)\)", re.I)
_CU_EXTENSION = re.compile(r'(?<=[\w}])\.cu(?=["\s]|\Z)')


def try_cuda_sources(code: str) -> Iterable[tuple[int, str, list[int]]]:
    """(offset, the call's command and source argument, the offsets of each `.cu` extension) of each try_run() or
    try_compile() that builds a .cu source: one it names (there and wherever the file names that path: the file(WRITE) that writes it), or
    one a set() of the variable it names gives (`code`: comments blanked)."""
    for call in _TRY_CALL.finditer(code):
        extensions, source = [], ""
        for argument in CMAKE_ARGUMENT.finditer(call.group(1)):
            named = re.fullmatch(r'"?\$\{(\w+)\}"?', argument.group())
            sets = re.finditer(rf"\bset\s*\(\s*{named.group(1)}\s+([^()]*)\)", code, re.I) if named else ()
            found = [a.start(1) + e.start() for a in sets for e in _CU_EXTENSION.finditer(a.group(1))]
            if _CU_EXTENSION.search(argument.group()):  # the path as written, wherever the file names it (file(WRITE))
                path = re.escape(argument.group().strip('"'))
                found += [m.end() - len(".cu") for m in re.finditer(rf'(?<![\w/.}}]){path}(?=["\s)]|\Z)', code)]
            if found:
                extensions += found
                source = source or argument.group()
        if extensions:
            yield call.start(), f"{call.group().split('(')[0].strip()}(... {source})", sorted(set(extensions))


def _try_cuda_sources(file: TextFile, code: str, lines: LineIndex[str]) -> Iterable[Finding]:
    """try_run() and try_compile() of a .cu source (convert gives it HIP's extension, with a marker)."""
    found = CODES[TRY_CUDA_SOURCE]
    for offset, call, _ in try_cuda_sources(code):
        span, position = text_location(lines, offset, len(call.encode()))
        yield Finding(path=file.path, position=position, code=TRY_CUDA_SOURCE, name=call, severity=found.severity,
                      message=f"{found.summary}: {call}", advice=found.fix, span=span)


def _cuda_version_tests(file: TextFile, code: str, lines: LineIndex[str]) -> Iterable[Finding]:
    """Tests of a CUDA version an unset one passes (convert makes them false where it is unset, with a marker)."""
    found = CODES[NVCC_FLAG]
    for start, end, _, test in cuda_version_tests(code):
        span, position = text_location(lines, start, len(code[start:end].encode()))
        yield Finding(path=file.path, position=position, code=NVCC_FLAG, name=test, severity=found.severity,
                      message=f"{found.summary}: {test}", advice=build_facts().cuda_version_tests.advice, span=span)


def _nvcc_value_tests(file: TextFile, code: str, lines: LineIndex[str]) -> Iterable[Finding]:
    """Tests of CMAKE_CUDA_<NAME> against nvcc's value (convert writes CMAKE_HIP_<NAME>, with a marker)."""
    found = CODES[NVCC_FLAG]
    for offset, test, advice in nvcc_value_tests(code):
        span, position = text_location(lines, offset, len(test.encode()))
        yield Finding(path=file.path, position=position, code=NVCC_FLAG, name=test, severity=found.severity,
                      message=f"{found.summary}: {test}", advice=advice, span=span)


def text_location(lines: LineIndex[str], offset: int, length: int) -> tuple[Span, Position]:
    """The byte span and the 1-based position of `length` bytes at character `offset` of a text file."""
    start = len(lines.text[:offset].encode())
    return Span(start, start + length), lines.position(offset)


def _findcuda_uses(file: TextFile, code: str, lines: LineIndex[str], context: Context) -> Iterable[Finding]:
    """Uses of FindCUDA's variables: the HIP library a library variable becomes, find_package(hip)'s variable of the
    same meaning, or (the rest) a marker convert writes."""
    if "CUDA_" not in code and "CUDAToolkit_" not in code:
        return
    assigned = assigned_variables(code)
    for use in (use for pattern in FINDCUDA_USES for use in pattern.finditer(code)):
        variable = findcuda_variable(use, assigned)
        if variable is None:
            continue
        name = variable.name
        span, position = text_location(lines, use.start("name"), len(name))
        rule = context.rules.link(variable.library) if variable.library else None
        if rule is not None and is_expanded(use):
            yield rule_finding(file.path, rule, name, span, position, context)
            continue
        found = CODES[FIND_CUDA if variable.hip else FINDCUDA_VARIABLE]
        message = f"{variable.module}'s {name}, which find_package(hip) sets as {variable.hip}" if variable.hip \
            else f"{found.summary}: {name}"
        yield Finding(path=file.path, position=position, code=found.code, name=name, severity=found.severity,
                      message=message, advice=findcuda_advice(variable), span=span)


def _findcuda_commands(file: TextFile, code: str, lines: LineIndex[str], context: Context) -> Iterable[Finding]:
    """Calls of FindCUDA's commands: the HIP library one links, a command convert writes a HIP equivalent for, or (the
    rest) a marker convert writes."""
    if "cuda_" not in code.lower():
        return
    defined = defined_commands(code)
    for call, command in ((c, findcuda_command(c, defined)) for c in FINDCUDA_CALL.finditer(code)):
        written = call.group().split("(")[0].strip()
        span, position = text_location(lines, call.start(), len(written))
        if written.lower() in FINDCUDA_TARGETS:
            found = CODES[FIND_CUDA]
            yield Finding(path=file.path, position=position, code=found.code, name=written, severity=found.severity,
                          message=f"FindCUDA's {written}, which convert writes as {written.lower()[len('cuda_'):]}",
                          advice=_FINDCUDA_TARGET_ADVICE, span=span)
            continue
        if command is None:
            continue
        library = command.library(command_arguments(call))
        rule = context.rules.link(library) if library else None
        if rule is not None:
            yield rule_finding(file.path, rule, written, span, position, context)
            continue
        compiled = command.compiled(command_arguments(call)) if command.compiles else None
        # A library the rules do not know: convert marks the call.
        equivalent = not library and (command.hip or (compiled is not None and "HIP sources"))
        found = CODES[FIND_CUDA if equivalent else FINDCUDA_COMMAND]
        message = f"FindCUDA's {written}, which convert writes as {equivalent}" if equivalent \
            else f"{found.summary}: {written}"
        yield Finding(path=file.path, position=position, code=found.code, name=written, severity=found.severity,
                      message=message, advice=command.advice or f"convert writes {equivalent}.", span=span)


_FINDCUDA_TARGET_ADVICE = ("convert writes add_executable or add_library, with LANGUAGE HIP on its .cu sources (those of "
                           "a variable picked out when CMake runs), its OPTIONS as their compile flags, and hip::host "
                           "linked.")


def findcuda_advice(variable: FindCudaVariable) -> str:
    """What a use of `variable` needs, other than a library variable's `${NAME}`: what convert writes, or does not."""
    if variable.hip:
        return f"convert writes {variable.hip}."
    if variable.library:
        return (f"FindCUDA's path of the {variable.library} library; test or link HIP's library, which convert writes "
                f"for ${{{variable.name}}}.")
    return variable.advice


@analyzer("cmake", "make", "autoconf", "script",
          codes=(GPU_ARCHITECTURE, FIND_CUDA, FINDCUDA_VARIABLE, FINDCUDA_COMMAND, NVCC_FLAG, CUDA_PATH, TRY_CUDA_SOURCE,
                 *RULE_CODES))
def analyze_build_file(file: TextFile, context: Context) -> Iterable[Finding]:
    lines = LineIndex(file.text)
    code = blank(file.text, file.comment)
    for offset, name in link_names(file.file_type, code):
        rule = context.rules.link(name)
        if rule is not None:
            span, position = text_location(lines, offset, len(name.encode()))
            yield rule_finding(file.path, rule, name, span, position, context)
    if file.file_type == "autoconf":  # the function a library test links: convert writes HIP's spelling
        for test in AUTOCONF_LIBRARY_TEST.finditer(code):
            group = "function" if test.group("function") else "searched"
            rule = context.rules.lookup(test.group(group))
            if rule is not None:
                span, position = text_location(lines, test.start(group), len(test.group(group).encode()))
                yield rule_finding(file.path, rule, test.group(group), span, position, context)
    for offset, written, rule in library_files(code, context.rules):
        span, position = text_location(lines, offset, len(written.encode()))
        yield Finding(path=file.path, position=position, code=CUDA_PATH, name=written, severity=CODES[CUDA_PATH].severity,
                      message=f"{CODES[CUDA_PATH].summary}: {written}", advice=library_file_advice(rule, context.target),
                      span=span)
    if file.file_type == "cmake":
        for offset, name in found_headers(code):
            rule = context.rules.header(name)
            if rule is not None:
                span, position = text_location(lines, offset, len(name.encode()))
                yield rule_finding(file.path, rule, name, span, position, context)
        yield from _findcuda_uses(file, code, lines, context)
        yield from _findcuda_commands(file, code, lines, context)
        yield from _cmake_cuda_only(file, code, lines)
        yield from _nvcc_value_tests(file, code, lines)
        yield from _cuda_version_tests(file, code, lines)
        yield from _try_cuda_sources(file, code, lines)
    facts = build_facts()
    for offset, capability in architectures(file.file_type, code):
        span, position = text_location(lines, offset, len(capability))
        yield Finding(path=file.path, position=position, code=GPU_ARCHITECTURE, name=f"sm_{capability}",
                      message=f"GPU architecture {facts.describe(capability)}", severity=CODES[GPU_ARCHITECTURE].severity,
                      advice=f"--offload-arch={facts.gfx_for(capability)}", span=span)
