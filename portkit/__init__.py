"""portkit: find what a CUDA code base needs to run on AMD ROCm/HIP, and port it."""
__version__ = "0.1.0"
