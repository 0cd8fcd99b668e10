#!/usr/bin/env python3
"""results/speed_peers.md (+ .csv) from `build/bin/speed peers`'s report (results/speed/peers.json): ours, the
oneDNN reference LM and PyTorch measured in one sitting (tasks/speed/speed_peers.h), with issue 56's goals
marked by stated rules.

    python3 plots/peers_table.py [--peers results/speed/peers.json] [--out results/speed_peers.md]

Every number comes from the report's medians (min-max over rounds) and its paired per-round ratios, which
re-derive from the runs it lists (their reports are kept in <peers>.runs/). Goal rules:
  LSTM/GRU >= oneDNN's:  "met" when ours / oneDNN >= 1.00 in every round, "met on the median" when the median
                         ratio is >= 1.00 but some round is below, "not met" otherwise; per shape, threads and
                         phase (training, inference).
  ATR >= 1.3x our LSTM at medium (training and inference): the ratio of our two medians, "met" at >= 1.30;
                         the paper's ordering ATR > GRU > LSTM on our medians beside it.
  medium training >= 60 % of the true peak: our median training GFLOP/s over the FMA peak on the widest vectors
                         (the report's peak_fraction: the highest peak any of our processes measured), per cell;
                         the median of each run's GFLOP/s over its own process's peak beside it, for information.
A missing or broken report is named on stderr and nothing is written (exit 0: the other tables stand).
"""
import argparse
import statistics
import sys

from run_files import RunError, md_table, read_json, report, write_csv, write_text, csv_path

SCRIPT = "peers_table.py"
NAMES = {"twinrnn": "ours", "onednn": "oneDNN", "pytorch": "PyTorch"}


def load(path, script=SCRIPT):
    try:
        rep = read_json(path)
        for k in ("machine", "summary", "ratios", "programs", "runs", "rounds"):
            if k not in rep:
                raise RunError(path, f"missing key {k!r}")
    except RunError as e:
        report(script, e.path, e.what)
        return None
    return rep


def words(s):
    if not s or "median" not in s:
        return "–"
    return f"{s['median']:,.0f} ({s['min']:,.0f}–{s['max']:,.0f})"


def ratio(s):
    if not s or "median" not in s:
        return "–"
    return f"{s['median']:.2f} ({s['min']:.2f}–{s['max']:.2f})"


def table(header, align, rows):
    """md_table from lists: header cells, alignments ("l"/"r") and rows of cells."""
    line = lambda cells: "| " + " | ".join(str(c) for c in cells) + " |"  # noqa: E731
    return md_table(line(header), "|" + "|".join("---:" if a == "r" else "---" for a in align) + "|",
                    [line(r) for r in rows])


def find(items, **kw):
    for x in items:
        if all(x.get(k) == v for k, v in kw.items()):
            return x
    return None


def own_peak_fraction(rep, cell, threads):
    """The median over rounds of each of our medium runs' training GFLOP/s over the peak its own process measured
    (the peak differs from process to process; the verdict's rule takes the highest): None without such runs."""
    fs = [r["train_gflops"] / r["fma_peak_gflops"] for r in rep.get("runs", [])
          if r.get("program") == "twinrnn" and r.get("ok") and r.get("cell") == cell and r.get("shape") == "medium"
          and r.get("threads") == threads and r.get("fma_peak_gflops", 0) > 0 and "train_gflops" in r]
    return statistics.median(fs) if fs else None


def goals(rep):
    """[(goal, configuration, figure, verdict)] by the module's rules."""
    out = []
    cfg = rep["config"]
    for threads in cfg["threads"]:
        for shape in (s["name"] for s in cfg["shapes"]):
            for cell in ("lstm", "gru"):
                r = find(rep["ratios"], peer="onednn", cell=cell, shape=shape, threads=threads)
                for phase in ("train", "infer"):
                    s = r and r.get(phase)
                    if not s or "median" not in s:
                        continue
                    v = "met" if s["min"] >= 1.0 else "met on the median" if s["median"] >= 1.0 else "not met"
                    out.append((f"our {cell.upper()} >= oneDNN's ({phase})", f"{shape}, {threads} thr.", ratio(s), v))
    for threads in cfg["threads"]:
        ours = {c: find(rep["summary"], program="twinrnn", cell=c, shape="medium", threads=threads)
                for c in ("atr", "gru", "lstm")}
        if not (ours["atr"] and ours["lstm"]):
            continue
        for phase in ("train", "infer"):
            k = phase + "_words_s"
            a, g, l = (ours[c][k]["median"] if ours[c] else None for c in ("atr", "gru", "lstm"))
            x = a / l
            order = "" if g is None else (" (ATR > GRU > LSTM: " + ("kept" if a > g > l else "not kept") + ")")
            out.append((f"ATR >= 1.3x our LSTM, medium ({phase})", f"{threads} thr.", f"{x:.2f}x{order}",
                        "met" if x >= 1.3 else "not met"))
    for threads in cfg["threads"]:
        for s in rep["summary"]:
            if s["program"] == "twinrnn" and s["shape"] == "medium" and s["threads"] == threads and "peak_fraction" in s:
                f = s["peak_fraction"]
                own = own_peak_fraction(rep, s["cell"], threads)
                beside = "" if own is None else f"; of each process's own peak: {100 * own:.1f} % (median)"
                out.append(("medium training >= 60 % of the true peak", f"{s['cell']}, {threads} thr.",
                            f"{100 * f:.1f} % of {s['fma_peak_gflops']:.1f} GFLOP/s ({s['fma_peak_bits']}-bit)"
                            + beside, "met" if f >= 0.6 else "not met"))
    return out


