"""The width table of several beam sweeps side by side, as Markdown: one row
per width, one column per sweep (solved %, mean length over solved
instances, % optimal), and EfficientCube's published mean length and %
optimal from the sweeps' scaling.csv. A width a sweep did not run is "-".

    python3 benches/width_table.py NAME=SOLVE_FOLDER[,SOLVE_FOLDER...]...
    python3 benches/width_table.py v2=runs/cube3-q-long/solve/deepcubea-w7..10,runs/cube3-q-long/solve/deepcubea-w11..12 \
        v1=runs/reference-cube3/solve/deepcubea-w7..12

Each SOLVE_FOLDER is one `solve` output folder (runs/<run>/solve/<label>);
its scaling.csv has one row per width. A sweep run in pieces (one folder
per piece) is joined with commas; a width in two of its pieces is an error.
"""
import csv
import sys

if len(sys.argv) < 2 or any("=" not in a for a in sys.argv[1:]):
    sys.exit("usage: width_table.py NAME=SOLVE_FOLDER...")
sweeps = []
for arg in sys.argv[1:]:
    name, folders = arg.split("=", 1)
    by_width = {}
    for folder in folders.split(","):
        try:
            rows = list(csv.DictReader(open(f"{folder}/scaling.csv")))
        except OSError as e:
            sys.exit(f"{name}: cannot read {folder}/scaling.csv: {e}")
        for r in rows:
            if int(r["width"]) in by_width:
                sys.exit(f"{name}: width {r['width']} is in two of its folders")
            by_width[int(r["width"])] = r
    sweeps.append((name, by_width))

widths = sorted({w for _, rows in sweeps for w in rows})
published = {}
for _, rows in sweeps:
    for w, r in rows.items():
        if r.get("efficientcube_mean_length"):
            published[w] = (r["efficientcube_mean_length"], r["efficientcube_optimal_pct"])

head = ["width"] + [f"{n}: solved, mean, optimal" for n, _ in sweeps] + ["EfficientCube: mean, optimal"]
print("| " + " | ".join(head) + " |")
print("|" + "---|" * len(head))
for w in widths:
    cells = [f"2^{w.bit_length() - 1}"]
    for _, rows in sweeps:
        r = rows.get(w)
        cells.append("-" if r is None else
                     f'{float(r["solved_pct"]):.1f}%, {float(r["mean_length"]):.2f}, {float(r["optimal_pct"]):.1f}%')
    p = published.get(w)
    cells.append("-" if p is None else f"{float(p[0]):.2f}, {float(p[1]):.1f}%")
    print("| " + " | ".join(cells) + " |")
