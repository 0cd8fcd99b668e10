#!/usr/bin/env python3
"""results/runs/rc_*/ -> results/rc.md (+ results/rc.csv): reading comprehension, R-Net on SQuAD (the LRN paper's
sixth task, issue 53), built only from committed run files (tools/collect_run.sh copies summary, config, metrics,
the kept predictions, and writes stats/).

Per cell (model.cell's type and every non-default variant, run_files.cell_key): SQuAD v1.1 dev exact match and F1
(the run's summary "test": evaluate-v1.1.py's algorithm over every question of the file) of the best-heldout-F1
model, as mean ± sd over the cell's seeded runs (never an unseeded or diverged run in a mean), trainable parameters,
training questions/s, steps trained and the best step; the LRN paper's numbers beside. Under each table the
protocol and every reduction from the R-Net recipe, read from the runs' resolved configs and summaries. Then the
paired bootstrap over the dev questions (and seeds) between every two cells: seeds_table.compare, the one test per
pair every table quotes, with its rule for calling a difference (significant(): p < 0.05 as printed).

Per-question EM and F1 (a question's best over its gold answers, the official normalisation): the run's
stats/test.tsv (plots/rescore.py --write-stats, from predictions/<dev>.json against the prepared dev answers; `make
rescore` checks it), or, where a run lacks it, recomputed here the same way (rescore.squad_rows) from the kept
predictions and <root>/data/squad/<dev>.jsonl. Without either (a fresh clone, data not prepared) the table is still
written from the summaries, and the comparison says why it is missing.

usage: rc_table.py [--runs results/runs] [--out results/rc.md] [--root .]
       (standard library, and numpy through significance.py for the bootstrap, as seeds_table.py)

A run folder that cannot be read is reported on stderr (its path and what is wrong) and left out (run_files.py).
"""
import argparse
import itertools
import json
import os
import re
import statistics

import numpy as np

from run_files import (RunError, cell_key, cell_sort_key, csv_note, csv_path, load_runs, md_table, num, number_or_none,
                       read_task_run, run_label, run_outcome, seed_of, train_rate, write_table)
import rescore
import seeds_table
import significance

SCRIPT = "rc_table.py"

# The LRN paper's SQuAD numbers (Zhang & Sennrich 2019: R-Net with each cell, SQuAD v1.1 dev EM / F1 by
# evaluate-v1.1.py, "#Params"), as the LRN repository's rc/README.md tables them ("Base" column); they are not in
# ../shared/reference/paper_tables.md. Keyed by the cell_key of the cell that repository runs: its ATR is
# rc/rnet/code/rnns/atr.py, h = tanh(i*p + f*h_prev) with both biases (experiments/rc/squad_atr.json), its LRN
# the tanh output (the suite's default).
PAPER = {"lstm": (70.46, 78.98, "2.67M"), "gru": (70.41, 79.15, "2.31M"), "atr_tanh_bias_both": (69.73, 78.70, "1.59M"),
         "sru": (69.27, 78.41, "2.44M"), "lrn": (70.11, 78.83, "2.14M")}
PAPER_SOURCE = ("the LRN paper (Zhang & Sennrich 2019), its SQuAD table as the LRN repository's `rc/README.md` "
                "lists it (\"Base\": SQuAD v1.1 dev, evaluate-v1.1.py)")

# R-Net as the LRN repository runs it (rc/rnet/code/config.py's defaults): (resolved config key, its value, what).
# A run whose config differs is said to, under its table, as a reduction (or a change) of that recipe.
RNET = [("train.max_steps", 60000, "steps"), ("data.batch_size", 64, "questions a batch"),
        ("model.cell.hidden", 75, "hidden"), ("model.char_dim", 8, "character embedding"),
        ("model.char_hidden", 100, "character GRU"), ("model.layers", 3, "encoder layers"),
        ("data.passage_limit", 400, "training passage limit"), ("data.question_limit", 50, "training question limit"),
        ("data.test_passage_limit", 1000, "evaluation passage limit"),
        ("data.test_question_limit", 100, "evaluation question limit"), ("data.char_limit", 16, "characters a word"),
        ("model.dropout", 0.3, "dropout (1 - keep_prob)"), ("model.ptr_dropout", 0.3, "pointer dropout"),
        ("train.optim.name", "adadelta", "optimiser"), ("train.optim.lr", 0.5, "learning rate"),
        ("train.optim.clip_norm", 5.0, "global-norm clipping"), ("train.eval_every", 1000, "steps between evaluations")]
