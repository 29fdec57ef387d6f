"""Rewrite CMake files, Makefiles and shell scripts from nvcc/CUDA to hipcc/HIP.

Text rewrites by pattern, outside comments (build_text.py). What cannot be
rewritten gets a marker comment in the file and a note, never silently dropped.
The facts (architecture pairs, nvcc options and what hipcc takes) are data in
rules/_build.yaml; link libraries come from the rules' `kind: link` entries.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Callable

from portkit.analyze.builds import (ASSIGNMENT, CMAKE_ARGUMENT, FINDCUDA_CALL, FINDCUDA_USES, LIBRARY_NAME, LIBRARY_VARIABLE_USE,
                                    assigned_variables, command_arguments, defined_commands, findcuda_advice,
                                    findcuda_command, findcuda_variable, is_expanded, library_variables)
from portkit.analyze.environment import patterns
from portkit.codes import (CMAKE_CUDA_LANGUAGE, CUDA_PATH, FINDCUDA_COMMAND, FINDCUDA_VARIABLE, GPU_ARCHITECTURE, NVCC_FLAG, NVIDIA_TOOL,
                           code_for_status)
from portkit.convert.build_text import SHELL_COMMENT, BuildConversion, Rewriter
from portkit.rules import Rule, RuleDatabase
from portkit.rules.build_facts import LEAD, BuildFacts, FindCudaCommand, NvccOption, build_facts
from portkit.rules.versions import Target
from portkit.textutil import HASH_COMMENT, blank


_GENEX_CUDA = re.compile(r"(?<![\w-])CUDA(?![\w-])")
_GENEX_NVIDIA = re.compile(r"(?<![\w-])NVIDIA(?![\w-])")


def _genex_arguments(expression: str, arguments: str) -> str:
    """CUDA -> HIP in a language generator expression; in *_LANG_AND_ID, nvcc's id NVIDIA -> Clang."""
    arguments = _GENEX_CUDA.sub("HIP", arguments)
    return _GENEX_NVIDIA.sub("Clang", arguments) if expression.endswith("_AND_ID") else arguments


def _arch_list(values: str, facts: BuildFacts, offload_arch: tuple[str, ...]) -> list[str]:
    if offload_arch:
        return list(offload_arch)
    found = re.findall(r"(?:sm_|compute_)?(\d{2,3})[af]?(?:-real|-virtual)?", values)
    archs = list(dict.fromkeys(facts.gfx_for(cc) for cc in found))
    return archs or [facts.default_arch]


# A variable, or a make function of one (`$(subst .,,${COMPUTE})`): one level of parentheses inside; a shell
# variable (`$cc`, `${cc}`, in a recipe `$$cc`, `$${cc}`).
_EXPANSION = r"\$(?:\$?\{\w+\}|\$?\w+|\((?:[^()\n]|\([^()\n]*\))*\))"
_ARCH_VALUE = rf"(?:(?:sm|compute|lto)_(?:\d+[af]?|{_EXPANSION})|{_EXPANSION}|native|all-major|all)"
# -gencode arch=compute_80,code=[compute_80,sm_80], quoted or not (`\"` in a Makefile's shell line too). A closing
# quote goes only with the opening one it closes: in `"-gencode=arch=...,code=sm_80"` the quote is CMake's string's.
_GENCODE = (r"(?<![\w-])(?:-gencode|--generate-code)(?:=|[ \t]+)(?P<whole>\\?[\"'])?arch=(" + _ARCH_VALUE
            + r"),[ \t]*code=(?P<code>\\?[\"'])?\[?((?:" + _ARCH_VALUE + r",?)+)\]?(?(code)\\?[\"'])(?(whole)\\?[\"'])")
_ARCH_FLAG = r"(?<![\w-])(?:-arch|--gpu-architecture|-code|--gpu-code)(?:=|[ \t]+)(" + _ARCH_VALUE + r"(?:,[\w$(){}]+)*)"


def _translate_flags(rw: Rewriter, facts: BuildFacts, offload_arch: tuple[str, ...],
                     for_hipcc: Callable[[re.Match], bool]) -> None:
    """nvcc options shared by Makefiles, scripts and CMake strings and lists; `for_hipcc`: whether hipcc gets an
    option matched (a `hipcc_only` one is rewritten only there)."""
    def arch(match: re.Match) -> str:
        values = " ".join(g for g in match.groups() if g)  # a quote group holds no digits
        return " ".join(f"--offload-arch={a}" for a in _arch_list(values, facts, offload_arch))

    rw.sub(_GENCODE, arch)
    rw.sub(_ARCH_FLAG, arch)
    rw.sub(r"(--offload-arch=\w+)((?:\s+--offload-arch=\w+)*)",
           lambda m: " ".join(dict.fromkeys([m.group(1)] + m.group(2).split())))
    for option in facts.nvcc_options:
        rw.sub(option.pattern,
               lambda m, o=option: _option_text(rw, o, m) if not o.hipcc_only or for_hipcc(m) else m.group())


def _option_text(rw: Rewriter, option: NvccOption, match: re.Match) -> str:
    hipcc = option.replacement(match.groupdict().get("value"))
    if hipcc is None:
        return rw.removed(NVCC_FLAG, f"{match.group().strip()}: {option.advice}")
    if option.note:
        return rw.kept(match.group("lead") + hipcc, NVCC_FLAG, f"{match.group().strip()}: {option.note}")
    return match.group("lead") + hipcc if hipcc else ""


