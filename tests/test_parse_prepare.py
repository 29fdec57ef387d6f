"""Parse errors on real CUDA code: the pre-parse fixes (portkit/parse/prepare.py), the project macro
table (macros.py) and the token matching of what still fails (recovery.py).

Each case is a minimal reproduction of a shape found in public CUDA projects (docs/parser.md) and
fails without its fix; the last tests are invariants (clean files, determinism, the cache).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from portkit.convert.edits import EditOptions
from portkit.convert.sources import convert_stable
from portkit.model import CallFacts, LaunchSyntax, ParsedFile, Role
from portkit.parse import collect_macros, parse_source
from portkit.parse.macros import file_definitions
from portkit.parse.prepare import normalise
from portkit.run.project import run_project
from portkit.run.request import RunRequest
from portkit.rules import Target
from portkit.settings import RunSettings


def parse(source: str, **kwargs) -> ParsedFile:
    return parse_source("t.cu", source.encode(), **kwargs)


def roles(parsed: ParsedFile, name: str) -> list[str]:
    return [o.role.value for o in parsed.occurrences if o.text == name]


def named(parsed: ParsedFile, role: Role) -> list[str]:
    return [o.text for o in parsed.occurrences if o.role is role]


EXTERN_C_SPLIT = '#ifdef __cplusplus\nextern "C" {\n#endif\nvoid f(cudaStream_t s);\n#ifdef __cplusplus\n}\n#endif\n'


def test_extern_c_split_over_two_cplusplus_groups() -> None:
    parsed = parse(EXTERN_C_SPLIT)
    assert parsed.error_line is None
    assert roles(parsed, "cudaStream_t") == ["type"]


def test_statement_macro_ending_a_kernel_keeps_the_kernel() -> None:
    # Without the `;` the body reads as an initializer list: no function, no kernel.
    parsed = parse("__global__ void k(float *d) {\n  d[0] = 1;\n  CHECK( cudaDeviceSynchronize() )\n}\n")
    assert named(parsed, Role.KERNEL) == ["k"]
    assert roles(parsed, "cudaDeviceSynchronize") == ["call"]
    assert parsed.error_line is None


def test_object_like_statement_macro_before_a_call_is_no_declaration() -> None:
    # `PERF_BEGIN` / `cudaMemcpy(d, h, n, kind);` parses, silently, as a declaration of cudaMemcpy.
    parsed = parse("#define PERF_BEGIN cudaEventRecord(start);\nvoid f(float *d, float *h, int n) {\n"
                   "  PERF_BEGIN\n  cudaMemcpy(d, h, n, cudaMemcpyHostToDevice);\n}\n")
    assert roles(parsed, "cudaMemcpy") == ["call"]
    assert roles(parsed, "cudaMemcpyHostToDevice") == ["identifier"]


def test_object_like_statement_macro_before_a_templated_launch_keeps_the_launch() -> None:
    parsed = parse("#define PERF_BEGIN cudaEventRecord(start);\nvoid f(float *x) {\n"
                   "  PERF_BEGIN\n  k<A, B><<<g, b>>>(x);\n}\n")
    assert named(parsed, Role.LAUNCH) == ["k"]
    assert parsed.error_line is None


def test_statement_macro_with_no_blank_for_its_semicolon_is_blanked() -> None:
    # `TIMER_END()` then an empty line and a directive: no blank to hold a `;` before the directive.
    parsed = parse("#define TIMER_END() t1 = now(); total += t1 - t0;\nvoid f(float *d) {\n  TIMER_END()\n\n"
                   "#ifdef DEBUG_TIME\n  report();\n#endif\n  k<<<1, 1>>>(d);\n}\n")
    assert parsed.error_line is None
    assert named(parsed, Role.LAUNCH) == ["k"]


def test_statement_macros_from_another_file_come_from_the_project_table() -> None:
    source = "void f(float *d, float *h, int n) {\n  PERF_BEGIN\n  cudaMemcpy(d, h, n, cudaMemcpyHostToDevice);\n}\n"
    table = collect_macros([b"#define PERF_BEGIN cudaEventRecord(start);\n"])
    assert roles(parse(source, macros=table), "cudaMemcpy") == ["call"]


def test_attribute_macro_keeps_the_device_function() -> None:
    parsed = parse("#define DEV_INLINE __device__ __forceinline__\n"
                   "DEV_INLINE uint4 fnv4(uint4 a, uint4 b) { return make_uint4(a.x, b.x, 0, 0); }\n")
    assert named(parsed, Role.DEVICE_FUNCTION) == ["fnv4"]
    assert parsed.error_line is None


def test_attribute_macros_made_of_attribute_macros_and_linkage() -> None:
    """moderngpu's `MGPU_DEVICE` is `__device__ INLINESYMBOL`, itself `__forceinline__` or `inline`; warp-ctc's
    `API_REFERENCE` is `extern "C" __declspec(dllexport)` on Windows. 17 of warp-ctc's 36 files parsed with errors."""
    table = collect_macros([b"#ifdef _MSC_VER\n#define INLINESYMBOL __forceinline__\n#else\n#define INLINESYMBOL inline\n"
                            b"#endif\n#define MGPU_DEVICE __device__ INLINESYMBOL\n"
                            b"#define MGPU_HOST_DEVICE __host__ MGPU_DEVICE\n"
                            b"#ifdef _WIN32\n#define API_REFERENCE extern \"C\" __declspec(dllexport)\n#else\n"
                            b"#define API_REFERENCE\n#endif\n"])
    parsed = parse("MGPU_DEVICE void merge(const int* keys, int aBegin,\n    int aEnd) { __syncthreads(); }\n"
                   "MGPU_HOST_DEVICE int half(int x) { return x / 2; }\n"
                   "API_REFERENCE int get_version();\nAPI_REFERENCE int compute(float* p, int n);\n", macros=table)
    assert parsed.error_line is None
    assert sorted(named(parsed, Role.DEVICE_FUNCTION)) == ["half", "merge"]