# Keys that keep runs apart (a section each) besides RNET's: what was read, selected on and scored.
SECTION_KEYS = ["data.protocol", "data.embeddings", "model.word_dim", "data.heldout", "data.dev",
                "data.max_train_questions", "data.max_eval_questions"] + [k for k, _, _ in RNET]


def get(cfg, dotted):
    """The value at a dotted key of the resolved config, None where it is absent."""
    for part in dotted.split("."):
        cfg = cfg.get(part) if isinstance(cfg, dict) else None
    return cfg


def best_step(metrics):
    """The step of the last heldout evaluation that was the best so far (the model.best.bin the scores are of)."""
    steps = [r.get("step") for r in metrics if r.get("split") == "dev" and r.get("best") is True]
    return steps[-1] if steps else None


def question_rows(d, cfg, summary, root):
    """(the run's per-question [exact_match, f1, questions] rows on dev as a numpy array, None) or (None, why)."""
    path = os.path.join(d, "stats", "test.tsv")
    if os.path.isfile(path):
        try:
            return seeds_table.read_stats(path, "squad"), None
        except RunError as e:
            return None, f"`{os.path.relpath(e.path, os.path.dirname(d))}`: {e.what}"
    try:
        rows, got = rescore.squad_rows(d, "rc", root, cfg, "test")
    except rescore.Skip as e:
        return None, (f"`{os.path.basename(d)}` keeps no `stats/test.tsv` (`plots/rescore.py --write-stats` writes "
                      f"it from the kept predictions) and {e}")
    except (rescore.Bad, RunError, OSError, KeyError, TypeError) as e:
        return None, f"`{os.path.basename(d)}`: its kept predictions cannot be re-scored ({e})"
    for k in ("exact_match", "f1"):
        want = number_or_none(summary["test"].get(k))
        if want is None or abs(got[k] - want) > rescore.TOL * max(1.0, abs(want)):
            return None, (f"`{os.path.basename(d)}`: its kept predictions give dev {k} {got[k]!r}, summary.json "
                          f"says {want!r} (make rescore)")
    return np.asarray(rows, dtype=float).reshape(-1, 3), None


def load_run(d, root="."):
    s, cfg, model, data, metrics, cmd = read_task_run(d)
    t, held = s["test"], s.get("dev", {})
    rows, why = question_rows(d, cfg, s, root)
    r = {"run": os.path.basename(d), "dir": d, "name": s.get("name"), "key": cell_key(model.get("cell", {})),
         "seed": seed_of(d),
         "em": number_or_none(t["exact_match"]), "f1": number_or_none(t["f1"]),
         "held_em": number_or_none(held.get("exact_match")), "held_f1": number_or_none(held.get("f1")),
         "params": s["trainable_params"], "qps": train_rate(d, s, metrics) or 0, "steps": s.get("steps"),
         "best_step": best_step(metrics), "questions": s.get("questions", {}), "rss": s.get("peak_rss_mb"),
         "section": json.dumps([get(cfg, k) for k in SECTION_KEYS]), "cfg": cfg, "rows": rows, "no_rows": why,
         **run_outcome(d, s, metrics, cmd)}
    r["md"] = (f"| {r['key']} | {fmt(r['em'])} | {fmt(r['f1'])} | {fmt(r['held_em'])} / {fmt(r['held_f1'])} | "
               f"{r['params']:,} | {r['qps']:,.1f} | {count(r['steps'])} | {count(r['best_step'])} | "
               f"{r['epochs']} ({r['stop']}) | {count(r['rss'])} | {run_label(d)} |")
    return r