# A shell loop whose variable an architecture option takes: `for cc in $(CUDA_CC); do nvcc -arch=compute_$$cc ...`.
# The literal first: a pattern starting with a lookbehind is tried at every offset.
_LOOP = r"for(?<![\w-]for)[ \t]+(\w+)[ \t]+in[ \t]+([^;\n]*)"
_LOOP_END = re.compile(r"(?<![\w-])done(?![\w-])")
_ARCH_OPTION = r"(?<![\w-])(?:-arch|--gpu-architecture|-code|--gpu-code|-gencode|--generate-code)[= \t]"
_LOOP_ADVICE = ("the loop's values are NVIDIA architectures for -arch/-code; AMD GPUs are gfx names (gfx90a, gfx942), "
                "so each pass now builds the same --offload-arch targets: loop over gfx names given to --offload-arch, "
                "or build once.")


def _architecture_loops(rw: Rewriter) -> None:
    """A loop over NVIDIA architectures gets a marker: its options become the --offload-arch targets, the same in
    every pass."""
    for offset, loop in rw.find(_LOOP):
        done = _LOOP_END.search(rw.text, offset)
        body = rw.text[offset:done.start() if done else len(rw.text)]
        if re.search(rf"{_ARCH_OPTION}[^\s]*\$\$?\{{?{loop.group(1)}(?!\w)", body):
            rw.note(offset, GPU_ARCHITECTURE, f"for {loop.group(1)} in {loop.group(2).strip()}: {_LOOP_ADVICE}")


# A make or shell variable expanded: `$(NAME)`, `${NAME}`, `$(NAME:%=-l%)`, a script's `$NAME`.
_EXPANDED = re.compile(r"\$[({]?(\w+)")
_COMMAND_END = re.compile(r";|&&|\|\|?")
_HIPCC = re.compile(r"(?<![\w/.-])hipcc(?![\w-])")
_LOGICAL_LINE = re.compile(r"(?:[^\n]*\\\n)*[^\n]*")


def _hipcc_options(code: str, facts: BuildFacts) -> Callable[[re.Match], bool]:
    """Whether hipcc gets an option matched in a Makefile or script (`code`: its comments blanked): the option is on
    a command that runs hipcc, or assigned to a variable such a command expands (or one expanded in the value of
    one, as make does). A host compiler's options stay its own."""
    lines = _LOGICAL_LINE.findall(code)
    assigned = [(m.group(2), line[m.end(1):]) for line in lines if (m := ASSIGNMENT.match(line))]
    compilers = set(facts.hipcc_variables)

    def runs_hipcc(command: str) -> bool:
        return _HIPCC.search(command) is not None or not compilers.isdisjoint(_EXPANDED.findall(command))

    for name, value in assigned:  # NVCC = hipcc, CUDACC = $(NVCC)
        if runs_hipcc(value.split()[0] if value.split() else ""):
            compilers.add(name)
    given = {name for line in lines if not ASSIGNMENT.match(line)
             for command in _COMMAND_END.split(line) if runs_hipcc(command) for name in _EXPANDED.findall(command)}
    while True:
        more = {name for assignee, value in assigned if assignee in given for name in _EXPANDED.findall(value)} - given
        if not more:
            break
        given |= more

    def for_hipcc(match: re.Match) -> bool:
        line, at = _logical_line(match.string, match.start())
        assignment = ASSIGNMENT.match(line)
        if assignment:
            return assignment.group(2) in given or assignment.group(2) in compilers
        begin = max([0] + [end.end() for end in _COMMAND_END.finditer(line, 0, at)])
        end = _COMMAND_END.search(line, at)
        return runs_hipcc(line[begin:end.start() if end else len(line)])
    return for_hipcc


def _logical_line(text: str, offset: int) -> tuple[str, int]:
    """The backslash-continued line of `text` around `offset`, and the offset in it."""
    start = text.rfind("\n", 0, offset) + 1
    while start >= 2 and text[start - 2] == "\\":
        start = text.rfind("\n", 0, start - 1) + 1
    end = text.find("\n", offset)
    while end > 0 and text[end - 1] == "\\":
        end = text.find("\n", end + 1)
    return text[start:end if end >= 0 else len(text)], offset - start


# CMake commands whose options hipcc gets (CMAKE_CUDA_FLAGS is CMAKE_HIP_FLAGS by then).
_CMAKE_HIPCC = re.compile(r"\b(?:CMAKE_HIP_FLAGS|CUDA_NVCC_FLAGS|HIP_HIPCC_FLAGS)\w*|COMPILE_LANG(?:UAGE|_AND_ID):HIP\b")


def _cmake_for_hipcc(match: re.Match) -> bool:
    command = _OPEN_COMMAND.search(match.string, max(0, match.start() - 4000), match.start())
    return command is not None and _CMAKE_HIPCC.search(command.group()) is not None


_LINK_FLAG = rf"{LEAD}(?<![\w-])-l(?P<lib>[\w+-]+)"
# nvcc called by its path: $(CUDA_HOME)/bin/nvcc, /usr/local/cuda/bin/nvcc, "${CUDA_PATH}/bin/nvcc".
_NVCC_PATH = r"[\w$(){}./-]*/bin/nvcc(?![\w-])"


def _code(rule: Rule, target: Target) -> str:
    return code_for_status(rule.resolve(target).status)


def _library(rule: Rule | None, target: Target) -> Rule | None:
    """The rule of a CUDA library whose HIP one the targeted HIP has (hipBLASLt needs 5.5), else None."""
    return rule if rule is not None and rule.hip and rule.resolve(target).hip else None


def _unported(rule: Rule | None, target: Target) -> str | None:
    """Why a CUDA library stays as it is (the targeted HIP lacks its HIP one), else None."""
    if rule is None or not rule.hip or _library(rule, target) is not None:
        return None
    return rule.resolve(target).advice


def _unsupported(rule: Rule | None) -> bool:
    """A CUDA library with no HIP counterpart at all: its link flag goes, with a marker."""
    return rule is not None and not rule.hip


