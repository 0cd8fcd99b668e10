#!/usr/bin/python3
"""The tiny generated data of tools/check_task_outputs.py: every task's corpus, written at an experiment's own
relative data.dir in the files its data keys name (splits, extensions, vocab.txt, NMT's languages, forms and
subword models, and data.embeddings' vectors file: the generated words' fixed vectors).

--print-config reads the data, and the experiments' data (data/ptb, data/multi30k, ...) is absent in a fresh
clone or CI, so every command of the check runs on this instead. The data comes from this module alone, from
fixed seeds (its own generator, not Python's `random`), and NMT's SentencePiece model is written directly as a
model file (a fixed BPE vocabulary, no spm_train), so the inputs are the same bytes on every machine. Changing
the generator changes every platform's baseline (tests/golden/task_outputs*.json).
"""
import hashlib
import json
import os
import struct


class SetupError(Exception):
    """A setup problem of the check itself (exit 2), not a difference of the binaries."""


class Lcg:
    """A fixed 64-bit linear congruential generator (Knuth's MMIX constants): the same numbers everywhere."""

    def __init__(self, seed):
        self.x = (seed * 6364136223846793005 + 1442695040888963407) % (1 << 64)

    def below(self, n):
        self.x = (self.x * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        return (self.x >> 33) % n

    def choice(self, seq):
        return seq[self.below(len(seq))]

    def between(self, lo, hi):   # inclusive
        return lo + self.below(hi - lo + 1)


def write_lines(path, lines):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("".join(l + "\n" for l in lines))


SPLIT_SIZES = {"train": 48, "dev": 8, "test": 8}


def gen_lm(d, data, rng):
    nouns = ["cat", "dog", "bird", "child", "river", "tree", "house", "car"]
    verbs = ["sees", "likes", "finds", "follows", "hears"]
    adjs = ["big", "small", "red", "old"]

    def sent(r):
        s = ["the", r.choice(nouns), r.choice(verbs), "a"]
        if r.below(2):
            s.append(r.choice(adjs))
        s.append(r.choice(nouns))
        if r.below(4) == 0:
            s.append("<unk>")
        return s

    for split, name in (("train", "train"), ("dev", "valid"), ("test", "test")):
        r = rng(name)
        write_lines(os.path.join(d, name + ".txt"), [" ".join(sent(r)) for _ in range(SPLIT_SIZES[split])])
    if data.get("vocab"):
        write_lines(os.path.join(d, data["vocab"]), ["the", "<unk>", "<eos>", "a"] + nouns + verbs + adjs)


def gen_cws(d, data, rng):
    chars = [chr(0x4E00 + 17 * i) for i in range(16)]
    lexicon = chars[:8] + [chars[i] + chars[(i + 3) % 16] for i in range(8, 16)] + \
              [chars[i] + chars[i + 1] + chars[i + 2] for i in range(0, 6)] + ["\uff0c", "\u3002"]

    def tags(w):
        return "S" if len(w) == 1 else "B" + "M" * (len(w) - 2) + "E"

    for split in ("train", "dev", "test"):
        name = data.get(split) or split
        r = rng(name)
        sents = [[r.choice(lexicon) for _ in range(r.between(2, 7))] for _ in range(SPLIT_SIZES[split])]
        if split == "train":
            write_lines(os.path.join(d, data.get("words") or "train_words.txt"),
                        sorted(set(w for s in sents for w in s)))
        write_lines(os.path.join(d, name + ".seg"), [" ".join(s) for s in sents])
        write_lines(os.path.join(d, name + ".bmes"), ["".join(tags(w) for w in s) for s in sents])


def gen_ner(d, data, rng):
    entities = [("Ann", "person"), ("Bob", "person"), ("Rome", "location"), ("Oslo", "location"),
                ("Acme", "corporation"), ("Lego", "product")]
    filler = ["we", "saw", "in", "the", "with", "at", "and", "@user", "today", "!"]
    for split in ("train", "dev", "test"):
        name = data.get(split) or split
        r = rng(name)
        lines = []
        for _ in range(SPLIT_SIZES[split]):
            for _ in range(r.between(1, 3)):
                lines.append(r.choice(filler) + "\tO")
            w, t = r.choice(entities)
            lines.append(w + "\tB-" + t)
            if r.below(3) == 0:
                lines.append(w.lower() + "son\tI-" + t)
            for _ in range(r.between(0, 2)):
                lines.append(r.choice(filler) + "\tO")
            lines.append("")
        write_lines(os.path.join(d, name + "." + (data.get("extension") or "conll")), lines)


def gen_snli(d, data, rng):
    labels = ["entailment", "neutral", "contradiction"]
    words = ["a", "man", "woman", "dog", "is", "runs", "sits", "on", "the", "grass", "beach", "Outside"]
    for split in ("train", "dev", "test"):
        name = data.get(split) or split
        r = rng(name)
        rows = []
        for i in range(SPLIT_SIZES[split]):
            prem = [r.choice(words) for _ in range(r.between(3, 6))]
            label = labels[i % 3]
            hyp = prem[:2] + (["not"] if label == "contradiction" else []) + [r.choice(words)]
            rows.append("%s\t%s\t%s" % (label, " ".join(prem), " ".join(hyp)))
        write_lines(os.path.join(d, name + ".tsv"), rows)


def gen_classify(d, data, rng):
    # A folder named like SST-5 gets five labels, any other two (the data decides num_labels when it is 0).
    k = data.get("num_labels") or (5 if "sst5" in os.path.basename(d) else 2)
    good, bad = ["good", "fine", "great"], ["bad", "dull", "poor"]
    neutral = ["film", "the", "a", "plot", "is", "and", "actors", "Story"]
    for split in ("train", "dev", "test"):
        name = data.get(split) or split
        r = rng(name)
        rows = []
        for i in range(SPLIT_SIZES[split]):
            label = i % k
            toks = [r.choice(neutral) for _ in range(r.between(2, 5))] + [r.choice(good if 2 * label >= k else bad)]
            rows.append("%d %s" % (label, " ".join(toks)))
        write_lines(os.path.join(d, name + ".txt"), rows)


# NMT: a reversal task over two tiny vocabularies, and a SentencePiece BPE model written as its protobuf.
NMT_SRC_WORDS = ["s%d" % i for i in range(8)]
NMT_TGT_WORDS = ["t%d" % i for i in range(8)]


def _varint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def _field(num, wire, payload):
    key = _varint((num << 3) | wire)
    if wire == 2:
        return key + _varint(len(payload)) + payload
    return key + payload


def spm_bpe_model():
    """A SentencePiece ModelProto (sentencepiece_model.proto): pieces <pad> <s> </s> <unk> (ids 0..3, as
    data_prep/nmt.py asks spm_train for), then BPE merges building every word of NMT_*_WORDS from its
    characters, then the characters; trainer_spec model_type BPE and the special ids; normalizer `identity`."""
    # (piece, type): NORMAL 1, UNKNOWN 2, CONTROL 3
    pieces = [("<pad>", 3), ("<s>", 3), ("</s>", 3), ("<unk>", 2)]
    normal = ["\u2581s", "\u2581t"] + ["\u2581" + w for w in NMT_SRC_WORDS + NMT_TGT_WORDS] + \
             ["\u2581", "s", "t"] + [str(i) for i in range(8)]
    pieces += [(p, 1) for p in normal]
    body = b""
    for i, (p, t) in enumerate(pieces):
        score = 0.0 if t != 1 else -float(i - 4)
        sp = _field(1, 2, p.encode("utf-8")) + _field(2, 5, struct.pack("<f", score)) + _field(3, 0, _varint(t))
        body += _field(1, 2, sp)
    trainer = (_field(3, 0, _varint(2)) + _field(4, 0, _varint(len(pieces))) +
               _field(40, 0, _varint(3)) + _field(41, 0, _varint(1)) + _field(42, 0, _varint(2)) +
               _field(43, 0, _varint(0)))
    normalizer = (_field(1, 2, b"identity") + _field(3, 0, _varint(1)) + _field(4, 0, _varint(1)) +
                  _field(5, 0, _varint(1)))
    return body + _field(2, 2, trainer) + _field(3, 2, normalizer)


def gen_nmt(d, data, rng):
    sizes = {data["train"]: 64}
    for split in [data["dev"], data["test"]] + list(data.get("extra_tests") or []):
        sizes.setdefault(split, 8)
    src, tgt = data["src"], data["tgt"]
    for split, n in sizes.items():
        r = rng(split)
        s_lines, t_lines = [], []
        for _ in range(n):
            w = [r.below(8) for _ in range(r.between(2, 6))]
            s_lines.append(" ".join(NMT_SRC_WORDS[x] for x in w))
            t_lines.append(" ".join(NMT_TGT_WORDS[x] for x in reversed(w)))
        for form in ("tok", "raw"):   # the raw form: the experiments' `form` and sacreBLEU's references
            write_lines(os.path.join(d, "%s.%s.%s" % (split, form, src)), s_lines)
            write_lines(os.path.join(d, "%s.%s.%s" % (split, form, tgt)), t_lines)
    model = spm_bpe_model()
    for key in ("bpe", "bpe_src", "bpe_tgt"):
        if data.get(key):
            p = os.path.join(d, data[key])
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "wb") as f:
                f.write(model)


