"""Which commands of a build file run the GPU compiler (nvcc before convert, hipcc after), so that scan lists nvcc and
its options exactly where convert rewrites or marks them: nvcc itself, by name or path, which convert writes as
hipcc; in a Makefile or script an nvcc option only where the GPU compiler gets it (a program's own `-t 1024` is no
nvcc option), in CMake one in a command that runs a program (add_test, add_custom_command) only where that program is
the GPU compiler, one a host compiler takes too (rules/_build.yaml's `hipcc_only`) only in a command that sets the
GPU compiler's flags; nvcc's -odir of a Makefile's dependency step not at all (convert writes it as -MT)."""
from __future__ import annotations

import dataclasses
import re
from typing import Callable, Iterator, Protocol

from portkit.analyze.builds import ASSIGNMENT
from portkit.rules.build_facts import BuildFacts

# A make or shell variable expanded: `$(NAME)`, `${NAME}`, `$(NAME:%=-l%)`, a script's `$NAME`.
_EXPANDED = re.compile(r"\$[({]?(\w+)")
COMMAND_END = re.compile(r";|&&|\|\|?")
# The compiler by name or path: nvcc in the project's file, hipcc once convert wrote it.
_GPU_COMPILER = re.compile(r"(?<![\w.-])(?:hipcc|nvcc)(?![\w-])")
_LOGICAL_LINE = re.compile(r"(?:[^\n]*\\\n)*[^\n]*")


# nvcc called by its path: $(CUDA_HOME)/bin/nvcc, /usr/local/cuda/bin/nvcc, "${CUDA_PATH}/bin/nvcc", $CUDA/bin/nvcc,
# $(ROOT)/cuda-$(V)/bin/nvcc, $(DESTDIR)$(PREFIX)/bin/nvcc; group `leading`: the variables it starts with, of which a
# recipe's quiet prefix (`$(Q)$(CUDA_DIR)/bin/nvcc`, caffe: make's `@`) is no part of the path and stays.
_PATH_VARIABLE = r"\$\$?(?:\(\w+\)|\{\w+(?::-[^}\s]*)?\}|\w+)"  # $(V), ${V}, ${V:-default}, $V; a recipe's $$V
NVCC_PATH = rf"(?P<leading>(?:{_PATH_VARIABLE})*)(?:[\w./-]+{_PATH_VARIABLE})*[\w./-]*/bin/nvcc(?![\w-])"
# nvcc by its path or by its name (a word of its own, or a shell default's: `${NVCC:-nvcc}`): what convert writes as
# hipcc, and scan lists. Not a file named after it (`include nvcc.mk`: the file keeps its name).
NVCC_COMMAND = re.compile(rf"{NVCC_PATH}|(?:(?<![\w/.-])|(?<=:-))nvcc(?![\w-]|\.\w)")
# A make variable assigned a value starting with `@`: a quiet prefix (`Q ?= @`).
_QUIET_ASSIGNMENT = re.compile(r"(?m)^[ \t]*(?:override[ \t]+)?(\w+)[ \t]*(?::=|\?=|\+=|=)[ \t]*@")


def quiet_prefix(code: str, facts: BuildFacts) -> Callable[[re.Match], str]:
    """The quiet prefixes (the file's and rules/_build.yaml's) a match of NVCC_COMMAND starts with: no part of nvcc's
    path, they stay before hipcc (`code`: the file, its comments blanked)."""
    quiet = set(facts.command_prefix_variables) | set(_QUIET_ASSIGNMENT.findall(code))

    def kept(match: re.Match) -> str:
        prefix = ""
        for variable in re.findall(_PATH_VARIABLE, match.group("leading") or ""):
            if re.sub(r"[^\w]", "", variable) not in quiet:
                break
            prefix += variable
        return prefix
    return kept


def nvcc_commands(code: str, facts: BuildFacts) -> Iterator[tuple[int, str]]:
    """(offset, as written) of each nvcc of a Makefile, configure.ac or script, by name or path, that convert writes
    as hipcc (`code`: its comments blanked as convert reads them)."""
    if "nvcc" not in code:  # NVCC_COMMAND is tried at every offset: most build files name no nvcc
        return
    kept = quiet_prefix(code, facts)
    for match in NVCC_COMMAND.finditer(code):
        prefix = kept(match)
        yield match.start() + len(prefix), match.group()[len(prefix):]


