#!/usr/bin/env python3
"""Prepare the Stanford Sentiment Treebank at sentence level: RAW_DATA/sst/stsa.{binary,fine}.{train,dev,test}
-> data/sst/{sst2,sst5}/{train,dev,test}.txt.

Input (../shared/data/sst/SOURCE.md): Kim (2014)'s files, one sentence per line, `<label> <tokens>` (tokenized,
lowercased; label and text separated by one space). `stsa.binary.*` is SST-2 (0 = negative, 1 = positive,
neutral sentences removed), `stsa.fine.*` SST-5 (0 = very negative ... 4 = very positive). Sentence-level
training only: the phrase-level training files are not among our corpora, so numbers trained on these files are
not comparable with results that train on every labelled phrase of the treebank.

Every line is checked; a bad one stops the script (exit 2) with a message naming file:line: an empty line, a
label that is not an integer, a label outside the set's range (0-1 / 0-4), a line with a label but no text,
invalid UTF-8. The published counts are checked (sentences and per-label counts of every split; --no-check
skips that). Each input may be stored plain or gzipped (`.gz`).

Writes per set folder: {train,dev,test}.txt, one sentence per line `<label> <tokens>` (tokens separated by
one space, LF, UTF-8, source order: the input lines with any CR, leading/trailing and repeated whitespace
removed (ASCII whitespace only: a no-break space inside a token stays); for the shipped files the output is byte-identical to the input), and prep.json (source files with
sha256, per-split sentence and label counts, token statistics, checks). The folder is written to a temporary
folder and renamed into place, so a failed run leaves the previous folder as it was. Standard library only.

Your own data (--own): one file split 80/10/10 by line order (first 80 % of the non-blank lines train, next 10 %
dev, last 10 % test; cut points floor(0.8 n), floor(0.9 n)), or three files train, dev, test. Each line
`label<TAB>text` (the label may hold spaces) or `label text` (label = the first whitespace-separated field); the
text's whitespace tokens are kept as they are (tokenize beforehand if needed); blank lines skipped. Labels are
any strings: when they are exactly the integers 0..K-1 they are kept, otherwise they are numbered 0..K-1 in sorted
order (numerically when all are integers, e.g. 1..5 -> 0..4; else by code point) and the mapping is printed.
labels.txt (`index<TAB>original label`) is written beside the splits either way. A line without label or text,
invalid UTF-8 or an empty file stops naming file:line. Writes OUT/<name>_own/ (default data/sst/<name>_own) and
prints the command that trains experiments/classify/sst2_atr.json on it (with data.num_labels = K).

usage: sst.py [--raw DIR] [--out data/sst] [--set sst2|sst5|all] [--no-check]   (default: all)
       sst.py --own FILE [FILE FILE] [--name NAME] [--out data/sst]
"""
import argparse
import hashlib
import os
import re
import sys

from prep_common import (OWN_HELP, OWN_SPLIT_RULE, TOKEN_SEP, find, new_folder, messages, own_name, own_paths,
                         own_splits, read_stored, read_utf8_lines, stored_info, tokens_of, train_command,
                         write_prep_json)

PROG = "data_prep/sst.py"
fail, warn, note = messages(PROG)
# ASCII whitespace only, as the C++ reader splits (data/text.h split_whitespace): the files hold tokens such as
# "2\u00a01\/2" with a no-break space inside, which str.split() would cut.
ASCII_SPACE = re.compile(r"[ \t\n\v\f\r]+")
SPLITS = ("train", "dev", "test")
SETS = {
    "sst2": {"stem": "stsa.binary", "labels": 2,
             "description": "SST-2: Stanford Sentiment Treebank, binary sentence-level (Kim 2014 splits; neutral "
                            "sentences removed; 0 = negative, 1 = positive); trained on sentences only, no phrases"},
    "sst5": {"stem": "stsa.fine", "labels": 5,
             "description": "SST-5: Stanford Sentiment Treebank, fine-grained sentence-level (Kim 2014 splits; "
                            "0 = very negative ... 4 = very positive); trained on sentences only, no phrases"},
}
# Sentences and label counts per split, from ../shared/data/sst/SOURCE.md (the standard SST splits).
EXPECTED = {
    "sst2": {"train": [3310, 3610], "dev": [428, 444], "test": [912, 909]},
    "sst5": {"train": [1092, 2218, 1624, 2322, 1288], "dev": [139, 289, 229, 279, 165],
             "test": [279, 633, 389, 510, 399]},
}


