#!/usr/bin/env python3
"""results/runs/lm_*/ -> results/lm.md (+ results/lm.csv): the PTB language-model table, built only from
committed run files.

usage: lm_table.py [--runs results/runs] [--out results/lm.md]   (standard library only)

A run folder that cannot be read is reported on stderr and left out (plots/run_files.py).
"""
import math
import os

from run_files import (table_main, cell_key, csv_note, csv_path, dev_records, divergence, gate_pair, gate_pair_note,
                       load_runs, optional_json, ppl_rise, read_command, read_json, read_metrics, seed_group_lines,
                       seed_of, RunError, SEED_SUFFIX, train_rate, write_csv, write_text)

SCRIPT = "lm_table.py"

# Quoted from Zaremba et al. (2014), "Recurrent Neural Network Regularization", Table 1 (PTB, LSTM).
PAPER = {"small": ("Zaremba et al. 2014, LSTM small (2x200, no dropout)", 120.7, 114.5),
         "medium": ("Zaremba et al. 2014, LSTM medium (2x650, dropout 0.5)", 86.2, 82.7),
         # The ATR authors' TensorFlow recipe is 2x650 with dropout 0.5 like Zaremba's medium one (its lr 0.6
         # and decay 1/1.15 after epoch 10 differ): the closest published LSTM number, not the same recipe.
         "atr_authors": ("Zaremba et al. 2014, LSTM medium (2x650, dropout 0.5; lr 1.0, not this recipe's 0.6)",
                         86.2, 82.7)}
# Quoted from the LRN paper (Zhang & Sennrich 2019) via the LRN repository README (../shared/reference/
# paper_tables.md): PTB test perplexity of the base models (MoS setup, 3 layers, no finetune / dynamic eval).
# Its ATR is the tanh-output variant (our atr_tanh); keyed by run_files.cell_key.
PAPER_LRN = {"lstm": 63.78, "gru": 69.09, "atr_tanh": 66.24, "sru": 69.64, "lrn": 61.26}


# What each recipe is, in a line, where the table alone would not say (a recipe without one gets none).
RECIPE_NOTES = {
    "atr_authors": "The ATR repository's TensorFlow LM (`lm/tensorflow-lm/main.py`, `experiments/base/"
                   "lm_atr_authors.json`): 2 x 650, untied, dropout 0.5, lr 0.6 then divided by 1.15 per epoch "
                   "after epoch 10, 39 epochs, clip 5 on the global norm, loss summed over time and averaged over "
                   "the batch, uniform(+-0.08) init, ATR without biases. The ATR authors publish no perplexity for "
                   "it (their README: 'We didnot pay too much efforts to optimize the hyperparameters'), so "
                   "the nearest published number is Zaremba et al.'s medium LSTM (same size and dropout, lr 1.0 "
                   "and a faster decay)."}


def describe_cell(cell):
    name = cell["type"]
    extras = []
    if cell.get("output", "default") != "default":
        extras.append(f"output {cell['output']}")
    if cell.get("layer_norm"):
        extras.append("layer norm")
    if cell.get("content", "default") not in ("default", "linear"):
        extras.append(f"content {cell['content']}")
    return name.upper() + (f" ({', '.join(extras)})" if extras else "")


def recipe_of(name):
    for r in ("atr_authors", "medium", "small"):
        if name.endswith("_" + r):
            return r
    return "other"


def cell_and_recipe(run_dir):
    """("atr_tanh", "small") for results/runs/lm_atr_tanh_small_s2: the experiment's name (config.resolved.json
    "name", the same for every seed and wherever out_dir put the run, e.g. make demo's
    runs/demo_atr_tanh_small_<time>; else the folder's name) without its lm_ prefix, seed suffix and recipe; a
    name without a known recipe is its own cell of recipe "other"."""
    name = os.path.basename(os.path.normpath(run_dir))
    try:
        configured = read_json(os.path.join(run_dir, "config.resolved.json")).get("name")
        name = configured if isinstance(configured, str) and configured else name
    except RunError:
        pass
    m = SEED_SUFFIX.match(name)
    name = m.group("base") if m else name
    name = name[3:] if name.startswith("lm_") else name
    recipe = recipe_of(name)
    return (name[:-len(recipe) - 1] if recipe != "other" else name), recipe


def state_rows(metrics):
    """The train log rows that carry the state's per-layer max |h| (issue 26), in log order."""
    return [r for r in metrics if r.get("split") == "train" and isinstance(r.get("state_abs_max"), list)
            and r["state_abs_max"]]


