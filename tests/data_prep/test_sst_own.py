#!/usr/bin/env python3
"""data_prep/sst.py --own (issue 29): a user's `label<TAB>text` / `label text` lines for the classify task, split
80/10/10 by line order (or three files) into OUT/<name>_own/; string labels numbered 0..K-1 in sorted order,
integers 0..K-1 kept, other integers numbered numerically; labels.txt beside the splits; bad input (no label, no
text, one label only, UTF-8, empty file) stops with exit code 2 naming file:line and leaves nothing behind. The
printed training command is run with --print-config when build/bin/classify exists. Standard library only; runs
the script as a user would (a subprocess)."""
import json
import os
import sys
import unittest

from own_case import OwnPrepCase  # noqa: E402  (tests/data_prep/, on sys.path as the script's folder)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "data_prep", "sst.py")

LINES = ("pos\tgreat film !\n"         # 1
         "neg\tawful .\n"              # 2
         "\n"                          # 3: blank, skipped
         "very pos\tsuperb  work\r\n"  # 4: a label with a space (TAB-separated), CRLF
         "neg  boring   film\n"        # 5: space-separated, runs of spaces
         "pos fun\n"                   # 6
         "neg dull\n"                  # 7
         "pos good\n"                  # 8
         "neg bad\n"                   # 9
         "pos nice\n"                  # 10
         "very pos meh\n")             # 11: no TAB: label 'very', text 'pos meh'


class SstOwn(OwnPrepCase):
    SCRIPT = SCRIPT

    def test_string_labels_mapped_and_split_80_10_10(self):
        _, msg = self.prep_own("reviews.txt", LINES)
        self.assertIn("labels mapped to 0..3 in sorted order: 0 = neg, 1 = pos, 2 = very, 3 = very pos (labels.txt)",
                      msg)
        self.assertIn("never occur in the train split", msg)  # 'very' is only in test
        folder = os.path.join(self.out, "reviews_own")
        self.assertEqual(sorted(os.listdir(folder)), ["dev.txt", "labels.txt", "prep.json", "test.txt", "train.txt"])
        self.assertEqual(self.read("reviews_own", "train.txt"),
                         "1 great film !\n0 awful .\n3 superb work\n0 boring film\n1 fun\n0 dull\n1 good\n0 bad\n")
        self.assertEqual(self.read("reviews_own", "dev.txt"), "1 nice\n")
        self.assertEqual(self.read("reviews_own", "test.txt"), "2 pos meh\n")
        self.assertEqual(self.read("reviews_own", "labels.txt"), "0\tneg\n1\tpos\n2\tvery\n3\tvery pos\n")
        meta = json.loads(self.read("reviews_own", "prep.json"))
        self.assertEqual(meta["num_labels"], 4)
        self.assertFalse(meta["labels"]["kept"])
        self.assertEqual(meta["splits"]["train"]["labels"], [4, 3, 0, 1])
        self.assertEqual(meta["source_files"]["labelled"]["blank_lines_skipped"], 1)
        self.assertEqual({k: (v["examples"], v["first_line"], v["last_line"]) for k, v in meta["source_lines"].items()},
                         {"train": (8, 1, 9), "dev": (1, 10, 10), "test": (1, 11, 11)})
        line = self.printed_command(msg, "classify")
        self.assertIn(f"--set data.dir={folder} --set data.num_labels=4 ", line)
        self.assertEqual(self.check_print_config(line, "classify", folder)["data"]["num_labels"], 4)

    def test_integer_labels(self):
        tr = self.file("tr.txt", "1 a\n0 b\n2 c\n")
        dv = self.file("dv.txt", "0 d\n")
        te = self.file("te.txt", "2 e\n")
        code, msg = self.run_prep("--own", tr, dv, te, "--name", "ints")
        self.assertEqual(code, 0, msg)
        self.assertIn("labels kept (integers 0..2): 0 = 0, 1 = 1, 2 = 2", msg)
        self.assertEqual(self.read("ints_own", "train.txt"), "1 a\n0 b\n2 c\n")
        self.assertTrue(json.loads(self.read("ints_own", "prep.json"))["labels"]["kept"])
        # 1..5 and 10 are numbered numerically (10 last, not between 1 and 2)
        tr = self.file("stars.txt", "5 a\n10 b\n1 c\n2 d\n")
        code, msg = self.run_prep("--own", tr, dv, te, "--name", "stars")
        self.assertEqual(code, 0, msg)
        self.assertEqual(self.read("stars_own", "labels.txt"), "0\t0\n1\t1\n2\t2\n3\t5\n4\t10\n")
        self.assertEqual(self.read("stars_own", "train.txt"), "3 a\n4 b\n1 c\n2 d\n")

    def test_bad_inputs_name_file_and_line(self):
        self.assert_own_refused("notext.txt", "pos a\npos\n", ":2: no text after the label 'pos'")
        self.assert_own_refused("nolabel.txt", "pos a\n\tsome text\n", ":2: empty label before the TAB")
        self.assert_own_refused("utf8.txt", b"pos a\nneg \xc3(\n", ":2: invalid UTF-8 at byte 4 of the line")
        self.assert_own_refused("one.txt", "".join(f"pos w{i}\n" for i in range(10)), ": only one label ('pos')")
        self.assert_own_refused("empty.txt", " \n", ": empty file")
        bad = self.assert_own_refused("few.txt", "pos a\nneg b\n", ": the dev split would be empty (2 items")
        self.assert_fails(["--own", bad, bad], ["--own takes one file", "or three files"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