def gpu_compiler_options(code: str, facts: BuildFacts) -> Callable[..., bool]:
    """Whether the GPU compiler gets an option matched in a Makefile or script (`code`: its comments blanked): the
    option is on a command that runs it, or assigned to a variable such a command expands (or one expanded in the
    value of one, as make does), or to one of rules/_build.yaml's `hipcc_flag_variables`. A host compiler's options,
    and a program's (`./train -t 1024`), stay their own. An NVIDIA architecture (`architecture`: -arch=sm_80,
    -gencode) is nvcc's alone: assigned to a variable no command of the file expands (a config.mk's `CUDA_ARCH`, which
    the Makefile including it gives nvcc) it is the GPU compiler's too."""
    lines = _LOGICAL_LINE.findall(code)
    assigned = [(m.group(2), line[m.end(1):]) for line in lines if (m := ASSIGNMENT.match(line))]
    compilers = _compiler_variables(assigned, facts)

    def runs_compiler(command: str) -> bool:
        return _runs(command, compilers)

    commands = [command for line in lines if not ASSIGNMENT.match(line) for command in COMMAND_END.split(line)]
    given = _with_their_values({name for command in commands if runs_compiler(command)
                                for name in _EXPANDED.findall(command)} | set(facts.hipcc_flag_variables), assigned)
    expanded = _with_their_values({name for command in commands for name in _EXPANDED.findall(command)}, assigned)

    def for_compiler(match: re.Match, architecture: bool = False) -> bool:
        line, at = logical_line(match.string, match.start())
        assignment = ASSIGNMENT.match(line)
        if assignment:
            name = assignment.group(2)
            return name in given or name in compilers or architecture and name not in expanded
        return runs_compiler(command_at(line, at))
    return for_compiler


def _with_their_values(names: set[str], assigned: list[tuple[str, str]]) -> set[str]:
    """`names` and the variables their values expand, as make expands them (`assigned`: the file's (name, value))."""
    names = set(names)
    while True:
        more = {name for assignee, value in assigned if assignee in names for name in _EXPANDED.findall(value)} - names
        if not more:
            return names
        names |= more


class ReachesCompiler(Protocol):
    """Whether the GPU compiler gets what a build file's pattern matched: an nvcc option (`hipcc_only`: one a host
    compiler takes too, rules/_build.yaml), or an NVIDIA architecture (`architecture`: -arch=sm_80, -gencode)."""

    def __call__(self, match: re.Match, hipcc_only: bool = False, architecture: bool = False) -> bool: ...


def nvcc_option_reaches_compiler(file_type: str, code: str, facts: BuildFacts) -> ReachesCompiler:
    """Whether the GPU compiler gets an nvcc option or architecture matched in a build file of `file_type` (`code`:
    its comments blanked), where convert rewrites it and scan lists it: in a Makefile, configure.ac or script only where
    it does (gpu_compiler_options: a program's `-t 1024` is its own); in CMake, in a command that runs a program
    (add_test, add_custom_command) only where that program is the GPU compiler, elsewhere an option of `hipcc_only`
    only in a command that sets the GPU compiler's flags, the others wherever they are."""
    if file_type == "cmake":
        compilers = cmake_compiler_variables(code, facts)

        def in_cmake(match: re.Match, hipcc_only: bool = False, architecture: bool = False) -> bool:
            runs = cmake_runs_compiler(match, facts, compilers)
            if runs is not None:
                return runs
            return not hipcc_only or cmake_for_gpu_compiler(match)
        return in_cmake
    for_compiler = gpu_compiler_options(code, facts)
    return lambda match, hipcc_only=False, architecture=False: for_compiler(match, architecture)


def _compiler_variables(assigned: list[tuple[str, str]], facts: BuildFacts) -> set[str]:
    """The variables that name the GPU compiler: rules/_build.yaml's, and those a file assigns a value that runs it
    (`NVCC = hipcc`, `CUDACC = $(NVCC)`); `assigned`: (name, value) of the file's assignments."""
    compilers = set(facts.hipcc_variables)
    for name, value in assigned:
        if _runs(value.split()[0] if value.split() else "", compilers):
            compilers.add(name)
    return compilers


def _runs(command: str, compilers: set[str]) -> bool:
    """Whether `command` names the GPU compiler: by name or path, or a variable of `compilers` it expands."""
    return _GPU_COMPILER.search(command) is not None or not compilers.isdisjoint(_EXPANDED.findall(command))


# A make function call that runs a shell: `$(shell ...)`, `${shell ...}`.
_SHELL_CALL = re.compile(r"\$([({])shell[ \t]")
_CLOSING = {"(": ")", "{": "}"}
# What a shell command starts with before its program: `NAME=value ` assignments of its environment.
_ENVIRONMENT = re.compile(r"[ \t]*(?:\w+=[^\s;|&]*[ \t]+)*")


