#!/usr/bin/env python3
"""Issue 55's question, "does h_{t-1} in the gates matter?", as one table (a section of results/cells.md, through
cells_table.py, and results/hgates.md on its own).

Two pairs of cells that differ only in whether their gates read h_{t-1}, at equal parameter counts:
  - LRN (i = σ(k + h_{t-1}), f = σ(q − h_{t-1}), output identity) against minLSTM without the f/(f+i)
    normalisation and with the identity candidate: LRN with h_{t-1} taken out of its gates, the same W;
  - ATR (its gates read h_{t-1} U) against minGRU with the identity candidate at ATR's parameter count (the
    experiments named *_mingru_atr_params size its hidden layer so: 2·I·H' = I·H + H·H plus the biases).
Five tasks, each on the same recipe as the other cells: PTB small (lm_small_stable: lr 0.5, clip 1, chosen so that
no cell blows up as ATR and GRU did at lr 1, clip 5), SST-2, SICK (cond +em), CWS UD GSD and WNUT-17. Per task and
pair: each side's seeded runs (<run>_s<seed>; a diverged run is left out and named on stderr), mean ± sd (n), the
parameter count (summary.json), and the difference with − without with the paired bootstrap over test examples and
seeds and Welch's t: seeds_table.compare, the one test per pair every table quotes (so a † means what it means in
seeds.md: bootstrap p < 0.05 as printed).

usage: hgates_table.py [--runs results/runs] [--out results/hgates.md]   (numpy, installed with matplotlib)
"""
import os

from run_files import table_main
import seeds_table
import significance as sig

SCRIPT = "hgates_table.py"

# (key, title, run name of a cell, summary metric, stats kind, scale, digits)
TASKS = [
    ("ptb", "PTB test perplexity (small, lr 0.5, clip 1)", "lm_{}_small_stable", "ppl", "ppl", 1, 1),
    ("sst2", "SST-2 test accuracy (%)", "classify_sst2_{}", "accuracy", "accuracy", 100, 2),
    ("sick", "SICK test accuracy (%)", "snli_sick_cond_{}", "accuracy", "accuracy", 100, 2),
    ("gsd", "CWS UD GSD test F1 (%)", "cws_gsd_{}", "f1", "f1", 100, 2),
    ("ner", "WNUT-17 test entity F1 (%)", "ner_wnut17_{}", "f1", "f1", 100, 2),
]

# (title, the cell whose gates read h_{t-1}, the cell whose gates do not): an experiment's cell part, by task key
# ("*" for every task not named). SST-2's classify_sst2_lrn is already the identity-output LRN.
PAIRS = [
    ("LRN vs minLSTM (no normalisation, identity candidate)", {"*": "lrn_identity", "sst2": "lrn"},
     {"*": "minlstm_plain"}),
    ("ATR vs minGRU (identity candidate, ATR's parameters)", {"*": "atr"}, {"*": "mingru_atr_params"}),
]


def side(names, task):
    return names.get(task, names["*"])


def load(runs_dir):
    """{run name: [(seed, run dir, test metric, stats rows or None, params)]} of the seeded runs of every cell the
    pairs name (diverged runs left out, and said so on stderr)."""
    wanted = {}
    for key, _, template, metric, kind, *_ in TASKS:
        for _, with_h, without_h in PAIRS:
            for names in (with_h, without_h):
                wanted[template.format(side(names, key))] = (metric, kind)
    out = {}
    if not os.path.isdir(runs_dir):
        return out
    for name in sorted(os.listdir(runs_dir)):
        m = seeds_table.SEED_DIR.match(name)
        d = os.path.join(runs_dir, name)
        if not m or m.group("base") not in wanted or not os.path.isdir(d):
            continue
        metric, kind = wanted[m.group("base")]
        run = seeds_table.read_seeded_run(d, metric, kind, SCRIPT)
        if run is None or run.diverged:
            continue
        out.setdefault(m.group("base"), []).append((int(m.group("seed")), d, run.value, run.rows,
                                                    run.summary.get("params")))
    for runs in out.values():
        runs.sort(key=lambda r: r[0])
    return out


def summary_cell(cell, runs, scale, digits):
    """"cell: mean ± sd (n)" of one side, or "cell: no seeded run"."""
    if not runs:
        return f"`{cell}`: no seeded run"
    mean, sd = sig.mean_sd([r[2] * scale for r in runs])
    spread = f" ± {sd:.{digits}f}" if sd is not None else ""
    return f"`{cell}`: {mean:.{digits}f}{spread} ({len(runs)})"


def params_of(runs):
    counts = sorted({r[4] for r in runs if isinstance(r[4], int)})
    return "/".join(f"{c:,}" for c in counts) if counts else "–"


def build(data, base_dir, heading="#"):
    """(markdown lines, CSV rows) of the table over `data` (load())."""
    rel = lambda p: os.path.relpath(p, base_dir)
    lines = [f"{heading} Does h_{{t−1}} in the gates matter?", "",
             "Each pair differs only in whether the gates read h_{t−1}: LRN against minLSTM without normalisation "
             "and with the identity candidate (LRN with h_{t−1} taken out of its gates, the same parameters), and "
             "ATR against minGRU with the identity candidate at ATR's parameter count. Per side: the test metric "
             "over seeds, mean ± sd (n), and the parameter count; Δ = with h_{t−1} − without, with the 95 % interval "
             "and p of the paired bootstrap over test examples and seeds and Welch's t over the seeds "
             f"(`plots/seeds_table.py`'s one test per pair; † at bootstrap p < {seeds_table.ALPHA} as printed). "
             "For perplexity lower is better, so a negative Δ favours the gates that read h_{t−1}.", ""]
    rows_csv, runs_seen = [], []
    for title, with_h, without_h in PAIRS:
        lines += [f"{heading}# {title}", "", "| task | with h_{t−1} | without | params (with / without) | Δ |",
                  "|---|---|---|---|---|"]
        for key, task_title, template, _, kind, scale, digits in TASKS:
            a, b = side(with_h, key), side(without_h, key)
            ra, rb = data.get(template.format(a), []), data.get(template.format(b), [])
            runs_seen += [r[1] for r in ra + rb]
            cmp = seeds_table.compare(kind, ra, rb) if ra and rb else None
            delta = seeds_table.fmt_cmp(cmp, scale, digits) if cmp else (
                "– (no seeded runs committed yet)" if not ra and not rb else
                "– (a side has no run or no `stats/test.tsv`)")
            lines.append(f"| {task_title} | {summary_cell(a, ra, scale, digits)} | {summary_cell(b, rb, scale, digits)}"
                         f" | {params_of(ra)} / {params_of(rb)} | {delta} |")
            rows_csv.append([title, key, template.format(a), template.format(b), len(ra), len(rb)]
                            + seeds_table.cmp_csv(cmp, scale))
        lines.append("")
    if runs_seen:
        lines += ["Runs: " + ", ".join(f"[`{os.path.basename(d)}`]({rel(d)})" for d in sorted(set(runs_seen))), ""]
    return lines, rows_csv


CSV_HEADER = ["pair", "task", "run_with", "run_without", "n_with", "n_without", "delta", "lo95", "hi95",
              "p_bootstrap", "p_welch"]


def write(data, out):
    lines, rows = build(data, os.path.dirname(out) or ".")
    return seeds_table.write_generated(out, lines, SCRIPT, CSV_HEADER, rows, "rows")


def main():
    table_main(__doc__, "results/hgates.md", load, write)


if __name__ == "__main__":
    main()
