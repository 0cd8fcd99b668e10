"""Helpers the data-prep scripts share: finding a plain or gzipped input, writing prep.json and putting a finished output folder in place
atomically (a run that fails leaves the previous folder as it was, never a half-written one)."""
import json
import os
import shutil
import tempfile


def write_prep_json(folder, meta):
    with open(os.path.join(folder, "prep.json"), "w", encoding="utf-8", newline="\n") as f:
        json.dump(meta, f, indent=1, ensure_ascii=False)
        f.write("\n")


def swap_into_place(tmp, final, out, name):
    """Replaces `final` by the finished folder `tmp` (both under `out`): the old folder is moved aside, the new
    one renamed into place, then the old one deleted."""
    old = None
    if os.path.exists(final):
        old = tempfile.mkdtemp(prefix=f".{name}-old-", dir=out)
        os.rename(final, os.path.join(old, "x"))
    os.rename(tmp, final)
    if old:
        shutil.rmtree(old)


def find(folder, name):
    """folder/name or folder/name.gz, whichever exists, else None."""
    for p in (os.path.join(folder, name), os.path.join(folder, name + ".gz")):
        if os.path.isfile(p):
            return p
    return None
