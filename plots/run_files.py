"""Helpers the results-table scripts share for reading committed run folders (results/runs/<name>/)."""
import json
import os


def epochs_run(d, summary):
    """Epochs evaluated over every invocation of the run (summary.json's epochs_done counts the last one only)."""
    path = os.path.join(d, "metrics.jsonl")
    if not os.path.exists(path):
        return summary.get("epochs_done")
    return max((json.loads(l).get("epoch", 0) for l in open(path) if '"dev"' in l), default=0)


def first_command(d):
    """The command that started the run (first line of its command.txt), or ""."""
    path = os.path.join(d, "command.txt")
    return open(path).read().splitlines()[0] if os.path.exists(path) else ""


def write_table(path, lines, rows, script):
    """Appends every run's starting command to `lines` and writes them to `path`."""
    lines = lines + ["Commands (the one that started each run):", ""] + [f"- `{r['run']}`: `{r['cmd']}`" for r in rows]
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{script}: wrote {path} ({len(rows)} runs)")
