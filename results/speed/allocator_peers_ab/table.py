#!/usr/bin/env python3
"""Prints the A/B table of this folder's README from its reports: per shape, cell and phase, each build's median
words/s of ours and of oneDNN's reference LM over the 4 rounds, and ours / oneDNN paired by round."""
import glob
import json
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
runs = {}
for path in glob.glob(os.path.join(HERE, "*_r[0-9].json")):
    build, prog, cell, shape, rnd = os.path.basename(path)[:-5].split("_")
    runs.setdefault((shape, cell, build, prog), {})[rnd] = json.load(open(path))["records"][0]
print("| shape | cell | phase | glibc: ours / oneDNN words/s | glibc: ours / oneDNN per round (median) "
      "| tcmalloc: ours / oneDNN words/s | tcmalloc: ours / oneDNN per round (median) |")
print("|---|---|---|---:|---|---:|---|")
for shape in ("small", "medium"):
    for cell in ("lstm", "gru"):
        for phase in ("train", "infer"):
            key, cols = phase + "_words_s", []
            for build in ("glibc", "tc"):
                ours, dnn = runs[(shape, cell, build, "ours")], runs[(shape, cell, build, "onednn")]
                rounds = sorted(ours)
                ratio = [ours[r][key] / dnn[r][key] for r in rounds]
                cols.append(f"{statistics.median(ours[r][key] for r in rounds):,.0f} / "
                            f"{statistics.median(dnn[r][key] for r in rounds):,.0f}")
                cols.append(" ".join(f"{x:.2f}" for x in ratio) + f" (**{statistics.median(ratio):.3f}**)")
            print(f"| {shape} | {cell} | {phase} | " + " | ".join(cols) + " |")
