"""Rewrite CMake files, Makefiles and shell scripts from nvcc/CUDA to hipcc/HIP.

Text rewrites by pattern, outside comments. What cannot be rewritten is
reported as a note (line and advice), never silently dropped. The facts
(architecture pairs, flag translations) are data in rules/_build.yaml.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Callable

from portkit.rules import Rule, RuleDatabase
from portkit.rules.build_facts import BuildFacts, build_facts
from portkit.rules.versions import Target
from portkit.textutil import LineIndex


@dataclasses.dataclass(frozen=True, order=True)
class BuildNote:
    line: int
    message: str


@dataclasses.dataclass(frozen=True)
class BuildConversion:
    text: str
    notes: tuple[BuildNote, ...]


# A comment: from `#` anywhere in CMake and make; in a shell script only where a word starts (`$#`,
# `${#list[@]}` are no comments).
_HASH_COMMENT = re.compile(r"(#[^\n]*)")
_SHELL_COMMENT = re.compile(r"((?:(?<=\s)|^)#[^\n]*)", re.M)


class _Rewriter:
    """Applies regex rewrites to the code parts of a file and collects notes."""

    def __init__(self, text: str, comment: re.Pattern[str] = _HASH_COMMENT):
        self.text = text
        self.comment = comment
        self.notes: list[BuildNote] = []

    def note(self, offset: int, message: str) -> None:
        self.notes.append(BuildNote(LineIndex(self.text).line_of(offset) + 1, message))

    def sub(self, pattern: str, replace: Callable[[re.Match], str], flags: int = 0) -> None:
        """Substitute outside comments."""
        code = re.compile(pattern, flags)
        pieces = self.comment.split(self.text)  # code, comment, code, comment ..., code
        self.text = "".join(piece if i % 2 else code.sub(replace, piece) for i, piece in enumerate(pieces))

    def find(self, pattern: str, flags: int = 0):
        start = 0
        for comment in [*self.comment.finditer(self.text), None]:
            end = comment.start() if comment is not None else len(self.text)
            for match in re.finditer(pattern, self.text[start:end], flags):
                yield start + match.start(), match
            start = comment.end() if comment is not None else end


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


def _translate_flags(rewriter: _Rewriter, facts: BuildFacts, offload_arch: tuple[str, ...]) -> None:
    """nvcc options shared by Makefiles and CMAKE_CUDA_FLAGS strings."""
    arch_flag = r"(?:-arch|--gpu-architecture|-code|--gpu-code)[= ]\s*(?:sm_|compute_)(\d+)[af]?"
    gencode = r"(?:-gencode|--generate-code)[= ]\s*\"?arch=compute_(\d+)[af]?,\s*code=\[?[\w,]+\]?\"?"

    def arch(match: re.Match) -> str:
        return " ".join(f"--offload-arch={a}" for a in _arch_list(match.group(1), facts, offload_arch))

    rewriter.sub(gencode, arch)
    rewriter.sub(r"(?<![\w-])" + arch_flag, arch)
    rewriter.sub(r"(--offload-arch=\w+)((?:\s+--offload-arch=\w+)*)",
                 lambda m: " ".join(dict.fromkeys([m.group(1)] + m.group(2).split())))
    rewriter.sub(r"(?<![\w-])-Xcompiler[= ]\s*(\"[^\"]*\"|'[^']*'|\S+)",
                 lambda m: " ".join(m.group(1).strip("\"'").split(",")))
    for flag, replacement in sorted(facts.nvcc_flags.items(), key=lambda kv: -len(kv[0])):
        rewriter.sub(r"(?<![\w-])" + re.escape(flag) + r"(?![\w=-])", lambda m, r=replacement: r)
    for flag, advice in facts.nvcc_unsupported.items():
        for offset, _ in rewriter.find(r"(?<![\w-])" + re.escape(flag) + r"(?![\w-])"):
            rewriter.note(offset, f"{flag}: {advice}")


_LINK_FLAG = r"(?<![\w-])-l(\w+)"


def _library(rule: Rule | None, target: Target) -> Rule | None:
    """The rule of a CUDA library whose HIP one the targeted HIP has (hipBLASLt needs 5.5), else None."""
    return rule if rule is not None and rule.hip and rule.resolve(target).hip else None


def _too_new(rewriter: _Rewriter, rule: Rule | None, target: Target, offset: int, spelled: str) -> bool:
    """Note a CUDA library whose HIP one needs a newer HIP than the target: left as it is."""
    if rule is None or not rule.hip or _library(rule, target) is not None:
        return False
    rewriter.note(offset, f"{spelled}: {rule.resolve(target).advice}")
    return True


def _link_flags(rewriter: _Rewriter, rules: RuleDatabase, target: Target) -> None:
    def replace(match: re.Match) -> str:
        rule = _library(rules.link(match.group(1)), target)
        return f"-l{rule.hip}" if rule is not None else match.group()

    rewriter.sub(_LINK_FLAG, replace)
    for offset, match in rewriter.find(_LINK_FLAG):
        _too_new(rewriter, rules.link(match.group(1)), target, offset, match.group())
    for offset, match in rewriter.find(r"(?:/usr/local/cuda[\w.-]*|\$[({]?CUDA(?:_PATH|_HOME|_ROOT|_TOOLKIT_ROOT_DIR)?(?!\w)[)}]?)"):
        rewriter.note(offset, f"{match.group()}: a CUDA install path; point it at ROCm (e.g. /opt/rocm or $(ROCM_PATH)).")


_ARCH_FLAG_OF_VARIABLE = r"(?<![\w-])(?:-arch|--gpu-architecture)[= ]\s*(\$[({])(\w+)([)}])"
# `NAME = sm_60` on a line of its own: the assignment up to the value, the name, the value.
_ARCH_ASSIGNMENT = r"(?m)^([ \t]*(\w+)[ \t]*(?::=|\?=|=)[ \t]*)((?:sm|compute)_\d+[af]?)(?=[ \t]*$)"


def _arch_variables(rewriter: _Rewriter, facts: BuildFacts, offload_arch: tuple[str, ...]) -> None:
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


def convert_makefile(text: str, rules: RuleDatabase, offload_arch: tuple[str, ...] = (),
                     shell: bool = False, target: Target = Target()) -> BuildConversion:
    """A Makefile's, or (`shell`) a shell script's, nvcc command lines: the two share `NAME=value`
    assignments and `$(NAME)`/`${NAME}` uses; a shell comment starts only where a word does. A library
    the targeted HIP lacks stays CUDA's, with a note."""
    facts = build_facts()
    rewriter = _Rewriter(text, _SHELL_COMMENT if shell else _HASH_COMMENT)
    rewriter.sub(r"(?:(?<![\w/.-])|(?<=:-))nvcc(?![\w-])", lambda m: "hipcc")  # `${NVCC:-nvcc}` too
    _arch_variables(rewriter, facts, offload_arch)
    _translate_flags(rewriter, facts, offload_arch)
    _link_flags(rewriter, rules, target)
    return BuildConversion(rewriter.text, tuple(sorted(set(rewriter.notes))))


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
                  target: Target = Target()) -> BuildConversion:
    facts = build_facts()
    rw = _Rewriter(text)
    language = r"(?<![\w$])CUDA(?![\w])"
    rw.sub(r"\bproject\s*\([^)]*\)", lambda m: re.sub(language, "HIP", m.group()), re.I)
    rw.sub(r"\benable_language\s*\(\s*CUDA\s*\)", lambda m: "enable_language(HIP)", re.I)
    rw.sub(r"\bLANGUAGE\s+CUDA\b", lambda m: "LANGUAGE HIP")
    # Generator expressions name the language too: $<COMPILE_LANGUAGE:CUDA> would silently stop applying.
    rw.sub(r"\$<((?:COMPILE|LINK)_LANG(?:UAGE|_AND_ID)):([^>]*)>",
           lambda m: "$<" + m.group(1) + ":" + _genex_arguments(m.group(1), m.group(2)) + ">")
    rw.sub(r"\bcuda_add_(executable|library)\b", lambda m: f"add_{m.group(1)}", re.I)

    def architectures(match: re.Match) -> str:
        values = match.group(2)
        if values.strip().strip('"').lower() in ("native", "all", "all-major"):
            return f"{match.group(1).replace('CUDA', 'HIP')} {values}"
        return f"{match.group(1).replace('CUDA', 'HIP')} {' '.join(_arch_list(values, facts, offload_arch))}"

    rw.sub(r"\b((?:CMAKE_)?CUDA_ARCHITECTURES)\s+(\"[^\"]*\"|[\w;\s-]*?)(?=\s*[)\n]|\s+[A-Z_]{4,}\b)", architectures)
    rw.sub(r"\bCMAKE_CUDA_(\w+)", lambda m: f"CMAKE_HIP_{m.group(1)}")
    rw.sub(r"\bCUDA_STANDARD\b", lambda m: "HIP_STANDARD")
    for offset, match in rw.find(r"\b(CUDA_SEPARABLE_COMPILATION|CUDA_RESOLVE_DEVICE_SYMBOLS|CUDA_NVCC_FLAGS)\b"):
        rw.note(offset, f"{match.group()}: no HIP property of that name; use -fgpu-rdc in HIP_FLAGS or target options.")
    _translate_flags(rw, facts, offload_arch)

    def hip_target(match: re.Match) -> str:
        return _cmake_target(match.group(), rules, target) or match.group()

    rw.sub(r"\b(?:CUDA|NCCL)::\w+", hip_target)
    for offset, match in rw.find(r"\b(?:CUDA|NCCL)::\w+"):
        if not _too_new(rw, rules.link(match.group()), target, offset, match.group()):
            rw.note(offset, f"{match.group()}: no HIP target known; link the ROCm library by hand.")

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
    _link_flags(rw, rules, target)
    _mark_cu_sources(rw)
    return BuildConversion(rw.text, tuple(sorted(set(rw.notes))))


def _mark_cu_sources(rw: _Rewriter) -> None:
    """CMake compiles .cu files as CUDA; with HIP they need LANGUAGE HIP."""
    def add_property(match: re.Match) -> str:
        sources = re.findall(r"[\w./${}-]+\.cu\b", match.group())
        line = f"set_source_files_properties({' '.join(sources)} PROPERTIES LANGUAGE HIP)"
        if not sources or line in rw.text:
            return match.group()
        return f"{match.group()}\n{line}"

    rw.sub(r"\badd_(?:executable|library)\s*\([^)]*\)", add_property, re.I)
