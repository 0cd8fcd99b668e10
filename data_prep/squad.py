#!/usr/bin/env python3
"""Prepare SQuAD for reading comprehension (the LRN paper's RC task, issue 53): RAW_DATA/squad -> data/squad/.

Input (../shared/data/squad/SOURCE.md): `dev-v1.1.json[.gz]`, SQuAD v1.1 dev byte-exact (official ids, up to
several answers per question), and `train-v1.0-explorer.json[.gz]`, the SQuAD **v1.0** training set rebuilt from
the official explorer pages (87,636 questions, one answer each, synthetic ids, `answer_start` the first occurrence
of the answer text, -1 for the 249 answers that do not occur verbatim). It is not train-v1.1 (87,599 questions):
every table must say "v1.0 train rebuilt from the explorer pages". Both files are checked against SOURCE.md's
sha256 and published counts (--no-check skips that).

Tokeniser (deterministic, rule-based, standard library): a token is a maximal run of letters, digits and
combining marks (Python's `[^\\W_]+`: Unicode word characters without the underscore), or any other single
non-whitespace character (`$`, `-`, `'`, `.`, `_`, `\u2013`, ...); whitespace (Python's `\\s`) separates tokens and is
never part of one. So "Levi's 24\u201310 U.S." -> Levi ' s 24 \u2013 10 U . S . Case is kept. The rule is finer than
spaCy's (which R-Net used) on purpose: most answer boundaries fall between its tokens (see the counts below).
Questions go through the same tokeniser.

Answers -> token spans: the answer's characters [answer_start, answer_start + len(text)) of its context must
equal its text (else an error naming the file and the question id); its token span is the first and last token
overlapping those characters. An answer whose characters (leading and trailing whitespace aside: many explorer
answers carry a space) start or end inside a token is kept with the covering span and counted as "not aligned"
(its span's text is longer than the answer); in train, whose answer_start is only the first occurrence of the
text, such an answer first moves to the first occurrence that is aligned, if any ("relocated", counted). An
answer with answer_start -1 (train only: the 249 the explorer text does not hold verbatim) is dropped and
counted, and a question left without an answer is dropped too. Dev keeps every question and its official id, with all its answers (the
official EM / F1 takes the best over them, core/eval/squad_eval.h); the first answer's span is its training-
style target.

Splits: train = the explorer train set minus the last --heldout-articles articles (default 22 of 442, about 5 %),
which form `heldout` (checkpoint selection; SQuAD's test set is hidden, so dev is what is reported, as the papers
do); whole articles, so no paragraph is shared between train and heldout.

Writes data/squad/: {train,heldout,dev}.jsonl, one paragraph per line (UTF-8, LF, source order):
  {"title": str, "context": str, "tokens": [str], "offsets": [[b, e]], "qas": [{"id": str, "question": str,
   "question_tokens": [str], "answers": [{"text": str, "char_start": int, "span": [first, last],
   "aligned": bool}]}]}
offsets are UTF-8 byte offsets [b, e) of each token in the context (what the C++ side slices answers from);
char_start is the source's answer_start (code points); span holds token indices, both ends inclusive. prep.json
has the sources (sha256), counts per split, the dropped and not-aligned answers (with the first few ids), token
length statistics and the format. glove.6B.100d.txt + glove.json: the lines of
$RAW_DATA/glove/glove.6B.100d.wink-subset.shared-corpora.txt.gz whose word is a context or question token of any
split, as it is or ASCII-lowercased (read and checked by data_prep/glove.py's reader), with coverage per split as
glove.py reports it. GloVe 6B 100d, not the 840B 300d R-Net used: say so in tables. The folder is written to a
temporary folder and renamed into place; the output is deterministic.

usage: squad.py [--raw DIR] [--out data/squad] [--heldout-articles 22] [--glove FILE [--dim 100] | --no-glove]
                [--no-check]
"""
import argparse
import hashlib
import json
import os
import re

import glove
from prep_common import find, messages, new_folder, read_stored, stored_info, decode_utf8, write_prep_json

