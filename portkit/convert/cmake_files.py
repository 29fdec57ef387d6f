"""Rewrite CMake files from the CUDA language or FindCUDA to CMake's HIP language (or, for a CMake whose HIP language
does not work, hipcc as the C++ compiler).

Text rewrites by pattern, outside comments (build_text.py): the language, the architectures, the libraries' packages
and targets; FindCUDA's commands and variables are findcuda.py's, the .cu sources' language cmake_sources.py's, the
nvcc options and link flags every kind of build file shares build_flags.py's. What cannot be rewritten gets a marker
comment in the file and a note, never silently dropped.
"""
from __future__ import annotations

import re
from collections import Counter

from portkit.analyze.build_commands import nvcc_option_reaches_compiler
from portkit.analyze.builds import (CMAKE_CUDA_VARIABLE, CMAKE_FIND_CALL, CMAKE_HEADER_WORD, CUDA_GENEX,
                                    cuda_only_genex, cuda_version_tests, defined_commands, defined_targets,
                                    nvcc_value_tests, try_cuda_sources)
from portkit.analyze.cmake_language import (CHECK_LANGUAGE, LANGUAGE_GENEX, LANGUAGE_PROPERTY, SOURCE_LANGUAGE,
                                            genex_arguments)
from portkit.codes import API_UNSUPPORTED, CODES, GPU_ARCHITECTURE, NVCC_FLAG, TRY_CUDA_SOURCE
from portkit.convert.build_flags import (CMAKE_STRETCH_END, arch_list, cmake_target, hip_library, library_code,
                                         link_flags, note_patterns, translate_flags, unported_advice)
from portkit.convert.build_text import BuildConversion, Rewriter, untagged
from portkit.convert.cmake_sources import (CXX_LANGUAGE, OFFLOAD_ARCH_OPTIONS, line_indent, mark_cu_sources,
                                           pick_cu_sources_of_variables)
from portkit.convert.findcuda import rewrite_findcuda_commands, rewrite_findcuda_variables
from portkit.rules import RuleDatabase
from portkit.rules.build_facts import BuildFacts, build_facts
from portkit.rules.versions import Target
from portkit.textutil import HASH_COMMENT, blank


_HIP_TARGET = re.compile(r"\b(hip|roc)::(\w+)")


def _cmake_packages(text: str) -> list[str]:
    """The find_package() names the HIP targets in `text` need, hip first."""
    packages = ["hip"]
    for namespace, name in _HIP_TARGET.findall(text):
        package = "hip" if (namespace, name) in (("hip", "host"), ("hip", "device")) else name
        if package not in packages:
            packages.append(package)
    return packages


def _written_targets(rw: Rewriter) -> str:
    """The HIP targets this conversion wrote into the code, one a line: those the code names more often than the
    project's own code did. A comment names none, and the project's own HIP branch (`if(BUILD_HIP)`) finds the
    packages of its targets itself, where the CUDA branch convert rewrites never runs."""
    before = Counter(_HIP_TARGET.findall(blank(rw.original, HASH_COMMENT)))
    after = Counter(_HIP_TARGET.findall(blank(rw.text, HASH_COMMENT)))
    return "\n".join(f"{namespace}::{name}" for (namespace, name), count in after.items()
                     if count > before[(namespace, name)])


def convert_cmake(text: str, rules: RuleDatabase, offload_arch: tuple[str, ...] = (),
                  target: Target = Target(), hipcc_as_cxx: bool = False, module: bool = False) -> BuildConversion:
    """CMake with CUDA -> CMake with HIP: the HIP language (CMake 3.21+), or, `hipcc_as_cxx`, HIP sources
    compiled as C++ by hipcc (`cmake -DCMAKE_CXX_COMPILER=hipcc`) where CMake's HIP language does not work.
    `module`: the file is a module the project include()s (cmake_language.included_module)."""
    facts = build_facts().for_target(target)
    rw = Rewriter(text)
    rewrite_findcuda_commands(rw, rules, target, facts)
    pick_cu_sources_of_variables(rw, module)
    _nvcc_value_tests(rw)
    _cuda_version_tests(rw)
    _cmake_language(rw)
    _cmake_architectures(rw, facts, offload_arch)
    note_patterns(rw, NVCC_FLAG, "cmake")
    translate_flags(rw, facts, offload_arch, nvcc_option_reaches_compiler("cmake", blank(rw.text, rw.comment), facts),
                    CMAKE_STRETCH_END)
    _cmake_libraries(rw, rules, target, facts)
    rewrite_findcuda_variables(rw, rules, target)
    link_flags(rw, rules, target, "cmake")
    _try_cuda_sources(rw, ".cpp" if hipcc_as_cxx else ".hip")  # before the .cu names in set() get the language
    mark_cu_sources(rw)
    if hipcc_as_cxx:
        _hip_as_cxx(rw, facts)
    return rw.finish()