def state_jump(metrics):
    """The train log row where the carried state's max |h| (over layers) grew most over the row before, as
    "step S: max |h| A -> B (layer L), gradient norm G, loss l0 -> l1"; None when the run logs no state norms
    or the state never grew tenfold between two rows (issue 26: see a blow-up coming)."""
    rows = state_rows(metrics)
    best = None
    for prev, cur in zip(rows, rows[1:]):
        a, b = max(prev["state_abs_max"]), max(cur["state_abs_max"])
        if a > 0 and b / a >= 10 and (best is None or b / a > best[0]):
            best = (b / a, prev, cur)
    if best is None:
        return None
    _, prev, cur = best
    layer = cur["state_abs_max"].index(max(cur["state_abs_max"])) + 1
    g = cur.get("grad_norm")
    return (f"step {cur['step']}: max |h| {max(prev['state_abs_max']):.3g} -> {max(cur['state_abs_max']):.3g} "
            f"(layer {layer})" + (f", gradient norm {g:.3g}" if isinstance(g, (int, float)) else "")
            + f", training loss {prev['loss']:.3g} -> {cur['loss']:.3g} per token")


def state_calm(metrics):
    """For a run that logs the carried state and never jumped (state_jump is None): "max |h| peaked at P
    (layer L, step S) and grew at most R-fold between two log rows"; None without state norms or with a jump.
    It is the evidence that a twin-gate run did not blow up, beside the dev curve."""
    rows = state_rows(metrics)
    if not rows or state_jump(metrics) is not None:
        return None
    peak = max(rows, key=lambda r: max(r["state_abs_max"]))
    p = max(peak["state_abs_max"])
    ratios = [max(b["state_abs_max"]) / max(a["state_abs_max"]) for a, b in zip(rows, rows[1:])
              if max(a["state_abs_max"]) > 0]
    return (f"max |h| peaked at {p:.3g} (layer {peak['state_abs_max'].index(p) + 1}, step {peak['step']}) over "
            f"{len(rows)} log rows and grew at most {max(ratios, default=1.0):.2g}-fold between two of them")


def last_epoch_train_ppl(metrics):
    """exp(mean training loss per token) over the train log rows of the last epoch (None without them): set
    beside the dev perplexity it says how much of a gap is overfitting."""
    train = [r for r in metrics if r.get("split") == "train" and isinstance(r.get("loss"), (int, float))]
    if not train:
        return None
    last = [r["loss"] for r in train if r.get("epoch") == train[-1].get("epoch")]
    return math.exp(sum(last) / len(last))


def gap_split(recipe, rs):
    """The gap between the paper's LSTM and our cells split in two, or None without a paper number or a seeded LSTM
    run on the recipe that did not diverge: our LSTM against the paper's (the same cell, so the recipe's and the
    implementation's share) and each other cell against our LSTM (the cell's share). A cell counts by the mean of
    its seeded runs that did not diverge (run_files: never an unseeded or diverged run in a mean); the cells with
    none are named as left out. Whether a cell's share is a difference is for the paired test in seeds.md."""
    if recipe not in PAPER:
        return None
    by_cell, left = {}, {}
    for r in rs:
        if seed_of(r["run"]) is None or r.get("diverged"):
            left.setdefault(r["cell"], []).append(r)
        else:
            by_cell.setdefault(r["cell"], []).append(r["test"])
    lstm = by_cell.pop("LSTM", None)
    why = lambda r: ", ".join(w for w, bad in (("no seed", seed_of(r["run"]) is None),
                                                ("diverged", r.get("diverged"))) if bad)
    if not lstm:
        if "LSTM" not in left:
            return None
        return (f"The gap to the paper's LSTM ({PAPER[recipe][2]}) is not split: no seeded LSTM run that did not "
                "diverge is committed for this recipe (" + ", ".join(
                    f"`{r['run']}`: {why(r)}" for r in sorted(left["LSTM"], key=lambda r: r["run"])) + ").")
    mean = lambda xs: sum(xs) / len(xs)
    seeds = lambda xs: "one seed" if len(xs) == 1 else f"mean of {len(xs)} seeds"
    paper = PAPER[recipe][2]
    share = lambda v: f"{mean(v) - mean(lstm):+.1f} (" + ("one seed" if len(v) == 1 else (
        f"mean of {len(v)} seeds, {min(v) - mean(lstm):+.1f} to {max(v) - mean(lstm):+.1f}")) + ")"
    text = (f"Split of the gap: our LSTM on this recipe has test perplexity {mean(lstm):.1f} ({seeds(lstm)}) "
            f"against the paper's {paper}, {mean(lstm) - paper:+.1f} from the recipe (where it differs) and the "
            "implementation (the cell is the same)")
    if by_cell:
        text += ("; each other cell against our LSTM on this recipe, the cell's share: " + ", ".join(
            f"{cell} {share(v)}" for cell, v in
            sorted(by_cell.items(), key=lambda kv: mean(kv[1]))) + ". Whether a share is a difference is decided "
            "by the paired test in `seeds.md`, not by this line")
    text += "."
    if left:
        text += (" Only seeded runs that did not diverge count; left out: " + ", ".join(
            f"`{r['run']}` ({why(r)})" for cell in sorted(left) for r in sorted(left[cell], key=lambda r: r["run"]))
            + ("; so no share for " + ", ".join(sorted(c for c in left if c not in by_cell and c != "LSTM"))
               if any(c not in by_cell and c != "LSTM" for c in left) else "") + ".")
    return text


