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
A missing or malformed folder or file is reported on stderr by path and skipped; the exit status is 0 when at
least one figure was written."""
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
from twin_gate import fig2  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", default="results/runs", help="folder of run folders (default results/runs)")
    ap.add_argument("--speed", default="results/speed", help="speed results folder (default results/speed)")
    ap.add_argument("--out", default="results/figures", help="output folder (default results/figures)")
    ap.add_argument("--sentence", type=int, default=None,
                    help="index of the sentence for Fig. 4 and the memory strip (default: the first with 8-16 tokens)")
    args = ap.parse_args(argv)
    setup_fonts()
    report = Report(args.out)
    report.guard("fig2_twin_gate", fig2, report)
    dirs = report.guard(args.runs, run_dirs, args.runs) or []
    if not dirs and os.path.isdir(args.runs):
        report.note(args.runs, "no run folders")
    for d in dirs:
        report.guard(d, fig3, report, d)
        report.guard(d, fig4, report, d, args.sentence)
        report.guard(d, fig_memory, report, d, args.sentence)
    figs_curves(report, dirs)
    report.guard(args.runs, fig_state_norm, report, dirs)
    report.guard(args.runs, fig_seed_strips, report, args.runs)
    report.guard(args.speed, fig_speed, report, args.speed)
    if report.written:
        report.guard(args.out, report.write_manifest)
    print(report.summary())
    return 0 if report.written else 1


if __name__ == "__main__":
    sys.exit(main())
