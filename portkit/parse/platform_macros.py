"""The project's macros that HIP's platform decides: defined only on one side of a test of HIP's own macros.

DeepSpeed's ds_kernel_utils.h defines PTX_AVAILABLE only in the #else of `#ifdef __HIP_PLATFORM_AMD__` (under a test
of __CUDA_ARCH__ there) and other files test it (`#ifdef PTX_AVAILABLE` / asm(...) / `#else` / portable code);
bitsandbytes' compat.cuh defines BNB_HIP as 1 under `#if defined(__HIP_PLATFORM_AMD__) || defined(__HIPCC__)` and as 0
in its #else, and kernels.cu tests `#if BNB_HIP` and `#if !BNB_HIP`. What such a macro reads as under hipcc compiling
for AMD is a fact of the whole project (the macro table's `on_amd`, parse/macros.py): undefined where every #define of
it is in a branch hipcc never compiles for AMD; its one body there where each of its other #defines is in a branch a
test of HIP's macros alone gives hipcc for AMD. A test of it is then decided for AMD as a test of HIP's own macros is
(parse/hipcc_branch.py: amd_value), and the branch hipcc leaves is the project's NVIDIA side (ParsedFile.nvidia_side).
"""
from __future__ import annotations

import bisect
import re
from typing import Callable, Iterable, Mapping, Optional

from portkit.parse.hipcc_branch import amd_value
from portkit.parse.if_expressions import without_comments
from portkit.textutil import line_matches

AMD = "amd"  # a #define in a branch hipcc takes for AMD by a test of HIP's macros alone
NVIDIA = "nvidia"  # a #define in a branch hipcc never compiles for AMD
# What a quick look at a file needs to find before its directives are read: most files test none of HIP's macros.
_HIP_MACRO = re.compile(rb"__HIP(?:CC)?__|__HIP_PLATFORM_\w+")
_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(ifdef|ifndef|if|elif|else|endif|define)\b((?:[^\n\\]|\\.|\\\r?\n)*)", re.M)
_CONTINUED = re.compile(rb"\\\r?\n")


def platform_sides(source: bytes) -> Callable[[int], str]:
    """Where each offset of the file stands for hipcc compiling for AMD: NVIDIA (under a branch it never compiles),
    AMD (every #if around it, an include guard aside, is one a test of HIP's macros gives it), or ""."""
    if _HIP_MACRO.search(source) is None:
        return lambda offset: ""
    directives = list(line_matches(source, b"#", _DIRECTIVE))
    stack: list[list[Optional[int]]] = []  # per open #if: each branch's value so far (None: undecided; -1: a guard)
    starts, sides = [0], [""]
    for index, match in enumerate(directives):
        kind = match.group(1)
        test = without_comments(_CONTINUED.sub(b" ", match.group(2)).decode("latin-1")).strip()
        if kind == b"define":
            continue
        if kind in (b"if", b"ifdef", b"ifndef"):
            spelled = test if kind == b"if" else f"{'!' if kind == b'ifndef' else ''}defined({test})"
            following = directives[index + 1] if index + 1 < len(directives) else None
            guard = kind == b"ifndef" and following is not None and following.group(1) == b"define" \
                and following.group(2).split()[:1] == [test.encode("latin-1")]
            stack.append([-1 if guard else amd_value(spelled)])
        elif not stack:
            continue  # an unbalanced #else/#endif
        elif kind in (b"elif", b"else"):
            stack[-1].append(_next_branch(stack[-1], amd_value(test) if kind == b"elif" else 1))
        else:
            stack.pop()
        starts.append(match.start())
        branches = [group[-1] for group in stack if group[-1] != -1]
        sides.append(NVIDIA if 0 in branches else AMD if branches and all(v == 1 for v in branches) else "")
    return lambda offset: sides[bisect.bisect_right(starts, offset) - 1]


def _next_branch(earlier: list[Optional[int]], value: Optional[int]) -> Optional[int]:
    """A later branch's value for AMD: never where an earlier one is taken or its own test fails; taken where each
    earlier one is never taken and its test holds."""
    if 1 in earlier or value == 0:
        return 0
    return 1 if value == 1 and all(v == 0 for v in earlier) else None


def on_amd(sides_by_name: Mapping[bytes, Iterable[tuple[str, bytes]]]) -> dict[bytes, Optional[bytes]]:
    """The macros HIP's platform decides, each with what it reads as under hipcc for AMD: None (undefined) where every
    #define of it is on the NVIDIA side; the body of its #defines on the AMD side where every other #define is on
    the NVIDIA side and they agree. `sides_by_name`: each macro's #defines as (side, body)."""
    readings: dict[bytes, Optional[bytes]] = {}
    for name, defined in sides_by_name.items():
        sides = set(defined)
        if not sides or any(side not in (AMD, NVIDIA) for side, _ in sides):
            continue
        bodies = {body for side, body in sides if side == AMD}
        if not bodies:
            readings[name] = None
        elif len(bodies) == 1:
            readings[name] = bodies.pop()
    return readings