# The cells the TensorFlow-recipe comparison of issue 26 runs; the README names those not committed yet.
README_CELLS = ("LSTM", "GRU", "ATR")


def readme_block(runs):
    """The README's lines on the ATR authors' TensorFlow recipe (between its `<!-- lm recipe begin` and
    `<!-- lm recipe end -->` markers), from the committed runs: each cell's test perplexity, whether ATR's state
    stayed bounded, the paper's LSTM beside them, and the cells still missing."""
    rs = sorted((r for r in runs if r["recipe"] == "atr_authors"), key=lambda r: r["test"])
    if not rs:
        return ["No run of the ATR authors' TensorFlow recipe is committed yet (`results/lm.md`)."]
    label = PAPER["atr_authors"]
    text = ("On the TensorFlow recipe (39 epochs, one seed per cell; `results/lm.md`, section atr_authors), valid / "
            "test perplexity: " + ", ".join(f"{r['cell']} {r['valid']:.1f} / {r['test']:.1f}" for r in rs)
            + f"; Zaremba et al.'s medium LSTM (lr 1.0, not this recipe): {label[1]} / {label[2]}.")
    for r in rs:
        if not r["key"].startswith("atr"):   # the twin-gate runs (atr, atr_bias_none, atr_tanh, ...)
            continue
        if r["diverged"]:
            text += f" {r['cell']} (`{r['run']}`) diverged on the way: {r['diverged']}"
        elif r["state_peak"] is not None:
            text += (f" {r['cell']} (`{r['run']}`) trained {r['epochs']} epochs without blowing up: its carried "
                     f"state's max |h| never went above {r['state_peak']:.3g}.")
    if len({r["cell"] for r in rs}) > 1:
        text += (" Whether two cells differ is the paired bootstrap's call in `results/seeds.md` (over the test "
                 "sentences: with one seed each it cannot speak for other seeds).")
    missing = [c for c in README_CELLS if c not in {r["cell"] for r in rs}]
    if missing:
        text += " Not committed yet: " + ", ".join(missing) + "."
    return [text]


def noted(recipe, r):
    """Whether a run gets a line in its recipe's notes: a diverged run; a calm ATR run (its bounded state is the
    point); and on the TensorFlow recipe, one seed per cell, every run, so the cells' dev curves and state peaks
    stand side by side."""
    return bool(r["diverged"] or (r["calm"] and (r["key"].startswith("atr") or recipe == "atr_authors")))