PROG = "data_prep/squad.py"
fail, warn, note = messages(PROG)
TOKEN = re.compile(r"[^\W_]+|\S")
SURROGATE = re.compile("[\ud800-\udfff]")   # JSON may escape half a UTF-16 pair; UTF-8 cannot write it
DEV, TRAIN = "dev-v1.1.json", "train-v1.0-explorer.json"
# squad/SOURCE.md: sha256 of the stored .gz, of its content, and the published counts
# (articles, paragraphs, questions, answers, answers without offset)
EXPECTED = {DEV: ("5ef5752d50566ab538501116de1508326eefb6bf70026def7915309f30822727",
                  "95aa6a52d5d6a735563366753ca50492a658031da74f301ac5238b03966972c9", (48, 2067, 10570, 34726, 0)),
            TRAIN: ("fd61dc2b22d53a73918fbe6324fe66659bb5717f2d7dcbe541f7124beb8c9cdf",
                    "931cbb80abe61288e01ccbc816d05aca5cf0cd20d1e0a63b734fdcda9db58ec7", (442, 18896, 87636, 87636, 249))}
SPLITS = ("train", "heldout", "dev")
FIRST_IDS = 10   # ids listed in prep.json per kind of dropped / not-aligned answer


def tokenize(text):
    """[(token, char start, char end)] by the rule in the docstring."""
    return [(m.group(), m.start(), m.end()) for m in TOKEN.finditer(text)]


def byte_offsets(text, toks):
    """UTF-8 byte offsets [b, e) of the tokens (char offsets converted through the prefix lengths)."""
    out, last, nbytes = [], 0, 0
    for _, s, e in toks:
        nbytes += len(text[last:s].encode("utf-8"))
        b = nbytes
        nbytes += len(text[s:e].encode("utf-8"))
        last = e
        out.append([b, nbytes])
    return out


def need(obj, key, kind, where, path):
    """obj[key], which must be of `kind` (list or str), else an error naming file and item."""
    if not isinstance(obj, dict):
        fail(f"{path}: {where}: a JSON {type(obj).__name__}, expected an object")
    if key not in obj:
        fail(f"{path}: {where}: no '{key}': expected SQuAD's layout (data[].paragraphs[].qas[])")
    v = obj[key]
    if not isinstance(v, kind):
        fail(f"{path}: {where}.{key}: a JSON {type(v).__name__}, expected a {'list' if kind is list else 'string'}")
    m = SURROGATE.search(v) if kind is str else None
    if m:
        fail(f"{path}: {where}.{key}: the text holds the escape \\u{ord(m.group()):04x}, a lone UTF-16 surrogate, "
             f"which is not a character: fix the item")
    return v


def span_of(toks, s, e):
    """(first, last) token overlapping chars [s, e), or None when no token does (a whitespace-only answer)."""
    hit = [i for i, (_, ts, te) in enumerate(toks) if ts < e and te > s]
    return (hit[0], hit[-1]) if hit else None


def is_aligned(toks, sp, atext, start):
    """Do the answer's characters, without its leading and trailing whitespace, begin and end at token bounds?"""
    s = start + len(atext) - len(atext.lstrip())
    e = start + len(atext.rstrip())
    return toks[sp[0]][1] == s and toks[sp[1]][2] == e


def aligned_occurrence(context, toks, atext):
    """The first character offset where atext occurs in context at token bounds (is_aligned), else None."""
    at = context.find(atext)
    while at >= 0:
        sp = span_of(toks, at, at + len(atext))
        if sp is not None and is_aligned(toks, sp, atext, at):
            return at
        at = context.find(atext, at + 1)
    return None