def test_attribute_macro_defined_for_another_model_as_a_pragma() -> None:
    """One header, several programming models: `_Pragma(...)` is no code, so the macro stays an attribute."""
    parsed = parse("#ifdef HAVE_CUDA\n#define HOST_DEVICE __host__ __device__\n#else\n"
                   "#define HOST_DEVICE _Pragma(\"omp declare target\")\n#endif\n"
                   "inline HOST_DEVICE\n  int *\n  Vault::\n    get() { return 0; }\n")
    assert named(parsed, Role.DEVICE_FUNCTION) == ["Vault::get"]


def test_calling_convention_macro_keeps_the_declarations() -> None:
    """A copy of the driver API's header, loaded at run time: `CUDAAPI` is `__stdcall` on Windows only."""
    parsed = parse("#ifdef _WIN32\n#define CUDAAPI __stdcall\n#else\n#define CUDAAPI\n#endif\n"
                   "typedef void (CUDAAPI *CUstreamCallback)(int status, void *data);\n"
                   "extern int CUDAAPI cuInit(unsigned int, int cudaVersion);\n")
    assert parsed.error_line is None
    assert {"CUstreamCallback", "cuInit"} <= parsed.definitions


@pytest.mark.parametrize("lambda_", ["[=] __device__ (int i)", "[=] __host__ __device__ (int i)",
                                     "[=] HOST_DEVICE (int i)"])
def test_device_lambdas(lambda_: str) -> None:
    parsed = parse("#define HOST_DEVICE __host__ __device__\nvoid f(float *a, int n) {\n"
                   f"  for_each(n, {lambda_} {{ a[i] = __ldg(&a[i]); }});\n}}\n")
    assert parsed.error_line is None
    assert roles(parsed, "__ldg") == ["call"]


def test_identity_macro_around_a_parameter_list() -> None:
    parsed = parse("#define STDC_ARGS(p) p\nvoid HPL_f\nSTDC_ARGS( (\n   const int,\n   cudaStream_t *\n) );\n")
    assert parsed.error_line is None
    assert roles(parsed, "cudaStream_t") == ["type"]


@pytest.mark.parametrize("use", ["RESOLVE(T, p[b],\n    for (int i = rank; i < n; i += 32) {\n      __syncthreads();\n    });",
                                 "RESOLVE(T, p[b],\n    auto x = cast<T*>(p) + 1;\n    while (x) { __syncthreads(); }\n    n = 0;);",
                                 "RESOLVE(for (int i = 0; i < n; ++i) { __syncthreads(); })"])
def test_statement_macro_with_code_in_its_arguments_ends_with_its_kernel(use: str) -> None:
    # ginkgo's GKO_PRECONDITIONER_JACOBI_RESOLVE_PRECISION(T, p, for (...) {...}): a statement in an argument list is
    # an error, and the recovery ran the kernel on into the host function below (its launch read as from the kernel).
    parsed = parse(f"__global__ void k(int n) {{\n  {use}\n}}\nvoid h(int g) {{\n  if (g > 0) {{\n"
                   "    other<<<g, 32>>>(g);\n  }\n}\n")
    assert parsed.error_line is None
    assert named(parsed, Role.KERNEL) == ["k"]
    assert [(o.text, o.function) for o in parsed.of(Role.LAUNCH)] == [("other", "h")]
    assert [o.function for o in parsed.occurrences if o.text in ("RESOLVE", "__syncthreads")] == ["k", "k"]


@pytest.mark.parametrize("use", ["CHECK(cudaFree(p));", "APPLY(p, [&] { g(); return; });", "LOOP(for (;;) x += 1);",
                                 "  x = MAX(for_each, 1);"])
def test_macro_uses_with_no_statement_to_end_a_block_stay_as_written(use: str) -> None:
    source = f"void f(float *p) {{\n  {use}\n}}\n".encode()
    assert normalise(source, collect_macros([source])) == source


def test_pragma_between_a_loop_header_and_its_body() -> None:
    parsed = parse("__global__ void k(float *a) {\n  for (int i = 0; i < 8; i++)\n#pragma unroll\n"
                   "    for (int j = 0; j < 8; j++) { a[i] = __shfl_sync(0xffffffff, a[j], 0); }\n}\n")
    assert parsed.error_line is None
    assert named(parsed, Role.KERNEL) == ["k"]


@pytest.mark.parametrize("source", ["void f() {\n  int **p = new int*[n];\n}\n",
                                    "void f() {\n  const float **p = new const float*[n];\n}\n",
                                    "enum [[deprecated]] Priority { LOW, HIGH };\n",
                                    '#include <cinttypes>\nvoid f(long n) {\n  printf("rows %" PRId64 " (of %" PRId64\n'
                                    '         ")\\n", n, n);\n  printf("n = %" PRIu64, n);\n}\n',
                                    "void f(const float* const __restrict x) {\n  float* const __restrict y = 0;\n}\n",
                                    "struct S {\n  void f(const Options& options = {}, int n = { }) const;\n};\n",
                                    "#if __has_include(<optional>)\n#include <optional>\n#endif\n",
                                    "#if defined(X) && __has_include(<nvml.h>) && !__has_include_next(<a/b.hpp>)\n#endif\n",
                                    "struct H { operator float() const; };\n"
                                    "float f(H h, const H *p) { return h.operator float() + p->operator const float(); }\n"],
                         ids=["new-pointer-array", "new-const", "enum-attribute", "format-macros", "gnu-restrict",
                              "default-braces", "has-include", "has-include-header-file", "conversion-operator-call"])
