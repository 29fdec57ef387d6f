"""Finding codes: stable ids, never reused, with their texts in rules/_codes.yaml.

PK1xx: a CUDA name matched against the rule database (the code says its status).
PK2xx: inventory of GPU code: kernels, launches, architecture branches.
PK3xx: semantic hazards. PK4xx: build files and environment.
"""
from __future__ import annotations

import dataclasses
import re

import yaml

from portkit.errors import RuleError
from portkit.model import Severity
from portkit.resources import rules_dir


@dataclasses.dataclass(frozen=True)
class Code:
    code: str
    name: str
    severity: Severity
    summary: str
    explanation: str = ""
    fix: str = ""


def _load() -> dict[str, Code]:
    path = rules_dir() / "_codes.yaml"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        codes = {}
        for code, entry in data.items():
            if not re.fullmatch(r"PK\d{3}", code):
                raise ValueError(f"bad code {code!r}")
            codes[code] = Code(code, entry["name"], Severity(entry["severity"]), entry["summary"],
                               entry.get("explanation", ""), entry.get("fix", ""))
        return codes
    except (OSError, yaml.YAMLError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise RuleError(f"{path}: malformed code table: {exc}") from None


CODES = _load()

STATUS_CODES = {
    "supported": "PK100",
    "partial": "PK101",
    "unsupported": "PK102",
    "removed": "PK103",
    "unavailable": "PK104",
}
