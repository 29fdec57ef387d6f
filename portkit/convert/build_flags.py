"""nvcc's command-line options, GPU architectures and link libraries in any build file (Makefile, shell script,
CMake) as hipcc's and HIP's: what the three kinds share.

The facts (architecture pairs, nvcc options and what hipcc takes) are data in rules/_build.yaml; link libraries come
from the rules' `kind: link` entries. What has no equivalent gets a marker (build_text.py), never silently dropped.
"""
from __future__ import annotations

import re

from portkit.analyze.build_commands import ReachesCompiler
from portkit.analyze.builds import library_file_advice, library_files
from portkit.analyze.environment import patterns
from portkit.codes import CONFIGURE_CUDA_SWITCH, CUDA_PATH, NVCC_FLAG, NVIDIA_TOOL, code_for_status
from portkit.convert.build_text import Rewriter
from portkit.rules import Rule, RuleDatabase
from portkit.rules.build_facts import LEAD, BuildFacts, NvccOption
from portkit.rules.versions import Target
from portkit.textutil import blank


def arch_list(values: str, facts: BuildFacts, offload_arch: tuple[str, ...]) -> list[str]:
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


# What ends the stretch of a build file in which an --offload-arch written again is a repeat: in CMake a command's
# parentheses and a generator expression's bounds (a command's arguments span lines; `;` separates a list's items), in
# a Makefile or script a line's end (not a backslash-continued one), a command's separators, and the parentheses and
# braces of a variable or a make function.
CMAKE_STRETCH_END = r"[()]|\$<|>"
SHELL_STRETCH_END = r"(?<!\\)\n|[;&|(){}]"


# An option (`--offload-arch=`, `-l`) and its value with its quotes, if it is a quoted word, and what separates it from the
# word before: blanks, a backslash-continued line's end, or a CMake list's `;`.
def _option_word(option: str, value: str = r"[\w:+-]+") -> re.Pattern[str]:
    return re.compile(rf"(?P<separator>[ \t]*\\\n[ \t]*|[ \t]+|;)?(?<![\w-])(?P<quote>\\?[\"']?){option}(?P<value>{value})"
                      r"(?P=quote)(?![\w:+-])")


_OFFLOAD_ARCH = _option_word("--offload-arch=")


def _once_per_stretch(rw: Rewriter, stretch_end: str, option: re.Pattern[str]) -> None:
    """An `option` (_option_word) written again with the same value in the same stretch goes, with what separates it
    from the word before."""
    def once(stretch: str) -> str:
        seen: set[str] = set()

        def repeat(found: re.Match) -> str:
            if found.group("value") in seen:
                return ""
            seen.add(found.group("value"))
            return found.group()
        return option.sub(repeat, stretch)

    def code(match: re.Match) -> str:
        pieces = re.split(f"({stretch_end})", match.group())  # stretch, its end, stretch ...
        return "".join(piece if i % 2 else once(piece) for i, piece in enumerate(pieces))

    rw.sub(r"[\s\S]+", code)


def _one_per_target(rw: Rewriter, stretch_end: str) -> None:
    """Each -gencode (or -arch) became the --offload-arch of its AMD GPU, and several NVIDIA ones pair with one AMD GPU
    (sm_70, sm_72: gfx906), or list it twice (compute_80 and sm_80): a target written again in the same stretch goes."""
    if rw.text.count("--offload-arch=") > 1:
        _once_per_stretch(rw, stretch_end, _OFFLOAD_ARCH)


