#!/usr/bin/env python3
"""Equal-budget comparisons (issue 51) -> results/tuned.md and tuned.csv, and the expected-best figure, from
the committed sweep folders alone (results/sweeps/<sweep>/, written by tools/tune.py and its export):

  <sweep>/<study>/study.json            the study: space file, cell, arm, budget, sampler, every trial's state
  <sweep>/<study>/trial_<slot>/         a trial's run folder (command, resolved config, metrics, outputs) and
                                        trial.json (slot, parameters, dev value)
  <sweep>/<study>__seeds/best_s<seed>/  the best trial's configuration run again with another seed

Per space file and arm: each cell's finished trials of the budget, the best dev score, the expected best dev
score after n = 1, 4, 8 and N trials (Dodge et al. 2019; plots/expected_best.py) with its sd, how many runs
stopped at the epoch cap or diverged, the best configuration; then its seed runs on test (mean ± sd) and the
paired bootstrap over test examples and seeds against LSTM (seeds_table.compare: the same test the other
tables use). A difference is called (†) only where the bootstrap p < 0.05.

usage: tune_table.py [--sweeps results/sweeps] [--out results/tuned.md]   (the figure: make_figures.py)
"""
import argparse
import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import expected_best as eb  # noqa: E402
from run_files import RunError, read_json, report, write_csv, write_text  # noqa: E402
import seeds_table  # noqa: E402

SCRIPT = "tune_table.py"
KIND = {"accuracy": "accuracy", "f1": "f1"}
SEED_DIR = re.compile(r"^best_s(\d+)$")


def load_study(d):
    """{'meta': study.json, 'trials': [trial.json of COMPLETE trials]} of one tuning study folder."""
    meta = read_json(os.path.join(d, "study.json"))
    done = {t["slot"]: t for t in meta["trials"] if t["state"] == "COMPLETE"}
    trials = []
    for slot, t in sorted(done.items()):
        rel = t["user_attrs"].get("folder")   # relative to the sweep folder; older studies did not record it
        folder = os.path.join(os.path.dirname(d), rel) if rel else os.path.join(d, f"trial_{slot:03d}")
        rec = read_json(os.path.join(folder, "trial.json"))
        if abs(rec["value"] - t["value"]) > 1e-12:
            raise RunError(folder, f"trial.json value {rec['value']} differs from the study's {t['value']}")
        rec["folder"] = folder
        trials.append(rec)
    return {"meta": meta, "trials": trials, "failed": sum(t["state"] == "FAIL" for t in meta["trials"])}


def load_seeds(d, metric):
    """[(seed, run dir, test value, stats rows or None)] of a __seeds study folder's scored runs."""
    out, diverged = [], set(diverged_seeds(d))
    for name in sorted(os.listdir(d)):
        m = SEED_DIR.match(name)
        if not m or int(m.group(1)) in diverged:
            continue   # a diverged run has no summary by design: the tables name it (diverged_seeds)
        run = os.path.join(d, name)
        try:
            value = read_json(os.path.join(run, "summary.json"))["test"][metric]
        except RunError as e:
            report(SCRIPT, e.path, e.what)
            continue
        try:
            rows = seeds_table.read_stats(os.path.join(run, "stats", "test.tsv"), KIND[metric])
        except RunError as e:
            report(SCRIPT, e.path, e.what, "no significance for")
            rows = None
        out.append((int(m.group(1)), run, value, rows))
    return sorted(out)


def diverged_seeds(d):
    """The seeds of a __seeds study folder whose run diverged (trial.json "diverged": the binary stopped on a
    non-finite loss before writing summary.json): left out of every mean and test, and named in the tables."""
    out = []
    for name in sorted(os.listdir(d)):
        m = SEED_DIR.match(name)
        path = os.path.join(d, name, "trial.json")
        if m and os.path.exists(path):
            try:
                if read_json(path).get("diverged"):
                    out.append(int(m.group(1)))
            except RunError as e:
                report(SCRIPT, e.path, e.what)
    return sorted(out)


