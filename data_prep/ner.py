#!/usr/bin/env python3
"""Prepare named-entity recognition data: RAW_DATA/wnut17 -> data/ner/wnut17/{train,dev,test}.conll, and, when a
user has CoNLL-2003 (not redistributable, ../shared/data/wnut17/SOURCE.md says why), its eng.train / eng.testa /
eng.testb -> data/ner/conll2003/{train,dev,test}.conll with --conll2003 DIR.

Input: column files, one token per line with its tag in the last column (WNUT-17: `token<TAB>tag`, BIO;
CoNLL-2003: `token POS chunk tag`, IOB1, `-DOCSTART-` lines), sentences separated by blank lines (WNUT-17's
training file also separates them with lines holding only a TAB). Every line is checked; a bad one stops the
script (exit 2) naming file:line: invalid UTF-8, one column, a different number of columns than the file's
first token line, a tag that is neither O nor B-/I-/E-/S- plus a type. The published WNUT-17 counts (sentences
and tokens per split, wnut17/SOURCE.md) are checked (--no-check skips that).

Writes per set: {train,dev,test}.conll with every token line's columns joined by one space, one blank line
after each sentence, `-DOCSTART-` lines dropped (the C++ reader also skips them), tags unchanged (the reader
takes any of IOB1, BIO, BIOES), LF, UTF-8; and prep.json (source files with sha256, per-split sentence, token
and entity counts per type). Written to a temporary folder and renamed into place, so a failed run leaves the
previous folder as it was. Standard library only.

Your own data (--own): one CoNLL file split 80/10/10 by sentence order (first 80 % of the sentences train, next
10 % dev, last 10 % test; cut points floor(0.8 n), floor(0.9 n)), or three files train, dev, test; any number of
columns, tag last, IOB1 / BIO / BIOES (detected per file and recorded; a file mixing E-/S- tags with I- tags that
start an entity is an error), the same line checks as above -> OUT/<name>_own/ (default data/ner/<name>_own) with
prep.json (source files with sha256, the sentence ranges, counts per split and entity type, tag schemes). It
prints the command that trains experiments/ner/wnut17_atr.json on the result.

usage: ner.py [--raw DIR] [--conll2003 DIR] [--out data/ner] [--no-check]
       ner.py --own FILE [FILE FILE] [--name NAME] [--out data/ner]
"""
import argparse
import hashlib
import os
import re
import sys

from prep_common import (OWN_HELP, OWN_SPLIT_RULE, new_folder, messages, own_name, own_paths, own_splits,
                         train_command, write_prep_json)

PROG = "data_prep/ner.py"
fail, warn, note = messages(PROG)
ASCII_SPACE = re.compile(r"[ \t\n\v\f\r]+")
TAG = re.compile(r"^(O|[BIES]-.+)$")
SPLITS = ("train", "dev", "test")
WNUT_FILES = {"train": "wnut17train.conll", "dev": "emerging.dev.conll", "test": "emerging.test.annotated"}
CONLL_FILES = {"train": "eng.train", "dev": "eng.testa", "test": "eng.testb"}
# Sentences and tokens per split, ../shared/data/wnut17/SOURCE.md (the published WNUT-17 statistics).
WNUT_EXPECTED = {"train": (3394, 62730), "dev": (1009, 15733), "test": (1287, 23394)}


def entities(tags):
    """Entity types of one sentence's tags by conlleval's chunk rules (core/eval/spans.h)."""
    out, prev_p, prev_t, open_type = [], "O", "", None
    for tag in tags + ["O"]:
        p, t = (tag, "") if tag == "O" else (tag[0], tag[2:])
        ends = prev_p in "ES" or (prev_p in "BI" and p in "BSO") or (prev_p != "O" and prev_t != t)
        if open_type is not None and ends:
            out.append(open_type)
            open_type = None
        starts = p in "BS" or (p in "EI" and prev_p in "ESO") or (p != "O" and prev_t != t)
        if starts:
            open_type = t
        prev_p, prev_t = p, t
    return out


