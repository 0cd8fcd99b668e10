#!/usr/bin/env python3
"""Compares any set of run folders of one task on one test set: per system, the test metric over its seeds
(mean ± sample sd, min–max), and the paired significance of the comparisons table (results/seeds.md) against
the best system and, with --ref, against a reference system. It prints markdown and writes nothing unless
--out is given; results/ is never touched.

  /usr/bin/python3 plots/compare.py RUN_DIR... [--ref SYSTEM] [--split test] [--root .] [--out FILE.md]
  e.g. /usr/bin/python3 plots/compare.py /work/runs/cws_msr_atr_s* /work/runs/cws_msr_lstm_s* --ref cws_msr_lstm

A system is a run folder's name without its `_s<seed>` suffix (the task binaries' --seed writes
<out_dir>_s<seed>), so the seeds of one experiment form one system; a folder without the suffix is one run
whose seed is its config's. The metric is the task's: accuracy (classify, snli), F1 (cws, ner), BLEU (nmt),
perplexity (lm, lower is better). Significance needs each run's per-example statistics: stats/<split>.tsv when
the run has it (tools/collect_run.sh writes it), else recomputed from the run's kept outputs and the prepared
references under --root (plots/rescore.py's scorers); where neither is possible the means are still shown and
the reason is printed. Differences are called (†) only where the paired bootstrap gives p < 0.05 as printed
(seeds_table.significant), and each pair is the one test seeds_table.compare computes for every table.

Exit status: 0 on a table, 2 on bad input (not a run folder, runs of different tasks or test sets, the same
system and seed twice, an unknown --ref), each named with its path.
"""
import argparse
import os
import re
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import rescore  # noqa: E402
import seeds_table  # noqa: E402
import significance as sig  # noqa: E402
from run_files import RunError, read_json  # noqa: E402

SCRIPT = "compare.py"
SEED_SUFFIX = re.compile(r"^(?P<system>.+)_s(?P<seed>\d+)$")
# task -> (summary metric, stats kind, scale for display, digits)
METRIC = {"classify": ("accuracy", "accuracy", 100, 2), "snli": ("accuracy", "accuracy", 100, 2),
          "cws": ("f1", "f1", 100, 2), "ner": ("f1", "f1", 100, 2), "nmt": ("bleu", "bleu", 1, 2),
          "lm": ("ppl", "ppl", 1, 2)}


class Refused(Exception):
    """Input that cannot be compared; the message names the file and what was expected."""


def read_run(d, split, root):
    """(system, seed, task, test-set identity, metric value, stats rows or None, why no stats)."""
    d = os.path.normpath(d)
    try:
        summary = read_json(os.path.join(d, "summary.json"))
        cfg = read_json(os.path.join(d, "config.resolved.json"))
    except RunError as e:
        raise Refused(f"{e.path}: {e.what} (is {d} a finished run folder?)") from None
    task = summary.get("task")
    if task not in METRIC:
        raise Refused(f"{os.path.join(d, 'summary.json')}: task {task!r} has no comparison metric "
                      f"(known: {', '.join(sorted(METRIC))})")
    metric, kind, _, _ = METRIC[task]
    value = summary.get(split, {}).get(metric) if isinstance(summary.get(split), dict) else None
    if not isinstance(value, (int, float)):
        raise Refused(f"{os.path.join(d, 'summary.json')}: no {split}.{metric} (a run that finished its {split} "
                      "evaluation has it)")
    data = cfg.get("data", {})
    testset = (data.get("dir"), data.get(split))
    m = SEED_SUFFIX.match(os.path.basename(d))
    system, seed = (m.group("system"), int(m.group("seed"))) if m else (os.path.basename(d), cfg.get("seed"))
    rows, why = None, None
    stats = os.path.join(d, "stats", split + ".tsv")
    try:
        if os.path.isfile(stats):
            rows = seeds_table.read_stats(stats, kind)
        elif not os.path.isdir(os.path.join(d, rescore.SCORERS[task][0])):
            why = f"{d}: no stats/{split}.tsv and no kept outputs ({rescore.SCORERS[task][0]}/) to compute it from"
        else:
            _, fn, _ = rescore.SCORERS[task]
            rows = np.asarray(fn(d, task, root, cfg, split)[0], dtype=float).reshape(-1, len(sig.COLUMNS[kind]))
    except RunError as e:
        why = f"{e.path}: {e.what}"
    except rescore.Skip as e:
        why = f"{d}: {e}"
    except (rescore.Bad, OSError) as e:
        why = f"{d}: outputs not usable ({e})"
    return system, seed, task, testset, float(value), rows, why


