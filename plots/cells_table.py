#!/usr/bin/env python3
"""The cross-task comparison: one row per cell, one column per task's primary metric plus parameters and
training speed, the best per column in bold -> results/cells.md, cells.csv (ours; each number's run folder
in its own column) and cells_paper.csv (the papers' numbers for the same cells), and the block between the
`<!-- cells table begin ... -->` and `<!-- cells table end -->` markers of README.md, and where README.md has
them, the PTB TF-recipe lines between `<!-- lm recipe begin ... -->` and `<!-- lm recipe end -->`
(lm_table.readme_block); nothing else of the README.

usage: cells_table.py [--runs results/runs] [--speed results/speed] [--out results/cells.md]
                      [--readme README.md | --no-readme]   (numpy, installed with matplotlib: seeds_table.py)
"""
import argparse
import os

from run_files import (HEADLINE_MIN_SEEDS, cell_sort_key, csv_note, csv_path, headline_group, report, run_problems,
                       write_csv, write_text)
import cws_table
import hgates_table
import lm_table
import nmt_table
import rc_table
import realscale
import seeds_table
import snli_table
import speed_table

SCRIPT = "cells_table.py"
BEGIN, END = "<!-- cells table begin", "<!-- cells table end -->"
LM_BEGIN, LM_END = "<!-- lm recipe begin", "<!-- lm recipe end -->"

# (key, markdown header, CSV header, best = min or max, markdown format, CSV format)
COLUMNS = [
    ("ptb", "PTB test ppl", "ptb_small_test_ppl", min, "{:.1f}", "{:.1f}"),
    ("nmt", "Multi30k test2016 BLEU", "nmt_multi30k_test2016_bleu", max, "{:.2f}", "{:.2f}"),
    ("cws", "MSR (b) test F1", "cws_msr_b_test_f1", max, "{:.2f}", "{:.2f}"),
    # issue 52's real scale beside the reduced-scale columns (realscale.CELL_COLUMNS): PKU (d), SNLI with GloVe,
    # the documents' error rate (lower is better)
    ("pkupd", "PKU (d) test F1", "cws_pku_d_test_f1", max, "{:.2f}", "{:.2f}"),
    ("snli", "SNLI in-house test acc.", "snli_inhouse_cond_test_acc", max, "{:.2f}", "{:.2f}"),
    ("snli_glove", "SNLI in-house GloVe frozen test acc.", "snli_inhouse_cond_glove_frozen_test_acc", max, "{:.2f}",
     "{:.2f}"),
    ("sick", "SICK test acc. (+em)", "sick_cond_em_test_acc", max, "{:.2f}", "{:.2f}"),
    ("imdb", "IMDB test error", "imdb_test_error", min, "{:.2f}", "{:.2f}"),
    ("20ng", "20NG test error", "20ng_test_error", min, "{:.2f}", "{:.2f}"),
    ("rc", "SQuAD v1.1 dev F1", "rc_squad_dev_f1", max, "{:.2f}", "{:.2f}"),
    ("params", "params (PTB small LM)", "params_ptb_small_lm", min, "{:,}", "{}"),
    ("speed", "train words/s (small, 2 threads)", "speed_small_2threads_train_words_s", max, "{:,.0f}", "{:.0f}"),
]

# The papers' numbers for the same cells (quoted in the per-task scripts; ../shared/reference/paper_tables.md).
PAPER_LRN_SNLI = {"lstm": 84.27, "gru": 85.71, "atr_tanh": 84.88, "sru": 84.28, "lrn": 84.88}
PAPER_COLUMNS = [
    ("PTB test ppl, LRN paper (MoS, 3 layers)", "lrn_paper_ptb_test_ppl", lm_table.PAPER_LRN),
    ("WMT14 En-De BLEU (tok), ATR paper T2", "atr_paper_wmt14_bleu_tok",
     {c: nmt_table.numbers(v[0])[0] for c, v in nmt_table.PAPER.items() if c in ("gru", "lstm", "ran", "atr")}),
    ("MSRA F1, ATR paper T7", "atr_paper_msra_f1", {c: v[2] for c, v in cws_table.PAPER_MSRA.items()}),
    ("SNLI test acc., ATR paper T6", "atr_paper_snli_test_acc",
     {c: nmt_table.numbers(v)[0] for c, v in snli_table.PAPER.items()}),
    ("SNLI test acc., LRN paper", "lrn_paper_snli_test_acc", PAPER_LRN_SNLI),
    # the LRN repository's R-Net ATR is our atr_tanh_bias_both; here it joins the LRN paper's other ATR numbers
    ("SQuAD v1.1 dev F1, LRN paper", "lrn_paper_squad_dev_f1",
     {("atr_tanh" if c.startswith("atr_tanh") else c): v[1] for c, v in rc_table.PAPER.items()}),
    ("NMT params (M), ATR paper T4", "atr_paper_nmt_params_M",
     {c: nmt_table.numbers(v[1])[0] for c, v in nmt_table.PAPER.items() if c in ("gru", "lstm", "ran", "atr")}),
    ("NMT train words/s (GPU), ATR paper T4", "atr_paper_nmt_train_words_s",
     {c: v[2] for c, v in nmt_table.PAPER.items() if c in ("gru", "lstm", "ran", "atr")}),
]


