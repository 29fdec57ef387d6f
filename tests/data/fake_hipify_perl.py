#!/usr/bin/env python3
"""A stand-in for hipify-perl with its command-line contract, for tests only.

`fake_hipify_perl.py [-quiet-warnings] [-roc] [-hip-kernel-execution-syntax] FILE`
prints FILE with a few CUDA runtime names renamed, exits 0; exits 1 with a
message on stderr when FILE cannot be read or contains HIPIFY_FAIL. If
FAKE_HIPIFY_LOG is set, each argv is appended to that file as one JSON line.
"""
import json
import os
import re
import sys

RENAMES = {"cudaMalloc": "hipMalloc", "cudaFree": "hipFree", "cudaStream_t": "hipStream_t",
           "cuda_runtime.h": "hip/hip_runtime.h", "cudaDeviceSynchronize": "hipDeviceSynchronize"}

args = sys.argv[1:]
if os.environ.get("FAKE_HIPIFY_LOG"):
    with open(os.environ["FAKE_HIPIFY_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps(args) + "\n")
options = [a for a in args if a.startswith("-")]
files = [a for a in args if not a.startswith("-")]
unknown = set(options) - {"-quiet-warnings", "-roc", "-hip-kernel-execution-syntax"}
if unknown or len(files) != 1:
    sys.stderr.write(f"usage error: {sorted(unknown)} {files}\n")
    sys.exit(2)
try:
    text = open(files[0], encoding="utf-8", errors="surrogateescape").read()
except OSError as exc:
    sys.stderr.write(f"error: could not open {files[0]}: {exc}\n")
    sys.exit(1)
if "HIPIFY_FAIL" in text:
    sys.stderr.write("error: translation failed\n")
    sys.exit(1)
text = re.sub(r"\b(" + "|".join(map(re.escape, RENAMES)) + r")\b", lambda m: RENAMES[m.group()], text)
sys.stdout.write(text)
