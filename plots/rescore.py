#!/usr/bin/env python3
"""Re-scores committed runs from the system outputs they keep and the prepared references alone.

  /usr/bin/python3 plots/rescore.py [--runs results/runs] [--root .] [--write-stats] [RUN_DIR ...]

For every run folder that keeps its outputs, the metrics in its summary.json are recomputed here,
independently of the C++ scorers that wrote them, and compared (to 1e-9):
  classify, snli  predictions/{dev,test}.txt (one label per example, data order) against the gold labels
                  of the prepared data: accuracy.
  cws             segmented/{dev,test}.utf8 against the prepared gold .seg files: precision, recall, F1,
                  OOV rate and OOV / IV recall (SIGHAN definitions: a word is right when its character
                  span is a gold word's span; OOV against the training word list).
  ner             predictions/{dev,test}.txt (conlleval's input: `token gold predicted` per line, a blank
                  line after each sentence) against the prepared gold files: entity precision, recall, F1 and
                  token accuracy as conlleval counts them (an entity is right when its type and both
                  boundaries match; chunks by conlleval's rules, so IOB1, BIO and BIOES all read).
  lm              logprobs/{dev,test}.txt (per sentence: log-probability, tokens scored), one line per line
                  of the prepared split: perplexity and token count (relative tolerance 1e-9: the run sums
                  the same numbers in another order).
  rc              the official prediction files summary.json names (predictions/<split file>.json, {id:
                  answer}) against every question of the prepared split they answer (the trainer's dev is
                  data.heldout, its test data.dev; the first data.max_eval_questions when set): SQuAD's EM
                  and F1 by evaluate-v1.1.py's algorithm (tools/squad_eval.py's functions), questions and
                  answered.
It also recomputes each run's per-example statistics, `stats/<split>.tsv` (plots/significance.py's
columns, header first), the input of the paired significance tests in the tables: --write-stats writes
them (tools/collect_run.sh does, when it collects a run); without it they must equal what is recomputed.

A run without kept outputs is listed as such (runs from before outputs were kept). A run whose references
are not prepared (data/ is git-ignored) is skipped with the reason. Exit 0 when every re-scored number
agrees, 1 on any difference (each named: run, split, metric, both values), 77 when nothing could be
re-scored because no data is prepared, 2 on bad usage.
"""
import argparse
import glob
import collections
import gzip
import json
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run_files import OUTPUT_DIRS, epochs_done_problem  # noqa: E402
import significance as sig  # noqa: E402
from significance import COLUMNS  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tools"))
import squad_eval  # noqa: E402

TOL = 1e-9


class Skip(Exception):
    """The run cannot be re-scored here (its references are not prepared)."""


class Bad(Exception):
    """An output or reference file that cannot be read as what it should be."""


def read_lines(path):
    """The lines of a text file, or of its `gzip -9n` copy path + '.gz' (how large outputs are kept)."""
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        path += ".gz"
    try:
        if path.endswith(".gz"):
            with gzip.open(path, "rt", encoding="utf-8", newline="") as f:
                text = f.read()
        else:
            with open(path, encoding="utf-8", newline="") as f:
                text = f.read()
    except UnicodeDecodeError as e:
        raise Bad(f"{path}: not UTF-8 ({e})") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


def reference(root, cfg, name):
    path = os.path.join(root, cfg["data"]["dir"], name)
    if not os.path.isfile(path):
        raise Skip(f"{path} is not prepared (data_prep/)")
    return path


def gold_labels(task, root, cfg, split):
    """The gold label of every example of a prepared split, as the predictions file writes labels."""
    if task == "snli":
        path = reference(root, cfg, cfg["data"][split] + ".tsv")
        return [ln.split("\t", 1)[0] for ln in read_lines(path) if ln.strip()], path
    path = reference(root, cfg, cfg["data"][split] + ".txt")
    return [ln.split(None, 1)[0] for ln in read_lines(path) if ln.strip()], path