def load(sweeps_dir):
    """{(space file, arm): {cell: {'study':..., 'seeds': [...], 'diverged_seeds': [seed, ...]}}}"""
    out = {}
    for study_json in sorted(glob.glob(os.path.join(sweeps_dir, "*", "*", "study.json"))):
        d = os.path.dirname(study_json)
        if d.endswith("__seeds"):
            continue
        try:
            s = load_study(d)
        except (RunError, KeyError) as e:
            report(SCRIPT, getattr(e, "path", d), getattr(e, "what", str(e)))
            continue
        m = s["meta"]
        seeds_dir = d + "__seeds"
        seeds = load_seeds(seeds_dir, m["metric"]) if os.path.isdir(seeds_dir) else []
        diverged = diverged_seeds(seeds_dir) if os.path.isdir(seeds_dir) else []
        out.setdefault((m["space_file"], m["arm"]), {})[m["cell"]] = {"study": s, "seeds": seeds,
                                                                     "diverged_seeds": diverged}
    return out


def best_trial(trials, higher=True):
    """The cell's best trial, as tools/tune.py picks the one its seed runs repeat: the highest (lowest) dev value
    among the trials that did not diverge (a diverged run's value is its best dev before a non-finite loss
    stopped it: its recipe does not train to the end, so its seed runs would have no test score); ties: the lower
    slot. Only when every trial diverged is the best of them taken."""
    pool = [t for t in trials if not t.get("diverged")] or trials
    return max(pool, key=lambda t: (t["value"] if higher else -t["value"], -t["slot"]))


def usable_values(trials):
    """(values of the trials best_trial may choose, how many it may not): the E[best] columns and the figure
    count a diverged trial as a draw that is never the best (expected_best's `unusable`)."""
    usable = [t["value"] for t in trials if not t.get("diverged")]
    if not usable:                     # every trial diverged: best_trial takes the best of them
        return [t["value"] for t in trials], 0
    return usable, len(trials) - len(usable)


def has_seeds(v):
    """Whether a cell's seed runs have begun to land: a scored run, or a diverged one."""
    return bool(v["seeds"] or v.get("diverged_seeds"))


def fmt_params(params):
    short = []
    for k, v in sorted(params.items()):
        name = k.replace("model.cell.", "cell.").replace("train.optim.", "").replace("model.", "")
        short.append(f"{name}={v:.3g}" if isinstance(v, float) else f"{name}={v}")
    return ", ".join(short)


def binary_lines(cells):
    """Which binaries the cells ran on: one line when all ran on one; else which were continued on another
    binary after a replay (tools/tune_import.py) gave the committed results, and what it compared."""
    ua = {c: v["study"]["meta"]["user_attrs"] for c, v in cells.items()}
    versions = sorted({u.get("binary_version", "") for u in ua.values()})
    replayed = {c: u["replayed"] for c, u in sorted(ua.items()) if u.get("replayed")}
    out = [f"- binary: {v}" for v in versions]
    if replayed:
        was = sorted({r["binary_version_was"] for r in replayed.values()})
        env = sorted({str(r.get("TWIN_GEMM_BACKENDS")) for r in replayed.values()})
        out.append(f"- {', '.join(replayed)} ran on {'; '.join(was)}; imported into this sweep only after one trial "
                   "of each, run again on the binary above (TWIN_GEMM_BACKENDS=" + ", ".join(env) + "), gave its "
                   "committed metrics.jsonl (timings apart) and kept outputs byte for byte (" +
                   ", ".join(f"{c} slot {r['slot']}" for c, r in replayed.items()) + ")")
    return out


