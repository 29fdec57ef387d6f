"""Convert: findings in, HIP sources and build files out.

edits.py turns findings' fixes into byte edits and applies them; markers.py adds
the `// portkit:` notes; sources.py converts one file until it is stable;
build_files.py rewrites Makefiles and scripts, cmake_files.py CMake files (with
findcuda.py, cmake_sources.py; build_flags.py: what both share); output.py writes
the tree, in place or as a diff; hipify.py and hipcc_check.py wrap hipify-perl and hipcc;
project.py ties them together for a whole run.
"""
