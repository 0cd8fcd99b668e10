#!/usr/bin/env python3
"""A prepared word-level corpus's own subset of the shared GloVe vectors: $RAW_DATA/glove/
glove.6B.100d.wink-subset.shared-corpora.txt.gz -> <corpus>/glove.6B.100d.txt and <corpus>/glove.json, for
data.embeddings of the classify, snli and ner tasks (issue 52).

A corpus folder is one that data_prep/sst.py (classify: {train,dev,test}.txt, `<label> <tokens>`), snli.py
({train,dev,test}.tsv, `label<TAB>premise<TAB>hypothesis`) or ner.py ({train,dev,test}.conll, token first) wrote,
own folders (--own) included; its tokens are read as the C++ readers read them (split at ASCII whitespace and
U+3000). The subset holds every line of the vectors file whose word is a token of any split, as it is or ASCII-
lowercased (data.lowercase lowercases A-Z only, like core/data/labelled_text.cc lowercase_ascii; GloVe 6B is
uncased), in the file's order, each line's bytes unchanged (only its line end made LF); a word2vec header is not
copied (the subset is plain GloVe text). The C++ loader (core/nn/embedding.cc Embedding::load_glove) looks each
vocabulary word up exactly (vocab.find: no case folding, unknown words skipped, never loaded into <unk>), so
coverage is reported both ways: of the tokens as they are (data.lowercase false) and ASCII-lowercased (true), by
types and by tokens, per split, in glove.json and on the terminal.

The vectors file is checked as load_glove reads it, plus what a subset needs: lines split at LF (one CR before it
dropped), fields at spaces and tabs, blank lines skipped; a first line of two integers is a word2vec text header
`count dim` and accepted (word2vec text format is valid input for load_glove), its dim must be --dim; every line
must have --dim values after its word (a word may hold spaces, as in glove.840B, when its extra pieces are not
numbers; else the line has too many values); the values of the lines written must be finite numbers as the C++
parses them. Errors, each naming file:line (exit 2, nothing written): invalid UTF-8, a wrong number of values, a
header whose dim is not --dim, a value that is not a finite number, a word on two lines (load_glove would keep
the first silently; a file with duplicates is not the published one, so this names both lines). CWS has no
character vectors here: its corpora are refused.

usage: glove.py [--glove FILE] [--dim 100] [--name glove.6B.100d.txt] CORPUS_DIR [CORPUS_DIR ...]
       glove.py --all [--data data]    (every prepared sst, snli and ner folder under data/)
"""
import argparse
import gzip
import hashlib
import json
import math
import os
import re
import time

from prep_common import decode_utf8, messages, read_stored, stored_info, tokens_of, train_command

PROG = "data_prep/glove.py"
fail, warn, note = messages(PROG)
GLOVE = "glove.6B.100d.wink-subset.shared-corpora.txt.gz"
# glove/SOURCE.md: the shared file's sha256 (stored, decompressed) and its line count
GLOVE_SHA256 = ("6b056f34ece8a02c52b7fcc9248f15d3aa3fb855a4f840d8bd8b36bbe3f2ccc7",
                "c5813fdf302c7e4aa8dd03f76bef6ef75005672f5b84a89918c258b4e07af923")
GLOVE_LINES = 128521
SPLITS = ("train", "dev", "test")
FIELD_SEP = re.compile("[ \t]+")   # load_glove's split_ws: spaces and tabs only
# A value as load_glove's parse_real takes it: an optional '+' (it skips one), then what std::from_chars accepts
# (decimal, general format); inf and nan are then refused as not finite, as is an overflow.
NUMBER = re.compile(r"\+?-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|\+?-?(?:inf|infinity|nan)", re.I)
ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
# task, file extension, the experiment the printed command trains, its embedding-size key
FORMATS = {"txt": ("classify", "experiments/classify/sst2_atr.json", "model.embed"),
           "tsv": ("snli", "experiments/snli/inhouse_cond_atr.json", "model.embed"),
           "conll": ("ner", "experiments/ner/wnut17_atr.json", "model.word_embed")}
