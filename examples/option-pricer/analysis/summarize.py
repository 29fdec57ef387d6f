"""Summarise pricer output files on the GPU with CuPy."""
import sys

import cupy as cp


def summarize(path: str) -> tuple[float, float]:
    values = cp.asarray([float(line.split()[1]) for line in open(path) if line.startswith("price")])
    return float(values.mean()), float(values.std())


if __name__ == "__main__":
    mean, std = summarize(sys.argv[1])
    print(f"mean {mean:.4f} std {std:.4f}")