def _link_flags(rw: Rewriter, rules: RuleDatabase, target: Target, file_type: str) -> None:
    def replace(match: re.Match) -> str:
        rule = rules.link(match.group("lib"))
        if _unsupported(rule):
            return rw.removed(_code(rule, target), f"{match.group().strip()}: {rule.resolve(target).advice}")
        found = _library(rule, target)
        return f"{match.group('lead')}-l{found.hip}" if found is not None else match.group()

    rw.sub(_LINK_FLAG, replace)
    for offset, match in rw.find(_LINK_FLAG):
        advice = _unported(rules.link(match.group("lib")), target)
        if advice:
            rw.note(offset + len(match.group("lead")), _code(rules.link(match.group("lib")), target),
                    f"{match.group().strip()}: {advice}")
    _note_patterns(rw, CUDA_PATH, file_type)
    _note_patterns(rw, NVIDIA_TOOL, file_type)


def _library_variables(rw: Rewriter, rules: RuleDatabase, target: Target) -> None:
    """`CUDARTLIB ?= cudart` ... `-l$(CUDARTLIB)`: the library names in the variable's assignments become HIP's, as the
    `-l` flags do (`make CUDARTLIB=...` still chooses)."""
    used = set().union(*(library_variables(m.group()) for _, m in rw.find(LIBRARY_VARIABLE_USE.pattern)))
    if not used:
        return

    def library(match: re.Match) -> str:
        name, rule = match.group(), rules.link(match.group())
        if _unsupported(rule):
            return rw.removed(_code(rule, target), f"{name}: {rule.resolve(target).advice}")
        found = _library(rule, target)
        if found is not None:
            return found.hip
        advice = _unported(rule, target)
        return rw.kept(name, _code(rule, target), f"{name}: {advice}") if advice else name

    rw.sub(ASSIGNMENT, lambda m: m.group(1) + LIBRARY_NAME.sub(library, m.group(3)) if m.group(2) in used else m.group())


def _note_patterns(rw: Rewriter, code: str, file_type: str) -> None:
    """Notes where scan's patterns of `code` for `file_type` match: scan and convert find the same sites."""
    for pattern in patterns():
        if pattern.code != code or file_type not in pattern.file_types:
            continue
        for offset, match in rw.find(pattern.regex.pattern):
            rw.note(offset + match.start(pattern.group) - match.start(), code,
                    f"{match.group(pattern.group)}: {pattern.advice or ADVICE[code]}")


ADVICE = {
    CUDA_PATH: "a CUDA install path; point it at ROCm (e.g. /opt/rocm or $(ROCM_PATH)).",
    NVCC_FLAG: "no HIP property or variable of that name; use -fgpu-rdc in HIP_FLAGS or target options.",
    NVIDIA_TOOL: "not on a ROCm machine, so a test for it takes its other branch there; rocm-smi or amd-smi for "
                 "nvidia-smi's queries, rocprofv3 or rocprof for nsys, ncu and nvprof.",
}


_ARCH_FLAG_OF_VARIABLE = r"(?<![\w-])(?:-arch|--gpu-architecture)[= ]\s*(\$[({])(\w+)([)}])"
# `NAME = sm_60` on a line of its own: the assignment up to the value, the name, the value.
_ARCH_ASSIGNMENT = r"(?m)^([ \t]*(\w+)[ \t]*(?::=|\?=|=)[ \t]*)((?:sm|compute)_\d+[af]?)(?=[ \t]*$)"


def _arch_variables(rewriter: Rewriter, facts: BuildFacts, offload_arch: tuple[str, ...]) -> None:
    """`ARCH = sm_60` ... `-arch=$(ARCH)`: the flag becomes `--offload-arch=$(ARCH)` (`${ARCH}` stays
    `${ARCH}`) and the value an AMD architecture, so that `make ARCH=...` still chooses it (one
    architecture only)."""
    used = {match.group(2) for _, match in rewriter.find(_ARCH_FLAG_OF_VARIABLE)}
    values = {}
    for _, match in rewriter.find(_ARCH_ASSIGNMENT):
        archs = _arch_list(match.group(3), facts, offload_arch)
        if match.group(2) in used and len(archs) == 1:
            values[match.group(2)] = archs[0]
    if not values:
        return
    rewriter.sub(_ARCH_ASSIGNMENT, lambda m: m.group(1) + values[m.group(2)] if m.group(2) in values else m.group())
    rewriter.sub(_ARCH_FLAG_OF_VARIABLE,
                 lambda m: f"--offload-arch={''.join(m.groups())}" if m.group(2) in values else m.group())


# CUDA's include directory given to a compiler: `-I/usr/local/cuda/include`, `-I$(CUDA_HOME)/include`, `-I${CUDAPATH}/include`.
_CUDA_INCLUDE = r"-I[ \t]*(?:/usr/local/cuda[\w.-]*|/opt/cuda|\$[({]?CUDA\w*[)}]?)/include/?(?![^\s\"';)])"


def _host_hip_flags(rw: Rewriter, facts: BuildFacts) -> None:
    """Host files that included CUDA's headers include HIP's now, and gcc or g++ builds them with the flags that give
    CUDA's include directory: those flags get what HIP's headers need from a host compiler (hipcc takes them too)."""
    flags = re.escape(facts.host_hip_flags)
    rw.sub(rf"{_CUDA_INCLUDE}(?![ \t]+{flags})", lambda m: f"{m.group()} {facts.host_hip_flags}")