def test_cpp_grammar_gaps(source: str) -> None:
    parsed = parse(source + "void after(cudaStream_t s) { cudaStreamSynchronize(s); }\n")
    assert parsed.error_line is None
    assert roles(parsed, "cudaStreamSynchronize") == ["call"]


def test_a_word_after_a_literal_that_follows_a_word_is_kept() -> None:
    """`extern "C" int` and `operator "" _km` are C++, and a comment's quotes end no literal: only a word after a lone
    literal is a macro of the format."""
    text = b'extern "C" int f(void);\nextern "C"\n__global__ void k(float *p);\nlong operator "" _km(long double);\n' \
           b'void g(long n) {\n  use(n); // n as "count"\n  CHECK_ERROR_GL();\n  printf("%" PRId64 "\\n", n);\n}\n'
    assert normalise(text, collect_macros([])) == text.replace(b"PRId64", b"      ")


@pytest.mark.parametrize("source", ["struct __align__(16) S { cudaStream_t s; };\n",
                                    "__global__ void __launch_bounds__(256, 2, 1) k(cudaStream_t *a) {}\n",
                                    "__global__ void __cluster_dims__(2, 1, 1) k(cudaStream_t *a) {}\n"],
                         ids=["align", "launch-bounds-3", "cluster-dims"])
def test_cuda_attributes_the_grammar_lacks(source: str) -> None:
    parsed = parse(source)
    assert parsed.error_line is None
    assert roles(parsed, "cudaStream_t") == ["type"]


def test_cluster_dims_is_still_reported_when_blanked() -> None:
    parsed = parse("__global__ void __cluster_dims__(2, 1, 1) k(float *a) {}\n")
    assert named(parsed, Role.KERNEL) == ["k"]
    assert "__cluster_dims__" in {o.text for o in parsed.occurrences}


NOT_DONE = ("#define NOT_DONE \\\n  { throw NotDone(__FILE__, __LINE__, __func__); } \\\n  static_assert(true, \"\")\n"
            "#define NOT_BUILT(module) { throw NotBuilt(#module); } static_assert(true, \"\")\n")
# ginkgo's GKO_NOT_IMPLEMENTED / GKO_NOT_COMPILED(module): a macro that stands for a function's whole body.
BODY_MACRO_USES = (
    "namespace kernels {\n"
    "void fill(float* x, int n) NOT_DONE;\n"
    "template <typename T>\nvoid Solver<T>::apply(const T* x, T* y,\n                      int n) const\n    NOT_DONE;\n"
    "template <typename T>\n__global__ void scale_all(T* x, int n) NOT_DONE;\n"
    "cudaStream_t stream_of(int device) NOT_BUILT(cuda);\n"
    "Allocator::Allocator(cudaStream_t stream)\n    NOT_BUILT(cuda);\n"
    "__global__ void reduce(const float* x, float* out) {\n"
    "  float v = __shfl_down_sync(0xffffffff, x[threadIdx.x], 1);\n  out[0] = v;\n}\n"
    "void run(const float* x, float* out) {\n  reduce<<<1, 32>>>(x, out);\n  cudaDeviceSynchronize();\n}\n"
    "}\n")


def _after_the_macro_uses(parsed: ParsedFile) -> None:
    """What follows the uses is read as written: the kernel, its intrinsic, the host launch and call."""
    assert parsed.error_line is None
    assert "reduce" in named(parsed, Role.KERNEL)
    shuffle = next(o for o in parsed.occurrences if o.text == "__shfl_down_sync")
    assert (shuffle.role, shuffle.function) == (Role.CALL, "reduce")
    launch = next(o for o in parsed.occurrences if o.role is Role.LAUNCH)
    assert (launch.text, launch.function) == ("reduce", "run")
    assert roles(parsed, "cudaDeviceSynchronize") == ["call"]


def test_a_macro_that_is_a_function_body_makes_a_definition() -> None:
    parsed = parse(NOT_DONE + BODY_MACRO_USES)
    _after_the_macro_uses(parsed)
    assert named(parsed, Role.KERNEL) == ["scale_all", "reduce"]
    assert roles(parsed, "cudaStream_t") == ["type", "type"]
    assert {"fill", "stream_of"} <= parsed.definitions


def test_a_function_body_macro_from_another_header() -> None:
    table = collect_macros([NOT_DONE.encode(), BODY_MACRO_USES.encode()])
    parsed = parse(BODY_MACRO_USES, macros=table)
    _after_the_macro_uses(parsed)
    assert named(parsed, Role.KERNEL) == ["scale_all", "reduce"]


def test_a_function_body_macro_defined_nowhere_leaves_declarations() -> None:
    # Without its #define the use may be a body or a qualifier (`noexcept`): the functions stay declarations.
    parsed = parse(BODY_MACRO_USES)
    _after_the_macro_uses(parsed)
    assert named(parsed, Role.KERNEL) == ["reduce"]
    assert roles(parsed, "cudaStream_t") == ["type", "type"]
    assert roles(parsed, "NOT_DONE") == ["identifier"] * 3


