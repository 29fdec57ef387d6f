"""Shim: one header that lets a source tree build with both nvcc and hipcc.

header.py decides what the header maps (exactly the names the project uses);
project.py writes it and, if asked, the sources that include it.
"""