EXPERIMENTS = {"sst/sst5": "experiments/classify/sst5_atr.json", "snli/sick": "experiments/snli/sick_cond_atr.json"}


def is_number(tok):
    if not NUMBER.fullmatch(tok):
        return False
    try:
        return math.isfinite(float(tok[1:] if tok.startswith("+") else tok))
    except ValueError:   # not expected after the regex; kept so a surprise is a refusal, not a traceback
        return False


def read_glove(path, dim, no_check):
    """({word: (line number, line text)}, info): every line checked for UTF-8, its value count and duplicates."""
    stored, data = read_stored(path, fail)
    info = stored_info(path, stored, data)
    if not no_check and os.path.basename(path) == GLOVE:
        got = (info["sha256"], info.get("sha256_decompressed", info["sha256"]))
        if got != GLOVE_SHA256:
            fail(f"{path}: sha256 {got[0]} (decompressed {got[1]}), expected {GLOVE_SHA256[0]} "
                 f"({GLOVE_SHA256[1]}) (glove/SOURCE.md): not the shared file (or --no-check)")
    text = decode_utf8(data, path, fail, "the vectors file must be UTF-8")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    vectors, header, blank, first = {}, None, 0, True
    for i, line in enumerate(lines, 1):
        if line.endswith("\r"):
            line = line[:-1]
        tok = [t for t in FIELD_SEP.split(line) if t]
        if not tok:
            blank += 1
            continue
        if first:
            first = False
            if len(tok) == 2 and tok[0].isdigit() and tok[1].isdigit() and tok[0].isascii() and tok[1].isascii():
                # compared as digits (as atoll reads them, leading zeros aside): int() refuses 4,300+ digits
                if tok[1].lstrip("0") != str(dim):
                    fail(f"{path}:{i}: word2vec header '{line[:80]}' says dimension {tok[1][:20]}, expected {dim} "
                         f"(--dim)")
                header = {"line": i, "count": int(tok[0]) if len(tok[0]) < 19 else tok[0][:40], "dim": dim}
                continue
        n = len(tok)
        pieces = n - dim
        if pieces < 1 or any(is_number(t) for t in tok[1:pieces]):
            fail(f"{path}:{i}: '{tok[0]}' has {n - 1} values, expected {dim} (--dim; every line is a word and "
                 f"{dim} numbers)")
        word = " ".join(tok[:pieces])
        if word in vectors:
            fail(f"{path}:{i}: '{word}' again, first on line {vectors[word][0]}: a word must have one line")
        vectors[word] = (i, line)
    if not vectors:
        fail(f"{path}: no vectors (an empty file)")
    if header and header["count"] != len(vectors):
        warn(f"{path}:{header['line']}: the word2vec header says {header['count']} vectors, the file has "
             f"{len(vectors)} (load_glove does not use the count); continuing")
    if not no_check and os.path.basename(path) == GLOVE and len(vectors) != GLOVE_LINES:
        fail(f"{path}: {len(vectors)} vectors, expected {GLOVE_LINES} (glove/SOURCE.md)")
    info.update({"lines": len(lines), "vectors": len(vectors), "dim": dim, "blank_lines": blank,
                 "word2vec_header": header, "words_with_spaces": sum(" " in w for w in vectors)})
    return vectors, info


def corpus_format(folder):
    """'txt', 'tsv' or 'conll': the extension the folder's three splits have."""
    if os.path.isfile(os.path.join(folder, "train.seg")):
        fail(f"{folder}: a CWS folder (train.seg): CWS reads characters and has no character vectors here "
             f"(this is for the word-level classify, snli and ner corpora)")
    found = [ext for ext in FORMATS if all(os.path.isfile(os.path.join(folder, f"{s}.{ext}")) for s in SPLITS)]
    if len(found) != 1:
        fail(f"{folder}: expected train, dev and test .txt (classify), .tsv (snli) or .conll (ner) from "
             f"data_prep/sst.py, snli.py or ner.py; found {found or 'none'}")
    return found[0]


