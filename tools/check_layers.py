#!/usr/bin/env python3
"""Checks that every #include inside core/ points down the layers (or within its own module), and lists each
one that points up, naming file, line and the two modules. Exit 0 when none does, 1 otherwise.

The layers, bottom first (a module may include itself and the modules before it):
  base   types, checks, RNG, threads, the JSON reader, matrix products (gemm routing), the profiler, file writes
  data   vocabularies, batching, text files (no graph: the double-precision engine is built without it)
  eval   scoring shared by the tasks (accuracy and confusion, entity spans, BLEU and chrF, word segmentation)
  graph  the tape and parameters
  ops    differentiable operations
  optim  optimisers, schedules and their configuration
  nn     layers (linear, embedding, attention; pretrained vectors from a data/ vocabulary)
  rnn    the cells and the sequence driver
  train  config, checkpoints, run folders, the trainer loop, the command line

usage: tools/check_layers.py [--core core]
"""
import argparse
import os
import re
import sys

LAYERS = ["base", "data", "eval", "graph", "ops", "optim", "nn", "rnn", "train"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"')


def upward_includes(core):
    """[(path, line number, module, included module)] of every include of a later layer (or an unknown one)."""
    bad = []
    for root, _, files in os.walk(core):
        for f in sorted(files):
            if not f.endswith((".h", ".cc")):
                continue
            path = os.path.join(root, f)
            mod = os.path.relpath(path, core).split(os.sep)[0]
            with open(path, encoding="utf-8") as fh:
                for n, line in enumerate(fh, 1):
                    m = INCLUDE.match(line)
                    if not m or m.group(1) == mod:
                        continue
                    inc = m.group(1)
                    if mod not in LAYERS or inc not in LAYERS or LAYERS.index(inc) > LAYERS.index(mod):
                        bad.append((path, n, mod, inc))
    return sorted(bad)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--core", default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "core"))
    a = ap.parse_args(argv)
    bad = upward_includes(a.core)
    for path, n, mod, inc in bad:
        why = "not in the layer list" if mod not in LAYERS or inc not in LAYERS else "points up"
        print(f"{path}:{n}: {mod} includes {inc}/ ({why}; layers bottom first: {' < '.join(LAYERS)})")
    print(f"check_layers: {len(bad)} include(s) against the layer order in {a.core}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
