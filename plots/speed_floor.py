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
import json
import sys

# Issue 4's targets: training 2x on small, 1.5x on medium (1.2x for LRN); inference 1.5x everywhere.
TRAIN_TARGET = {"small": {}, "medium": {"lrn": 1.2}}
TRAIN_DEFAULT = {"small": 2.0, "medium": 1.5}
INFER_TARGET = 1.5


def train_target(shape, cell):
    return TRAIN_TARGET.get(shape, {}).get(cell, TRAIN_DEFAULT.get(shape, 1.5))


def floor_rows(ours, torch, gemm_gflops):
    """(shape, cell, phase, target, needed ms, ours ms, floor at FMA peak ms, floor at gemm_gflops ms) rows."""
    words = ours["config"]["batch"] * ours["config"]["bptt"]
    theirs = {(r["cell"], r["shape"]): r for r in torch["records"]}
    rows = []
    for r in ours["records"]:
        t = theirs.get((r["cell"], r["shape"]))
        if r["threads"] != 2 or t is None:
            continue
        for phase, ratio in (("train", train_target(r["shape"], r["cell"])), ("infer", INFER_TARGET)):
            flops = r[f"{phase}_step_flops"]
            rows.append((r["shape"], r["cell"], phase, ratio, words / (ratio * t[f"{phase}_words_s"]) * 1e3,
                         r[f"{phase}_step_s"] * 1e3, flops / r["fma_peak_gflops"] / 1e6, flops / gemm_gflops / 1e6))
    return rows


def fail(msg):
    print(f"speed_floor.py: {msg}", file=sys.stderr)
    sys.exit(2)


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            obj = json.load(f)
        if not isinstance(obj, dict) or not isinstance(obj.get("records"), list):
            raise ValueError("expected an object with a list 'records'")
        return obj
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ours")
    ap.add_argument("torch")
    ap.add_argument("--gemm-gflops", type=float, default=180.0)
    a = ap.parse_args()
    ours, torch = load(a.ours), load(a.torch)
    try:
        rows = floor_rows(ours, torch, a.gemm_gflops)
    except (KeyError, TypeError, ZeroDivisionError) as e:
        fail(f"{a.ours} / {a.torch}: a record lacks a usable field ({e!r})")
    print(f"| shape | cell | phase | target | needed ms | ours ms | GEMM floor at FMA peak ms "
          f"| at {a.gemm_gflops:.0f} GFLOP/s ms |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for shape, cell, phase, ratio, need, step, at_peak, at_gemm in rows:
        print(f"| {shape} | {cell} | {phase} | {ratio:.1f}x | {need:.1f} | {step:.1f} | {at_peak:.1f} | {at_gemm:.1f} |")


if __name__ == "__main__":
    main()
