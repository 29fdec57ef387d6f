"""Readiness, effort estimate and the port checklist, computed from the scan data.

The effort model is data (rules/_effort.yaml plus each rule's weight); the report
prints the model next to the numbers so a reader can check the arithmetic.
"""
from __future__ import annotations

import collections
import functools
import math
from typing import Any

from portkit.codes import GPU_ARCHITECTURE, KERNEL, Status, in_group
from portkit.resources import load_data
from portkit.rules import RuleDatabase, Target
from portkit.rules.versions import parse_version, resolve, version_text
from portkit.tally import Tally, listed_sites
from portkit.textutil import counted

_SUPPORTED = Status.SUPPORTED.value
# Names whose results depend on the warp width (the checklist's numerical-correctness step).
WARP_PREFIXES = ("__shfl", "__ballot", "warpSize", "__activemask")


def _parse_effort(data: dict[str, Any]) -> dict[str, Any]:
    return {"hours_per_day": float(data["hours_per_day"]),
            "hours_per_changed_line": float(data["hours_per_changed_line"]),
            "per_name": {Status(k): float(v) for k, v in data["per_name"].items()},
            "per_site": {k: float(v) for k, v in data["per_site"].items()},
            "inventory": {k: float(v) for k, v in data["inventory"].items()},
            "per_file": {k: float(v) for k, v in data["per_file"].items()},
            "per_line": {k: float(v) for k, v in data["per_line"].items()}}


@functools.lru_cache(maxsize=1)
def effort_model() -> dict[str, Any]:
    return load_data("_effort.yaml", _parse_effort)


def readiness(data: dict[str, Any]) -> dict[str, Any]:
    """The share of sites that port by renaming alone, of those a build for AMD compiles (apis[].counted: none in the
    project's NVIDIA side, its CUDA branch beside its HIP branch or the CUDA side of its own HIP switch). A settled one
    there (apis[].ready: the project's own HIP layer maps it) is ready whatever its status: the estimate bills it no
    work either."""
    by_status = collections.Counter(data["summary"]["sites_by_status"])
    for api in data["apis"]:
        by_status[api["status"]] -= api["sites"] - api["counted"] + api["ready"]
        by_status[_SUPPORTED] += api["ready"]
    total = sum(by_status.values())
    clean = by_status.get(Status.SUPPORTED.value, 0)
    score = round(100 * clean / total) if total else 100
    return {"score": score, "clean_sites": clean, "total_sites": total,
            "explanation": "share of CUDA API, header, library and inline-asm sites that port by renaming alone"}


def _name_costs(data: dict[str, Any], rules: RuleDatabase,
                model: dict[str, Any]) -> dict[tuple[str, str, str], tuple[int, int, float]]:
    """Per distinct (library, name, status): its sites, the sites billed (one piece of work a site, tally.py),
    and its own cost (the rule's weight), billed only where one of its sites is."""
    costs = {}
    for api in data["apis"]:
        key, billed = (api["library"], api["name"], api["status"]), api["billed"]
        rule = rules.find(key[1])
        status = Status(key[2])
        cost = rules.weight(rule, status, model["per_name"]) if rule is not None else model["per_name"].get(status, 0.0)
        costs[key] = (api["sites"], billed, cost if billed else 0.0)
    return costs


def api_hours(data: dict[str, Any], rules: RuleDatabase) -> dict[tuple[str, str, str], float]:
    """Per distinct (library, name, status): the hours the estimate counts for it (its cost and its sites')."""
    model = effort_model()
    per_site = model["per_site"]
    return {key: round(per_name + billed * per_site.get(key[2], 0.0), 2)
            for key, (_, billed, per_name) in _name_costs(data, rules, model).items()}


def files_of_kind(data: dict[str, Any]) -> dict[str, set[str]]:
    """The source files each per-file cost of the model bills: those that use a CUDA name (`api`: the port
    goes through them), and those portkit parsed with errors (`parse_error`: what it writes there is checked
    by hand)."""
    return {"api": {path for api in data["apis"] for path in api["files"]},
            "parse_error": {f["path"] for f in data["files"] if f.get("parse_error_line") is not None}}


def lines_of_kind(data: dict[str, Any]) -> dict[str, dict[str, int]]:
    """The source files each per-line cost of the model bills, with their lines: `host`, the files that use a
    CUDA name and define no kernel (host code written against CUDA's runtime: device set-up, streams, memory, a
    backend), which hand ports rewrote in proportion to their size, where kernel files port mostly by renaming."""
    api = files_of_kind(data)["api"]
    kernels = {kernel["path"] for kernel in data.get("kernels", ())}
    return {"host": {f["path"]: f["lines"] for f in data["files"]
                     if f["kind"] == "source" and f["path"] in api and f["path"] not in kernels}}


