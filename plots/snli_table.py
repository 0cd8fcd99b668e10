#!/usr/bin/env python3
"""results/runs/snli_*/ -> results/snli.md (+ results/snli.csv): the NLI table (the ATR paper's Table 6), built
only from committed run files (tools/collect_run.sh copies summary, config and metrics).

Per run: protocol, model kind (with "+em" / "+lc" for the exact-match feature / lowercasing), cell,
parameters with and without embeddings, train / dev / test accuracy of the best-dev model, training pairs/s;
the paper's Table 6 beside; the majority-class accuracy of each test set (from the run's own confusion
matrix) and the parameter ratio ATR / GRU that issue 7 asks about. With no run
committed yet the table is still written, with one row saying so (as every task table does).

usage: snli_table.py [--runs results/runs] [--out results/snli.md]   (stdlib only)

A run folder that cannot be read is reported on stderr and left out (plots/run_files.py).
"""
import os

import embeddings
import realscale
from run_files import (table_main, md_table, pct, pct_csv, cell_key, csv_note, csv_path, load_runs, number_or_none,
                       read_task_run, run_outcome, write_sections, seed_group_lines, train_rate)

SCRIPT = "snli_table.py"

# Quoted from the ATR paper (Zhang et al. 2018), Table 6: SNLI test accuracy, d = 300 (full SNLI train).
PAPER = {"gru": "84.6 (3.2m)", "atr": "85.6 (1.5m)"}


def load_run(d):
    s, cfg, model, data, metrics, cmd = read_task_run(d)
    conf = s.get("test", {}).get("confusion_gold_by_predicted", [])
    total = sum(sum(r) for r in conf)
    majority = max(sum(r) for r in conf) / total if total else None
    # The model column names the inputs beyond the paper's (word embeddings of the text as prepared):
    # "+em" the exact-match feature (model.exact_match), "+lc" lowercased words (data.lowercase).
    kind, em, lc = str(model.get("kind", "cond")), bool(model.get("exact_match")), bool(data.get("lowercase"))
    r = {"run": os.path.basename(d), "dir": d, "protocol": str(data.get("protocol", "?")),
         # GloVe runs (issue 52) are a set of their own, e.g. inhouse_glove_frozen: never pooled with random ones
         "set": embeddings.group(os.path.basename(str(data.get("dir", ""))), cfg), "kind": kind, "exact_match": em,
         "model": kind + (" +em" if em else "") + (" +lc" if lc else ""),
         "cell": model.get("cell", {}).get("type", "?"), "key": cell_key(model.get("cell", {})),
         "params": s["params"], "params_ne": s["params_without_embeddings"], "train": s.get("train_accuracy"),
         "dev": s.get("dev", {}).get("accuracy"), "test": number_or_none(s["test"]["accuracy"]),
         "pps": train_rate(d, s, metrics), "majority": majority,
         **run_outcome(d, s, metrics, cmd)}
    # The paper's numbers are SNLI's (cond model): none beside SICK rows.
    paper = PAPER.get(r["cell"], "") if r["model"] == "cond" and not r["set"].startswith("sick") else ""
    r["md"] = (f"| {r['model']} | {r['cell']} | {r['params']:,} | {r['params_ne']:,} | {pct(r['train'])} | "
               f"{pct(r['dev'])} | {pct(r['test'])} | {pct(r['majority'])} | {r['pps']:,.0f} | "
               f"{r['epochs']} ({r['stop']}) | {paper} | {r['protocol']} |")
    r["csv"] = [r["set"], r["model"], r["key"], r["params"], r["params_ne"], pct_csv(r["train"]), pct_csv(r["dev"]),
                pct_csv(r["test"]), pct_csv(r["majority"]), f"{r['pps']:.0f}", r["epochs"], r["stop"],
                paper.split(" ")[0] if paper else "", paper.split("(")[1].rstrip("m)") if paper else "",
                r["protocol"], r["run"], r["cmd"]]
    return r


def load(runs_dir):
    """Every readable snli_* run folder of runs_dir (the others reported on stderr)."""
    return load_runs(runs_dir, "snli_", load_run, SCRIPT)


CSV_HEADER = ["set", "model", "cell", "params", "params_without_embeddings", "train_accuracy", "dev_accuracy",
              "test_accuracy", "test_majority_class", "train_pairs_s", "epochs", "stop_reason",
              "paper_test_accuracy", "paper_params_M", "protocol", "run", "command"]


def set_section(st, set_rows):
    """The lines of one set's section of snli.md (its runs, the ATR / GRU parameter ratio per model kind) and the
    rows it lists, for write_sections."""
    rs = sorted(set_rows, key=lambda r: (r["model"], -(r["test"] or 0)))
    lines = [f"## {st}", ""] + md_table(
        "| model | cell | params | params w/o embeddings | train | dev | test | majority class (test) "
        "| train pairs/s | epochs | paper test (params) | protocol |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|", [r["md"] for r in rs])
    groups = seed_group_lines(rs, "test", what="test accuracy")
    if groups:
        lines += ["", "Per experiment over its seeds (run folders `<experiment>_s<seed>`; paired significance "
                      "between cells: `seeds.md`):", ""] + groups
    for kind in sorted({r["model"] for r in rs}):
        p = {r["cell"]: r["params_ne"] for r in rs if r["model"] == kind}
        if "atr" in p and "gru" in p and p["gru"]:
            lines += ["", f"{kind}: ATR / GRU parameters without embeddings = {p['atr']:,} / {p['gru']:,} = "
                          f"{p['atr'] / p['gru']:.2f} (the paper: 1.5m / 3.2m = 0.47)."]
    return lines, rs


def write(rows, out):
    """results/snli.md and results/snli.csv from load()'s rows; returns the paths written."""
    csv_file = csv_path(out)
    lines = ["# Natural language inference (the ATR paper's Table 6)", "",
             "Accuracy (%) of the best-dev-accuracy model on train / dev / test; parameters with and without the "
             "word embeddings (the paper counts without); training pairs/s of the run (the median of its logged "
             "training windows over every start and resume; 1 thread, other jobs on the machine). Our corpora lack "
             "the full SNLI training set: `inhouse` rows train on its 1 % sample (5,498 "
             "pairs) and are not comparable with the paper's full-data numbers beside them; the protocol of every "
             "row is in its own column. Embeddings start random (no GloVe file ships here). SICK rows marked "
             "`+em +lc` give every word the exact-match feature (1 when the word occurs in the other sentence; "
             "`model.exact_match`) and lowercase the text (`data.lowercase`): trained from scratch on SICK's 4,439 "
             "pairs the paper's models barely beat the majority class (the unmarked SICK rows, kept as the "
             "ablation), with the feature they learn the word overlap SICK's labels largely follow.",
             "Generated by `python3 plots/snli_table.py` from `results/runs/snli_*`. " + csv_note([csv_file], out), ""]
    return write_sections(out, lines, rows, SCRIPT, CSV_HEADER, "set", "inhouse",
                          realscale.sectioner(set_section, rows), realscale.groups_of("snli"))


def main():
    table_main(__doc__, "results/snli.md", load, write)


if __name__ == "__main__":
    main()
