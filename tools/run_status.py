#!/usr/bin/env python3
"""Where long runs stand: one line per run folder, from its own files only (progress.json, metrics.jsonl,
config.resolved.json, summary.json), so it works on runs in flight, stopped ones and finished ones alike.

usage: tools/run_status.py PATH...   (standard library only)
       tools/run_status.py --queue QUEUE_FILE [--queue QUEUE_FILE ...] RUNS_DIR
  PATH: a run folder (it has metrics.jsonl or progress.json) or a folder of run folders, e.g.
  python3 tools/run_status.py /work/runs
  --queue: the runs of tools/run_queue.sh queue files, in queue order, as run_queue.sh names them in RUNS_DIR
  (<task>_<experiment file name>[_s<seed>]): a started one as above, one already in results/runs "collected", any
  other "queued" (not started yet), e.g.
  python3 tools/run_status.py --queue experiments/queues/lm_tf_a.txt --queue experiments/queues/lm_tf_b.txt /work/runs

Columns: the run; finished (its summary's stop reason) or the epoch it is in; the step; the best dev metric
so far; how long ago its log was last written (a run that is not running says so by an old time); its last
logged training speed; and the time left to its last epoch at the median speed of its last log rows (a run
with patience may stop earlier). Steps per epoch come from the checkpoint (the step and the batch within the epoch
it was saved at), so a run still in its first epoch shows no time left. A folder it cannot read is named on
stderr with the reason and skipped; exit status 0 when at least one run was shown, 1 when none, 2 on a PATH
that does not exist.
"""
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

sys.path.insert(0, os.path.join(ROOT, "plots"))
from run_files import RunError, read_json  # noqa: E402   (standard library only, like this script)

PRIMARY = ("bleu", "f1", "accuracy", "ppl")   # a finished run's dev metric, from its summary: the first there
SPEED_ROWS = 5   # the time per step is taken over the last few train log rows


def text_lines(path):
    """The lines of a UTF-8 text file (split at LF); RunError naming the file when it cannot be read."""
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().split("\n")
    except (OSError, UnicodeDecodeError) as e:
        raise RunError(path, f"cannot read ({e})") from None


def read_metrics(path):
    """The JSON rows of metrics.jsonl; a torn last line (a run killed mid-write) is left out, any other bad line
    makes the file unreadable. Unlike run_files.read_metrics it accepts a run in flight: no file yet, no dev
    record yet, a line still being written."""
    if not os.path.exists(path):
        return []
    lines = text_lines(path)
    rows = []
    for k, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            if k == len(lines) - 1 or (k == len(lines) - 2 and not lines[-1]):
                continue   # the last line, still being written
            raise RunError(path, f"line {k + 1} is not JSON") from None
    return rows


