"""Build-system facts (rules/_build.yaml): GPU architecture pairs, nvcc options with what hipcc takes, and FindCUDA's
variables and commands with what find_package(hip) gives instead."""
from __future__ import annotations

import dataclasses
import functools
import re
from typing import Callable, Iterator, NamedTuple

from portkit.resources import load_data
from portkit.rules.versions import Target, parse_version


@dataclasses.dataclass(frozen=True)
class NvccOption:
    """One nvcc option, all its spellings: what hipcc takes instead, or the advice of the marker that
    replaces it."""

    names: tuple[str, ...]
    value: str | None  # what follows the name: None (nothing), "word", "words" or a regex
    hipcc: str | dict[str, str] | None
    advice: str
    note: str = ""  # the marker's text where what hipcc takes instead still needs a look
    hipcc_only: bool = False  # in CMake, a host compiler's option of that spelling stays as it is

    # The patterns are compiled when a build file is first read: a run of sources alone never reads them, and
    # compiling the 42 options' 84 patterns was 0.01 s of every start.
    @functools.cached_property
    def pattern(self) -> re.Pattern[str]:
        """The option with the blanks before it, which convert removes with it. Groups: `lead`, `name`, `value`."""
        spelled = "|".join(re.escape(n) for n in sorted(self.names, key=len, reverse=True))
        return re.compile(rf"{LEAD}(?<![\w-])(?P<name>{spelled}){_tail(self.value)}")

    @functools.cached_property
    def found(self) -> re.Pattern[str]:
        """`pattern` without `lead`, from the `-` every name starts with: the regex engine skips to each `-` at C
        speed (a first lookbehind is tried at every offset), for a scan, which never reads the blanks before."""
        after_dash = "|".join(re.escape(n[1:]) for n in sorted(self.names, key=len, reverse=True))
        return re.compile(rf"(?P<name>-(?<![\w-]-)(?:{after_dash})){_tail(self.value)}")

    def replacement(self, value: str | None) -> str | None:
        """What hipcc takes for the option with `value`; None: nothing, a marker says what to do."""
        hipcc = self.hipcc.get(value or "") if isinstance(self.hipcc, dict) else self.hipcc
        if hipcc is None:
            return None
        bare = _unquoted(value or "")
        return hipcc.replace("{value}", bare).replace("{words}", " ".join(bare.split(",")))


# An option as a word of a build file: a `-` with no letter, digit, `_` or `-` before it, and those after it.
_OPTION_WORD = re.compile(r"-(?<![\w-]-)[\w-]*")
# A value of one word: $(VAR) and ${VAR} are part of it, a quote, `;`, `)` or `>` ends it (CMake strings and lists,
# a generator expression's end: `$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-fPIC>`).
_WORD = r"(?:\$\([^)\s]*\)|\$\{[^}\s]*\}|[^\s\"';)$>])+"
# Words in quotes; `\"...\"` is a quoted value inside a CMake string (`"--compiler-options \" -fPIC -Wall \""`).
_ESCAPED_QUOTES = r'\\"(?:[^"\\]|\\[^"])*\\"'
_VALUES = {"word": _WORD, "words": rf"{_ESCAPED_QUOTES}|\"[^\"]*\"|'[^']*'|{_WORD}"}


# The blanks before an option, which a removal takes with it. They start where no blank is before them: a
# pattern free to start inside a run of blanks tries every offset of it (quadratic on blanked comments).
LEAD = r"(?P<lead>(?<![ \t])[ \t]*)"


def _tail(value: str | None) -> str:
    """What follows an option's name: its value (`value`: a kind of _VALUES, or a regex), or the name's end."""
    value = _VALUES.get(value or "", value)
    return rf"(?:=|[ \t]+)(?P<value>{value})(?![^\s\"';)>])" if value else r"(?![\w=-])"


def _unquoted(value: str) -> str:
    """A value without the quotes around it: `"a,b"`, `'a b'`, or `\\"a b\\"` inside a CMake string."""
    for quote in ('\\"', '"', "'"):
        if len(value) >= 2 * len(quote) and value.startswith(quote) and value.endswith(quote):
            return value[len(quote):-len(quote)]
    return value.strip("\"'")