def test_a_function_body_macro_in_a_statement_stays_a_statement() -> None:
    parsed = parse(NOT_DONE + "void f(float* d, int n) {\n  if (n > 0) NOT_DONE;\n  else cudaFree(d);\n"
                   "  CHECK(cudaMalloc(&d, n))\n  k<<<1, 1>>>(d);\n}\n")
    assert parsed.error_line is None
    assert roles(parsed, "cudaFree") == ["call"]
    assert named(parsed, Role.LAUNCH) == ["k"]


# moderngpu's DEFINE_LDG_TYPE(T), ginkgo's GKO_CUDA_DATA_TYPE(T, V): macros whose body is a definition, used
# at namespace scope with or without a `;`, some with arguments no declaration could hold (`long long`).
DECLARING_MACROS = (
    "template <typename T> __device__ T ldg(const T* p);\n"
    "#define DEFINE_LDG_TYPE(T) \\\n  template <> __device__ T ldg(const T* p) { return __ldg(p); }\n"
    "#define DATA_TYPE(T, V) \\\n  template <> \\\n  struct data_type_of<T> { \\\n"
    "    constexpr static cudaDataType_t value = V; \\\n  }\n")
DECLARING_MACRO_USES = (
    "namespace kernels {\n"
    "DEFINE_LDG_TYPE(char)\nDEFINE_LDG_TYPE(long long)\n\tDEFINE_LDG_TYPE(unsigned int)\nDEFINE_LDG_TYPE(float)\n"
    "DATA_TYPE(unsigned long long, CUDA_R_64U);\nDATA_TYPE(std::complex<float>, CUDA_C_32F);\n"
    "__global__ void reduce(const float* x, float* out) {\n"
    "  float v = __shfl_down_sync(0xffffffff, ldg(x + threadIdx.x), 1);\n  out[0] = __ldg(x) + v;\n}\n"
    "void run(const float* x, float* out) {\n  reduce<<<1, 32>>>(x, out);\n  cudaDeviceSynchronize();\n}\n"
    "}\n")


@pytest.mark.parametrize("where", ["file", "header"])
def test_macros_whose_body_is_a_definition_used_without_a_semicolon(where: str) -> None:
    if where == "file":
        parsed = parse(DECLARING_MACROS + DECLARING_MACRO_USES)
    else:
        parsed = parse(DECLARING_MACRO_USES, macros=collect_macros([DECLARING_MACROS.encode()]))
    _after_the_macro_uses(parsed)
    assert named(parsed, Role.KERNEL) == ["reduce"]
    ldg = [o for o in parsed.occurrences if o.text == "__ldg" and o.role is Role.CALL]
    assert [o.function for o in ldg] == ["reduce"]
    assert roles(parsed, "CUDA_R_64U") == roles(parsed, "CUDA_C_32F") == ["identifier"]


def test_ifdef_inside_a_parameter_list_keeps_the_kernel_and_both_branches_names() -> None:
    parsed = parse("__global__ void k(float *a\n#ifdef USE_TEX\n, cudaTextureObject_t t\n#else\n"
                   ", cudaSurfaceObject_t s\n#endif\n) { }\n")
    assert named(parsed, Role.KERNEL) == ["k"]
    assert "cudaTextureObject_t" in named(parsed, Role.TYPE)
    assert "cudaSurfaceObject_t" in named(parsed, Role.IDENTIFIER)


def test_alternative_function_headers_keep_the_kernel() -> None:
    parsed = parse("__global__ void\n#ifndef USE_TEXTURES\nbucketcount(float *pivots, int size)\n#else\n"
                   "bucketcount(int size)\n#endif\n{\n  cudaStream_t s;\n}\n")
    assert named(parsed, Role.KERNEL) == ["bucketcount"]
    assert roles(parsed, "cudaStream_t") == ["type"]


def test_an_else_under_an_if_directive_keeps_the_kernel() -> None:
    parsed = parse("__global__ void k(float *a) {\n  if (a[0] > 0) {\n    a[0] = 0;\n  }\n#if CUDART_VERSION >= 9000\n"
                   "  else {\n    a[0] = __shfl_sync(0xffffffff, a[1], 0);\n  }\n#endif\n}\n")
    assert parsed.error_line is None
    assert named(parsed, Role.KERNEL) == ["k"]
    assert roles(parsed, "__shfl_sync") == ["call"]
    assert named(parsed, Role.PREPROCESSOR_CONDITION) == ["CUDART_VERSION >= 9000"]


def test_a_dangling_else_inside_an_if_directive_keeps_the_function() -> None:
    """`if (gpu) {...} else` / `#endif` / `{...}` (kaldi's common form): the first branch goes on after the group."""
    parsed = parse("void copy(float *d, const float *s, int n, bool gpu) {\n#if HAVE_CUDA == 1\n  if (gpu) {\n"
                   "    cudaMemcpy(d, s, n, cudaMemcpyDeviceToDevice);\n  } else\n#endif\n  {\n    d[0] = s[0];\n  }\n}\n"
                   "void other(cudaStream_t s) { cudaStreamSynchronize(s); }\n")
    assert parsed.error_line is None
    assert roles(parsed, "cudaMemcpy") == roles(parsed, "cudaStreamSynchronize") == ["call"]