def convert_makefile(text: str, rules: RuleDatabase, offload_arch: tuple[str, ...] = (),
                     shell: bool = False, target: Target = Target()) -> BuildConversion:
    """A Makefile's, or (`shell`) a shell script's, nvcc command lines: the two share `NAME=value`
    assignments and `$(NAME)`/`${NAME}` uses; a shell comment starts only where a word does. A library
    the targeted HIP lacks stays CUDA's, with a note."""
    facts = build_facts().for_target(target)
    rewriter = Rewriter(text, SHELL_COMMENT) if shell else Rewriter(text)
    # A test for nvcc's file asks whether the compiler is installed: ask the same of hipcc, wherever it is (the bare
    # name would be a file in the current directory).
    if shell:
        rewriter.sub(rf"(?<![\w-])(-[efx][ \t]+)[\"']?{_NVCC_PATH}[\"']?", lambda m: f'{m.group(1)}"$(command -v hipcc)"')
    else:
        rewriter.sub(rf"\$\(wildcard[ \t]+{_NVCC_PATH}[ \t]*\)", lambda m: "$(shell command -v hipcc)")
    rewriter.sub(_NVCC_PATH, lambda m: "hipcc")
    rewriter.sub(r"(?:(?<![\w/.-])|(?<=:-))nvcc(?![\w-])", lambda m: "hipcc")  # `${NVCC:-nvcc}` too
    _arch_variables(rewriter, facts, offload_arch)
    _architecture_loops(rewriter)
    _translate_flags(rewriter, facts, offload_arch, _hipcc_options(blank(rewriter.text, rewriter.comment), facts))
    _host_hip_flags(rewriter, facts)
    _link_flags(rewriter, rules, target, "script" if shell else "make")
    _library_variables(rewriter, rules, target)
    return rewriter.finish()


def _cmake_target(name: str, rules: RuleDatabase, target: Target) -> str | None:
    rule = _library(rules.link(name), target)
    return rule.hip_cmake if rule is not None and rule.hip_cmake else None


def _cmake_packages(text: str) -> list[str]:
    """The find_package() names the HIP targets in `text` need, hip first."""
    packages = ["hip"]
    for namespace, name in re.findall(r"\b(hip|roc)::(\w+)", text):
        package = "hip" if (namespace, name) in (("hip", "host"), ("hip", "device")) else name
        if package not in packages:
            packages.append(package)
    return packages


def convert_cmake(text: str, rules: RuleDatabase, offload_arch: tuple[str, ...] = (),
                  target: Target = Target(), hipcc_as_cxx: bool = False) -> BuildConversion:
    """CMake with CUDA -> CMake with HIP: the HIP language (CMake 3.21+), or, `hipcc_as_cxx`, HIP sources
    compiled as C++ by hipcc (`cmake -DCMAKE_CXX_COMPILER=hipcc`) where CMake's HIP language does not work."""
    facts = build_facts().for_target(target)
    rw = Rewriter(text)
    _findcuda_commands(rw, rules, target, facts)
    _language_targets(rw)
    _cmake_language(rw)
    _cmake_architectures(rw, facts, offload_arch)
    _note_patterns(rw, NVCC_FLAG, "cmake")
    _translate_flags(rw, facts, offload_arch, _cmake_for_hipcc)
    _cmake_libraries(rw, rules, target)
    _findcuda_variables(rw, rules, target)
    _link_flags(rw, rules, target, "cmake")
    _mark_cu_sources(rw)
    if hipcc_as_cxx:
        _hip_as_cxx(rw)
    return rw.finish()


def _cmake_language(rw: Rewriter) -> None:
    language = r"(?<![\w$])CUDA(?![\w])"
    rw.sub(r"\bproject\s*\([^)]*\)", lambda m: re.sub(language, "HIP", m.group()), re.I)
    rw.sub(r"\b(enable|check)_language\s*\(\s*CUDA\s*\)", lambda m: f"{m.group(1)}_language(HIP)", re.I)
    rw.sub(r"\bLANGUAGE\s+CUDA\b", lambda m: "LANGUAGE HIP")
    # Generator expressions name the language too: $<COMPILE_LANGUAGE:CUDA> would silently stop applying.
    rw.sub(r"\$<((?:COMPILE|LINK)_LANG(?:UAGE|_AND_ID)):([^>]*)>",
           lambda m: "$<" + m.group(1) + ":" + _genex_arguments(m.group(1), m.group(2)) + ">")
    rw.sub(r"\bcuda_add_(executable|library)\b", lambda m: f"add_{m.group(1).lower()}", re.I)


# The command whose argument list an offset is in, and the arguments before it (CMake's commands do not nest).
_OPEN_COMMAND = re.compile(r"(\w+)\s*\(([^()]*)\Z")
_PROPERTY_SETTERS = ("set_property", "set_target_properties", "set_directory_properties",
                     "set_source_files_properties")


def _sets_architectures(text: str, offset: int) -> bool:
    """Whether the CUDA_ARCHITECTURES at `offset` is given its values there (`set(VAR 70 80)`, `list(APPEND VAR 90)`,
    a property setter), not read: `list(SORT VAR COMPARE NATURAL)`, `list(GET VAR 0 out)`, `if(VAR ...)` only rename."""
    found = _OPEN_COMMAND.search(text, max(0, offset - 4000), offset)
    if found is None:
        return True  # the command opened before a comment: as set() and the setters, the common case
    command, before = found.group(1).lower(), found.group(2).split()
    if command == "set":
        return not before
    if command == "list":
        return len(before) == 1 and before[0].upper() in ("APPEND", "PREPEND")
    return command in _PROPERTY_SETTERS