def is_num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


# The columns whose numbers are draws of a training run (a mean over seeds); params and speed are not.
DRAWS = ("ptb", "nmt", "cws", "pkupd", "snli", "snli_glove", "sick", "imdb", "20ng", "rc")
# cells.csv's source columns, one per column of the table
SOURCES = DRAWS + ("params", "speed")
# Every table `make tables` writes (the README's list of them), in reading order.
TABLES = ("table1.md", "lm.md", "nmt.md", "dtmt.md", "cws.md", "ner.md", "snli.md", "rc.md", "classify.md", "speed.md", "speed_peers.md",
          "seeds.md",
          "claims.md", "tuned.md", "scale.md", "scale_plan.md")


def collect(lm, nmt, cws, snli, speed, rc=(), seeds=None):
    """({cell: {column: (value, source run dir or file, note)}}, {cell: {column: why left out}}). rc: rc_table.load's
    rows (the column reads rc_table.headline_rows of them: the squad_<cell> recipe, one section); seeds:
    seeds_table.load's data, for issue 52's real-scale columns (realscale.cells_candidates).

    A task column (DRAWS) shows the mean of the cell's headline group (run_files.headline_group: at least
    HEADLINE_MIN_SEEDS seeded runs that keep their outputs and did not diverge), else nothing, and the second
    dict says why. params (the PTB LM's, not a draw: every run of a cell has the same) from any of its runs, the
    PTB source when that is shown; train words/s from the speed task."""
    cand = {}

    def add(cell, col, value, r):
        if is_num(value):
            cand.setdefault(cell, {}).setdefault(col, []).append(
                {"value": value, "run": r["run"], "dir": r["dir"], "diverged": r.get("diverged")})

    for r in lm:
        if r["recipe"] == "small":
            add(r["key"], "ptb", r["test"], r)
            add(r["key"], "params", r["params"], r)
    for r in nmt:
        if r["plain"] and r["test_set"] == "test2016":
            add(r["key"], "nmt", r["bleu"], r)
    for r in cws:
        if r["corpus"] == "msr" and r["objective"] == "hinge" and r["protocol"].startswith("in-house protocol (b)"):
            add(r["key"], "cws", 100 * r["f1"] if is_num(r["f1"]) else None, r)
    for r in snli:
        # SNLI: the paper's model; SICK: its protocol's model, with the exact-match feature (snli.md says why).
        if r["kind"] == "cond" and (r["set"], r["exact_match"]) in (("inhouse", False), ("sick", True)):
            add(r["key"], "snli" if r["set"] == "inhouse" else "sick", 100 * r["test"] if is_num(r["test"]) else None,
                r)
    for r in rc_table.headline_rows(rc):
        add(r["key"], "rc", r["f1"], r)
    for cell, cols in realscale.cells_candidates(seeds or {}).items():
        for col, runs in cols.items():
            cand.setdefault(cell, {}).setdefault(col, []).extend(runs)
    best, left = {}, {}
    for cell, cols in cand.items():
        for col in DRAWS:
            if col not in cols:
                continue
            good, why = headline_group(cols[col])
            if why:
                left.setdefault(cell, {})[col] = why
                continue
            mean = sum(v["value"] for v in good) / len(good)
            best.setdefault(cell, {})[col] = (mean, sorted(v["dir"] for v in good)[0], f"mean of {len(good)} seeds")
        if "params" in cols:
            vals = cols["params"]
            pick = min(v["value"] for v in vals)
            src = best.get(cell, {}).get("ptb", (None, None))[1]
            # the PTB source when it is shown, else the run with the fewest problems (seeded, outputs kept)
            src = src if any(v["dir"] == src and v["value"] == pick for v in vals) else min(
                (len(run_problems(v)), v["dir"]) for v in vals if v["value"] == pick)[1]
            best.setdefault(cell, {})["params"] = (pick, src, "")
    if speed and speed.get("ours"):
        for cell, rec in speed_table.best_small_2_threads(speed["ours"]).items():
            if is_num(rec["train_words_s"]):
                best.setdefault(cell, {})["speed"] = (rec["train_words_s"], speed["ours_path"], "")
    return best, left


