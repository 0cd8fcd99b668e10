"""Helpers the plot tests share for editing copies of their fixture run folders (not a test: the ctest glob
takes tests/plots/test_*.py only)."""
import json
import os
import shutil


def edit_json(path, edit):
    """Rewrites a JSON file in place after edit(obj) changed it."""
    with open(path, encoding="utf-8") as f:
        j = json.load(f)
    edit(j)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(j, f)


def copy_runs(src, tmp):
    """A copy of the fixture run folders `src` as tmp/runs, to edit without touching the fixtures."""
    runs = os.path.join(tmp, "runs")
    shutil.copytree(src, runs)
    return runs