def load(runs_dir, root="."):
    """Every readable rc_* run folder of runs_dir (the others reported on stderr); root: where data/ is."""
    return load_runs(runs_dir, "rc_", lambda d: load_run(d, root), SCRIPT)


def fmt(x, digits=2):
    """A score with two decimals, "–" when missing."""
    return f"{x:.{digits}f}" if isinstance(x, (int, float)) and not isinstance(x, bool) else "–"


def count(x):
    """A count with thousands separators, "–" when missing."""
    return f"{x:,.0f}" if isinstance(x, (int, float)) and not isinstance(x, bool) else "–"


def mean_sd(vals):
    """"m ± sd" over two or more values, "m (1 seed)" for one."""
    m, sd = significance.mean_sd(vals)
    return f"{m:.2f} ± {sd:.2f}" if sd is not None else f"{m:.2f} (1 seed)"


def counted(rs):
    """{cell: its runs that count in a mean (seeded, not diverged, scored), in seed order}."""
    by = {}
    for r in sorted(rs, key=lambda r: (r["key"], r["seed"] or 0)):
        if r["seed"] is not None and not r["diverged"] and r["em"] is not None and r["f1"] is not None:
            by.setdefault(r["key"], []).append(r)
    return by


def per_value(group, key):
    """One value when every run of the group has it, else each run's in seed order (" / ")."""
    vals = [count(r[key]) for r in group]
    return vals[0] if len(set(vals)) == 1 else " / ".join(vals)


def cell_lines(by):
    """The per-cell table's markdown rows and CSV rows (cells in the suite's order)."""
    md, csv_rows = [], []
    for key in sorted(by, key=cell_sort_key):
        g = by[key]
        em, f1 = [r["em"] for r in g], [r["f1"] for r in g]
        qps = statistics.mean(r["qps"] for r in g)
        p = PAPER.get(key)
        md.append(f"| {key} | {len(g)} | {mean_sd(em)} | {mean_sd(f1)} | {per_value(g, 'params')} | {qps:,.1f} | "
                  f"{per_value(g, 'steps')} | {per_value(g, 'best_step')} | "
                  + (f"{p[0]:.2f} / {p[1]:.2f} ({p[2]}) |" if p else "|"))
        (em_m, em_sd), (f1_m, f1_sd) = significance.mean_sd(em), significance.mean_sd(f1)
        csv_rows.append([key, len(g), f"{em_m:.4f}", num(em_sd, 4), f"{f1_m:.4f}", num(f1_sd, 4),
                         " ".join(str(r["params"]) for r in g), f"{qps:.2f}",
                         " ".join(str(r["steps"]) for r in g), " ".join(str(r["best_step"]) for r in g),
                         p[0] if p else "", p[1] if p else "", p[2].rstrip("M") if p else "",
                         " ".join(r["run"] for r in g)])
    return md, csv_rows


def left_out(rs):
    """The runs the means leave out (no seed suffix, diverged, no score), as one line, or []."""
    out = [f"`{r['run']}` ({'diverged' if r['diverged'] else 'no seed suffix' if r['seed'] is None else 'no score'})"
           for r in sorted(rs, key=lambda r: r["run"])
           if r["seed"] is None or r["diverged"] or r["em"] is None or r["f1"] is None]
    return ["", "Not in these means (each is in the per-run table): " + ", ".join(out) + "."] if out else []


