"""Which branch of a test of CUDA's version hipcc compiles.

`#if !defined(CUDART_VERSION) || CUDART_VERSION < 12000` holds a project's fallback for what a newer CUDA
declares (llama.cpp's `__hgt2_mask`). Under hipcc CUDA's version macros are undefined, so they read 0: the
fallback is what a HIP build gets. `defined(CUDART_VERSION)` is the one part that depends on how the
tree is ported (convert renames it to `defined(HIP_VERSION)`, a shim leaves it), so a branch counts as
hipcc's only where both readings take it. A test that reads any other macro is not decided here.

A test of HIP's own platform macros (`#if defined(__HIP_PLATFORM_AMD__)`, `#ifdef __HIPCC__`) is decided for hipcc
compiling for AMD: a project with HIP branches of its own keeps its NVIDIA side in the branches it leaves.
"""
from __future__ import annotations

import re
from typing import Callable, Mapping, Optional, Sequence

from portkit.parse.if_expressions import DEFINED, NAME, evaluate, without_comments
from portkit.parse.nodes import CUDA_CONDITION_MACROS, CUDA_VERSION_MACROS

# HIP's platform macros as hipcc compiling for AMD has them: defined (1) or not (0). __HIP_PLATFORM_HCC__ is AMD's
# older name, which HIP's headers define with __HIP_PLATFORM_AMD__ up to ROCm 5.x.
_AMD_PLATFORM = {"__HIP_PLATFORM_AMD__": 1, "__HIP_PLATFORM_HCC__": 1, "__HIPCC__": 1, "__HIP__": 1,
                 "__HIP_PLATFORM_NVIDIA__": 0, "__HIP_PLATFORM_NVCC__": 0}
_AMD_MACROS = re.compile("|".join(_AMD_PLATFORM))
# CUDA's compiler macros, none of which hipcc defines for AMD: where convert leaves a test of them as CUDA's (its chain
# has a HIP branch of its own: analyze/own_hip_branches.py) they read undefined there.
_CUDA_COMPILER = re.compile(r"__CUDACC\w*__|__NVCC__|__CUDA_ARCH\w*__")
_AMD_OR_CUDA_MACROS = re.compile(f"{_AMD_MACROS.pattern}|{_CUDA_COMPILER.pattern}")
# The macro HIP's device pass defines; any name (a test hipcc takes reads CUDA's, HIP's and the project's own).
_DEVICE_PASS = "__HIP_DEVICE_COMPILE__"
_ANY_NAME = re.compile(r"[A-Za-z_]\w*")


def _readings(test: str) -> tuple[bool, ...]:
    """How `defined(...)` may read under hipcc: undefined, as written; or also renamed, where the test does not also
    compare the macro (convert renames a lone `defined(CUDART_VERSION)` to `defined(HIP_VERSION)`)."""
    text = without_comments(test)
    return (False,) if _tested(text) <= set(NAME.findall(DEFINED.sub(" ", text))) else (False, True)


def hipcc_branch(tests: Sequence[str], has_else: bool) -> Optional[int]:
    """The index of the branch hipcc compiles in an #if/#elif.../#else chain whose tests read only CUDA's version
    macros (len(tests) for the #else; -1 for none), or None where the tests read anything else or the two
    readings of `defined(...)` disagree."""
    taken = {_first_true(tests, defined, has_else) for defined in _readings(" ".join(tests))}
    return taken.pop() if len(taken) == 1 and None not in taken else None


def hipcc_value(test: str) -> Optional[int]:
    """A test's truth under hipcc where it reads only CUDA's version macros and the readings of `defined` agree;
    None otherwise. `defined` of a macro the test also compares is read as written (convert keeps both)."""
    values = {_value(test, defined) for defined in _readings(test)}
    value = values.pop() if len(values) == 1 else None
    return None if value is None else int(bool(value))


def everywhere_value(test: str, cuda: tuple[int, int]) -> Optional[int]:
    """A test's truth where hipcc and CUDA `cuda` (major, minor) read it alike; None where they differ or it reads
    anything but CUDA's version. `#if defined(CUDA_VERSION) && CUDA_VERSION < 11000` is false for both from CUDA 11:
    its branch is code no compiler of the port builds."""
    hipcc = hipcc_value(test)
    cuda_value = _value(test, True, lambda name: _cuda_macro(name, cuda))
    return hipcc if hipcc is not None and cuda_value is not None and hipcc == int(bool(cuda_value)) else None


def amd_value(test: str, cuda_kept: bool = False, own: Mapping[bytes, Optional[bytes]] | None = None) -> Optional[int]:
    """A test's truth under hipcc compiling for AMD where it reads only HIP's platform macros (`__HIP_PLATFORM_AMD__`,
    `__HIPCC__`, `__HIP_PLATFORM_NVIDIA__`...), and with `cuda_kept` CUDA's compiler macros as written (`__CUDACC__`,
    undefined there); None where it reads anything else. `own`: the project's macros HIP's platform decides, with
    what each reads as there (parse/platform_macros.py: None, undefined; else its body), read too."""
    macros = _AMD_OR_CUDA_MACROS if cuda_kept else _AMD_MACROS
    platform: dict[str, Optional[int]] = dict(_AMD_PLATFORM)
    defined = {name: True for name in _AMD_PLATFORM if _AMD_PLATFORM[name]}
    if own:  # only the names the test spells are looked up: the project's table is never listed
        read = {name: own[name.encode()] for name in NAME.findall(test) if name.encode() in own}
        if read:
            macros = re.compile("|".join([macros.pattern, *map(re.escape, read)]))
            platform.update((name, 0 if body is None else _integer(body)) for name, body in read.items())
            defined.update((name, body is not None) for name, body in read.items())
    value = _value(test, lambda name: defined.get(name, False), lambda name: platform.get(name, 0), macros)
    return None if value is None else int(bool(value))