def rounded(col, value):
    spec = {c[0]: c[5] for c in COLUMNS}[col]
    return float(spec.format(value))


def build(table, out_file, base_dir, runs_dir, speed_path, readme=False, left=None):
    """The markdown lines, with links relative to base_dir (the folder of the file they go into); left: collect()'s
    {cell: {column: why}} of the cells and columns left out."""
    left = left or {}
    rel = lambda p: os.path.relpath(p, base_dir)
    out_dir = os.path.dirname(out_file) or "."
    tables = lambda name: rel(os.path.join(out_dir, name))
    cells = sorted(table, key=cell_sort_key)
    bold = {}
    for key, _, _, pick, _, _ in COLUMNS:
        vals = [rounded(key, table[c][key][0]) for c in cells if key in table[c]]
        if len(vals) >= 2:
            bold[key] = pick(vals)
    lines = [] if readme else ["# Cells across tasks", ""]
    lines += [
        "One row per cell (its type, plus any non-default variant: `atr_tanh` is ATR with h = tanh(i⊙p + f⊙h_prev)), "
        "one column per task's primary metric on its test set, from the committed run folders alone "
        f"(`make tables`). A task's number is the mean over at least {HEADLINE_MIN_SEEDS} seeded runs of the cell "
        "(`<experiment>_s<seed>`) that keep their outputs (so `make rescore` can re-score them) and did not "
        "diverge; a cell whose runs fall short (one unseeded run, too few seeds, outputs not kept, a diverged run) "
        "shows – there and is listed under *Left out* below with the reason, and every run is in the task's own "
        "table. Parameters (not a draw) and words/s (the speed task) need no seeds. The best of each column (when "
        "two or more cells have a number) is in **bold**: the lowest perplexity and parameter count, the highest "
        "BLEU, F1, accuracy and words/s; bold marks the best mean, not a significant difference (see the seed "
        "tables below). All of it is at a reduced scale (one 2-core CPU): the papers' numbers for these cells "
        "follow in the second table, not comparable in level.", "",
        f"- **PTB**: Mikolov's PTB word LM (929k training tokens, 10k vocabulary), Zaremba et al.'s small recipe "
        f"(2 x 200, no dropout, 13 epochs), test perplexity of the best-validation model ([lm.md]({tables('lm.md')})).",
        f"- **NMT**: RNNSearch on Multi30k En→De (29k pairs), test2016 BLEU, tokenised and lowercased, beam 10 "
        f"([nmt.md]({tables('nmt.md')})).",
        f"- **CWS**: BiRNN-CRF (max-margin) on SIGHAN-2005 MSR, in-house protocol (b): the MSR gold test file split "
        f"80/10/10 by line order; test F1 (%) ([cws.md]({tables('cws.md')})).",
        f"- **SNLI**: the ATR authors' model (`kind: cond`: an attention decoder reads the hypothesis over the "
        f"BiRNN-encoded premise), in-house protocol (1 % of SNLI 1.0 train, full dev and test), "
        f"test accuracy (%); **SICK**: the same model on SICK (SemEval-2014 task 1) with the exact-match feature "
        f"and lowercased words (`+em`: trained on SICK's 4,439 pairs alone the plain model barely beats the "
        f"majority class), test accuracy (%) "
        f"([snli.md]({tables('snli.md')})).",
        f"- **SQuAD**: R-Net (the LRN paper's reading-comprehension task) trained on the SQuAD v1.0 training set "
        f"rebuilt from the explorer pages, at the reduced scale its table states; the best-heldout-F1 model's "
        f"SQuAD v1.1 dev F1 (%) ([rc.md]({tables('rc.md')}): the recipe and its reductions, EM, the paired tests).",
        f"- **Real scale (issue 52)**, beside the reduced-scale columns: **PKU (d)** People's Daily 1998-01 "
        f"train, the SIGHAN-2005 PKU gold test, test F1 (%) ([cws.md]({tables('cws.md')})); **SNLI in-house "
        f"GloVe** the SNLI model above with GloVe 6B 100d frozen, as the ATR authors ([snli.md]({tables('snli.md')}))"
        f"; **IMDB** and **20NG** (20 Newsgroups) documents, GloVe 6B 100d fine-tuned, test error rate (%) = 100 − "
        f"accuracy, as the LRN paper reports its document sets ([classify.md]({tables('classify.md')})). Empty "
        f"until their runs are committed.",
        "- **params**: the whole PTB small-recipe LM (2 x 200, untied softmax), from the PTB run.",
        f"- **train words/s**: the speed task (`build/bin/speed experiments/speed/lm.json`: the same small LM on "
        f"random ids, batch 20, BPTT 35), 2 threads ([speed.md]({tables('speed.md')}), "
        f"[`{os.path.basename(speed_path)}`]({rel(speed_path)})).",
        "- Setups without a column here (NMT with the CA encoder or deep, ensembles and checkpoint averages; CWS "
        "PKU and UD GSD; NER; SST) are in their tasks' tables only.", "",
        "| cell | " + " | ".join(c[1] for c in COLUMNS) + " |",
        "|---|" + "---:|" * len(COLUMNS)]
    for c in cells:
        cols = []
        for key, _, _, _, spec, _ in COLUMNS:
            if key not in table[c]:
                cols.append("–")
                continue
            text = spec.format(table[c][key][0])
            cols.append(f"**{text}**" if key in bold and rounded(key, table[c][key][0]) == bold[key] else text)
        lines.append(f"| {c} | " + " | ".join(cols) + " |")
    if not cells:
        lines.append("| (no run committed yet) | " + " | ".join("–" for _ in COLUMNS) + " |")
    lines += ["", "Sources (run folders; each holds the command, resolved config, metrics and summary):", ""]
    names = {"ptb": "PTB", "nmt": "NMT", "cws": "CWS", "snli": "SNLI", "sick": "SICK", "rc": "SQuAD",
             "params": "params", "pkupd": "PKU (d)", "snli_glove": "SNLI GloVe", "imdb": "IMDB", "20ng": "20NG"}
    for c in cells:
        parts = []
        for key in ("ptb", "params") + DRAWS[1:]:
            if key not in table[c]:
                continue
            _, src, note = table[c][key]
            if key == "params" and "ptb" in table[c] and table[c]["ptb"][1] == src:
                continue   # said with the PTB source
            name = "PTB and params" if key == "ptb" and table[c].get("params", (0, None))[1] == src else names[key]
            parts.append(f"{name} [`{os.path.basename(src)}`]({rel(src)})" + (f", {note}" if note else ""))
        if parts:
            lines.append(f"- `{c}`: " + "; ".join(parts))
    left_cells = sorted(left, key=cell_sort_key)
    if left_cells:
        lines += ["", f"Left out of the table above (the table shows a mean only over at least {HEADLINE_MIN_SEEDS} "
                      "seeded runs that keep their outputs and did not diverge; \"no seed\": a run from before "
                      "`--seed`, named without `_s<seed>`; each run is in its task's table):", ""]
        for c in left_cells:
            lines.append(f"- `{c}`: " + "; ".join(f"{names[k]}: {left[c][k]}" for k in DRAWS if k in left[c]))
    paper_cells = sorted({c for c in cells} | {c for _, _, d in PAPER_COLUMNS for c in d}, key=cell_sort_key)
    lines += ["", "The papers' numbers for the same cells (their setups, at full scale: WMT14 En-De 4.5M pairs, "
                  "MSRA standard protocol, full SNLI, SQuAD v1.1 train; the LRN paper's PTB is the MoS setup and its "
                  "ATR is the tanh-output variant, with both biases in its R-Net):", "",
              "| cell | " + " | ".join(p[0] for p in PAPER_COLUMNS) + " |", "|---|" + "---:|" * len(PAPER_COLUMNS)]
    for c in paper_cells:
        lines.append(f"| {c} | " + " | ".join(f"{d[c]:g}" if c in d else "–" for _, _, d in PAPER_COLUMNS) + " |")
    lines += ["", "Every table `make tables` writes (the task tables with the papers' numbers beside ours and the "
                  "command of every run; seeds.md with the paired tests): "
                  + ", ".join(f"[{n}]({tables(n)})" for n in TABLES)
                  + (f", and this one as [cells.md]({tables('cells.md')}), with CSVs beside them." if readme else ".")]
    if not readme:
        lines += ["", "Generated by `make tables` (`plots/make_tables.py`). "
                      + csv_note([csv_path(out_file), csv_path(out_file, "_paper")], out_file)]
    return lines, cells, paper_cells