def value(v):
    """A config value as the recipe lines print it: 60,000, 0.3, adadelta."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return str(v)
    return f"{v:,}" if isinstance(v, int) or float(v).is_integer() and abs(v) >= 1000 else f"{v:g}"


def recipe_lines(rs):
    """The protocol and the recipe of one section's runs (they agree on every SECTION_KEYS value), and each way it
    departs from R-Net's, as markdown lines."""
    cfg, q = rs[0]["cfg"], rs[0]["questions"]
    c = lambda k: value(get(cfg, k))
    lines = [f"Protocol: {c('data.protocol')}.", "", "Recipe (from the runs' resolved configs and summaries):", "",
             "- R-Net (Wang et al. 2017) as the LRN repository's `rc/rnet/code` runs it, every encoder, gated-attention "
             "and self-matching BiRNN on the row's cell ("
             + ("the character RNN and the pointer cell too" if get(cfg, "model.cell_everywhere") else
                "the character RNN and the pointer cell stay GRUs, as there")
             + f"): hidden {c('model.cell.hidden')}, {c('model.layers')} concatenated encoder layers, character "
             f"embedding {c('model.char_dim')} and character RNN {c('model.char_hidden')}, dropout {c('model.dropout')} "
             f"(pointer {c('model.ptr_dropout')}), batches of {c('data.batch_size')} questions, {c('train.optim.name')} "
             f"lr {c('train.optim.lr')} with global-norm clipping {c('train.optim.clip_norm')}; an evaluation every "
             f"{c('train.eval_every')} steps, the rate halved after {c('train.schedule.patience')} evaluations without a "
             f"better heldout F1, training stopped after {c('train.patience')}, or at {c('train.max_steps')} steps.",
             f"- Word vectors: `{os.path.basename(str(get(cfg, 'data.embeddings')))}` ({c('model.word_dim')}d, "
             + ("fixed" if get(cfg, "model.freeze_words") else "trained") + ").",
             f"- Trained on {count(q.get('train'))} questions of `{c('data.train')}.jsonl` (those within "
             f"{c('data.passage_limit')} passage and {c('data.question_limit')} question tokens): the SQuAD v1.0 "
             "training set rebuilt from the official explorer pages (87,636 questions, one answer each, synthetic ids; "
             "not train-v1.1's 87,599), without its held-out articles.",
             f"- The model scored is the best heldout F1 (`model.best.bin`), on the {count(q.get('dev'))} questions of "
             f"`{c('data.heldout')}.jsonl`; reported: the {count(q.get('test'))} questions of `{c('data.dev')}.jsonl`, "
             "SQuAD v1.1 dev (a question left out by the evaluation limits scores 0, as the official script scores an "
             "unanswered one)."]
    if get(cfg, "data.heldout") == get(cfg, "data.dev"):
        lines.append("- Selected on the reported file itself (`data.heldout` = `data.dev`), as the LRN code does: the "
                     "score is an optimistic one.")
    for key, what in (("data.max_train_questions", "training"), ("data.max_eval_questions", "heldout and dev")):
        if get(cfg, key):
            lines.append(f"- Only the first {c(key)} questions of the {what} files (`{key}`): a trial, not SQuAD's "
                         "score.")
    changes = [f"`{k}` {c(k)} (R-Net: {value(v)})" for k, v, _ in RNET if get(cfg, k) != v]
    if get(cfg, "model.word_dim") != 300 or "840B" not in str(get(cfg, "data.embeddings")):
        changes.insert(0, f"GloVe `{os.path.basename(str(get(cfg, 'data.embeddings')))}`, `model.word_dim` "
                          f"{c('model.word_dim')} (R-Net: GloVe 840B 300d)")
    lines.append("- Reductions and changes from the R-Net recipe (`rc/rnet/code/config.py`'s defaults; its training "
                 "file is train-v1.1): " + ("; ".join(changes) if changes else "none but the data above") + ".")
    return lines


def cmp_runs(group, metric):
    """A cell's runs as seeds_table.compare reads them: (seed, dir, value, rows). EM is the "accuracy" of the
    exact_match column (a fraction); F1 is the "squad" metric of the rows (in %)."""
    if metric == "em":
        return [(r["seed"], r["dir"], r["em"] / 100, r["rows"][:, :1]) for r in group]
    return [(r["seed"], r["dir"], r["f1"], r["rows"]) for r in group]


def verdict(c, a, b):
    """What the test calls: "<cell> higher" when significant() says so, "no difference shown" otherwise."""
    if not seeds_table.significant(c["boot"]["p"]):
        return "no difference shown"
    return f"{a if c['boot']['delta'] > 0 else b} higher"