# A test of the CUDA architectures against an NVIDIA one, false for HIP's: `70 IN_LIST CMAKE_CUDA_ARCHITECTURES`,
# `CMAKE_CUDA_ARCHITECTURES STREQUAL "all-major"`.
_NVIDIA_ARCH = r"\"?(?:\d{2,3}[af]?|all|all-major|native)\"?"
_ARCHITECTURE_TEST = (rf"{_NVIDIA_ARCH}\s+IN_LIST\s+(?:CMAKE_)?CUDA_ARCHITECTURES\b"
                      rf"|\b(?:CMAKE_)?CUDA_ARCHITECTURES\s+(?:STREQUAL|EQUAL|MATCHES|VERSION_\w+|LESS\w*|GREATER\w*)\s+{_NVIDIA_ARCH}")
_ARCHITECTURE_TEST_ADVICE = ("HIP's architectures are AMD GPU names (gfx90a, gfx942): compare with those, or test the "
                             "feature the branch needs.")


def _cmake_architectures(rw: Rewriter, facts: BuildFacts, offload_arch: tuple[str, ...]) -> None:
    def architectures(match: re.Match) -> str:
        name, space, values = match.group(1).replace("CUDA", "HIP"), match.group(2), match.group(3)
        if not _sets_architectures(match.string, match.start()):
            return f"{name}{space}{values}"
        return f"{name} {' '.join(_arch_list(values, facts, offload_arch))}"  # all, all-major, native: the default

    tests = {}  # one note per command: darknet's if() tests seven architectures, a line each
    for offset, match in rw.find(_ARCHITECTURE_TEST):
        command = _OPEN_COMMAND.search(rw.text, max(0, offset - 4000), offset)
        tests.setdefault(command.start() if command else offset, (offset, " ".join(match.group().split())))
    for offset, test in tests.values():
        rw.note(offset, GPU_ARCHITECTURE, f"{test}: {_ARCHITECTURE_TEST_ADVICE}")
    rw.sub(r"\b((?:CMAKE_)?CUDA_ARCHITECTURES)(\s+)(\"[^\"]*\"|[\w;\s-]*?)(?=\s*[)\n]|\s+[A-Z_]{4,}\b)", architectures)
    rw.sub(r"\bCMAKE_CUDA_(\w+)", lambda m: f"CMAKE_HIP_{m.group(1)}")
    rw.sub(r"\bCUDA_(STANDARD|ARCHITECTURES)\b", lambda m: f"HIP_{m.group(1)}")  # the property where it is read


def _cmake_libraries(rw: Rewriter, rules: RuleDatabase, target: Target) -> None:
    """CUDA:: targets, find_package(CUDA|CUDAToolkit), library names in target_link_libraries and find_library."""
    def hip_target(match: re.Match) -> str:
        return _cmake_target(match.group(), rules, target) or match.group()

    rw.sub(r"\b(?:CUDA|NCCL)::\w+", hip_target)
    for offset, match in rw.find(r"\b(?:CUDA|NCCL)::\w+"):
        rule = rules.link(match.group())
        advice = _unported(rule, target) or "no HIP target known; link the ROCm library by hand."
        rw.note(offset, _code(rule, target) if rule is not None else NVCC_FLAG, f"{match.group()}: {advice}")

    def find_package(match: re.Match) -> str:
        required = " REQUIRED" if re.search(r"\bREQUIRED\b", match.group()) else ""
        return "\n".join(f"find_package({p}{required})" for p in _cmake_packages(rw.text))

    rw.sub(r"\bfind_package\s*\(\s*(?:CUDAToolkit|CUDA)\b[^)]*\)", find_package, re.I)

    def link_words(match: re.Match) -> str:
        def word(w: re.Match) -> str:
            rule = _library(rules.link(w.group()), target)
            return rule.hip if rule is not None and "::" not in w.group() else w.group()
        return match.group(1) + re.sub(r"(?<![\w:${])[A-Za-z_]\w*(?![\w:}])", word, match.group(2)) + ")"

    rw.sub(r"\b(target_link_libraries\s*\(\s*[\w${}.-]+)([^)]*)\)", link_words, re.I)
    rw.sub(r"\b(find_library\s*\(\s*\w+)([^)]*)\)", link_words, re.I)


def _findcuda_variables(rw: Rewriter, rules: RuleDatabase, target: Target) -> None:
    """FindCUDA's variables, which find_package(hip) does not set: its own of the same meaning, the HIP library a
    library variable's `${NAME}` holds, or else a marker (scan lists the same uses: analyze/builds.py)."""
    assigned = assigned_variables(blank(rw.text, HASH_COMMENT))

    def replace(use: re.Match) -> str:
        variable = findcuda_variable(use, assigned)
        if variable is None:
            return use.group()
        if variable.hip:
            return use.group().replace(variable.name, variable.hip)
        rule = rules.link(variable.library) if variable.library else None
        if rule is None or not is_expanded(use):
            return rw.kept(use.group(), FINDCUDA_VARIABLE, f"{variable.name}: {findcuda_advice(variable)}")
        found = _library(rule, target)
        if found is not None:
            return found.hip
        return rw.kept(use.group(), _code(rule, target), f"{variable.name}: {rule.resolve(target).advice}")

    for pattern in FINDCUDA_USES:
        rw.sub(pattern, replace)


# FindCUDA's commands for a target of .cu and host sources (_cmake_language makes them add_*).
_FINDCUDA_TARGETS = ("cuda_add_executable", "cuda_add_library")
# FindCUDA reads these anywhere in the arguments of its commands; add_* takes them before the sources.
_TARGET_KEYWORDS = {"STATIC", "SHARED", "MODULE", "OBJECT", "EXCLUDE_FROM_ALL", "WIN32", "MACOSX_BUNDLE"}
# After OPTIONS, a build type's name (FindCUDA's default CUDA_configuration_types, upper case) makes the options
# after it that build type's only.
_BUILD_TYPES = ("DEBUG", "MINSIZEREL", "RELEASE", "RELWITHDEBINFO")
_HIP_ENABLED = r"\benable_language\s*\(\s*(?:CUDA|HIP)\s*\)|\bproject\s*\([^)]*(?<![\w$])(?:CUDA|HIP)(?!\w)"
# Where a target's sources are in variables the file may not fill with literal names (a glob, a parent's list), its
# .cu files are picked out when CMake runs.
_CU_SOURCES = "portkit_cu_sources"
_UNSEEN_ADVICE = ("FindCUDA compiled this target's .cu sources with nvcc; a variable in a generator expression holds "
                  "some, which convert cannot see: give those .cu files the source properties it writes for the others "
                  "(set_source_files_properties), or CMake skips them.")


