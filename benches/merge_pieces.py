"""Merges `solve` folders that are pieces of one sweep (some of the cubes at
one width each, run on several machines) into one folder of merged tables:
every per-cube row once, per-width summaries recomputed from them, and
where, when and with what binary each piece ran as a table.

    python3 benches/merge_pieces.py --out OUT [--force] [--set NAME=A..B]... \
        [--heuristic NAME] [--duplicate FOLDER]... PIECE...
    python3 benches/merge_pieces.py --out runs/cube3-q-long/solve/deepcubea-w13..18 \
        --set deepcubea=0..999 --set deepcubea-100=0..99 --heuristic oracle:cube3-q-long \
        --duplicate runs/cube3-q-long/solve/deepcubea-100-w13 --duplicate runs/cube3-q-long/solve/deepcubea-100-w14 \
        --duplicate runs/cube3-q-long/solve/deepcubea-100-w15 --duplicate runs/cube3-q-long/solve/gpu12-deepcubea-100a-w18 \
        runs/cube3-q-long/solve/deepcubea-p*-w* runs/cube3-q-long/solve/deepcubea-100[a-h]-w*

Each PIECE and each --duplicate FOLDER is a finished `solve` folder
(`.cube-oracle-output` says `state = complete`) with instances.csv,
summary.csv and scaling.csv; all must share instances.csv's columns,
puzzle and method. OUT gets:

  instances.csv   every row of every PIECE, all of its columns, plus
                  `piece` (the folder's name); sorted by width, then id.
                  Exactly one row per (width, id): a (width, id) in two
                  PIECEs is an error.
  duplicates.csv  the rows of the --duplicate folders (the same columns,
                  `piece`, and `kept_piece`, the PIECE whose row
                  instances.csv keeps). A duplicate is a folder that
                  searched cubes a PIECE also covers again, e.g. on another
                  machine; each of its rows must equal the kept row in
                  every column that is the search's result (status,
                  solved, solution, length, optimal, length_htm, expanded,
                  forwards, beam_nodes), or the merge fails naming the
                  column. Columns that depend on the machine (elapsed_ms,
                  and the last digits of the floating-point generated,
                  ebf, mean_beam_entropy, start_kl_uniform) may differ;
                  instances.csv keeps the PIECE's row, so a figure drawn
                  from the PIECEs is reproduced exactly.
  summary.csv     one row per (set, width), in `--set` order: `set`, then
                  solve's summary columns (record.rs `summarize` and the
                  sweep's extra columns), recomputed from the merged rows
                  the way `solve` computes them. kind, symmetry and matmul
                  are the pieces' (they must agree; a summary without a
                  matmul column predates `solve --matmul`, whose products
                  were f32); wall_s_per_instance is the pieces' wall time
                  per cube averaged over the cubes (pieces that ran side by
                  side count each). Every piece's own summary is recomputed
                  from its rows first and must match its summary.csv
                  (instances, solved %, mean and median length, optimal %,
                  mean expanded and forwards), so the merge computes what
                  `solve` did.
  scaling.csv     summary.csv plus the published columns of the pieces'
                  scaling.csv at each width (they must agree).
  provenance.csv  one row per folder read: piece, role (piece or
                  duplicate), duplicate_of, widths, first_id, last_id,
                  instances, rows_kept, the heuristic label it recorded,
                  its marker's state and time, and from meta.json (where
                  the piece has one; the oldest pieces predate it) the
                  start and end time (UTC), wall seconds, jobs, device,
                  products, matmul, kind, symmetry, dedup, max depth,
                  revisions, run, checkpoint, versions and command line,
                  and from summary.csv its mean seconds per search and
                  wall seconds per cube.

`--set NAME=A..B` names the cubes with ids A..B (inclusive) as a set of
the summary; every width must cover every id of every set, or the merge
fails naming the width and the missing ids. Without `--set`, one set
`all` of whatever ids each width holds. The `heuristic` column names the
oracle as `oracle:<run folder>` where the piece ran; pieces run from a
copy of the run under another folder name record another label. Labels
that differ are an error unless `--heuristic NAME` gives the one to write
(each piece's recorded label stays in provenance.csv).

The folder is written under a temporary name beside OUT and renamed into
place. An existing OUT is an error; `--force` replaces it, but only a
folder this script wrote (one with its provenance.csv and no `solve`
marker). The pieces are not touched: remove them with `rm -r` once the
merged folder is checked. Python standard library only.
"""
import csv
import datetime
import json
import math
import os
import shutil
import sys