def read_split(path, num_labels):
    """[(label, tokens)] of one file, and its source info; every line checked."""
    stored, data = read_stored(path, fail)
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    out = []
    for i, raw in enumerate(lines, 1):
        where = f"{path}:{i}"
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            fail(f"{where}: invalid UTF-8 at byte {e.start} of the line ({e.reason}): replace the file with a good copy")
        fields = [f for f in ASCII_SPACE.split(line) if f]
        if not fields:
            fail(f"{where}: empty line: expected `<label> <tokens>` (missing label and text)")
        label = fields[0]
        if not (label.isascii() and label.isdigit()):
            fail(f"{where}: label {label!r} is not an integer: expected `<label> <tokens>` with the label first "
                 f"(missing label?)")
        digits = label.lstrip("0") or "0"  # int() refuses over 4300 digits; the labels have one
        if len(digits) > 1 or int(digits) >= num_labels:
            shown = digits if len(digits) <= 20 else f"{digits[:20]}... ({len(digits)} digits)"
            fail(f"{where}: unknown label {shown}: this set's labels are 0..{num_labels - 1}")
        if len(fields) == 1:
            fail(f"{where}: empty text after the label {label}")
        out.append((int(digits), fields[1:]))
    if not out:
        fail(f"{path}: no sentences")
    return out, stored_info(path, stored, data, lines=len(lines))


def stats(rows, num_labels):
    lens = [len(t) for _, t in rows]
    return {"sentences": len(rows), "labels": [sum(1 for l, _ in rows if l == k) for k in range(num_labels)],
            "tokens": {"total": sum(lens), "max": max(lens), "mean": round(sum(lens) / len(lens), 3)}}


def job(raw, name, no_check):
    spec = SETS[name]
    splits, sources = {}, {}
    for split in SPLITS:
        stem = f"{spec['stem']}.{split}"
        path = find(raw, stem)
        if path is None:
            fail(f"missing {os.path.join(raw, stem)} (or .gz): put Kim (2014)'s SST file there "
                 f"(see ../shared/data/sst/SOURCE.md)")
        rows, info = read_split(path, spec["labels"])
        got = [sum(1 for l, _ in rows if l == k) for k in range(spec["labels"])]
        want = EXPECTED[name][split]
        if not no_check and got != want:
            fail(f"{path}: {len(rows)} sentences with label counts {got}; expected {sum(want)} with {want} (the "
                 f"published SST split, sst/SOURCE.md): not the published file (replace it, or --no-check)")
        info["published_counts_checked"] = not no_check
        splits[split], sources[split] = rows, info
    meta = {"set": name, "description": spec["description"], "num_labels": spec["labels"], "source_files": sources,
            "transformation": "none: each line `<label> <tokens>` re-joined with single spaces (identical for the "
                              "shipped files)"}
    return meta, splits


def write_folder(out, name, meta, splits, extra_files=None):
    """extra_files: {file name: bytes} written beside the splits (own mode: labels.txt)."""
    final = os.path.join(out, name)
    with new_folder(out, name, final) as tmp:
        meta["splits"] = {}
        for split in SPLITS:
            rows = splits[split]
            body = "".join(f"{l} {' '.join(t)}\n" for l, t in rows).encode("utf-8")
            with open(os.path.join(tmp, split + ".txt"), "wb") as f:
                f.write(body)
            meta["splits"][split] = dict(stats(rows, meta["num_labels"]), file=split + ".txt",
                                         sha256=hashlib.sha256(body).hexdigest())
        for fname, data in (extra_files or {}).items():
            with open(os.path.join(tmp, fname), "wb") as f:
                f.write(data)
        meta["format"] = ("{train,dev,test}.txt: one sentence per line, `<label> <tokens>`; label an integer "
                          f"0..{meta['num_labels'] - 1}; tokens separated by one space; LF; UTF-8; source order")
        write_prep_json(tmp, meta)
    note(f"wrote {final}: " + ", ".join(f"{k} {v['sentences']}" for k, v in meta["splits"].items()) + " sentences")


INTEGER = re.compile(r"-?[0-9]+")


def read_own_lines(path):
    """(rows [(label string, tokens)], line numbers, source info) of a user's `label<TAB>text` or `label text`
    file (a line with a TAB splits there, so a label may hold spaces; otherwise at the first whitespace). Blank
    lines are skipped and counted; a line without a label or without text stops naming file:line."""
    lines, info = read_utf8_lines(path, fail)
    rows, line_nos, blank = [], [], []
    for i, line in enumerate(lines, 1):
        where = f"{path}:{i}"
        if not tokens_of(line):
            blank.append(i)
            continue
        if "\t" in line:
            label, text = line.split("\t", 1)
            label = label.strip(" \t\n\v\f\r\u3000")
            if not label:
                fail(f"{where}: empty label before the TAB: expected `label<TAB>text` or `label text`")
        else:
            parts = TOKEN_SEP.split(line.strip(" \t\n\v\f\r\u3000"), 1)
            label, text = parts[0], parts[1] if len(parts) > 1 else ""
        tokens = tokens_of(text)
        if not tokens:
            fail(f"{where}: no text after the label {label!r}: expected `label<TAB>text` or `label text`")
        rows.append((label, tokens))
        line_nos.append(i)
    if not rows:
        fail(f"{path}: no labelled line")
    info.update({"examples": len(rows), "blank_lines_skipped": len(blank), "first_blank_lines": blank[:10]})
    return rows, line_nos, info


