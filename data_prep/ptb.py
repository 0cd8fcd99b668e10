#!/usr/bin/env python3
"""Prepare Mikolov's PTB for the LM task: RAW_DATA/ptb/ptb.{train,valid,test}.txt[.gz] -> data/ptb/.

Checks the published counts (tokens incl. one <eos> per line: 929,589 / 73,760 / 82,430; vocabulary
10,000 with <eos>) and writes train.txt, valid.txt, test.txt (one sentence per line), vocab.txt (one word
per line, by descending train count, ties by first appearance: the order the lm binary builds too) and
counts.json. Output is written to a temporary folder and renamed into place, so a failure never leaves a
half-written data/ptb/. Standard library only.

Your own data (--own): plain text, one sentence per line, tokens separated by spaces (ASCII whitespace or U+3000, as
the lm binary splits), UTF-8; blank lines skipped (counted). One file is split 80/10/10 by line order (first 80 %
of the non-blank lines train, next 10 % valid, last 10 % test; cut points floor(0.8 n), floor(0.9 n)); three files
are train, valid, test. The vocabulary is built as for PTB: the training words by descending count (ties by first
appearance), <eos> counted once per line. --vocab-size N (default 10000, PTB's size; 0 = no limit) keeps at most N
entries, <eos> and <unk> included: the N-2 most frequent training words stay and every other word -- rarer
training words and the valid/test words never seen in training -- becomes <unk> in the written files, as Mikolov's
PTB files have it; <unk> is always in vocab.txt (last when it never occurs), so a trained model can score new text.
A literal <eos> in the text is an error (the LM ends every line with it). Writes OUT/<name>_own/ (default
data/lm/<name>_own): train.txt, valid.txt, test.txt, vocab.txt, prep.json (source files with sha256, line ranges,
sentences / tokens / <unk> replacements per split, vocabulary rule); and prints the command that trains
experiments/lm/atr_small.json on it.

usage: ptb.py [--raw DIR] [--out DIR] [--no-check]
       ptb.py --own FILE [FILE FILE] [--name NAME] [--vocab-size N] [--out data/lm]
"""
import argparse
import collections
import io
import json
import os

from prep_common import (OWN_HELP, OWN_SPLIT_RULE, new_folder, messages, own_name, own_paths, own_splits,
                         read_maybe_gz, read_utf8_lines, tokens_of, train_command, write_prep_json)

EXPECTED = {"train": 929589, "valid": 73760, "test": 82430}
EXPECTED_VOCAB = 10000
PROG = "data_prep/ptb.py"
fail, warn, note = messages(PROG)
LM_SPLITS = ("train", "valid", "test")
# experiments/base/lm_small.json (atr_small extends it): train.batch_size and data.eval_batch_size; the binary
# needs at least 2 tokens per batch column, so the printed command lowers them for a tiny corpus.
EXP_BATCH, EXP_EVAL_BATCH = 20, 20


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
    data = read_maybe_gz(path, fail)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:  # decoded whole, so that the message can give the line
        before = data[:e.start].decode("utf-8")
        line = before.count("\n") + before.count("\r") - before.count("\r\n") + 1
        fail(f"{path}:{line}: invalid UTF-8 ({e.reason}, byte 0x{data[e.start]:02x}): replace the file with a "
             f"good copy")
    return [line.split() for line in io.StringIO(text, newline=None)]


def read_own_text(path):
    """(sentences, line numbers, source info): the non-blank lines' tokens; a literal <eos> is an error."""
    lines, info = read_utf8_lines(path, fail)
    sents, nos, blank = [], [], []
    for i, line in enumerate(lines, 1):
        toks = tokens_of(line)
        if not toks:
            blank.append(i)
            continue
        if "<eos>" in toks:
            fail(f"{path}:{i}: the word <eos> is in the text: the LM ends every line with <eos> itself; remove it "
                 f"(one sentence per line, no end marker)")
        sents.append(toks)
        nos.append(i)
    info.update({"sentences": len(sents), "blank_lines_skipped": len(blank), "first_blank_lines": blank[:10]})
    return sents, nos, info


def ordered_vocab(lines):
    """Words of lines (+ one <eos> per line) by descending count, ties by first appearance (as the lm binary)."""
    counts, order = collections.Counter(), {}
    for line in lines:
        for w in line + ["<eos>"]:
            counts[w] += 1
            order.setdefault(w, len(order))
    return sorted(counts, key=lambda w: (-counts[w], order[w])), counts