# The columns of an instances.csv row that are the search's result: a
# duplicate must agree with the kept row on each of these.
RESULT_COLUMNS = ["puzzle", "method", "width", "id", "status", "solved", "solution", "length", "optimal",
                  "length_htm", "expanded", "forwards", "beam_nodes"]
# The summary columns compared between a piece's summary.csv and its recomputation.
CHECKED = ["instances", "solved_pct", "mean_length", "median_length", "optimal_pct", "mean_expanded",
           "mean_forwards", "mean_beam_nodes"]
SUMMARY_COLUMNS = ["set", "puzzle", "method", "heuristic", "width", "instances", "solved_pct", "limit_pct",
                   "mean_length", "median_length", "optimal_pct", "mean_excess", "mean_generated", "mean_expanded",
                   "total_generated", "mean_elapsed_s", "p95_elapsed_s", "total_elapsed_s", "generated_per_s",
                   "expanded_per_s", "mean_ebf", "kind", "symmetry", "mean_forwards", "beam_log2",
                   "mean_beam_nodes", "entropy_length_pearson", "wall_s_per_instance", "matmul"]
PUBLISHED_COLUMNS = ["efficientcube_mean_length", "efficientcube_optimal_pct", "efficientcube_s_per_instance"]
PROVENANCE_COLUMNS = ["piece", "role", "duplicate_of", "widths", "first_id", "last_id", "instances", "rows_kept",
                      "heuristic", "state", "finished_at", "started_utc", "updated_utc", "wall_s", "jobs", "device",
                      "products", "matmul", "kind", "symmetry", "dedup", "max_depth", "mean_elapsed_s",
                      "wall_s_per_instance", "git_revision", "build_revision", "run", "checkpoint", "versions",
                      "command_line"]
MARKER = ".cube-oracle-output"


class Error(Exception):
    """A problem with the inputs: reported in one line, no traceback."""


# ---------------------------------------------------------------- arguments


def parse_args(argv):
    opts = {"out": None, "force": False, "sets": [], "heuristic": None, "duplicates": [], "pieces": []}
    it = iter(argv)
    for a in it:
        if a in ("-h", "--help"):
            print(__doc__)
            sys.exit(0)
        elif a in ("--out", "--set", "--heuristic", "--duplicate"):
            value = next(it, None)
            if value is None or value.startswith("--"):
                raise Error(f"{a} needs a value")
            if a == "--out":
                opts["out"] = value.rstrip("/")
            elif a == "--heuristic":
                opts["heuristic"] = value
            elif a == "--duplicate":
                opts["duplicates"].append(value.rstrip("/"))
            else:
                name, _, span = value.partition("=")
                lo, sep, hi = span.partition("..")
                if not name or not sep or not lo.isdigit() or not hi.isdigit() or int(lo) > int(hi):
                    raise Error(f"--set takes NAME=A..B with integer ids A <= B, not {value!r}")
                if any(s[0] == name for s in opts["sets"]):
                    raise Error(f"--set {name} is given twice")
                opts["sets"].append((name, int(lo), int(hi)))
        elif a == "--force":
            opts["force"] = True
        elif a.startswith("--"):
            raise Error(f"unknown option {a} (see --help)")
        else:
            opts["pieces"].append(a.rstrip("/"))
    if opts["out"] is None or not opts["pieces"]:
        raise Error("usage: merge_pieces.py --out OUT [--force] [--set NAME=A..B]... [--heuristic NAME] "
                    "[--duplicate FOLDER]... PIECE... (see --help)")
    folders = opts["pieces"] + opts["duplicates"]
    names = [os.path.basename(f) for f in folders]
    for n in set(names):
        if names.count(n) > 1:
            raise Error(f"folder name {n} is given twice (as a piece or a duplicate): its rows would be ambiguous")
    out = os.path.abspath(opts["out"])
    for f in folders:
        if os.path.abspath(f) == out:
            raise Error(f"--out {opts['out']} is one of the folders to merge")
    return opts