def test_an_attribute_macro_empty_where_the_compiler_lacks_the_attribute() -> None:
    """faiss's `ALIGNED(x)`: `__attribute__((aligned(x)))`, or nothing under another compiler; a use before a
    declaration is the attribute, not a statement missing its `;`."""
    macros = collect_macros([b"#ifdef NO_ALIGN\n#define ALIGNED(x)\n#else\n#define ALIGNED(x) __attribute__((aligned(x)))\n"
                             b"#endif\n"])
    parsed = parse("void f(cudaStream_t s) {\n  ALIGNED(32) unsigned short tab[16];\n  cudaStreamSynchronize(s);\n}\n",
                   macros=macros)
    assert parsed.error_line is None
    assert roles(parsed, "cudaStreamSynchronize") == ["call"]


@pytest.mark.parametrize("head", ["if (gpu)", "while (busy(s))"])
def test_a_test_whose_statement_follows_its_group_keeps_the_function(head: str) -> None:
    """`#if HAVE_CUDA == 1` / `if (gpu)` / `#endif` / `run();` (kaldi's tests): the statement goes on after the group."""
    parsed = parse(f"void run(bool gpu, cudaStream_t s) {{\n#if HAVE_CUDA == 1\n  {head}\n#endif\n"
                   "    cudaStreamSynchronize(s);\n  cudaDeviceSynchronize();\n}\n")
    assert parsed.error_line is None
    assert roles(parsed, "cudaStreamSynchronize") == roles(parsed, "cudaDeviceSynchronize") == ["call"]


def test_launch_bounds_chosen_by_architecture_keep_the_branch_amd_compiles() -> None:
    """`#if __CUDA_ARCH__ == 750` / `__launch_bounds__(1024, 1)` / `#else` / `__launch_bounds__(1024, 2)` / `#endif`
    before the kernel (kaldi's): hipcc takes the #else, whose bounds are the ones read."""
    parsed = parse("#if __CUDA_ARCH__ == 750\n__launch_bounds__(1024, 1)\n#else\n__launch_bounds__(1024, 2)\n#endif\n"
                   "__global__ void stats(const float *data) { }\nvoid host(cudaStream_t s) { cudaStreamSynchronize(s); }\n",
                   roles=frozenset({Role.LAUNCH_BOUNDS}))
    assert parsed.error_line is None
    assert named(parsed, Role.KERNEL) == ["stats"]
    assert [o.text for o in parsed.of(Role.LAUNCH_BOUNDS)] == ["__launch_bounds__(1024, 2)"]


def test_a_loop_macro_with_expressions_for_arguments_keeps_its_body() -> None:
    """`#define KERNEL_LOOP(offset, idx, n) for (...)` used as `KERNEL_LOOP(offset, idx, n + 1) {` (kaldi's decoder
    kernels): the use reads as a call missing its `;` unless it is read as the loop's head it stands for."""
    macros = collect_macros([b"#define KERNEL_LOOP(offset, idx, n) \\\n  for (int offset = blockIdx.x, idx = threadIdx.x; "
                             b"\\\n       offset < (n); offset += gridDim.x)\n"])
    parsed = parse("__global__ void k(int n, int4 *out) {\n  KERNEL_LOOP(\n      offset, lane,\n      n + 1) {  // n + 1 lanes\n"
                   "    out[offset + lane] = make_int4(0, 0, 0, 0);\n  }\n}\n"
                   "void host(cudaStream_t s) { cudaStreamSynchronize(s); }\n", macros=macros)
    assert parsed.error_line is None
    assert named(parsed, Role.KERNEL) == ["k"] and roles(parsed, "cudaStreamSynchronize") == ["call"]
    assert roles(parsed, "make_int4") == ["call"]


def test_a_group_that_closes_a_block_and_opens_another_keeps_the_function() -> None:
    """`#if K >= 2048` / `} else if (k <= 2048) {` / `#endif` / `}` (faiss's selection dispatch): a split construct."""
    parsed = parse("void pick(int k, float *p) {\n  if (k <= 1024) {\n    cudaMemset(p, 0, k);\n#if K >= 2048\n"
                   "  } else if (k <= 2048) {\n    cudaMemset(p, 1, k);\n#endif\n  }\n}\n"
                   "void other(cudaStream_t s) { cudaStreamSynchronize(s); }\n")
    assert parsed.error_line is None
    assert roles(parsed, "cudaMemset") == ["call", "call"] and roles(parsed, "cudaStreamSynchronize") == ["call"]


def test_a_statement_macro_given_a_built_in_type_reads_as_a_call() -> None:
    """`RUN_PASS(int32_t, true);` read as a declaration fails at `true`; the rest of the file with it."""
    macros = collect_macros([b"#define RUN_PASS(T, DIR) run_##T##_##DIR(in, out, stream)\n"])
    parsed = parse("void dispatch(bool wide, cudaStream_t stream) {\n  if (wide) {\n    RUN_PASS(unsigned long, true);\n"
                   "  } else {\n    RUN_PASS(int32_t, false);\n  }\n  cudaStreamSynchronize(stream);\n}\n",
                   macros=macros)
    assert parsed.error_line is None
    assert roles(parsed, "cudaStreamSynchronize") == ["call"] and roles(parsed, "cudaStream_t") == ["type"]


def test_a_cuda_condition_in_a_split_group_is_still_reported() -> None:
    parsed = parse("__global__ void k(const float *p, float *q) {\n  float x =\n#if __CUDA_ARCH__ >= 350 // sm_35\n"
                   "    __ldg(p);\n#else\n    *p;\n#endif\n  q[0] = x;\n}\n")
    assert parsed.error_line is None
    condition = next(o for o in parsed.occurrences if o.role is Role.PREPROCESSOR_CONDITION)
    assert (condition.text, condition.detail, condition.position.line, condition.position.column) == (
        "__CUDA_ARCH__ >= 350", "#if", 3, 5)
    assert roles(parsed, "__ldg") == ["call"]


