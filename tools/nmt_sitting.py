#!/usr/bin/env python3
"""The NMT speed comparison in one sitting, with the discipline of the LM's `speed peers` (issue 56): `speed nmt`
once per cell per round, each run a fresh process, the cells in the given order in odd rounds and reversed in
even ones; per cell the median (min-max) over the rounds of every rate, and each cell's rates over the LSTM's
paired by round.

  /usr/bin/python3 tools/nmt_sitting.py EXPERIMENT --cells atr,gru,lstm,lrn --out PREFIX [--rounds 4]
        [--steps 15] [--sentences 100] [--threads 2] [--bin build/bin/speed]

Why a process per cell: inside one `speed nmt` process a cell's beam-10 rate depended on where it ran (up to
1.4x, results/speed/nmt_order_effect/); a fresh process gives every cell the same start, and the alternation
spreads any drift of the machine over all of them.
Writes PREFIX.runs/CELL_rK.json and .log (each run's own `speed nmt` report and output), PREFIX.json (every run
with its wall time and peak RSS (os.wait4), and "rows": per cell the median of every numeric field of its reports,
the same keys as `speed nmt`'s report plus "spread" (min, max, n of the rates) and "peak_rss_mb", so what reads
results/speed/nmt.{json,csv} reads this), PREFIX.csv (the medians, `speed nmt`'s columns) and PREFIX.md.
A PREFIX.runs/ that already holds runs is refused: two sittings are never mixed.
Exit 2 on a bad argument, 1 when a run fails (its cell, round, exit code and the end of its log).
Standard library only.
"""
import argparse
import datetime
import json
import os
import shlex
import statistics
import subprocess
import sys
import time

RATES = (("train_tokens_s", "train tokens/s"), ("decode_tokens_s_beam1", "decode tokens/s beam 1"),
         ("decode_rows_s_fixed_beam1", "rows/s at max length beam 1"),
         ("decode_tokens_s_beam10", "decode tokens/s beam 10"),
         ("decode_rows_s_fixed_beam10", "rows/s at max length beam 10"))


def fail(msg, code=2):
    print(f"nmt_sitting.py: error: {msg}", file=sys.stderr)
    sys.exit(code)


def run_one(argv, log_path):
    """(wall seconds, peak RSS MiB, exit code) of one run, its output in log_path."""
    with open(log_path, "w", encoding="utf-8") as log:
        log.write("$ " + shlex.join(argv) + "\n")
        log.flush()
        start = time.monotonic()
        try:
            p = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        except OSError as e:
            fail(f"cannot start {argv[0]}: {e.strerror}", 1)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.monotonic() - start
    p.returncode = os.waitstatus_to_exitcode(status)   # reaped here: Popen must not wait for it again
    return wall, usage.ru_maxrss / 1024.0, p.returncode


def tail(path, n=15):
    with open(path, encoding="utf-8", errors="replace") as f:
        return "".join(f.readlines()[-n:])


def is_num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def report_row(path, cell):
    """The one row of a `speed nmt --cells CELL` report; fail(1) when it is not there."""
    try:
        with open(path, encoding="utf-8") as f:
            rep = json.load(f)
        rows = [r for r in rep["rows"] if r.get("cell") == cell]
        if len(rows) != 1:
            raise KeyError("rows")
        return rep, rows[0]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        fail(f"{path}: not a `speed nmt` report with one row for {cell} ({type(e).__name__}: {e})", 1)


def medians(cell, runs):
    """One row: the median of every numeric field over the runs (a field equal in all of them kept as it is)."""
    rows = [r["row"] for r in runs]
    out = {"cell": cell}
    for k, v in rows[0].items():
        vals = [r[k] for r in rows if is_num(r.get(k))]
        if k != "cell" and is_num(v) and vals:
            out[k] = v if all(x == v for x in vals) else statistics.median(vals)
    out["peak_rss_mb"] = statistics.median(r["peak_rss_mb"] for r in runs)
    out["spread"] = {k: {"min": min(x["row"][k] for x in runs), "max": max(x["row"][k] for x in runs),
                         "n": len(runs)} for k, _ in RATES if all(is_num(x["row"].get(k)) for x in runs)}
    return out


def paired(runs, cell, base, key):
    """{median, min, max, n} of cell's rate over base's, paired by round; None if either lacks it."""
    by = {}
    for r in runs:
        if r["cell"] in (cell, base) and is_num(r["row"].get(key)):
            by.setdefault(r["round"], {})[r["cell"]] = r["row"][key]
    x = [v[cell] / v[base] for v in by.values() if cell in v and base in v and v[base] > 0]
    return {"median": statistics.median(x), "min": min(x), "max": max(x), "n": len(x)} if x else None


