#!/usr/bin/env python3
"""How far issue 4's speed targets are from the floor the matrix products set (a note for results/speed*).

    python3 plots/speed_floor.py OURS.json TORCH.json [--gemm-gflops 180]

For every 2-thread configuration of OURS (build/bin/speed's JSON) that TORCH (tasks/speed/torch_reference.py's)
also has: the step time a target needs (batch x bptt words / (ratio x PyTorch's words/s)), our measured step,
and the time the step's GEMM flops alone take at the FMA peak measured in the same run and at --gemm-gflops
(what OpenBLAS reached on the large softmax products in a --profile run). A target whose needed time is below
the GEMM floor cannot be met by this workload's arithmetic, whatever the element-wise code does.
Prints a markdown table; a missing or malformed file is a one-line error naming it (exit 2).
"""
import argparse
import sys

from run_files import RunError, read_json
from speed_table import TARGET_INFER, TARGET_TRAIN   # issue 4's targets, one definition for both scripts


def train_target(shape, cell):
    """The training ratio issue 4 asks for, or None where it sets none (SRU medium)."""
    t = TARGET_TRAIN.get(shape)
    return t.get(cell) if isinstance(t, dict) else t


def floor_rows(ours, torch, gemm_gflops):
    """(shape, cell, phase, target, needed ms, ours ms, floor at FMA peak ms, floor at gemm_gflops ms) rows."""
    words = ours["config"]["batch"] * ours["config"]["bptt"]
    theirs = {(r["cell"], r["shape"]): r for r in torch["records"]}
    rows = []
    for r in ours["records"]:
        t = theirs.get((r["cell"], r["shape"]))
        if r["threads"] != 2 or t is None:
            continue
        for phase, ratio in (("train", train_target(r["shape"], r["cell"])), ("infer", TARGET_INFER)):
            if ratio is None:
                continue
            flops = r[f"{phase}_step_flops"]
            rows.append((r["shape"], r["cell"], phase, ratio, words / (ratio * t[f"{phase}_words_s"]) * 1e3,
                         r[f"{phase}_step_s"] * 1e3, flops / r["fma_peak_gflops"] / 1e6, flops / gemm_gflops / 1e6))
    return rows


def fail(msg):
    print(f"speed_floor.py: {msg}", file=sys.stderr)
    sys.exit(2)


def load(path):
    try:
        obj = read_json(path)
    except RunError as e:
        fail(str(e))
    if not isinstance(obj.get("records"), list):
        fail(f"{path}: expected a list 'records'")
    return obj


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ours")
    ap.add_argument("torch")
    ap.add_argument("--gemm-gflops", type=float, default=180.0)
    a = ap.parse_args()
    ours, torch = load(a.ours), load(a.torch)
    try:
        rows = floor_rows(ours, torch, a.gemm_gflops)
    except RunError as e:           # a missing key, named with its file
        fail(str(e))
    except (TypeError, ZeroDivisionError) as e:
        fail(f"{a.ours} / {a.torch}: a record has an unusable field ({e!r})")
    print(f"| shape | cell | phase | target | needed ms | ours ms | GEMM floor at FMA peak ms "
          f"| at {a.gemm_gflops:.0f} GFLOP/s ms |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for shape, cell, phase, ratio, need, step, at_peak, at_gemm in rows:
        print(f"| {shape} | {cell} | {phase} | {ratio:.1f}x | {need:.1f} | {step:.1f} | {at_peak:.1f} | {at_gemm:.1f} |")


if __name__ == "__main__":
    main()