def comparison_lines(by, questions):
    """The paired bootstrap between every two cells of a section (each pair once, in the cells' order) over its
    `questions` dev questions."""
    cells = sorted(by, key=cell_sort_key)
    head = [f"Paired bootstrap over the {count(questions)} dev questions (and the seeds, one drawn per cell in each "
            "resample; "
            f"{seeds_table.RESAMPLES:,} resamples; Koehn 2004, Clark et al. 2011) between every two cells: the "
            "difference A − B of EM and of F1 with its 95 % interval and two-sided p, † where p < 0.05 as printed, and "
            "Welch's t over the seeds where both cells have two or more. Only a † is called a difference; a pair "
            "without one is \"no difference shown\", not \"equal\". Per question: its best EM and F1 over the gold "
            "answers with the official normalisation, from the run's kept dev predictions against the prepared dev "
            "answers (`stats/test.tsv`, which `tools/collect_run.sh` writes; recomputed from `data/squad` where a "
            "run lacks it).", ""]
    if len(cells) < 2:
        return head + ["(fewer than two cells have a run in the means: nothing to compare)"]
    rows = []
    for a, b in itertools.combinations(cells, 2):
        ga, gb = by[a], by[b]
        why = next((r["no_rows"] for r in ga + gb if r["rows"] is None), None)
        sizes = sorted({len(r["rows"]) for r in ga + gb}) if why is None else []
        if why is None and len(sizes) > 1:
            why = f"the runs were scored on different numbers of questions ({', '.join(map(str, sizes))})"
        if why:
            rows.append(f"| {a} − {b} | – | – | not computed: {why} |")
            continue
        em = seeds_table.compare("accuracy", cmp_runs(ga, "em"), cmp_runs(gb, "em"))
        f1 = seeds_table.compare("squad", cmp_runs(ga, "f1"), cmp_runs(gb, "f1"))
        rows.append(f"| {a} − {b} | {seeds_table.fmt_cmp(em, 100, 2)} | {seeds_table.fmt_cmp(f1, 1, 2)} | "
                    f"EM: {verdict(em, a, b)}; F1: {verdict(f1, a, b)} |")
    return head + md_table("| A − B | Δ EM [95 %] p | Δ F1 [95 %] p | called |", "|---|---|---|---|", rows)


CELL_HEADER = ("| cell | seeds | dev EM mean ± sd | dev F1 mean ± sd | trainable params | train questions/s | "
               "steps trained | best step | LRN paper EM / F1 (params) |")
RUN_HEADER = ("| cell | dev EM | dev F1 | heldout EM / F1 | trainable params | train questions/s | steps | best step | "
              "epochs (stop) | peak RSS MB | run |")
CSV_HEADER = ["section", "cell", "seeds", "dev_em_mean", "dev_em_sd", "dev_f1_mean", "dev_f1_sd", "trainable_params",
              "train_questions_s", "steps", "best_step", "paper_em", "paper_f1", "paper_params_M", "runs"]


def section_titles(sections):
    """{section: title}: "SQuAD v1.1 dev" when there is one; else the SECTION_KEYS values that set it apart."""
    if len(sections) == 1:
        return {s: "SQuAD v1.1 dev" for s in sections}
    vals = {s: json.loads(s) for s in sections}
    differ = [i for i in range(len(SECTION_KEYS)) if len({json.dumps(v[i]) for v in vals.values()}) > 1]
    return {s: ", ".join(f"{SECTION_KEYS[i]} {value(vals[s][i])}" for i in differ) for s in sections}


def section(title, rs):
    """One section's markdown lines and CSV rows."""
    by = counted(rs)
    md, csv_rows = cell_lines(by)
    lines = [f"## {title}", ""] + recipe_lines(rs) + ["", "Per cell, over its seeded runs:", ""]
    lines += md_table(CELL_HEADER, "|---|---:|---:|---:|---:|---:|---:|---:|---:|", md) + left_out(rs)
    lines += ["", "Per run (heldout: the selection split, the summary's \"dev\"):", ""]
    lines += md_table(RUN_HEADER, "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---|",
                      [r["md"] for r in sorted(rs, key=lambda r: (cell_sort_key(r["key"]), r["run"]))])
    lines += [""] + comparison_lines(by, rs[0]["questions"].get("test")) + [""]
    return lines, [[title] + row for row in csv_rows]


