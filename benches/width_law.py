"""The width law of one oracle on a fixed set of instances: solution length
against beam width from `solve` sweeps (and sweeps run in pieces), merged,
with the fit length(W) = L_inf + a * W^(-b) and bootstrap 95% intervals.

    python3 benches/width_law.py [--ids A..B] [--fit-from K] [--csv OUT] [--plot STEM [--also NAME=CSV]...] SOLVE_FOLDER...
    python3 benches/width_law.py --ids 0..99 --fit-from 10 --csv runs/cube3-q-long/solve/width-law-deepcubea-100.csv \
        runs/cube3-q-long/solve/deepcubea-w7..10 runs/cube3-q-long/solve/deepcubea-w11..12 \
        runs/cube3-q-long/solve/deepcubea-w13..18

Each SOLVE_FOLDER is a `solve` output folder, or a folder of pieces merged
by benches/merge_pieces.py (reference v2's 2^13..2^18 above); its
instances.csv holds one row per (width, instance), every solution replayed
by `solve`. Rows outside `--ids` (instance ids, inclusive) are ignored, so
a 1000-cube sweep supplies the first 100 cubes' rows; a width whose rows
do not cover every id of the set is reported as partial and left out of
the fit. An instance row in two folders is an error.

Per width: instances, solved %, mean length over solved instances with its
95% interval (1.96 standard errors), % optimal, mean beam entropy and its
Pearson correlation with the solution length (the lecture's entropy
analysis). The fit uses the widths from 2^K on (`--fit-from`, default 10)
where every instance is solved, by least squares over the per-width means:
for each b on a grid (refined around the best), L_inf and a are linear.
The intervals resample instances (1000 bootstrap sets, seed 1).
Pure Python: no NumPy needed, except for `--plot`.

`--plot STEM` also draws STEM.png and STEM.svg (needs matplotlib, e.g. the
notebooks' environment: target/nbenv/bin/python): mean length against
width on log2 axes with integer ticks, the measured means with their
intervals and markers (hollow where a width is partial), the fitted law
with its parameters, EfficientCube's published means (all 1000 DeepCubeA
cubes, Takano 2023) and the set's optimal mean as a line; a second panel
gives the mean beam entropy per width with its correlation with the
solution length. `--also NAME=CSV` adds another oracle's merged width-law
CSV (written by `--csv`) to the first panel, for comparing kinds.
"""
import csv
import math
import random
import sys


# EfficientCube's published means on DeepCubeA's 1000 cubes (QTM), by log2
# width (Takano, TMLR 2023; the table of src/solve/published.rs).
EFFICIENTCUBE = {7: 25.18, 8: 24.40, 9: 23.79, 10: 23.30, 11: 22.91, 12: 22.56,
                 13: 22.22, 14: 21.97, 15: 21.75, 16: 21.55, 17: 21.41, 18: 21.26}


def parse_args(argv):
    ids, fit_from, out, plot, also, folders = None, 10, None, None, [], []
    it = iter(argv)
    for a in it:
        if a == "--ids":
            lo, hi = next(it).split("..")
            ids = set(range(int(lo), int(hi) + 1))
        elif a == "--fit-from":
            fit_from = int(next(it))
        elif a == "--csv":
            out = next(it)
        elif a == "--plot":
            plot = next(it)
        elif a == "--also":
            name, _, path = next(it).partition("=")
            if not path:
                sys.exit("--also takes NAME=CSV (a width-law CSV written by --csv)")
            also.append((name, path))
        elif a.startswith("--"):
            sys.exit(f"unknown option {a}")
        else:
            folders.append(a)
    if not folders:
        sys.exit(__doc__)
    return ids, fit_from, out, plot, also, folders


def load(folders, ids):
    rows = {}
    for folder in folders:
        try:
            reader = csv.DictReader(open(f"{folder}/instances.csv"))
        except OSError as e:
            sys.exit(f"cannot read {folder}/instances.csv: {e}")
        for r in reader:
            i, w = int(r["id"]), int(r["width"])
            if ids is not None and i not in ids:
                continue
            if (w, i) in rows:
                sys.exit(f"width {w}, instance {i} is in two folders (the second: {folder})")
            rows[(w, i)] = r
    return rows


def pearson(x, y):
    n = len(x)
    if n < 3:
        return float("nan")
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")


