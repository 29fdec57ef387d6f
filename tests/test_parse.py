from __future__ import annotations

import re

import pytest

from portkit.model import QualifiedFacts, Role as K, StringFacts
from portkit.parse import collect_macros, parse_source


def occurrences(source: str, kind: K | None = None) -> list[tuple[int, str, str]]:
    parsed = parse_source("t.cu", source.encode())
    return [(o.position.line, o.role.value, o.text) for o in parsed.occurrences if kind is None or o.role is kind]


def names(source: str) -> set[str]:
    return {text for _, _, text in occurrences(source)}


@pytest.mark.parametrize("source", [
    '// cudaMalloc(&p, 4);\n',
    '/* cudaFree(p); */\n',
    'const char* s = "cudaMalloc(&p, 4)";\n',
    "char c = 'c'; const char* r = R\"(cudaMalloc)\";\n",
    '#define MSG "cudaMemcpy failed"\n',
    '#define M(x) /* cudaFree */ (x)\n',
], ids=["line-comment", "block-comment", "string", "raw-string", "string-in-define", "comment-in-define"])
def test_comments_and_strings_yield_nothing(source: str) -> None:
    assert not {n for n in names(source) if n.startswith("cuda")}


def test_calls_types_and_identifiers() -> None:
    src = "void f() {\n  cudaStream_t s;\n  cudaStreamCreate(&s);\n  int k = cudaMemcpyHostToDevice;\n}\n"
    found = occurrences(src)
    assert (2, "type", "cudaStream_t") in found
    assert (3, "call", "cudaStreamCreate") in found
    assert (4, "identifier", "cudaMemcpyHostToDevice") in found


def test_macro_bodies_are_lexed_with_positions() -> None:
    src = "#define CHECK(x) do { cudaError_t e = (x); } while (0)\n"
    body = [o for o in parse_source("t.cu", src.encode()).occurrences if o.role is K.MACRO_BODY]
    error_t = next(o for o in body if o.text == "cudaError_t")
    assert src.encode()[error_t.span.start:error_t.span.end] == b"cudaError_t"
    assert error_t.position.column == src.index("cudaError_t") + 1


def test_a_qualified_name_in_a_macro_body_is_one_name_as_in_code() -> None:
    """`#define POLICY thrust::cuda::par` was lexed as thrust, cuda, par: no rule saw the name."""
    code = "auto a = thrust::cuda::par;\nauto b = thrust :: cuda::par.on(s);\nauto c = cg::this_grid();\n"
    macros = "#define A thrust::cuda::par\n#define B(s) thrust :: cuda::par.on(s)\n#define C() cg::this_grid()\n"

    def qualified(src: str) -> list[tuple[int, str, bytes, object]]:
        parsed = parse_source("t.cu", src.encode())
        return [(o.position.line, o.text, src.encode()[o.span.start:o.span.end], o.info)
                for o in parsed.occurrences if o.role is K.QUALIFIED]
    assert qualified(macros) == qualified(code) == [
        (1, "thrust::cuda::par", b"thrust::cuda::par", None),
        (2, "thrust::cuda::par", b"thrust :: cuda::par", QualifiedFacts(6)),
        (3, "cg::this_grid", b"cg::this_grid", None)]
    body = [o.text for o in parse_source("t.cu", macros.encode()).occurrences if o.role is K.MACRO_BODY]
    assert not {"thrust", "cuda", "par", "cg", "this_grid"} & set(body), "its parts are no names of their own"


NVIDIA_SIDE = """\
#if defined(__HIP_PLATFORM_AMD__)
int amd_1;
#else
int nvidia_1;
#endif
#ifdef __HIPCC__
int amd_2;
#else
int nvidia_2;
#endif
#ifndef __HIP_PLATFORM_AMD__
int nvidia_3;
#endif
#if X
int either_1;
#elif defined(__HIP_PLATFORM_NVIDIA__)
int nvidia_4;
#elif defined(__HIP__) || defined(__HIP_PLATFORM_HCC__)
int either_2;
#else
int nvidia_5;
#endif
#ifdef USE_HIP
int either_3;
#else
int either_4;
#endif
#if defined(__HIPCC__) && X
int either_5;
#else
int either_6;
#endif
"""


def test_the_branches_hipcc_never_compiles_for_amd_are_the_nvidia_side() -> None:
    """Decided by HIP's platform macros alone: a test that also reads the project's (USE_HIP, X) decides nothing."""
    parsed = parse_source("t.cu", NVIDIA_SIDE.encode())
    side = {m.group(1) for m in re.finditer(r"int (\w+);", NVIDIA_SIDE)
            if any(start <= m.start() < end for start, end in parsed.nvidia_side)}
    assert side == {"nvidia_1", "nvidia_2", "nvidia_3", "nvidia_4", "nvidia_5"}


