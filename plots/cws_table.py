#!/usr/bin/env python3
"""results/runs/cws_*/ -> results/cws.md (+ results/cws.csv): the CWS table (the ATR paper's Table 7), built
only from committed run files (tools/collect_run.sh copies summary, config and metrics).

Per run: corpus and protocol, cell, objective, parameters, test P / R / F1, OOV rate, OOV and IV recall
(SIGHAN `score` definitions), training characters/s, epochs; the paper's MSRA numbers beside (standard
protocol, full training set), and ATR's F1 against the better of GRU and LSTM over their seeded runs, with the
paired test of seeds_table.compare (the one test of that pair every table quotes). An earlier run without a seed
suffix that its seeded rerun reproduced exactly (run_files.reproduced_by) is listed once, as the rerun. A run of
protocol (d) that is not one of the comparison's experiments (cws/pkupd_<cell>.json, jieba) is a diagnostic that
changes the recipe on purpose: it gets a section of its own, after PKU (d), with what its experiment changes.

usage: cws_table.py [--runs results/runs] [--out results/cws.md]   (numpy, installed with matplotlib)

A run folder that cannot be read is reported on stderr and left out (plots/run_files.py).
"""
import os

from run_files import (table_main, md_table, pct, pct_csv, cell_key, csv_note, csv_path, load_runs, number_or_none,
                       read_task_run, run_outcome, seed_group_lines, train_rate, write_sections, reproduced_by, seed_of)

import realscale
import seeds_table

SCRIPT = "cws_table.py"

# Quoted from the ATR paper (Zhang et al. 2018), Table 7: MSRA test P / R / F (standard protocol, full
# 86,924-sentence training set; first 90 % train, last 10 % dev).
PAPER_MSRA = {"lstm": (95.5, 94.9, 95.2), "gru": (95.2, 95.1, 95.1), "atr": (95.3, 95.1, 95.2)}

# Sections whose heading is not the corpus name in capitals.
HEADINGS = {"pkupd_diagnostic": "PKU (d): diagnostic runs beside the comparison (issue 52)"}
DIAGNOSTIC_NOTE = ("Runs of protocol (d) that change the recipe on purpose, to measure why a number is what it is; "
                   "they are in no mean, paired test or headline table (`cells.md`, `claims.md`, `seeds.md`, the "
                   "README). What each changes, from its experiment's `source`:")


def load_run(d):
    s, cfg, model, data, metrics, cmd = read_task_run(d)
    corpus = os.path.basename(str(data.get("dir", "")))
    # pku_pkupd is protocol (d) (issue 52), not the in-house pku_inhouse: a section of its own
    corpus = "pkupd" if corpus.endswith("_pkupd") else corpus.split("_")[0]
    # not the comparison's experiment of a cell (nor its peer): a diagnostic, listed apart from the recipe's runs
    spec, name = realscale.SECTIONS["pkupd"], os.path.basename(d)
    if corpus == "pkupd" and name != spec.peer and realscale.cell_of(spec, name) is None:
        corpus = "pkupd_diagnostic"
    t, dev = s["test"], s.get("dev", {})
    r = {"run": os.path.basename(d), "dir": d, "corpus": corpus, "protocol": str(data.get("protocol", "?")),
         "cell": model.get("cell", {}).get("type", "?"), "key": cell_key(model.get("cell", {})),
         "objective": model.get("objective", "hinge"), "params": s["params"], "test": t, "dev": dev,
         "f1": number_or_none(t.get("f1")), "cps": train_rate(d, s, metrics),
         **run_outcome(d, s, metrics, cmd), "steps": s.get("steps"),
         "seed": cfg.get("seed", cfg.get("run", {}).get("seed") if isinstance(cfg.get("run"), dict) else None),
         "source": (cfg.get("source") or [""])[0] if isinstance(cfg.get("source"), list) else cfg.get("source")}
    p = PAPER_MSRA.get(r["cell"]) if corpus == "msr" and r["objective"] == "hinge" else None
    r["md"] = (f"| {r['cell']} | {r['objective']} | {r['params']:,} | {pct(t.get('precision'))} | "
               f"{pct(t.get('recall'))} | {pct(t.get('f1'))} | {pct(t.get('oov_rate'))} | "
               f"{pct(t.get('oov_recall'))} | {pct(t.get('iv_recall'))} | {pct(dev.get('f1'))} | "
               f"{r['cps']:,.0f} | {r['epochs']} ({r['stop']}) | "
               f"{' / '.join(str(x) for x in p) if p else ''} | {r['protocol']} |")
    r["csv"] = [corpus, r["key"], r["objective"], r["params"], pct_csv(t.get("precision")), pct_csv(t.get("recall")),
                pct_csv(t.get("f1")), pct_csv(t.get("oov_rate")), pct_csv(t.get("oov_recall")),
                pct_csv(t.get("iv_recall")), pct_csv(dev.get("f1")), f"{r['cps']:.0f}", r["epochs"], r["stop"],
                *(p if p else ("", "", "")), r["protocol"], r["run"], r["cmd"]]
    return r


def load(runs_dir):
    """Every readable cws_* run folder of runs_dir (the others reported on stderr)."""
    return load_runs(runs_dir, "cws_", load_run, SCRIPT)


CSV_HEADER = ["corpus", "cell", "objective", "params", "test_precision", "test_recall", "test_f1", "test_oov_rate",
              "test_oov_recall", "test_iv_recall", "dev_f1", "train_chars_s", "epochs", "stop_reason",
              "paper_msra_precision", "paper_msra_recall", "paper_msra_f1", "protocol", "run", "command"]