def estimate(data: dict[str, Any], rules: RuleDatabase, model: dict[str, Any] | None = None) -> dict[str, Any]:
    """The effort in hours and person-days; `model` (rules/_effort.yaml's shape) by default the bundled one."""
    model = model or effort_model()
    # Each status's hours are its names' own costs (per_name, or a rule's weight) and its billed sites' (per_site).
    rows: dict[str, dict[str, float]] = collections.defaultdict(
        lambda: {"names": 0, "sites": 0, "billed": 0, "name_hours": 0.0, "site_hours": 0.0, "hours": 0.0})
    for (_, _, status), (sites, billed, per_name) in _name_costs(data, rules, model).items():
        row = rows[status]
        row["names"] += 1
        row["sites"] += sites
        row["billed"] += billed
        row["name_hours"] += per_name
        row["site_hours"] += billed * model["per_site"].get(status, 0.0)
        row["hours"] += per_name + billed * model["per_site"].get(status, 0.0)
    codes = {row["code"]: row["billed"] for row in data["codes"]}  # settled sites are no work
    inventory = []
    for code, hours in model["inventory"].items():
        if codes.get(code):
            inventory.append({"code": code, "count": codes[code], "hours": codes[code] * hours, "each": hours})
    kinds = files_of_kind(data)
    files = [{"kind": kind, "count": len(kinds[kind]), "hours": len(kinds[kind]) * hours, "each": hours}
             for kind, hours in model["per_file"].items() if kinds.get(kind)]
    line_kinds = lines_of_kind(data)
    lines = [{"kind": kind, "files": len(line_kinds[kind]), "count": sum(line_kinds[kind].values()),
              "hours": sum(line_kinds[kind].values()) * hours, "each": hours}
             for kind, hours in model["per_line"].items() if line_kinds.get(kind)]
    total = sum(r["hours"] for r in rows.values()) + sum(i["hours"] for i in inventory + files + lines)
    for item in inventory + files + lines:  # summed above unrounded; shown as 0.14, not 0.14100000000000001
        item["hours"] = round(item["hours"], 2)
    return {
        # to the hundredth, as each item: at tenths most small programs read 0.0 h, tied whatever they hold
        "hours": round(total, 2),
        "person_days": round(total / model["hours_per_day"], 1),
        "hours_per_day": model["hours_per_day"],
        "by_status": {s: {k: round(v, 2) if k.endswith("hours") else int(v) for k, v in r.items()}
                      for s, r in sorted(rows.items())},
        "inventory": inventory,
        "files": files,
        "lines": lines,
        "per_name": {status.value: hours for status, hours in model["per_name"].items()},
        "per_site": model["per_site"],
    }


def file_work(data: dict[str, Any], rules: RuleDatabase, tallies: dict[str, Tally]) -> list[dict[str, Any]]:
    """Which files carry the work: each file's share of the estimate, most first.

    A site costs its per-site hours plus an equal share of its name's cost, each kernel or
    CUDA-only branch its review hours, and the file its per-file hours, so the files' hours
    add up to the total.
    """
    model = effort_model()
    per_site, review = model["per_site"], model["inventory"]
    kinds, line_kinds = files_of_kind(data), lines_of_kind(data)
    # What one site of each (library, name, status) costs: its share of the name's cost, and its own hours.
    site_hours = {key: per_name / billed + per_site.get(key[2], 0.0) if billed else 0.0
                  for key, (_, billed, per_name) in _name_costs(data, rules, model).items()}
    hazards = {row["code"] for row in data["codes"] if in_group(row["code"], "hazard")}
    rows = []
    for path in sorted(set(tallies) | kinds["parse_error"]):
        found = tallies.get(path, Tally())
        # summed exactly (fsum): the same total whichever order the rows come in
        hours = [each for kind, each in model["per_file"].items() if path in kinds.get(kind, ())]
        hours += [line_kinds[kind][path] * each for kind, each in model["per_line"].items() if path in line_kinds.get(kind, ())]
        api_sites, attention, hazard_sites, kernels = 0, 0, 0, 0
        for row in found.rows:
            code, status, count = row.code, row.status, row.count
            if status:
                hours.append(row.billed * site_hours[(row.library, row.name, status)])
                api_sites += count
                if status != _SUPPORTED:
                    attention += count
            if code in review:
                hours.append(row.billed * review[code])
            if code in hazards:
                hazard_sites += count
            elif code == KERNEL:
                kernels += count
        total = round(math.fsum(hours), 2)
        if total or hazard_sites:
            rows.append({"path": path, "hours": total, "sites": api_sites, "attention": attention,
                         "hazards": hazard_sites, "kernels": kernels})
    return sorted(rows, key=lambda r: (-r["hours"], r["path"]))


