"""The width table of several beam sweeps side by side, as Markdown: one row
per width, one column per sweep (solved %, mean length over solved
instances, % optimal), and EfficientCube's published mean length and %
optimal from the sweeps' scaling.csv. A width a sweep did not run is "-".

    python3 benches/width_table.py [--set SET] NAME=SOLVE_FOLDER[,SOLVE_FOLDER...]...
    python3 benches/width_table.py v2=runs/cube3-q-long/solve/deepcubea-w7..10,runs/cube3-q-long/solve/deepcubea-w11..12 \
        v1=runs/reference-cube3/solve/deepcubea-w7..12
    python3 benches/width_table.py --set deepcubea \
        v2=runs/cube3-q-long/solve/deepcubea-w7..10,runs/cube3-q-long/solve/deepcubea-w11..12,runs/cube3-q-long/solve/deepcubea-w13..18

Each SOLVE_FOLDER is one `solve` output folder (runs/<run>/solve/<label>)
or a folder of pieces merged by benches/merge_pieces.py; its scaling.csv
has one row per width. A sweep in several folders is joined with commas;
a width in two of its folders is an error. A merged folder's scaling.csv
has one row per cube set and width (its `set` column): `--set SET` picks
the set, and is required where a folder holds more than one.
"""
import csv
import sys

args = sys.argv[1:]
chosen = None
if args[:1] == ["--set"]:
    if len(args) < 2:
        sys.exit("--set needs a set name (the `set` column of a merged scaling.csv)")
    chosen, args = args[1], args[2:]
if not args or any("=" not in a for a in args):
    sys.exit("usage: width_table.py [--set SET] NAME=SOLVE_FOLDER[,SOLVE_FOLDER...]...")
sweeps = []
for arg in args:
    name, folders = arg.split("=", 1)
    by_width = {}
    for folder in folders.split(","):
        path = f"{folder}/scaling.csv"
        try:
            rows = list(csv.DictReader(open(path)))
        except OSError as e:
            sys.exit(f"{name}: cannot read {path}: {e}")
        sets = sorted({r["set"] for r in rows if r.get("set")})
        if sets:
            if chosen is None and len(sets) > 1:
                sys.exit(f"{name}: {path} holds the cube sets {', '.join(sets)}: pass --set SET")
            pick = chosen if chosen is not None else sets[0]
            if pick not in sets:
                sys.exit(f"{name}: {path} has no set {pick!r} (it has {', '.join(sets)})")
            rows = [r for r in rows if r["set"] == pick]
        for r in rows:
            if int(r["width"]) in by_width:
                sys.exit(f"{name}: width {r['width']} is in two of its folders (the second: {path})")
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