def markdown(doc, runs):
    lines = ["# NMT speed in one sitting: RNNSearch, a fresh process per cell and round", "",
             f"`{doc['command']}`, {doc['date']} to {doc['end']}, {doc['machine'].get('cpu', '?')}, "
             f"{doc['threads']} thread(s); allocator: {doc['machine'].get('allocator', '?')}. Each run is "
             f"`speed nmt --cells CELL` ({doc['steps']} training steps, then decoding the first {doc['sentences']} "
             f"test sentences at beam 1 and 10, at the models' own lengths and with every hypothesis run to its max "
             f"length; `speed nmt`'s README paragraph says what each rate is). {doc['rounds']} rounds, the cells "
             "in the given order in odd rounds and reversed in even ones. Figures: median (min–max) over the rounds; "
             "peak RSS: each process's own (wait4), median. Every run's report and log: "
             f"`{os.path.basename(doc['runs_dir'])}/`.", "",
             "| cell | params | " + " | ".join(label for _, label in RATES) + " | peak RSS MiB |",
             "|---|---:|" + "---:|" * len(RATES) + "---:|"]
    for row in doc["rows"]:
        cells = [row["cell"], f"{row.get('params', 0):,.0f}"]
        for k, _ in RATES:
            s = row["spread"].get(k)
            cells.append(f"{row[k]:,.0f} ({s['min']:,.0f}–{s['max']:,.0f})" if s else "–")
        lines.append("| " + " | ".join(cells) + f" | {row['peak_rss_mb']:.0f} |")
    names = [r["cell"] for r in doc["rows"]]
    if "lstm" in names:
        lines += ["", "Each cell over the LSTM, paired by round: median (min–max).", "",
                  "| cell | " + " | ".join(label for _, label in RATES) + " |", "|---|" + "---:|" * len(RATES)]
        for cell in names:
            if cell == "lstm":
                continue
            ps = [paired(runs, cell, "lstm", k) for k, _ in RATES]
            lines.append(f"| {cell} / lstm | " + " | ".join(
                "–" if p is None else f"{p['median']:.2f} ({p['min']:.2f}–{p['max']:.2f})" for p in ps) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("experiment")
    ap.add_argument("--cells", required=True, help="comma-separated cell names, each once")
    ap.add_argument("--out", required=True, help="PREFIX of PREFIX.json/.csv/.md and PREFIX.runs/")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--steps", type=int, default=15)
    ap.add_argument("--sentences", type=int, default=100)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--bin", default="build/bin/speed")
    a = ap.parse_args(argv)
    cells = [c.strip() for c in a.cells.split(",") if c.strip()]
    if not cells or len(set(cells)) != len(cells):
        fail(f"--cells {a.cells}: expected distinct cell names separated by commas")
    for flag, v in (("--rounds", a.rounds), ("--steps", a.steps), ("--sentences", a.sentences),
                    ("--threads", a.threads)):
        if v < 1:
            fail(f"{flag} {v}: expected a positive integer")
    if not os.path.isfile(a.experiment):
        fail(f"{a.experiment}: no such experiment file")
    if not (os.path.isfile(a.bin) and os.access(a.bin, os.X_OK)):
        fail(f"--bin {a.bin}: not an executable (build it: cmake --build build --target speed)")
    runs_dir = a.out + ".runs"
    if os.path.isdir(runs_dir) and os.listdir(runs_dir):
        fail(f"{runs_dir}: holds an earlier sitting's runs; move it away or write this sitting elsewhere (--out)")
    os.makedirs(runs_dir, exist_ok=True)
    runs, first = [], None
    for k in range(1, a.rounds + 1):
        for pos, cell in enumerate(cells if k % 2 else cells[::-1], 1):
            stem = os.path.join(runs_dir, f"{cell}_r{k}")
            cmd = [a.bin, "nmt", a.experiment, "--cells", cell, "--steps", str(a.steps), "--sentences",
                   str(a.sentences), "--threads", str(a.threads), "--out", stem]
            wall, rss, rc = run_one(cmd, stem + ".log")
            if rc != 0:
                fail(f"{cell}, round {k}: exit {rc}; the end of {stem}.log:\n{tail(stem + '.log')}", 1)
            for ext in (".md", ".csv"):   # the report's .json says the same
                if os.path.exists(stem + ext):
                    os.remove(stem + ext)
            rep, row = report_row(stem + ".json", cell)
            first = first or rep
            runs.append({"cell": cell, "round": k, "position": pos, "wall_s": wall, "peak_rss_mb": rss,
                         "report": os.path.basename(stem) + ".json", "date": rep.get("date"), "row": row})
            print(f"round {k} {cell:6s}: train {row.get('train_tokens_s', 0):,.0f} tokens/s, rows/s at max length "
                  f"{row.get('decode_rows_s_fixed_beam1', 0):,.0f} (beam 1) {row.get('decode_rows_s_fixed_beam10', 0):,.0f} "
                  f"(beam 10), {wall:.0f} s", flush=True)
    dates = sorted(r["date"] for r in runs if isinstance(r["date"], str))
    doc = {"tool": "tools/nmt_sitting.py", "command": shlex.join(["tools/nmt_sitting.py"] + (argv or sys.argv[1:])),
           "experiment": a.experiment, "date": dates[0] if dates else
           datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "end": dates[-1] if dates else "?", "machine": first.get("machine", {}), "threads": a.threads,
           "steps": a.steps, "sentences": a.sentences, "rounds": a.rounds, "runs_dir": runs_dir,
           "order": "cells in the given order in odd rounds, reversed in even ones",
           "overrides": first.get("overrides", []),
           "rows": [medians(c, [r for r in runs if r["cell"] == c]) for c in cells], "runs": runs}
    with open(a.out + ".json", "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
    keys = sorted({k for r in doc["rows"] for k in r if k not in ("cell", "spread")})
    with open(a.out + ".csv", "w", encoding="utf-8") as f:
        f.write(",".join(["cell"] + keys) + "\n")
        for r in doc["rows"]:
            f.write(",".join([r["cell"]] + [repr(r[k]) if k in r else "" for k in keys]) + "\n")
    with open(a.out + ".md", "w", encoding="utf-8") as f:
        f.write(markdown(doc, runs))
    print(f"nmt_sitting.py: wrote {a.out}.json, .csv, .md ({len(runs)} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