def _nvcc_value_tests(rw: Rewriter) -> None:
    """A marker on each test of nvcc's value (`CMAKE_CUDA_COMPILER_ID STREQUAL "NVIDIA"`, `$<CUDA_COMPILER_ID:NVIDIA>`,
    `$<COMPILE_LANG_AND_ID:CUDA,NVIDIA>`), found before the language is renamed: false under HIP, or true for clang too."""
    for offset, test, advice in nvcc_value_tests(blank(rw.text, rw.comment)):
        rw.note(offset, NVCC_FLAG, f"{test}: {advice}")


def _cuda_version_tests(rw: Rewriter) -> None:
    """A test of a CUDA version that an unset version passes, as under HIP (`CUDA_VERSION VERSION_LESS 10.2`, in front
    of a FATAL_ERROR), written `(CUDA_VERSION AND <test>)`: false where the version is unset, as before where it is
    set; marked."""
    advice = build_facts().cuda_version_tests.advice

    def guards(text: str) -> list[tuple[int, str]]:
        edits = []
        for start, end, variable, test in cuda_version_tests(blank(text, rw.comment)):
            edits += [(start, f"({variable} AND "), (end, ")" + rw.removed(NVCC_FLAG, f"{test}: {advice}"))]
        return edits

    rw.insert(guards)


def _try_cuda_sources(rw: Rewriter, extension: str) -> None:
    """A .cu source try_run() or try_compile() builds, given HIP's `extension`: they pick the language by it, and
    stop at one whose language is not enabled; marked (the program is often CUDA code the file writes)."""
    fix = CODES[TRY_CUDA_SOURCE].fix

    def renamed(text: str) -> list[tuple[int, int, str]]:
        edits = []
        for offset, call, extensions in try_cuda_sources(blank(text, rw.comment)):
            note = rw.removed(TRY_CUDA_SOURCE, f"{call}: convert gave the source HIP's extension ({extension}). {fix}")
            edits += [(offset, offset, note), *((at, at + len(".cu"), extension) for at in extensions)]
        return edits

    rw.replace(renamed)


def _cmake_language(rw: Rewriter) -> None:
    language = r"(?<![\w$])CUDA(?![\w])"
    rw.sub(r"\bproject\s*\([^)]*\)", lambda m: re.sub(language, "HIP", m.group()), re.I)
    rw.sub(r"\b(enable)_language\s*\(\s*CUDA\s*\)", lambda m: f"{m.group(1)}_language(HIP)", re.I)
    rw.sub(CHECK_LANGUAGE, lambda m: f"{m.group(1)}_language(HIP)")
    rw.sub(SOURCE_LANGUAGE, lambda m: "LANGUAGE HIP")
    # Generator expressions name the language too: $<COMPILE_LANGUAGE:CUDA> would silently stop applying.
    rw.sub(LANGUAGE_GENEX, lambda m: "$<" + m.group(1) + ":" + genex_arguments(m.group(1), m.group(2)) + ">")
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


# A reference to a variable's value or the environment's, in the values given to the architectures.
_VALUE_VARIABLE = re.compile(r"\$(?:ENV)?\{(\w+)\}")
_ARCHITECTURES_VARIABLE = re.compile(r"(?:CMAKE_)?(?:CUDA|HIP)_ARCHITECTURES")
_NEXT_KEYWORD = re.compile(r"\s[A-Z_]{4,}\b")  # CACHE, PARENT_SCOPE, a property setter's next property