def read_squad(path, no_check, relocate):
    """(articles, counts, info): articles = [(title, [paragraph record])], every item checked. relocate: an
    answer not aligned to tokens moves to the first occurrence of its text that is (synthetic offsets only)."""
    stored, data = read_stored(path, fail)
    info = stored_info(path, stored, data)
    name = os.path.basename(path)[:-3] if path.endswith(".gz") else os.path.basename(path)
    if not no_check and name in EXPECTED:
        want = EXPECTED[name][:2]
        got = (info["sha256"], info.get("sha256_decompressed", info["sha256"]))
        if path.endswith(".gz") and got != want or not path.endswith(".gz") and got[0] != want[1]:
            fail(f"{path}: sha256 {got[0]}, expected {want[0] if path.endswith('.gz') else want[1]} "
                 f"(squad/SOURCE.md): not the shared file (or --no-check)")
    text = decode_utf8(data, path, fail, "SQuAD files are UTF-8 JSON")
    try:
        root = json.loads(text)
    except json.JSONDecodeError as e:
        fail(f"{path}:{e.lineno}: not JSON ({e.msg} at column {e.colno}): expected a SQuAD file")
    except (ValueError, RecursionError) as e:
        why = "nested too deeply" if isinstance(e, RecursionError) else str(e).split(":")[0]
        fail(f"{path}: unreadable JSON ({why}): expected a SQuAD file")
    articles, seen = [], {}
    counts = dict(articles=0, paragraphs=0, questions=0, answers=0, no_offset=0, not_aligned=0, no_token=0,
                  relocated=0, questions_dropped=0)
    first = {"no_offset": [], "not_aligned": [], "no_token": [], "relocated": []}
    for a, art in enumerate(need(root, "data", list, "top level", path)):
        where_a = f"data[{a}]"
        title = need(art, "title", str, where_a, path) if isinstance(art, dict) and "title" in art else ""
        paras = []
        for p, para in enumerate(need(art, "paragraphs", list, where_a, path)):
            where = f"{where_a}.paragraphs[{p}]"
            context = need(para, "context", str, where, path)
            qas = need(para, "qas", list, where, path)
            toks = tokenize(context)
            if not toks:
                fail(f"{path}: {where}: empty context (no token): every paragraph needs text")
            out_qas = []
            for q, qa in enumerate(qas):
                wq = f"{where}.qas[{q}]"
                qid = need(qa, "id", str, wq, path)
                wq = f"{wq} (id {qid})"
                if qid in seen:
                    fail(f"{path}: {wq}: duplicate id, first at {seen[qid]}: ids must be unique")
                seen[qid] = f"{where}.qas[{q}]"
                question = need(qa, "question", str, wq, path)
                qtoks = [t for t, _, _ in tokenize(question)]
                if not qtoks:
                    fail(f"{path}: {wq}: empty question")
                answers = []
                for k, ans in enumerate(need(qa, "answers", list, wq, path)):
                    wa = f"{wq}.answers[{k}]"
                    atext = need(ans, "text", str, wa, path)
                    start = ans.get("answer_start")
                    if not isinstance(start, int) or isinstance(start, bool):
                        fail(f"{path}: {wa}: answer_start {start!r}, expected an integer")
                    counts["answers"] += 1
                    if start == -1:
                        counts["no_offset"] += 1
                        first["no_offset"].append(qid)
                        continue
                    end = start + len(atext)
                    if start < 0 or end > len(context) or context[start:end] != atext:
                        fail(f"{path}: {wa}: answer {atext[:60]!r} at answer_start {start} is not in its context "
                             f"({len(context)} characters; there: {context[max(start, 0):max(start, 0) + 60]!r})")
                    sp = span_of(toks, start, end)
                    if sp is None:
                        counts["no_token"] += 1
                        first["no_token"].append(qid)
                        continue
                    aligned = is_aligned(toks, sp, atext, start)
                    if not aligned and relocate:
                        moved = aligned_occurrence(context, toks, atext)
                        if moved is not None:
                            counts["relocated"] += 1
                            first["relocated"].append(qid)
                            start, sp, aligned = moved, span_of(toks, moved, moved + len(atext)), True
                    if not aligned:
                        counts["not_aligned"] += 1
                        first["not_aligned"].append(qid)
                    answers.append({"text": atext, "char_start": start, "span": list(sp), "aligned": aligned})
                counts["questions"] += 1
                if not answers:
                    counts["questions_dropped"] += 1
                    continue
                out_qas.append({"id": qid, "question": question, "question_tokens": qtoks, "answers": answers})
            counts["paragraphs"] += 1
            paras.append({"title": title, "context": context, "tokens": [t for t, _, _ in toks],
                          "offsets": byte_offsets(context, toks), "qas": out_qas})
        counts["articles"] += 1
        articles.append((title, paras))
    if not seen:
        fail(f"{path}: no question: expected SQuAD's layout (data[].paragraphs[].qas[])")
    got = tuple(counts[k] for k in ("articles", "paragraphs", "questions", "answers", "no_offset"))
    if not no_check and name in EXPECTED and got != EXPECTED[name][2]:
        fail(f"{path}: {got} articles / paragraphs / questions / answers / answers without offset, expected "
             f"{EXPECTED[name][2]} (squad/SOURCE.md): not the shared file (or --no-check)")
    info["counts"] = counts
    info["first_ids"] = {k: v[:FIRST_IDS] for k, v in first.items()}
    info["published_counts_checked"] = not no_check and name in EXPECTED
    return articles, info