def load(dirs, split, root):
    """{system: [(seed, dir, value, rows)]}, the task, the test set; Refused on anything not comparable."""
    systems, tasks, testsets, missing = {}, {}, {}, []
    for d in dirs:
        if not os.path.isdir(d):
            raise Refused(f"{d}: no such run folder")
        system, seed, task, testset, value, rows, why = read_run(d, split, root)
        tasks.setdefault(task, []).append(d)
        testsets.setdefault(testset, []).append(d)
        runs = systems.setdefault(system, [])
        if any(r[0] == seed for r in runs):
            other = next(r[1] for r in runs if r[0] == seed)
            raise Refused(f"{d}: system {system} seed {seed} is also {other}; give each run once")
        runs.append((seed, os.path.normpath(d), value, rows))
        if why:
            missing.append(why)
    if len(tasks) > 1:
        raise Refused("runs of different tasks cannot be compared: " +
                      "; ".join(f"{t}: {', '.join(ds)}" for t, ds in tasks.items()))
    if len(testsets) > 1:
        raise Refused(f"runs scored on different {split} sets cannot be compared: " +
                      "; ".join(f"data.dir {k[0]} {split} {k[1]}: {', '.join(ds)}" for k, ds in testsets.items()))
    for runs in systems.values():
        runs.sort()
    return systems, next(iter(tasks)), next(iter(testsets)), missing


def table(systems, task, testset, split, ref, resamples):
    metric, kind, scale, digits = METRIC[task]
    proto = ("compare", "", "", metric, kind, scale, digits, "")
    stats, best = seeds_table.protocol_rows(proto, systems, reference=ref, resamples=resamples)
    better = "higher" if sig.HIGHER_IS_BETTER[kind] else "lower"
    lines = [f"Task {task}, {split} set {testset[1]} of {testset[0]}: {metric} ({better} is better), "
             f"{len(systems)} systems, {sum(len(r) for r in systems.values())} runs.",
             f"Δ: difference of the means with the 95 % interval and two-sided p of a paired bootstrap over the "
             f"{split} examples and the seeds ({resamples:,} resamples), and Welch's t over the seeds; † where the "
             "bootstrap p < 0.05 as printed (only those are differences).", ""]
    head = "| system | mean ± sd (n) | min–max | seeds | Δ best |" + (f" Δ {ref} |" if ref else "")
    lines += [head, "|---|---:|---:|---|---|" + ("---|" if ref else "")]
    order = sorted(stats, key=lambda c: (-stats[c]["mean"] if sig.HIGHER_IS_BETTER[kind] else stats[c]["mean"], c))
    for name in order:
        st = stats[name]
        spread = f" ± {st['sd']:.{digits}f} ({st['n']})" if st["sd"] is not None else " (one seed)"
        row = (f"| {'**' + name + '**' if name == best else name} | {st['mean']:.{digits}f}{spread} | "
               f"{st['min']:.{digits}f}–{st['max']:.{digits}f} | {', '.join(map(str, st['seeds']))} | "
               f"{seeds_table.fmt_cmp(st['best'], scale, digits) if name != best else '(best)'} |")
        if ref:
            row += f" {seeds_table.fmt_cmp(st['lstm'], scale, digits) if name != ref else '(reference)'} |"
        lines.append(row)
    if any(r[3] is None for runs in systems.values() for r in runs):
        lines += ["", "–: no test of that pair: a run of it has no per-example statistics (why: on stderr)."]
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("runs", nargs="+", metavar="RUN_DIR", help="finished run folders (summary.json in each)")
    ap.add_argument("--ref", default=None, metavar="SYSTEM", help="also compare every system with this one")
    ap.add_argument("--split", default="test", choices=["dev", "test"], help="the split compared (default test)")
    ap.add_argument("--root", default=".", help="where data/ (the prepared references) is, for runs without "
                    "stats/ (default .)")
    ap.add_argument("--resamples", type=int, default=seeds_table.RESAMPLES, help="bootstrap resamples (default "
                    f"{seeds_table.RESAMPLES})")
    ap.add_argument("--out", default=None, metavar="FILE.md", help="also write the table here")
    a = ap.parse_args(argv)
    if a.resamples < 100:
        ap.error(f"--resamples {a.resamples}: at least 100 are needed for a 95 % interval")
    try:
        systems, task, testset, missing = load(a.runs, a.split, a.root)
        if a.ref is not None and a.ref not in systems:
            raise Refused(f"--ref {a.ref}: no such system; the systems are {', '.join(sorted(systems))}")
    except Refused as e:
        print(f"{SCRIPT}: error: {e}", file=sys.stderr)
        return 2
    for why in missing:
        print(f"{SCRIPT}: no significance for {why}", file=sys.stderr)
    text = "\n".join(table(systems, task, testset, a.split, a.ref, a.resamples)) + "\n"
    sys.stdout.write(text)
    if a.out:
        with open(a.out, "w", encoding="utf-8") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
