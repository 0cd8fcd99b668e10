#!/usr/bin/python3
"""How well a CWS run fits its own training data: the run's best model (model.best.bin, through `cws segment`)
segments every Nth line of its training split, scored by the suite's SIGHAN scorer (precision, recall, F1 of
word spans: plots/rescore.py), beside the run's dev F1 from summary.json (or its best dev evaluation in
metrics.jsonl while it still trains). A training F1 close to the dev F1 says the model underfits (a model that
fits its data scores far higher on text it trained on); a wide gap says it generalises poorly.

  /usr/bin/python3 tools/cws_fit.py /work/runs/cws_pkupd_lstm_s1234 [--bin build/bin/cws] [--every 10] [--json]

Why a sample and not the whole split: decoding runs at 15-40k characters/s on one thread, and every 10th line
of PKU (d) (514,757 characters) is enough to put the training F1 within a few tenths. Nothing is written to the
run folder; the sample and its segmentation live in a temporary folder.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "plots"))
import rescore  # noqa: E402

PROG = "tools/cws_fit.py"


def fail(msg):
    print(f"{PROG}: {msg}", file=sys.stderr)
    sys.exit(2)


def sample(lines, every):
    """Lines 1, 1 + every, 1 + 2 every, ... (1-based), the empty ones left out."""
    return [ln for n, ln in enumerate(lines) if n % every == 0 and ln.split()]


def prf(gold, pred):
    """Word-span precision, recall and F1 of segmented lines against gold lines (the same characters)."""
    c = g = p = 0
    for n, (gl, pl) in enumerate(zip(gold, pred), 1):
        gw, pw = gl.split(), pl.split()
        if "".join(gw) != "".join(pw):
            raise rescore.Bad(f"segmented line {n} covers other characters than its gold line")
        gs, ps = rescore.spans(gw), rescore.spans(pw)
        c, g, p = c + len(gs & ps), g + len(gs), p + len(ps)
    prec = c / p if p else 0.0
    rec = c / g if g else 0.0
    return {"precision": prec, "recall": rec, "f1": 2 * prec * rec / (prec + rec) if prec + rec else 0.0,
            "gold_words": g}


def dev_f1(run):
    """(dev F1, where it was read) of the run: summary.json when finished, else its best dev evaluation so far."""
    summary = os.path.join(run, "summary.json")
    if os.path.isfile(summary):
        with open(summary, encoding="utf-8") as f:
            return json.load(f)["dev"]["f1"], "summary.json"
    best, epoch = None, None
    path = os.path.join(run, "metrics.jsonl")
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                if r.get("split") == "dev" and "f1" in r and (best is None or r["f1"] > best):
                    best, epoch = r["f1"], r.get("epoch")
    return best, (f"metrics.jsonl, best dev evaluation so far (epoch {epoch})" if best is not None else None)


def main(argv=None):
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument("run", help="a cws run folder with config.resolved.json and model.best.bin")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin", "cws"), help="the cws binary")
    ap.add_argument("--every", type=int, default=10, help="score every Nth training line (default 10)")
    ap.add_argument("--json", action="store_true", help="print the numbers as JSON")
    a = ap.parse_args(argv)
    # the binary runs in the repository (a run's data.dir is relative to it), so both paths are made absolute
    a.run, a.bin = os.path.abspath(a.run), os.path.abspath(a.bin)
    if a.every < 1:
        fail(f"--every {a.every}: expected a whole number of at least 1")
    cfg_path = os.path.join(a.run, "config.resolved.json")
    if not os.path.isfile(cfg_path):
        fail(f"{cfg_path}: no such file (expected a cws run folder)")
    if not os.path.isfile(os.path.join(a.run, "model.best.bin")):
        fail(f"{a.run}: no model.best.bin (the run has not finished an epoch, or its checkpoints were removed)")
    if not os.access(a.bin, os.X_OK):
        fail(f"{a.bin}: not an executable cws binary (--bin)")
    with open(cfg_path, encoding="utf-8") as f:
        cfg = json.load(f)
    if cfg.get("task", "cws") != "cws" or "words" not in cfg.get("data", {}):
        fail(f"{cfg_path}: not a cws run (no data.words)")
    try:
        gold_path = rescore.reference(ROOT, cfg, cfg["data"]["train"] + ".seg")
        gold = sample(rescore.read_lines(gold_path), a.every)
    except (rescore.Skip, rescore.Bad) as e:
        fail(str(e))
    with tempfile.TemporaryDirectory() as tmp:
        raw, out = os.path.join(tmp, "train_sample.txt"), os.path.join(tmp, "train_sample.seg")
        with open(raw, "w", encoding="utf-8") as f:
            f.writelines("".join(ln.split()) + "\n" for ln in gold)
        proc = subprocess.run([a.bin, "segment", a.run, "--input", raw, "--output", out, "--threads", "1"],
                              capture_output=True, text=True, cwd=ROOT)
        if proc.returncode != 0:
            fail(f"{a.bin} segment {a.run} failed (exit {proc.returncode}): {proc.stderr.strip()[-500:]}")
        pred = rescore.read_lines(out)
    if len(pred) != len(gold):
        fail(f"{a.bin} segment wrote {len(pred)} lines for the {len(gold)} sampled lines")
    try:
        train = prf(gold, pred)
    except rescore.Bad as e:
        fail(f"{a.bin} segment: {e}")
    dev, dev_from = dev_f1(a.run)
    res = {"run": os.path.basename(os.path.normpath(a.run)), "train_split": gold_path, "every": a.every,
           "lines": len(gold), "train_sample": train, "dev_f1": dev, "dev_from": dev_from}
    if a.json:
        print(json.dumps(res, indent=1))
        return 0
    t = train
    print(f"{res['run']}: one line in {a.every} of {gold_path} ({len(gold):,} lines, {t['gold_words']:,} words): "
          f"P {100 * t['precision']:.2f} R {100 * t['recall']:.2f} F1 {100 * t['f1']:.2f}; "
          + (f"dev F1 {100 * dev:.2f} ({dev_from})" if dev is not None else "no dev F1 recorded yet"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