# A command that fills a variable: set() and list() with the names (groups 1, 2), a glob, a directory's sources.
_SOURCE_LIST = re.compile(r"\b(?:(set)\s*\(|(list)\s*\(\s*(?:APPEND|PREPEND|INSERT)\s+|file\s*\(\s*GLOB\w*\s+"
                          r"|aux_source_directory\s*\(\s*\S+\s+)\s*(\w+)([^)]*)\)", re.I)


def _literal_variables(code: str) -> set[str]:
    """The variables `code` fills only with names written out (`set(SRC a.cu b.cpp)`): _mark_cu_sources gives their
    .cu files the HIP language where they are named."""
    written: dict[str, bool] = {}
    for match in _SOURCE_LIST.finditer(code):
        literal = bool(match.group(1) or match.group(2)) and not re.search(r"[$*<]", match.group(4))
        written[match.group(3)] = written.get(match.group(3), True) and literal
    return {name for name, literal in written.items() if literal}


@dataclasses.dataclass
class _FindCudaArguments:
    """The arguments of a FindCUDA command that compiles sources: keywords, sources and OPTIONS (by build type: ""
    for all), each an argument as written."""

    keywords: list[str] = dataclasses.field(default_factory=list)
    sources: list[str] = dataclasses.field(default_factory=list)
    options: dict[str, list[str]] = dataclasses.field(default_factory=dict)


def _findcuda_arguments(words: list[str]) -> _FindCudaArguments:
    """FindCUDA's reading of a command's sources and options (CUDA_GET_SOURCES_AND_OPTIONS, CUDA_PARSE_NVCC_OPTIONS)."""
    found = _FindCudaArguments()
    build_type = None
    for word in words:
        if word.upper() in _TARGET_KEYWORDS:
            found.keywords.append(word)
        elif word == "OPTIONS":
            build_type = ""
        elif build_type is None:
            found.sources.append(word)
        elif word in _BUILD_TYPES:
            build_type = word
        else:
            found.options.setdefault(build_type, []).append(word)
    return found


def _shell_words(words: list[str]) -> str:
    """Options as one string inside a CMake string: a quoted one keeps its quotes, escaped (`\\"-fPIC -Wall\\"`), which
    _translate_flags reads as a quoted value and the shell as one word."""
    return " ".join(word.replace('"', '\\"') if word.startswith('"') else word for word in words)


def _target_options(name: str, options: dict[str, list[str]]) -> str:
    """A target's OPTIONS, nvcc's for its .cu sources, as the compile options of its HIP sources: each build type's
    one shell-quoted string, which _translate_flags converts as hipcc's (the command names the HIP language)."""
    strings = []
    for build_type, words in options.items():
        condition = f"$<AND:$<COMPILE_LANGUAGE:HIP>,$<CONFIG:{build_type}>>" if build_type else "$<COMPILE_LANGUAGE:HIP>"
        strings.append(f'"$<{condition}:SHELL:{_shell_words(words)}>"')
    return f"target_compile_options({name} PRIVATE {' '.join(strings)})"


def _source_flags(sources: list[str], options: dict[str, list[str]]) -> str:
    """Sources' OPTIONS as their compile flags (a source's COMPILE_OPTIONS take no SHELL: group)."""
    flags = " ".join(_shell_words(words) if not build_type else f"$<$<CONFIG:{build_type}>:{_shell_words(words)}>"
                     for build_type, words in options.items())
    return f'set_property(SOURCE {" ".join(sources)} APPEND_STRING PROPERTY COMPILE_FLAGS " {flags}")'


def _picked_cu_sources(variables: list[str], indent: str) -> list[str]:
    """The lines that give the .cu files of `variables` the HIP language when CMake runs."""
    return [f"{indent}set({_CU_SOURCES} {' '.join(variables)})",
            f'{indent}list(FILTER {_CU_SOURCES} INCLUDE REGEX "\\\\.cu$")',
            f"{indent}set_source_files_properties(${{{_CU_SOURCES}}} PROPERTIES LANGUAGE HIP)"]


def _findcuda_commands(rw: Rewriter, rules: RuleDatabase, target: Target, facts: BuildFacts) -> None:
    """FindCUDA's commands, which find_package(hip) does not define: _FindCudaCommands says what each becomes."""
    rw.sub(FINDCUDA_CALL, _FindCudaCommands(rw, rules, target, facts).convert)


