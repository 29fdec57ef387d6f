"""C++ that nvcc accepts and clang, so hipcc, rejects.

`register` was deprecated in C++11 and removed in C++17: nvcc warns and goes on, clang
(C++17 by default) stops. It asks nothing of the compiler either way, so convert deletes it.
In C it is still part of the language and stays.
"""
from __future__ import annotations

import dataclasses
from pathlib import PurePath
from typing import Iterable

from portkit.analyze.findings import simple_finding
from portkit.analyze.registry import Context, analyzer
from portkit.codes import CODES, REGISTER_STORAGE
from portkit.model import Finding, Fix, FixAction, ParsedFile, Role


@analyzer("source")
def analyze_register(parsed: ParsedFile, context: Context) -> Iterable[Finding]:
    if PurePath(parsed.path).suffix == ".c":
        return
    for o in parsed.of(Role.STORAGE_CLASS):
        if o.text == "register" and o.parts:
            finding = simple_finding(parsed.path, o, REGISTER_STORAGE, "register: C++17 removed it; hipcc rejects it",
                                     CODES[REGISTER_STORAGE].fix)
            yield dataclasses.replace(finding, fix=Fix(FixAction.RENAME, o.parts[0], ""))