def config_tables(rep, cells=None):
    """The lines of one table per threads x shape: each cell's words/s per program (median, min-max), ours / each
    peer paired by round, our peak RSS. `cells`: only these (default every cell of the experiment)."""
    progs = rep["programs"]
    peers = [p for p in progs if p != "twinrnn"]
    cfg = rep["config"]
    names = [c if isinstance(c, str) else c["name"] for c in cfg["cells"]]
    lines = []
    for threads in cfg["threads"]:
        for shape in cfg["shapes"]:
            lines += ["", f"## {shape['name']} ({shape.get('layers', 2)} x {shape['hidden']}, embedding "
                          f"{shape['embed']}), {threads} thread{'s' if threads > 1 else ''}", ""]
            header = ["cell", "phase"] + [f"{NAMES.get(p, p)} words/s" for p in progs] + \
                     [f"ours / {NAMES.get(p, p)}" for p in peers] + ["peak RSS MiB (ours)"]
            body = []
            for cell in names:
                if cells is not None and cell not in cells:
                    continue
                for phase in ("train", "infer"):
                    row = [cell, "training" if phase == "train" else "inference"]
                    for p in progs:
                        s = find(rep["summary"], program=p, cell=cell, shape=shape["name"], threads=threads)
                        row.append(words(s and s[phase + "_words_s"]))
                    for p in peers:
                        r = find(rep["ratios"], peer=p, cell=cell, shape=shape["name"], threads=threads)
                        row.append(ratio(r and r[phase]))
                    s = find(rep["summary"], program="twinrnn", cell=cell, shape=shape["name"], threads=threads)
                    row.append(f"{s['peak_rss_mb']['median']:.0f}" if s and phase == "train" else "")
                    body.append(row)
            lines += table(header, ["l", "l"] + ["r"] * (len(header) - 2), body)
    return lines


def goal_table(rep):
    """The goals' table lines (goals() by the module's rules)."""
    return table(["goal", "configuration", "measured", "verdict"], ["l", "l", "r", "l"], [list(x) for x in goals(rep)])


def summary_csv_rows(rep):
    return [[s["program"], s["cell"], s["shape"], s["threads"]] +
            [s[k].get(q, "") for k in ("train_words_s", "infer_words_s") for q in ("median", "min", "max")]
            for s in rep["summary"]]


SUMMARY_CSV_HEADER = ["program", "cell", "shape", "threads", "train_median", "train_min", "train_max",
                      "infer_median", "infer_min", "infer_max"]


def write(rep, out, peers_path="results/speed/peers.json"):
    progs = rep["programs"]
    peers = [p for p in progs if p != "twinrnn"]
    m = rep["machine"]
    cfg = rep["config"]
    lines = [f"# Speed in one sitting: ours beside {', '.join(NAMES.get(p, p) for p in peers) or 'no peer'}",
             "",
             f"Generated by `plots/peers_table.py` from `{peers_path}` (`build/bin/speed peers <experiment> "
             f"--rounds {rep['rounds']}`, the experiment echoed in its `config`); every run's config, report and "
             f"log are in `{peers_path[:-5] if peers_path.endswith('.json') else peers_path}.runs/`.",
             "",
             f"Machine: {m.get('cpu', '?')}, {m.get('cores', '?')} logical cores; our matrix products: "
             f"{m.get('gemm', '?')}; allocator: {m.get('allocator', '?')}; {m.get('date', '?')}.",
             f"Workload: word LM, vocabulary {cfg['vocab']}, batch {cfg['batch']}, BPTT {cfg['bptt']}, untied softmax; "
             f"training = forward + backward + clip 5 + SGD. A fresh process per run, {rep['rounds']} rounds per "
             "configuration, the programs' order reversed every other round. Words/s: median (min–max) over the "
             "rounds; ours / peer: the ratio paired by round, median (min–max). Peak RSS: each process's own "
             "(wait4), median."]
    for n in rep.get("notes", []):
        lines.append(f"Note: {n}.")
    lines += config_tables(rep)
    lines += ["", "## Issue 56's goals (rules in plots/peers_table.py)", ""] + goal_table(rep)
    write_text(out, "\n".join(lines) + "\n")
    write_csv(csv_path(out), SUMMARY_CSV_HEADER, summary_csv_rows(rep))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--peers", default="results/speed/peers.json")
    ap.add_argument("--out", default="results/speed_peers.md")
    a = ap.parse_args(argv)
    rep = load(a.peers)
    if rep is None:
        return 0
    write(rep, a.out, a.peers)
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
