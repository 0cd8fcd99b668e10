"""Helpers the results-table scripts share for reading committed run folders (results/runs/<name>/)."""
import json
import os


def epochs_run(d, summary):
    """Epochs evaluated over every invocation of the run (summary.json's epochs_done counts the last one only)."""
    path = os.path.join(d, "metrics.jsonl")
    if not os.path.exists(path):
        return summary.get("epochs_done")
    return max((json.loads(l).get("epoch", 0) for l in open(path) if '"dev"' in l), default=0)