DEFINE_COMMENT = (
    "#define CHECK(x) \\\n"
    "  do { /* run it */ \\\n"
    "    cudaError_t e = (x); \\\n"
    "    if (e != cudaSuccess) abort(); \\\n"
    "  } while (0)\n"
    "\n"
    "void f(float *d) {\n"
    "  CHECK(cudaMalloc(&d, 4));\n"
    "}\n"
)


def test_block_comment_before_a_define_continuation() -> None:
    # tree-sitter ended the #define at the comment: `cudaError_t` became the macro's name, a definition.
    parsed = parse(DEFINE_COMMENT)
    assert roles(parsed, "cudaError_t") == ["macro_body"]
    assert "cudaError_t" not in parsed.definitions
    assert parsed.error_line is None


def test_block_comment_before_a_define_continuation_is_converted(tmp_path: Path, database) -> None:
    source = tmp_path / "t.cu"
    source.write_bytes(DEFINE_COMMENT.encode())
    result = run_project(RunSettings(paths=(str(source),), root=tmp_path, target=Target(rocm=(5, 2, 0)), jobs=1),
                         RunRequest(keep_sources=True, rules=database))
    converted = convert_stable(str(source), source.read_bytes(), result.findings, result.context,
                               EditOptions(LaunchSyntax.CUDA), True, "").converted.decode()
    assert "    hipError_t e = (x); \\\n" in converted
    assert "(e != hipSuccess)" in converted and "hipMalloc(&d, 4)" in converted
    assert "/* run it */" in converted


def test_text_after_a_block_comment_in_a_define_stays_in_the_macro() -> None:
    # tree-sitter ends the directive at the comment (a MISSING newline it counts as no error) and reads the
    # rest as code: `cudaFree(x)` a call at file scope, the continuation line a statement of its own.
    for source in ("#define M(x) f(x) /* c */ cudaFree(x)\n",
                   "#define M(x) f(x) \\\n/* note */ cudaFree(x)\n"):
        parsed = parse(source)
        assert roles(parsed, "cudaFree") == ["macro_body"], source
        assert parsed.error_line is None
    # A suppression stays a comment: it is read from the tree.
    assert named(parse("#define M(x) f(x) /* portkit: ignore */ cudaFree(x)\n"), Role.SUPPRESSION)


def test_a_marker_inside_a_continued_macro_converts_once(tmp_path: Path, database) -> None:
    # The marker is a block comment before the token: converting again must not read the token as a call.
    source = b"#define M(x) cudaFree(x) \\\n__shfl_down_sync(0xffffffff, v, 1);"
    once = _converted(tmp_path, source, database)
    assert b"/* portkit: PK104 __shfl_down_sync" in once and b" */ __shfl_down(v, 1);" in once  # its mask dropped
    assert _converted(tmp_path, once, database) == once


def _converted(tmp_path: Path, data: bytes, database) -> bytes:
    source = tmp_path / "m.cu"
    source.write_bytes(data)
    result = run_project(RunSettings(paths=(str(source),), root=tmp_path, target=Target(rocm=(5, 2, 0)), jobs=1,
                                     cache=False), RunRequest(keep_sources=True, rules=database))
    shape = next((s.shape for s in result.files if s.path == str(source)), "")
    return convert_stable(str(source), data, result.findings, result.context, EditOptions(LaunchSyntax.CUDA), True, shape,
                          result.macros).converted


def test_a_hidden_missing_newline_is_no_error() -> None:
    # `#include <x>` then a blank: tree-sitter marks the directive's newline MISSING; the tree is whole.
    assert parse("#include <cuda_runtime.h> \nint x;\n").error_line is None


def test_names_in_a_region_that_still_fails_are_matched_token_by_token() -> None:
    # Prose in an `#if 0` block: the apostrophe opens a character literal that swallows the line.
    parsed = parse("void f(float *d) {\n#if 0\n  Don't call cudaFree(d) before the sync.\n#endif\n"
                   "  cudaDeviceSynchronize();\n}\n", keep=lambda name: name.startswith("cuda"))
    assert parsed.error_line == 3
    free = next(o for o in parsed.occurrences if o.text == "cudaFree")
    assert (free.role, free.position.line, free.position.column, free.function) == (Role.CALL, 3, 14, "f")
    assert free.facts(CallFacts).arg(0) == "d"
    assert roles(parsed, "cudaDeviceSynchronize") == ["call"]


def test_token_matching_skips_comments_strings_and_headers() -> None:
    parsed = parse('void f() {\n  L\'x "cudaA" /* cudaB */ cudaC(1, 2);\n#include <cuda_runtime_api.h>\n}\n',
                   keep=lambda name: name.startswith("cuda"))
    assert [(o.text, o.role.value) for o in parsed.occurrences if o.role is not Role.INCLUDE] == [("cudaC", "call")]


def test_brackets_are_matched_in_code_only() -> None:
    from portkit.parse.lexer import Layout

    source = b'extern "C" {\n// }\n#define B "{"\nint f(int a[2]) { return g(a[0], ")") + (1); }\n}\nint h(\n'
    layout = Layout(source)
    brace = source.index(b"{")
    assert layout.closing(brace) == source.rindex(b"}")
    call = source.index(b"g(") + 1
    assert layout.closing(call) == source.index(b'")")') + 3  # not the ")" in the string
    assert layout.opening(layout.closing(call)) == call
    assert layout.closing(source.index(b"a[") + 1) == source.index(b"]", source.index(b"a["))
    assert layout.closing(source.rindex(b"h(") + 1) == -1  # never closed
    assert layout.opening(source.rindex(b"}")) == brace