def load_run(d):
    s = read_json(os.path.join(d, "summary.json"))
    cfg = read_json(os.path.join(d, "config.resolved.json"))
    metrics = read_metrics(d)
    cmd, invocations = read_command(d)
    gates = optional_json(os.path.join(d, "gates.json"), SCRIPT) or {}
    dev = dev_records(metrics)
    cell = cfg["model"]["cell"]
    r = {"cell": describe_cell(cell), "key": cell_key(cell), "recipe": recipe_of(s["name"]),
         "params": s["params"], "valid": s["dev"]["ppl"], "test": s["test"]["ppl"],
         "wps": train_rate(d, s, metrics) or 0, "wall": s.get("wall_seconds", 0),
         "epochs": max((m.get("epoch", 0) for m in dev), default=0),   # summary's epochs_done counts one process
         "stop": s.get("stop_reason", ""), "r": gates.get("pearson_r_positions"),
         "pair": gate_pair(gates),
         "cmd": cmd, "invocations": invocations, "train_ppl": last_epoch_train_ppl(metrics), "dev_curve": [m["ppl"] for m in dev],
         "run": os.path.basename(d), "dir": d}
    # A run that diverged on the way (run_files.divergence: dev perplexity more than doubled over its best so far,
    # or stopped on a non-finite loss): say so.
    curve = r["dev_curve"]
    worst = ppl_rise(curve)
    r["diverged"] = None
    if worst is None and divergence(s):
        r["diverged"] = divergence(s) + "."
    if worst is not None:
        r["diverged"] = (f"dev perplexity {curve[worst]:.3g} after epoch {worst + 1}; per epoch: "
                         + ", ".join(f"{p:.3g}" for p in curve) + ".")
        jump = state_jump(metrics)
        r["diverged"] += (f" Carried state (train log): largest jump at {jump}." if jump else
                          " No state norms in its log (run before they were logged)." if not any(
                              "state_abs_max" in m for m in metrics) else "")
    peaks = [max(m["state_abs_max"]) for m in state_rows(metrics)]
    r["state_peak"] = max(peaks) if peaks else None
    calm = state_calm(metrics) if not r["diverged"] else None
    r["calm"] = ("did not diverge: dev perplexity per epoch " + ", ".join(f"{p:.3g}" for p in curve)
                 + f"; carried state (train log): {calm}.") if calm else None
    # Every table cell, formatted here so that a bad value is reported with its run, not mid-table.
    rr = f"{r['r']:.3f}" if r["r"] is not None else ""
    pair_note = gate_pair_note(r["pair"]) if rr else ""   # GRU: update z and reset r, not input and forget
    paper = PAPER_LRN.get(r["key"])
    r["md"] = (f"| {r['cell']} | {r['params']:,} | {r['valid']:.1f} | {r['test']:.1f} | "
               f"{paper if paper else ''} | {r['wps']:,.0f} | "
               f"{r['wall'] / 60:.0f} min | {r['epochs']} ({r['stop']}) | {rr}{pair_note} | `{r['run']}` |")
    zar = PAPER.get(r["recipe"]) if r["key"] == "lstm" else None
    r["csv"] = [r["recipe"], r["key"], r["cell"], r["params"], f"{r['valid']:.1f}", f"{r['test']:.1f}",
                zar[1] if zar else "", zar[2] if zar else "", paper if paper else "",
                f"{r['wps']:.0f}", f"{r['wall'] / 60:.0f}", r["epochs"], r["stop"], rr, r["pair"] if rr else "",
                "yes" if r["diverged"] else "no",
                r["run"], r["cmd"]]
    return r


def load(runs_dir):
    """Every readable lm_* run folder of runs_dir (the others reported on stderr)."""
    return load_runs(runs_dir, "lm_", load_run, SCRIPT)


CSV_HEADER = ["recipe", "cell", "cell_label", "params", "valid_ppl", "test_ppl", "paper_zaremba_valid_ppl",
              "paper_zaremba_test_ppl", "paper_lrn_test_ppl", "train_words_s", "wall_minutes", "epochs",
              "stop_reason", "r_gates_positions", "gate_pair", "diverged", "run", "command"]


