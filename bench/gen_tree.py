#!/usr/bin/env python3
"""Generate a synthetic CUDA tree for benchmarks: N files mixing every library portkit knows.

Usage: bench/gen_tree.py OUTDIR [--files 2000] [--lines 500]
Deterministic (seeded): the same arguments give the same tree.
"""
from __future__ import annotations

import argparse
import random
from pathlib import Path

HEADERS = ["<cuda_runtime.h>", "<curand.h>", "<curand_kernel.h>", "<cublas_v2.h>", "<cusolverDn.h>", "<cusparse.h>",
           "<cufft.h>", "<nccl.h>", "<cudnn.h>", "<thrust/sort.h>", "<cooperative_groups.h>", "<nvtx3/nvToolsExt.h>"]
HOST_SNIPPETS = [
    "  CHECK(cudaMalloc(&d_{i}, n * sizeof(float)));",
    "  CHECK(cudaMemcpyAsync(d_{i}, h_{i}, n * sizeof(float), cudaMemcpyHostToDevice, stream));",
    "  CHECK(cudaStreamSynchronize(stream));",
    "  curandGenerateUniform(gen, d_{i}, n);",
    "  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, d_{i}, n, d_{i}, n, &beta, d_{i}, n);",
    "  cusolverDnSpotrf(solver, CUBLAS_FILL_MODE_LOWER, n, d_{i}, n, work, lwork, info);",
    "  cusparseCreateMatDescr(&descr);",
    "  cufftExecC2C(plan, (cufftComplex*)d_{i}, (cufftComplex*)d_{i}, CUFFT_FORWARD);",
    "  ncclAllReduce(d_{i}, d_{i}, n, ncclFloat, ncclSum, comm, stream);",
    "  cudnnConvolutionForward(dnn, &alpha, xdesc, d_{i}, wdesc, d_{i}, conv, algo, work, ws, &beta, ydesc, d_{i});",
    "  thrust::sort(thrust::device, d_{i}, d_{i} + n);",
    "  nvtxRangePushA(\"phase {i}\");",
    "  nvtxRangePop();",
    "  // cudaFree in a comment: not a use {i}",
    "  const char* msg_{i} = \"cudaMemcpy in a string\";",
    "  int local_{i} = helper_{i}(n) + {i};",
    "  if (n > {i}) {{ total += static_cast<double>(n) * 0.5; }}",
    "  for (int k = 0; k < n; ++k) {{ acc[k % 16] += k * {i}; }}",
]
DEVICE_SNIPPETS = [
    "  v += __shfl_down_sync(0xffffffff, v, {o});",
    "  int lane = threadIdx.x % 32;",
    "  unsigned mask = __ballot_sync(0xffffffff, v > 0.0f);",
    "  v = __expf(v) + sqrtf(fabsf(v));",
    "  atomicAdd(&out[threadIdx.x], v);",
    "  __syncthreads();",
    "  v *= {o}.0f;",
]


def kernel(rng: random.Random, index: int, lines: int) -> list[str]:
    body = [f"__global__ void kernel_{index}(float* out, int n) {{", "  float v = out[threadIdx.x];"]
    body += [rng.choice(DEVICE_SNIPPETS).format(o=rng.choice([1, 2, 4, 8, 16])) for _ in range(lines)]
    return body + ["  out[threadIdx.x] = v;", "}", ""]


def host(rng: random.Random, index: int, lines: int) -> list[str]:
    body = [f"int host_{index}(float* h_0, int n, cudaStream_t stream) {{", "  float* d_0 = nullptr;",
            "  double total = 0; int acc[16] = {0};"]
    body += [rng.choice(HOST_SNIPPETS).format(i=0) for _ in range(lines)]
    body += [f"  kernel_{index}<<<(n + 255) / 256, 256, 0, stream>>>(d_0, n);", "  return 0;", "}", ""]
    return body


def generate(out: Path, files: int, lines: int) -> int:
    rng = random.Random(1234)
    total = 0
    for number in range(files):
        path = out / f"module_{number // 100:02d}" / f"unit_{number:04d}.cu"
        path.parent.mkdir(parents=True, exist_ok=True)
        text = [f"// Synthetic unit {number}."] + [f"#include {h}" for h in rng.sample(HEADERS, 4)]
        text += ["#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) return 1; } while (0)", ""]
        text += [f"static int helper_0(int n) {{ return n * {number}; }}", ""]
        index = 0
        while len(text) < lines:
            text += kernel(rng, index, 20) + host(rng, index, 40)
            index += 1
        path.write_text("\n".join(text) + "\n")
        total += len(text)
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--lines", type=int, default=500)
    args = parser.parse_args()
    print(f"{generate(args.out, args.files, args.lines)} lines in {args.files} files under {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