def write(lm, nmt, cws, snli, speed, runs_dir, out, readme=None, seeds=None, rc=()):
    """results/cells.md, cells.csv, cells_paper.csv and (readme given) the README block; the paths written. rc:
    rc_table.load's rows.
    seeds (seeds_table.load): the comparisons over seeds with their significance, as a second part; then
    hgates_table's "does h_{t-1} in the gates matter?" over the runs in runs_dir."""
    table, left = collect(lm, nmt, cws, snli, speed, rc, seeds)
    speed_path = speed["ours_path"] if speed else "results/speed/lm.json"
    lines, cells, paper_cells = build(table, out, os.path.dirname(out) or ".", runs_dir, speed_path, left=left)
    lines += [""] + seeds_table.build(seeds or {}, os.path.dirname(out) or ".", heading="##")[0]
    # Issue 55's pairs: the same cells with and without h_{t-1} in their gates.
    lines += hgates_table.build(hgates_table.load(runs_dir), os.path.dirname(out) or ".", heading="##")[0]
    write_text(out, "\n".join(lines) + "\n")
    rows = []
    for c in cells:
        row = [c]
        for key, _, _, _, _, spec in COLUMNS:
            row.append(spec.format(table[c][key][0]) if key in table[c] else "")
        for key in SOURCES:
            row.append(table[c][key][1] if key in table[c] else "")
        rows.append(row)
    written = [out,
               write_csv(csv_path(out), ["cell"] + [c[2] for c in COLUMNS]
                         + [f"{k}_source" for k in SOURCES],
                         rows),
               write_csv(csv_path(out, "_paper"), ["cell"] + [p[1] for p in PAPER_COLUMNS],
                         [[c] + [f"{d[c]:g}" if c in d else "" for _, _, d in PAPER_COLUMNS] for c in paper_cells])]
    if readme:
        if update_readme(readme, build(table, out, os.path.dirname(readme) or ".", runs_dir, speed_path,
                                       readme=True, left=left)[0]):
            written.append(readme)
        # The PTB TF-recipe lines, when the README has their markers (a README without them is left alone).
        if update_readme(readme, lm_table.readme_block(lm), LM_BEGIN, LM_END, optional=True) and readme not in written:
            written.append(readme)
    print(f"{SCRIPT}: wrote {', '.join(written)} ({len(cells)} cells)")
    return written