def test_a_negated_test_of_the_projects_hip_switch_has_its_hip_code_in_the_else() -> None:
    """`#ifndef USE_ROCM` ... CUDA ... `#else` ... HIP: the switch with its sides swapped. Its own branch is the CUDA side,
    and what its #else includes is the project's HIP layer (kaldi's hipify.h under a positive test)."""
    src = ('#ifndef USE_ROCM\n#include <cuda_bf16.h>\nint cuda_1;\n#else\n#include <hip/hip_bf16.h>\n#include "hipify.h"\n'
           "int hip_1;\n#endif\n#if !defined(USE_ROCM)\nint cuda_2;\n#endif\n#ifndef OTHER\n#include \"other.h\"\n#else\n"
           "int other_else;\n#endif\n")
    parsed = parse_source("t.cu", src.encode())
    side = {m.group(1) for m in re.finditer(r"int (\w+);", src)
            if any(start <= m.start() < end for start, end in parsed.hip_switch_side)}
    assert parsed.hip_switches == ("USE_ROCM",) and side == {"cuda_1", "cuda_2"}
    assert parsed.hip_includes == frozenset({"hip_bf16.h", "hipify.h"})


def test_macros_hips_platform_decides_are_a_project_wide_fact() -> None:
    """DeepSpeed's PTX_AVAILABLE (only in the #else of `#ifdef __HIP_PLATFORM_AMD__`, under a test of __CUDA_ARCH__)
    reads undefined under hipcc for AMD, bitsandbytes' BNB_HIP (1 under a HIP platform test, 0 in its #else) as 1, in
    another file's tests: that file's NVIDIA side. A macro also defined outside such a branch is no such fact; the
    fact is part of the table's fingerprint (the cache's key), and of what a file's narrowed table keeps."""
    header = (b"#pragma once\n#ifdef __HIP_PLATFORM_AMD__\n#include <hip/hip_runtime.h>\n#else\n#if __CUDA_ARCH__ >= 530\n"
              b"#define PTX_AVAILABLE\n#endif\n#endif\n#if defined(__HIP_PLATFORM_AMD__) || defined(__HIPCC__)\n"
              b"#define BNB_HIP 1\n#else\n#define BNB_HIP 0\n#define ALSO 1\n#endif\n#define ALSO 2\n")
    unit = (b'#include "h.h"\n#ifdef PTX_AVAILABLE\nint nvidia_1;\n#else\nint either_1;\n#endif\n#if !BNB_HIP\nint nvidia_2;\n'
            b"#endif\n#if BNB_HIP\nint either_2;\n#else\nint nvidia_3;\n#endif\n#if ALSO\nint either_3;\n#endif\n")
    table = collect_macros([header, unit])
    assert table.on_amd == {b"PTX_AVAILABLE": None, b"BNB_HIP": b"1"}
    assert table.narrowed(frozenset({b"BNB_HIP"})).on_amd == {b"BNB_HIP": b"1"}
    assert table.fingerprint() != collect_macros([header.replace(b"#ifdef __HIP", b"#ifdef X__HIP"), unit]).fingerprint()
    parsed = parse_source("t.cu", unit, macros=table)
    side = {m.group(1) for m in re.finditer(rb"int (\w+);", unit)
            if any(start <= m.start() < end for start, end in parsed.nvidia_side)}
    assert side == {b"nvidia_1", b"nvidia_2", b"nvidia_3"} and not parsed.hip_switches


def test_error_and_warning_messages_are_text_not_code() -> None:
    src = "#ifndef CUBLAS_VERSION\n#error CUBLAS error names missing\n# warning cudaFree is slow\n#endif\n#define F cudaFree\n"
    names = [(o.position.line, o.text) for o in parse_source("t.cu", src.encode()).occurrences if o.role is K.MACRO_BODY]
    assert names == [(5, "cudaFree")]


def test_templates_lambdas_and_launches() -> None:
    src = (
        "template <typename T>\n__global__ void k(T* a) { a[0] = T(); }\n"
        "void h(float* d, cudaStream_t s) {\n"
        "  auto f = [=]() { k<float><<<dim3(2), 64, 0, s>>>(d); };\n"
        "  f();\n}\n"
    )
    parsed = parse_source("t.cu", src.encode())
    kernel = next(o for o in parsed.occurrences if o.role is K.KERNEL)
    assert (kernel.text, kernel.detail) == ("k", "template")
    launch = next(o for o in parsed.occurrences if o.role is K.LAUNCH)
    assert (launch.text, launch.detail, launch.position.line, launch.function) == ("k", "dim3(2), 64, 0, s", 4, "h")
    assert parsed.error_line is None