# ---------------------------------------------------------------- reading


def read_csv(path):
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            rows = list(reader)
            return reader.fieldnames or [], rows
    except FileNotFoundError:
        raise Error(f"{path}: no such file (is this a finished solve folder?)") from None
    except (OSError, csv.Error) as e:
        raise Error(f"cannot read {path}: {e}") from None


def marker(folder):
    path = os.path.join(folder, MARKER)
    try:
        with open(path) as f:
            fields = dict(line.split(" = ", 1) for line in f.read().splitlines() if " = " in line)
    except FileNotFoundError:
        raise Error(f"{folder}: no {MARKER}, so not a folder solve made") from None
    except OSError as e:
        raise Error(f"cannot read {path}: {e}") from None
    if fields.get("made by") != "solve" or fields.get("state") != "complete":
        raise Error(f"{path}: says made by = {fields.get('made by')!r}, state = {fields.get('state')!r}; "
                    "only finished solve folders (made by = solve, state = complete) are merged")
    return fields


def meta(folder):
    path = os.path.join(folder, "meta.json")
    if not os.path.exists(path):
        return {}
    try:
        with open(path) as f:
            m = json.load(f)
    except (OSError, ValueError) as e:
        raise Error(f"cannot read {path}: {e}") from None
    if m.get("complete") is not True:
        raise Error(f"{path}: complete is {m.get('complete')!r}, not true: the sweep did not finish")
    return m


def number(row, col, where):
    value = row.get(col)
    if value in (None, ""):
        raise Error(f"{where}: no value in column {col!r}")
    try:
        return float(value)
    except ValueError:
        raise Error(f"{where}: column {col!r} holds {value!r}, not a number") from None


def id_key(i):
    """Numeric ids in numeric order, others after them as text."""
    return (0, int(i), "") if i.isdigit() else (1, 0, i)