def checklist(data: dict[str, Any], tallies: dict[str, Tally]) -> list[dict[str, Any]]:
    """The six steps of a port, with what the scan established and what remains."""
    s = data["summary"]
    libraries = [lib["title"] for lib in data["libraries"] if lib["id"] not in ("ptx",)]
    attention = {k: v for k, v in s["sites_by_status"].items() if k != Status.SUPPORTED.value and v}
    rng = any(lib["id"] == "curand" for lib in data["libraries"])
    warp = s["warp_level_sites"]
    archs = sorted({site.name for _, site in listed_sites(tallies, GPU_ARCHITECTURE)})
    return [
        {"step": "Dependency inventory",
         "determined": f"{counted(len(libraries), 'CUDA library', 'CUDA libraries')} ({', '.join(libraries) or 'none'}), "
                       f"{sum(lib['apis'] for lib in data['libraries'])} distinct APIs in {counted(s['source_files'], 'file')}; "
                       f"{s['unknown_names']} CUDA-looking names no rule knows.",
         "remaining": "Confirm the ROCm release and that each counterpart library is installed there; "
                      "classify the unknown names (add rules with --rules)."},
        {"step": "Functional port",
         "determined": f"{s['sites_by_status'][Status.SUPPORTED.value]} sites convert mechanically (portkit convert); "
                       + (", ".join(f"{v} {k}" for k, v in attention.items()) or "none") + " need manual work; "
                       f"{s['inline_asm']} inline asm blocks, {s['preprocessor_branches']} CUDA-only #if branches.",
         "remaining": "Work through the marked sites, build with hipcc for the target GPUs, keep both vendors building "
                      "(portkit shim) until the port is done."},
        {"step": "Fixed test conditions",
         "determined": ("cuRAND is used: hipRAND/rocRAND streams differ, so results are not bitwise equal across vendors. "
                        if rng else "No random-number library found. ") + f"{s['kernels']} kernels to cover.",
         "remaining": "Pin inputs, seeds and generators; run the same test data on both vendors; "
                      "agree tolerances before comparing."},
        {"step": "Numerical correctness",
         "determined": f"{warp} warp-level intrinsic uses (reduction order changes with 64-lane wavefronts).",
         "remaining": "Compare outputs against the CUDA build within the agreed tolerances, "
                      "including reductions, fast-math builds and FP8/FP16 paths."},
        {"step": "Performance",
         "determined": f"{s['kernels']} kernels and {s['launches']} launch sites; block sizes and shared memory "
                       "were chosen for 32-lane warps.",
         "remaining": "Profile on the AMD GPU (rocprof/omniperf), retune block sizes for 64-lane wavefronts "
                      "and LDS use, compare with the CUDA baseline."},
        {"step": "Operations",
         "determined": f"{s['build_files']} build files; architectures: "
                       + (", ".join(archs) if archs else "none declared") + ".",
         "remaining": "Build and test both vendors in CI, ship ROCm container images, "
                      "document the supported GPUs and ROCm versions."},
    ]


def architectures(tallies: dict[str, Tally]) -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for path, site in listed_sites(tallies, GPU_ARCHITECTURE):
        name = site.name
        entry = seen.setdefault(name, {"cuda": name, "mapping": site.message.replace("GPU architecture ", ""),
                                       "offload_arch": site.advice or None, "where": []})
        entry["where"].append(f"{path}:{site.line}")
    return [seen[k] for k in sorted(seen)]


def at_newest(data: dict[str, Any], rules: RuleDatabase) -> dict[str, Any] | None:
    """Readiness and effort at the newest ROCm, where the run targets an older one and some names it uses
    port better there (a name the target lacks, or spells the old way): None when nothing changes.

    `rocm` is the newest version one of those names needs (its rule's hip_added)."""
    if data["target"]["rocm"] is None:
        return None
    cuda = parse_version(data["target"]["cuda"]) if data["target"]["cuda"] else None
    here, newest = Target(parse_version(data["target"]["rocm"]), cuda), Target(None, cuda)
    by_status = dict(data["summary"]["sites_by_status"])
    apis, needs = [], []
    for api in data["apis"]:
        rule = rules.find(api["name"])
        status = api["status"]
        if rule is not None and api["counted"] > api["ready"] and resolve(rule, here).status.value == status:
            # the target alone decides it, and a build for AMD compiles some of its sites that are work
            status = resolve(rule, newest).status.value
            if status != api["status"]:
                by_status[api["status"]] -= api["sites"]
                by_status[status] = by_status.get(status, 0) + api["sites"]
                needs.append(parse_version(rule.hip_added) if rule.hip_added else None)
        apis.append({**api, "status": status})
    if not needs:
        return None
    later = {**data, "apis": apis, "summary": {**data["summary"], "sites_by_status": by_status}}
    versions = [v for v in needs if v is not None]
    return {"rocm": version_text(max(versions)) if versions else None, "readiness": readiness(later),
            "effort": estimate(later, rules)}


def plan(data: dict[str, Any], rules: RuleDatabase, tallies: dict[str, Tally]) -> dict[str, Any]:
    return {"readiness": readiness(data), "effort": estimate(data, rules), "newest": at_newest(data, rules),
            "files": file_work(data, rules, tallies), "checklist": checklist(data, tallies),
            "architectures": architectures(tallies)}