def corpus_section(corpus, every):
    """The lines of one corpus's section of cws.md (its runs, ATR against the better of GRU and LSTM) and the rows
    it lists, for write_sections."""
    twins = reproduced_by(every)   # an earlier run its seeded rerun reproduced exactly: listed once
    rs = sorted((r for r in every if r["run"] not in twins), key=lambda r: -(r["f1"] or 0))
    # The seeded runs of a protocol of seeds.md, for the paired test (none for a corpus without one).
    tested = seeds_table.load_dirs(r["dir"] for r in rs if seed_of(r["run"]) is not None)
    tested = next(iter(tested.values()), {})
    lines = [f"## {HEADINGS.get(corpus, corpus.upper())}", ""]
    if corpus in HEADINGS:
        lines += [DIAGNOSTIC_NOTE, ""] + [f"- `{r['run']}`: {r['source'] or '(no source)'}" for r in rs] + [""]
    lines += md_table(
        "| cell | objective | params | P | R | F1 | OOV rate | OOV recall | IV recall | dev F1 | train chars/s "
        "| epochs | paper MSRA P / R / F | protocol |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|", [r["md"] for r in rs])
    if twins:
        lines += ["", "Listed once: " + ", ".join(f"`{a}`" for a in sorted(twins)) + " (earlier runs without a "
                  "seed suffix, which ran the default seed) gave the same test numbers after the same steps as "
                  "their reruns " + ", ".join(f"`{twins[a]}`" for a in sorted(twins)) + ", which stand for "
                  "them in these tables (their commands are below)."]
    groups = seed_group_lines(rs, "f1", what="test F1")
    if groups:
        lines += ["", "Per experiment over its seeds (run folders `<experiment>_s<seed>`" + (
            "; paired significance between cells: `seeds.md`" if tested else "") + "):", ""] + groups
    trained = [r for r in rs if r["cell"] != "jieba"]   # the peer row has no seed to have
    if trained and not any(seed_of(r["run"]) is not None for r in trained):
        lines += ["", "Every run here is one run without a seed suffix (from before `--seed`) and without kept "
                      "outputs: one draw per cell, which cannot be re-scored, so there is no mean over seeds and "
                      "no paired test, and none of these runs is in a headline table (`cells.md`, the README)."]
    # ATR against the better of GRU and LSTM (by mean), over their seeded runs that did not diverge (never an
    # unseeded or diverged run in a mean), with the pair's one paired test.
    by_cell = {}
    for r in rs:
        if r["objective"] == "hinge" and isinstance(r["f1"], (int, float)) and r["cell"] != "jieba":
            by_cell.setdefault(r["cell"], []).append(r)
    seeded = {c: [r for r in g if seed_of(r["run"]) is not None and not r["diverged"]] for c, g in by_cell.items()}
    mean = lambda g: sum(r["f1"] for r in g) / len(g)
    if seeded.get("atr") and (seeded.get("gru") or seeded.get("lstm")):
        best = max((c for c in ("gru", "lstm") if seeded.get(c)), key=lambda c: mean(seeded[c]))
        a, b = seeded["atr"], seeded[best]
        cmp = (seeds_table.compare("f1", tested["atr"], tested[best])
               if tested.get("atr") and tested.get(best) else None)
        head = (f"ATR − {best.upper()} test F1 ({best.upper()} the better of GRU and LSTM by mean; over {len(a)} "
                f"and {len(b)} seeds): ")
        if cmp:
            verdict = ("no significant difference" if not seeds_table.significant(cmp["boot"]["p"]) else
                       "ATR better" if cmp["boot"]["delta"] > 0 else "ATR worse")
            text = (head + seeds_table.fmt_cmp(cmp, 100, 2) + " (difference of the means, 95 % interval and p "
                    "of the paired bootstrap over test sentences and seeds, Welch's t over seeds; † where p < 0.05 "
                    f"as printed): {verdict}.")
        else:
            text = (head + f"{100 * (mean(a) - mean(b)):+.2f} points (difference of the means; no paired test: "
                    "a run of the pair keeps no per-sentence statistics).")
        lines += ["", text]
    elif by_cell.get("atr") and (by_cell.get("gru") or by_cell.get("lstm")):
        lines += ["", "ATR against GRU and LSTM: no seeded runs of the pair, so no mean over seeds and no "
                      "paired test (the F1 of each run is in the table above)."]
    return lines, rs


def write(rows, out):
    """results/cws.md and results/cws.csv from load()'s rows; returns the paths written."""
    csv_file = csv_path(out)
    lines = ["# Chinese word segmentation: character BiRNN-CRF (the ATR paper's Table 7)", "",
             "Test precision / recall / F1 (%), OOV rate and OOV / IV recall with the SIGHAN bakeoff `score` "
             "definitions, of the best-dev-F1 model; training characters/s of the run (the median of its logged "
             "training windows over every start and resume; 1 thread, other jobs on the machine). The protocol "
             "of every row is named in its own column: our corpora lack the SIGHAN-2005 "
             "training sets, so the rows use the in-house protocol (b) unless they say otherwise, and are not "
             "comparable to the paper's standard-protocol numbers beside them.",
             "Generated by `python3 plots/cws_table.py` from `results/runs/cws_*`. " + csv_note([csv_file], out), ""]
    return write_sections(out, lines, rows, SCRIPT, CSV_HEADER, "corpus", "msr",
                          realscale.sectioner(corpus_section, rows), realscale.groups_of("cws"))


def main():
    table_main(__doc__, "results/cws.md", load, write)


if __name__ == "__main__":
    main()
