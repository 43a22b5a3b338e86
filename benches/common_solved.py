"""Two searches compared on the instances both solve: mean solution length
is taken over solved instances only, so a search that solves more includes
harder ones. Reads the instances.csv files of `solve` sweeps.

    python3 benches/common_solved.py RUN_A@WIDTH RUN_B@WIDTH
    python3 benches/common_solved.py runs/ablation/cube3-l-5M-policy@2048 runs/ablation/cube3-l-5M-value@512

Every instances.csv under RUN/solve/ is read, or only RUN/instances.csv
when RUN is one solve folder (runs/x/solve/LABEL: use that form when a run
holds evaluations of different checkpoints); prints the instances solved by
both, their mean length under each search and the optimal mean, the paired
difference (second minus first) with its 95% interval (1.96 standard
errors of the per-instance differences), how many instances each search
solved shorter, and the counts solved by only one.
"""
import csv
import glob
import math
import sys


def solved(spec):
    run, width = spec.rsplit("@", 1)
    out = {}
    files = [f"{run}/instances.csv"] if "/solve/" in run else glob.glob(f"{run}/solve/*/instances.csv")
    for f in files:
        for r in csv.DictReader(open(f)):
            if r["width"] == width and r["solved"] == "true":
                out[r["id"]] = (int(r["length"]), int(r["optimal"]))
    if not out:
        sys.exit(f"{spec}: no solved instance at width {width} under {run}/solve/")
    return out


if len(sys.argv) != 3 or any("@" not in s for s in sys.argv[1:]):
    sys.exit("usage: common_solved.py RUN_A@WIDTH RUN_B@WIDTH")
a, b = (solved(s) for s in sys.argv[1:3])
both = sorted(set(a) & set(b))
if not both:
    sys.exit("no instance solved by both")
mean = lambda d, k: sum(d[i][k] for i in both) / len(both)
print(f"solved by both: {len(both)}; mean length {mean(a, 0):.2f} / {mean(b, 0):.2f}; optimal {mean(a, 1):.2f}; "
      f"only the first: {len(set(a) - set(b))}, only the second: {len(set(b) - set(a))}")
d = [b[i][0] - a[i][0] for i in both]
m = sum(d) / len(d)
half = 1.96 * math.sqrt(sum((x - m) ** 2 for x in d) / (len(d) - 1) / len(d)) if len(d) > 1 else float("nan")
print(f"paired difference (second - first): {m:+.3f} +- {half:.3f} QTM; shorter under the first: "
      f"{sum(x > 0 for x in d)}, under the second: {sum(x < 0 for x in d)}, equal: {sum(x == 0 for x in d)}")