def seconds_per_step(train):
    """Seconds per step: the median over the last SPEED_ROWS pairs of consecutive train rows (elapsed_s and step
    both rising between them), so that one pair spanning a pause (a stopped lane, a dev evaluation) does not
    count; None without such a pair."""
    rates = sorted((b["elapsed_s"] - a["elapsed_s"]) / (b["step"] - a["step"]) for a, b in
                   [(a, b) for a, b in zip(train, train[1:]) if b["elapsed_s"] > a["elapsed_s"] and b["step"] > a["step"]]
                   [-SPEED_ROWS:])
    if not rates:
        return None
    n = len(rates)
    return rates[n // 2] if n % 2 else (rates[n // 2 - 1] + rates[n // 2]) / 2


def steps_per_epoch(progress):
    """Steps of one epoch from a checkpoint saved in epoch e (1-based) at batch b and step s: (s - b) / (e - 1);
    None in the first epoch or without a checkpoint."""
    e, b, s = (progress.get(k) for k in ("epoch", "batch", "step"))
    if not all(isinstance(v, int) for v in (e, b, s)) or e < 2 or s - b <= 0:
        return None
    return (s - b) / (e - 1)


def fmt_duration(seconds):
    if seconds is None:
        return "–"
    minutes = int(round(seconds / 60))
    return f"{minutes // 60}h{minutes % 60:02d}m" if minutes >= 60 else f"{minutes}m"


def status(run_dir, now=None):
    """The row of one run folder: a dict of the columns (strings), or RunError."""
    now = time.time() if now is None else now
    name = os.path.basename(os.path.normpath(run_dir))
    metrics_path = os.path.join(run_dir, "metrics.jsonl")
    metrics = read_metrics(metrics_path)
    progress_path = os.path.join(run_dir, "progress.json")
    progress = read_json(progress_path) if os.path.exists(progress_path) else {}
    config_path = os.path.join(run_dir, "config.resolved.json")
    train_cfg = read_json(config_path).get("train", {}) if os.path.exists(config_path) else {}
    summary_path = os.path.join(run_dir, "summary.json")
    summary = read_json(summary_path) if os.path.exists(summary_path) else {}

    train = [r for r in metrics if r.get("split") == "train" and isinstance(r.get("step"), (int, float))
             and isinstance(r.get("elapsed_s"), (int, float))]
    steps = [r["step"] for r in metrics if isinstance(r.get("step"), (int, float))]
    step = max(steps + [progress.get("step", 0) if isinstance(progress.get("step"), int) else 0])
    max_epochs = train_cfg.get("max_epochs", 0)
    max_steps = train_cfg.get("max_steps", 0)

    row = {"run": name, "step": f"{step:,}", "best": "–", "log": "–", "speed": "–", "left": "–"}
    best = progress.get("best", {})
    if progress.get("has_best") and isinstance(best.get("primary"), (int, float)):
        row["best"] = f"{best.get('name', 'dev')} {best['primary']:.4g}"
    if os.path.exists(metrics_path):
        row["log"] = fmt_duration(max(0.0, now - os.path.getmtime(metrics_path))) + " ago"
    if train and isinstance(train[-1].get("units_s"), (int, float)):
        row["speed"] = f"{train[-1]['units_s']:,.0f}/s"
    if summary.get("stop_reason"):
        dev = summary.get("dev") if isinstance(summary.get("dev"), dict) else {}
        metric = next((k for k in PRIMARY if isinstance(dev.get(k), (int, float))), None)
        if metric:
            row["best"] = f"{metric} {dev[metric]:.4g}"
        row["state"] = f"finished ({summary['stop_reason']})"
        row["left"] = "0m"
        return row
    epoch = max([r.get("epoch", 0) for r in metrics if isinstance(r.get("epoch"), int)]
                + [progress.get("epoch", 0) if isinstance(progress.get("epoch"), int) else 0])
    row["state"] = (f"epoch {epoch} of {max_epochs}" if max_epochs else f"epoch {epoch}") if epoch else "not started"
    spe = steps_per_epoch(progress)
    total = max_epochs * spe if (max_epochs and spe) else None
    if max_steps:
        total = min(total, max_steps) if total else max_steps
    sps = seconds_per_step(train)
    if total and sps:
        row["left"] = fmt_duration(max(0.0, total - step) * sps)
    return row


def run_folders(path):
    """path itself when it is a run folder, else its sub-folders that are (sorted)."""
    is_run = lambda d: any(os.path.exists(os.path.join(d, f)) for f in ("metrics.jsonl", "progress.json"))
    if is_run(path):
        return [path]
    return [os.path.join(path, n) for n in sorted(os.listdir(path))
            if os.path.isdir(os.path.join(path, n)) and is_run(os.path.join(path, n))]


def queue_runs(path):
    """[(run name, queue line number)] of a run_queue.sh queue file, in order: "task experiment.json [flags]" per
    line (# comments and blank lines skipped), one run per seed of a --seeds list. RunError on a line
    run_queue.sh would refuse."""
    lines = text_lines(path)
    runs = []
    for n, line in enumerate(lines, 1):
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if len(words) < 2 or not words[1].endswith(".json"):
            raise RunError(f"{path}:{n}", "expected 'task experiment.json [flags]'")
        name = f"{words[0]}_{os.path.basename(words[1])[:-len('.json')]}"
        seeds = None
        if "--seeds" in words:
            k = words.index("--seeds")
            seeds = [x for x in (words[k + 1] if k + 1 < len(words) else "").split(",") if x]
            if not seeds:
                raise RunError(f"{path}:{n}", "--seeds needs a list, e.g. --seeds 1234,1,2")
        runs += [(f"{name}_s{x}", n) for x in seeds] if seeds else [(name, n)]
    return runs


def queued_row(runs_dir, name):
    """The row of a queued run: its folder's status when it has started, else collected or queued."""
    d = os.path.join(runs_dir, name)
    if os.path.isdir(d) and run_folders(d) == [d]:
        return status(d)
    row = {"run": name, "step": "–", "best": "–", "log": "–", "speed": "–", "left": "–", "state": "queued"}
    if os.path.exists(os.path.join(ROOT, "results", "runs", name, "summary.json")):
        row["state"] = "collected (results/runs)"
    return row


COLUMNS = [("run", "run"), ("state", "state"), ("step", "step"), ("best", "best dev"), ("log", "last log"),
           ("speed", "train speed"), ("left", "time left")]


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    queues, paths, k = [], [], 0
    while k < len(argv):
        if argv[k] == "--queue":
            if k + 1 >= len(argv):
                print("run_status.py: --queue needs a queue file", file=sys.stderr)
                return 2
            queues.append(argv[k + 1])
            k += 2
        else:
            paths.append(argv[k])
            k += 1
    if queues:
        return main_queues(queues, paths)
    rows = []
    for path in paths:
        if not os.path.isdir(path):
            print(f"run_status.py: {path}: no such folder", file=sys.stderr)
            return 2
        for d in run_folders(path):
            try:
                rows.append(status(d))
            except RunError as e:
                print(f"run_status.py: skipped {d}: {e}", file=sys.stderr)
    if not rows:
        print("run_status.py: no run folders (with metrics.jsonl or progress.json) under " + " ".join(argv),
              file=sys.stderr)
        return 1
    print_table(rows)
    return 0


def print_table(rows, extra=()):
    columns = list(extra) + COLUMNS
    print("| " + " | ".join(h for _, h in columns) + " |")
    print("|" + "---|" * len(columns))
    for r in rows:
        print("| " + " | ".join(f"`{r[k]}`" if k == "run" else r[k] for k, _ in columns) + " |")


def main_queues(queues, paths):
    """--queue: the queues' runs in RUNS_DIR, in queue order, with the queue and line each comes from."""
    if len(paths) != 1 or not os.path.isdir(paths[0]):
        print("run_status.py: --queue takes one RUNS_DIR, the folder run_queue.sh runs into"
              + (f" ({paths[0]}: no such folder)" if len(paths) == 1 else ""), file=sys.stderr)
        return 2
    rows = []
    for q in queues:
        try:
            runs = queue_runs(q)
        except RunError as e:
            print(f"run_status.py: {e}", file=sys.stderr)
            return 2
        for name, line in runs:
            try:
                row = queued_row(paths[0], name)
            except RunError as e:
                print(f"run_status.py: skipped {os.path.join(paths[0], name)}: {e}", file=sys.stderr)
                continue
            rows.append(dict(row, queue=f"{os.path.basename(q)}:{line}"))
    if not rows:
        print("run_status.py: the queue files name no runs", file=sys.stderr)
        return 1
    print_table(rows, extra=[("queue", "queue line")])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
