#!/usr/bin/python3
"""Writes every figure to <out>/<name>.png and .pdf from committed run folders and speed results alone
(`make figures`; run with /usr/bin/python3, which sees Debian's python3-matplotlib):
  fig2_twin_gate            ATR paper Fig. 2, sigma(x+y) - sigma(x-y) (pure math)
  fig3_gates_<run>          Fig. 3, mean input/forget gate per position with Pearson r (runs with gates.json)
  fig4_arcs_<run>           Fig. 4, dependency arcs over one sentence (ATR/LRN runs with dependencies)
  memory_strip_<run>        LRN memory figure: token weights in the final state (memory.json or dependencies)
  learning_curves_<task>    dev metric against steps and wall time, one line per run
  lm_state_norm             LM training loss, max |h| per layer and gradient norm (runs logging state_abs_max)
  seed_strips               each cell's test metric per seed, per protocol (runs named <run>_s<seed>)
  speed_chart               training / inference words/s per cell (results/speed/lm.json, lm_torch.json, nmt.json)
and <out>/figures.json: each figure's sources and the numbers it shows, and what was skipped.

One figure, or one run: --only NAME[,NAME...] makes only those figures (the names above without the
_<run>/_<task> suffix: fig2, fig3, fig4, memory_strip, learning_curves, lm_state_norm, seed_strips,
speed_chart); --run DIR (repeatable) uses those run folders instead of every folder in --runs, and then writes
to DIR/figures when there is one --run and no --out, e.g.
  /usr/bin/python3 plots/make_figures.py --only fig3 --run /work/runs/lm_atr_small_s1234
A partial call (--only or --run) writes no figures.json, so it never replaces the full set's manifest.
A missing or malformed folder or file is reported on stderr by path and skipped; the exit status is 0 when at
least one figure was written, 1 when none was, 2 on bad options (an unknown --only name, a --run that is not a
run folder)."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import matplotlib  # noqa: F401
except ImportError as e:
    sys.exit(f"make_figures: matplotlib not importable by {sys.executable} ({e}); run with /usr/bin/python3 "
             "(Debian's python3-matplotlib: make deps)")

from fig_common import Report, run_dirs, setup_fonts  # noqa: E402
from dependencies import fig4  # noqa: E402
from gate_correlation import fig3  # noqa: E402
from learning_curves import figs_curves  # noqa: E402
from memory_weights import fig_memory  # noqa: E402
from seed_strips import fig_seed_strips  # noqa: E402
from speed_chart import fig_speed  # noqa: E402
from state_norm import fig_state_norm  # noqa: E402
from tune_table import fig_tuned  # noqa: E402
from twin_gate import fig2  # noqa: E402


FIGURES = ["fig2", "fig3", "fig4", "memory_strip", "learning_curves", "lm_state_norm", "seed_strips",
           "speed_chart", "expected_best"]


# What a run folder needs for each per-run figure: said when a partial call asked for one it cannot give.
NEEDS = {"fig3": "gates.json with gate statistics",
         "fig4": "gates.json with dependencies: ATR and LRN runs that record them",
         "memory_strip": "memory.json, or dependencies in gates.json"}


def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", default="results/runs", help="folder of run folders (default results/runs)")
    ap.add_argument("--run", action="append", default=[], metavar="DIR",
                    help="one run folder (repeatable): only these, instead of every folder in --runs")
    ap.add_argument("--only", default=None, metavar="NAME[,NAME...]",
                    help="only these figures: " + ", ".join(FIGURES))
    ap.add_argument("--speed", default="results/speed", help="speed results folder (default results/speed)")
    ap.add_argument("--sweeps", default=None,
                    help="tools/tune.py sweep folders (default: sweeps/ beside --runs, results/sweeps)")
    ap.add_argument("--out", default=None,
                    help="output folder (default results/figures; DIR/figures for a single --run DIR)")
    ap.add_argument("--sentence", type=int, default=None,
                    help="index of the sentence for Fig. 4 and the memory strip (default: the first with 8-16 tokens)")
    args = ap.parse_args(argv)
    if args.sweeps is None:
        args.sweeps = os.path.join(os.path.dirname(os.path.normpath(args.runs)), "sweeps")
    args.only = set(FIGURES) if args.only is None else {n.strip() for n in args.only.split(",") if n.strip()}
    unknown = sorted(args.only - set(FIGURES))
    if unknown or not args.only:
        ap.error(f"--only {','.join(unknown) or '(empty)'}: not a figure name; known: {', '.join(FIGURES)}")
    for d in args.run:
        if not os.path.isfile(os.path.join(d, "summary.json")) and not os.path.isfile(os.path.join(d, "metrics.jsonl")):
            ap.error(f"--run {d}: not a run folder (no summary.json or metrics.jsonl)")
    if args.out is None:
        args.out = os.path.join(args.run[0], "figures") if len(args.run) == 1 else "results/figures"
    args.partial = bool(args.run) or args.only != set(FIGURES)
    return args


def main(argv=None):
    args = parse(argv)
    setup_fonts()
    report = Report(args.out)
    want = args.only.__contains__
    if want("fig2"):
        report.guard("fig2_twin_gate", fig2, report)
    if args.run:
        dirs = [os.path.normpath(d) for d in args.run]
    else:
        dirs = report.guard(args.runs, run_dirs, args.runs) or []
        if not dirs and os.path.isdir(args.runs):
            report.note(args.runs, "no run folders")
    for d in dirs:
        for name, fn, extra in (("fig3", fig3, ()), ("fig4", fig4, (args.sentence,)),
                                ("memory_strip", fig_memory, (args.sentence,))):
            if not want(name):
                continue
            before = (len(report.written), len(report.skipped))
            report.guard(d, fn, report, d, *extra)
            if args.partial and (len(report.written), len(report.skipped)) == before:
                report.note(d, f"nothing to draw for {name} ({NEEDS[name]})")
    if want("learning_curves"):
        figs_curves(report, dirs)
    if want("lm_state_norm"):
        report.guard(args.runs, fig_state_norm, report, dirs)
    if want("seed_strips"):
        report.guard(args.runs, fig_seed_strips, report, args.runs, dirs if args.run else None)
    if want("speed_chart"):
        report.guard(args.speed, fig_speed, report, args.speed)
    if want("expected_best") and not args.run:
        report.guard(args.sweeps, fig_tuned, report, args.sweeps)
    if report.written and not args.partial:
        report.guard(args.out, report.write_manifest)
    print(report.summary())
    return 0 if report.written else 1


if __name__ == "__main__":
    sys.exit(main())
