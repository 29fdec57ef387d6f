#!/usr/bin/env python3
"""Generate rules/*.yaml entries from the API mapping tables of ROCm's HIPIFY project.

Usage: scripts/gen_rules.py HIPIFY_CHECKOUT [--cuda-include DIR ...]

HIPIFY's docs/tables/*.md list, per CUDA library, each CUDA name with the CUDA
versions where it was added/deprecated/changed/removed and its HIP (and ROC)
counterpart with the same version columns. Only those facts (names, mappings,
versions) are taken; nothing of HIPIFY is committed. The kind of each name
(function, type, enum, macro) is read from the CUDA headers when given, else
guessed from the table section and the spelling.

Hand-curated content survives regeneration: entries the tables do not produce
(headers, link libraries, extra names) are kept, and for table names the keys
`status`, `note`, `action` and `weight` already in the file win.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
CURATED_KEYS = ("status", "note", "action", "weight", "kind", "older_hip", "older_hip_drop_args", "older_hip_until", "hip_define",
                "hip_define_until", "cast_args", "const_args", "const_args_until", "default_args", "c_default_args", "shape", "mask_arg",
                "c_library", "form_rule", "null_args", "helper", "hip_pointer", "symbol_arg", "compute_arg", "declares",
                "cuda_brings", "hip_brings")
# Kept from the file only where the table gives no HIP name (a curated mapping).
CURATED_TARGET_KEYS = ("hip", "roc", "hip_added")
KEY_ORDER = (
    "cuda", "kind", "hip", "roc", "status", "cuda_added", "cuda_deprecated", "cuda_removed",
    "hip_added", "roc_added", "hip_deprecated", "hip_removed", "hip_experimental", "older_hip", "older_hip_drop_args",
    "hip_requires", "pattern", "cmake", "hip_cmake", "weight", "note", "action",
)

# library id -> (table file, title, HIP library, ROC library, which columns give `hip`)
# Order matters: a name listed in several tables belongs to the first that lists it.
LIBRARIES = {
    "cuda-runtime": ("CUDA_Runtime_API_functions_supported_by_HIP.md", "CUDA runtime API", "HIP runtime", "", "hip"),
    "cuda-device": ("CUDA_Device_API_supported_by_HIP.md", "CUDA device functions and intrinsics", "HIP device API", "", "hip"),
    "cuda-driver": ("CUDA_Driver_API_functions_supported_by_HIP.md", "CUDA driver API", "HIP runtime", "", "hip"),
    "cucomplex": ("cuComplex_API_supported_by_HIP.md", "cuComplex", "hip_complex", "", "hip"),
    "nvrtc": ("CUDA_RTC_API_supported_by_HIP.md", "NVRTC runtime compilation", "hipRTC", "", "hip"),
    "curand": ("CURAND_API_supported_by_HIP_and_ROC.md", "cuRAND", "hipRAND", "rocRAND", "hip"),
    "cublas": ("CUBLAS_API_supported_by_HIP_and_ROC.md", "cuBLAS", "hipBLAS", "rocBLAS", "hip"),
    "cusolver": ("CUSOLVER_API_supported_by_HIP_and_ROC.md", "cuSOLVER", "hipSOLVER", "rocSOLVER", "hip"),
    "cusparse": ("CUSPARSE_API_supported_by_HIP_and_ROC.md", "cuSPARSE", "hipSPARSE", "rocSPARSE", "hip"),
    "cufft": ("CUFFT_API_supported_by_HIP.md", "cuFFT", "hipFFT", "", "hip"),
    # HIPIFY's HIP column for cuDNN is the retired hipDNN; MIOpen is the real target.
    "cudnn": ("CUDNN_API_supported_by_HIP_and_MIOPEN.md", "cuDNN", "MIOpen", "", "roc"),
    "cub": ("CUB_API_supported_by_HIP.md", "CUB", "hipCUB", "", "hip"),
}
# Names a table lists with one library that portkit keeps as a library of their own:
# table library -> (new library id, name pattern, title, HIP library)
SPLITS = {"cublas": ("cublaslt", re.compile(r"^(cublasLt|CUBLASLT_)"), "cuBLASLt", "hipBLASLt")}
# Names a table lists that are another API's, not CUDA's: OpenGL's types, which appear in the driver API's
# GL-interop signatures (cuGraphicsGLRegisterBuffer(..., GLuint, ...)). Made rules, every OpenGL program's
# GLuint was billed as a CUDA driver name (colmap's SiftGPU: 78 sites).
OTHER_APIS = {"GLenum", "GLuint"}
# Extra facts per library, applied to every table entry that has a target.
LIBRARY_STATUS = {
    "cudnn": ("partial", "MIOpen's API differs from cuDNN's in descriptors, algorithm search and workspace handling; "
                         "port each call by hand and re-validate numerics."),
}


def _cell(text: str) -> str:
    return text.strip().strip("`").strip()


def read_table(path: Path) -> list[tuple[str, list[str]]]:
    """(section title, cells) per table row; cells as in the markdown, backticks removed."""
    rows: list[tuple[str, list[str]]] = []
    section = ""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            section = re.sub(r"[*#\d.]", "", line).strip()
        elif line.startswith("|`"):
            rows.append((section, [_cell(c) for c in line.strip().strip("|").split("|")]))
    return rows


class HeaderKinds:
    """Classify names as macro/enum/type by reading CUDA headers."""

    def __init__(self, dirs: list[Path]):
        self.macros: set[str] = set()
        self.enumerators: set[str] = set()
        self.types: set[str] = set()
        for directory in dirs:
            for header in list(directory.rglob("*.h")) + list(directory.rglob("*.hpp")) + list(directory.rglob("*.cuh")):
                self._read(header.read_text(encoding="utf-8", errors="replace"))

    def _read(self, text: str) -> None:
        text = re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)
        self.macros.update(re.findall(r"^\s*#\s*define\s+(\w+)", text, flags=re.M))
        for body in re.findall(r"\benum\b[^{;()]*\{([^}]*)\}", text):
            self.enumerators.update(re.findall(r"(?:^|,)\s*(\w+)\s*(?==|,|$)", body.strip()))
        self.types.update(re.findall(r"\b(?:struct|union|enum|class)\s+(?:__\w+\s+)*(\w+)", text))
        self.types.update(re.findall(r"\btypedef\b[^;{]*?(\w+)\s*;", text))
        self.types.update(re.findall(r"\}\s*(\w+)\s*;", text))

    def kind(self, name: str) -> str | None:
        if name in self.enumerators:
            return "enum"
        if name in self.types:
            return "type"
        if name in self.macros:
            return "macro"
        return None


def guess_kind(library: str, section: str, name: str, headers: HeaderKinds) -> str:
    if "type" not in section.lower() and "Data" not in section:
        return "intrinsic" if library == "cuda-device" else "function"
    known = headers.kind(name)
    if known:
        return known
    if re.fullmatch(r"[A-Z0-9_]+", name):
        return "enum"
    if name.endswith(("_t", "_st")) or re.match(r"^(CU|cuda[A-Z]|cu[A-Z])\w*$", name) and name[0].isupper():
        return "type"
    return "type" if re.search(r"(Prop|Params|Desc|Attr|Info|Kind|Type|Mode|Flags?)$", name) else "enum"


def entry_from_row(library: str, section: str, cells: list[str], headers: HeaderKinds) -> dict:
    cuda, c_added, c_dep, _c_changed, c_removed = cells[0:5]
    hip, h_added, h_dep, _h_changed, h_removed, h_exp = cells[5:11]
    roc, r_added = (cells[11], cells[12]) if len(cells) >= 17 else ("", "")
    target_column = LIBRARIES[library][4] if library in LIBRARIES else "hip"
    entry: dict = {"cuda": cuda, "kind": guess_kind(library, section, cuda, headers)}
    if target_column == "roc":
        hip, h_added, h_dep, h_removed, h_exp, roc = roc, r_added, "", "", "", ""
    roc_added = r_added if roc else ""
    for key, value in (("hip", hip), ("roc", roc), ("cuda_added", c_added), ("cuda_deprecated", c_dep),
                       ("cuda_removed", c_removed), ("hip_added", h_added), ("hip_deprecated", h_dep),
                       ("hip_removed", h_removed), ("roc_added", roc_added)):
        if value:
            entry[key] = value
    if h_exp:
        entry["hip_experimental"] = True
    if "[REMOVED]" in section.upper() and "cuda_removed" not in entry:
        entry["status"] = "removed"
    if (hip or roc) and library in LIBRARY_STATUS:
        entry["status"], entry["note"] = LIBRARY_STATUS[library]
    return entry


def _scalar(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    text = str(value)
    if re.fullmatch(r"[A-Za-z_][\w:./<>+-]*", text) and text not in ("true", "false", "null", "yes", "no", "on", "off"):
        return text
    return json.dumps(text)


def format_entry(entry: dict) -> str:
    keys = sorted(entry, key=lambda k: KEY_ORDER.index(k) if k in KEY_ORDER else len(KEY_ORDER))
    return "  - {" + ", ".join(f"{k}: {_scalar(entry[k])}" for k in keys) + "}"


def write_library(path: Path, meta: dict, entries: list[dict]) -> None:
    lines = [
        "# Generated by scripts/gen_rules.py from the names, mappings and versions in ROCm/HIPIFY's",
        "# API tables; edit curated keys (status, note, action, weight) here, they survive regeneration.",
    ]
    for key in ("library", "title", "hip_library", "roc_library", "hip_library_added", "versions_of", "hip_amd_only"):
        if meta.get(key):
            lines.append(f"{key}: {_scalar(meta[key])}")
    if meta.get("weights"):
        lines.append("weights: {" + ", ".join(f"{k}: {v}" for k, v in meta["weights"].items()) + "}")
    lines.append("entries:")
    lines.extend(format_entry(e) for e in entries)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def merge(existing: list[dict], generated: list[dict]) -> list[dict]:
    by_name = {e["cuda"]: e for e in existing if e.get("kind") not in ("header", "link", "asm")}
    merged = []
    for entry in generated:
        old = by_name.get(entry["cuda"], {})
        kept = [k for k in CURATED_KEYS if k in old]
        if not entry.get("hip") and not entry.get("roc"):
            kept += [k for k in CURATED_TARGET_KEYS if k in old]
        new = {**entry, **{k: old[k] for k in kept}}
        # An "added" version that differs from the table's was curated against installed headers
        # (raised where the tables are early, lowered where the headers already have the name): keep it.
        for key in ("hip_added", "roc_added"):
            if key in old:
                new[key] = old[key]
        # A removal the tables do not list, curated against the library's headers (MIOpen dropped miopenInt8x4 in 6.1).
        if "hip_removed" in old and "hip_removed" not in entry:
            new["hip_removed"] = old["hip_removed"]
        merged.append(new)
    names = {e["cuda"] for e in generated}
    kept = [e for e in existing if e.get("kind") in ("header", "link", "asm") or e["cuda"] not in names]
    return kept + sorted(merged, key=lambda e: e["cuda"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("hipify", type=Path, help="a checkout of ROCm/HIPIFY (docs/tables is read)")
    parser.add_argument("--cuda-include", type=Path, action="append", default=[], help="CUDA header directory")
    parser.add_argument("--out", type=Path, default=ROOT / "rules")
    args = parser.parse_args(argv)
    tables = args.hipify / "docs" / "tables"
    if not tables.is_dir():
        print(f"error: {tables} not found", file=sys.stderr)
        return 2
    headers = HeaderKinds(args.cuda_include)
    libraries = list(LIBRARIES) + [split[0] for split in SPLITS.values()]
    paths = {lib: args.out / f"{lib.replace('-', '_')}.yaml" for lib in libraries}
    existing = {lib: yaml.safe_load(p.read_text(encoding="utf-8")) or {} if p.exists() else {} for lib, p in paths.items()}
    rows = {lib: read_table(tables / spec[0]) for lib, spec in LIBRARIES.items()}
    for source, (split, pattern, _title, _hip) in SPLITS.items():
        rows[split] = [r for r in rows[source] if pattern.match(r[1][0])]
        rows[source] = [r for r in rows[source] if not pattern.match(r[1][0])]
    # A name curated by hand in one file is not generated again into another.
    manual = {lib: {e["cuda"] for e in data.get("entries") or []} - {cells[0] for _, cells in rows[lib]}
              for lib, data in existing.items()}
    claimed: set[str] = set()
    specs = dict(LIBRARIES)
    for source, (split, _pattern, title, hip_lib) in SPLITS.items():
        specs[split] = (LIBRARIES[source][0], title, hip_lib, "", LIBRARIES[source][4])
    for library, (table, title, hip_lib, roc_lib, _column) in specs.items():
        path, old = paths[library], existing[library]
        elsewhere = set().union(*(names for lib, names in manual.items() if lib != library))
        generated = []
        for section, cells in rows[library]:
            if cells[0] in claimed or cells[0] in elsewhere or cells[0] in OTHER_APIS:
                continue
            claimed.add(cells[0])
            generated.append(entry_from_row(library, section, cells, headers))
        meta = {"library": library, "title": title, "hip_library": hip_lib, "roc_library": roc_lib,
                **{k: v for k, v in old.items() if k != "entries"}}
        entries = merge(old.get("entries") or [], generated)
        write_library(path, meta, entries)
        print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: {len(generated)} names from {table}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
