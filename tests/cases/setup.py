# Python-side inventory: extensions, Triton and numba kernels.
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension  # expect: PK421

import triton
from numba import cuda  # expect: PK423


@triton.jit  # expect: PK422
def add_kernel(x, y, out, n):
    pass


@cuda.jit  # expect: PK423
def numba_kernel(a):
    pass


ext = CUDAExtension("fast_ops", ["fast_ops.cu"])  # expect: PK421
setup(name="fast", ext_modules=[ext], cmdclass={"build_ext": BuildExtension})