def label_rows(run, task, root, cfg, split):
    """Per-example [correct] rows and the recomputed metrics of one split's predictions."""
    pred_path = os.path.join(run, "predictions", split + ".txt")
    pred = read_lines(pred_path)
    gold, gold_path = gold_labels(task, root, cfg, split)
    if len(pred) != len(gold):
        raise Bad(f"{pred_path}: {len(pred)} predictions for the {len(gold)} examples of {gold_path}")
    rows = [[int(p == g)] for p, g in zip(pred, gold)]
    return rows, {"accuracy": sum(r[0] for r in rows) / len(rows) if rows else 0.0}


def spans(words):
    out, at = set(), 0
    for w in words:
        out.add((at, at + len(w)))
        at += len(w)
    return out


def seg_rows(run, task, root, cfg, split):
    """Per-sentence [correct, gold, pred] word counts and the SIGHAN metrics of one split's segmentation."""
    test_path = os.path.join(run, "segmented", split + ".utf8")
    gold_path = reference(root, cfg, cfg["data"][split] + ".seg")
    words_path = reference(root, cfg, cfg["data"]["words"])
    test, gold = read_lines(test_path), read_lines(gold_path)
    if len(test) != len(gold):
        raise Bad(f"{test_path}: {len(test)} sentences, {gold_path} has {len(gold)}")
    train_words = set(w for w in read_lines(words_path) if w)
    rows = []
    oov_gold = oov_correct = 0
    for n, (t, g) in enumerate(zip(test, gold), 1):
        tw, gw = t.split(), g.split()
        if "".join(tw) != "".join(gw):
            raise Bad(f"{test_path}: sentence {n} covers other characters than {gold_path} line {n}")
        ts, gs = spans(tw), spans(gw)
        right = ts & gs
        at = 0
        for w in gw:
            if w not in train_words:
                oov_gold += 1
                oov_correct += (at, at + len(w)) in right
            at += len(w)
        rows.append([len(right), len(gw), len(tw)])
    c, gsum, psum = (sum(r[k] for r in rows) for k in range(3))
    p = c / psum if psum else 0.0
    r = c / gsum if gsum else 0.0
    m = {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0,
         "oov_rate": oov_gold / gsum if gsum else 0.0,
         "oov_recall": oov_correct / oov_gold if oov_gold else 0.0,
         "iv_recall": (c - oov_correct) / (gsum - oov_gold) if gsum - oov_gold else 0.0}
    return rows, m


def conll_sentences(path, columns=None):
    """[[fields]] sentences of a column file (blank or whitespace-only lines between them; -DOCSTART- lines are
    boundaries); with columns, every token line must have that many fields."""
    out, cur = [], []
    for n, line in enumerate(read_lines(path), 1):
        f = line.split()
        if not f or f[0] == "-DOCSTART-":
            if cur:
                out.append(cur)
            cur = []
            continue
        if columns is not None and len(f) != columns:
            raise Bad(f"{path}:{n}: {len(f)} columns, expected {columns} (token gold predicted)")
        cur.append(f)
    if cur:
        out.append(cur)
    return out


def chunks(tags):
    """{(begin, end, type)} of one sentence's tags by conlleval's startOfChunk / endOfChunk (with the S and E
    cases of BIOES); written apart from core/eval/spans.cc, as a check on it."""
    out, prev, prev_type, begin = set(), "O", "", None
    for i, tag in enumerate(list(tags) + ["O"]):
        p, t = ("O", "") if tag == "O" else (tag[0], tag[2:])
        if tag != "O" and (len(tag) < 3 or tag[1] != "-" or p not in "BIES"):
            raise Bad(f"tag {tag!r} is neither O nor B-, I-, E- or S- plus a type")
        if begin is not None and (prev in "ES" or (prev in "BI" and p in "BSO") or (prev != "O" and prev_type != t)):
            out.add((begin, i, prev_type))
            begin = None
        if p in "BS" or (p in "EI" and prev in "ESO") or (p != "O" and prev_type != t):
            begin = i
        prev, prev_type = p, t
    return out