def _option(entry: dict) -> NvccOption:
    if "hipcc" not in entry and "advice" not in entry:
        raise ValueError(f"nvcc option {entry['names'][0]}: needs 'hipcc' or 'advice'")
    if "note" in entry and not isinstance(entry.get("hipcc"), str):
        raise ValueError(f"nvcc option {entry['names'][0]}: a 'note' goes with what hipcc takes, a 'hipcc' text")
    if not all(_OPTION_WORD.fullmatch(n) for n in entry["names"]):
        raise ValueError(f"nvcc option {entry['names'][0]}: a name is '-' and then letters, digits, '_' or '-'")
    hipcc = entry.get("hipcc")
    if isinstance(hipcc, dict):
        hipcc = {str(k): str(v or "") for k, v in hipcc.items()}
    return NvccOption(tuple(entry["names"]), entry.get("value"), hipcc, entry.get("advice", ""), entry.get("note", ""),
                      bool(entry.get("hipcc_only", False)))


class OptionEdit(NamedTuple):
    """An nvcc option of a build file that convert rewrites."""

    offset: int  # of the option's name
    written: str  # the option as written, its value with it
    hipcc: str | None  # what convert writes instead ("": nothing, clang needs nothing for it); None: removed
    marker: str  # the text of the marker convert writes above the line: why it is removed, or what to check; else ""


@dataclasses.dataclass(frozen=True)
class CcclPackage:
    """CMake packages of CUDA's C++ libraries: the HIP packages found instead, and the HIP targets each of their
    targets links; or, where HIP has none, the advice of the marker each use gets."""

    packages: tuple[str, ...]
    hip: tuple[str, ...]
    targets: dict[str, tuple[str, ...]]
    advice: str = ""


def _cccl_package(entry: dict) -> CcclPackage:
    return CcclPackage(tuple(str(p) for p in entry["packages"]), tuple(str(p) for p in entry.get("hip", ())),
                       {str(k): tuple(str(t) for t in v) for k, v in entry["targets"].items()}, str(entry.get("advice", "")))


# The names of FindCUDAToolkit's variables start with it (FindCUDA's with CUDA_).
TOOLKIT_PREFIX = "CUDAToolkit_"


@dataclasses.dataclass(frozen=True)
class FindCudaVariable:
    """A variable FindCUDA sets: the HIP package's variable of the same meaning, the CUDA library it holds, or the
    advice of the marker a use gets (one of the three)."""

    name: str
    hip: str = ""
    library: str = ""
    advice: str = ""

    @property
    def module(self) -> str:
        """The CMake module that sets it."""
        return "FindCUDAToolkit" if self.name.startswith(TOOLKIT_PREFIX) else "FindCUDA"


def _findcuda_variables(entry: dict) -> list[FindCudaVariable]:
    given = {key: str(entry[key]) for key in ("hip", "library", "advice") if key in entry}
    if len(given) != 1 or not all(given.values()):
        raise ValueError(f"FindCUDA variable {entry['names'][0]}: needs one of 'hip', 'library' or 'advice'")
    return [FindCudaVariable(str(name), **given) for name in entry["names"]]


@dataclasses.dataclass(frozen=True)
class FindCudaCommand:
    """A command FindCUDA defines: the HIP command written instead, the CUDA library it links its target with, the
    order of its arguments where it compiles sources into a variable, or the advice of the marker it gets (and
    whether the call goes with it)."""

    name: str
    hip: str = ""
    link: str = ""
    compiles: tuple[str, ...] = ()  # OUT, SOURCES, `*` or a word the call must have there
    advice: str = ""
    drop: bool = False
    finds: str = ""  # the variable a call finding the library its argument names sets, {library} that name
    library_argument: int = -1  # with `hip`: the argument (from 0) that names a CUDA library, else -1

    def library(self, arguments: list[str]) -> str:
        """The CUDA library a call links its target with or finds (as -l names it), or ""."""
        if 0 <= self.library_argument < len(arguments):
            return arguments[self.library_argument].strip('"')
        return self.link or (arguments[0] if self.finds and len(arguments) == 1 else "")

    def compiled(self, arguments: list[str]) -> tuple[str, list[str]] | None:
        """The variable a `compiles` call fills and the arguments from its sources on, or None: the arguments are
        not in the order `compiles` gives (cuda_wrap_srcs for PTX)."""
        *leading, _ = self.compiles
        if not self.compiles or len(arguments) < len(leading):
            return None
        if any(spec not in ("OUT", "*") and spec != word for spec, word in zip(leading, arguments)):
            return None
        return arguments[leading.index("OUT")], arguments[len(leading):]


