#!/usr/bin/env python3
"""Prepare Mikolov's PTB for the LM task: RAW_DATA/ptb/ptb.{train,valid,test}.txt[.gz] -> data/ptb/.

Checks the published counts (tokens incl. one <eos> per line: 929,589 / 73,760 / 82,430; vocabulary
10,000 with <eos>) and writes train.txt, valid.txt, test.txt (one sentence per line), vocab.txt (one word
per line, by descending train count, ties by first appearance: the order the lm binary builds too) and
counts.json. Output is written to a temporary folder and renamed into place, so a failure never leaves a
half-written data/ptb/. Standard library only.

usage: ptb.py [--raw DIR] [--out DIR] [--no-check]
"""
import argparse
import collections
import gzip
import io
import json
import os
import shutil
import sys
import tempfile
import zlib

EXPECTED = {"train": 929589, "valid": 73760, "test": 82430}
EXPECTED_VOCAB = 10000


def fail(msg):
    print(f"data_prep/ptb.py: error: {msg}", file=sys.stderr)
    sys.exit(2)


def find_split(raw, split):
    for name in (f"ptb.{split}.txt", f"ptb.{split}.txt.gz"):
        p = os.path.join(raw, name)
        if os.path.isfile(p):
            return p
    fail(f"missing {os.path.join(raw, f'ptb.{split}.txt')} (or .gz). Put Mikolov's PTB files "
         f"(simple-examples/data/ptb.{{train,valid,test}}.txt) in {raw}, or set RAW_DATA to the folder "
         f"that holds ptb/.")


def read_lines(path):
    """The whitespace tokens of each line; lines end at LF, CRLF or CR (Python's universal newlines)."""
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rb") as f:
            data = f.read()
    except (OSError, EOFError, zlib.error) as e:  # zlib.error: a damaged deflate stream inside the .gz
        fail(f"cannot read {path}: {e}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:  # decoded whole, so that the message can give the line
        before = data[:e.start].decode("utf-8")
        line = before.count("\n") + before.count("\r") - before.count("\r\n") + 1
        fail(f"{path}:{line}: invalid UTF-8 ({e.reason}, byte 0x{data[e.start]:02x}): replace the file with a "
             f"good copy")
    return [line.split() for line in io.StringIO(text, newline=None)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--raw", default=os.path.join(os.environ.get("RAW_DATA", "../shared/data"), "ptb"))
    ap.add_argument("--out", default="data/ptb")
    ap.add_argument("--no-check", action="store_true", help="skip the published-count check (other corpora)")
    a = ap.parse_args()

    paths, splits = {}, {}  # (the paths for the messages: each names the file it is about)
    for s in ("train", "valid", "test"):
        paths[s] = find_split(a.raw, s)
        splits[s] = read_lines(paths[s])
    counts = collections.Counter()
    order = {}
    for line in splits["train"]:
        for w in line + ["<eos>"]:
            counts[w] += 1
            order.setdefault(w, len(order))
    vocab = sorted(counts, key=lambda w: (-counts[w], order[w]))
    tokens = {s: sum(len(l) + 1 for l in lines) for s, lines in splits.items()}
    for s, lines in splits.items():
        if not lines or tokens[s] == len(lines):
            fail(f"{paths[s]}: split {s} is empty (no words)")
    if not a.no_check:
        for s, n in EXPECTED.items():
            if tokens[s] != n:
                fail(f"{paths[s]}: {tokens[s]} tokens (with <eos>), expected {n}: this is not Mikolov's PTB "
                     f"(use --no-check for another corpus)")
        if len(vocab) != EXPECTED_VOCAB:
            fail(f"{paths['train']}: vocabulary of {len(vocab)} words, expected {EXPECTED_VOCAB}")
    known = set(vocab)
    for s in ("valid", "test"):
        oov = sum(1 for l in splits[s] for w in l if w not in known)
        if oov and "<unk>" not in known:
            fail(f"{paths[s]}: {oov} words outside the training vocabulary and no <unk> in {paths['train']}")

    parent = os.path.dirname(os.path.abspath(a.out)) or "."
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".ptb-", dir=parent)
    try:
        for s, lines in splits.items():
            with open(os.path.join(tmp, f"{s}.txt"), "w", encoding="utf-8") as f:
                f.writelines(" ".join(l) + "\n" for l in lines)
        with open(os.path.join(tmp, "vocab.txt"), "w", encoding="utf-8") as f:
            f.writelines(w + "\n" for w in vocab)
        with open(os.path.join(tmp, "counts.json"), "w") as f:
            json.dump({"tokens_with_eos": tokens, "lines": {s: len(l) for s, l in splits.items()},
                       "vocab": len(vocab), "raw": os.path.abspath(a.raw)}, f, indent=2)
        if os.path.exists(a.out):
            shutil.rmtree(a.out)
        os.rename(tmp, a.out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    print(f"data_prep/ptb.py: wrote {a.out}: tokens {tokens}, vocabulary {len(vocab)}")


if __name__ == "__main__":
    main()