def update_readme(path, block, begin_marker=BEGIN, end_marker=END, optional=False):
    """Replaces the lines between README's markers (the cells table's unless named) with `block`; False
    (reported) if it cannot. optional: a README with neither marker is left alone, silently (False)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        report(SCRIPT, path, f"cannot read ({e})", "not updated")
        return False
    lines = text.split("\n")
    begin = [i for i, l in enumerate(lines) if l.startswith(begin_marker)]
    end = [i for i, l in enumerate(lines) if l.strip() == end_marker]
    if optional and not begin and not end:
        return False
    if len(begin) != 1 or len(end) != 1 or end[0] < begin[0]:
        report(SCRIPT, path, f"needs exactly one `{begin_marker} ... -->` line followed by one `{end_marker}` line",
               "not updated")
        return False
    new = "\n".join(lines[:begin[0] + 1] + block + lines[end[0]:])
    if new != text:
        write_text(path, new)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", default="results/runs")
    ap.add_argument("--speed", default="results/speed")
    ap.add_argument("--out", default="results/cells.md")
    ap.add_argument("--readme", default="README.md")
    ap.add_argument("--no-readme", action="store_true")
    a = ap.parse_args()
    for opt, d in (("--runs", a.runs), ("--speed", a.speed)):
        if not os.path.isdir(d):
            ap.error(f"{opt} {d}: no such directory")
    write(lm_table.load(a.runs), nmt_table.load(a.runs), cws_table.load(a.runs), snli_table.load(a.runs),
          speed_table.load_dir(a.speed, SCRIPT), a.runs, a.out, None if a.no_readme else a.readme,
          seeds_table.load(a.runs), rc_table.load(a.runs))


if __name__ == "__main__":
    main()
