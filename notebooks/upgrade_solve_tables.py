"""Rewrites oracle `solve` tables written before the shared result schema
(columns `length_qtm, optimal_qtm, nodes, children, …`) in the current
schema (`docs/solving.md`), in place; the old files are kept as `*.v1.csv`.

    python3 notebooks/upgrade_solve_tables.py runs/<run>/solve/<label> …

Mapping: length = length_qtm, optimal = optimal_qtm, generated = children,
beam_nodes = nodes, status = solved|exhausted. The old tables did not record
`expanded`; it is 1 + nodes - width, which holds when the last beam of a
search was full (every DeepCubeA cube: the beam fills by depth 4 and the
searches are 16 or more deep). Summaries are recomputed from the rows as
`solve` computes them (linear-interpolation quantiles, NaN where empty).
"""

import math
import sys
from pathlib import Path

import numpy as np
import polars as pl

EFFICIENTCUBE = {7: (25.18, 5.7), 8: (24.40, 7.3), 9: (23.79, 10.7), 10: (23.30, 14.9), 11: (22.91, 18.8),
                 12: (22.56, 25.8), 13: (22.22, 33.3), 14: (21.97, 40.5), 15: (21.75, 48.1), 16: (21.55, 56.3),
                 17: (21.41, 62.7), 18: (21.26, 69.6)}


def ebf(nodes, depth):
    if depth is None or depth == 0:
        return None
    target = nodes + 1.0
    lo, hi = 0.0, max(nodes, 1) + 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if sum(mid ** i for i in range(depth + 1)) < target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def nan_mean(v):
    return float(np.mean(v)) if len(v) else math.nan


def upgrade(folder: Path, run: str):
    old = pl.read_csv(folder / "instances.csv", infer_schema_length=None)
    if "puzzle" in old.columns:
        print(f"{folder}: already in the current schema")
        return
    assert (old["nodes"] >= old["width"]).all(), "a search whose beam never filled: expanded is unknown"
    length = old["length_qtm"].cast(pl.Int64)
    new = pl.DataFrame({
        "puzzle": ["cube3-qtm"] * old.height,
        "method": ["beam"] * old.height,
        "heuristic": [f"oracle:{run}"] * old.height,
        "width": old["width"],
        "id": old["id"].cast(pl.String),
        "status": ["solved" if s else "exhausted" for s in old["solved"]],
        "solved": old["solved"],
        "solution": old["solution"],
        "length": length,
        "optimal": old["optimal_qtm"].cast(pl.Int64),
        "generated": old["children"],
        "expanded": 1 + old["nodes"] - old["width"],
        "elapsed_ms": old["elapsed_ms"],
        "ebf": [ebf(g, l) for g, l in zip(old["children"], length)],
        "length_htm": old["length_htm"].cast(pl.Int64),
        "beam_nodes": old["nodes"],
        "mean_beam_entropy": old["mean_beam_entropy"],
        "start_kl_uniform": old["start_kl_uniform"],
    })
    old_summary = pl.read_csv(folder / "summary.csv")
    rows = []
    for w, wall in zip(old_summary["width"].cast(pl.Int64), old_summary["wall_s_per_cube"]):
        r = new.filter(pl.col("width") == w)
        solved = r.filter(pl.col("solved"))
        lens = solved["length"].to_numpy().astype(float)
        opt = solved.filter(pl.col("optimal").is_not_null())
        times = (r["elapsed_ms"] / 1e3).to_numpy()
        total = float(times.sum())
        ent = solved["mean_beam_entropy"].to_numpy()
        pear = float(np.corrcoef(lens, ent)[0, 1]) if len(lens) > 1 and lens.std() > 0 and ent.std() > 0 else math.nan
        ebfs = [e for e in solved["ebf"].to_list() if e is not None]
        rows.append({
            "puzzle": "cube3-qtm", "method": "beam", "heuristic": f"oracle:{run}", "width": w,
            "instances": r.height,
            "solved_pct": 100.0 * solved.height / max(r.height, 1),
            "limit_pct": 0.0,
            "mean_length": nan_mean(lens),
            "median_length": float(np.quantile(lens, 0.5)) if len(lens) else math.nan,
            "optimal_pct": 100.0 * (opt["length"] == opt["optimal"]).sum() / opt.height if opt.height else math.nan,
            "mean_excess": nan_mean((opt["length"] - opt["optimal"]).to_numpy().astype(float)),
            "mean_generated": float(r["generated"].sum()) / max(r.height, 1),
            "mean_expanded": float(r["expanded"].sum()) / max(r.height, 1),
            "total_generated": int(r["generated"].sum()),
            "mean_elapsed_s": total / max(r.height, 1),
            "p95_elapsed_s": float(np.quantile(times, 0.95)),
            "total_elapsed_s": total,
            "generated_per_s": float(r["generated"].sum()) / max(total, 1e-9),
            "expanded_per_s": float(r["expanded"].sum()) / max(total, 1e-9),
            "mean_ebf": nan_mean(ebfs),
            "beam_log2": math.log2(w),
            "mean_beam_nodes": float(r["beam_nodes"].sum()) / max(r.height, 1),
            "entropy_length_pearson": pear,
            "wall_s_per_instance": wall,
        })
    summary = pl.DataFrame(rows)
    scaling = summary.with_columns(
        pl.col("beam_log2").map_elements(lambda k: EFFICIENTCUBE.get(int(k), (None, None))[0], return_dtype=pl.Float64)
        .alias("efficientcube_mean_length"),
        pl.col("beam_log2").map_elements(lambda k: EFFICIENTCUBE.get(int(k), (None, None))[1], return_dtype=pl.Float64)
        .alias("efficientcube_optimal_pct"),
    )
    for name, table in [("instances", new), ("summary", summary), ("scaling", scaling)]:
        path = folder / f"{name}.csv"
        if path.exists():
            path.rename(folder / f"{name}.v1.csv")
        table.write_csv(path)
    print(f"{folder}: upgraded ({new.height} rows, {summary.height} widths)")


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        folder = Path(arg)
        upgrade(folder, folder.parent.parent.name)