class _FindCudaCommands:
    """A cuda_add_* target had its .cu sources compiled by nvcc with its OPTIONS and linked the CUDA runtime; as add_*
    it gets what CMake's HIP language path gives a target: the language enabled, LANGUAGE HIP on its .cu sources
    (_mark_cu_sources on those named; those of a variable picked out here), the options as its HIP sources' and
    hip::host, whose platform define g++ needs for the HIP headers its host files include now. hip::device would
    make every C++ source HIP (-x hip). The other commands get what rules/_build.yaml says. One file's calls, in
    order: the first that needs the HIP language enables it."""

    def __init__(self, rw: Rewriter, rules: RuleDatabase, target: Target, facts: BuildFacts):
        self.rw, self.rules, self.target = rw, rules, target
        self.code = blank(rw.text, HASH_COMMENT)
        self.enabled = re.search(_HIP_ENABLED, self.code, re.I) is not None
        self.literal = _literal_variables(self.code)
        self.defined = defined_commands(self.code)
        self.library = _cmake_target(facts.findcuda_target_library, rules, target)

    def convert(self, match: re.Match) -> str:
        written = match.group().split("(")[0].strip()
        if written.lower() in _FINDCUDA_TARGETS:
            return self._target_call(match, written)
        command = findcuda_command(match, self.defined)
        if command is None:
            return match.group()
        if command.hip:
            return command.hip + match.group()[len(written):]
        if command.link:
            return self._link_call(match, written, command)
        if command.compiles and command.compiled(command_arguments(match)) is not None:
            return self._compile_call(match, command)
        if command.drop:
            return self.rw.removed(FINDCUDA_COMMAND, f"{written}: {command.advice}")
        return self.rw.kept(match.group(), FINDCUDA_COMMAND, f"{written}: {command.advice}")

    def _hip_sources(self, call: str, sources: list[str], indent: str) -> tuple[list[str], list[str]]:
        """The lines of a call of HIP sources with the language enabled before it, and the variables among them."""
        # Names written out, inside a generator expression too, are _mark_cu_sources'.
        variables = [word for word in sources if re.fullmatch(r"\$\{.+\}", word) and word[2:-1] not in self.literal]
        unseen = [word for word in sources if "$<" in word and "${" in word]
        if unseen:
            call = self.rw.kept("", CMAKE_CUDA_LANGUAGE, f"{' '.join(unseen)}: {_UNSEEN_ADVICE}") + call
        if self.enabled or not (unseen or variables or any(word.endswith(".cu") for word in sources)):
            return [call], variables
        self.enabled = True
        return ["enable_language(HIP)", indent + call], variables

    def _target_call(self, match: re.Match, written: str) -> str:
        words, indent = command_arguments(match), _indent(match)
        if not words:
            return match.group()
        name, arguments = words[0], _findcuda_arguments(words[1:])
        call = match.group()
        if "OPTIONS" in words:
            call = f"{written}({' '.join([name] + arguments.keywords + arguments.sources)})"
        lines, variables = self._hip_sources(call, arguments.sources, indent)
        if self.library:
            lines.append(f"{indent}target_link_libraries({name} {_link_keyword(self.code, name)}{self.library})")
        if variables:
            lines += _picked_cu_sources(variables, indent)
        if arguments.options:
            lines.append(indent + _target_options(name, arguments.options))
        return "\n".join(lines)

    def _compile_call(self, match: re.Match, command: FindCudaCommand) -> str:
        """The variable of objects holds the HIP sources, which the target that lists it compiles."""
        out, rest = command.compiled(command_arguments(match))
        arguments, indent = _findcuda_arguments(rest), _indent(match)
        lines, variables = self._hip_sources(f"set({' '.join([out] + arguments.sources)})", arguments.sources, indent)
        if not variables and all("$" not in word for word in arguments.sources):
            self.literal.add(out)
        if variables:
            lines += _picked_cu_sources(variables, indent)
        cu_sources = [word for word in arguments.sources if word.endswith(".cu") and "$<" not in word]
        if arguments.options and (cu_sources or variables):
            lines.append(indent + _source_flags(cu_sources + ([f"${{{_CU_SOURCES}}}"] if variables else []),
                                                arguments.options))
        return "\n".join(lines)

    def _link_call(self, match: re.Match, written: str, command: FindCudaCommand) -> str:
        hip = _cmake_target(command.link, self.rules, self.target)
        words = command_arguments(match)
        if hip is None or not words:
            rule = self.rules.link(command.link)
            advice = _unported(rule, self.target) or "no HIP library known; link the ROCm one by hand."
            code = _code(rule, self.target) if rule else FINDCUDA_COMMAND
            return self.rw.kept(match.group(), code, f"{written}: {advice}")
        return f"target_link_libraries({words[0]} {_link_keyword(self.code, words[0])}{hip})"


# A target's sources: add_executable/add_library (not IMPORTED, ALIAS or INTERFACE: no sources) or target_sources;
# the call up to its first argument, the rest.
_TARGET_SOURCES = r"\b(?:add_executable|add_library|target_sources)\s*\(\s*[\w${}.-]+([^)]*)\)"
_NO_SOURCES = re.compile(r"\b(?:IMPORTED|ALIAS|INTERFACE)\b")
_SCOPES = {"PRIVATE", "PUBLIC", "INTERFACE"}
# A glob whose patterns name .cu files: the variable it fills.
_CU_GLOB = re.compile(r"\bfile\s*\(\s*GLOB\w*\s+(\w+)[^)]*\.cu\b[^)]*\)", re.I)
_NEXT_TARGET = re.compile(r"\b(?:add_executable|add_library|target_sources|cuda_add_\w+)\s*\(", re.I)