def test_a_qualified_name_split_over_lines_is_one_name() -> None:
    src = "struct V { __device__ void push(int); };\n__device__ inline void V::\n    push(int p) { (void)p; }\n"
    parsed = parse_source("t.cu", src.encode())
    device = next(o for o in parsed.occurrences if o.role is K.DEVICE_FUNCTION)
    assert (device.text, device.function, device.position.line) == ("V::push", "V::push", 2)


def test_definitions_and_declarations() -> None:
    src = "#define CUDA_OK 0\nstruct cudaThing { int x; };\nint cudaHelper(int cudaArg) { int cudaLocal = cudaArg; return cudaLocal; }\n"
    parsed = parse_source("t.cu", src.encode())
    assert {"CUDA_OK", "cudaThing", "cudaHelper"} <= parsed.definitions
    assert {"cudaArg", "cudaLocal"} <= parsed.declared


def test_includes_and_inline_asm() -> None:
    src = ('#include <cuda_runtime.h>\n#include "curand_kernel.h"\n'
           '__device__ int l() { int x; asm volatile("mov.u32 %0, " "%%laneid;" : "=r"(x)); return x; }\n')
    found = occurrences(src)
    assert (1, "include", "cuda_runtime.h") in found
    assert (2, "include", "curand_kernel.h") in found
    assert (3, "inline_asm", "mov.u32 %0, %%laneid;") in found
    assert (3, "device_function", "l") in found


def test_asm_inside_a_macro() -> None:
    found = occurrences('#define LANE(x) asm("mov.u32 %0, %%laneid;" : "=r"(x))\n', K.INLINE_ASM)
    assert found == [(1, "inline_asm", "mov.u32 %0, %%laneid;")]


@pytest.mark.parametrize("source, expected", [
    ("#if __CUDA_ARCH__ >= 700\n#endif\n", "__CUDA_ARCH__ >= 700"),
    ("#ifdef __CUDACC__\n#endif\n", "__CUDACC__"),
    ("#if defined(__NVCC__) || CUDART_VERSION > 11000\n#endif\n", "defined(__NVCC__) || CUDART_VERSION > 11000"),
    ("#ifndef __CUDA_ARCH__\n#endif\n", "__CUDA_ARCH__"),
])
def test_cuda_preprocessor_conditions(source: str, expected: str) -> None:
    assert occurrences(source, K.PREPROCESSOR_CONDITION) == [(1, "preprocessor_condition", expected)]


def test_other_conditions_are_not_cuda_branches() -> None:
    assert occurrences("#if defined(USE_FAST)\n#endif\n#ifdef NDEBUG\n#endif\n", K.PREPROCESSOR_CONDITION) == []


def test_syntax_errors_give_partial_results() -> None:
    src = "void ok() { cudaDeviceSynchronize(); }\nvoid broken( { int x = ;\nvoid after() { cudaFree(0); }\n"
    parsed = parse_source("t.cu", src.encode())
    assert parsed.error_line == 2
    assert {"cudaDeviceSynchronize", "cudaFree"} <= {o.text for o in parsed.occurrences}


def test_bom_keeps_offsets() -> None:
    src = b"\xef\xbb\xbfvoid f() { cudaFree(0); }\n"
    parsed = parse_source("t.cu", src)
    call = next(o for o in parsed.occurrences if o.text == "cudaFree")
    assert src[call.span.start:call.span.end] == b"cudaFree"
    assert parsed.error_line is None


def test_keep_filters_names_but_not_definitions() -> None:
    parsed = parse_source("t.cu", b"int cudaMine() { return cudaFree(0) + other(); }\n", keep=lambda n: n.startswith("cuda"))
    assert {o.text for o in parsed.occurrences} == {"cudaFree"}
    assert "cudaMine" in parsed.definitions


def test_a_define_body_declares_its_variables_outside_comments_and_strings() -> None:
    """`cuErr` is the macro's variable, no unknown CUDA name; what a comment or a string seems to declare is not."""
    parsed = parse_source("t.cu", b'#define CHECK(call) do { cudaError_t cuErr = call; /* int cuFake = 0; */ \\\n'
                                  b'  if (cudaSuccess != cuErr) printf("cuText x;"); return cuErr; } while (0)\n'
                                  b"#define SHARED __device__ float cuData[256];\n")
    assert {"cuErr", "cuData"} <= parsed.declared
    assert not {"cuFake", "x", "cuText", "cudaSuccess", "return"} & parsed.declared


