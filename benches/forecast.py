"""A stated forecast from a study's points: the length law at one width,
length(C) = E + A * C^(-alpha), fitted to the points' mean lengths against
training FLOPs with the floor E fixed at the test set's mean optimal
length (no search can go below it), then evaluated at the budgets asked.

    python3 benches/forecast.py --points runs/study-cube3-wide-rank-law/points.csv \
        --width 1024 --floor-from data/cube3-deepcubea-test-1000.tsv --floor-column optimal_qtm \
        --at 1e15,2.7e16,4.6e16 --target 23.30 [--map-width 21.26,23.29,0.2419]

`study --fit` fits the same law with E free (bounded below by 0), which on
a decade of compute lets the curve fall through the optimum; fixing E at
the floor is the conservative reading. With A and alpha linear in
log(length - E) against log C, the fit is least squares on the logs.
`--target` prints the FLOPs at which the law reaches that length.
`--map-width L_ref,L10_ref,slope` also prints a wider width's length by
the line L = L_ref + slope * (L10 - L10_ref) (for 2^18: through reference
v2's and EfficientCube's paired 2^10 and 2^18 means on the 1000 cubes,
26.06 -> 21.93 and 23.29 -> 21.26, slope 0.67/2.77). Pure Python.
"""
import argparse
import csv
import math
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", required=True)
    ap.add_argument("--width", type=int, required=True)
    ap.add_argument("--floor-from", required=True)
    ap.add_argument("--floor-column", required=True)
    ap.add_argument("--at", required=True)
    ap.add_argument("--target", type=float)
    ap.add_argument("--map-width")
    a = ap.parse_args()
    with open(a.floor_from, newline="") as f:
        opt = [float(r[a.floor_column]) for r in csv.DictReader(f, delimiter="\t")]
    floor = sum(opt) / len(opt)
    with open(a.points, newline="") as f:
        rows = [r for r in csv.DictReader(f) if int(r["width"]) == a.width]
    pts = [(float(r["flops"]), float(r["mean_length"]), r["point"], float(r["solved_pct"])) for r in rows]
    if len({c for c, *_ in pts}) < 2:
        sys.exit(f"{a.points}: fewer than two budgets at width {a.width}")
    if any(y <= floor for _, y, *_ in pts):
        sys.exit(f"a mean length at or below the floor {floor:.3f}: the law cannot be fitted")
    xs = [math.log(c) for c, *_ in pts]
    ys = [math.log(y - floor) for _, y, *_ in pts]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    big_a, alpha = math.exp(my - slope * mx), -slope
    law = lambda c: floor + big_a * c ** (-alpha)  # noqa: E731
    print(f"points at width {a.width}:")
    for c, y, name, solved in sorted(pts):
        print(f"  {name}\tC {c:.3g}\tsolved {solved:.1f}%\tmean {y:.2f}\tlaw {law(c):.2f}")
    print(f"law: length = {floor:.3f} + {big_a:.4g} * C^-{alpha:.4f}  (E fixed at the mean optimal length)")
    m = [float(v) for v in a.map_width.split(",")] if a.map_width else None
    for c in (float(v) for v in a.at.split(",")):
        line = f"at C = {c:.3g}: {law(c):.2f}"
        if m:
            line += f"; wider width by the line: {m[0] + m[2] * (law(c) - m[1]):.2f}"
        print(line)
    if a.target is not None:
        if a.target <= floor:
            print(f"target {a.target}: at or below the floor, never reached")
        else:
            print(f"target {a.target}: C = {(big_a / (a.target - floor)) ** (1 / alpha):.3g} FLOPs")


if __name__ == "__main__":
    main()
