#!/usr/bin/env python3
"""data_prep/ner.py --own (issue 29): a user's CoNLL file split 80/10/10 by sentence order (or three files taken as
train, dev, test) into OUT/<name>_own/, checked line by line as the WNUT-17 files are; the tag scheme detected per
file; bad input (column count, tag, UTF-8, empty file, mixed schemes, too few sentences) stops with exit code 2 and
a message naming file:line, and leaves nothing behind. The printed training command is run with --print-config
when build/bin/ner exists. Standard library only; runs the script as a user would (a subprocess)."""
import json
import os
import sys
import unittest

from own_case import OwnPrepCase  # noqa: E402  (tests/data_prep/, on sys.path as the script's folder)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "data_prep", "ner.py")

# 10 sentences (line numbers in the comments); columns separated by spaces, a TAB, runs of spaces; CRLF at the end.
CONLL = ("-DOCSTART- -X- -X- O\n"   # 1
         "\n"                       # 2
         "EU NNP B-ORG\n"           # 3  sentence 1
         "rejects VBZ O\n"          # 4
         "German JJ B-MISC\n"       # 5
         "\n"                       # 6
         "Peter NNP B-PER\n"        # 7  sentence 2
         "Blackburn NNP I-PER\n"    # 8
         "\n"                       # 9
         "BRUSSELS NNP B-LOC\n"     # 10 sentence 3
         "1996-08-22 CD O\n"        # 11
         "\n"                       # 12
         + "".join(f"w{k} NN O\nParis NNP B-LOC\n\n" for k in range(4, 9))  # 13-27: sentences 4-8
         + "Japan\tNNP\tB-LOC\n"    # 28 sentence 9
         "began  VBD   O\n"         # 29
         "\n"                       # 30
         "Nadim NNP B-PER\n"        # 31 sentence 10
         "Ladki NNP I-PER\r\n")     # 32


class NerOwn(OwnPrepCase):
    SCRIPT = SCRIPT

    def test_one_file_split_80_10_10(self):
        src, msg = self.prep_own("mine.conll", CONLL)
        self.assertEqual(sorted(os.listdir(self.out)), ["mine_own"])
        self.assertEqual(sorted(os.listdir(os.path.join(self.out, "mine_own"))),
                         ["dev.conll", "prep.json", "test.conll", "train.conll"])
        self.assertEqual(self.read("mine_own", "dev.conll"), "Japan NNP B-LOC\nbegan VBD O\n\n")
        self.assertEqual(self.read("mine_own", "test.conll"), "Nadim NNP B-PER\nLadki NNP I-PER\n\n")
        train = self.read("mine_own", "train.conll")
        self.assertTrue(train.startswith("EU NNP B-ORG\nrejects VBZ O\nGerman JJ B-MISC\n\nPeter NNP B-PER\n"))
        self.assertTrue(train.endswith("w8 NN O\nParis NNP B-LOC\n\n"))
        self.assertNotIn("DOCSTART", train)
        meta = json.loads(self.read("mine_own", "prep.json"))
        self.assertEqual(meta["mode"], "own")
        self.assertEqual(meta["tag_schemes"], {src: "BIO"})
        self.assertEqual(meta["source_files"]["conll"]["sentences"], 10)
        self.assertEqual(len(meta["source_files"]["conll"]["sha256"]), 64)
        self.assertEqual({k: (v["sentences"], v["first_line"], v["last_line"]) for k, v in meta["source_lines"].items()},
                         {"train": (8, 3, 26), "dev": (1, 28, 29), "test": (1, 31, 32)})
        s = meta["splits"]
        self.assertEqual((s["train"]["sentences"], s["train"]["tokens"], s["train"]["entities"]), (8, 17, 9))
        self.assertEqual(s["train"]["entities_per_type"], {"LOC": 6, "MISC": 1, "ORG": 1, "PER": 1})
        self.assertEqual((s["dev"]["entities"], s["test"]["entities_per_type"]), (1, {"PER": 1}))
        self.assertIn("build/bin/ner experiments/ner/wnut17_atr.json --set data.dir=" + os.path.join(self.out, "mine_own"),
                      msg)
        self.check_print_config(self.printed_command(msg, "ner"), "ner", os.path.join(self.out, "mine_own"))

    def test_three_files_iob1_and_replacing_a_folder(self):
        tr = self.file("a.txt", "x B-PER\ny I-PER\n\nz O\n")
        dv = self.file("b.txt", "Leeds I-ORG\n")                    # IOB1: I- starts an entity
        te = self.file("c.txt", "\ufeffLeeds S-ORG\nUnited O\n")    # BIOES, a byte-order mark dropped
        self.assert_fails(["--own", tr, dv, te], ["--name is needed with three files"])
        code, msg = self.run_prep("--own", tr, dv, te, "--name", "three")
        self.assertEqual(code, 0, msg)
        self.assertIn("different tag schemes", msg)
        self.assertEqual(self.read("three_own", "train.conll"), "x B-PER\ny I-PER\n\nz O\n\n")
        self.assertEqual(self.read("three_own", "test.conll"), "Leeds S-ORG\nUnited O\n\n")
        meta = json.loads(self.read("three_own", "prep.json"))
        self.assertEqual(list(meta["tag_schemes"].values()), ["BIO", "IOB1", "BIOES"])
        self.assertEqual(meta["source_lines"]["train"], {"file": tr, "sentences": 2, "first_line": 1, "last_line": 4})
        code, msg = self.run_prep("--own", tr, tr, tr, "--name", "three")   # replaces the folder whole
        self.assertEqual(code, 0, msg)
        self.assertEqual(self.read("three_own", "test.conll"), "x B-PER\ny I-PER\n\nz O\n\n")
        self.assertEqual(sorted(os.listdir(self.out)), ["three_own"])

    def test_bad_inputs_name_file_and_line(self):
        self.assert_own_refused("cols.conll", CONLL.replace("Blackburn NNP I-PER", "Blackburn I-PER"),
                                ":8: 2 columns, but the file's first token line (3) has 3")
        self.assert_own_refused("tag.conll", CONLL.replace("B-LOC\n\n", "LOC\n\n", 1), ":14: tag 'LOC' is ",
                                "neither O nor B-, I-, E- or S-")
        self.assert_own_refused("utf8.conll", CONLL.encode("utf-8").replace(b"German", b"G\xe9rman"),
                                ":5: invalid UTF-8 at byte 1 of the line")
        self.assert_own_refused("one.conll", CONLL.replace("rejects VBZ O", "rejects"), ":4: one column ('rejects')")
        self.assert_own_refused("mixed2.conll", "a B-X\nb O\nc I-Y\n\nd E-X\n",
                                ":3: tag 'I-Y' after 'O' starts an entity with I- (IOB1), but line 5 has 'E-X' (BIOES)")
        self.assert_own_refused("empty.conll", "\n\n", ": no sentences")
        self.assert_split_name_and_file_refusals(".conll", "a O\n\nb O\n\nc O\n", 3)


if __name__ == "__main__":
    unittest.main(verbosity=2)