def ner_rows(run, task, root, cfg, split):
    """Per-sentence [correct, gold, pred] entity counts and conlleval's scores of one split's predictions."""
    pred_path = os.path.join(run, "predictions", split + ".txt")
    gold_path = reference(root, cfg, cfg["data"][split] + "." + cfg["data"].get("extension", "conll"))
    pred, gold = conll_sentences(pred_path, 3), conll_sentences(gold_path)
    if len(pred) != len(gold):
        raise Bad(f"{pred_path}: {len(pred)} sentences, {gold_path} has {len(gold)}")
    rows, tokens, right_tags = [], 0, 0
    for n, (ps, gs) in enumerate(zip(pred, gold), 1):
        if [f[0] for f in ps] != [f[0] for f in gs]:
            raise Bad(f"{pred_path}: sentence {n} has other tokens than sentence {n} of {gold_path}")
        g_kept, p_kept, g_ref = chunks([f[1] for f in ps]), chunks([f[2] for f in ps]), chunks([f[-1] for f in gs])
        if g_kept != g_ref:
            raise Bad(f"{pred_path}: sentence {n}'s gold entities differ from {gold_path}'s")
        rows.append([len(g_kept & p_kept), len(g_kept), len(p_kept)])
        tokens += len(ps)
        right_tags += sum(f[1] == f[2] for f in ps)
    c, g, pr = (sum(r[k] for r in rows) for k in range(3))
    p = c / pr if pr else 0.0
    r = c / g if g else 0.0
    return rows, {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0,
                  "gold_entities": g, "predicted_entities": pr, "correct_entities": c,
                  "token_accuracy": right_tags / tokens if tokens else 0.0}


def lm_rows(run, task, root, cfg, split):
    """Per-sentence [logprob, tokens] rows and the perplexity of one split's kept log-probabilities. The
    sentences must be the prepared split's lines, each scored on at most its words plus <eos>."""
    lp_path = os.path.join(run, "logprobs", split + ".txt")
    name = {"dev": cfg["data"]["valid"], "test": cfg["data"]["test"]}[split]
    ref_path = reference(root, cfg, name)
    lines, ref = read_lines(lp_path), read_lines(ref_path)
    if len(lines) != len(ref):
        raise Bad(f"{lp_path}: {len(lines)} sentences, {ref_path} has {len(ref)} lines")
    rows = []
    for n, (ln, text) in enumerate(zip(lines, ref), 1):
        parts = ln.split("\t")
        try:
            lp, tok = float(parts[0]), int(parts[1])
        except (ValueError, IndexError):
            raise Bad(f"{lp_path}:{n}: expected 'logprob<TAB>tokens', got {ln!r}") from None
        if not 0 <= tok <= len(text.split()) + 1 or lp > 0:
            raise Bad(f"{lp_path}:{n}: {tok} tokens with log-probability {lp} for a sentence of "
                      f"{len(text.split())} words + <eos>")
        rows.append([repr(lp), tok])
    total_lp = math.fsum(float(r[0]) for r in rows)
    tokens = sum(r[1] for r in rows)
    return rows, {"ppl": math.exp(-total_lp / tokens), "tokens": float(tokens)}


def ngrams(words, n):
    return collections.Counter(tuple(words[i:i + n]) for i in range(len(words) - n + 1))


def bleu_row(hyp, ref):
    """Sufficient statistics of one sentence against one reference (token lists): hyp_len ref_len m1 t1 .. m4 t4,
    clipped n-gram matches (Papineni et al. 2002; sacreBLEU's and multi-bleu.perl's counting)."""
    row = [len(hyp), len(ref)]
    for n in range(1, 5):
        h, r = ngrams(hyp, n), ngrams(ref, n)
        row += [sum(min(c, r[g]) for g, c in h.items()), max(len(hyp) - n + 1, 0)]
    return row