def write(runs, out):
    """results/lm.md and results/lm.csv from load()'s rows; returns the paths written."""
    rows = {}
    for r in runs:
        rows.setdefault(r["recipe"], []).append(r)
    if not rows:
        rows["small"] = []
    csv_file = csv_path(out)
    lines = ["# PTB word-level language model", "",
             "Mikolov's PTB (929k/74k/82k tokens, 10k vocabulary), full data, our runs on the 2-core CPU machine.",
             "Valid/test perplexity of the best-validation model over the whole split (state carried, batch 20).",
             "Training words/s: the median of the run's logged training windows over every start and resume, on 1",
             "thread while another run used the other core. Wall time: the trainer's clock summed over every start",
             "and resume (dev evaluations and pauses included; work lost since the last checkpoint of a stopped",
             "process not). Generated by",
             "`python3 plots/lm_table.py` from `results/runs/` (each run's resolved config, command, metrics and",
             "summary are there).",
             "The LRN paper column: Zhang & Sennrich (2019), PTB test perplexity of the base models (the MoS",
             "setup, 3 layers; without finetuning or dynamic evaluation), a far larger recipe: comparable in the",
             "cells' order, not in level; its ATR is the tanh-output variant. " + csv_note([csv_file], out),
             "r(i,f) positions: Pearson r over sentence positions between the top layer's mean input and forget",
             "gates on the test set (the run's `gates.json`, figure `figures/fig3_gates_<run>.png`); a cell without",
             "them names the pair it correlates instead (GRU: update z and reset r).",
             "Dev perplexity during training, a row per recipe and a colour per cell: "
             "`figures/learning_curves_lm.png` (`make figures`).", ""]
    for recipe, rs in sorted(rows.items()):
        lines += [f"## Recipe: {recipe}", "",
                  "| cell | params | valid ppl | test ppl | LRN paper test ppl | train words/s | wall time | epochs "
                  "| r(i,f) positions | run |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
        split = gap_split(recipe, rs)
        if recipe in RECIPE_NOTES:
            lines[-2:-2] = [RECIPE_NOTES[recipe] + ("" if split else
                            " No LSTM run on this recipe is committed yet, so the gap to that number cannot yet be "
                            "split between the recipe and the cell."), ""]
        if split:
            lines[-2:-2] = [split, ""]
        if recipe in PAPER:
            label, v, t = PAPER[recipe]
            lines.append(f"| {label} (paper) | | {v} | {t} | | | | | | |")
        rs.sort(key=lambda r: r["test"])
        lines += [r["md"] for r in rs]
        if not rs:
            lines.append("| (no finished run committed yet) | | | | | | | | | |")
        if any(SEED_SUFFIX.match(r["run"]) for r in rs):
            lines += ["", "Per experiment over its seeds (run folders `<experiment>_s<seed>`; paired significance "
                      "between cells: `seeds.md`):", ""] + seed_group_lines(rs, "test", scale=1.0, digits=1,
                                                                          what="test ppl", higher_is_better=False)
        notes = [f"- `{r['run']}` diverged on the way: {r['diverged']}" if r["diverged"] else
                 f"- `{r['run']}` {r['calm']}" for r in sorted(rs, key=lambda r: r["run"]) if noted(recipe, r)]
        if notes:
            lines += ["", "Notes (from each run's metrics.jsonl):", ""] + notes
        if any(r["key"] == "atr" for r in rs):
            lines += ["", "Why ATR with the identity output can blow up: its state h_t = i_t * p_t + f_t * h_{t-1} "
                      "is bounded by nothing (no tanh, no layer norm), so a unit whose forget gate sits near 1 keeps "
                      "and adds what it is given; once |h| is large, the next layer's projections and the softmax "
                      "logits are large, and so are the loss and the gradient. The runs that log the carried "
                      "state's max |h| per layer (the notes above; `results/figures/lm_state_norm.png`) show the "
                      "state jump in the same log interval as the gradient norm and the loss. The ATR and LRN "
                      "authors name the cures: a tanh on the output (`atr_tanh`) or layer normalisation "
                      "(`layer_norm`, the 'layer norm' rows)."]
            gaps = [f"`{r['run']}` {r['train_ppl']:.1f} against {r['valid']:.1f}" for r in
                    sorted(rs, key=lambda r: r["run"]) if r["key"].startswith("atr") and r["train_ppl"]]
            if gaps:
                lines += ["", "Training perplexity in the last epoch (exp of the mean logged training loss) against "
                          "valid perplexity, ATR runs: " + "; ".join(gaps) + ". A lower training and a higher "
                          "valid perplexity than another run is overfitting, not a failure to train."]
        lines += ["", "Commands (the one that started each run; `command.txt` beside it lists every resume and "
                      "evaluation):", ""] + [
            f"- `{r['run']}`: `{r['cmd']}`" + (f" ({r['invocations']} invocations)" if r["invocations"] > 1 else "")
            for r in sorted(rs, key=lambda r: r["run"])] + [""]
    write_text(out, "\n".join(lines))
    write_csv(csv_file, CSV_HEADER, [r["csv"] for recipe in sorted(rows) for r in rows[recipe]])
    print(f"{SCRIPT}: wrote {out} and {csv_file} ({len(runs)} runs)")
    return [out, csv_file]


def main():
    table_main(__doc__, "results/lm.md", load, write)


if __name__ == "__main__":
    main()
