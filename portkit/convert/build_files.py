"""Rewrite Makefiles and shell scripts from nvcc/CUDA to hipcc/HIP (CMake files: cmake_files.py).

Text rewrites by pattern, outside comments (build_text.py); the options, architectures and libraries every kind of
build file shares are build_flags.py's. What cannot be rewritten gets a marker comment in the file and a note, never
silently dropped.
"""
from __future__ import annotations

import re
from typing import Callable, Iterator

from portkit.analyze.build_commands import (NVCC_COMMAND, NVCC_PATH, OUTPUT_DIRECTORY, compiler_shell_calls,
                                            dependency_target, gpu_compiler_options, names_dependency_target,
                                            quiet_prefix, runs_configured_compiler)
from portkit.analyze.builds import (ASSIGNMENT, AUTOCONF_LIBRARY_TEST, LIBRARY_NAME, LIBRARY_VARIABLE_USE,
                                    library_variables)
from portkit.codes import CUDA_PATH, GPU_ARCHITECTURE, NVCC_FLAG, Status, code_for_status
from portkit.convert.build_flags import (SHELL_STRETCH_END, arch_list, hip_library, library_code, link_flags, translate_flags,
                                         unported_advice, unsupported)
from portkit.convert.build_text import HASH_COMMENT, BuildConversion, Rewriter
from portkit.rules import RuleDatabase
from portkit.rules.build_facts import BuildFacts, build_facts
from portkit.rules.versions import Target
from portkit.textutil import AUTOCONF_COMMENT, SHELL_COMMENT, blank


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


def _library_variables(rw: Rewriter, rules: RuleDatabase, target: Target) -> None:
    """`CUDARTLIB ?= cudart` ... `-l$(CUDARTLIB)`: the library names in the variable's assignments become HIP's, as the
    `-l` flags do (`make CUDARTLIB=...` still chooses)."""
    used = set().union(*(library_variables(m.group()) for _, m in rw.find(LIBRARY_VARIABLE_USE.pattern)))
    if not used:
        return

    def library(match: re.Match) -> str:
        name, rule = match.group(), rules.link(match.group())
        if unsupported(rule):
            return rw.removed(library_code(rule, target), f"{name}: {rule.resolve(target).advice}")
        found = hip_library(rule, target)
        if found is not None:
            return found.hip
        advice = unported_advice(rule, target)
        return rw.kept(name, library_code(rule, target), f"{name}: {advice}") if advice else name

    rw.sub(ASSIGNMENT, lambda m: m.group(1) + LIBRARY_NAME.sub(library, m.group(3)) if m.group(2) in used else m.group())


def _autoconf_library_tests(rw: Rewriter, rules: RuleDatabase, target: Target) -> None:
    """configure.ac's `AC_CHECK_LIB([cudart], [cudaMalloc])`: HIP's library, and the function HIP's spelling of it,
    else the test would fail on a ROCm machine (a function HIP lacks: a note)."""
    def library(name: str, offset: int) -> str:
        rule = rules.link(name)
        found = hip_library(rule, target)
        if found is not None:
            return found.hip
        advice = unported_advice(rule, target) or (rule.resolve(target).advice if unsupported(rule) else "")
        if advice:
            rw.note(offset, library_code(rule, target), f"{name}: {advice}")
        return name

    def function(name: str, offset: int) -> str:
        rule = rules.lookup(name)
        resolved = rule.resolve(target) if rule is not None else None
        if resolved is not None and resolved.hip and resolved.status is not Status.UNSUPPORTED:
            return resolved.hip
        if rule is not None:
            rw.note(offset, code_for_status(resolved.status), f"{name}: no HIP function to test for; test for one "
                    "the program calls that HIP has (hipMalloc), or drop the test.")
        return name

    def replace(match: re.Match) -> str:
        text, end = "", match.start()
        for group in ("library", "function", "searched", "libraries"):
            if match.group(group) is None:
                continue
            text += match.string[end:match.start(group)]
            if group in ("function", "searched"):
                text += function(match.group(group), match.start(group))
            else:
                text += re.sub(r"\w+", lambda w: library(w.group(), match.start(group) + w.start()), match.group(group))
            end = match.end(group)
        return text + match.string[end:match.end()]

    rw.sub(AUTOCONF_LIBRARY_TEST, replace)


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
        archs = arch_list(match.group(3), facts, offload_arch)
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


def _dependency_targets(rw: Rewriter, for_hipcc: Callable[[re.Match], bool]) -> None:
    """A Makefile recipe's `hipcc -M $< ... -odir DIR`: the target nvcc wrote, named with -MT. Elsewhere (no -M, a
    script, another source) -odir keeps its marker (rules/_build.yaml)."""
    def replace(match: re.Match) -> str:
        if not for_hipcc(match) or not names_dependency_target(match.string, match.start()):
            return match.group()
        return f" {dependency_target(match.group('directory'))}"

    rw.sub(OUTPUT_DIRECTORY, replace)


# A make conditional's lines: `ifneq (...)`, `else ifdef NAME`, `endif`; groups `else`, `test` (its condition).
_CONDITIONAL = r"(?m)^[ \t]*(?:(?P<else>else)[ \t]+)?(?:ifn?eq|ifn?def)[ \t]+(?P<test>[^\n]*?)[ \t]*$|^[ \t]*(?P<end>endif)\b"
_SAME_TEST = ("its test is now the same as an earlier branch's (both tested for nvcc's path; hipcc's is one), so this "
              "branch is never taken: drop it, or test for what tells the two apart (the ROCm path: /opt/rocm/bin/hipcc).")