def _findcuda_commands(entry: dict) -> list[FindCudaCommand]:
    name = entry["names"][0]
    given = [key for key in ("hip", "link", "compiles", "finds") if entry.get(key)]
    if len(given) > 1 or not (given or entry.get("advice")):
        raise ValueError(f"FindCUDA command {name}: needs one of 'hip', 'link', 'compiles', 'finds' or 'advice'")
    if entry.get("finds") and "{library}" not in str(entry["finds"]):
        raise ValueError(f"FindCUDA command {name}: 'finds' names the variable with {{library}}")
    compiles = tuple(str(word) for word in entry.get("compiles", ()))
    if compiles and (compiles.count("OUT") != 1 or compiles[-1:] != ("SOURCES",)):
        raise ValueError(f"FindCUDA command {name}: 'compiles' names OUT once and ends with SOURCES")
    if set(compiles) - {"OUT", "SOURCES", "*"} and not entry.get("advice"):
        raise ValueError(f"FindCUDA command {name}: a call without the words 'compiles' names needs an 'advice'")
    if "library_argument" in entry and not (entry.get("hip") and entry.get("advice")):
        raise ValueError(f"FindCUDA command {name}: 'library_argument' goes with 'hip' and an 'advice'")
    if entry.get("drop") and (given or not entry.get("advice")):
        raise ValueError(f"FindCUDA command {name}: 'drop' goes with an 'advice' only")
    return [FindCudaCommand(str(n), str(entry.get("hip", "")), str(entry.get("link", "")), compiles,
                            str(entry.get("advice", "")), bool(entry.get("drop", False)), str(entry.get("finds", "")),
                            int(entry.get("library_argument", -1)))
            for n in entry["names"]]


@dataclasses.dataclass(frozen=True)
class NvccValues:
    """The values a variable of CMake's CUDA language (CMAKE_CUDA_<NAME>) has under nvcc and, as CMAKE_HIP_<NAME>,
    under HIP, and the advice for a test that holds for nvcc's: false under HIP (`advice`), or true there too
    (`advice_hip`: a regex or a list matching both)."""
    nvcc: tuple[str, ...]
    hip: str
    advice: str
    advice_hip: str


@dataclasses.dataclass(frozen=True)
class CudaVersionTests:
    """Tests of a CUDA version that an unset one passes (`CUDA_VERSION VERSION_LESS 10.2`), as it is under HIP: the
    variables that hold one, the operators of a comparison, those an unset version passes (the others under NOT)."""

    variables: str = "(?!)"
    operators: tuple[str, ...] = ()
    unset_passes: tuple[str, ...] = ()
    advice: str = ""

    def passes_unset(self, negated: bool, operator: str) -> bool:
        """Whether `[NOT] VERSION OPERATOR value` holds where VERSION is unset."""
        return (operator in self.unset_passes) != negated


@dataclasses.dataclass(frozen=True)
class VersionOutput:
    """How a build file reads nvcc's version from what it prints: the option that prints it and a word of it."""

    option: str = ""
    word: str = ""
    advice: str = ""  # why hipcc's does not say the same
    pickers: tuple[str, ...] = ()  # programs that take a part of the output by its place (`tail -1`)

    def read_from(self, command: str, call: str) -> bool:
        """Whether `command`, run in the shell call `call`, prints the version and the call reads the word from it,
        or a part of it by its place."""
        picked = rf"\|\s*(?:{'|'.join(map(re.escape, self.pickers))})\b" if self.pickers else r"(?!)"
        read = re.search(rf"\b{re.escape(self.word)}\b", call) or re.search(picked, call)
        return self.option in command.split() and read is not None


@dataclasses.dataclass(frozen=True)
class CmakeProgramCommand:
    """A CMake command that runs programs (add_test, add_custom_command): its arguments that are no program's."""

    keywords: frozenset[str]  # the arguments that end a command's arguments (COMMAND starts the next)
    positional: bool = False  # the argument after its first (a name) may start a command without COMMAND
    skipped: frozenset[str] = frozenset()  # words between that name and such a command (add_custom_target's ALL)