_13A = [(re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),   # sacreBLEU's tokenizer_13a.py
        (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
        (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
        (re.compile(r"([0-9])(-)"), r"\1 \2 ")]


def tokenize_13a(line):
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    line = f" {line} "
    for pattern, repl in _13A:
        line = pattern.sub(repl, line)
    return line.split()


def nmt_entry(run, root, cfg, entry, split):
    """(rows, {"bleu", "sacrebleu"}) of translations/<entry>.<tgt> (+ .detok.) against the split's references:
    tokenised lowercased BLEU (multi-bleu.perl's convention, tokenize none) and sacreBLEU 13a lowercased."""
    d = cfg["data"]
    tgt = d["tgt"]
    hyp_path = os.path.join(run, "translations", f"{entry}.{tgt}")
    ref_path = reference(root, cfg, f"{split}.tok.{tgt}")
    hyps, refs = read_lines(hyp_path), read_lines(ref_path)
    if len(hyps) != len(refs):
        raise Bad(f"{hyp_path}: {len(hyps)} translations for the {len(refs)} references of {ref_path}")
    rows = [bleu_row(h.lower().split(), r.lower().split()) for h, r in zip(hyps, refs)]
    out = {"bleu": sig.metric("bleu", rows)}
    detok_path = os.path.join(run, "translations", f"{entry}.detok.{tgt}")
    raw_path = os.path.join(root, d["dir"], f"{split}.raw.{tgt}")
    if os.path.exists(detok_path) or os.path.exists(detok_path + ".gz"):
        raws = read_lines(reference(root, cfg, f"{split}.raw.{tgt}"))
        dets = read_lines(detok_path)
        if len(dets) != len(raws):
            raise Bad(f"{detok_path}: {len(dets)} translations for the {len(raws)} references of {raw_path}")
        srows = [bleu_row(tokenize_13a(h.lower()), tokenize_13a(r.lower())) for h, r in zip(dets, raws)]
        out["sacrebleu"] = sig.metric("bleu", srows)
    return rows, out


def nmt_rows(run, task, root, cfg, split):
    """NMT: every entry of summary["translations"] is re-scored (checked inside); the rows and metrics returned
    are those of the dev or test split's entry at the run's beam, compared with summary["dev"] / ["test"]."""
    with open(os.path.join(run, "summary.json"), encoding="utf-8") as f:
        summary = json.load(f)
    name = cfg["data"]["dev"] if split == "dev" else cfg["data"]["test"]
    entries = summary.get("translations", {})
    for entry, m in entries.items():
        if entry == name:
            continue
        _, got = nmt_entry(run, root, cfg, entry, m.get("split", entry))
        for k, v in got.items():
            if k in m and abs(v - m[k]) > TOL * max(1.0, abs(m[k])):
                raise Bad(f"translations {entry}: {k}: summary.json says {m[k]!r}, the kept outputs give {v!r}")
    if name not in entries:
        raise Bad(f"summary.json has no translations entry {name!r} (runs from before dev translations were kept)")
    rows, got = nmt_entry(run, root, cfg, name, name)
    m = entries[name]
    if "sacrebleu" in got and "sacrebleu" in m and abs(got["sacrebleu"] - m["sacrebleu"]) > TOL * max(1.0, m["sacrebleu"]):
        raise Bad(f"translations {name}: sacrebleu: summary.json says {m['sacrebleu']!r}, the kept outputs give "
                  f"{got['sacrebleu']!r}")
    return rows, {"bleu": got["bleu"]}


def squad_rows(run, task, root, cfg, split):
    """rc: per question [exact_match, f1, 1] (its best over its answers; 0, 0 without a prediction) and the
    official EM / F1 in %, questions and answered, of one split's kept prediction file."""
    with open(os.path.join(run, "summary.json"), encoding="utf-8") as f:
        kept = (json.load(f).get("predictions") or {}).get(split)
    if not kept:
        raise Bad(f"summary.json names no {split} prediction file (summary['predictions'])")
    name = cfg["data"]["heldout" if split == "dev" else "dev"]
    ref_path = reference(root, cfg, name + ".jsonl")
    questions = []
    for n, line in enumerate(read_lines(ref_path), 1):
        try:
            questions += [(q["id"], [a["text"] for a in q["answers"]]) for q in json.loads(line)["qas"]]
        except (ValueError, KeyError, TypeError) as e:
            raise Bad(f"{ref_path}:{n}: not data_prep/squad.py's paragraph ({e})") from None
    if cfg["data"].get("max_eval_questions"):
        questions = questions[:cfg["data"]["max_eval_questions"]]
    pred_path = os.path.join(run, kept)
    try:
        preds = json.loads("\n".join(read_lines(pred_path)))
    except ValueError as e:
        raise Bad(f"{pred_path}: not JSON ({e})") from None
    if not isinstance(preds, dict) or not all(isinstance(v, str) for v in preds.values()):
        raise Bad(f"{pred_path}: not an object {{question id: answer text}}")
    rows = []
    for qid, golds in questions:
        if qid in preds:
            rows.append([int(max(squad_eval.exact(preds[qid], g) for g in golds)),
                         max(squad_eval.f1(preds[qid], g) for g in golds), 1])
        else:
            rows.append([0, 0, 1])
    em = f = 0.0
    for r in rows:   # the official script's order: sums in dataset order, then 100 * sum / total
        em += r[0]
        f += r[1]
    total = len(rows)
    return rows, {"exact_match": 100.0 * em / total if total else 0.0, "f1": 100.0 * f / total if total else 0.0,
                  "total": total, "answered": sum(1 for qid, _ in questions if qid in preds)}


# task -> (the folder its outputs are kept in, the rows-and-metrics function, the stats kind)
SCORERS = {
    "classify": ("predictions", label_rows, "accuracy"),
    "snli": ("predictions", label_rows, "accuracy"),
    "cws": ("segmented", seg_rows, "f1"),
    "ner": ("predictions", ner_rows, "f1"),
    "lm": ("logprobs", lm_rows, "ppl"),
    "nmt": ("translations", nmt_rows, "bleu"),
    "rc": ("predictions", squad_rows, "squad"),
}


def stats_text(kind, rows):
    return "\t".join(COLUMNS[kind]) + "\n" + "".join("\t".join(str(v) for v in r) + "\n" for r in rows)


def rescore_run(run, root, write_stats):
    """(status, messages): status is 'ok', 'not kept', 'skipped' or 'differs'."""
    name = os.path.basename(os.path.normpath(run))
    try:
        with open(os.path.join(run, "summary.json"), encoding="utf-8") as f:
            summary = json.load(f)
        with open(os.path.join(run, "config.resolved.json"), encoding="utf-8") as f:
            cfg = json.load(f)
    except (OSError, ValueError) as e:
        return "differs", [f"{name}: cannot read its summary or resolved config ({e})"]
    task = summary.get("task", "?")
    problem = epochs_done_problem(run, summary)
    if problem:
        return "differs", [f"{name}: {problem}"]
    if not any(os.path.isdir(os.path.join(run, d)) for d in OUTPUT_DIRS):
        return "not kept", [f"{name}: outputs not kept"]
    if task not in SCORERS:
        return "differs", [f"{name}: keeps outputs, but rescore has no scorer for task {task!r}"]
    _, fn, kind = SCORERS[task]
    msgs, status = [], "ok"
    try:
        for split in ("dev", "test"):
            rows, got = fn(run, task, root, cfg, split)
            for metric, value in got.items():
                want = summary.get(split, {}).get(metric)
                if want is None:
                    continue
                if abs(value - want) > TOL * max(1.0, abs(want)):
                    status = "differs"
                    msgs.append(f"{name}: {split} {metric}: summary.json says {want!r}, the kept outputs give {value!r}")
            stats_path = os.path.join(run, "stats", split + ".tsv")
            text = stats_text(kind, rows)
            if write_stats:
                os.makedirs(os.path.dirname(stats_path), exist_ok=True)
                with open(stats_path, "w", encoding="utf-8") as f:
                    f.write(text)
            elif not os.path.isfile(stats_path):
                status = "differs"
                msgs.append(f"{name}: {stats_path} missing (write it: plots/rescore.py --write-stats {run})")
            elif open(stats_path, encoding="utf-8").read() != text:
                status = "differs"
                msgs.append(f"{name}: {stats_path} differs from the statistics its outputs give")
    except Skip as e:
        return "skipped", [f"{name}: skipped: {e}"]
    except (Bad, OSError) as e:
        return "differs", [f"{name}: {e}"]
    if status == "ok":
        msgs.append(f"{name}: {task} dev and test re-scored, equal to summary.json")
    return status, msgs


def diverged_trial(run):
    """True for a tools/tune.py trial folder whose trial.json records a diverged run (tune.py's EXIT_NON_FINITE)."""
    try:
        with open(os.path.join(run, "trial.json"), encoding="utf-8") as f:
            return json.load(f).get("diverged") is True
    except (OSError, ValueError):
        return False


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs_or_dirs", nargs="*", metavar="RUN_DIR", help="run folders (default: every one in --runs)")
    ap.add_argument("--runs", default="results/runs", help="folder of run folders (default results/runs)")
    ap.add_argument("--root", default=".", help="where data/ (the prepared references) is (default .)")
    ap.add_argument("--write-stats", action="store_true", help="write stats/<split>.tsv instead of checking it")
    ap.add_argument("--sweeps", default=None,
                    help="tools/tune.py sweeps whose trial and seed run folders are re-scored too (default: sweeps/ "
                         "beside --runs, results/sweeps)")
    a = ap.parse_args(argv)
    if a.sweeps is None:
        a.sweeps = os.path.join(os.path.dirname(os.path.normpath(a.runs)), "sweeps")
    runs = a.runs_or_dirs or (sorted(os.path.join(a.runs, d) for d in os.listdir(a.runs)
                                     if os.path.isdir(os.path.join(a.runs, d))) +
                              sorted(glob.glob(os.path.join(a.sweeps, "*", "*", "trial_*")) +
                                     glob.glob(os.path.join(a.sweeps, "*", "*__seeds", "best_s*"))))
    counts = {"ok": 0, "not kept": 0, "skipped": 0, "differs": 0}
    for run in runs:
        if not os.path.isfile(os.path.join(run, "summary.json")):
            if diverged_trial(run):   # the binary stopped on a non-finite loss (exit 3) and wrote no summary
                print(f"rescore: {run}: a tune trial that diverged: no summary.json, its value is metrics.jsonl's best "
                      f"dev before the divergence, with no outputs kept to re-score")
                counts["not kept"] += 1
                continue
            print(f"rescore: {run}: no summary.json (not a run folder)", file=sys.stderr)
            counts["differs"] += 1
            continue
        status, msgs = rescore_run(run, a.root, a.write_stats)
        counts[status] += 1
        for m in msgs:
            print(f"rescore: {m}", file=sys.stderr if status == "differs" else sys.stdout)
    print(f"rescore: {counts['ok']} runs re-scored and equal, {counts['differs']} differ, {counts['skipped']} "
          f"skipped (references not prepared), {counts['not kept']} without kept outputs")
    if counts["differs"]:
        return 1
    if counts["ok"] == 0 and counts["skipped"]:
        print("rescore: nothing re-scored: prepare the data first (data_prep/)")
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
