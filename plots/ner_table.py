#!/usr/bin/env python3
"""results/runs/ner_*/ -> results/ner.md (+ results/ner.csv): named-entity recognition, built only from committed
run files (tools/collect_run.sh copies summary, config, metrics and the kept predictions).

Per run: corpus and protocol, cell, parameters, test entity precision / recall / F1 and dev F1 (conlleval's
definitions, core/eval/spans.h), test F1 per entity type, training words/s, epochs; per cell, the mean ± sd
over its seeds. The LRN paper's CoNLL-2003 numbers are quoted beside ours: another corpus (newswire, 4 types,
15k training sentences, pretrained embeddings), so only the cells' order can be compared, not the level.

usage: ner_table.py [--runs results/runs] [--out results/ner.md]   (stdlib only)

A run folder that cannot be read is reported on stderr and left out (plots/run_files.py).
"""
import os
import statistics

import embeddings
import realscale
from run_files import (table_main, pct, pct_csv, cell_key, csv_note, csv_path, load_runs, number_or_none,
                       read_task_run, run_label, run_outcome, train_rate, write_sections, seed_of)

SCRIPT = "ner_table.py"

# Quoted from the LRN paper (Zhang & Sennrich 2019), Table 6 via ../shared/reference/paper_tables.md:
# CoNLL-2003 English NER test F1 (Lample et al.'s BiRNN-CRF with each cell).
PAPER_CONLL = {"lstm": 89.61, "gru": 89.35, "atr": 88.46, "sru": 88.89, "lrn": 88.56}


def load_run(d):
    s, cfg, model, data, metrics, cmd = read_task_run(d)
    t, dev = s["test"], s.get("dev", {})
    types = t.get("per_type", {}) if isinstance(t.get("per_type"), dict) else {}
    # GloVe runs (issue 52) are a corpus section of their own (wnut17_glove_<mode>): never in a random-embedding mean
    corpus = embeddings.group(os.path.basename(str(data.get("dir", "?"))), cfg)
    r = {"run": os.path.basename(d), "dir": d, "corpus": corpus,
         "protocol": str(data.get("protocol", "?")), "key": cell_key(model.get("cell", {})),
         "params": s["params"], "f1": number_or_none(t.get("f1")), "dev_f1": number_or_none(dev.get("f1")),
         "wps": train_rate(d, s, metrics) or 0, "types": {k: number_or_none(v.get("f1")) for k, v in types.items()},
         **run_outcome(d, s, metrics, cmd)}
    r["md"] = (f"| {r['key']} | {r['params']:,} | {pct(t.get('precision'))} | {pct(t.get('recall'))} | "
               f"{pct(t.get('f1'))} | {pct(dev.get('f1'))} | "
               + " / ".join(pct(r["types"][k]) for k in sorted(r["types"]))
               + f" | {r['wps']:,.0f} | {r['epochs']} ({r['stop']}) | {run_label(d)} |")
    r["csv"] = [r["corpus"], r["key"], r["params"], pct_csv(t.get("precision")), pct_csv(t.get("recall")),
                pct_csv(t.get("f1")), pct_csv(dev.get("f1")), f"{r['wps']:.0f}", r["epochs"], r["stop"],
                PAPER_CONLL.get(r["key"], ""), r["protocol"], r["run"], r["cmd"]]
    return r


def load(runs_dir):
    """Every readable ner_* run folder of runs_dir (the others reported on stderr)."""
    return load_runs(runs_dir, "ner_", load_run, SCRIPT)


CSV_HEADER = ["corpus", "cell", "params", "test_precision", "test_recall", "test_f1", "dev_f1", "train_words_s",
              "epochs", "stop_reason", "paper_lrn_conll2003_f1", "protocol", "run", "command"]