def job_own(paths, name, vocab_size):
    raw, ranges, infos = own_splits(paths, read_own_text, fail)
    splits = dict(zip(LM_SPLITS, raw.values()))
    ranked, counts = ordered_vocab(splits["train"])
    words = [w for w in ranked if w not in ("<eos>", "<unk>")]
    keep = set(words if vocab_size == 0 else words[:vocab_size - 2])
    out = {s: [[w if w in keep else "<unk>" for w in line] for line in lines] for s, lines in splits.items()}
    vocab, _ = ordered_vocab(out["train"])
    if "<unk>" not in vocab:
        vocab.append("<unk>")
    stats = {}
    for s, lines in out.items():
        n = sum(len(l) for l in lines)
        unk = sum(1 for a, b in zip(splits[s], lines) for x, y in zip(a, b) if y == "<unk>" and x != "<unk>")
        stats[s] = {"sentences": len(lines), "words": n, "tokens_with_eos": n + len(lines),
                    "replaced_by_unk": unk, "replaced_rate": round(unk / n, 6)}
    dropped = len(words) - len(keep)
    what = (f"{os.path.basename(paths[0])} split 80/10/10 by line order" if len(paths) == 1 else
            "train / valid / test files " + ", ".join(os.path.basename(p) for p in paths))
    meta = {"set": name + "_own", "mode": "own", "description": f"your own LM text '{name}': {what}",
            "source_files": dict(zip(("text",) if len(paths) == 1 else LM_SPLITS, infos)),
            "split_rule": OWN_SPLIT_RULE.replace("dev", "valid") + " (items: non-blank lines)",
            "source_lines": {s: {"file": v["file"], "sentences": v["items"], "first_line": v["first_line"],
                                 "last_line": v["last_line"]} for s, v in zip(LM_SPLITS, ranges.values())},
            "vocabulary": {"file": "vocab.txt", "size": len(vocab), "vocab_size_option": vocab_size,
                           "training_word_types": len(words) + ("<unk>" in counts),
                           "training_word_types_replaced_by_unk": dropped,
                           "rule": "training words by descending count, ties by first appearance, <eos> once per "
                                   "line; at most vocab_size entries with <eos> and <unk> (0 = no limit); every "
                                   "other word (rarer training words, unseen valid/test words) written as <unk>; "
                                   "<unk> appended when it never occurs"},
            "splits": stats,
            "format": "train.txt, valid.txt, test.txt: one sentence per line, tokens separated by one space, LF, "
                      "UTF-8, no <eos> (the binary adds it); vocab.txt: one word per line"}
    return meta, out, vocab


def write_own(out, meta, lines, vocab):
    name = meta["set"]
    final = os.path.join(out, name)
    with new_folder(out, name, final) as tmp:
        for s, ls in lines.items():
            with open(os.path.join(tmp, f"{s}.txt"), "w", encoding="utf-8", newline="\n") as f:
                f.writelines(" ".join(l) + "\n" for l in ls)
        with open(os.path.join(tmp, "vocab.txt"), "w", encoding="utf-8", newline="\n") as f:
            f.writelines(w + "\n" for w in vocab)
        write_prep_json(tmp, meta)
    return final


def own_main(a):
    if a.vocab_size < 0 or 0 < a.vocab_size < 3:
        fail(f"--vocab-size {a.vocab_size}: 0 (no limit) or at least 3 (<eos>, <unk> and one word)")
    name = own_name(a.name, own_paths(a.own, fail), fail)
    meta, lines, vocab = job_own(a.own, name, a.vocab_size)
    out = a.out or "data/lm"
    final = write_own(out, meta, lines, vocab)
    s, v = meta["splits"], meta["vocabulary"]
    print(f"{PROG}: wrote {final}: " + ", ".join(
        f"{k} {x['sentences']} sentences / {x['tokens_with_eos']} tokens with <eos> ({x['replaced_by_unk']} <unk>)"
        for k, x in s.items()) + f"; vocabulary {v['size']} ({v['training_word_types_replaced_by_unk']} rarer "
        f"training word types written as <unk>)")
    sets = [("data.dir", final), ("data.vocab", "vocab.txt")]
    batch = min(EXP_BATCH, s["train"]["tokens_with_eos"] // 2)
    evalb = min(EXP_EVAL_BATCH, s["valid"]["tokens_with_eos"] // 2, s["test"]["tokens_with_eos"] // 2)
    if batch < EXP_BATCH or evalb < EXP_EVAL_BATCH:
        print(f"{PROG}: note: a split is too small for {EXP_BATCH} batch columns of 2 tokens or more: the command "
              f"lowers train.batch_size / data.eval_batch_size (a real corpus needs thousands of lines)")
        sets += [("train.batch_size", max(batch, 1)), ("data.eval_batch_size", max(evalb, 1))]
    print(f"{PROG}: train on it (from the repository root):\n  " + train_command(
        "lm", "experiments/lm/atr_small.json", sets + [("out_dir", f"runs/lm_{name}")]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--raw", default=os.path.join(os.environ.get("RAW_DATA", "../shared/data"), "ptb"))
    ap.add_argument("--out", default=None, help="the PTB folder (default data/ptb); with --own the root of "
                                                "<name>_own/ (default data/lm)")
    ap.add_argument("--no-check", action="store_true", help="skip the published-count check (other corpora)")
    ap.add_argument("--own", nargs="+", metavar="FILE",
                    help=OWN_HELP.replace("%% dev", "%% valid").replace("DEV", "VALID") + " (data/lm/<name>_own by "
                         "default). Plain text, one sentence per line, tokens separated by spaces")
    ap.add_argument("--name", help="with --own: the folder name (default: the one file's name without extension)")
    ap.add_argument("--vocab-size", type=int, default=10000,
                    help="with --own: vocabulary entries at most, <eos> and <unk> included (default 10000 as PTB; "
                         "0 = every training word); other words become <unk> in the written files")
    a = ap.parse_args()
    if a.own:
        return own_main(a)
    a.out = a.out or "data/ptb"

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
    with new_folder(parent, "ptb", a.out) as tmp:  # swapped in whole: never a moment without a whole data/ptb
        for s, lines in splits.items():
            with open(os.path.join(tmp, f"{s}.txt"), "w", encoding="utf-8") as f:
                f.writelines(" ".join(l) + "\n" for l in lines)
        with open(os.path.join(tmp, "vocab.txt"), "w", encoding="utf-8") as f:
            f.writelines(w + "\n" for w in vocab)
        with open(os.path.join(tmp, "counts.json"), "w") as f:
            json.dump({"tokens_with_eos": tokens, "lines": {s: len(l) for s, l in splits.items()},
                       "vocab": len(vocab), "raw": os.path.abspath(a.raw)}, f, indent=2)
    print(f"data_prep/ptb.py: wrote {a.out}: tokens {tokens}, vocabulary {len(vocab)}")


if __name__ == "__main__":
    main()
