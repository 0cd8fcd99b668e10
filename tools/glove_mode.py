#!/usr/bin/python3
"""Frozen or fine-tuned GloVe, per protocol (issue 52): applies the rule the GloVe experiment files state and
writes the queue of the runs it leaves.

  /usr/bin/python3 tools/glove_mode.py [--runs DIR ...] [--queue experiments/queues/glove_seeds.txt]

The rule, the same for every cell of a protocol (SST-2, SST-5, SICK, WNUT-17; SNLI in-house is frozen, as the
ATR authors kept their vectors): seed 1234 of each of the seven cells runs both ways,
`<protocol>_glove_frozen_<cell>.json` and `<protocol>_glove_finetune_<cell>.json`; the protocol's mode is the one
whose mean best-dev score (summary.json's best_dev: accuracy, or entity F1 for WNUT-17) over the seven cells is
higher, frozen on a tie; then seeds 1 and 2 run in that mode for every cell. One mode per protocol, so the cells
are compared on the same embeddings, chosen on dev alone.

A run is looked up as <task>_<experiment>_s1234/summary.json in each --runs folder in turn (default: the queue
lanes' folder runs/ and results/runs/). The table of dev scores and the choice are printed per protocol; a
protocol with a seed-1234 run missing is "waiting" (its missing runs listed) and gets no queue lines. --queue
writes, for each decided protocol, one `<task> <experiment> --seeds 1234,1,2` line per cell of the chosen mode
(tools/run_queue.sh skips the finished seed 1234), and the undecided protocols as comments. Exit 0; 2 on a bad
argument or an unreadable summary.
"""
import argparse
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROG = "tools/glove_mode.py"
CELLS = ("atr", "atr_tanh", "gru", "lstm", "lrn", "ran", "sru")
MODES = ("frozen", "finetune")   # a tie goes to the first
SELECTION_SEED = 1234
PIN = "issue52"   # experiments/queues/issue52_{a,b}.txt's "# pin:" (tools/run_queue.sh)
SEEDS = "1234,1,2"
# protocol: (task, experiment file pattern, the dev metric the runs select on)
PROTOCOLS = {
    "sst2": ("classify", "experiments/classify/sst2_glove_{mode}_{cell}.json", "accuracy"),
    "sst5": ("classify", "experiments/classify/sst5_glove_{mode}_{cell}.json", "accuracy"),
    "sick": ("snli", "experiments/snli/sick_cond_glove_{mode}_{cell}.json", "accuracy"),
    "wnut17": ("ner", "experiments/ner/wnut17_glove_{mode}_{cell}.json", "f1"),
}


def fail(msg):
    print(f"{PROG}: error: {msg}", file=sys.stderr)
    sys.exit(2)


def run_name(task, experiment, seed):
    return "%s_%s_s%d" % (task, os.path.splitext(os.path.basename(experiment))[0], seed)


def best_dev(runs_dirs, name, metric):
    """The run's best dev score, or None while it has no summary.json in any of the folders."""
    for d in runs_dirs:
        path = os.path.join(d, name, "summary.json")
        if os.path.isfile(path):
            try:
                with open(path, encoding="utf-8") as f:
                    value = json.load(f)["best_dev"][metric]
            except (OSError, ValueError, KeyError, TypeError) as e:
                fail(f"{path}: no best_dev.{metric} ({type(e).__name__}: {e})")
            if not isinstance(value, (int, float)):
                fail(f"{path}: best_dev.{metric} is {value!r}, not a number")
            return float(value)
    return None


def decide(runs_dirs, protocol):
    """{"scores": {mode: {cell: value or None}}, "missing": [run names], "means": {mode: mean}, "mode": chosen or
    None while waiting}."""
    task, pattern, metric = PROTOCOLS[protocol]
    scores, missing = {}, []
    for mode in MODES:
        scores[mode] = {}
        for cell in CELLS:
            name = run_name(task, pattern.format(mode=mode, cell=cell), SELECTION_SEED)
            scores[mode][cell] = best_dev(runs_dirs, name, metric)
            if scores[mode][cell] is None:
                missing.append(name)
    out = {"scores": scores, "missing": missing, "means": {}, "mode": None}
    if not missing:
        out["means"] = {m: sum(scores[m].values()) / len(CELLS) for m in MODES}
        out["mode"] = max(MODES, key=lambda m: (out["means"][m], -MODES.index(m)))
    return out


def report(protocol, d):
    task, _, metric = PROTOCOLS[protocol]
    lines = [f"{protocol} ({task}, best dev {metric}, seed {SELECTION_SEED}):"]
    lines.append("  %-9s %s" % ("cell", " ".join("%9s" % m for m in MODES)))
    for cell in CELLS:
        lines.append("  %-9s %s" % (cell, " ".join(
            "%9s" % ("-" if d["scores"][m][cell] is None else "%.4f" % d["scores"][m][cell]) for m in MODES)))
    if d["mode"] is None:
        lines.append(f"  waiting for {len(d['missing'])} run(s): " + ", ".join(d["missing"]))
    else:
        lines.append("  %-9s %s" % ("mean", " ".join("%9.4f" % d["means"][m] for m in MODES)))
        lines.append(f"  -> {d['mode']}")
    return "\n".join(lines)


def queue_text(decisions):
    out = [f"# issue 52: the GloVe rows' seeds 1 and 2 in each protocol's mode, as {PROG} chose it on the dev "
           f"scores of seed {SELECTION_SEED} (frozen vs fine-tuned; run_queue.sh skips the finished seed)",
           # the binaries seed 1234 ran on (issue52_a/b.txt's pin): every seed of a row on one build
           f"# pin: {PIN} (the issue 52 lanes' pin, so that seeds 1 and 2 run the build seed {SELECTION_SEED} ran)"]
    for protocol, d in decisions.items():
        task, pattern, _ = PROTOCOLS[protocol]
        if d["mode"] is None:
            out.append(f"# {protocol}: waiting for {len(d['missing'])} seed-{SELECTION_SEED} run(s)")
            continue
        out.append(f"# {protocol}: {d['mode']} (mean best dev " +
                   ", ".join("%s %.4f" % (m, d["means"][m]) for m in MODES) + ")")
        for cell in CELLS:
            out.append(f"{task} {pattern.format(mode=d['mode'], cell=cell)} --seeds {SEEDS}")
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", action="append", help="a folder of run folders (repeatable; default: runs and "
                    "results/runs of the repository)")
    ap.add_argument("--queue", help="write the chosen modes' queue lines here")
    ap.add_argument("--protocol", action="append", choices=sorted(PROTOCOLS), help="only these (repeatable)")
    a = ap.parse_args(argv)
    runs = a.runs or [os.path.join(ROOT, "runs"), os.path.join(ROOT, "results", "runs")]
    decisions = {p: decide(runs, p) for p in PROTOCOLS if not a.protocol or p in a.protocol}
    print("\n".join(report(p, d) for p, d in decisions.items()))
    if a.queue:
        with open(a.queue, "w", encoding="utf-8") as f:
            f.write(queue_text(decisions))
        print(f"{PROG}: wrote {a.queue}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