def test_clean_files_are_parsed_as_written() -> None:
    source = "#define CHECK(x) x\n__global__ void k(float *a) { CHECK(a[0] = 1); }\nvoid h() { k<<<1, 1>>>(0); }\n"
    assert parse(source) == parse_source("t.cu", source.encode(), macros=collect_macros([]))


def test_same_input_same_occurrences() -> None:
    source = (DEFINE_COMMENT + EXTERN_C_SPLIT).encode()
    first = parse_source("t.cu", source)
    assert all(parse_source("t.cu", source) == first for _ in range(3))


def test_project_macros_reach_every_file_and_the_cache_follows_them(tmp_path: Path, database) -> None:
    (tmp_path / "defs.h").write_text("#define DEV_INLINE __device__ __forceinline__\n")
    (tmp_path / "k.cu").write_text('#include "defs.h"\nDEV_INLINE int twice(int a) { return a * 2; }\n')
    settings = RunSettings(paths=(str(tmp_path),), root=tmp_path, target=Target(rocm=(5, 2, 0)), jobs=1)

    def broken() -> list[str]:
        return [Path(f.path).name for f in run_project(settings, RunRequest(rules=database)).files if f.error_line is not None]

    assert broken() == []
    assert broken() == []  # cached
    (tmp_path / "defs.h").write_text("#define DEV_INLINE int x = 1;\n")  # k.cu's bytes are unchanged
    assert broken() == ["k.cu"]


def test_an_ifdef_in_a_member_initializer_list_keeps_the_constructor() -> None:
    """`WarpThing()` / `#ifndef USE_ROCM` / `: lane_id(threadIdx.x & 0x1f)` / `#else` / `: lane_id(...)`: both
    branches at once are no C++; the first branch goes on with the constructor, as an `else` goes on with its `if`."""
    parsed = parse("struct WarpThing {\n  unsigned lane_id, warp;\n  __device__ WarpThing(unsigned w)\n#ifndef USE_ROCM\n"
                   "      : lane_id(threadIdx.x & 0x1f)\n#else\n      : lane_id(threadIdx.x & 63)\n#endif\n"
                   "#ifdef TRACK_WARP\n      , warp(w)\n#endif\n  {}\n};\n")
    assert parsed.error_line is None
    assert named(parsed, Role.DEVICE_FUNCTION) == ["WarpThing"]


SHORT_ATTRIBUTE_MACROS = {
    "attributes.h": "#pragma once\n#define MY_FUNC __host__ __device__\n#define HD __host__ __device__ __forceinline__\n"
                    "#define KERNEL __global__\n",
    "use.cu": '#include "attributes.h"\nMY_FUNC float twice(float x) { return 2.0f * x; }\n'
              "template <typename T>\nHD T half(T x) { return x / 2; }\n"
              "KERNEL void k(float *p) { p[threadIdx.x] = twice(half(p[threadIdx.x])); }\n"
              "struct S { MY_FUNC int get() const; };\nfloat host_only(float x) { return x; }\n",
}


def test_an_attribute_macro_of_any_name_makes_device_code(tmp_path: Path) -> None:
    """`#define MY_FUNC __host__ __device__` (in a header): a name too short for the qualifiers it stands for still makes
    the functions it stands before device code, for the analyzers (kernels and device functions found, PK200/PK202)."""
    for name, text in SHORT_ATTRIBUTE_MACROS.items():
        (tmp_path / name).write_text(text)
    macros = collect_macros(text.encode() for text in SHORT_ATTRIBUTE_MACROS.values())
    parsed = parse_source("use.cu", SHORT_ATTRIBUTE_MACROS["use.cu"].encode(), macros=macros)
    assert sorted(parsed.device_functions) == ["half", "k", "twice"]
    twice = next(o for o in parsed.of(Role.DEVICE_FUNCTION) if o.text == "twice")
    assert (twice.info.spaces, twice.info.spelled) == ("__host__ __device__", "MY_FUNC")
    assert next(o for o in parsed.of(Role.MEMBER_DECLARATION)).detail == "__host__ __device__"
    settings = RunSettings(paths=(str(tmp_path),), root=tmp_path, target=Target(rocm=(5, 2, 0)), jobs=1, cache=False)
    findings = run_project(settings, RunRequest()).findings
    assert sorted((f.code, f.name) for f in findings if f.code in ("PK200", "PK202")) == [
        ("PK200", "k"), ("PK202", "half"), ("PK202", "twice")]


def test_project_table_leaves_defines_no_build_of_the_port_sees() -> None:
    header = (b"#ifndef COMPAT_H\n#define COMPAT_H\n#ifdef _WIN32\n#define EXPORT __declspec(dllexport) // Windows\n"
              b"#elif defined(__GNUC__)\n#define EXPORT __attribute__((visibility(\"default\")))\n#else\n#define EXPORT\n#endif\n"
              b"#if !defined(_MSC_VER) || defined(LEGACY)\n#define HOST_ONLY __host__\n#endif\n"
              b"#if defined(LEGACY)\n#define noexcept\n#endif\n#define constexpr_if_ok inline\n#define nullptr 0\n#endif\n")
    names = [name for name, _ in file_definitions(header)]
    # The Windows branch goes, the branches a Linux build may take stay; a keyword's only where it is unconditional
    # (an include guard is no condition).
    assert names == [b"COMPAT_H", b"EXPORT", b"EXPORT", b"HOST_ONLY", b"constexpr_if_ok", b"nullptr"]


