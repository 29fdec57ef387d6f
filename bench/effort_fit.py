"""bench/effort.py's statistics: the split, Spearman, the fit of rules/_effort.yaml, the report.

Hours are always portkit's own (portkit.report.plan.estimate over the scan's `apis` and
`codes`), so the report measures the model the bundled rules/_effort.yaml holds. The fit
uses that the estimate is linear in the model's weights: it reads each weight's feature
from the estimate with that weight alone set to 1, then searches the weights (each on a
log grid, one at a time, until no step helps; from all weights 0, so that a weight is
billed only where it raises the rank correlation) for the best Spearman on the fit
part, and scales them so that the fit part's hours add up to its residual hours.
"""
from __future__ import annotations

import math
import statistics
from typing import Any

from portkit.codes import Status, in_group
from portkit.report.plan import effort_model, estimate
from portkit.rules import load_database

GRID = (0.0, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0)
MIN_PROGRAMS = 5  # an inventory code in fewer programs of the fit part gets no weight of its own


def split(rows: list[dict]) -> tuple[list[dict], list[dict]]:
    """The fit part (each corpus's programs at even positions in name order) and the held-out rest."""
    fit, held = [], []
    for corpus in sorted({r["corpus"] for r in rows}):
        ordered = sorted((r for r in rows if r["corpus"] == corpus), key=lambda r: r["program"])
        fit += ordered[::2]
        held += ordered[1::2]
    return fit, held


def ranks(values: list[float]) -> list[float]:
    order = sorted(range(len(values)), key=values.__getitem__)
    result = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            result[order[k]] = (i + j) / 2 + 1  # ties share their mean rank
        i = j + 1
    return result


def spearman(x: list[float], y: list[float]) -> float:
    rx, ry = ranks(x), ranks(y)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    num = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    den = math.sqrt(sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry))
    return num / den if den else 0.0


def _zero(model: dict[str, Any]) -> dict[str, Any]:
    return {**model, "per_name": {s: 0.0 for s in Status}, "per_site": {s.value: 0.0 for s in Status},
            "inventory": {code: 0.0 for code in model["inventory"]}, "per_file": {k: 0.0 for k in model["per_file"]},
            "per_line": {k: 0.0 for k in model["per_line"]}}


def parameters(rows: list[dict], model: dict[str, Any]) -> list[tuple[str, Any]]:
    """The weights the fit sets: per name and per site by status, and the inventory and hazard codes seen
    often enough. Not the build-file codes (PK4xx): the residual counts source lines only, so what a
    build file holds could predict it only through the corpus it comes from; they keep their set hours."""
    seen: dict[str, int] = {}
    for row in rows:
        for code in {c["code"] for c in row["codes"]}:
            seen[code] = seen.get(code, 0) + 1
    codes = sorted(code for code, n in seen.items()
                   if n >= MIN_PROGRAMS and not code.startswith("PK1") and not in_group(code, "environment"))
    return ([("per_name", s) for s in Status] + [("per_site", s.value) for s in Status]
            + [("inventory", code) for code in codes] + [("per_file", kind) for kind in model["per_file"]]
            + [("per_line", kind) for kind in model["per_line"]])


def _with(model: dict[str, Any], weights: dict[tuple[str, Any], float]) -> dict[str, Any]:
    out = _zero(model)
    out["per_name"], out["per_site"], out["inventory"] = dict(out["per_name"]), dict(out["per_site"]), {}
    out["per_file"], out["per_line"] = dict(out["per_file"]), dict(out["per_line"])
    for (part, key), value in weights.items():
        out[part][key] = value
    return out


def features(rows: list[dict], params: list[tuple[str, Any]], model: dict[str, Any]) -> list[list[float]]:
    """Per row: the hours each weight alone brings (the estimate is linear in them), then the fixed rest."""
    rules = load_database()
    table = []
    for row in rows:
        fixed = estimate(row, rules, _with(model, {}))["hours"]
        table.append([estimate(row, rules, _with(model, {p: 1.0}))["hours"] - fixed for p in params] + [fixed])
    return table