@dataclasses.dataclass(frozen=True)
class ShellCall:
    """A Makefile's `$(shell ...)`, whose command make runs with make's environment, not its exported variables
    (GNU make before 4.4)."""

    start: int  # its `$`
    text: str  # `$(shell ...)` whole
    # (offset of its program, the environment it sets before it, the command) of each command that runs the compiler
    compiler_runs: tuple[tuple[int, str, str], ...]


def compiler_shell_calls(code: str, facts: BuildFacts) -> list[ShellCall]:
    """The `$(shell ...)` calls of a Makefile that run the GPU compiler (`code`: its comments blanked). Their end is
    found as make finds it: the delimiter that opened the call, counted, quotes or not."""
    if "shell" not in code:
        return []
    lines = _LOGICAL_LINE.findall(code)
    compilers = _compiler_variables([(m.group(2), line[m.end(1):]) for line in lines if (m := ASSIGNMENT.match(line))],
                                    facts)
    calls = []
    for call in _SHELL_CALL.finditer(code):
        opening, depth, end = call.group(1), 1, call.end()
        while depth and end < len(code):
            depth += {opening: 1, _CLOSING[opening]: -1}.get(code[end], 0)
            end += 1
        runs, begin = [], call.end()
        for separator in [*COMMAND_END.finditer(code, call.end(), end - 1), None]:
            finish = separator.start() if separator is not None else end - 1
            program = _ENVIRONMENT.match(code, begin, finish).end()
            command = code[program:finish]
            if _runs(command.split()[0] if command.split() else "", compilers):
                runs.append((program, code[begin:program], command.strip()))
            begin = separator.end() if separator is not None else finish
        if runs:
            calls.append(ShellCall(call.start(), code[call.start():end], tuple(runs)))
    return calls


# A value configure substitutes, in a Makefile.in: `NVCC = @NVCC@`.
_SUBSTITUTED = re.compile(r"@\w+@[ \t]*")


def runs_configured_compiler(code: str, facts: BuildFacts) -> bool:
    """Whether a command of a Makefile.am or Makefile.in runs the GPU compiler through a variable configure gives it
    (configure.ac's `NVCC="nvcc"` and AC_SUBST(NVCC), which convert writes as hipcc): a variable of rules/_build.yaml's
    `hipcc_variables` the file does not assign, or assigns configure's `@NAME@` (`code`: its comments blanked)."""
    lines = _LOGICAL_LINE.findall(code)
    own = {m.group(2) for line in lines if (m := ASSIGNMENT.match(line)) and not _SUBSTITUTED.fullmatch(m.group(3))}
    configured = set(facts.hipcc_variables) - own
    return any(not configured.isdisjoint(_EXPANDED.findall(command))
               for line in lines if not ASSIGNMENT.match(line) for command in COMMAND_END.split(line))


def logical_line(text: str, offset: int) -> tuple[str, int]:
    """The backslash-continued line of `text` around `offset`, and the offset in it."""
    start = text.rfind("\n", 0, offset) + 1
    while start >= 2 and text[start - 2] == "\\":
        start = text.rfind("\n", 0, start - 1) + 1
    end = text.find("\n", offset)
    while end > 0 and text[end - 1] == "\\":
        end = text.find("\n", end + 1)
    return text[start:end if end >= 0 else len(text)], offset - start


def command_at(line: str, at: int) -> str:
    """The command of a logical line that offset `at` is in (`a; b && c`: one of the three)."""
    begin = max([0] + [end.end() for end in COMMAND_END.finditer(line, 0, at)])
    end = COMMAND_END.search(line, at)
    return line[begin:end.start() if end else len(line)]


# nvcc's -odir DIR with -M names the target of the dependency rule DIR/NAME.o (NAME: the source's file name without
# its directory and suffix: `nvcc -M src/k.cu -odir build` writes `build/k.o : src/k.cu`); clang has no -odir (it reads
# `-o dir`) and names that target NAME.o, or what -MT gives. In a recipe the source is `$<`.
OUTPUT_DIRECTORY = re.compile(
    r"(?<![ \t])[ \t]*(?<![\w-])(?:--output-directory|-odir)(?:=|[ \t]+)(?P<directory>[^\s\"';|&]+)")
_DEPENDENCY_STEP = re.compile(r"(?<![\w-])-MM?(?![\w-])")


_OUTPUT_DIRECTORY_NAME = re.compile(r"(?:--output-directory|-odir)(?:=|[ \t]+)")