def label_map(labels):
    """({original label: index}, kept): integers 0..K-1 are kept; anything else is numbered in sorted order
    (numerically when every label is an integer, else by code point)."""
    if all(INTEGER.fullmatch(l) for l in labels):
        if labels == {str(k) for k in range(len(labels))}:
            return {l: int(l) for l in labels}, True
        order = sorted(labels, key=lambda l: (int(l), l))
    else:
        order = sorted(labels)
    return {l: k for k, l in enumerate(order)}, False


def job_own(paths, name):
    splits, ranges, infos = own_splits(paths, read_own_lines, fail)
    labels = {l for rows in splits.values() for l, _ in rows}
    if len(labels) < 2:
        fail(f"{paths[0]}: only one label ({next(iter(labels))!r}) in all the data: a classifier needs at least 2")
    mapping, kept = label_map(labels)
    num = len(mapping)
    train_labels = {l for l, _ in splits["train"]}
    missing = sorted(labels - train_labels, key=mapping.get)
    if missing:
        print(f"{PROG}: warning: label(s) {', '.join(repr(l) for l in missing)} never occur in the train split "
              f"(only in dev/test): the model cannot learn them", file=sys.stderr)
    splits = {k: [(mapping[l], t) for l, t in rows] for k, rows in splits.items()}
    order = sorted(mapping, key=mapping.get)
    what = (f"{os.path.basename(paths[0])} split 80/10/10 by line order" if len(paths) == 1 else
            "train / dev / test files " + ", ".join(os.path.basename(p) for p in paths))
    meta = {"set": name + "_own", "mode": "own", "description": f"your own classification data '{name}': {what}",
            "num_labels": num, "source_files": dict(zip(("labelled",) if len(paths) == 1 else SPLITS, infos)),
            "split_rule": OWN_SPLIT_RULE + " (items: non-blank lines)",
            "source_lines": {k: {"file": v["file"], "examples": v["items"], "first_line": v["first_line"],
                                 "last_line": v["last_line"]} for k, v in ranges.items()},
            "labels": {"kept": kept, "rule": "integers 0..K-1 kept as they are" if kept else
                       "mapped to 0..K-1 in sorted order (numeric when all labels are integers, else by code point)",
                       "index_to_label": order, "file": "labels.txt"},
            "transformation": "label (before the first TAB, else the first whitespace) mapped as in labels; the "
                              "text's whitespace tokens joined by one space"}
    labels_txt = "".join(f"{mapping[l]}\t{l}\n" for l in order).encode("utf-8")
    return meta, splits, labels_txt, kept


def main():
    raw_root = os.environ.get("RAW_DATA", "../shared/data")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--raw", default=os.path.join(raw_root, "sst"),
                    help="folder holding stsa.{binary,fine}.{train,dev,test} (default $RAW_DATA/sst, "
                         "RAW_DATA defaulting to ../shared/data)")
    ap.add_argument("--out", default="data/sst", help="output root; each set gets its own folder")
    ap.add_argument("--set", choices=("sst2", "sst5", "all"), default="all")
    ap.add_argument("--no-check", action="store_true", help="skip the published-count checks")
    ap.add_argument("--own", nargs="+", metavar="FILE",
                    help=OWN_HELP + " (data/sst/<name>_own by default). Lines `label<TAB>text` or `label text`, any "
                         "label strings (mapped to 0..K-1 unless they are 0..K-1 already; labels.txt)")
    ap.add_argument("--name", help="with --own: the folder name (default: the one file's name without extension)")
    a = ap.parse_args()
    if a.own:
        name = own_name(a.name, own_paths(a.own, fail), fail)
        meta, splits, labels_txt, kept = job_own(a.own, name)
        write_folder(a.out, name + "_own", meta, splits, {"labels.txt": labels_txt})
        order = meta["labels"]["index_to_label"]
        note(("labels kept (integers 0..{}): ".format(len(order) - 1) if kept else
              "labels mapped to 0..{} in sorted order: ".format(len(order) - 1))
             + ", ".join(f"{k} = {l}" for k, l in enumerate(order)) + " (labels.txt)")
        note("train on it (from the repository root):\n  " + train_command(
            "classify", "experiments/classify/sst2_atr.json",
            [("data.dir", os.path.join(a.out, name + "_own")), ("data.num_labels", len(order)),
             ("data.protocol", f"own data {name}"), ("out_dir", f"runs/classify_{name}")]))
        return
    if not os.path.isdir(a.raw):
        fail(f"no folder {a.raw}: --raw is the folder that holds the stsa.* files ($RAW_DATA/sst)")
    names = ("sst2", "sst5") if a.set == "all" else (a.set,)
    jobs = [(n,) + job(a.raw, n, a.no_check) for n in names]  # everything is read and checked before writing
    for name, meta, splits in jobs:
        write_folder(a.out, name, meta, splits)


if __name__ == "__main__":
    main()
