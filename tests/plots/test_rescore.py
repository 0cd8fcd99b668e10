#!/usr/bin/env python3
"""plots/rescore.py on hand-made run folders and references: accuracy, SIGHAN segmentation scores and LM
perplexity recomputed from kept outputs, the stats files written and checked, a changed number or output
named (exit 1), a run without outputs listed, missing references skipped (exit 77).
/usr/bin/python3 tests/plots/test_rescore.py
"""
import contextlib
import io
import json
import math
import os
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "plots"))
import rescore  # noqa: E402
import significance as sig  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tools"))
import mend_epochs_done  # noqa: E402


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def make_run(root, name, task, data, summary, outputs):
    d = os.path.join(root, "results", "runs", name)
    write(os.path.join(d, "summary.json"), json.dumps(dict(summary, task=task)))
    write(os.path.join(d, "config.resolved.json"), json.dumps({"data": data}))
    for rel, text in outputs.items():
        write(os.path.join(d, rel), text)
    return d


class Rescore(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def run_rescore(self, *args):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = rescore.main(["--root", self.root, "--runs", os.path.join(self.root, "results", "runs"), *args])
        return rc, out.getvalue() + err.getvalue()

    def classify_run(self, test_acc=0.75):
        write(os.path.join(self.root, "data/sst/dev.txt"), "1 good film\n0 bad\n")
        write(os.path.join(self.root, "data/sst/test.txt"), "1 a\n0 b\n1 c\n1 d\n")
        return make_run(self.root, "classify_x_s1", "classify",
                        {"dir": "data/sst", "dev": "dev", "test": "test"},
                        {"dev": {"accuracy": 0.5}, "test": {"accuracy": test_acc}},
                        {"predictions/dev.txt": "1\n1\n", "predictions/test.txt": "1\n0\n0\n1\n"})

    def test_accuracy_by_hand_and_stats_written_then_checked(self):
        d = self.classify_run()
        rc, text = self.run_rescore("--write-stats")
        self.assertEqual(rc, 0, text)
        with open(os.path.join(d, "stats", "test.tsv"), encoding="utf-8") as f:
            self.assertEqual(f.read(), "correct\n1\n1\n0\n1\n")
        rc, text = self.run_rescore()
        self.assertEqual(rc, 0, text)
        self.assertIn("1 runs re-scored and equal", text)

    def test_a_changed_number_is_named(self):
        self.classify_run(test_acc=0.76)
        rc, text = self.run_rescore("--write-stats")
        self.assertEqual(rc, 1)
        self.assertIn("classify_x_s1: test accuracy: summary.json says 0.76, the kept outputs give 0.75", text)

    def test_a_changed_output_is_named_against_the_stats(self):
        d = self.classify_run()
        self.assertEqual(self.run_rescore("--write-stats")[0], 0)
        write(os.path.join(d, "stats", "test.tsv"), "correct\n1\n1\n1\n0\n")
        rc, text = self.run_rescore()
        self.assertEqual(rc, 1)
        self.assertIn("stats/test.tsv differs", text)
        os.remove(os.path.join(d, "stats", "test.tsv"))
        rc, text = self.run_rescore()
        self.assertEqual(rc, 1)
        self.assertIn("missing (write it", text)

    def test_prediction_count_must_match(self):
        d = self.classify_run()
        write(os.path.join(d, "predictions", "test.txt"), "1\n0\n")
        rc, text = self.run_rescore("--write-stats")
        self.assertEqual(rc, 1)
        self.assertIn("2 predictions for the 4 examples", text)

    def test_segmentation_scores_by_hand(self):
        # gold 我们 | 喜欢 | 吃 | 苹果 ; test 我们 | 喜 | 欢 | 吃苹果: 1 of 4 gold words right, 4 test words.
        # train words: 我们 喜欢 -> OOV gold words 吃, 苹果 (none found): OOV rate 0.5, OOV recall 0, IV recall 1/2.
        write(os.path.join(self.root, "data/cws/dev.seg"), "我们 喜欢\n")
        write(os.path.join(self.root, "data/cws/test.seg"), "我们 喜欢 吃 苹果\n")
        write(os.path.join(self.root, "data/cws/train_words.txt"), "我们\n喜欢\n")
        p = r = 0.25
        d = make_run(self.root, "cws_x_s1", "cws",
                     {"dir": "data/cws", "dev": "dev", "test": "test", "words": "train_words.txt"},
                     {"dev": {"f1": 1.0}, "test": {"f1": 2 * p * r / (p + r), "precision": p, "recall": r,
                                                   "oov_rate": 0.5, "oov_recall": 0.0, "iv_recall": 0.5}},
                     {"segmented/dev.utf8": "我们 喜欢\n", "segmented/test.utf8": "我们 喜 欢 吃苹果\n"})
        rc, text = self.run_rescore("--write-stats")
        self.assertEqual(rc, 0, text)
        with open(os.path.join(d, "stats", "test.tsv"), encoding="utf-8") as f:
            self.assertEqual(f.read(), "correct\tgold\tpred\n1\t4\t4\n")
        write(os.path.join(d, "segmented", "test.utf8"), "我们 喜欢 吃 苹\n")   # a character lost
        rc, text = self.run_rescore()
        self.assertEqual(rc, 1)
        self.assertIn("covers other characters", text)

    def test_ner_conlleval_scores_by_hand(self):
        # Reference in IOB1 (CoNLL-2003's way): sentence 1 has PER [0,2) and LOC [3,4); sentence 2 ORG [0,1).
        ref = "-DOCSTART- -X- O\n\nAnn NNP I-PER\nLee NNP I-PER\nin IN O\nRome NNP I-LOC\n\nIBM NNP I-ORG\nwon VBD O\n"
        write(os.path.join(self.root, "data/ner/dev.conll"), "a O\n")
        write(os.path.join(self.root, "data/ner/test.conll"), ref)
        # Kept predictions (BIO gold): PER predicted [0,1) (wrong end), an I-LOC after O starts the right LOC
        # entity (conlleval), ORG predicted as PER (wrong type): 1 right of 3 gold, 3 predicted; tags equal at
        # tokens Ann, in, won -> 3 of 6 (Rome's I-LOC differs from B-LOC as a string).
        pred = "Ann B-PER B-PER\nLee I-PER O\nin O O\nRome B-LOC I-LOC\n\nIBM B-ORG B-PER\nwon O O\n\n"
        f1 = 1 / 3
        d = make_run(self.root, "ner_x_s1", "ner", {"dir": "data/ner", "dev": "dev", "test": "test", "extension": "conll"},
                     {"dev": {"f1": 0.0}, "test": {"f1": f1, "precision": f1, "recall": f1, "correct_entities": 1,
                                                    "gold_entities": 3, "predicted_entities": 3, "token_accuracy": 0.5}},
                     {"predictions/dev.txt": "a O O\n\n", "predictions/test.txt": pred})
        rc, text = self.run_rescore("--write-stats")
        self.assertEqual(rc, 0, text)
        with open(os.path.join(d, "stats", "test.tsv"), encoding="utf-8") as f:
            self.assertEqual(f.read(), "correct\tgold\tpred\n1\t2\t2\n0\t1\t1\n")
        # A kept gold column that no longer matches the reference is named.
        write(os.path.join(d, "predictions", "test.txt"), pred.replace("Lee I-PER O", "Lee O O"))
        rc, text = self.run_rescore()
        self.assertEqual(rc, 1)
        self.assertIn("sentence 1's gold entities differ", text)
        self.assertEqual(rescore.chunks(["B-PER", "S-PER", "E-LOC", "I-LOC"]),
                         {(0, 1, "PER"), (1, 2, "PER"), (2, 3, "LOC"), (3, 4, "LOC")})

    def test_lm_perplexity_by_hand(self):
        write(os.path.join(self.root, "data/ptb/valid.txt"), "a b\n")
        write(os.path.join(self.root, "data/ptb/test.txt"), "a b c\nd\n")
        lp1, lp2 = -2 * math.log(10), -3 * math.log(10)   # 2 and 3 tokens scored at p = 1/10 each
        make_run(self.root, "lm_x_s1", "lm", {"dir": "data/ptb", "valid": "valid.txt", "test": "test.txt"},
                 {"dev": {"ppl": 10.0, "tokens": 2.0}, "test": {"ppl": 10.0, "tokens": 5.0}},
                 {"logprobs/dev.txt": f"{lp1!r}\t2\n", "logprobs/test.txt": f"{lp2!r}\t3\n{lp1!r}\t2\n"})
        rc, text = self.run_rescore("--write-stats")
        self.assertEqual(rc, 0, text)
        make_run(self.root, "lm_y_s1", "lm", {"dir": "data/ptb", "valid": "valid.txt", "test": "test.txt"},
                 {"dev": {"ppl": 10.0}, "test": {"ppl": 10.0}},
                 {"logprobs/dev.txt": f"{lp1!r}\t2\n", "logprobs/test.txt": f"{lp2!r}\t3\n{lp1!r}\t3\n"})
        rc, text = self.run_rescore("--write-stats", os.path.join(self.root, "results/runs/lm_y_s1"))
        self.assertEqual(rc, 1)
        self.assertIn("3 tokens", text)   # sentence 2 has one word + <eos>: at most 2 scored

    def test_nmt_bleu_by_hand(self):
        # test: sentence 1 exact (5 words), sentence 2 "a b c d" for "a b c e": n-gram matches / totals
        # 8/9, 6/7, 4/5, 2/3 at equal lengths (9 and 9), so BLEU = 100 (8/9 * 6/7 * 4/5 * 2/3)^(1/4).
        bleu = 100 * (8 / 9 * 6 / 7 * 4 / 5 * 2 / 3) ** 0.25
        write(os.path.join(self.root, "data/mt/test.tok.de"), "a b c d e\na b c e\n")
        write(os.path.join(self.root, "data/mt/val.tok.de"), "x y z w\n")
        # raw references: sacreBLEU's 13a tokenisation splits the comma and the final period off, lowercased
        write(os.path.join(self.root, "data/mt/val.raw.de"), "Ein Hund, der läuft.\n")
        make_run(self.root, "nmt_x_s1", "nmt", {"dir": "data/mt", "tgt": "de", "dev": "val", "test": "test"},
                 {"dev": {"bleu": 100.0}, "test": {"bleu": bleu},
                  "translations": {"test": {"split": "test", "bleu": bleu},
                                   "test_beam1": {"split": "test", "bleu": 0.0},
                                   "val": {"split": "val", "bleu": 100.0, "sacrebleu": 100.0}}},
                 {"translations/test.de": "a b c d e\na b c d\n", "translations/test_beam1.de": "q\nq\n",
                  "translations/val.de": "X Y Z W\n", "translations/val.detok.de": "ein hund , der läuft .\n"})
        rc, text = self.run_rescore("--write-stats")
        self.assertEqual(rc, 0, text)
        with open(os.path.join(self.root, "results/runs/nmt_x_s1/stats/test.tsv"), encoding="utf-8") as f:
            self.assertEqual(f.read().splitlines()[1:], ["5\t5\t5\t5\t4\t4\t3\t3\t2\t2", "4\t4\t3\t4\t2\t3\t1\t2\t0\t1"])
        # a changed number of another evaluated set is named too
        d = os.path.join(self.root, "results/runs/nmt_x_s1")
        write(os.path.join(d, "translations", "test_beam1.de"), "a b c d e\na b c e\n")
        rc, text = self.run_rescore()
        self.assertEqual(rc, 1)
        self.assertIn("translations test_beam1: bleu: summary.json says 0.0, the kept outputs give 100.0", text)

    def test_squad_em_and_f1_by_hand(self):
        # dev (the trainer's test): q1 "the Ann" vs "Ann": EM 1 (articles go); q2 "Bob Carl" vs "Dora" or "Bob":
        # EM 0, F1 2 (1/2)(1) / (1/2 + 1) = 2/3; q3 unanswered: 0; "zz" is not a dev id (ignored).
        # heldout (the trainer's dev): its first question only (data.max_eval_questions 1), answered right.
        def para(qas):
            return json.dumps({"context": "c", "qas": [{"id": i, "answers": [{"text": t} for t in a]} for i, a in qas]})
        write(os.path.join(self.root, "data/squad/dev.jsonl"),
              para([("q1", ["Ann"]), ("q2", ["Dora", "Bob"])]) + "\n" + para([("q3", ["Eve"])]) + "\n")
        write(os.path.join(self.root, "data/squad/heldout.jsonl"), para([("h1", ["x y"]), ("h2", ["z"])]) + "\n")
        em, f1 = 100 / 3, 100 * (1 + 2 / 3) / 3
        d = make_run(self.root, "rc_x_s1", "rc",
                     {"dir": "data/squad", "heldout": "heldout", "dev": "dev", "max_eval_questions": 1},
                     {"dev": {"exact_match": 100.0, "f1": 100.0, "total": 1, "answered": 1},
                      "test": {"exact_match": em, "f1": f1, "total": 3, "answered": 2},
                      "predictions": {"dev": "predictions/heldout.json", "test": "predictions/dev.json"}},
                     {"predictions/heldout.json": '{"h1": "X, y!"}\n',
                      "predictions/dev.json": '{"q1": "the Ann", "q2": "Bob Carl", "zz": "?"}\n'})
        rc, text = self.run_rescore("--write-stats")
        self.assertEqual(rc, 1, text)   # max_eval_questions cuts dev too: 1 question, not 3
        self.assertIn("rc_x_s1: test total: summary.json says 3, the kept outputs give 1", text)
        with open(os.path.join(d, "config.resolved.json"), "w", encoding="utf-8") as f:
            json.dump({"data": {"dir": "data/squad", "heldout": "heldout", "dev": "dev"}}, f)
        with open(os.path.join(d, "summary.json"), encoding="utf-8") as f:
            summary = json.load(f)
        summary["dev"] = {"exact_match": 50.0, "f1": 50.0, "total": 2, "answered": 1}
        with open(os.path.join(d, "summary.json"), "w", encoding="utf-8") as f:
            json.dump(summary, f)
        rc, text = self.run_rescore("--write-stats")
        self.assertEqual(rc, 0, text)
        with open(os.path.join(d, "stats", "test.tsv"), encoding="utf-8") as f:
            self.assertEqual(f.read(), "exact_match\tf1\tquestions\n1\t1.0\t1\n0\t%r\t1\n0\t0\t1\n" % (2 / 3))
        self.assertAlmostEqual(sig.metric("squad", [[1, 1.0, 1], [0, 2 / 3, 1], [0, 0, 1]]), f1, places=12)
        write(os.path.join(d, "predictions", "dev.json"), '{"q1": "Ann", "q2": "Bob", "q3": "Eve"}\n')
        rc, text = self.run_rescore()
        self.assertEqual(rc, 1)
        self.assertIn("rc_x_s1: test exact_match: summary.json says %r, the kept outputs give 100.0" % em, text)

    def test_runs_without_outputs_and_without_data(self):
        make_run(self.root, "classify_old", "classify", {"dir": "data/sst", "dev": "dev", "test": "test"},
                 {"dev": {"accuracy": 0.5}, "test": {"accuracy": 0.5}}, {})
        rc, text = self.run_rescore()
        self.assertEqual(rc, 0)
        self.assertIn("classify_old: outputs not kept", text)
        make_run(self.root, "classify_new_s1", "classify", {"dir": "data/none", "dev": "dev", "test": "test"},
                 {"dev": {"accuracy": 0.5}, "test": {"accuracy": 0.5}}, {"predictions/dev.txt": "1\n"})
        rc, text = self.run_rescore()
        self.assertEqual(rc, 77, text)
        self.assertIn("is not prepared", text)

    def test_a_diverged_tune_trial_without_summary_is_listed_not_failed(self):
        sweep = os.path.join(self.root, "results", "sweeps", "s", "study")
        write(os.path.join(sweep, "trial_000", "trial.json"), json.dumps({"diverged": True, "exit": 3}))
        write(os.path.join(sweep, "trial_001", "trial.json"), json.dumps({"exit": 0}))
        os.makedirs(os.path.join(self.root, "results", "runs"))
        rc, text = self.run_rescore(os.path.join(sweep, "trial_000"))
        self.assertEqual(rc, 0, text)
        self.assertIn("trial_000: a tune trial that diverged", text)
        rc, text = self.run_rescore(os.path.join(sweep, "trial_001"))   # not diverged, no summary: still an error
        self.assertEqual(rc, 1, text)
        self.assertIn("trial_001: no summary.json (not a run folder)", text)

    def test_epochs_done_of_one_invocation_is_named_and_mended(self):
        # A run resumed once: 3 epochs in the first process, 2 in the second; the old binary said 2.
        d = make_run(self.root, "lm_old", "lm", {"dir": "data/ptb"}, {"epochs_done": 2, "test": {"ppl": 9.0}},
                     {"metrics.jsonl": "".join(json.dumps({"split": "dev", "epoch": e, "ppl": 10.0 - e}) + "\n"
                                               for e in range(1, 6))})
        rc, text = self.run_rescore()
        self.assertEqual(rc, 1, text)
        self.assertIn("lm_old: summary.json says epochs_done 2, but metrics.jsonl has dev records up to epoch 5",
                      text)
        with contextlib.redirect_stdout(io.StringIO()) as out:
            self.assertEqual(mend_epochs_done.main(["--runs", os.path.join(self.root, "results", "runs")]), 0)
        self.assertIn("mended lm_old: epochs_done 2 -> 5", out.getvalue())
        with open(os.path.join(d, "summary.json"), encoding="utf-8") as f:
            s = json.load(f)
        self.assertEqual((s["epochs_done"], s["epochs_done_mended"]["was"]), (5, 2))
        self.assertEqual(s["test"], {"ppl": 9.0})  # nothing else changed
        rc, text = self.run_rescore()
        self.assertEqual(rc, 0, text)
        self.assertIn("lm_old: outputs not kept", text)
        # A run stopped mid-epoch logs its last dev record in the epoch it did not finish: one short is right.
        make_run(self.root, "lm_steps", "lm", {"dir": "data/ptb"}, {"epochs_done": 4},
                 {"metrics.jsonl": json.dumps({"split": "dev", "epoch": 5}) + "\n"})
        self.assertEqual(self.run_rescore()[0], 0)


if __name__ == "__main__":
    unittest.main()