def grid(param: tuple[str, Any]) -> tuple[float, ...]:
    """The values a weight is searched on: a per-line weight in hours per thousand lines, on the same grid."""
    return tuple(value / 1000 for value in GRID) if param[0] == "per_line" else GRID


def _hours(table: list[list[float]], weights: list[float]) -> list[float]:
    return [sum(w * f for w, f in zip(weights, line)) + line[-1] for line in table]


def fit(rows: list[dict]) -> dict[tuple[str, Any], float]:
    """The weights for the fit part; a weight nothing in it bills (no removed names) keeps its value."""
    model = effort_model()
    params = parameters(rows, model)
    table = features(rows, params, model)
    unused = {p: model[p[0]].get(p[1], 0.0) for i, p in enumerate(params) if not any(line[i] for line in table)}
    params = [p for p in params if p not in unused]
    table = features(rows, params, model)
    residual = [r["residual"] for r in rows]
    print(f"fit part: Spearman(effort) {measured(rows)['effort']:.2f} under the bundled weights", end="")
    weights = [0.0] * len(params)  # from nothing billed: each weight earns its place
    best = spearman(_hours(table, weights), residual)
    improved = True
    while improved:
        improved = False
        for i in range(len(params)):
            for value in grid(params[i]):
                trial = weights[:i] + [value] + weights[i + 1:]
                score = spearman(_hours(table, trial), residual)
                if score > best + 1e-9:
                    best, weights, improved = score, trial, True
    print(f", {best:.2f} after the fit")
    hours = _hours(table, weights)
    target = sum(residual) * model["hours_per_changed_line"]
    scale = target / sum(hours) if sum(hours) else 1.0
    # hours per line are small: kept to six decimals, the rest to three
    return {**{p: round(w * scale, 6 if p[0] == "per_line" else 3) for p, w in zip(params, weights)}, **unused}


def print_fit(weights: dict[tuple[str, Any], float]) -> None:
    print("fitted weights (rules/_effort.yaml):")
    for part in ("per_name", "per_site", "inventory", "per_file", "per_line"):
        print(f"{part}:")
        for (where, key), value in weights.items():
            if where == part:
                print(f"  {key}: {value}")


def measured(rows: list[dict]) -> dict[str, Any]:
    rules, model = load_database(), effort_model()
    hours = [estimate(r, rules)["hours"] for r in rows]
    residual = [r["residual"] for r in rows]
    errors = [abs(h - r * model["hours_per_changed_line"]) for h, r in zip(hours, residual)]
    return {"programs": len(rows), "corpora": sorted({r["corpus"] for r in rows}),
            "effort": spearman(hours, residual), "loc": spearman([r["loc"] for r in rows], residual),
            "median_error": statistics.median(errors) if errors else 0.0,
            "median_hours": statistics.median(hours) if hours else 0.0,
            "median_residual_hours": statistics.median(residual) * model["hours_per_changed_line"] if rows else 0.0}


def print_report(fit_rows: list[dict], held: list[dict], command: str) -> None:
    print(f"{command}: residual = lines changed beyond portkit convert; hours at "
          f"{effort_model()['hours_per_changed_line']} h per changed line")
    print(f"{'part':<9} {'programs':>8}  {'Spearman(effort)':>16}  {'Spearman(LOC)':>13}  "
          f"{'median |error| h':>16}  {'median h':>8}  {'median residual h':>17}  corpora")
    for name, rows in (("fit", fit_rows), ("held-out", held)):
        m = measured(rows)
        print(f"{name:<9} {m['programs']:>8}  {m['effort']:>16.2f}  {m['loc']:>13.2f}  {m['median_error']:>16.1f}  "
              f"{m['median_hours']:>8.1f}  {m['median_residual_hours']:>17.1f}  {', '.join(m['corpora'])}")
    for corpus in sorted({r["corpus"] for r in held}):
        rows = [r for r in held if r["corpus"] == corpus]
        if len(rows) >= 5:
            m = measured(rows)
            print(f"  held-out {corpus}: {m['programs']} programs, Spearman(effort) {m['effort']:.2f}, "
                  f"Spearman(LOC) {m['loc']:.2f}")