def dependency_target(directory: str) -> str:
    """What convert writes for a recipe's dependency step's `-odir DIR` (names_dependency_target): the target nvcc
    named, as -MT gives it to clang."""
    return f"-MT {directory.rstrip('/')}/$(basename $(notdir $<)).o"


def names_dependency_target(text: str, offset: int) -> bool:
    """Whether what is at `offset` of a Makefile is an -odir on a recipe's dependency step of `$<` (`-M $< ... -odir
    DIR`), where convert writes the target it names as -MT."""
    if _OUTPUT_DIRECTORY_NAME.match(text, text.find("-", offset)) is None:
        return False
    line, at = logical_line(text, offset)
    command = command_at(line, at)
    return _DEPENDENCY_STEP.search(command) is not None and "$<" in command


# CMake commands whose options hipcc gets (CMAKE_CUDA_FLAGS, once CMAKE_HIP_FLAGS, and FindCUDA's nvcc flags).
_CMAKE_HIPCC = re.compile(r"\b(?:CMAKE_HIP_FLAGS|CMAKE_CUDA_FLAGS|CUDA_NVCC_FLAGS|HIP_HIPCC_FLAGS)\w*"
                          r"|COMPILE_LANG(?:UAGE|_AND_ID):(?:HIP|CUDA)\b")
# The command whose argument list an offset is in (CMake's commands do not nest).
_OPEN_COMMAND = re.compile(r"(\w+)\s*\(([^()]*)\Z")


def cmake_for_gpu_compiler(match: re.Match) -> bool:
    """Whether a CMake option matched is given to the GPU compiler: the command it is in sets that compiler's flags."""
    command = _OPEN_COMMAND.search(match.string, max(0, match.start() - 4000), match.start())
    return command is not None and _CMAKE_HIPCC.search(command.group()) is not None


# A CMake argument: a quoted one (the last may be open: the option matched is in it) or an unquoted one.
_CMAKE_ARGUMENT = re.compile(r'"(?:[^"\\]|\\.)*"?|[^\s"]+')
# A variable a CMake file sets to a program: `set(NVCC_EXE ${CMAKE_CUDA_COMPILER})`, `find_program(NVCC NAMES nvcc)`.
_CMAKE_PROGRAM_VARIABLE = re.compile(r'\b(?:set|find_program)\s*\(\s*(\w+)\s+(?:NAMES\s+)?("?[^\s")]+"?)', re.I)


def cmake_compiler_variables(code: str, facts: BuildFacts) -> set[str]:
    """The CMake variables that name the GPU compiler: rules/_build.yaml's, and those the file (`code`: its comments
    blanked) sets to it."""
    compilers = set(facts.cmake_compiler_variables)
    for found in _CMAKE_PROGRAM_VARIABLE.finditer(code):
        if _cmake_names_compiler(found.group(2), compilers):
            compilers.add(found.group(1))
    return compilers


def _cmake_names_compiler(argument: str, compilers: set[str]) -> bool:
    """Whether a CMake argument names the GPU compiler: by name or path, or as a variable of `compilers`."""
    word = argument.strip('"')
    return _GPU_COMPILER.search(word) is not None or not compilers.isdisjoint(re.findall(r"\$\{(\w+)\}", word))


def cmake_runs_compiler(match: re.Match, facts: BuildFacts, compilers: set[str]) -> bool | None:
    """Whether what a CMake pattern matched is an argument of the GPU compiler, in a command that runs programs
    (rules/_build.yaml's `cmake_program_commands`: add_test(NAME t COMMAND app -t 1024), whose -t is the app's); None
    where it is in no such command. What follows another keyword of the command (COMMENT) is no program's."""
    call = _OPEN_COMMAND.search(match.string, max(0, match.start() - 4000), match.start())
    command = facts.cmake_program_commands.get(call.group(1).lower()) if call is not None else None
    if command is None:
        return None
    arguments = [a.group() for a in _CMAKE_ARGUMENT.finditer(call.group(2))]
    if arguments and not call.group(2)[-1:].isspace() and not match.group()[:1].isspace():
        arguments.pop()  # the start of the argument the match is in (`"-G -lineinfo"`), no word before it
    program, expecting = None, False
    for index, argument in enumerate(arguments):
        if argument == "COMMAND" or index == 0 and command.positional and argument not in command.keywords:
            program, expecting = None, True
        elif argument in command.keywords:
            program, expecting = None, False
        elif expecting and argument not in command.skipped:
            program, expecting = argument, False
    return program is not None and _cmake_names_compiler(program, compilers)