def cell_summary(rs):
    """| cell | n | test F1 mean ± sd | min–max | dev F1 mean | LRN paper (CoNLL-2003) | rows, best mean first, over
    each cell's seeded runs that did not diverge (never an unseeded or diverged run in a mean; left_out() names
    those)."""
    by = {}
    for r in rs:
        if r["f1"] is not None and seed_of(r["run"]) is not None and not r.get("diverged"):
            by.setdefault(r["key"], []).append(r)
    out = []
    for key, group in sorted(by.items(), key=lambda kv: -statistics.mean(100 * r["f1"] for r in kv[1])):
        f = [100 * r["f1"] for r in group]
        d = [100 * r["dev_f1"] for r in group if r["dev_f1"] is not None]
        sd = f"{statistics.stdev(f):.2f}" if len(f) > 1 else "– (1 seed)"
        out.append(f"| {key} | {len(f)} | {statistics.mean(f):.2f} ± {sd} | {min(f):.2f}–{max(f):.2f} | "
                   f"{statistics.mean(d):.2f} | {PAPER_CONLL.get(key, '')} |" if d else
                   f"| {key} | {len(f)} | {statistics.mean(f):.2f} ± {sd} | {min(f):.2f}–{max(f):.2f} | | "
                   f"{PAPER_CONLL.get(key, '')} |")
    return out


def left_out(rs):
    """The runs cell_summary leaves out of the means (no seed suffix, or diverged), as one line, or []."""
    out = [f"`{r['run']}` ({'diverged' if r.get('diverged') else 'no seed suffix'})" for r in
           sorted(rs, key=lambda r: r["run"]) if r["f1"] is not None and (seed_of(r["run"]) is None or r.get("diverged"))]
    return ["", "Not in these means (each is in the per-run table below): " + ", ".join(out) + "."] if out else []


def corpus_section(corpus, corpus_rows):
    """The lines of one corpus's section of ner.md (per cell over its seeds, then per run) and the rows it lists,
    for write_sections."""
    rs = sorted(corpus_rows, key=lambda r: (r["key"], r["run"]))
    types = sorted({k for r in rs for k in r["types"]})
    lines = [f"## {corpus}", "", f"Protocol: {rs[0]['protocol'] if rs else '(no run yet)'}", "",
             "Per cell, over its seeds:", "",
             "| cell | seeds | test F1 mean ± sd | min–max | dev F1 mean | LRN paper CoNLL-2003 F1 |",
             "|---|---:|---:|---:|---:|---:|"]
    lines += (cell_summary(rs) or ["| (no finished run committed yet) | | | | | |"]) + left_out(rs)
    lines += ["", "Per run:", "",
              "| cell | params | P | R | F1 | dev F1 | test F1 per type (" + " / ".join(types) + ") | "
              "train words/s | epochs | run |",
              "|---|---:|---:|---:|---:|---:|---|---:|---|---|"]
    lines += [r["md"] for r in rs] or ["| (no finished run committed yet) | | | | | | | | | |"]
    return lines, rs


def write(rows, out):
    """results/ner.md and results/ner.csv from load()'s rows; returns the paths written."""
    csv_file = csv_path(out)
    lines = ["# Named-entity recognition: BiRNN-CRF with a character BiRNN (Lample et al. 2016; the LRN paper's "
             "NER task)", "",
             "Entity-level precision / recall / F1 (%) as conlleval counts them (an entity is right when its type "
             "and both boundaries match), of the best-dev-F1 model; every run keeps its predictions in conlleval's "
             "input format (`predictions/`, `make rescore` re-scores them). The LRN paper's column is CoNLL-2003 "
             "(Reuters newswire, 4 types, about 15k training sentences, pretrained embeddings), which is not "
             "redistributable; ours is WNUT-17 (social media, 6 rare and emerging types, 3,394 training "
             "sentences, random embeddings), where F1 is far lower for every system: compare the cells' order, "
             "not the level. Per-cell significance: `seeds.md`. Training words/s: the median of the run's logged "
             "training windows over every start and resume (1 thread, other jobs on the machine).",
             "Generated by `python3 plots/ner_table.py` from `results/runs/ner_*`. " + csv_note([csv_file], out), ""]
    return write_sections(out, lines, rows, SCRIPT, CSV_HEADER, "corpus", "wnut17",
                          realscale.sectioner(corpus_section, rows), realscale.groups_of("ner"))


def main():
    table_main(__doc__, "results/ner.md", load, write)


if __name__ == "__main__":
    main()