RC_NAMES = ["Ann", "Bob", "Carl", "Dora", "Eve", "Zo\u00eb"]
RC_VERBS = ["met", "saw", "called", "helped", "paid"]


def rc_paragraphs(r, n):
    """n paragraphs of 2-4 sentences "<Name> <verb> <Name>." (one verb each), each asked "Who <verb> <Name>?" and
    answered by its first name: (context, tokens, UTF-8 byte offsets, [(question, tokens, answer, char_start,
    token)]), as data_prep/squad.py tokenises them."""
    out = []
    for _ in range(n):
        verbs = list(RC_VERBS)
        context, tokens, offsets, qas = "", [], [], []
        for _ in range(r.between(2, 4)):
            verb = verbs.pop(r.below(len(verbs)))
            who, whom = r.choice(RC_NAMES), r.choice(RC_NAMES)
            if context:
                context += " "
            qas.append(("Who %s %s?" % (verb, whom), ["Who", verb, whom, "?"], who, len(context), len(tokens)))
            for k, t in enumerate([who, verb, whom, "."]):
                if 0 < k < 3:
                    context += " "
                b = len(context.encode("utf-8"))
                tokens.append(t)
                offsets.append([b, b + len(t.encode("utf-8"))])
                context += t
        out.append((context, tokens, offsets, qas))
    return out


