#!/usr/bin/env python3
"""How far issue 4's speed targets are from the floor the matrix products set (a note for results/speed*).

    python3 tools/speed_floor.py OURS.json TORCH.json [--gemm-gflops 180]

For every 2-thread configuration: the step time a target needs (700 words / (ratio x PyTorch's words/s)), our
measured step, and the time the step's GEMM flops alone take at the FMA peak measured in the same run and at
--gemm-gflops (what OpenBLAS reached on the large softmax products in a --profile run). A target whose needed
time is below the GEMM floor cannot be met by this workload's arithmetic, whatever the element-wise code does.
"""
import argparse
import json

TRAIN_TARGET = {"small": 2.0, "medium": {"lrn": 1.2}}
INFER_TARGET = 1.5

ap = argparse.ArgumentParser()
ap.add_argument("ours")
ap.add_argument("torch")
ap.add_argument("--gemm-gflops", type=float, default=180.0)
a = ap.parse_args()
ours_file = json.load(open(a.ours))
ours = ours_file["records"]
words = ours_file["config"]["batch"] * ours_file["config"]["bptt"]   # 20 x 35 = 700 in torch_speed.md
torch = {(r["cell"], r["shape"]): r for r in json.load(open(a.torch))["records"]}

print(f"| shape | cell | phase | target | needed ms | ours ms | GEMM floor at FMA peak ms | at {a.gemm_gflops:.0f} GFLOP/s ms |")
print("|---|---|---|---:|---:|---:|---:|---:|")
for r in ours:
    t = torch.get((r["cell"], r["shape"]))
    if r["threads"] != 2 or t is None:
        continue
    tt = TRAIN_TARGET[r["shape"]]
    train_ratio = tt if isinstance(tt, float) else tt.get(r["cell"], 1.5)
    for phase, ratio, flops, step in (("train", train_ratio, r["train_step_flops"], r["train_step_s"]),
                                      ("infer", INFER_TARGET, r["infer_step_flops"], r["infer_step_s"])):
        need = words / (ratio * t[f"{phase}_words_s"]) * 1e3
        peak = r["fma_peak_gflops"]
        print(f"| {r['shape']} | {r['cell']} | {phase} | {ratio:.1f}x | {need:.1f} | {step * 1e3:.1f} | "
              f"{flops / peak / 1e6:.1f} | {flops / a.gemm_gflops / 1e6:.1f} |")
