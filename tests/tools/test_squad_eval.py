#!/usr/bin/env python3
"""tools/squad_eval.py (the official SQuAD v1.1 EM / F1 restated) on the fixtures tests/test_squad_eval.cc reads
too (tests/data/squad/): the hand-written normalisations (so the C++ and the official rules agree on them), the
hand-computed score of dataset.json + predictions.json bit for bit, and the refusals (exit 2, file and item named).
/usr/bin/python3 tests/tools/test_squad_eval.py
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import squad_eval  # noqa: E402

FIX = os.path.join(ROOT, "tests", "data", "squad")
TOOL = os.path.join(ROOT, "tools", "squad_eval.py")


def run(*args):
    p = subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


class SquadEval(unittest.TestCase):
    def test_normalisation_cases(self):
        with open(os.path.join(FIX, "normalize_cases.json"), encoding="utf-8") as f:
            cases = json.load(f)["cases"]
        self.assertGreaterEqual(len(cases), 15)
        for raw, want in cases:
            self.assertEqual(squad_eval.normalize(raw), want, raw)

    def test_lowercase_table_of_the_cxx_is_this_pythons(self):
        # core/eval/squad_eval.cc lowercases and finds word characters through the generated tables: they must be
        # what str.lower and str.isalnum do here
        p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "python_lower_table.py"), "--check"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_f1_and_exact_by_hand(self):
        self.assertAlmostEqual(squad_eval.f1("the cat sat on the mat", "a cat on a mat"), 6 / 7, places=15)
        self.assertAlmostEqual(squad_eval.f1("x x x y", "x y y"), 4 / 7, places=15)
        self.assertEqual(squad_eval.f1("the", "a"), 0)
        self.assertTrue(squad_eval.exact("the", "A!"))

    def test_fixture_score_equals_the_hand_computed_values(self):
        code, out, err = run(os.path.join(FIX, "dataset.json"), os.path.join(FIX, "predictions.json"))
        self.assertEqual(code, 0, err)
        got = json.loads(out)
        with open(os.path.join(FIX, "expected.json"), encoding="utf-8") as f:
            want = json.load(f)
        self.assertEqual(got["exact_match"], want["exact_match"])
        self.assertEqual(got["f1"], want["f1"])
        self.assertEqual((got["total"], got["answered"]), (want["total"], want["answered"]))
        self.assertEqual((got["first_missing"], got["first_unknown"]), (want["missing"], want["unknown"]))
        self.assertAlmostEqual(got["f1"], 1300 / 21, places=12)

    def test_bad_inputs_name_file_and_item(self):
        with tempfile.TemporaryDirectory() as tmp:
            def bad(body, needle, preds=os.path.join(FIX, "predictions.json")):
                path = os.path.join(tmp, "d.json")
                with open(path, "w", encoding="utf-8") as f:
                    f.write(body)
                code, _, err = run(path, preds)
                self.assertEqual(code, 2, err)
                self.assertIn(needle, err)
                self.assertNotIn("Traceback", err)
            bad('{"data": [}', "d.json: not JSON")
            bad('{"version": "1.1"}', "d.json: top level: no 'data'")
            bad('{"data": [{"paragraphs": [{"context": "c"}]}]}', "data[0].paragraphs[0]: no 'qas'")
            bad('{"data": [{"paragraphs": [{"qas": [{"id": "a", "answers": [{"text": "c"}]}, '
                '{"id": "a", "answers": [{"text": "c"}]}]}]}]}',
                "data[0].paragraphs[0].qas[1]: duplicate id 'a', first at data[0].paragraphs[0].qas[0]")
            p = os.path.join(tmp, "p.json")
            with open(p, "w") as f:
                f.write('{"q1": 3}')
            code, _, err = run(os.path.join(FIX, "dataset.json"), p)
            self.assertEqual(code, 2, err)
            self.assertIn("p.json: id 'q1': a JSON int, expected the answer string", err)


if __name__ == "__main__":
    unittest.main(verbosity=2)
