#!/usr/bin/env python3
"""data_prep/ner.py on hand-made WNUT-17 and CoNLL-2003 inputs: good files are written with one space between
columns and one blank line after each sentence (TAB-only separator lines and -DOCSTART- lines become
boundaries), entities are counted by conlleval's rules (IOB1 included); invalid UTF-8, one column, a changed
column count, a malformed tag and wrong published counts each stop with exit code 2 and a message naming file and
line; an existing prepared folder survives a failed run. Standard library only; runs the script as a user would
(a subprocess), in a temporary folder."""
import json
import os
import subprocess
import sys
import unittest

from own_case import CorpusPrepCase  # noqa: E402  (tests/data_prep/, on sys.path as the script's folder)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "data_prep", "ner.py")

WNUT = "Empire\tB-location\nState\tI-location\n\t\n@paul\tO\nloves\tO\nBob\tB-person\n"
CONLL = "-DOCSTART- -X- -X- O\n\nEU NNP B-NP I-ORG\nrejects VBZ B-VP O\n\nPeter NNP B-NP I-PER\nBlack NNP I-NP I-PER\n"
FILES = {"train": "wnut17train.conll", "dev": "emerging.dev.conll", "test": "emerging.test.annotated"}


class NerPrep(CorpusPrepCase):
    SCRIPT = SCRIPT
    EXTRA_ARGS = ("--no-check",)

    def setUp(self):
        super().setUp()
        self.conll = os.path.join(self.tmp.name, "conll")
        os.makedirs(self.conll)
        for name in FILES.values():
            self.write(self.raw, name, WNUT.encode("utf-8"))
        for name in ("eng.train", "eng.testa", "eng.testb"):
            self.write(self.conll, name, CONLL.encode("utf-8"))

    def write(self, folder, name, data):
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)

    def test_good_input_written_with_counts(self):
        code, msg = self.run_prep("--conll2003", self.conll)
        self.assertEqual(code, 0, msg)
        self.assertEqual(self.read("wnut17/train.conll"),
                         "Empire B-location\nState I-location\n\n@paul O\nloves O\nBob B-person\n\n")
        self.assertEqual(self.read("conll2003/dev.conll"),
                         "EU NNP B-NP I-ORG\nrejects VBZ B-VP O\n\nPeter NNP B-NP I-PER\nBlack NNP I-NP I-PER\n\n")
        meta = json.loads(self.read("wnut17/prep.json"))
        self.assertEqual(meta["splits"]["test"]["sentences"], 2)
        self.assertEqual(meta["splits"]["test"]["entities_per_type"], {"location": 1, "person": 1})
        conll = json.loads(self.read("conll2003/prep.json"))
        self.assertEqual(conll["splits"]["train"]["entities_per_type"], {"ORG": 1, "PER": 1})   # IOB1 read

    def assert_fails(self, data, needles, *extra):
        self.run_prep()   # a good folder first: it must survive the failed run
        before = self.read("wnut17/train.conll")
        self.write(self.raw, FILES["dev"], data)
        self.assert_refused(*self.run_prep(*extra), needles)
        self.assertEqual(self.read("wnut17/train.conll"), before)

    def test_bad_lines_named(self):
        self.assert_fails(b"a\tO\nb\xe4\xba\tO\n", ["emerging.dev.conll:2", "invalid UTF-8"])
        self.assert_fails(b"a\tO\nb\n", ["emerging.dev.conll:2", "one column"])
        self.assert_fails(b"a\tO\nb NN O\n", ["emerging.dev.conll:2", "3 columns"])
        self.assert_fails(b"a\tO\nb\tI-\n", ["emerging.dev.conll:2", "'I-'"])
        self.assert_fails(b"a\tO\nb\tPER\n", ["emerging.dev.conll:2", "'PER'"])

    def test_published_counts_checked(self):
        p = subprocess.run([sys.executable, SCRIPT, "--raw", self.raw, "--out", self.out], capture_output=True,
                           text=True)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("expected 3394, 62730", p.stderr)


if __name__ == "__main__":
    unittest.main()