def build(data, sweeps_dir):
    lines = ["# Cells after the same tuning budget (issue 51)", "",
             f"Generated by `plots/tune_table.py` from the sweep folders under `{sweeps_dir}` (tools/tune.py). Every "
             "cell of a table had the same budget: the same search space over the shared keys, the same sampler "
             "and sampler seed (slot k of every cell draws the same shared values), the same number of trials, "
             "plus its own form's choices (bias placement and initialisation, output, forget bias). Selection "
             "is on dev only: a cell's best trial is its highest dev score among the trials that did not diverge "
             "(ties: the lower slot); test is never read to choose. No pruning: every trial ran to its own early "
             "stop. 'E[best] n' is the expected best dev score of n trials drawn from the cell's finished ones "
             "(Dodge et al. 2019), ± its sd. A diverged trial (a non-finite loss stopped it) is never chosen, since "
             "its recipe does not train to the end, but it is one of the budget's draws: E[best] counts it as a "
             "trial that is never the best (plots/expected_best.py), so a cell whose trials diverge needs more of "
             "them for the same expected best.", ""]
    csv_rows = []
    if not data:
        lines += ["No sweep is committed yet.", ""]
    for (space_file, arm), cells in sorted(data.items()):
        any_cell = next(iter(cells.values()))
        meta = any_cell["study"]["meta"]
        metric, budget = meta["metric"], meta["trials_budget"]
        higher = meta["direction"] == "maximize"
        trials0 = any_cell["study"]["trials"]
        space_path = os.path.join("experiments", "tune", space_file)
        try:
            listed = list(json.load(open(space_path, encoding="utf-8"))["cells"])
        except (OSError, ValueError, KeyError):
            listed = []
        missing = [c for c in listed if c not in cells]
        lines += [f"## {space_file}, arm {arm}", "",
                  *([f"- **in progress**: {len(cells)} of the space's {len(listed)} cells have finished their "
                     f"budget; still to come: {', '.join(missing)}. No comparison between cells is made until "
                     "every cell's study and seed runs are committed."] if missing else []),
                  *([f"- **seed runs to come**: {', '.join(sorted(c for c, v in cells.items() if not has_seeds(v)))} "
                     "(each cell's best configuration run again with other seeds, scored on test; the seed table lists the "
                     "cells that have them)."] if not missing and any(not has_seeds(v) for v in cells.values()) else []),
                  f"- protocol: {meta['user_attrs'].get('protocol', '')}",
                  f"- budget: {budget} trials per cell; sampler {meta['sampler'].get('name')} seed "
                  f"{meta['sampler'].get('seed')}; selection: best dev {metric}",
                  f"- searched: {', '.join(sorted(trials0[0]['params'])) if trials0 else '(no trial yet)'}"]
        lines += binary_lines(cells)
        if arm != "hidden":
            m = {c: v["study"]["meta"]["user_attrs"].get("matched") for c, v in cells.items()}
            lines.append("- parameter-matched: hidden size per cell so that its recurrent parameters are within "
                         "5 % of LSTM's (counted by the suite, `--print-params`): " +
                         ", ".join(f"{c} H={x['hidden']} ({x['params']:,})" for c, x in sorted(m.items()) if x))
        ns = sorted({n for n in (1, 4, 8, budget) if n <= budget})
        lines += ["", "| cell | trials | best dev | " + " | ".join(f"E[best] {n}" for n in ns) +
                  " | epoch cap / diverged / retried | best configuration |", "|---|---|---|" + "---|" * len(ns) + "---|---|"]
        ref = cells.get("lstm")
        seed_rows = []
        for cell, v in sorted(cells.items()):
            tr = v["study"]["trials"]
            vals = [t["value"] for t in tr]
            if not vals:
                continue
            best = best_trial(tr, higher)
            usable, unusable = usable_values(tr)
            eb_at = {n: eb.expected_best(usable, n, higher, unusable) for n in ns}
            capped = sum(1 for t in tr if t.get("stop_reason") == "max_epochs")
            diverged = sum(1 for t in tr if t.get("diverged"))
            lines.append(f"| {cell} | {len(vals)} / {budget} | {100 * best['value']:.2f} | " +
                         " | ".join(f"{100 * eb_at[n][0]:.2f} ± {100 * eb_at[n][1]:.2f}" for n in ns) +
                         f" | {capped} / {diverged} / {v['study']['failed']} | {fmt_params(best['params'])} |")
            csv_rows.append([space_file, arm, cell, len(vals), budget, best["value"]] +
                            [eb_at.get(n, (None,))[0] for n in (1, 4, 8)] + [eb_at[budget][0]] + [capped, diverged, json.dumps(best["params"])])
            if has_seeds(v):
                seed_rows.append((cell, v["seeds"], v.get("diverged_seeds", [])))
        lines += ["", "'epoch cap' counts the trials whose run stopped at train.max_epochs rather than by patience "
                      "on dev (the caps were set so that this does not happen; a non-zero count says it did).", ""]
        if seed_rows:
            lines += [f"Seed runs of each cell's best configuration, test {metric} (%):", "",
                      "| cell | seeds | mean ± sd | vs LSTM (bootstrap: diff [95 % CI], p) |", "|---|---|---|---|"]
            for cell, runs, diverged in seed_rows:
                div = f" ({','.join(map(str, diverged))} diverged: left out)" if diverged else ""
                if not runs:
                    lines.append(f"| {cell} | –{div} | – | – |")
                    continue
                vals = [100 * r[2] for r in runs]
                mean, sd = seeds_table.sig.mean_sd(vals)
                cmp = None
                if ref and ref["seeds"] and cell != "lstm":
                    cmp = seeds_table.compare(KIND[metric], runs, ref["seeds"])
                vs = seeds_table.fmt_cmp(cmp, 100, 2)
                sd_txt = f"{sd:.2f}" if sd == sd else "–"
                lines.append(f"| {cell} | {','.join(str(r[0]) for r in runs)}{div} | {mean:.2f} ± {sd_txt} | {vs} |")
            if any(d for _, _, d in seed_rows):
                lines += ["", "A diverged seed run (a non-finite loss stopped it) has no test score and is in no mean "
                              "or test; the seeds column names it."]
            lines.append("")
    return lines, csv_rows


