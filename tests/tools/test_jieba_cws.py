#!/usr/bin/python3
"""tools/jieba_cws.py on a hand-made prepared CWS folder: jieba's segmentation is written in the bakeoff format
with the characters unchanged, scored with the suite's SIGHAN definitions (checked by hand against the written
words), and the folder re-scores (`plots/rescore.py`). Skipped, with the reason, when python3-jieba is missing."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
try:
    import jieba  # noqa: F401
    HAVE_JIEBA = True
except ImportError:
    HAVE_JIEBA = False


sys.path.insert(0, os.path.join(ROOT, "tools"))
import jieba_cws  # noqa: E402


class RunName(unittest.TestCase):
    def test_names_follow_the_protocols_experiment_files(self):
        self.assertEqual(jieba_cws.run_name("data/cws/msr_inhouse"), "cws_msr_jieba")   # the committed rows
        self.assertEqual(jieba_cws.run_name("data/cws/gsd_ud/"), "cws_gsd_jieba")
        self.assertEqual(jieba_cws.run_name("data/cws/pku_pkupd"), "cws_pkupd_jieba")  # experiments/cws/pkupd_*
        self.assertEqual(jieba_cws.run_name("data/cws/msr_standard"), "cws_msr_standard_jieba")
        self.assertEqual(jieba_cws.run_name("data/cws/mine_own"), "cws_mine_jieba")


@unittest.skipUnless(HAVE_JIEBA, "python3-jieba is not installed (make deps installs it)")
class JiebaCws(unittest.TestCase):
    def test_segments_scores_and_rescores(self):
        with tempfile.TemporaryDirectory() as tmp:
            data = os.path.join(tmp, "data", "cws", "toy_inhouse")
            os.makedirs(data)
            gold = "我们 喜欢 吃 苹果\n今天 天气 很 好\n"
            for name, text in (("dev.seg", gold), ("test.seg", gold), ("train_words.txt", "我们\n今天\n"),
                               ("prep.json", json.dumps({"description": "toy"}))):
                with open(os.path.join(data, name), "w", encoding="utf-8") as f:
                    f.write(text)
            out = os.path.join(tmp, "runs", "cws_toy_jieba")
            p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "jieba_cws.py"), "data/cws/toy_inhouse",
                                "--out", out], cwd=tmp, capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            with open(os.path.join(out, "segmented", "test.utf8"), encoding="utf-8") as f:
                seg = f.read().splitlines()
            self.assertEqual(["".join(l.split()) for l in seg], ["我们喜欢吃苹果", "今天天气很好"])
            # F1 by hand from the written words: word spans shared with the gold spans.
            def spans(words):
                out, at = set(), 0
                for w in words:
                    out.add((at, at + len(w)))
                    at += len(w)
                return out
            g = [spans(l.split()) for l in gold.splitlines()]
            t = [spans(l.split()) for l in seg]
            right = sum(len(a & b) for a, b in zip(g, t))
            prec, rec = right / sum(map(len, t)), right / sum(map(len, g))
            with open(os.path.join(out, "summary.json"), encoding="utf-8") as f:
                s = json.load(f)
            self.assertAlmostEqual(s["test"]["precision"], prec)
            self.assertAlmostEqual(s["test"]["f1"], 2 * prec * rec / (prec + rec))
            self.assertEqual(s["params"], 0)
            p = subprocess.run([sys.executable, os.path.join(ROOT, "plots", "rescore.py"), out], cwd=tmp,
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)


if __name__ == "__main__":
    unittest.main()