def _architectures_from_variables(rw: Rewriter, facts: BuildFacts) -> None:
    """A marker where the architectures get a variable's values (`set(CMAKE_CUDA_ARCHITECTURES ${TCNN_CUDA_ARCHITECTURES})`,
    `list(APPEND ... ${LATEST_SUPPORTED_CUDA_ARCHITECTURE})`) or a function of the project's sets them (tiny-cuda-nn's
    GPU query): convert rewrites only the numbers it sees, and these NVIDIA ones would reach hipcc."""
    own = defined_commands(blank(rw.text, rw.comment))
    notes = []
    for offset, match in rw.find(r"\b(?:CMAKE_)?CUDA_ARCHITECTURES\b"):
        command = _OPEN_COMMAND.search(rw.text, max(0, offset - 4000), offset)
        if command is not None and command.group(1).lower() in own:
            notes.append((offset, f"{command.group(1)}({match.group()})"))
            continue
        if not _sets_architectures(rw.text, offset):
            continue
        start = offset + len(match.group())  # the match's own offsets are in the stretch between comments
        end = rw.text.find(")", start)
        values = rw.text[start:end if end >= 0 else len(rw.text)]
        values = values[:next_keyword.start()] if (next_keyword := _NEXT_KEYWORD.search(values)) else values
        if any(not _ARCHITECTURES_VARIABLE.fullmatch(name) for name in _VALUE_VARIABLE.findall(values)):
            notes.append((offset, f"{match.group()} {' '.join(values.split())}"))
    for offset, what in notes:
        rw.note(offset, GPU_ARCHITECTURE, f"{what}: {facts.cmake_variable_architectures_advice}")


# A command of a line of its own (after its indentation and any tags of notes), and its arguments.
_LINE_COMMAND = re.compile(r"^([ \t]*)([\ue000-\uf8ff]*(\w+)\s*\(([^()]*)\))", re.M)


def _sets_architectures_variable(command: str, arguments: str, own: set[str]) -> bool:
    """Whether the call gives CMAKE_CUDA_ARCHITECTURES its value: a set() of it but one into the cache (which
    leaves a user's entry as it is already), or a function of the project's given it (tiny-cuda-nn's GPU query)."""
    words = arguments.split()
    if command.lower() == "set":
        return words[:1] == ["CMAKE_CUDA_ARCHITECTURES"] and "CACHE" not in words
    return command.lower() in own and "CMAKE_CUDA_ARCHITECTURES" in words


def _user_architectures_win(rw: Rewriter, facts: BuildFacts) -> None:
    """Each call that sets CMAKE_CUDA_ARCHITECTURES made to run only where the user gave cmake no architectures: the
    project's value hides the cache entry of -DCMAKE_HIP_ARCHITECTURES=gfx942, and it is NVIDIA's, or convert's guess
    at the AMD GPUs of the same class. CMake's HIP language writes a cache entry of its own (the machine's GPUs),
    told apart by its help string."""
    help_variable = "_portkit_hip_architectures_help"
    guard = (f"get_property({help_variable} CACHE CMAKE_HIP_ARCHITECTURES PROPERTY HELPSTRING)",
             f"if(NOT DEFINED CACHE{{CMAKE_HIP_ARCHITECTURES}} OR {help_variable} STREQUAL "
             f"\"{facts.cmake_architectures_default_help}\")  # the architectures given to cmake (-D) win")

    def guarded(text: str) -> list[tuple[int, int, str]]:
        code = blank(text, rw.comment)
        own = defined_commands(code)
        edits = []
        for match in _LINE_COMMAND.finditer(code):
            if not _sets_architectures_variable(match.group(3), untagged(match.group(4)), own):
                continue
            indent = match.group(1)
            body = indent + ("\t" if indent.startswith("\t") else "  ") + text[match.start(2):match.end(2)]
            lines = [*(indent + line for line in guard), body, f"{indent}endif()"]
            edits.append((match.start(), match.end(), "\n".join(lines)))
        return edits

    rw.replace(guarded)