def _integer(body: bytes) -> Optional[int]:
    """A macro's body as an integer (`1`, `(0)`), or None where it is not one."""
    text = body.decode("latin-1").strip().strip("()").strip()
    return int(text) if text.isdigit() else None


def same_platform_macro(name: str, other: str) -> bool:
    """Whether two of HIP's platform macros read alike under hipcc for AMD (`__HIP_PLATFORM_HCC__`, the older name of
    `__HIP_PLATFORM_AMD__`): a test that respells one as the other keeps its meaning there. A shim's #define of one as
    the other would not (`#define __HIP_PLATFORM_NVCC__ __HIP_PLATFORM_NVIDIA__` is defined, so true, on AMD)."""
    return name in _AMD_PLATFORM and other in _AMD_PLATFORM and _AMD_PLATFORM[name] == _AMD_PLATFORM[other]


def kept_test_value(test: str) -> Optional[int]:
    """The truth under hipcc for AMD of a test convert leaves as written whose one use of CUDA's compiler macros is the
    comparison it keeps (`#if __CUDA_ARCH__ >= 800`: 0, __CUDA_ARCH__ undefined there), so the converted file reads it
    alike; None where another use may be rewritten (`defined(__CUDA_ARCH__) && ...`) or it reads anything else."""
    return amd_value(test, cuda_kept=True) if len(_CUDA_COMPILER.findall(test)) == 1 else None


def reads_cuda_compiler(test: str) -> bool:
    """Whether a test reads one of CUDA's compiler macros (`defined(__CUDACC__)`, `__CUDA_ARCH__ >= 700`)."""
    return _CUDA_COMPILER.search(test) is not None


def amd_accepts(test: str) -> bool:
    """Whether hipcc compiling for AMD takes, in its host or its device pass, a test of CUDA's macros that accepts
    HIP beside them (`#if defined(__CUDACC__) || __HIP__ == 1`, `defined(__CUDA_ARCH__) ||
    defined(__HIP_DEVICE_COMPILE__)`): no CUDA-only branch. CUDA's macros read as undefined, and also as defined
    where the test does not compare them (convert renames `defined(__CUDACC__)`); a test that names none of HIP's is
    not one (`__CUDACC_VER_MAJOR__ < 12` is true under hipcc only as CUDA's version reads 0 there: the branch AMD
    builds by accident, a CUDA-only test). The project's own macros read as set: `(defined(GGML_USE_HIP) &&
    defined(__HIP_PLATFORM_AMD__)) || __CUDA_ARCH__ >= 610` tests its HIP switch, which its HIP build defines."""
    if not _AMD_MACROS.search(test) and _DEVICE_PASS not in test:
        return False
    return any({_value(test, lambda name, renamed=renamed: bool(macros.get(name, renamed if _cuda(name) else 1)),
                       lambda name: macros.get(name, 0 if _cuda(name) else 1), _ANY_NAME)
                for renamed in _readings(test)} == {1}
               for macros in ({**_AMD_PLATFORM, _DEVICE_PASS: device} for device in (0, 1)))


def _cuda(name: str) -> bool:
    return CUDA_CONDITION_MACROS.fullmatch(name) is not None


def _cuda_macro(name: str, cuda: tuple[int, int]) -> Optional[int]:
    """What CUDA `cuda` defines the version macro as; None for one of unknown value (__CUDACC_VER_BUILD__)."""
    if name in ("__CUDACC_VER_MAJOR__", "__CUDACC_VER_MINOR__"):
        return cuda[0] if name.endswith("MAJOR__") else cuda[1]
    return cuda[0] * 1000 + cuda[1] * 10 if name in ("CUDART_VERSION", "CUDA_VERSION") else None


def _first_true(tests: Sequence[str], defined: bool, has_else: bool) -> Optional[int]:
    for index, test in enumerate(tests):
        value = _value(test, defined)
        if value is None:
            return None
        if value:
            return index
    return len(tests) if has_else else -1


def _value(test: str, defined: bool | Callable[[str], bool], value_of: Callable[[str], Optional[int]] = lambda name: 0,
           macros: re.Pattern[str] = CUDA_VERSION_MACROS) -> Optional[int]:
    """The test's value with `macros` (CUDA's version macros) read by `value_of` (hipcc: 0, undefined) and `defined`
    of them as `defined` (the same for each, or by the macro's name); None where it reads another name, where a
    macro of unknown value (`__CUDACC_VER_BUILD__`) decides it, or where it spells more than integers, comparisons
    and logic."""
    text = without_comments(test)
    if any(not macros.fullmatch(name) for name in _tested(text)) or \
            any(not macros.fullmatch(name) for name in NAME.findall(DEFINED.sub(" ", text))):
        return None
    is_defined = defined if callable(defined) else lambda name: defined
    return evaluate(text, is_defined, value_of)


def _tested(text: str) -> set[str]:
    """The macros a test asks `defined(...)` of."""
    return {m.group(1) or m.group(2) for m in DEFINED.finditer(text)}