def figure_groups(data):
    groups = []
    for (space_file, arm), cells in sorted(data.items()):
        meta = next(iter(cells.values()))["study"]["meta"]
        vals = {c: usable_values(v["study"]["trials"]) for c, v in cells.items()}
        groups.append((f"{space_file.removesuffix('.json')}, {arm}-matched", meta["metric"], vals,
                       meta["trials_budget"]))
    return groups


def fig_tuned(report, sweeps_dir):
    """make_figures' expected_best: the figure of every committed sweep (nothing when there is none)."""
    data = load(sweeps_dir) if os.path.isdir(sweeps_dir) else {}
    if not data:
        report.note(sweeps_dir, "no committed sweep (no expected-best figure)")
        return
    sources = sorted({os.path.dirname(t["folder"]) for cells in data.values() for v in cells.values()
                      for t in v["study"]["trials"]})
    from learning_curves import CELL_COLORS, VARIANT_COLORS   # the suite's one colour per cell
    report.save(eb.fig_expected_best(figure_groups(data), {**CELL_COLORS, **VARIANT_COLORS}), "expected_best",
                sources)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sweeps", default="results/sweeps")
    ap.add_argument("--out", default="results/tuned.md")
    a = ap.parse_args(argv)
    data = load(a.sweeps) if os.path.isdir(a.sweeps) else {}
    lines, rows = build(data, a.sweeps)
    write_text(a.out, "\n".join(lines) + "\n")
    write_csv(a.out[:-3] + ".csv", ["space", "arm", "cell", "trials", "budget", "best_dev", "eb1", "eb4", "eb8",
                                    "eb_budget", "epoch_capped", "diverged", "best_params"], rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