def _cmake_architectures(rw: Rewriter, facts: BuildFacts, offload_arch: tuple[str, ...]) -> None:
    _user_architectures_win(rw, facts)
    _architectures_from_variables(rw, facts)

    def architectures(match: re.Match) -> str:
        name, space, values = match.group(1).replace("CUDA", "HIP"), match.group(2), match.group(3)
        if not _sets_architectures(match.string, match.start()):
            return f"{name}{space}{values}"
        archs = arch_list(values, facts, offload_arch)  # all, all-major, native: the default
        if values.startswith('"'):  # one argument, a ;-list: unquoted, a property setter would get several
            return f'{name} "{";".join(archs)}"'
        return f"{name} {' '.join(archs)}"

    tests = {}  # one note per command: darknet's if() tests seven architectures, a line each
    for offset, match in rw.find(_ARCHITECTURE_TEST):
        command = _OPEN_COMMAND.search(rw.text, max(0, offset - 4000), offset)
        tests.setdefault(command.start() if command else offset, (offset, " ".join(match.group().split())))
    for offset, test in tests.values():
        rw.note(offset, GPU_ARCHITECTURE, f"{test}: {_ARCHITECTURE_TEST_ADVICE}")
    rw.sub(r"\b((?:CMAKE_)?CUDA_ARCHITECTURES)(\s+)(\"[^\"]*\"|[\w;\s-]*?)(?=\s*[)\n]|\s+[A-Z_]{4,}\b)", architectures)

    def language_variable(match: re.Match) -> str:
        advice = facts.cmake_cuda_only(match.group(1))
        if advice is None:
            return f"CMAKE_HIP_{match.group(1)}"
        return rw.kept(match.group(), NVCC_FLAG, f"{match.group()}: {advice}")

    rw.sub(CMAKE_CUDA_VARIABLE, language_variable)
    # $<CUDA_COMPILER_ID:...> is false in a project without the CUDA language, whatever the compiler: HIP's own.
    # $<CUDA_COMPILER_VERSION> stays (empty there: HIP's is clang's version, not a CUDA release), marked.

    def genex(match: re.Match) -> str:
        if match.group(1) in facts.cmake_hip_genexes:
            return "$<HIP_" + match.group()[len("$<CUDA_"):]
        advice = cuda_only_genex(facts, match.group(1))
        return rw.kept(match.group(), NVCC_FLAG, f"{match.group()}: {advice}") if advice else match.group()

    rw.sub(CUDA_GENEX, genex)
    rw.sub(LANGUAGE_PROPERTY, lambda m: f"HIP_{m.group(1)}")  # the property where it is read


def _cmake_libraries(rw: Rewriter, rules: RuleDatabase, target: Target, facts: BuildFacts) -> None:
    """CUDA:: targets, find_package(CUDA|CUDAToolkit), library names in target_link_libraries and find_library."""
    def hip_target(match: re.Match) -> str:
        return cmake_target(match.group(), rules, target) or match.group()

    rw.sub(r"\b(?:CUDA|NCCL)::\w+", hip_target)
    for offset, match in rw.find(r"\b(?:CUDA|NCCL)::\w+"):
        rule = rules.link(match.group())
        advice = unported_advice(rule, target) or "no HIP target known; link the ROCm library by hand."
        rw.note(offset, library_code(rule, target) if rule is not None else NVCC_FLAG, f"{match.group()}: {advice}")

    def find_package(match: re.Match) -> str:
        return "\n".join(f"{line_indent(match) if i else ''}find_package({p}{_find_options(match.group())})"
                         for i, p in enumerate(_cmake_packages(written)))

    written = _written_targets(rw)

    rw.sub(r"\bfind_package\s*\(\s*(?:CUDAToolkit|CUDA)\b[^)]*\)", find_package, re.I)
    _cccl_packages(rw)

    # A library linked by name (`cuda`) gets no compile definitions: a C++ source g++ compiles that now includes
    # HIP's headers needs hip::host's __HIP_PLATFORM_AMD__, so a target links the HIP target where its package is found.
    found = {name.lower() for name in re.findall(r"\bfind_package\s*\(\s*(\w+)", blank(rw.text, HASH_COMMENT), re.I)}

    own = defined_targets(blank(rw.text, HASH_COMMENT))  # the project's targets keep their names

    def link_words(match: re.Match, targets: bool) -> str:
        by_name = []  # the scopes of the HIP libraries linked by name where the rules know their CMake target

        def word(w: re.Match) -> str:
            rule = hip_library(rules.link(w.group()), target)
            if rule is None or "::" in w.group() or targets and w.group() in own:
                return w.group()
            if targets and rule.hip_cmake and _cmake_packages(rule.hip_cmake)[-1].lower() in found:
                return rule.hip_cmake
            if rule.hip_cmake:
                by_name.append(_link_scope(match.group(2)[:w.start()]))
            return rule.hip
        call = match.group(1) + re.sub(r"(?<![\w:${])[A-Za-z_]\w*(?![\w:}])", word, match.group(2)) + ")"
        return call + _host_definitions(match, by_name, facts) if targets else call

    rw.sub(r"\b(target_link_libraries\s*\(\s*[\w${}.-]+)([^)]*)\)", lambda m: link_words(m, True), re.I)
    rw.sub(r"\b(find_library\s*\(\s*\w+)([^)]*)\)", lambda m: link_words(m, False), re.I)

    def header(w: re.Match) -> str:
        rule = rules.header(w.group())
        return rule.resolve(target).hip or w.group() if rule is not None else w.group()

    # find_path(NCCL_INCLUDE_DIR NAMES nccl.h): the directory of the HIP header the sources include now.
    rw.sub(CMAKE_FIND_CALL, lambda m: m.group() if m.group(1).lower() == "library" else
           m.group()[:m.start(2) - m.start()] + CMAKE_HEADER_WORD.sub(header, m.group(2)) + ")")


