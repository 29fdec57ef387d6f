"""A run: walk → parse → analyze for a whole project, in parallel, cached per file (docs/architecture.md).

request.py (what a command asks) → plan.py (walk, project-wide inputs, cache entries) → workers.py
(each file's result, in a pool) → file.py (one file) → project.py (the finish: `ScanResult`).
"""