def stats(paras):
    ctx = [len(p["tokens"]) for p in paras]
    qs = [len(q["question_tokens"]) for p in paras for q in p["qas"]]
    ans = [q["answers"][0]["span"][1] - q["answers"][0]["span"][0] + 1 for p in paras for q in p["qas"]]
    def s(v):
        return {"max": max(v), "mean": round(sum(v) / len(v), 3)} if v else {"max": 0, "mean": 0.0}
    return {"articles": len({p["title"] for p in paras}), "paragraphs": len(paras), "questions": len(qs),
            "answers": sum(len(q["answers"]) for p in paras for q in p["qas"]),
            "not_aligned": sum(not a["aligned"] for p in paras for q in p["qas"] for a in q["answers"]),
            "context_tokens": s(ctx), "question_tokens": s(qs), "first_answer_tokens": s(ans),
            "contexts_over_400_tokens": sum(n > 400 for n in ctx), "questions_over_50_tokens": sum(n > 50 for n in qs)}


def glove_subset(splits, path, dim):
    """(body, meta) of the GloVe lines whose word is a token of any split, as glove.py makes them."""
    vectors, info = glove.read_glove(path, dim, False)
    toks = {s: [t for p in ps for t in p["tokens"] + [u for q in p["qas"] for u in q["question_tokens"]]]
            for s, ps in splits.items()}
    want = set()
    for v in toks.values():
        want.update(v)
        want.update(t.translate(glove.ASCII_LOWER) for t in v)
    keep = sorted((vectors[w] for w in want if w in vectors), key=lambda x: x[0])
    body = "".join(line + "\n" for _, line in keep)
    meta = {"what": f"the vectors of {os.path.basename(path)} whose word is a context or question token of any "
                    f"split, as it is or ASCII-lowercased; lines byte-identical to the source's, in its order, LF "
                    f"(GloVe 6B 100d, not the 840B 300d R-Net used)",
            "source": info, "file": "glove.6B.100d.txt", "vectors_written": len(keep), "dim": dim,
            "sha256": hashlib.sha256(body.encode("utf-8")).hexdigest(),
            "coverage": {s: glove.coverage(v, vectors) for s, v in toks.items()}}
    return body, meta