@pytest.mark.parametrize("tests, has_else, branch", [
    (["!defined(CUDART_VERSION) || CUDART_VERSION < 12000"], False, 0),
    (["CUDART_VERSION >= 12000"], True, 1),
    (["CUDA_VERSION >= 11000UL /* new driver */", "__CUDACC_VER_MAJOR__ == 0"], True, 1),
    (["defined(CUDART_VERSION)"], True, None),  # convert renames it, a shim does not: either branch
    (["defined(CUDART_VERSION) && CUDART_VERSION < 13000"], False, -1),  # compared too: `defined` stays as written
    (["CUDART_VERSION >= 12000"], False, -1),
    (["CUDART_VERSION >= 12000 && USE_FAST"], True, None),  # a project's switch: unknown here
    (["__CUDA_ARCH__ >= 700"], True, None),
])
def test_which_branch_of_a_cuda_version_test_hipcc_compiles(tests: list[str], has_else: bool, branch) -> None:
    from portkit.parse.hipcc_branch import hipcc_branch

    assert hipcc_branch(tests, has_else) == branch


@pytest.mark.parametrize("test, value", [
    ("defined(CUDA_VERSION) && (CUDA_VERSION < 11000)", 0),  # ginkgo's legacy cuSPARSE: no compiler builds it
    ("CUDART_VERSION >= 11000", None),  # CUDA 13 builds it, hipcc does not
    ("CUDA_VERSION < 11031", None),  # hipcc builds it, CUDA 13 does not
    ("!defined(__CUDACC_VER_MAJOR__) || __CUDACC_VER_MAJOR__ >= 9", 1),
    ("__CUDACC_VER_BUILD__ > 100", None),  # a value no version says
])
def test_a_version_test_both_compilers_read_alike(test: str, value) -> None:
    from portkit.parse.hipcc_branch import everywhere_value

    assert everywhere_value(test, (13, 0)) == value


@pytest.mark.parametrize("test, value", [
    ("defined(A) && B", None),
    ("defined(GONE) && B", 0),  # false whatever B is
    ("B || ON > 1", 1),
    ("!(B && OFF)", 1),
    ("ON * 2 + 1 == 5 /* a comment */", 1),
    ("B + 1 > 0", None),
    ("ON / 2", None),  # no `/`: not a test this reads
    ("defined X(1)", None),
])
def test_an_if_test_is_read_three_valued(test: str, value) -> None:
    from portkit.parse.if_expressions import evaluate

    known, undefined = {"ON": 2, "OFF": 0}, {"GONE"}
    assert evaluate(test, lambda name: True if name in known else False if name in undefined else None,
                    known.get) == value


@pytest.mark.parametrize("source, branch, otherwise", [
    ("#if __CUDA_ARCH__ >= 600  // sm_60\n// a comment\n__device__ void add(double *p, double v);\n"
     "template <typename T> __device__ T twice(T v) { return v + v; }\n#pragma unroll\n#endif\n", ("add", "twice"), ()),
    ("#if __CUDA_ARCH__ >= 600\n__device__ float f(float *p) {\n#if __CUDA_ARCH__ >= 700\n  return 1.0f;\n#endif\n"
     "  return 0.0f;\n}\n#else\n__device__ float f(float *p) { return 2.0f; }\n#endif\n", ("f",), ("f",)),
    ("#if __CUDA_ARCH__ >= 600\n__device__ float f(float);\n#else\n__host__ __device__ float f(float);\n#endif\n",
     ("f",), None),  # a fallback host code may call
    ("#if __CUDA_ARCH__ >= 600\n__global__ void k();\n#define FAST 1\n#endif\n", None, ()),  # a kernel's host stub
    ("#if __CUDA_ARCH__ >= 600\n__device__ int counter;\n#endif\n", None, ()),  # a variable the host registers
    ("#if __CUDA_ARCH__ >= 600\n#include <cstdio>\n#endif\n", None, ()),
])
def test_what_an_arch_test_branch_declares(source: str, branch, otherwise) -> None:
    """An architecture test's branches: the device-only functions each declares, None where it holds more."""
    from portkit.model import NameFacts

    parsed = parse_source("t.cu", source.encode())
    facts = [o.facts(NameFacts) for o in parsed.of(K.IDENTIFIER) if o.facts(NameFacts).compared][0]
    assert (facts.branch_functions, facts.otherwise_functions) == (branch, otherwise)