def test_a_reference_initialised_in_parentheses_is_no_function_declarator() -> None:
    """kaldi's cu-matrix.cc: `const MatrixBase<Real> &src_mat(src.Mat());` reads as a function whose parameter list
    fails (`src.Mat()` is no parameter); the same with braces, `&src_mat{src.Mat()}`, parses. In a `for` too."""
    parsed = parse("template <typename Real>\nvoid copy(const Src<Real> &src, Real *d) {\n"
                   "  const MatrixBase<Real> &src_mat(src.Mat());\n  for (const Real *p(src_mat.Data() + 1); p; p = 0)\n"
                   "    cudaMemcpy(d, p, sizeof(Real), cudaMemcpyHostToDevice);\n}\n")
    assert parsed.error_line is None
    assert roles(parsed, "cudaMemcpy") == ["call"]


def test_a_macro_of_catch_clauses_after_a_try_block() -> None:
    """faiss's C API: `try { ... } CATCH_AND_HANDLE`, a macro that stands for the try block's handlers."""
    parsed = parse("#define CATCH_AND_HANDLE \\\n  catch (std::exception &e) { return -1; } \\\n  catch (...) { return -2; }\n"
                   "int alloc(float **p, int n) {\n  try {\n    cudaMalloc(p, n);\n  }\n  CATCH_AND_HANDLE\n  return 0;\n}\n"
                   "__global__ void k(float *p) { p[0] = 1; }\n")
    assert parsed.error_line is None
    assert roles(parsed, "cudaMalloc") == ["call"]
    assert named(parsed, Role.KERNEL) == ["k"]


def test_a_reserved_name_for_execution_spaces_makes_device_code() -> None:
    """ssim's gdt: `#define __both__ __gdt_host __gdt_device`. A reserved name stands for nothing else (a host build's
    `#define __device__` leaves `__device__` as written)."""
    macros = collect_macros([b"#if defined(__CUDACC__) || defined(__HIPCC__)\n# define __gdt_device __device__\n"
                             b"# define __gdt_host __host__\n#else\n# define __gdt_device\n# define __gdt_host\n#endif\n"
                             b"# define __both__ __gdt_host __gdt_device\n#ifndef __CUDACC__\n#define __device__\n#endif\n"])
    source = b"inline __both__ float saturate(const float &f) { return f < 1.f ? f : 1.f; }\n" \
             b"__device__ float twice(float x) { return 2 * x; }\n"
    parsed = parse_source("t.cu", source, macros=macros)
    assert parsed.error_line is None
    assert sorted(parsed.device_functions) == ["saturate", "twice"]
    saturate = next(o for o in parsed.of(Role.DEVICE_FUNCTION) if o.text == "saturate")
    assert saturate.info.spaces == "__host__ __device__"


def test_an_empty_macro_between_a_kernels_type_and_its_name() -> None:
    """s3d: `__global__ void LAUNCH_BOUNDS (T, B) kernel(...)`, where the definition with a body is commented out."""
    parsed = parse("//#define LAUNCH_BOUNDS(t, b) __launch_bounds__(t, b)\n#define LAUNCH_BOUNDS(t, b)\n"
                   "template <class real>\n__global__ void\nLAUNCH_BOUNDS (QSSA_THRD, QSSA_BLK)\n"
                   "qssa_kernel(real *a) { a[threadIdx.x] = 0; }\n")
    assert parsed.error_line is None
    assert named(parsed, Role.KERNEL) == ["qssa_kernel"]


def test_using_typename_in_a_class() -> None:
    """faiss's result handlers: `using typename SIMDResultHandler<SL>::simd16uint16;`."""
    parsed = parse("template <class B>\nstruct H : B {\n  using typename B::simd16uint16;\n"
                   "  void release(float *p) { cudaFree(p); }\n};\n")
    assert parsed.error_line is None
    assert roles(parsed, "cudaFree") == ["call"]


def test_a_macro_standing_for_final() -> None:
    """faiss: `struct VisitedTableSet FAISS_FINAL : VisitedTable {`, `#define FAISS_FINAL final` (or nothing)."""
    parsed = parse("#ifdef SWIG\n#define FAISS_FINAL\n#else\n#define FAISS_FINAL final\n#endif\n"
                   "struct Set FAISS_FINAL : Table {\n  void release(float *p) { cudaFree(p); }\n};\n")
    assert parsed.error_line is None
    assert roles(parsed, "cudaFree") == ["call"]


def test_a_gnu_attribute_after_a_variables_declarator() -> None:
    """faiss's PQCodeLoad.cuh (`using T = uint8_t __attribute__((ext_vector_type(2)));`), lulesh's and affine's
    `__attribute__((aligned(64)))` after an array: the grammar takes an attribute there in a typedef only."""
    parsed = parse("__device__ void load(void *p, float *d) {\n  using T = uint8_t __attribute__((ext_vector_type(2)));\n"
                   "  using U = __attribute__((__ext_vector_type__(1))) float;\n"
                   "  float gamma[32] __attribute__((__aligned__(64)));\n  int n __attribute__((unused)) = 0;\n"
                   "  T *t = reinterpret_cast<T *>(p);\n  d[0] = __shfl_down_sync(0xffffffff, gamma[0], 1);\n}\n"
                   "void f() __attribute__((noreturn));\n")
    assert parsed.error_line is None
    assert roles(parsed, "__shfl_down_sync") == ["call"]