# target_link_libraries' keywords, and the scope each gives a compile definition; a plain signature's links are
# transitive (PUBLIC).
_LINK_SCOPES = {"PRIVATE": "PRIVATE", "PUBLIC": "PUBLIC", "INTERFACE": "INTERFACE", "LINK_PRIVATE": "PRIVATE",
                "LINK_PUBLIC": "PUBLIC", "LINK_INTERFACE_LIBRARIES": "INTERFACE"}


def _link_scope(before: str) -> str:
    """The scope of a library linked after `before` (the call's arguments up to it)."""
    keywords = [w for w in before.split() if w in _LINK_SCOPES]
    return _LINK_SCOPES[keywords[-1]] if keywords else "PUBLIC"


def _host_definitions(match: re.Match, scopes: list[str], facts: BuildFacts) -> str:
    """A target linking HIP's runtime (or a HIP library) by name gets none of the compile definitions its CMake target
    (hip::host) carries: its C and C++ sources that gcc and g++ compile, which include HIP's headers now, stop at
    `#error "Must define exactly one of __HIP_PLATFORM_AMD__..."`. What the Makefile conversion gives a host compile
    (rules/_build.yaml's host_hip_flags), as target_compile_definitions in the link's scope."""
    definitions = " ".join(flag[2:] for flag in facts.host_hip_flags.split() if flag.startswith("-D"))
    if not scopes or not definitions:
        return ""
    name = match.group(1).split("(", 1)[1].strip()
    return "".join(f"\n{line_indent(match)}target_compile_definitions({name} {scope} {definitions})"
                   for scope in dict.fromkeys(scopes))


def _find_options(call: str) -> str:
    """The options of a find_package() call that HIP's package takes as they are: REQUIRED, QUIET."""
    return "".join(f" {option}" for option in ("QUIET", "REQUIRED") if re.search(rf"\b{option}\b", call))


def _hip_packages(facts: BuildFacts) -> set[str]:
    """The HIP packages found for CUDA's C++ libraries."""
    return {p for entry in facts.cccl_packages for p in entry.hip}