def fit(ws, ls):
    """Least-squares L_inf + a W^-b over (ws, ls); returns (L_inf, a, b, rmse)."""

    def solve_linear(b):
        xs = [w ** -b for w in ws]
        n, sx, sy = len(xs), sum(xs), sum(ls)
        sxx = sum(x * x for x in xs)
        sxy = sum(x * y for x, y in zip(xs, ls))
        det = n * sxx - sx * sx
        if det <= 0:
            return None
        a = (n * sxy - sx * sy) / det
        l_inf = (sy - a * sx) / n
        sse = sum((l_inf + a * x - y) ** 2 for x, y in zip(xs, ls))
        return sse, l_inf, a

    best = None
    grid = [k / 200 for k in range(1, 401)]
    for _ in range(3):
        for b in grid:
            r = solve_linear(b)
            if r and (best is None or r[0] < best[0]):
                best = (r[0], r[1], r[2], b)
        step = grid[1] - grid[0]
        grid = [best[3] + step * (k / 50 - 1) for k in range(101) if best[3] + step * (k / 50 - 1) > 0]
    sse, l_inf, a, b = best
    return l_inf, a, b, math.sqrt(sse / len(ws))


def main():
    ids, fit_from, out, plot, also, folders = parse_args(sys.argv[1:])
    rows = load(folders, ids)
    widths = sorted({w for w, _ in rows})
    want = ids if ids is not None else {i for _, i in rows}
    table = []
    for w in widths:
        rs = [rows[(w, i)] for i in sorted(want) if (w, i) in rows]
        solved = [r for r in rs if r["solved"] == "true"]
        lengths = [float(r["length"]) for r in solved]
        n = len(lengths)
        mean = sum(lengths) / n if n else float("nan")
        sd = math.sqrt(sum((x - mean) ** 2 for x in lengths) / (n - 1)) if n > 1 else float("nan")
        optimal = [r for r in solved if r["optimal"] and float(r["length"]) == float(r["optimal"])]
        ent = [float(r["mean_beam_entropy"]) for r in solved]
        table.append(
            {
                "width": w,
                "beam_log2": round(math.log2(w), 3),
                "instances": len(rs),
                "complete": len(rs) == len(want),
                "solved_pct": 100.0 * len(solved) / max(len(rs), 1),
                "mean_length": mean,
                "ci95": 1.96 * sd / math.sqrt(n) if n > 1 else float("nan"),
                "optimal_pct": 100.0 * len(optimal) / max(len(rs), 1),
                "mean_beam_entropy": sum(ent) / len(ent) if ent else float("nan"),
                "entropy_length_pearson": pearson(ent, lengths),
            }
        )
    fit_ws = [t["width"] for t in table if t["complete"] and t["solved_pct"] == 100.0 and t["width"] >= 2**fit_from]
    print(f"instances: {len(want)}; widths: {', '.join(str(t['width']) for t in table)}\n")
    print("| width | instances | solved | mean length (95% CI) | optimal | beam entropy | entropy-length r |")
    print("|---|---|---|---|---|---|---|")
    for t in table:
        part = "" if t["complete"] else " (partial)"
        print(
            f"| 2^{int(t['beam_log2'])} | {t['instances']}{part} | {t['solved_pct']:.0f}% | "
            f"{t['mean_length']:.2f} ± {t['ci95']:.2f} | {t['optimal_pct']:.0f}% | "
            f"{t['mean_beam_entropy']:.3f} | {t['entropy_length_pearson']:.2f} |"
        )
    result = None
    if len(fit_ws) >= 4:
        ls = [next(t["mean_length"] for t in table if t["width"] == w) for w in fit_ws]
        l_inf, a, b, rmse = fit(fit_ws, ls)
        rng = random.Random(1)
        ids_list = sorted(want)
        boot = []
        for _ in range(1000):
            sample = [rng.choice(ids_list) for _ in ids_list]
            means = [sum(float(rows[(w, i)]["length"]) for i in sample) / len(sample) for w in fit_ws]
            boot.append(fit(fit_ws, means)[:3])

        def ci(k):
            v = sorted(x[k] for x in boot)
            return v[25], v[974]

        (l0, l1), (a0, a1), (b0, b1) = ci(0), ci(1), ci(2)
        print(
            f"\nfit over 2^{int(math.log2(fit_ws[0]))}..2^{int(math.log2(fit_ws[-1]))}: "
            f"length(W) = {l_inf:.2f} + {a:.1f} W^-{b:.3f}  (rmse {rmse:.3f})"
        )
        print(f"95% intervals (1000 bootstrap sets of instances): L_inf [{l0:.2f}, {l1:.2f}], a [{a0:.1f}, {a1:.1f}], b [{b0:.3f}, {b1:.3f}]")
        result = (l_inf, a, b, rmse, l0, l1, a0, a1, b0, b1)
    else:
        print(f"\nno fit: {len(fit_ws)} complete, fully solved widths from 2^{fit_from} (4 needed)")
    if out:
        cols = list(table[0].keys()) + ["fitted_length"]
        with open(out, "w", newline="") as f:
            wr = csv.writer(f)
            wr.writerow(cols)
            for t in table:
                fitted = result[0] + result[1] * t["width"] ** -result[2] if result else float("nan")
                wr.writerow([t[c] for c in cols[:-1]] + [fitted])
        print(f"\nwritten: {out}")
    if plot:
        oracle = next(iter(rows.values())).get("heuristic", "").removeprefix("oracle:") or "oracle"
        optima = [float(r["optimal"]) for (w, i), r in rows.items() if w == widths[0] and r.get("optimal")]
        optimal_mean = sum(optima) / len(optima) if len(optima) == len(want) else None
        draw(plot, oracle, len(want), table, result, fit_ws, optimal_mean, also)