def split_tokens(path, ext):
    """The tokens of one split, read as the task's C++ reader splits them; (tokens, sha256 of the file)."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        fail(f"{path}:{line}: invalid UTF-8 ({e.reason}): rerun its data_prep script")
    out = []
    for i, line in enumerate(text.split("\n"), 1):
        line = line[:-1] if line.endswith("\r") else line
        if ext == "txt":
            out.extend(tokens_of(line)[1:])   # the label first
        elif ext == "tsv":
            f = line.split("\t")
            if line and len(f) != 3:
                fail(f"{path}:{i}: {len(f)} tab-separated fields, expected 3 (label, premise, hypothesis)")
            if line:
                out.extend(tokens_of(f[1]) + tokens_of(f[2]))
        else:
            f = tokens_of(line)
            if f and f[0] != "-DOCSTART-":
                out.append(f[0])
    return out, hashlib.sha256(data).hexdigest()


def coverage(tokens, words):
    """Types and tokens of a split, and how many of each have a vector, as they are and ASCII-lowercased."""
    def one(toks):
        counts = {}
        for t in toks:
            counts[t] = counts.get(t, 0) + 1
        hit = [t for t in counts if t in words]
        n_tok, hit_tok = len(toks), sum(counts[t] for t in hit)
        return {"types": len(counts), "types_with_vector": len(hit),
                "type_coverage": round(len(hit) / len(counts), 6) if counts else 0.0,
                "tokens": n_tok, "tokens_with_vector": hit_tok,
                "token_coverage": round(hit_tok / n_tok, 6) if n_tok else 0.0}
    return {"as_is": one(tokens), "ascii_lowercased": one([t.translate(ASCII_LOWER) for t in tokens])}


def write_atomic(folder, name, text):
    tmp = os.path.join(folder, f".{name}.tmp{os.getpid()}")
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    os.replace(tmp, os.path.join(folder, name))


def command(folder, ext, name, dim, data_root):
    """The command that trains the corpus's existing experiment with the subset: the embedding size set to the
    vectors' dim, data.lowercase on (GloVe 6B is uncased; ner and SICK lowercase already), and data.protocol
    saying which vectors, as ../shared/data/README.md asks of every table that uses them."""
    task, experiment, key = FORMATS[ext]
    rel = os.path.relpath(folder, data_root)
    experiment = EXPERIMENTS.get(rel, experiment)
    try:
        with open(os.path.join(folder, "prep.json"), encoding="utf-8") as f:
            what = json.load(f).get("description") or rel
    except (OSError, ValueError):
        what = rel
    sets = [("data.dir", folder), ("data.protocol", f"{what.rstrip('.')}; GloVe 6B {dim}d word vectors (the shared "
                                                    f"wink subset, not 840B 300d), lowercased tokens"),
            ("data.embeddings", os.path.join(folder, name)), (key, dim), ("data.lowercase", True),
            ("out_dir", f"runs/{rel.replace(os.sep, '_')}_glove")]
    return train_command(task, experiment, sets)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpora", nargs="*", metavar="CORPUS_DIR", help="prepared corpus folders (e.g. data/sst/sst2)")
    ap.add_argument("--all", action="store_true", help="every prepared sst, snli and ner folder under --data")
    ap.add_argument("--data", default="data", help="with --all: the prepared-data root (default data)")
    ap.add_argument("--glove", default=os.path.join(os.environ.get("RAW_DATA", "../shared/data"), "glove", GLOVE),
                    help=f"the vectors file, GloVe or word2vec text, plain or .gz (default $RAW_DATA/glove/{GLOVE})")
    ap.add_argument("--dim", type=int, default=100, help="values per vector (default 100)")
    ap.add_argument("--name", default="glove.6B.100d.txt", help="the subset's file name in each corpus folder")
    ap.add_argument("--no-check", action="store_true", help="skip the sha256 and line count of the shared file")
    a = ap.parse_args()
    folders = list(a.corpora)
    if a.all:
        for task in ("sst", "snli", "ner"):
            root = os.path.join(a.data, task)
            if os.path.isdir(root):
                folders += sorted(os.path.join(root, d) for d in os.listdir(root)
                                  if not d.startswith(".") and os.path.isdir(os.path.join(root, d)))
    folders = list(dict.fromkeys(os.path.normpath(f) for f in folders))   # each once, in order
    if not folders:
        fail("no corpus folder: give CORPUS_DIR (e.g. data/sst/sst2) or --all")
    if a.dim < 1:
        fail(f"--dim {a.dim}: must be at least 1")
    if not a.name or "/" in a.name or a.name.startswith(".") or a.name in ("prep.json", "glove.json"):
        fail(f"--name {a.name!r}: a plain file name for the subset (it is written in each corpus folder)")
    jobs = []   # every corpus read before the vectors file, so a bad folder stops before the slow part
    for folder in folders:
        if not os.path.isdir(folder):
            fail(f"no folder {folder}: run its data_prep script first (sst.py, snli.py, ner.py)")
        ext = corpus_format(folder)
        toks, shas = {}, {}
        for s in SPLITS:
            toks[s], shas[s] = split_tokens(os.path.join(folder, f"{s}.{ext}"), ext)
        jobs.append((folder, ext, toks, shas))
    if not os.path.isfile(a.glove):
        fail(f"no file {a.glove}: --glove names the vectors file ($RAW_DATA/glove/{GLOVE}, see glove/SOURCE.md)")
    t0 = time.time()
    vectors, info = read_glove(a.glove, a.dim, a.no_check)
    note(f"read {a.glove}: {info['vectors']} vectors of {a.dim} values ({time.time() - t0:.1f} s)")
    written = []
    for folder, ext, toks, shas in jobs:
        want = set()
        for s in SPLITS:
            want.update(toks[s])
            want.update(t.translate(ASCII_LOWER) for t in toks[s])
        keep = sorted((vectors[w] for w in want if w in vectors), key=lambda x: x[0])
        for ln, line in keep:   # the values load_glove will parse: checked as it checks them
            tok = [t for t in FIELD_SEP.split(line) if t]
            for d, t in enumerate(tok[len(tok) - a.dim:], 1):
                if not is_number(t):
                    fail(f"{a.glove}:{ln}: value {d} of '{' '.join(tok[:len(tok) - a.dim])}' is '{t}', not a "
                         f"finite number")
        body = "".join(line + "\n" for _, line in keep)
        cov = {s: coverage(toks[s], vectors) for s in SPLITS}
        meta = {
            "what": f"the vectors of {os.path.basename(a.glove)} whose word is a token of this corpus (any split), "
                    f"as it is or ASCII-lowercased; lines byte-identical to the source's, in its order, LF",
            "source": info, "corpus": {"folder": os.path.abspath(folder), "format": ext, "task": FORMATS[ext][0],
                                      "split_sha256": shas},
            "file": a.name, "vectors_written": len(keep), "dim": a.dim,
            "sha256": hashlib.sha256(body.encode("utf-8")).hexdigest(),
            "lookup": "core/nn/embedding.cc load_glove via vocab.find: exact match of a vocabulary word (the "
                      "training tokens, ASCII-lowercased when data.lowercase is true), no other case folding; "
                      "words not in the vocabulary are skipped, nothing is loaded into <unk> unless the file has a "
                      "line for the word <unk>; dev/test words outside the training vocabulary are <unk> anyway",
            "coverage": cov,
            "command": command(folder, ext, a.name, a.dim, a.data),
        }
        written.append((folder, body, meta))
    for folder, body, meta in written:
        write_atomic(folder, meta["file"], body)
        write_atomic(folder, "glove.json", json.dumps(meta, indent=1, ensure_ascii=False) + "\n")
        c = meta["coverage"]
        note(f"wrote {os.path.join(folder, meta['file'])}: {meta['vectors_written']} vectors; token coverage as is / "
             f"lowercased: " + ", ".join(f"{s} {100 * c[s]['as_is']['token_coverage']:.1f} / "
                                         f"{100 * c[s]['ascii_lowercased']['token_coverage']:.1f} %" for s in SPLITS))
        print(f"{PROG}: train on it (from the repository root):\n  {meta['command']}")


if __name__ == "__main__":
    main()
