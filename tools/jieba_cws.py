#!/usr/bin/python3
"""A peer row for the CWS tables: jieba (Debian's python3-jieba; its default dictionary and HMM, nothing trained
on our data) segments the dev and test text of a prepared CWS folder, and the result is written as a run folder
that the tables, `make rescore` and the significance tests read like any other:

  /usr/bin/python3 tools/jieba_cws.py data/cws/msr_inhouse [--out results/runs/cws_msr_jieba]
  /usr/bin/python3 tools/jieba_cws.py data/cws/pku_pkupd       # PKU protocol (d): results/runs/cws_pkupd_jieba

The input of each split is its gold .seg file with the separators removed (the characters the trained
segmenters see); jieba's words are written to <out>/segmented/<split>.utf8 in the bakeoff format, and scored by
the suite's SIGHAN scorer (plots/rescore.py seg_rows: precision, recall, F1, OOV rate, OOV and IV recall
against the folder's train_words.txt, the same numbers the C++ scorer gives). <out>/summary.json holds them with
the jieba version and the seconds taken; command.txt, config.resolved.json, metrics.jsonl and stats/ as a run.
The default run name follows the experiment files of the folder's protocol (run_name below), so that the row
sits beside the trained cells' runs.
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "plots"))
import rescore  # noqa: E402

PROG = "tools/jieba_cws.py"


def fail(msg):
    print(f"{PROG}: error: {msg}", file=sys.stderr)
    sys.exit(2)


# The run-name stem of a prepared folder <corpus>_<protocol>, as the protocol's experiment files name their runs:
# experiments/cws/msr_<cell>.json (in-house (b)), gsd_<cell>.json (UD), msr_standard_<cell>.json (standard (a)),
# pkupd_<cell>.json (People's Daily (d)). Other folders (own data): the corpus name.
PROTOCOL_STEMS = {"standard": "{corpus}_standard", "pkupd": "pkupd"}


def run_name(data_dir):
    corpus, _, protocol = os.path.basename(os.path.normpath(data_dir)).partition("_")
    return "cws_%s_jieba" % PROTOCOL_STEMS.get(protocol, "{corpus}").format(corpus=corpus)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data_dir", help="a prepared CWS folder (data_prep/cws.py), e.g. data/cws/msr_inhouse")
    ap.add_argument("--out", help="run folder to write (default results/runs/cws_<corpus>_jieba)")
    a = ap.parse_args(argv)
    try:
        import jieba
    except ImportError:
        fail("jieba is not importable by this Python: install Debian's python3-jieba (make deps) and run with "
             "/usr/bin/python3")
    prep_path = os.path.join(a.data_dir, "prep.json")
    if not os.path.isfile(prep_path):
        fail(f"{prep_path} not found: {a.data_dir} is not a folder written by data_prep/cws.py")
    with open(prep_path, encoding="utf-8") as f:
        prep = json.load(f)
    out = a.out or os.path.join("results", "runs", run_name(a.data_dir))
    name = os.path.basename(os.path.normpath(out))
    jieba.setLogLevel(60)   # its dictionary-loading banner is not an error
    jieba.initialize()
    cfg = {"data": {"dir": os.path.normpath(a.data_dir), "protocol": prep.get("description", "?"),
                    "train": "train", "dev": "dev", "test": "test", "words": "train_words.txt"},
           "model": {"cell": {"type": "jieba"}, "objective": "none",
                     "segmenter": f"jieba {jieba.__version__}, default dictionary, HMM on, no training on our data"}}
    os.makedirs(os.path.join(out, "segmented"), exist_ok=True)
    summary = {"name": name, "task": "cws", "params": 0, "stop_reason": "none", "epochs_done": 0,
               "segmenter": cfg["model"]["segmenter"], "protocol": cfg["data"]["protocol"]}
    chars, secs = 0, 0.0
    for split in ("dev", "test"):
        gold = rescore.read_lines(os.path.join(a.data_dir, split + ".seg"))
        start = time.perf_counter()
        lines = []
        for n, g in enumerate(gold, 1):
            text = "".join(g.split())
            words = [w for w in jieba.cut(text, HMM=True) if w.strip()]
            if "".join(words) != text:
                fail(f"jieba changed the characters of {split}.seg line {n}")
            lines.append(" ".join(words))
        secs += time.perf_counter() - start
        chars += sum(len("".join(g.split())) for g in gold)
        with open(os.path.join(out, "segmented", split + ".utf8"), "w", encoding="utf-8", newline="\n") as f:
            f.write("".join(l + "\n" for l in lines))
    with open(os.path.join(out, "config.resolved.json"), "w", encoding="utf-8") as f:
        json.dump(cfg, f, indent=2, sort_keys=True)
        f.write("\n")
    root = os.getcwd()
    for split in ("dev", "test"):
        _, m = rescore.seg_rows(out, "cws", root, cfg, split)
        summary[split] = m
    summary["decode_chars_s"] = chars / max(secs, 1e-9)
    summary["train_units_per_s"] = 0
    with open(os.path.join(out, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=2, sort_keys=True)
        f.write("\n")
    with open(os.path.join(out, "metrics.jsonl"), "w", encoding="utf-8") as f:
        f.write(json.dumps(dict(summary["dev"], split="dev", step=0, epoch=0), sort_keys=True) + "\n")
    with open(os.path.join(out, "command.txt"), "w", encoding="utf-8") as f:
        f.write(f"/usr/bin/python3 {PROG} {' '.join(argv if argv is not None else sys.argv[1:])}\n# cwd: {root}\n")
    rc = rescore.main(["--write-stats", out])
    print(f"{PROG}: wrote {out}: test F1 {100 * summary['test']['f1']:.2f}, dev F1 {100 * summary['dev']['f1']:.2f}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
