"""FindCUDA's commands and variables (the old `find_package(CUDA)`), which find_package(hip) neither defines nor sets,
as CMake's HIP language path has them: a cuda_add_* target as add_* with its sources HIP and its OPTIONS its HIP
sources' compile options, the other commands and variables what rules/_build.yaml says, or a marker."""
from __future__ import annotations

import dataclasses
import re

from portkit.analyze.builds import (FINDCUDA_CALL, FINDCUDA_TARGETS, FINDCUDA_USES, assigned_variables,
                                    command_arguments, defined_commands, findcuda_advice, findcuda_command,
                                    findcuda_variable, is_expanded)
from portkit.analyze.cmake_language import CU_SOURCES, HIP_ENABLED, literal_variables
from portkit.codes import CMAKE_CUDA_LANGUAGE, FINDCUDA_COMMAND, FINDCUDA_VARIABLE
from portkit.convert.build_flags import cmake_target, hip_library, library_code, unported_advice
from portkit.convert.build_text import Rewriter
from portkit.convert.cmake_sources import cu_sources_of, line_indent, picked_cu_sources
from portkit.rules import RuleDatabase
from portkit.rules.build_facts import BuildFacts, FindCudaCommand, build_facts
from portkit.rules.versions import Target
from portkit.textutil import HASH_COMMENT, blank


def rewrite_findcuda_variables(rw: Rewriter, rules: RuleDatabase, target: Target) -> None:
    """FindCUDA's variables, which find_package(hip) does not set: its own of the same meaning, the HIP library a
    library variable's `${NAME}` holds, or else a marker (scan lists the same uses: analyze/builds.py)."""
    assigned = assigned_variables(blank(rw.text, HASH_COMMENT), blank(rw.original, HASH_COMMENT))
    facts = build_facts()

    def replace(use: re.Match) -> str:
        variable = findcuda_variable(use, assigned)
        if variable is None:
            return use.group()
        if variable.hip:
            return use.group().replace(variable.name, variable.hip)
        rule = rules.link(variable.library) if variable.library else None
        if rule is None or not is_expanded(use):
            return rw.kept(use.group(), FINDCUDA_VARIABLE, f"{variable.name}: {findcuda_advice(variable)}")
        found = hip_library(rule, target)
        if found is not None:
            return facts.library_path.replace("{library}", found.hip) if _reads_path(use, facts) else found.hip
        return rw.kept(use.group(), library_code(rule, target), f"{variable.name}: {rule.resolve(target).advice}")

    for pattern in FINDCUDA_USES:
        rw.sub(pattern, replace)


# The command whose argument list an offset is in (CMake's commands do not nest).
_OPEN_COMMAND = re.compile(r"(\w+)\s*\([^()]*\Z")


def _reads_path(use: re.Match, facts: BuildFacts) -> bool:
    """Whether the command a variable's use is an argument of reads it as a path, not a library to link."""
    command = _OPEN_COMMAND.search(use.string, max(0, use.start() - 4000), use.start())
    return command is not None and command.group(1).lower() in facts.library_path_commands


# FindCUDA reads these anywhere in the arguments of its commands; add_* takes them before the sources.
_TARGET_KEYWORDS = {"STATIC", "SHARED", "MODULE", "OBJECT", "EXCLUDE_FROM_ALL", "WIN32", "MACOSX_BUNDLE"}
# After OPTIONS, a build type's name (FindCUDA's default CUDA_configuration_types, upper case) makes the options
# after it that build type's only.
_BUILD_TYPES = ("DEBUG", "MINSIZEREL", "RELEASE", "RELWITHDEBINFO")
_UNSEEN_ADVICE = ("FindCUDA compiled this target's .cu sources with nvcc; a variable in a generator expression holds "
                  "some, which convert cannot see: give those .cu files the source properties it writes for the others "
                  "(set_source_files_properties), or CMake skips them.")


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
    translate_flags reads as a quoted value and the shell as one word."""
    return " ".join(word.replace('"', '\\"') if word.startswith('"') else word for word in words)


def _source_options(sources: list[str], options: dict[str, list[str]]) -> str:
    """OPTIONS, nvcc's for the .cu sources only (FindCUDA gives a target's host sources none), as those sources' compile
    flags, which translate_flags converts as hipcc's (the generator expression names the HIP language; hipcc as the C++
    compiler: a target's compile options would reach its host sources too). COMPILE_FLAGS, a string the command line
    gets as it is: CMake 3.25 takes a source's COMPILE_OPTIONS word by word, `SHELL:` unexpanded."""
    flags = " ".join(_shell_words(words) if not build_type else f"$<$<CONFIG:{build_type}>:{_shell_words(words)}>"
                     for build_type, words in options.items())
    return (f'set_property(SOURCE {" ".join(sources)} APPEND_STRING PROPERTY COMPILE_FLAGS '
            f'" $<$<COMPILE_LANGUAGE:HIP>:{flags}>")')