def read_columns(path, starts=None):
    """[[(columns...)]] sentences of one column file, and its source info; every line checked. A leading UTF-8
    byte-order mark is dropped. With a list `starts`, the line number of each sentence's first token is appended
    to it (a sentence's tokens are consecutive lines)."""
    try:
        with open(path, "rb") as f:
            stored = f.read()
    except OSError as e:
        fail(f"cannot read {path}: {e}")
    sentences, cur, columns, first = [], [], 0, 0
    for i, raw in enumerate(stored.split(b"\n"), 1):
        where = f"{path}:{i}"
        if i == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            fail(f"{where}: invalid UTF-8 at byte {e.start} of the line ({e.reason})")
        fields = [f for f in ASCII_SPACE.split(line) if f]
        if not fields or fields[0] == "-DOCSTART-":
            if cur:
                sentences.append(cur)
            cur = []
            continue
        if not cur and starts is not None:
            starts.append(i)
        if len(fields) < 2:
            fail(f"{where}: one column ({fields[0]!r}); expected the token first and its tag last")
        if columns == 0:
            columns, first = len(fields), i
        if len(fields) != columns:
            fail(f"{where}: {len(fields)} columns, but the file's first token line ({first}) has {columns}")
        if not TAG.match(fields[-1]):
            fail(f"{where}: tag {fields[-1]!r} is neither O nor B-, I-, E- or S- followed by an entity type")
        cur.append(tuple(fields))
    if cur:
        sentences.append(cur)
    if not sentences:
        fail(f"{path}: no sentences")
    return sentences, {"path": os.path.abspath(path), "bytes": len(stored),
                       "sha256": hashlib.sha256(stored).hexdigest()}


def split_stats(sentences):
    types = {}
    for s in sentences:
        for t in entities([c[-1] for c in s]):
            types[t] = types.get(t, 0) + 1
    return {"sentences": len(sentences), "tokens": sum(len(s) for s in sentences),
            "entities": sum(types.values()), "entities_per_type": dict(sorted(types.items()))}


def job(raw, files, expected):
    splits, sources = {}, {}
    for split in SPLITS:
        path = os.path.join(raw, files[split])
        if not os.path.isfile(path):
            fail(f"missing {path}")
        sentences, info = read_columns(path)
        got = (len(sentences), sum(len(s) for s in sentences))
        if expected and got != expected[split]:
            fail(f"{path}: {got[0]} sentences, {got[1]} tokens; expected {expected[split][0]}, {expected[split][1]} "
                 f"(the published counts): not the published file (replace it, or --no-check)")
        info["published_counts_checked"] = bool(expected)
        splits[split], sources[split] = sentences, info
    return splits, sources


def write_folder(out, name, description, splits, sources, extra=None):
    final = os.path.join(out, name)
    with new_folder(out, name, final) as tmp:
        meta = {"set": name, "description": description, "source_files": sources, "splits": {},
                "transformation": "columns joined by one space, one blank line after each sentence, -DOCSTART- "
                                  "lines dropped; tokens and tags unchanged"}
        meta.update(extra or {})
        for split in SPLITS:
            body = "".join("".join(" ".join(c) + "\n" for c in s) + "\n" for s in splits[split]).encode("utf-8")
            with open(os.path.join(tmp, split + ".conll"), "wb") as f:
                f.write(body)
            meta["splits"][split] = dict(split_stats(splits[split]), file=split + ".conll",
                                         sha256=hashlib.sha256(body).hexdigest())
        write_prep_json(tmp, meta)
    print(f"{PROG}: wrote {final}: " + ", ".join(
        f"{k} {v['sentences']} sentences / {v['entities']} entities" for k, v in meta["splits"].items()))


def tag_scheme(path, sentences, starts):
    """BIOES (E- or S- tags), IOB1 (an I- tag starts an entity: after O or another type) or BIO; a file that mixes
    E-/S- tags with entity-starting I- tags is an error naming both lines."""
    es, i_start = None, None
    for s, first in zip(sentences, starts):
        prev = "O"
        for k, cols in enumerate(s):
            tag = cols[-1]
            if tag[0] in "ES" and es is None:
                es = (first + k, tag)
            if tag[0] == "I" and (prev == "O" or prev[2:] != tag[2:]) and i_start is None:
                i_start = (first + k, tag, prev)
            prev = tag
    if es and i_start:
        fail(f"{path}:{i_start[0]}: tag {i_start[1]!r} after {i_start[2]!r} starts an entity with I- (IOB1), but "
             f"line {es[0]} has {es[1]!r} (BIOES): use one scheme per file (IOB1, BIO or BIOES)")
    return "BIOES" if es else "IOB1" if i_start else "BIO"