def headline_rows(rows):
    """The runs cells.md's SQuAD column reads: those of the experiments/rc/squad_<cell>.json recipe (summary.json
    name rc_squad_<cell>) that score every question of heldout and dev and select on heldout, from the section
    holding most of them (one recipe: a run at other steps or limits is in rc.md only)."""
    by = {}
    for r in rows:
        cfg = r["cfg"]
        if (re.fullmatch(r"rc_squad_[a-z0-9]+", str(r["name"])) and not get(cfg, "data.max_eval_questions")
                and not get(cfg, "data.max_train_questions") and get(cfg, "data.heldout") != get(cfg, "data.dev")):
            by.setdefault(r["section"], []).append(r)
    return max(by.values(), key=len) if by else []


def write(rows, out):
    """results/rc.md and results/rc.csv from load()'s rows; returns the paths written."""
    paper = ", ".join(f"{k.split('_')[0].upper()} {v[0]:.2f} / {v[1]:.2f} ({v[2]})" for k, v in
                      sorted(PAPER.items(), key=lambda kv: cell_sort_key(kv[0])))
    lines = ["# Reading comprehension: R-Net on SQuAD (the LRN paper's sixth task)", "",
             "SQuAD's official exact match and F1 (%) of the best-heldout-F1 model on SQuAD v1.1 dev "
             "(evaluate-v1.1.py's algorithm, `core/eval/squad_eval.h`: lowercase, strip punctuation and the articles "
             "a/an/the, collapse whitespace; a question's best over its gold answers; every question of the file "
             "counted). Every run keeps its dev predictions in the official format (`predictions/`; `make rescore` "
             "re-scores them). Parameters are the trainable ones (the fixed word vectors left out, as the paper "
             "counts); training questions/s is the median of the run's logged training windows over every start and "
             "resume (1 thread, other jobs on the machine); the best step is that of the heldout evaluation whose "
             f"model is scored. The paper's column: {PAPER_SOURCE}: {paper}; its ATR is the LRN repository's "
             "(h = tanh(i⊙p + f⊙h_prev), both biases: our `atr_tanh_bias_both`). Its runs are R-Net at full scale "
             "(60,000 steps of 64, GloVe 840B 300d, train-v1.1): compare the cells' order, and the level only "
             "with the reductions stated under each table.",
             "Generated by `python3 plots/rc_table.py` from `results/runs/rc_*`. " + csv_note([csv_path(out)], out), ""]
    groups = {}
    for r in rows:
        groups.setdefault(r["section"], []).append(r)
    titles = section_titles(groups)
    csv_rows = []
    if not groups:
        lines += ["## SQuAD v1.1 dev", "", "No rc run is committed yet (`build/bin/rc experiments/rc/squad_<cell>.json --seed N`, "
                  "then `tools/collect_run.sh`).", ""]
        lines += md_table(CELL_HEADER, "|---|---:|---:|---:|---:|---:|---:|---:|---:|", []) + [""]
    for s in sorted(groups, key=lambda s: (-len(groups[s]), titles[s])):   # the section with most runs first
        body, rows_csv = section(titles[s], groups[s])
        lines += body
        csv_rows += rows_csv
    return write_table(out, lines, rows, SCRIPT, CSV_HEADER, csv_rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", default="results/runs")
    ap.add_argument("--out", default="results/rc.md")
    ap.add_argument("--root", default=".", help="where data/ is, for runs without stats/test.tsv (default .)")
    a = ap.parse_args()
    if not os.path.isdir(a.runs):
        ap.error(f"--runs {a.runs}: no such directory")
    write(load(a.runs, a.root), a.out)


if __name__ == "__main__":
    main()
