#!/usr/bin/python3
"""tools/glove_mode.py on hand-made run folders: the protocol's mode is the one with the higher mean best-dev
score over its seven cells (frozen on a tie), a missing seed-1234 run leaves the protocol waiting, the queue
holds the chosen mode's files with --seeds 1234,1,2 (files that exist), and a summary without the metric is an
error naming the file."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import glove_mode  # noqa: E402


def write_run(runs, name, best_dev):
    os.makedirs(os.path.join(runs, name))
    with open(os.path.join(runs, name, "summary.json"), "w", encoding="utf-8") as f:
        json.dump({"best_dev": best_dev}, f)


def fill(runs, protocol, value):
    """Every seed-1234 run of the protocol, value(mode, cell) its best dev score."""
    task, pattern, metric = glove_mode.PROTOCOLS[protocol]
    for mode in glove_mode.MODES:
        for cell in glove_mode.CELLS:
            write_run(runs, glove_mode.run_name(task, pattern.format(mode=mode, cell=cell), 1234),
                      {metric: value(mode, cell)})


class GloveMode(unittest.TestCase):
    def test_the_higher_mean_wins_and_a_tie_is_frozen(self):
        with tempfile.TemporaryDirectory() as runs:
            # fine-tuned wins on the mean although frozen wins on five of seven cells
            fill(runs, "sst2", lambda m, c: (0.80 if m == "frozen" else (0.79 if c not in ("atr", "gru") else 0.90)))
            d = glove_mode.decide([runs], "sst2")
            self.assertEqual(d["mode"], "finetune")
            self.assertAlmostEqual(d["means"]["finetune"], (5 * 0.79 + 2 * 0.90) / 7)
            fill(runs, "wnut17", lambda m, c: 0.3)
            self.assertEqual(glove_mode.decide([runs], "wnut17")["mode"], "frozen")
            self.assertIn("-> finetune", glove_mode.report("sst2", d))

    def test_missing_runs_wait_and_the_queue_holds_the_chosen_files(self):
        with tempfile.TemporaryDirectory() as tmp:
            a, b = os.path.join(tmp, "lane"), os.path.join(tmp, "results")
            fill(a, "sick", lambda m, c: 0.7 if m == "frozen" else 0.6)
            fill(b, "sst5", lambda m, c: 0.4)
            os.remove(os.path.join(b, "classify_sst5_glove_finetune_lrn_s1234", "summary.json"))
            queue = os.path.join(tmp, "q.txt")
            p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "glove_mode.py"), "--runs", a,
                                "--runs", b, "--queue", queue], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("waiting for 1 run(s): classify_sst5_glove_finetune_lrn_s1234", p.stdout)
            with open(queue, encoding="utf-8") as f:
                text = f.read()
            lines = [l for l in text.splitlines() if l and not l.startswith("#")]
            # seeds 1 and 2 share seed 1234's binaries: the pin of the issue 52 lanes
            for lane in ("issue52_a.txt", "issue52_b.txt"):
                with open(os.path.join(ROOT, "experiments", "queues", lane), encoding="utf-8") as f:
                    self.assertIn("\n# pin: issue52 ", f.read())
            self.assertIn("\n# pin: issue52 ", text)
            self.assertEqual(len(lines), 7)   # SICK only: SST-2 and WNUT-17 have no run, SST-5 waits
            for cell, line in zip(glove_mode.CELLS, lines):
                task, exp, *flags = line.split()
                self.assertEqual((task, flags), ("snli", ["--seeds", "1234,1,2"]))
                self.assertEqual(exp, f"experiments/snli/sick_cond_glove_frozen_{cell}.json")
                self.assertTrue(os.path.isfile(os.path.join(ROOT, exp)), exp)

    def test_a_summary_without_the_metric_is_an_error(self):
        with tempfile.TemporaryDirectory() as runs:
            write_run(runs, "ner_wnut17_glove_frozen_atr_s1234", {"accuracy": 0.5})
            p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "glove_mode.py"), "--runs", runs,
                                "--protocol", "wnut17"], capture_output=True, text=True)
            self.assertEqual(p.returncode, 2)
            self.assertIn("ner_wnut17_glove_frozen_atr_s1234/summary.json: no best_dev.f1", p.stderr)


if __name__ == "__main__":
    unittest.main()
