"""Check: block new unportable code against a baseline (portkit check, the pre-commit hook).

baseline.py fingerprints findings and decides what blocks; gitdiff.py finds the
lines a change adds; project.py runs both over a project.
"""