def _cccl_packages(rw: Rewriter) -> None:
    """find_package() of CUDA's C++ libraries (CCCL, Thrust, CUB), their targets and thrust_create_target(): ROCm's
    packages and targets (rules/_build.yaml's cccl_packages), or a marker where HIP has none (libcudacxx)."""
    facts = build_facts()
    by_package = {name.lower(): entry for entry in facts.cccl_packages for name in entry.packages}
    by_target = {name: entry for entry in facts.cccl_packages for name in entry.targets}

    def find_package(match: re.Match) -> str:
        entry = by_package[match.group(1).lower()]
        if entry.advice:
            return rw.kept(match.group(), API_UNSUPPORTED, f"{match.group(1)}: {entry.advice}")
        # Once each: find_package(CCCL) and find_package(Thrust) both bring rocThrust.
        found = [p for p in entry.hip if p not in written]
        written.update(found)
        return "\n".join(f"{line_indent(match) if i else ''}find_package({p}{_find_options(match.group())})"
                         for i, p in enumerate(found))

    written = {p for p in _hip_packages(facts) if re.search(rf"\bfind_package\s*\(\s*{p}\b", rw.text, re.I)}
    names = "|".join(re.escape(name) for name in by_package)
    rw.sub(rf"\bfind_package\s*\(\s*({names})\b[^)]*\)", find_package, re.I)

    def target(match: re.Match) -> str:
        entry = by_target[match.group()]
        if entry.advice:
            return rw.kept(match.group(), API_UNSUPPORTED, f"{match.group()}: {entry.advice}")
        return " ".join(entry.targets[match.group()])

    targets = "|".join(re.escape(name) for name in by_target)
    rw.sub(rf"(?<![\w:])(?:{targets})(?![\w:])", target)
    rw.sub(r"\bthrust_create_target\s*\(\s*([\w${}.-]+)[^)]*\)",
           lambda m: f"add_library({m.group(1)} INTERFACE)\n{line_indent(m)}target_link_libraries({m.group(1)} INTERFACE "
                     f"{facts.thrust_target})", re.I)


# Without them hipcc links for the GPUs of the machine (rocm_agent_enumerator), a traceback on one without a GPU.
_LINK_ARCHITECTURES = f'add_link_options("{OFFLOAD_ARCH_OPTIONS}")'


def _cxx_options(facts: BuildFacts) -> str:
    """The options every C++ source hipcc compiles gets: its host sources were g++'s (rules/_build.yaml)."""
    return f'add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:{";".join(facts.hipcc_cxx_options)}>")'


def _hip_as_cxx(rw: Rewriter, facts: BuildFacts) -> None:
    """The HIP language written above, made C++ compiled by hipcc (Debian's CMake 3.25 cannot use its HIP 5.2
    as the HIP language: docs/convert.md says why). The project's own HIP-language build (its `if(BUILD_HIP)`
    branch: enable_language(HIP), hip-lang::host, LANGUAGE HIP) is HIP already and stays as it is: made C++, it
    would name hip-lang targets that only the HIP language defines."""
    linked = _LINK_ARCHITECTURES in rw.text
    added = [_LINK_ARCHITECTURES] + ([] if _cxx_options(facts) in rw.text else [_cxx_options(facts)])

    def with_link_architectures(call: str, match: re.Match) -> str:
        nonlocal linked
        if linked:
            return call
        linked = True
        return "\n".join([call, *(line_indent(match) + line for line in added)])

    def project(match: re.Match) -> str:
        call = match.group()
        if not re.search(r"(?<![\w$])HIP(?![\w])", call):
            return call
        if re.search(r"(?<![\w$])CXX(?!\w)", call):
            return with_link_architectures(re.sub(r"[ \t]+HIP(?![\w])", "", call), match)
        return with_link_architectures(re.sub(r"(?<![\w$])HIP(?![\w])", "CXX", call), match)

    rw.sub_written(r"\bproject\s*\([^)]*\)", project, re.I)
    rw.sub_written(r"\benable_language\s*\(\s*HIP\s*\)", lambda m: with_link_architectures("enable_language(CXX)", m), re.I)
    # CXX is enabled already: check_language(CXX) finds its compiler set, and the tests of it hold.
    rw.sub_written(r"\bcheck_language\s*\(\s*HIP\s*\)", lambda m: "check_language(CXX)", re.I)
    rw.sub_written(r"\bCMAKE_HIP_COMPILER(\w*)", lambda m: f"CMAKE_CXX_COMPILER{m.group(1)}")
    rw.sub_written(r"\bLANGUAGE\s+HIP\b(?!\s+COMPILE_OPTIONS)", lambda m: CXX_LANGUAGE)
    rw.sub_written(r"\$<((?:COMPILE|LINK)_LANG(?:UAGE|_AND_ID)):([^>]*)>",
                   lambda m: "$<" + m.group(1) + ":" + re.sub(r"(?<![\w-])HIP(?![\w-])", "CXX", m.group(2)) + ">")
    rw.sub_written(r"\bCMAKE_HIP_((?:FLAGS|STANDARD|EXTENSIONS)\w*)", lambda m: f"CMAKE_CXX_{m.group(1)}")
    rw.sub_written(r"\bHIP_STANDARD\b", lambda m: "CXX_STANDARD")
