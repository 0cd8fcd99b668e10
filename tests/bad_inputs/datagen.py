"""Tiny well-formed data folders for the smoke experiments (experiments/smoke/<task>_atr.json), written in
the layout each task reads, so that a bad-input case only has to break the one thing it is about.

The tasks' own synthetic generators are C++ functions used by the GoogleTest suite; these are small copies of
their formats, deterministic and fast (a case must run well under a second). NMT's subword model is learned
with Debian's `spm_train` (package sentencepiece, installed by `make deps`) once per folder.
"""
import json
import os
import random
import shutil
import subprocess


def _write(path, lines):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(l + "\n" for l in lines))


def lm(d, rng):
    nouns, verbs = ["cat", "dog", "bird", "child", "river"], ["sees", "likes", "finds"]
    def sent():
        return "the %s %s a %s" % (rng.choice(nouns), rng.choice(verbs), rng.choice(nouns))
    for name, n in (("train", 40), ("valid", 10), ("test", 10)):
        _write(os.path.join(d, name + ".txt"), [sent() for _ in range(n)])


def cws(d, rng):
    chars = [chr(0x4E00 + i) for i in range(12)]
    lexicon = [c for c in chars[:6]] + [a + b for a, b in zip(chars[6:], chars[:6])]
    def tags(w):
        return "S" if len(w) == 1 else "B" + "M" * (len(w) - 2) + "E"
    train_words = set()
    for name, n in (("train", 30), ("dev", 6), ("test", 6)):
        sents = [[rng.choice(lexicon) for _ in range(rng.randint(2, 5))] for _ in range(n)]
        if name == "train":
            train_words.update(w for s in sents for w in s)
        _write(os.path.join(d, name + ".seg"), [" ".join(s) for s in sents])
        _write(os.path.join(d, name + ".bmes"), ["".join(tags(w) for w in s) for s in sents])
    _write(os.path.join(d, "train_words.txt"), sorted(train_words))


def ner(d, rng):
    names, filler = ["Ann", "Bob", "Rome", "Oslo"], ["we", "saw", "in", "the"]
    for name, n in (("train", 20), ("dev", 5), ("test", 5)):
        lines = []
        for _ in range(n):
            for _ in range(rng.randint(2, 4)):
                lines.append(rng.choice(filler) + "\tO")
            w = rng.choice(names)
            lines += [w + "\t" + ("B-person" if w in ("Ann", "Bob") else "B-location"), ""]
        _write(os.path.join(d, name + ".conll"), lines)


def snli(d, rng):
    labels = ["entailment", "neutral", "contradiction"]
    for name, n in (("train", 30), ("dev", 6), ("test", 6)):
        rows = []
        for _ in range(n):
            prem = ["w%d" % rng.randint(0, 9) for _ in range(4)]
            rows.append("%s\t%s\t%s" % (rng.choice(labels), " ".join(prem), " ".join(prem[:2])))
        _write(os.path.join(d, name + ".tsv"), rows)


def classify(d, rng):
    for name, n in (("train", 30), ("dev", 6), ("test", 6)):
        rows = []
        for i in range(n):
            label = i % 2
            rows.append("%d %s w%d w%d" % (label, "good" if label else "bad", rng.randint(0, 9), rng.randint(0, 9)))
        _write(os.path.join(d, name + ".txt"), rows)


def nmt(d, rng):
    for split, n in (("train", 40), ("val", 6), ("test", 6)):
        src, tgt = [], []
        for _ in range(n):
            w = [rng.randint(0, 5) for _ in range(rng.randint(3, 6))]
            src.append(" ".join("a%d" % x for x in w))
            tgt.append(" ".join("u%d" % x for x in reversed(w)))
        _write(os.path.join(d, split + ".tok.src"), src)
        _write(os.path.join(d, split + ".tok.tgt"), tgt)
    spm = shutil.which("spm_train")
    if spm is None:
        raise RuntimeError("spm_train not found: the NMT cases need it (Debian package sentencepiece; `make deps`)")
    os.makedirs(os.path.join(d, "bpe"), exist_ok=True)
    # The special ids the NMT task requires (pad 0, bos 1, eos 2, unk 3), as data_prep/nmt.py learns them.
    subprocess.run([spm, "--input=%s/train.tok.src,%s/train.tok.tgt" % (d, d), "--model_prefix=%s/bpe/joint" % d,
                    "--vocab_size=30", "--model_type=bpe", "--character_coverage=1.0", "--pad_id=0", "--bos_id=1",
                    "--eos_id=2", "--unk_id=3", "--normalization_rule_name=identity", "--num_threads=1",
                    "--minloglevel=2", "--hard_vocab_limit=false"],
                   check=True, capture_output=True)


def rc(d, rng):
    """data_prep/squad.py's splits: paragraphs "<Name> <verb> <Name>." asked "Who <verb> <Name>?"."""
    names, verbs = ["Ann", "Bob", "Eve"], ["met", "saw", "paid"]
    for name, n in (("train", 8), ("heldout", 2), ("dev", 2)):
        lines = []
        for p in range(n):
            who, verb, whom = rng.choice(names), rng.choice(verbs), rng.choice(names)
            context = "%s %s %s." % (who, verb, whom)
            b = [0, len(who) + 1, len(who) + len(verb) + 2, len(context) - 1]
            tokens = [who, verb, whom, "."]
            lines.append(json.dumps({"title": name, "context": context, "tokens": tokens,
                                     "offsets": [[x, x + len(t)] for x, t in zip(b, tokens)],
                                     "qas": [{"id": "%s%d" % (name, p), "question": "Who %s %s?" % (verb, whom),
                                              "question_tokens": ["Who", verb, whom, "?"],
                                              "answers": [{"text": who, "char_start": 0, "span": [0, 0]}]}]}))
        _write(os.path.join(d, name + ".jsonl"), lines)


def generate(task, d, seed=7):
    {"lm": lm, "cws": cws, "ner": ner, "snli": snli, "classify": classify, "nmt": nmt,
     "rc": rc}[task](d, random.Random(seed))