def draw(stem, oracle, n, table, result, fit_ws, optimal_mean, also):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("--plot needs matplotlib (target/nbenv/bin/python has it: see notebooks/requirements.txt)")
    # One colour per curve, the same in every figure this script draws.
    colours = {"oracle": "#1f77b4", "efficientcube": "#ff7f0e", "optimal": "#2ca02c", "fit": "#1f77b4"}
    others = ["#d62728", "#9467bd", "#8c564b", "#e377c2"]
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(12, 4.8), gridspec_kw={"width_ratios": [3, 2]})
    done = [t for t in table if t["complete"]]
    part = [t for t in table if not t["complete"]]
    ax.errorbar([t["beam_log2"] for t in done], [t["mean_length"] for t in done],
                yerr=[t["ci95"] for t in done], fmt="o-", color=colours["oracle"], capsize=3,
                label=f"{oracle} ({n} DeepCubeA cubes)")
    if part:
        ax.plot([t["beam_log2"] for t in part], [t["mean_length"] for t in part], "o", mfc="white",
                color=colours["oracle"], label=f"{oracle}, partial widths (some cubes only)")
    if result:
        l_inf, a, b = result[:3]
        lo, hi = math.log2(fit_ws[0]), max(t["beam_log2"] for t in table)
        ks = [lo + (hi - lo) * i / 60 for i in range(61)]
        ax.plot(ks, [l_inf + a * 2 ** (-b * k) for k in ks], "--", color=colours["fit"],
                label=f"fit 2^{int(lo)}..: {l_inf:.2f} + {a:.1f}·W^-{b:.3f} (L∞ [{result[4]:.2f}, {result[5]:.2f}])")
    ks = sorted(EFFICIENTCUBE)
    ax.plot(ks, [EFFICIENTCUBE[k] for k in ks], "s-", color=colours["efficientcube"], ms=4,
            label="EfficientCube, published (all 1000 cubes)")
    for (name, path), colour in zip(also, others):
        other = [r for r in csv.DictReader(open(path)) if r["complete"] == "True"]
        ax.plot([float(r.get("beam_log2", r.get("log2_width"))) for r in other], [float(r["mean_length"]) for r in other], "^-",
                color=colour, label=name)
    if optimal_mean is not None:
        ax.axhline(optimal_mean, color=colours["optimal"], ls=":", label=f"optimal mean of these cubes ({optimal_mean:.2f})")
    span = sorted({int(t["beam_log2"]) for t in table} | set(ks))
    for axis in (ax, ax2):
        axis.set_xticks(span)
        axis.set_xticklabels([f"$2^{{{k}}}$" for k in span])
        axis.set_xlabel("beam width")
        axis.grid(alpha=0.3)
    ax.set_ylabel("mean solution length (QTM)")
    ax.set_title("Solution length against beam width")
    ax.legend(fontsize=8)
    ax2.plot([t["beam_log2"] for t in table], [t["mean_beam_entropy"] for t in table], "o-", color=colours["oracle"],
             label=oracle)
    for t in table:
        ax2.annotate(f"r={t['entropy_length_pearson']:.2f}", (t["beam_log2"], t["mean_beam_entropy"]),
                     textcoords="offset points", xytext=(4, -12), fontsize=7)
    ax2.set_ylabel("mean beam entropy (nats)")
    ax2.set_title("Beam entropy; r = its correlation with length")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(f"{stem}.{ext}", dpi=120)
    print(f"drawn: {stem}.png, {stem}.svg")


main()
