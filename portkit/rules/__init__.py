"""The rule database (rules/*.yaml): load and validate it, index it, resolve names for a target.

load.py reads the files (built-in, then the user's), validate.py checks each
entry, index.py answers "what is this name", versions.py says what it becomes for
the targeted CUDA and ROCm versions.
"""
from portkit.rules.index import RuleDatabase
from portkit.rules.load import load_database, load_file, rule_files
from portkit.rules.model import KINDS, Library, Rule
from portkit.rules.validate import parse_library
from portkit.rules.versions import Resolution, Target, Version, hip_version_number, parse_version, version_text

__all__ = ["KINDS", "Library", "Resolution", "Rule", "RuleDatabase", "Target", "Version", "hip_version_number", "load_database",
           "load_file", "parse_library", "parse_version", "rule_files", "version_text"]