def translate_flags(rw: Rewriter, facts: BuildFacts, offload_arch: tuple[str, ...],
                    for_hipcc: ReachesCompiler, stretch_end: str) -> None:
    """nvcc options shared by Makefiles, scripts and CMake strings and lists; `for_hipcc`: whether hipcc gets an
    option matched, which is rewritten only there (nvcc_option_reaches_compiler); `stretch_end`: what ends a stretch
    in which an architecture is written once (CMAKE_STRETCH_END, SHELL_STRETCH_END)."""
    def arch(match: re.Match) -> str:
        values = " ".join(g for g in match.groups() if g)  # a quote group holds no digits
        return " ".join(f"--offload-arch={a}" for a in arch_list(values, facts, offload_arch))

    def arch_for_hipcc(match: re.Match) -> str:
        return arch(match) if for_hipcc(match, architecture=True) else match.group()

    rw.sub(_GENCODE, arch_for_hipcc)
    rw.sub(_ARCH_FLAG, arch_for_hipcc)
    _one_per_target(rw, stretch_end)
    for option in facts.nvcc_options:
        rw.sub(option.pattern,
               lambda m, o=option: _option_text(rw, o, m) if for_hipcc(m, o.hipcc_only) else m.group())


def _option_text(rw: Rewriter, option: NvccOption, match: re.Match) -> str:
    hipcc = option.replacement(match.groupdict().get("value"))
    if hipcc is None:
        return rw.removed(NVCC_FLAG, f"{match.group().strip()}: {option.advice}")
    if option.note:
        return rw.kept(match.group("lead") + hipcc, NVCC_FLAG, f"{match.group().strip()}: {option.note}")
    return match.group("lead") + hipcc if hipcc else ""


_LINK_FLAG = rf"{LEAD}(?<![\w-])-l(?P<lib>[\w+-]+)"


def library_code(rule: Rule, target: Target) -> str:
    return code_for_status(rule.resolve(target).status)


def hip_library(rule: Rule | None, target: Target) -> Rule | None:
    """The rule of a CUDA library whose HIP one the targeted HIP has (hipBLASLt needs 5.5), else None."""
    return rule if rule is not None and rule.hip and rule.resolve(target).hip else None


def unported_advice(rule: Rule | None, target: Target) -> str | None:
    """Why a CUDA library stays as it is (the targeted HIP lacks its HIP one), else None."""
    if rule is None or not rule.hip or hip_library(rule, target) is not None:
        return None
    return rule.resolve(target).advice


def unsupported(rule: Rule | None) -> bool:
    """A CUDA library with no HIP counterpart at all: its link flag goes, with a marker."""
    return rule is not None and not rule.hip


def link_flags(rw: Rewriter, rules: RuleDatabase, target: Target, file_type: str) -> None:
    """CUDA's -l flags as HIP's; several CUDA libraries have one HIP library (-lcudart -lcuda: amdhip64), written once
    a stretch (CMAKE_STRETCH_END, SHELL_STRETCH_END by `file_type`)."""
    written: set[str] = set()

    def replace(match: re.Match) -> str:
        rule = rules.link(match.group("lib"))
        if unsupported(rule):
            return rw.removed(library_code(rule, target), f"{match.group().strip()}: {rule.resolve(target).advice}")
        found = hip_library(rule, target)
        if found is None:
            return match.group()
        written.add(found.hip)
        return f"{match.group('lead')}-l{found.hip}"

    rw.sub(_LINK_FLAG, replace)
    if written:
        _once_per_stretch(rw, CMAKE_STRETCH_END if file_type == "cmake" else SHELL_STRETCH_END,
                          _option_word("-l", "|".join(map(re.escape, sorted(written)))))
    for offset, match in rw.find(_LINK_FLAG):
        advice = unported_advice(rules.link(match.group("lib")), target)
        if advice:
            rw.note(offset + len(match.group("lead")), library_code(rules.link(match.group("lib")), target),
                    f"{match.group().strip()}: {advice}")
    for offset, written, rule in library_files(blank(rw.text, rw.comment), rules):
        rw.note(offset, CUDA_PATH, f"{written}: {library_file_advice(rule, target)}")
    for code in (CUDA_PATH, NVIDIA_TOOL, CONFIGURE_CUDA_SWITCH):
        note_patterns(rw, code, file_type)


def note_patterns(rw: Rewriter, code: str, file_type: str) -> None:
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


def cmake_target(name: str, rules: RuleDatabase, target: Target) -> str | None:
    rule = hip_library(rules.link(name), target)
    return rule.hip_cmake if rule is not None and rule.hip_cmake else None