def job_own(paths, name):
    """The user's CoNLL files: one (split 80/10/10 by sentence order) or three (train, dev, test)."""
    schemes = {}

    def read_one(path):
        starts = []
        sentences, info = read_columns(path, starts)
        schemes[path] = info["tag_scheme"] = tag_scheme(path, sentences, starts)
        info["sentences"] = len(sentences)
        return sentences, [(a, a + len(s) - 1) for a, s in zip(starts, sentences)], info

    splits, ranges, infos = own_splits(paths, read_one, fail)
    if len(set(schemes.values())) > 1:
        print(f"{PROG}: warning: the files use different tag schemes ({', '.join(f'{p}: {s}' for p, s in schemes.items())}); "
              f"the reader takes each as it is", file=sys.stderr)
    sources = dict(zip(("conll",) if len(paths) == 1 else SPLITS, infos))
    extra = {"mode": "own", "split_rule": OWN_SPLIT_RULE + " (items: sentences)",
             "source_lines": {k: {"file": v["file"], "sentences": v["items"], "first_line": v["first_line"],
                                  "last_line": v["last_line"]} for k, v in ranges.items()},
             "tag_schemes": schemes}
    what = (f"{os.path.basename(paths[0])} split 80/10/10 by sentence order" if len(paths) == 1 else
            "train / dev / test files " + ", ".join(os.path.basename(p) for p in paths))
    return name + "_own", f"your own NER data '{name}': {what}", splits, sources, extra


def main():
    raw_root = os.environ.get("RAW_DATA", "../shared/data")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--raw", default=os.path.join(raw_root, "wnut17"),
                    help="folder holding the WNUT-17 files (default $RAW_DATA/wnut17)")
    ap.add_argument("--conll2003", default=None, help="folder holding CoNLL-2003's eng.train, eng.testa, eng.testb")
    ap.add_argument("--out", default="data/ner", help="output root; each set gets its own folder")
    ap.add_argument("--no-check", action="store_true", help="skip the published-count checks")
    ap.add_argument("--own", nargs="+", metavar="FILE",
                    help=OWN_HELP + " (data/ner/<name>_own by default). Column files: `token ... tag` per line, tag "
                         "last (IOB1, BIO or BIOES), any number of columns, blank line between sentences, -DOCSTART- "
                         "lines dropped; every line checked as for WNUT-17 (file:line on error)")
    ap.add_argument("--name", help="with --own: the folder name (default: the one file's name without extension)")
    a = ap.parse_args()
    if a.own:
        name = own_name(a.name, own_paths(a.own, fail), fail)
        folder, description, splits, sources, extra = job_own(a.own, name)
        write_folder(a.out, folder, description, splits, sources, extra)
        final = os.path.join(a.out, folder)
        print(f"{PROG}: tag schemes: " + ", ".join(f"{p}: {s}" for p, s in extra["tag_schemes"].items())
              + " (the binary reads any of them; data.scheme picks what the CRF learns)")
        print(f"{PROG}: train on it (from the repository root):\n  " + train_command(
            "ner", "experiments/ner/wnut17_atr.json",
            [("data.dir", final), ("data.protocol", f"own data {name}"), ("out_dir", f"runs/ner_{name}")]))
        return
    jobs = []
    if not os.path.isdir(a.raw):
        fail(f"no folder {a.raw}: --raw is the folder that holds the WNUT-17 files ($RAW_DATA/wnut17)")
    jobs.append(("wnut17", "WNUT-17 emerging and rare entities (English social media; BIO; 6 types)")
                + job(a.raw, WNUT_FILES, None if a.no_check else WNUT_EXPECTED))
    if a.conll2003:
        jobs.append(("conll2003", "CoNLL-2003 English NER (Reuters; 4 types)") + job(a.conll2003, CONLL_FILES, None))
    for name, description, splits, sources in jobs:   # everything is read and checked before writing
        write_folder(a.out, name, description, splits, sources)


if __name__ == "__main__":
    main()