def rewrite_findcuda_commands(rw: Rewriter, rules: RuleDatabase, target: Target, facts: BuildFacts) -> None:
    """FindCUDA's commands, which find_package(hip) does not define: _FindCudaCommands says what each becomes."""
    commands = _FindCudaCommands(rw, rules, target, facts)
    rw.sub(FINDCUDA_CALL, commands.convert)
    if commands.enable_before:  # CMake enables a language at file scope only: before the definition that needs it
        rw.sub(rf"^([ \t]*)((?:function|macro)\s*\(\s*{re.escape(commands.enable_before)}(?!\w))",
               lambda m: f"{m.group(1)}enable_language(HIP)\n{m.group(1)}{m.group(2)}", re.I | re.M)


# Where a command is defined (function or macro) or its definition ends: CMake's definitions nest.
_DEFINITION = re.compile(r"\b(?:(function|macro)|end(?:function|macro))\s*\(\s*(\w*)", re.I)


def _definitions(code: str) -> list[tuple[int, int, str]]:
    """(start, end, name) of each outermost function or macro definition of a CMake file (comments blanked)."""
    found, depth, start, name = [], 0, 0, ""
    for match in _DEFINITION.finditer(code):
        if match.group(1):
            if depth == 0:
                start, name = match.start(), match.group(2)
            depth += 1
        elif depth:
            depth -= 1
            if depth == 0:
                found.append((start, match.end(), name))
    return found


