#!/usr/bin/env python3
"""Mends `epochs_done` in the summary.json of committed runs written by a binary before b0dd6a1, which counted
only the epochs of its last invocation (a run resumed twice said 2 of 13). The true count is read from the
run's own metrics.jsonl (the dev records span every invocation; plots/run_files.py epochs_run), so nothing is
typed by hand. The old value is kept beside it, in `epochs_done_mended`, with the reason and this tool's name.
`make rescore` fails on a summary whose epochs_done disagrees with its metrics, naming the run.

  /usr/bin/python3 tools/mend_epochs_done.py [--runs results/runs] [--dry-run]

Each summary is rewritten in the trainer's format (2-space indent, keys sorted) through a temporary file and
a rename, so an interruption leaves it whole. Runs that agree are not touched. Exit 0, 2 on bad usage.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plots"))
from run_files import epochs_done_problem, epochs_run  # noqa: E402


def mend(run, dry_run):
    """The message for one run folder that needed mending, else None."""
    path = os.path.join(run, "summary.json")
    with open(path, encoding="utf-8") as f:
        summary = json.load(f)
    if not epochs_done_problem(run, summary):
        return None
    old, new = summary["epochs_done"], epochs_run(run, summary)
    summary["epochs_done"] = new
    summary["epochs_done_mended"] = {
        "was": old,
        "by": "tools/mend_epochs_done.py",
        "why": "written by a binary that counted the epochs of its last invocation only; the count is the "
               "last epoch of metrics.jsonl's dev records, which span every invocation",
    }
    if not dry_run:
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(summary, f, indent=2, sort_keys=True, ensure_ascii=False)
            f.write("\n")
        os.replace(tmp, path)
    return f"{os.path.basename(os.path.normpath(run))}: epochs_done {old} -> {new}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", default="results/runs", help="folder of run folders (default results/runs)")
    ap.add_argument("--dry-run", action="store_true", help="say what would change, write nothing")
    a = ap.parse_args(argv)
    if not os.path.isdir(a.runs):
        ap.error(f"--runs {a.runs}: not a folder")
    n = 0
    for d in sorted(os.listdir(a.runs)):
        run = os.path.join(a.runs, d)
        if not os.path.isfile(os.path.join(run, "summary.json")):
            continue
        msg = mend(run, a.dry_run)
        if msg:
            n += 1
            print(("would mend " if a.dry_run else "mended ") + msg)
    print(f"mend_epochs_done: {n} summaries {'to mend' if a.dry_run else 'mended'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