def _language_targets(rw: Rewriter) -> None:
    """CMake's CUDA language compiles a .cu file as CUDA whatever list holds it; HIP's takes only .hip files, so a
    target whose .cu sources are in a variable (`file(GLOB SRC *.cu)`, `add_library(x ${SRC})`) gets them picked out
    when CMake runs, as a FindCUDA target does, where the file enables the language or globs .cu files into the
    variable (a subdirectory's file; the project enables the language)."""
    code = blank(rw.text, HASH_COMMENT)
    literal = _literal_variables(code)
    globbed = {match.group(1) for match in _CU_GLOB.finditer(code)}
    enabled = re.search(_HIP_ENABLED, code, re.I) is not None

    def picked(match: re.Match) -> str:
        if _NO_SOURCES.search(match.group(1)):
            return match.group()
        variables = [word for word in CMAKE_ARGUMENT.findall(match.group(1)) if word not in _SCOPES
                     and re.fullmatch(r"\$\{\w+\}", word) and word[2:-1] not in literal
                     and (enabled or word[2:-1] in globbed)]
        if not variables:
            return match.group()
        lines = _picked_cu_sources(variables, _indent(match))
        following = match.string[match.end():]
        until = _NEXT_TARGET.search(following)
        if lines[0].strip() in following[:until.start() if until else len(following)]:
            return match.group()  # converted before, or a FindCUDA target's
        return "\n".join([match.group(), *lines])

    rw.sub(_TARGET_SOURCES, picked, re.I)


def _link_keyword(code: str, name: str) -> str:
    """The keyword the project links target `name` with, and a blank, or "" (CMake refuses both signatures on one
    target)."""
    keyword = re.search(rf"\btarget_link_libraries\s*\(\s*{re.escape(name)}\s+"
                        r"(PRIVATE|PUBLIC|INTERFACE|LINK_PRIVATE|LINK_PUBLIC)\b", code, re.I)
    return keyword.group(1) + " " if keyword else ""


# The architectures a target's HIP_ARCHITECTURES property holds (set from CMAKE_HIP_ARCHITECTURES, as for the HIP
# language, which passes them itself) as hipcc's options, for hipcc as the C++ compiler.
_OFFLOAD_ARCH_OPTIONS = ("$<$<BOOL:$<TARGET_PROPERTY:HIP_ARCHITECTURES>>:"
                         "--offload-arch=$<JOIN:$<TARGET_PROPERTY:HIP_ARCHITECTURES>,;--offload-arch=>>")
# hipcc as CMake's C++ compiler: CMake passes `-x c++` for a .cu file of LANGUAGE CXX, the source's own
# option after it makes it HIP again.
_CXX_LANGUAGE = f'LANGUAGE CXX COMPILE_OPTIONS "-xhip;{_OFFLOAD_ARCH_OPTIONS}"'
# Without them hipcc links for the GPUs of the machine (rocm_agent_enumerator), a traceback on one without a GPU.
_LINK_ARCHITECTURES = f'add_link_options("{_OFFLOAD_ARCH_OPTIONS}")'


def _indent(match: re.Match) -> str:
    """The indentation of the line `match` starts on, for a line written after it in the same block."""
    line_start = match.string.rfind("\n", 0, match.start()) + 1
    return re.match(r"[ \t]*", match.string[line_start:]).group()


def _hip_as_cxx(rw: Rewriter) -> None:
    """The HIP language written above, made C++ compiled by hipcc (Debian's CMake 3.25 cannot use its HIP 5.2
    as the HIP language: docs/convert.md says why)."""
    linked = _LINK_ARCHITECTURES in rw.text

    def with_link_architectures(call: str, match: re.Match) -> str:
        nonlocal linked
        if linked:
            return call
        linked = True
        return f"{call}\n{_indent(match)}{_LINK_ARCHITECTURES}"

    def project(match: re.Match) -> str:
        call = match.group()
        if not re.search(r"(?<![\w$])HIP(?![\w])", call):
            return call
        if re.search(r"(?<![\w$])CXX(?!\w)", call):
            return with_link_architectures(re.sub(r"[ \t]+HIP(?![\w])", "", call), match)
        return with_link_architectures(re.sub(r"(?<![\w$])HIP(?![\w])", "CXX", call), match)

    rw.sub(r"\bproject\s*\([^)]*\)", project, re.I)
    rw.sub(r"\benable_language\s*\(\s*HIP\s*\)", lambda m: with_link_architectures("enable_language(CXX)", m), re.I)
    # CXX is enabled already: check_language(CXX) finds its compiler set, and the tests of it hold.
    rw.sub(r"\bcheck_language\s*\(\s*HIP\s*\)", lambda m: "check_language(CXX)", re.I)
    rw.sub(r"\bCMAKE_HIP_COMPILER(\w*)", lambda m: f"CMAKE_CXX_COMPILER{m.group(1)}")
    rw.sub(r"\bLANGUAGE\s+HIP\b(?!\s+COMPILE_OPTIONS)", lambda m: _CXX_LANGUAGE)
    rw.sub(r"\$<((?:COMPILE|LINK)_LANG(?:UAGE|_AND_ID)):([^>]*)>",
           lambda m: "$<" + m.group(1) + ":" + re.sub(r"(?<![\w-])HIP(?![\w-])", "CXX", m.group(2)) + ">")
    rw.sub(r"\bCMAKE_HIP_((?:FLAGS|STANDARD|EXTENSIONS)\w*)", lambda m: f"CMAKE_CXX_{m.group(1)}")
    rw.sub(r"\bHIP_STANDARD\b", lambda m: "CXX_STANDARD")


def _mark_cu_sources(rw: Rewriter) -> None:
    """CMake compiles .cu files as CUDA; with HIP they need LANGUAGE HIP."""
    def add_property(match: re.Match) -> str:
        sources = re.findall(r"[\w./${}-]+\.cu\b", match.group())
        line = f"set_source_files_properties({' '.join(sources)} PROPERTIES LANGUAGE HIP)"
        if not sources or line in rw.text or line.replace("LANGUAGE HIP", _CXX_LANGUAGE) in rw.text:
            return match.group()
        return f"{match.group()}\n{_indent(match)}{line}"

    # Where sources are named: in the target, or in a variable (FindCUDA projects: set(SOURCES a.cu ...)).
    rw.sub(r"\b(?:add_executable|add_library|target_sources|set|list)\s*\([^)]*\)", add_property, re.I)