class _FindCudaCommands:
    """A cuda_add_* target had its .cu sources compiled by nvcc with its OPTIONS and linked the CUDA runtime; as add_*
    it gets what CMake's HIP language path gives a target: the language enabled, LANGUAGE HIP on its .cu sources
    (mark_cu_sources on those named; those of a variable picked out here), the options as its HIP sources' and
    hip::host, whose platform define g++ needs for the HIP headers its host files include now. hip::device would
    make every C++ source HIP (-x hip). The other commands get what rules/_build.yaml says. One file's calls, in
    order: the first that needs the HIP language enables it."""

    def __init__(self, rw: Rewriter, rules: RuleDatabase, target: Target, facts: BuildFacts):
        self.rw, self.rules, self.target = rw, rules, target
        self.code = blank(rw.text, HASH_COMMENT)
        self.enabled = re.search(HIP_ENABLED, self.code, re.I) is not None
        self.literal = literal_variables(self.code)
        self.defined = defined_commands(self.code)
        self.library = cmake_target(facts.findcuda_target_library, rules, target)
        self.definitions = _definitions(self.code)
        self.compiled: set[str] = set()  # the variables cuda_compile filled
        self.enable_before = ""  # the definition the HIP language is enabled before, where a call in one needs it
        self.cursor = 0  # where the call converted last is in `code` (a rewrite sees code between comments only)

    def convert(self, match: re.Match) -> str:
        found = self.code.find(match.group(), self.cursor)
        self.cursor = found + len(match.group()) if found >= 0 else self.cursor
        self.definition = next((name for start, end, name in self.definitions if start <= found < end), None)
        written = match.group().split("(")[0].strip()
        if written.lower() in FINDCUDA_TARGETS:
            return self._target_call(match, written)
        command = findcuda_command(match, self.defined)
        if command is None:
            return match.group()
        if command.hip:
            return self._hip_call(match, written, command)
        if command.link:
            return self._link_call(match, written, command)
        if command.finds:
            return self._find_call(match, written, command)
        if command.compiles and command.compiled(command_arguments(match)) is not None:
            return self._compile_call(match, command)
        if command.drop:
            return self.rw.removed(FINDCUDA_COMMAND, f"{written}: {command.advice}")
        return self.rw.kept(match.group(), FINDCUDA_COMMAND, f"{written}: {command.advice}")

    def _hip_sources(self, call: str, sources: list[str], indent: str) -> tuple[list[str], list[str]]:
        """The lines of a call of HIP sources with the language enabled before it, and the variables among them."""
        # Names written out, inside a generator expression too, are mark_cu_sources'.
        variables = [word for word in sources if re.fullmatch(r"\$\{.+\}", word) and word[2:-1] not in self.literal]
        unseen = [word for word in sources if "$<" in word and "${" in word]
        if unseen:
            call = self.rw.kept("", CMAKE_CUDA_LANGUAGE, f"{' '.join(unseen)}: {_UNSEEN_ADVICE}") + call
        if self.enabled or not (unseen or variables or any(word.endswith(".cu") for word in sources)):
            return [call], variables
        self.enabled = True
        if self.definition is not None:
            self.enable_before = self.definition
            return [call], variables
        return ["enable_language(HIP)", indent + call], variables

    def _target_call(self, match: re.Match, written: str) -> str:
        words, indent = command_arguments(match), line_indent(match)
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
            lines += picked_cu_sources(variables, indent)
        return "\n".join(lines + self._options_lines(arguments, variables, indent))

    def _compile_call(self, match: re.Match, command: FindCudaCommand) -> str:
        """The variable of objects holds the HIP sources, which the target that lists it compiles."""
        out, rest = command.compiled(command_arguments(match))
        arguments, indent = _findcuda_arguments(rest), line_indent(match)
        lines, variables = self._hip_sources(f"set({' '.join([out] + arguments.sources)})", arguments.sources, indent)
        if not variables and all("$" not in word for word in arguments.sources):
            self.literal.add(out)
        self.compiled.add(out)  # its sources have their own OPTIONS: FindCUDA links their objects
        if variables:
            lines += picked_cu_sources(variables, indent)
        return "\n".join(lines + self._options_lines(arguments, variables, indent))

    def _options_lines(self, arguments: _FindCudaArguments, picked: list[str], indent: str) -> list[str]:
        """The lines that give the OPTIONS to the .cu sources: those named, and those of variables (`picked`: those
        picked out already; the .cu files of a variable of names written out are picked out here)."""
        named = [word for word in arguments.sources if word.endswith(".cu") and "$<" not in word]
        literal = [word for word in arguments.sources if re.fullmatch(r"\$\{.+\}", word) and word not in picked
                   and word[2:-1] in self.literal - self.compiled]
        lines = cu_sources_of(picked + literal, indent) if literal else []
        sources = named + ([f"${{{CU_SOURCES}}}"] if picked or literal else [])
        if not arguments.options or not sources:
            return []
        return lines + [indent + _source_options(sources, arguments.options)]

    def _hip_call(self, match: re.Match, written: str, command: FindCudaCommand) -> str:
        """The HIP command with the call's arguments, the CUDA library one names HIP's (or marked: HIP lacks it)."""
        words = command_arguments(match)
        library = command.library(words)
        if not library:
            return command.hip + match.group()[len(written):]
        rule = self.rules.link(library)
        found = hip_library(rule, self.target)
        if found is not None:
            words[command.library_argument] = found.hip
            return f"{command.hip}({' '.join(words)})"
        call = command.hip + match.group()[len(written):]
        if rule is None:
            return self.rw.kept(call, FINDCUDA_COMMAND, f"{written}: {command.advice}")
        advice = unported_advice(rule, self.target) or rule.resolve(self.target).advice
        return self.rw.kept(call, library_code(rule, self.target), f"{written}: {advice}")

    def _link_call(self, match: re.Match, written: str, command: FindCudaCommand) -> str:
        hip = cmake_target(command.link, self.rules, self.target)
        words = command_arguments(match)
        if hip is None or not words:
            rule = self.rules.link(command.link)
            advice = unported_advice(rule, self.target) or "no HIP library known; link the ROCm one by hand."
            code = library_code(rule, self.target) if rule else FINDCUDA_COMMAND
            return self.rw.kept(match.group(), code, f"{written}: {advice}")
        return f"target_link_libraries({words[0]} {_link_keyword(self.code, words[0])}{hip})"

    def _find_call(self, match: re.Match, written: str, command: FindCudaCommand) -> str:
        """find_library of the HIP library into the variable FindCUDA set: the project's uses of it stay."""
        words = command_arguments(match)
        library = command.library(words)
        rule = self.rules.link(library) if library else None
        found = hip_library(rule, self.target) if rule is not None else None
        if found is None:
            advice = (unported_advice(rule, self.target) if rule else None) or command.advice
            code = library_code(rule, self.target) if rule else FINDCUDA_COMMAND
            return self.rw.kept(match.group(), code or FINDCUDA_COMMAND, f"{written}: {advice}")
        return f"find_library({command.finds.format(library=library)} {found.hip})"


def _link_keyword(code: str, name: str) -> str:
    """The keyword the project links target `name` with, and a blank, or "" (CMake refuses both signatures on one
    target)."""
    keyword = re.search(rf"\btarget_link_libraries\s*\(\s*{re.escape(name)}\s+"
                        r"(PRIVATE|PUBLIC|INTERFACE|LINK_PRIVATE|LINK_PUBLIC)\b", code, re.I)
    return keyword.group(1) + " " if keyword else ""