def gen_rc(d, data, rng):
    for split, n in (("train", 12), ("heldout", 3), ("dev", 3)):
        name = data.get(split) or split
        lines = []
        for p, (context, tokens, offsets, qas) in enumerate(rc_paragraphs(rng(name), n)):
            lines.append(json.dumps({"title": name, "context": context, "tokens": tokens, "offsets": offsets, "qas": [
                {"id": "%s-%d-%d" % (name, p, k), "question": q, "question_tokens": qt,
                 "answers": [{"text": a, "char_start": c, "span": [t, t], "aligned": True}]}
                for k, (q, qt, a, c, t) in enumerate(qas)]}, ensure_ascii=False))
        write_lines(os.path.join(d, name + ".jsonl"), lines)


GENERATORS = {"lm": gen_lm, "cws": gen_cws, "ner": gen_ner, "snli": gen_snli, "classify": gen_classify,
              "nmt": gen_nmt, "rc": gen_rc}


def generate_data(root, task, data, owners):
    """Writes the task's generated data at root/<data.dir>: every file the data keys name. Each split's text
    comes from a seed of (task, folder, split) alone, so experiments sharing a folder but naming other files
    (or none) add theirs without changing the others'. `owners` maps each folder to the task that reads it."""
    rel = data.get("dir")
    if not isinstance(rel, str) or not rel or os.path.isabs(rel) or ".." in rel.split("/"):
        raise SetupError("data.dir %r is not a relative path inside the working folder" % (rel,))
    if owners.setdefault(rel, task) != task:
        raise SetupError("data folder %s is read by two tasks (%s and %s)" % (rel, owners[rel], task))

    def rng(split):
        return Lcg(int(hashlib.sha256(("%s:%s:%s" % (task, rel, split)).encode()).hexdigest()[:12], 16))

    GENERATORS[task](os.path.join(root, rel), data, rng)


# The words of the generated corpora of the tasks that read GloVe-format vectors (data.embeddings).
EMBEDDING_WORDS = {
    "classify": ["good", "fine", "great", "bad", "dull", "poor", "film", "the", "a", "plot", "is", "and", "actors",
                 "Story"],
    "snli": ["a", "man", "woman", "dog", "is", "runs", "sits", "on", "the", "grass", "beach", "Outside", "not"],
    "ner": ["Ann", "Bob", "Rome", "Oslo", "Acme", "Lego", "we", "saw", "in", "the", "with", "at", "and", "today"],
    "rc": RC_NAMES + RC_VERBS + ["Who", ".", "?"],
}


def generate_embeddings(root, task, data, dim):
    """An experiment with data.embeddings (issue 52's GloVe rows) gets a vectors file there: one line per word of
    the task's generated corpus (lowercased with data.lowercase), `dim` fixed values each, so that the task
    loads real vectors as it would the corpus's GloVe subset."""
    path = data.get("embeddings")
    if not path:
        return
    if os.path.isabs(path) or ".." in path.split("/"):
        raise SetupError("data.embeddings %r is not a relative path inside the working folder" % (path,))
    words = []
    for w in EMBEDDING_WORDS[task]:
        w = w.lower() if data.get("lowercase") else w
        if w not in words:
            words.append(w)
    write_lines(os.path.join(root, path),
                ["%s %s" % (w, " ".join("%.2f" % (((i * 7 + d) % 19 - 9) / 10) for d in range(dim)))
                 for i, w in enumerate(words)])


def embedding_dim(task_keys, experiment):
    """model.embed (classify, snli), model.word_embed (ner) or model.word_dim (rc): the experiment's, else the
    task's default."""
    model = experiment.get("model") or {}
    defaults = {row.get("key"): row.get("default") for row in task_keys}
    for key in ("embed", "word_embed", "word_dim"):
        if key in model:
            return int(model[key])
        if defaults.get("model." + key) is not None:
            return int(defaults["model." + key])
    raise SetupError("no model.embed, model.word_embed or model.word_dim for the vectors file")