@dataclasses.dataclass(frozen=True)
class BuildFacts:
    default_arch: str
    architectures: dict[str, dict[str, str]]
    nvcc_options: tuple[NvccOption, ...]
    offload_targets: dict[str, dict[str, str]] = dataclasses.field(default_factory=dict)  # gfx name -> {hip: first}
    offload_features: tuple[str, ...] = ()
    host_hip_flags: str = ""  # what gcc and g++ need to include HIP's headers
    hipcc_variables: tuple[str, ...] = ()  # make and shell variables that name the compiler unassigned
    findcuda_variables: dict[str, FindCudaVariable] = dataclasses.field(default_factory=dict)  # by name
    findcuda_target_library: str = ""  # what FindCUDA links each of its targets with, as -l names it
    findcuda_commands: dict[str, FindCudaCommand] = dataclasses.field(default_factory=dict)  # by name, lower case
    nvrtc_arch_options: tuple[str, ...] = ()  # NVRTC's options that name the GPU (--gpu-architecture, -arch)
    nvrtc_options: tuple[NvccOption, ...] = ()  # NVRTC's own options, each with what to do instead
    cmake_hip_names: re.Pattern[str] = re.compile(".*")  # the <NAME>s of CMAKE_CUDA_<NAME> CMake's HIP has too
    cmake_cuda_only_advice: dict[str, str] = dataclasses.field(default_factory=dict)  # by <NAME>, else "default"
    # by <NAME>: nvcc's and HIP's values of CMAKE_CUDA_<NAME>, and the advice for a test that holds for nvcc's
    cmake_nvcc_values: dict[str, NvccValues] = dataclasses.field(default_factory=dict)
    # the <NAME>s of $<CUDA_<NAME>:...> generator expressions CMake's HIP language has as $<HIP_<NAME>:...>
    cmake_hip_genexes: tuple[str, ...] = ()
    library_path_commands: frozenset[str] = frozenset()  # CMake commands reading a library variable as a path, lower
    library_path: str = "{library}"  # the path of a HIP library such a command reads
    command_prefix_variables: tuple[str, ...] = ()  # make variables a recipe starts with, not part of a path (`@`)
    findcudatoolkit_other: str = ""  # the advice for a use of a FindCUDAToolkit variable not listed
    cccl_packages: tuple[CcclPackage, ...] = ()  # CUDA's C++ libraries' CMake packages and what HIP has for them
    thrust_target: str = ""  # the target thrust_create_target's links
    makefile_hip_platform: tuple[str, ...] = ()  # the lines a Makefile compiling with hipcc starts with
    hipcc_cxx_options: tuple[str, ...] = ()  # what C++ sources hipcc compiles (--cmake-hipcc) get, as g++ built them
    shell_hip_platform: str = ""  # what a $(shell) command running hipcc starts with, where the Makefile sets HIP_PLATFORM
    nvcc_version_output: VersionOutput = VersionOutput()
    cuda_version_tests: CudaVersionTests = CudaVersionTests()
    # make and shell variables whose value nvcc gets by their name alone, where no command of the file expands them
    hipcc_flag_variables: tuple[str, ...] = ()
    # CMake's commands that run a program (add_test, add_custom_command...), by name in lower case
    cmake_program_commands: dict[str, CmakeProgramCommand] = dataclasses.field(default_factory=dict)
    cmake_compiler_variables: tuple[str, ...] = ()  # CMake variables that name the GPU compiler (CMAKE_CUDA_COMPILER)
    # the help string of the CMAKE_HIP_ARCHITECTURES cache entry CMake writes itself, not the user
    cmake_architectures_default_help: str = ""
    cmake_variable_architectures_advice: str = ""  # where the architectures come from a variable or a function

    def findcuda_variable(self, name: str) -> FindCudaVariable | None:
        """The variable FindCUDA or FindCUDAToolkit sets named `name`, or None (another name)."""
        if name in self.findcuda_variables:
            return self.findcuda_variables[name]
        if name.startswith(TOOLKIT_PREFIX) and self.findcudatoolkit_other:
            return FindCudaVariable(name, advice=self.findcudatoolkit_other)
        return None

    def cmake_cuda_only(self, name: str) -> str | None:
        """The advice for CMAKE_CUDA_<name>, a variable CMake's HIP language does not define, or None."""
        if self.cmake_hip_names.fullmatch(name):
            return None
        return self.cmake_cuda_only_advice.get(name, self.cmake_cuda_only_advice["default"])

    def known_offload_targets(self, target: Target) -> list[str]:
        """The AMD GPUs the targeted HIP's compiler knows."""
        return [gfx for gfx, entry in self.offload_targets.items()
                if target.rocm is None or "hip" not in entry or target.rocm >= parse_version(str(entry["hip"]))]

    def is_offload_arch(self, arch: str, target: Target) -> bool:
        """Whether `arch` is a target ID the targeted HIP's compiler takes: a GPU it knows, then :feature+ or :feature-."""
        processor, *features = arch.split(":")
        return processor in self.known_offload_targets(target) \
            and all(f[:-1] in self.offload_features and f[-1:] in "+-" and len(f) > 1 for f in features)

    def gfx_for(self, compute_capability: str) -> str:
        entry = self.architectures.get(compute_capability.rstrip("af"))
        return entry["gfx"] if entry else self.default_arch

    def for_target(self, target: Target) -> BuildFacts:
        """The pairs a compiler of the targeted HIP knows: a newer GPU's is its `older` one there."""
        if target.rocm is None:
            return self
        labels = {e["gfx"]: e["amd"] for e in self.architectures.values()}  # an older GPU's label is its own entry's
        known = {cc: {**e, "gfx": e["older"], "amd": labels.get(e["older"], e["older"])}
                 if "hip" in e and target.rocm < parse_version(str(e["hip"])) else e
                 for cc, e in self.architectures.items()}
        return dataclasses.replace(self, architectures=known)

    def describe(self, compute_capability: str) -> str:
        """'sm_80 (A100) -> gfx90a (MI210/MI250)'"""
        entry = self.architectures.get(compute_capability.rstrip("af"))
        if not entry:
            return f"sm_{compute_capability} (no known pair) -> {self.default_arch} (the default)"
        return f"sm_{compute_capability} ({entry['nvidia']}) -> {entry['gfx']} ({entry['amd']})"

    def nvrtc_advice(self, option: str) -> str | None:
        """What hiprtc takes for one word of an NVRTC option string (`--use_fast_math`, `-arch=compute_75`), or None
        where it takes the word as it is. hiprtc hands its options to clang, reading --gpu-architecture=X as
        --offload-arch=X: an nvcc option is given clang's spelling, which is hipcc's."""
        name, _, value = option.partition("=")
        if name in self.nvrtc_arch_options:
            read = name == self.nvrtc_arch_options[0]  # the one hiprtc reads (as --offload-arch); -arch it does not
            if read and value.startswith("gfx"):
                return None
            capability = value.partition("_")[2]
            pair = f"{self.describe(capability)}; " if capability[:1].isdigit() else ""
            how = f"reads {name}=X as --offload-arch=X" if read else \
                f"does not read {name}: give --offload-arch=X or {self.nvrtc_arch_options[0]}=X"
            return f"hiprtc {how}, X an AMD GPU ({pair}at run time the device's hipDeviceProp_t::gcnArchName)"
        for entry in self.nvrtc_options:
            if name in entry.names:
                return entry.advice
        for entry in self.nvcc_options:
            match = entry.found.fullmatch(option)
            if match is None:
                continue
            hipcc = entry.replacement(match.group("value") if "value" in entry.pattern.groupindex else None)
            if hipcc is None:
                return f"clang has nothing for it: {entry.advice}"
            if hipcc.lstrip("-") == option.lstrip("-"):
                return None
            return f"clang spells it {hipcc}" if hipcc else "clang does not take it: drop it"
        return None

    def edits(self, text: str, listed: Callable[[NvccOption, re.Match], bool] = lambda option, match: True
              ) -> Iterator[OptionEdit]:
        """Each nvcc option in `text` convert rewrites (translate_flags): written in hipcc's spelling, dropped, or
        removed with a marker; `listed`: whether convert rewrites the option matched there (a `hipcc_only` one only
        where hipcc gets it). An option hipcc takes as it is written (-O3, -std=c++17) is no edit."""
        # An option's name is a whole word of the text wherever it matches (`found`): most build files name
        # none of the 42 options, so one set test each (over the 1M-line scale tree's 1,418 build files and
        # scripts: 86 ms of CPU with a substring test per name, 13 ms).
        words = set(_OPTION_WORD.findall(text))
        removed: list[tuple[int, int]] = []  # what convert removes is gone for the later entries: `-Xcudafe --diag_suppress=1`
        for option in self.nvcc_options:
            if words.isdisjoint(option.names):
                continue
            for match in option.found.finditer(text):
                if any(start < match.end() and match.start() < end for start, end in removed) or not listed(option, match):
                    continue
                written = match.group().strip()
                hipcc = option.replacement(match.group("value") if "value" in option.pattern.groupindex else None)
                if hipcc is None:
                    removed.append(match.span())
                    yield OptionEdit(match.start("name"), written, None, option.advice)
                elif option.note or hipcc != match.group():
                    yield OptionEdit(match.start("name"), written, hipcc, option.note)