def _repeated_hipcc_tests(rw: Rewriter) -> None:
    """`ifneq ("$(wildcard /usr/bin/nvcc)","")` ... `else ifneq ("$(wildcard /usr/local/cuda/bin/nvcc)","")` (gpu-burn)
    both test for hipcc now: the later branch, never taken, gets a marker."""
    chains: list[set[str]] = []
    for offset, match in rw.find(_CONDITIONAL):
        if match.group("end"):
            if chains:
                chains.pop()
            continue
        test = " ".join(match.group("test").split())
        if not match.group("else") or not chains:
            chains.append({test})
        elif test in chains[-1] and "hipcc" in test:
            rw.note(offset, CUDA_PATH, f"{match.group().strip()}: {_SAME_TEST}")
        else:
            chains[-1].add(test)


_SETS_HIP_PLATFORM = re.compile(r"(?m)^[ \t]*(?:(?:export|override)[ \t]+)*HIP_PLATFORM[ \t]*(?:::?=|\?=|=)")


def _hip_platform(rw: Rewriter, facts: BuildFacts) -> None:
    """The lines that make hipcc build for AMD where nvcc is installed too, after the file's leading comments."""
    if _SETS_HIP_PLATFORM.search(rw.text):
        return  # the file's own, or this line from an earlier convert
    rw.insert_lines(re.match(r"(?:[ \t]*(?:#[^\n]*)?\n)*", rw.text).end(), facts.makefile_hip_platform)


def sets_hip_platform(text: str) -> bool:
    """Whether a Makefile sets HIP_PLATFORM once converted: itself, or with the lines convert writes where its nvcc
    becomes hipcc (`NVCC := nvcc` in the common.mk a Makefile includes)."""
    code = blank(text, HASH_COMMENT)
    return _SETS_HIP_PLATFORM.search(code) is not None or NVCC_COMMAND.search(code) is not None


def _shell_calls(rw: Rewriter, facts: BuildFacts, included_platform: bool) -> None:
    """A $(shell ...) command that runs hipcc gets the Makefile's HIP_PLATFORM in its environment (GNU make before 4.4
    does not export it there), where the Makefile or a file it includes (`included_platform`) sets it; one whose
    output is read for nvcc's version, which hipcc's does not say, a marker."""
    sets_platform = included_platform or _SETS_HIP_PLATFORM.search(blank(rw.text, rw.comment)) is not None
    version = facts.nvcc_version_output

    def inserts(text: str) -> Iterator[tuple[int, str]]:
        for call in compiler_shell_calls(blank(text, rw.comment), facts):
            for program, environment, command in call.compiler_runs:
                if sets_platform and not re.search(r"\bHIP_PLATFORM=", environment):
                    yield program, facts.shell_hip_platform
                if version.read_from(command, call.text):
                    yield program, rw.removed(NVCC_FLAG, f"{command}: {version.advice}")
    rw.insert(inserts)


def convert_makefile(text: str, rules: RuleDatabase, offload_arch: tuple[str, ...] = (),
                     shell: bool = False, target: Target = Target(), file_type: str = "",
                     configured: bool = False, included_platform: bool = False) -> BuildConversion:
    """A Makefile's, or (`shell`) a shell script's, nvcc command lines: the two share `NAME=value`
    assignments and `$(NAME)`/`${NAME}` uses; a shell comment starts only where a word does. A library
    the targeted HIP lacks stays CUDA's, with a note. `file_type` "autoconf": a configure.ac (`shell`), whose
    library tests name libraries too. `configured`: a Makefile.am or Makefile.in, whose variables configure may give.
    `included_platform`: a Makefile a file it includes sets HIP_PLATFORM for, once converted (sets_hip_platform)."""
    facts = build_facts().for_target(target)
    rewriter = Rewriter(text, AUTOCONF_COMMENT if file_type == "autoconf" else SHELL_COMMENT if shell else HASH_COMMENT)
    switched = any(rewriter.find(NVCC_COMMAND.pattern))
    # A test for nvcc's file asks whether the compiler is installed: ask the same of hipcc, wherever it is (the bare
    # name would be a file in the current directory).
    if shell:
        rewriter.sub(rf"(?<![\w-])(-[efx][ \t]+)[\"']?{NVCC_PATH}[\"']?", lambda m: f'{m.group(1)}"$(command -v hipcc)"')
    else:
        rewriter.sub(rf"\$\(wildcard[ \t]+{NVCC_PATH}[ \t]*\)", lambda m: "$(shell command -v hipcc)")
    kept = quiet_prefix(blank(text, rewriter.comment), facts)
    rewriter.sub(NVCC_COMMAND, lambda m: kept(m) + "hipcc")  # by path or name, `${NVCC:-nvcc}` too
    if not shell:
        _repeated_hipcc_tests(rewriter)
        # An automake or autoconf Makefile whose compiler configure gives runs hipcc too, configure.ac's nvcc
        # written as hipcc: the lines go where it runs (configure's own shell cannot export to make's commands).
        if switched or configured and runs_configured_compiler(blank(rewriter.text, rewriter.comment), facts):
            _hip_platform(rewriter, facts)
        _shell_calls(rewriter, facts, included_platform)
    _arch_variables(rewriter, facts, offload_arch)
    _architecture_loops(rewriter)
    for_hipcc = gpu_compiler_options(blank(rewriter.text, rewriter.comment), facts)
    if not shell:
        _dependency_targets(rewriter, for_hipcc)
    translate_flags(rewriter, facts, offload_arch,
                    lambda match, hipcc_only=False, architecture=False: for_hipcc(match, architecture), SHELL_STRETCH_END)
    _host_hip_flags(rewriter, facts)
    link_flags(rewriter, rules, target, file_type or ("script" if shell else "make"))
    _library_variables(rewriter, rules, target)
    if file_type == "autoconf":
        _autoconf_library_tests(rewriter, rules, target)
    return rewriter.finish()