@pytest.mark.parametrize("test, rewritten", [
    ("defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 600", "defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 600"),
    ("defined(__CUDACC__) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 600", "defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 600"),
    ("defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 600", "__CUDA_ARCH__ < 600"),  # `defined` says more than `!defined`
    ("defined(OTHER) && __CUDA_ARCH__ >= 600", "__CUDA_ARCH__ >= 600"),
])
def test_what_a_rewrite_of_an_arch_comparison_replaces(test: str, rewritten: str) -> None:
    """With the `defined(X) &&` before a `>` comparison of X, which the rewritten comparison says already."""
    from portkit.model import NameFacts

    source = f"#if {test}\n#endif\n"
    parsed = parse_source("t.cu", source.encode())
    compared = [o for o in parsed.of(K.IDENTIFIER) if o.facts(NameFacts).compared][0]
    replaced = compared.parts[1]
    assert source.encode()[replaced.start:replaced.end].decode() == rewritten


def test_string_literals_are_read_only_where_a_named_call_is_made() -> None:
    """The values of a file's string literals (escapes decoded, raw strings as written, a concatenation once), with
    the variable each initialises: only in a file that calls one of `strings`, or whose literals may define a kernel."""
    source = ('static const char* kSrc = R"k(\n__global__ void k() {}\n)k";\n'
              'const char two[] = "a\\n" "b\\x41\\t\\"q\\"" u8"c";\n'
              'std::string s(R"(x)");\n'
              'void f() { std::string t; t = "abc"; nvrtcCreateProgram(&p, "--x", L"y\\101"); }\n')
    parsed = parse_source("s.cpp", source.encode(), strings=frozenset({"nvrtcCreateProgram"}))
    found = [(o.position.line, o.text, o.facts(StringFacts).variable) for o in parsed.of(K.STRING)]
    assert found == [(1, "\n__global__ void k() {}\n", "kSrc"), (4, 'a\nbA\t"q"c', "two"), (5, "x", "s"),
                     (6, "abc", "t"), (6, "--x", ""), (6, "yA", "")]
    kernel = parsed.of(K.STRING)[0]
    assert kernel.facts(StringFacts).line_of(kernel.text.index("__global__"), kernel.text) == 2
    without_kernel = source.split("\n", 3)[3]
    assert not parse_source("s.cpp", without_kernel.encode(), strings=frozenset({"nvrtcCompileProgram"})).of(K.STRING)
    assert not parse_source("s.cpp", source.encode()).of(K.STRING)
    # A literal that may define a kernel has the file's literals read, whoever compiles it.
    assert len(parse_source("s.cpp", source.encode(), strings=frozenset({"nvrtcCompileProgram"})).of(K.STRING)) == 6
    quoted = 'const char* k = "extern \\"C\\" __global__ void k() {}";\nextern "C" __global__ void g() {}\n'
    assert parse_source("q.cu", quoted.encode(), strings=frozenset({"nvrtcCompileProgram"})).of(K.STRING)
    code = 'extern "C" __global__ void g() { printf("%d", 1); }\n'  # a kernel in code, not in a string
    assert not parse_source("c.cu", code.encode(), strings=frozenset({"nvrtcCompileProgram"})).of(K.STRING)


@pytest.mark.parametrize("source, expected", [
    (b'const char* k = "__global__ void k() {}";\n', True),
    (b'extern "C" __global__ void g() {}\n', False),  # code, after a quote that closes `"C"`
    (b'puts("x");\n__global__ void g() {}\n', False),  # the quote is on another line
    (b'__global__ void g() {}\nputs("x");\n', False),
    (b'__global__ void g();\nf("a", "b __global__");\n__global__ void h();', True),  # the second of three
    (b'puts("x__global__");\n', False),  # not a whole word
    (b'__global__ void g() {}\nauto s = R"(x)";\n', True),  # a raw string anywhere in a file with a kernel
    (b'auto s = R"(__device__)";\n', False),
], ids=["quoted", "extern-c", "quote-above", "quote-below", "second-of-three", "inside-a-word", "raw", "no-kernel"])
def test_a_literal_may_hold_a_kernel_where_a_quote_comes_before_its_global_on_its_line(source: bytes, expected: bool) -> None:
    """The look is made on the lines that spell `__global__` only (it ran from every quote of the file)."""
    from portkit.parse.strings import may_hold_kernel_text

    assert may_hold_kernel_text(source) is expected
