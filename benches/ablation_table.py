"""The table of benches/ablation.sh: one row per variant and width, gathered
from every sweep of runs/ablation/<NAME>-<kind>/solve/ablation*/summary.csv
(so a sweep run in pieces, e.g. one width under --label ablation-w9, joins
the table), with the training samples and seconds from meta.json.

    python3 benches/ablation_table.py NAME KIND... > benches/results/ablation-NAME-<date>.csv
"""
import csv
import glob
import json
import sys

name, kinds = sys.argv[1], sys.argv[2:]
print("base,variant,width,solved_pct,mean_length,optimal_pct,mean_forwards,mean_elapsed_s,train_samples,train_s")
for kind in kinds:
    run = f"runs/ablation/{name}-{kind}"
    meta = json.load(open(f"{run}/meta.json"))
    rows = [r for f in sorted(glob.glob(f"{run}/solve/ablation*/summary.csv")) for r in csv.DictReader(open(f))]
    for r in sorted(rows, key=lambda r: int(r["width"])):
        print(",".join([name, kind, r["width"], r["solved_pct"], r["mean_length"], r["optimal_pct"],
                        r["mean_forwards"], r["mean_elapsed_s"], str(meta["samples_done"]), f'{meta["elapsed_s"]:.1f}']))
