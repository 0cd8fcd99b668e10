#!/usr/bin/env python3
"""SQuAD v1.1 exact match and F1 of a prediction file, by the official evaluate-v1.1.py's algorithm (restated,
not copied; core/eval/squad_eval.h is the C++ the rc task uses, and both are tested on the same fixtures,
tests/data/squad/): normalise = lowercase (str.lower), drop string.punctuation, replace each whole word
a / an / the by a space (re \\b), join str.split() by single spaces; per question the best EM and the best token
F1 over its ground truths; EM and F1 = 100 * sum / number of questions in the dataset.

Unlike the official script, bad input stops with a message naming the file and the item (exit 2): a file that is
not JSON, no data / paragraphs / qas / id / answers, a question without answers, a duplicate id, a prediction that
is not a string. Questions without a prediction score 0 and are counted (the script prints one warning each);
predictions whose id is not in the dataset are ignored and counted (the script ignores them silently).

usage: squad_eval.py DATASET.json[.gz] PREDICTIONS.json [--first 10]    prints one JSON object
"""
import argparse
import collections
import gzip
import json
import re
import string
import sys

PUNCT = set(string.punctuation)
ARTICLES = re.compile(r"\b(a|an|the)\b")


def fail(msg):
    print(f"tools/squad_eval.py: error: {msg}", file=sys.stderr)
    sys.exit(2)


def normalize(s):
    s = "".join(c for c in s.lower() if c not in PUNCT)
    return " ".join(ARTICLES.sub(" ", s).split())


def exact(pred, gold):
    return normalize(pred) == normalize(gold)


def f1(pred, gold):
    p, g = normalize(pred).split(), normalize(gold).split()
    same = sum((collections.Counter(p) & collections.Counter(g)).values())
    if same == 0:
        return 0
    precision, recall = 1.0 * same / len(p), 1.0 * same / len(g)
    return (2 * precision * recall) / (precision + recall)


def load(path):
    try:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            return json.load(f)
    except (OSError, EOFError, UnicodeDecodeError) as e:
        fail(f"cannot read {path}: {e}")
    except (ValueError, RecursionError) as e:
        fail(f"{path}: not JSON ({str(e)[:200]})")


def need(obj, key, kind, path, where):
    if not isinstance(obj, dict):
        fail(f"{path}: {where}: a JSON {type(obj).__name__}, expected an object")
    if key not in obj:
        fail(f"{path}: {where}: no '{key}': expected SQuAD's layout (data[].paragraphs[].qas[])")
    if not isinstance(obj[key], kind):
        fail(f"{path}: {where}.{key}: a JSON {type(obj[key]).__name__}, expected "
             f"{'an array' if kind is list else 'a string'}")
    return obj[key]


def questions(root, path):
    """[(id, [answer texts])] in file order, every item checked."""
    out, seen = [], {}
    for a, art in enumerate(need(root, "data", list, path, "top level")):
        for p, para in enumerate(need(art, "paragraphs", list, path, f"data[{a}]")):
            wp = f"data[{a}].paragraphs[{p}]"
            for q, qa in enumerate(need(para, "qas", list, path, wp)):
                wq = f"{wp}.qas[{q}]"
                qid = need(qa, "id", str, path, wq)
                if qid in seen:
                    fail(f"{path}: {wq}: duplicate id '{qid}', first at {seen[qid]}")
                seen[qid] = wq
                answers = need(qa, "answers", list, path, wq)
                if not answers:
                    fail(f"{path}: {wq} (id {qid}): no answer")
                out.append((qid, [need(x, "text", str, path, f"{wq}.answers[{k}]") for k, x in enumerate(answers)]))
    if not out:
        fail(f"{path}: no question")
    return out


def score(qs, preds, first=10):
    em = total = 0
    f = 0.0
    missing = []
    for qid, golds in qs:
        total += 1
        if qid not in preds:
            missing.append(qid)
            continue
        em += max(exact(preds[qid], g) for g in golds)
        f += max(f1(preds[qid], g) for g in golds)
    ids = {qid for qid, _ in qs}
    unknown = sorted(k for k in preds if k not in ids)
    return {"exact_match": 100.0 * em / total, "f1": 100.0 * f / total, "total": total, "answered": total - len(missing),
            "missing": len(missing), "unknown": len(unknown), "first_missing": missing[:first],
            "first_unknown": unknown[:first]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dataset")
    ap.add_argument("predictions")
    ap.add_argument("--first", type=int, default=10, help="ids listed of the missing and unknown ones")
    a = ap.parse_args()
    qs = questions(load(a.dataset), a.dataset)
    preds = load(a.predictions)
    if not isinstance(preds, dict):
        fail(f"{a.predictions}: a JSON {type(preds).__name__}, expected an object {{question id: answer}}")
    for k, v in preds.items():
        if not isinstance(v, str):
            fail(f"{a.predictions}: id '{k}': a JSON {type(v).__name__}, expected the answer string")
    print(json.dumps(score(qs, preds, a.first)))


if __name__ == "__main__":
    main()