def main():
    raw_root = os.environ.get("RAW_DATA", "../shared/data")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--raw", default=raw_root, help="folder holding squad/ (default $RAW_DATA or ../shared/data)")
    ap.add_argument("--out", default="data/squad", help="output folder (replaced whole)")
    ap.add_argument("--heldout-articles", type=int, default=22,
                    help="the last N training articles form the heldout split (default 22 of 442)")
    ap.add_argument("--glove", default=None,
                    help=f"vectors file (default $RAW_DATA/glove/{glove.GLOVE}); the subset goes beside the splits")
    ap.add_argument("--dim", type=int, default=100, help="values per vector of --glove (default 100)")
    ap.add_argument("--no-glove", action="store_true", help="write no GloVe subset")
    ap.add_argument("--no-check", action="store_true", help="skip the sha256 and published-count checks")
    a = ap.parse_args()
    sub = os.path.join(a.raw, "squad")
    if not os.path.isdir(sub):
        fail(f"no folder {sub}: --raw is the folder that holds squad/ (RAW_DATA)")
    paths = {}
    for name in (TRAIN, DEV):
        paths[name] = find(sub, name)
        if paths[name] is None:
            fail(f"missing {os.path.join(sub, name)} (or .gz): see ../shared/data/squad/SOURCE.md")
    train, train_info = read_squad(paths[TRAIN], a.no_check, True)
    dev, dev_info = read_squad(paths[DEV], a.no_check, False)
    if not 0 < a.heldout_articles < len(train):
        fail(f"--heldout-articles {a.heldout_articles}: must be between 1 and {len(train) - 1} (the training file "
             f"has {len(train)} articles)")
    cut = len(train) - a.heldout_articles
    splits = {"train": [p for _, ps in train[:cut] for p in ps], "heldout": [p for _, ps in train[cut:] for p in ps],
              "dev": [p for _, ps in dev for p in ps]}
    gpath = a.glove or os.path.join(a.raw, "glove", glove.GLOVE)
    if not a.no_glove and not os.path.isfile(gpath):
        fail(f"no file {gpath}: --glove names the vectors file (see glove/SOURCE.md), or --no-glove")
    gl = None if a.no_glove else glove_subset(splits, gpath, a.dim)
    meta = {"description": "SQuAD reading comprehension: train / heldout = SQuAD v1.0 train rebuilt from the official "
                           "explorer pages (not train-v1.1), split by article; dev = SQuAD v1.1 dev (official ids)",
            "source_files": {"train": train_info, "dev": dev_info},
            "tokens": "data_prep/squad.py tokenize: runs of letters, digits and combining marks ([^\\W_]+), every "
                      "other non-whitespace character alone; original case",
            "split_rule": f"heldout = the last {a.heldout_articles} articles of the training file, train = the "
                          f"others; dev = dev-v1.1 whole",
            "answers": "token span = first and last token overlapping the answer's characters; not aligned = the "
                       "answer (without leading / trailing whitespace) starts or ends inside a token (kept, covering "
                       "span); train only (its answer_start is the first occurrence, synthetic): a not-aligned "
                       "answer moves to the first occurrence of its text that is aligned, when there is one "
                       "(counted as relocated); answer_start -1: dropped",
            "format": "{train,heldout,dev}.jsonl: one paragraph per line {title, context, tokens, offsets (UTF-8 "
                      "byte offsets [b, e) in context), qas: [{id, question, question_tokens, answers: [{text, "
                      "char_start, span [first, last] token indices inclusive, aligned}]}]}; UTF-8, LF, source order",
            "splits": {}}
    final = os.path.abspath(a.out)
    out_root, name = os.path.dirname(final), os.path.basename(final)
    with new_folder(out_root, name, final) as tmp:
        for s in SPLITS:
            body = "".join(json.dumps(p, ensure_ascii=False, separators=(",", ":")) + "\n"
                           for p in splits[s]).encode("utf-8")
            with open(os.path.join(tmp, s + ".jsonl"), "wb") as f:
                f.write(body)
            meta["splits"][s] = dict(stats(splits[s]), file=s + ".jsonl", sha256=hashlib.sha256(body).hexdigest())
        if gl:
            with open(os.path.join(tmp, gl[1]["file"]), "w", encoding="utf-8", newline="\n") as f:
                f.write(gl[0])
            with open(os.path.join(tmp, "glove.json"), "w", encoding="utf-8", newline="\n") as f:
                f.write(json.dumps(gl[1], indent=1, ensure_ascii=False) + "\n")
        write_prep_json(tmp, meta)
    for s in SPLITS:
        m = meta["splits"][s]
        note(f"{s}: {m['paragraphs']} paragraphs, {m['questions']} questions, {m['answers']} answers "
             f"({m['not_aligned']} not aligned to tokens)")
    for k, i in (("train", train_info), ("dev", dev_info)):
        c = i["counts"]
        note(f"{k} source: {c['answers']} answers, {c['no_offset']} without offset (dropped), {c['no_token']} "
             f"without a token (dropped), {c['relocated']} moved to an aligned occurrence, {c['not_aligned']} not "
             f"aligned; {c['questions_dropped']} questions left "
             f"without an answer (dropped)")
    if gl:
        c = gl[1]["coverage"]
        note(f"wrote {gl[1]['vectors_written']} GloVe vectors; token coverage as is / lowercased: " + ", ".join(
            f"{s} {100 * c[s]['as_is']['token_coverage']:.1f} / {100 * c[s]['ascii_lowercased']['token_coverage']:.1f} %"
            for s in SPLITS))
    note(f"wrote {final}")


if __name__ == "__main__":
    main()