class Folder:
    """One solve folder: its rows, its summary and scaling rows by width, its provenance."""

    def __init__(self, path, role):
        self.path, self.role, self.name = path, role, os.path.basename(path)
        if not os.path.isdir(path):
            raise Error(f"{path}: no such folder")
        self.marker = marker(path)
        self.meta = meta(path)
        self.columns, self.rows = read_csv(os.path.join(path, "instances.csv"))
        if not self.rows:
            raise Error(f"{path}/instances.csv: no rows")
        for col in ("width", "id", "heuristic", "solved", "length"):
            if col not in self.columns:
                raise Error(f"{path}/instances.csv: no column {col!r}")
        if "piece" in self.columns:
            raise Error(f"{path}/instances.csv already has a `piece` column: merge the pieces, not a merged folder")
        self.summary = self.by_width("summary.csv")
        self.scaling = self.by_width("scaling.csv")
        self.widths = sorted({int(r["width"]) for r in self.rows})
        for w in self.widths:
            if w not in self.summary:
                raise Error(f"{path}/summary.csv: no row at width {w}, which instances.csv holds")
        seen = set()
        for r in self.rows:
            key = (int(r["width"]), r["id"])
            if key in seen:
                raise Error(f"{path}/instances.csv: width {key[0]}, id {key[1]} is in two rows")
            seen.add(key)
        self.kept = 0

    def by_width(self, table):
        rel = os.path.join(self.path, table)
        columns, rows = read_csv(rel)
        out = {}
        for r in rows:
            r["_file"] = rel
            w = int(number(r, "width", rel))
            if w in out:
                raise Error(f"{rel}: two rows at width {w}")
            out[w] = r
        return out

    def where(self, r):
        return f"{self.path}/instances.csv (width {r['width']}, id {r['id']})"

    def provenance(self, duplicate_of):
        m = self.meta
        ids = sorted({r["id"] for r in self.rows}, key=id_key)
        first = self.summary[self.widths[0]]
        utc = lambda s: (datetime.datetime.fromtimestamp(s, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
                         if isinstance(s, (int, float)) else "")
        versions = m.get("versions")
        wall = m.get("wall_s")
        return {
            "piece": self.name,
            "role": self.role,
            "duplicate_of": ";".join(duplicate_of),
            "widths": ";".join(str(w) for w in self.widths),
            "first_id": ids[0],
            "last_id": ids[-1],
            "instances": len(ids),
            "rows_kept": self.kept,
            "heuristic": ";".join(sorted({r["heuristic"] for r in self.rows})),
            "state": self.marker.get("state", ""),
            "finished_at": self.marker.get("at", ""),
            "started_utc": utc(m.get("started_unix")),
            "updated_utc": utc(m.get("updated_unix")),
            "wall_s": repr(sum(wall)) if isinstance(wall, list) and wall else "",
            "jobs": m.get("jobs", ""),
            "device": m.get("device", ""),
            "products": m.get("products", ""),
            "matmul": first.get("matmul", m.get("matmul", "")),
            "kind": first.get("kind", m.get("kind", "")),
            "symmetry": first.get("symmetry", m.get("symmetry", "")),
            "dedup": "" if "dedup" not in m else str(m["dedup"]).lower(),
            "max_depth": m.get("max_depth", ""),
            "mean_elapsed_s": ";".join(self.summary[w]["mean_elapsed_s"] for w in self.widths),
            "wall_s_per_instance": ";".join(self.summary[w].get("wall_s_per_instance", "") for w in self.widths),
            "git_revision": m.get("git_revision", ""),
            "build_revision": m.get("build_revision", ""),
            "run": m.get("run", ""),
            "checkpoint": m.get("checkpoint", ""),
            "versions": json.dumps(versions, sort_keys=True, separators=(",", ":")) if versions else "",
            "command_line": m.get("command_line", ""),
        }


# ---------------------------------------------------------------- summaries


def mean(xs):
    return sum(xs) / len(xs) if xs else math.nan


def quantile(xs, q):
    """record.rs / statistics.rs `quantile`: linear interpolation, NaN if empty."""
    if not xs:
        return math.nan
    s = sorted(xs)
    pos = q * (len(s) - 1)
    lo, hi = math.floor(pos), math.ceil(pos)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def pearson(x, y):
    """statistics.rs `pearson` (NaN where it gives None)."""
    n = min(len(x), len(y))
    if n < 2:
        return math.nan
    mx, my = sum(x[:n]) / n, sum(y[:n]) / n
    sxy = sxx = syy = 0.0
    for a, b in zip(x[:n], y[:n]):
        dx, dy = a - mx, b - my
        sxy += dx * dy
        sxx += dx * dx
        syy += dy * dy
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else math.nan


def maybe(row, col, where):
    """A number, or NaN for an empty cell (an unsolved search has no length, no ebf)."""
    return math.nan if row.get(col) in (None, "", "NaN", "nan") else number(row, col, where)


def summarize(width, rows, where):
    """solve's summary of one width (src/solve/record.rs `summarize` and the extra columns of
    src/solve/mod.rs), from instances.csv rows in instance order."""
    n = max(len(rows), 1)
    solved = [r for r in rows if r["status"] == "solved"]
    lengths = [number(r, "length", where(r)) for r in solved]
    with_opt = [(number(r, "length", where(r)), number(r, "optimal", where(r)))
                for r in solved if r.get("optimal") not in (None, "")]
    times = [number(r, "elapsed_ms", where(r)) / 1e3 for r in rows]
    total_generated = sum(int(number(r, "generated", where(r))) for r in rows)
    total_expanded = sum(int(number(r, "expanded", where(r))) for r in rows)
    total_elapsed = sum(times)
    ebfs = [maybe(r, "ebf", where(r)) for r in solved]
    # solve's Pearson pairs run over rows with a length (the solved ones).
    with_length = [r for r in rows if r.get("length") not in (None, "")]
    return {
        "width": width,
        "instances": len(rows),
        "solved_pct": 100.0 * len(solved) / n,
        "limit_pct": 100.0 * sum(r["status"] == "limit" for r in rows) / n,
        "mean_length": mean(lengths),
        "median_length": quantile(lengths, 0.5),
        "optimal_pct": 100.0 * sum(l == o for l, o in with_opt) / len(with_opt) if with_opt else math.nan,
        "mean_excess": mean([l - o for l, o in with_opt]),
        "mean_generated": total_generated / n,
        "mean_expanded": total_expanded / n,
        "total_generated": total_generated,
        "mean_elapsed_s": total_elapsed / n,
        "p95_elapsed_s": quantile(times, 0.95),
        "total_elapsed_s": total_elapsed,
        "generated_per_s": total_generated / max(total_elapsed, 1e-9),
        "expanded_per_s": total_expanded / max(total_elapsed, 1e-9),
        "mean_ebf": mean([e for e in ebfs if not math.isnan(e)]),
        "mean_forwards": sum(number(r, "forwards", where(r)) for r in rows) / n,
        "beam_log2": math.log2(width),
        "mean_beam_nodes": sum(number(r, "beam_nodes", where(r)) for r in rows) / n,
        "entropy_length_pearson": pearson([number(r, "length", where(r)) for r in with_length],
                                          [number(r, "mean_beam_entropy", where(r)) for r in with_length]),
    }


def close(a, b):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def check_piece_summary(folder):
    """A piece's summary.csv against its recomputation from its own rows."""
    for w in folder.widths:
        rows = sorted((r for r in folder.rows if int(r["width"]) == w), key=lambda r: id_key(r["id"]))
        got = summarize(w, rows, folder.where)
        have = folder.summary[w]
        for col in CHECKED:
            if col not in have:
                continue
            if not close(got[col], maybe(have, col, have["_file"])):
                raise Error(f"{have['_file']}: width {w}: {col} is {have[col]}, but its instances.csv gives "
                            f"{got[col]!r}: the rows and the summary disagree")


def fmt(x):
    if isinstance(x, float):
        return "NaN" if math.isnan(x) else repr(x)
    return str(x)


# ---------------------------------------------------------------- merging


def merge(opts):
    pieces = [Folder(p, "piece") for p in opts["pieces"]]
    duplicates = [Folder(p, "duplicate") for p in opts["duplicates"]]
    everything = pieces + duplicates
    columns = everything[0].columns
    for f in everything[1:]:
        if f.columns != columns:
            raise Error(f"{f.path}/instances.csv has the columns {','.join(f.columns)}, but "
                        f"{everything[0].path}/instances.csv has {','.join(columns)}")
    for col in ("puzzle", "method"):
        values = {r[col] for f in everything for r in f.rows}
        if len(values) > 1:
            raise Error(f"the folders hold more than one {col} ({', '.join(sorted(values))}): they are not one sweep")
    labels = {}
    for f in everything:
        for h in {r["heuristic"] for r in f.rows}:
            labels.setdefault(h, []).append(f.name)
    if len(labels) > 1 and opts["heuristic"] is None:
        raise Error("the pieces record different heuristic labels ("
                    + "; ".join(f"{h}: {', '.join(n[:3])}{' …' if len(n) > 3 else ''}" for h, n in sorted(labels.items()))
                    + "): if they are one oracle, pass --heuristic NAME (e.g. oracle:<run>) to write one label")
    heuristic = opts["heuristic"] or next(iter(labels))
    for f in everything:
        check_piece_summary(f)

    kept = {}  # (width, id) -> (folder, row)
    for f in pieces:
        for r in f.rows:
            key = (int(r["width"]), r["id"])
            if key in kept:
                raise Error(f"width {key[0]}, id {key[1]} is in two pieces, {kept[key][0].path} and {f.path}: "
                            "pass the one whose rows are not to be kept as --duplicate FOLDER")
            kept[key] = (f, r)
            f.kept += 1
    duplicate_rows, duplicate_of = [], {}
    for f in duplicates:
        owners = set()
        for r in f.rows:
            key = (int(r["width"]), r["id"])
            if key not in kept:
                raise Error(f"{f.where(r)}: no piece covers this cube at this width, so the duplicate's row "
                            "would be the only one: pass the folder as a PIECE")
            owner, k = kept[key]
            for col in RESULT_COLUMNS:
                if col in columns and r[col] != k[col]:
                    raise Error(f"{f.where(r)}: {col} is {r[col]!r}, but the kept row of {owner.path} has "
                                f"{k[col]!r}: a duplicate must find the same result")
            owners.add(owner.name)
            duplicate_rows.append({**r, "heuristic": heuristic, "piece": f.name, "kept_piece": owner.name})
        duplicate_of[f.name] = sorted(owners)

    widths = sorted({w for w, _ in kept})
    sets = opts["sets"] or [("all", None, None)]
    summaries, scalings = [], []
    for name, lo, hi in sets:
        for w in widths:
            keys = sorted((k for k in kept if k[0] == w and (lo is None or (k[1].isdigit() and lo <= int(k[1]) <= hi))),
                          key=lambda k: id_key(k[1]))
            if lo is not None:
                missing = sorted(set(range(lo, hi + 1)) - {int(k[1]) for k in keys})
                if missing:
                    shown = ", ".join(map(str, missing[:10])) + (" …" if len(missing) > 10 else "")
                    raise Error(f"set {name} (ids {lo}..{hi}): width {w} lacks {len(missing)} of its ids ({shown})")
            if not keys:
                raise Error(f"set {name}: no rows at width {w}")
            rows = [kept[k][1] for k in keys]
            owners = [kept[k][0] for k in keys]
            where = lambda r: f"width {r['width']}, id {r['id']}"
            s = summarize(w, rows, where)
            # kind, symmetry, matmul: the pieces' own (one value each).
            for col, default in (("kind", None), ("symmetry", None), ("matmul", "f32")):
                values = {f.summary[w].get(col) or default for f in set(owners)}
                if None in values or len(values) != 1:
                    raise Error(f"set {name}, width {w}: the pieces' summary.csv give {col} "
                                f"{', '.join(sorted(map(str, values)))}: not one sweep")
                s[col] = values.pop()
            s["wall_s_per_instance"] = sum(number(f.summary[w], "wall_s_per_instance", f.summary[w]["_file"])
                                           for f in owners) / len(owners)
            published = {}
            for f in set(owners):
                r = f.scaling.get(w)
                if r is None:
                    raise Error(f"{f.path}/scaling.csv: no row at width {w}")
                for col in PUBLISHED_COLUMNS:
                    published.setdefault(col, set()).add(r.get(col, ""))
            for col, values in published.items():
                if len(values) != 1:
                    raise Error(f"width {w}: the pieces' scaling.csv give {col} {', '.join(sorted(values))}")
            row = {"set": name, "puzzle": rows[0]["puzzle"], "method": rows[0]["method"], "heuristic": heuristic, **s}
            summaries.append(row)
            scalings.append({**row, **{c: v.pop() for c, v in published.items()}})
            # The per-piece summaries, weighted by their solved cubes, give the same mean.
            solved = [(f, r) for f, r in zip(owners, rows) if r["status"] == "solved"]
            if solved:
                by_piece = {}
                for f, r in solved:
                    by_piece.setdefault(f.name, []).append(number(r, "length", f.where(r)))
                weighted = sum(sum(v) for v in by_piece.values()) / len(solved)
                if not close(weighted, s["mean_length"]):
                    raise Error(f"set {name}, width {w}: mean length {s['mean_length']!r} against {weighted!r} "
                                "from the pieces: a merge bug")

    instances = []
    for key in sorted(kept, key=lambda k: (k[0], id_key(k[1]))):
        f, r = kept[key]
        instances.append({**r, "heuristic": heuristic, "piece": f.name})
    duplicate_rows.sort(key=lambda r: (int(r["width"]), id_key(r["id"]), r["piece"]))
    provenance = [f.provenance(duplicate_of.get(f.name, [])) for f in everything]
    provenance.sort(key=lambda p: (p["role"] != "piece", int(p["widths"].split(";")[0]), id_key(p["first_id"]), p["piece"]))
    tables = {
        "instances.csv": (columns + ["piece"], instances),
        "summary.csv": (SUMMARY_COLUMNS, summaries),
        "scaling.csv": (SUMMARY_COLUMNS + PUBLISHED_COLUMNS, scalings),
        "provenance.csv": (PROVENANCE_COLUMNS, provenance),
    }
    if duplicates:
        tables["duplicates.csv"] = (columns + ["piece", "kept_piece"], duplicate_rows)
    return tables, summaries, len(pieces), len(duplicates)


# ---------------------------------------------------------------- writing


def ours(folder):
    """Whether `folder` is one this script wrote: a provenance.csv with its header, no solve marker."""
    try:
        with open(os.path.join(folder, "provenance.csv"), newline="") as f:
            header = next(csv.reader(f), [])
    except OSError:
        return False
    return header == PROVENANCE_COLUMNS and not os.path.exists(os.path.join(folder, MARKER))


def write(out, tables, force):
    parent, name = os.path.split(os.path.abspath(out))
    if not os.path.isdir(parent):
        raise Error(f"--out {out}: its parent folder {parent} does not exist")
    if os.path.lexists(out):
        if not force:
            raise Error(f"{out} already exists; pass --force to replace it")
        if not os.path.isdir(out) or not ours(out):
            raise Error(f"{out} exists and is not a folder merge_pieces.py wrote (no provenance.csv of its own, "
                        "or a solve marker): refusing to replace it")
    stage = os.path.join(parent, f".{name}.new-{os.getpid()}")
    old = os.path.join(parent, f".{name}.old-{os.getpid()}")
    try:
        os.mkdir(stage)
        for table, (cols, rows) in tables.items():
            with open(os.path.join(stage, table), "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=cols, lineterminator="\n", extrasaction="raise")
                w.writeheader()
                for r in rows:
                    w.writerow({c: fmt(r.get(c, "")) for c in cols})
                f.flush()
                os.fsync(f.fileno())
        if os.path.lexists(out):
            os.rename(out, old)
        os.rename(stage, out)
    except OSError as e:
        shutil.rmtree(stage, ignore_errors=True)
        if os.path.lexists(old) and not os.path.lexists(out):
            os.rename(old, out)
        raise Error(f"writing {out}: {e}") from None
    shutil.rmtree(old, ignore_errors=True)


def main(argv):
    try:
        opts = parse_args(argv)
        tables, summaries, n_pieces, n_duplicates = merge(opts)
        write(opts["out"], tables, opts["force"])
    except Error as e:
        print(f"merge_pieces.py: {e}", file=sys.stderr)
        return 2
    print(f"merged {n_pieces} pieces and {n_duplicates} duplicates into {opts['out']}: "
          f"{len(tables['instances.csv'][1])} instance rows"
          + (f", {len(tables['duplicates.csv'][1])} duplicate rows" if "duplicates.csv" in tables else ""))
    print("| set | width | instances | solved | mean length |")
    print("|---|---|---|---|---|")
    for s in summaries:
        print(f"| {s['set']} | 2^{int(s['beam_log2'])} | {s['instances']} | {s['solved_pct']:.1f}% | {s['mean_length']:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