def _parse(data: dict) -> BuildFacts:
    return BuildFacts(str(data["default_arch"]), {str(k): v for k, v in data["architectures"].items()},
                      tuple(_option(entry) for entry in data["nvcc_options"]),
                      {str(k): v or {} for k, v in data["offload_targets"].items()}, tuple(data["offload_features"]),
                      str(data["host_hip_flags"]), tuple(str(v) for v in data["hipcc_variables"]),
                      {v.name: v for entry in data["findcuda_variables"] for v in _findcuda_variables(entry)},
                      str(data["findcuda_target_library"]),
                      {c.name.lower(): c for entry in data["findcuda_commands"] for c in _findcuda_commands(entry)},
                      tuple(str(n) for n in data["nvrtc_arch_options"]), tuple(_option(entry) for entry in data["nvrtc_options"]),
                      re.compile("|".join(f"(?:{name})" for name in data["cmake_language_variables"]["hip"])),
                      {str(k): str(v) for k, v in data["cmake_language_variables"]["advice"].items()},
                      {str(k): NvccValues(tuple(str(n) for n in v["nvcc"]), str(v["hip"]), str(v["advice"]),
                                          str(v["advice_hip"]))
                       for k, v in data["cmake_language_variables"]["nvcc_values"].items()},
                      tuple(str(n) for n in data["cmake_language_variables"]["genexes"]),
                      frozenset(str(c).lower() for c in data["findcuda_library_path"]["commands"]),
                      str(data["findcuda_library_path"]["path"]),
                      tuple(str(v) for v in data["command_prefix_variables"]), str(data["findcudatoolkit_other"]),
                      tuple(_cccl_package(entry) for entry in data["cccl_packages"]), str(data["thrust_target"]),
                      tuple(str(line) for line in data["makefile_hip_platform"]),
                      tuple(str(option) for option in data["hipcc_cxx_options"]), str(data["shell_hip_platform"]),
                      VersionOutput(*(str(data["nvcc_version_output"][key]) for key in ("option", "word", "advice")),
                                    tuple(str(p) for p in data["nvcc_version_output"]["pickers"])),
                      _cuda_version_tests(data["cuda_version_tests"]),
                      hipcc_flag_variables=tuple(str(v) for v in data["hipcc_flag_variables"]),
                      cmake_program_commands={str(name).lower(): _cmake_program_command(entry) for name, entry
                                              in data["cmake_program_commands"]["commands"].items()},
                      cmake_compiler_variables=tuple(str(v) for v in
                                                     data["cmake_program_commands"]["compiler_variables"]),
                      cmake_architectures_default_help=str(data["cmake_architectures"]["default_help"]),
                      cmake_variable_architectures_advice=str(data["cmake_architectures"]["variable_advice"]))


def _cmake_program_command(entry: dict) -> CmakeProgramCommand:
    return CmakeProgramCommand(frozenset(str(k) for k in entry["keywords"]), bool(entry.get("positional", False)),
                               frozenset(str(k) for k in entry.get("skipped", ())))


def _cuda_version_tests(entry: dict) -> CudaVersionTests:
    return CudaVersionTests(str(entry["variables"]), tuple(str(o) for o in entry["operators"]),
                            tuple(str(o) for o in entry["unset_passes"]), str(entry["advice"]))


@functools.lru_cache(maxsize=1)
def build_facts() -> BuildFacts:
    return load_data("_build.yaml", _parse)
