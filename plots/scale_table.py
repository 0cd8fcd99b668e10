#!/usr/bin/env python3
"""The data-parallel scaling tables of results/scale.md, from the kept run folders of tools/scale_bench.sh
(results/scale/runs/<model>_1x2 and <model>_2x1: one process with 2 threads and 2 MPI ranks with 1 thread each).

Each run folder holds command.txt, config.resolved.json, metrics.jsonl, params.txt and machine.txt. A table row
pairs the two layouts of one model: the trainer's own units/s of every logged training window (metrics.jsonl
"units_s", a window = train.log_every steps; the first includes warm-up), the median window of each layout and
their ratio, the parameter count (params.txt "total") and the bytes one step allreduces (every gradient, float32).
The tables are written into scale.md between the markers

  <!-- scale tables begin (plots/scale_table.py) -->  ...  <!-- scale tables end -->

and nothing else in the file changes (also run by `make tables` when the run folders are there).

usage: scale_table.py [--runs results/scale/runs] [--md results/scale.md]
"""
import argparse
import json
import os
import statistics
import sys

BEGIN = "<!-- scale tables begin (plots/scale_table.py) -->"
END = "<!-- scale tables end -->"
LAYOUTS = (("1x2", "1 process x 2 threads"), ("2x1", "2 ranks x 1 thread"))


class ScaleError(Exception):
    pass


def load_run(path):
    """units_s of every training row, the parameter total, the task, and the command of one kept run."""
    rows = []
    try:
        with open(os.path.join(path, "metrics.jsonl"), encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                try:
                    r = json.loads(line)
                except json.JSONDecodeError as e:
                    raise ScaleError(f"{path}/metrics.jsonl:{n}: not JSON ({e.msg})") from None
                if r.get("split") == "train":
                    rows.append(r)
        with open(os.path.join(path, "params.txt"), encoding="utf-8") as f:
            totals = [ln.split()[-1] for ln in f if ln.startswith("total")]
        with open(os.path.join(path, "command.txt"), encoding="utf-8") as f:
            command = f.read().strip()
        with open(os.path.join(path, "config.resolved.json"), encoding="utf-8") as f:
            cfg = json.load(f)
    except OSError as e:
        raise ScaleError(f"{path}: {e.strerror}: {e.filename}") from None
    if not rows:
        raise ScaleError(f"{path}/metrics.jsonl: no training row")
    if len(totals) != 1 or not totals[0].isdigit():
        raise ScaleError(f"{path}/params.txt: expected one 'total <count>' line")
    task = "nmt" if "decode" in cfg else "lm"
    return {"units_s": [r["units_s"] for r in rows], "steps": [r["step"] for r in rows], "params": int(totals[0]),
            "task": task, "command": command}


def load(runs_dir):
    """{model: {layout: run}} for every <model>_<layout> folder; a model needs both layouts."""
    if not os.path.isdir(runs_dir):
        raise ScaleError(f"{runs_dir}: no such directory (run tools/scale_bench.sh)")
    models = {}
    for name in sorted(os.listdir(runs_dir)):
        model, _, layout = name.rpartition("_")
        if layout not in dict(LAYOUTS):
            raise ScaleError(f"{runs_dir}/{name}: expected <model>_1x2 or <model>_2x1")
        models.setdefault(model, {})[layout] = load_run(os.path.join(runs_dir, name))
    for model, runs in models.items():
        missing = [lay for lay, _ in LAYOUTS if lay not in runs]
        if missing:
            raise ScaleError(f"{runs_dir}: {model} has no {missing[0]} run")
        if runs["1x2"]["params"] != runs["2x1"]["params"]:
            raise ScaleError(f"{runs_dir}: {model}'s two runs have different parameter counts")
    if not models:
        raise ScaleError(f"{runs_dir}: no run folder")
    return models


def render(models):
    out = []
    for task, unit in (("lm", "words"), ("nmt", "target tokens")):
        mine = {m: r for m, r in models.items() if r["1x2"]["task"] == task}
        if not mine:
            continue
        out.append(f"| run | {LAYOUTS[0][1]}, {unit}/s per window | {LAYOUTS[1][1]}, {unit}/s per window | "
                   "median window, 2 ranks / 1 process | parameters | bytes allreduced per step |")
        out.append("|---|---|---|---:|---:|---:|")
        for model, runs in mine.items():
            a, b = runs["1x2"]["units_s"], runs["2x1"]["units_s"]
            ratio = statistics.median(b) / statistics.median(a)
            params = runs["1x2"]["params"]
            out.append(f"| {model} | {' / '.join(f'{u:,.0f}' for u in a)} | {' / '.join(f'{u:,.0f}' for u in b)} | "
                       f"{ratio:.2f} | {params:,} | {params * 4 / 1e6:.1f} MB |")
        out.append("")
    out.append("Commands (each stopped after its last logged window, `tools/scale_bench.sh`):")
    out.append("")
    out.append("```sh")
    for model, runs in models.items():
        for lay, _ in LAYOUTS:
            out.append(runs[lay]["command"])
    out.append("```")
    return "\n".join(out)


def build(runs_dir, md_path):
    models = load(runs_dir)
    with open(md_path, encoding="utf-8") as f:
        text = f.read()
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        raise ScaleError(f"{md_path}: expected one '{BEGIN}' line followed by one '{END}' line")
    head, rest = text.split(BEGIN)
    _, tail = rest.split(END)
    new = f"{head}{BEGIN}\n{render(models)}\n{END}{tail}"
    tmp = md_path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(new)
    os.replace(tmp, md_path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", default="results/scale/runs")
    ap.add_argument("--md", default="results/scale.md")
    a = ap.parse_args()
    try:
        build(a.runs, a.md)
    except ScaleError as e:
        print(f"scale_table.py: error: {e}", file=sys.stderr)
        sys.exit(2)
    print(f"scale_table.py: wrote the tables into {a.md}")


if __name__ == "__main__":
    main()
