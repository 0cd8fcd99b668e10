#!/usr/bin/env python3
"""data_prep/cws.py --own: a user's segmented corpus, one file split 80/10/10 by line order (or three files taken as
train, dev, test), into OUT/<name>_own/ with the .seg, .bmes and train_words.txt files the cws binary reads; every
line checked as the bakeoff files are; bad input (a whitespace character the C++ reader would keep inside a word,
invalid UTF-8, an empty file, too few sentences, a bad name or file count) stops with exit code 2 and a message
naming file:line, and leaves nothing behind. --segmented FILE, its earlier name, gives the same folder. The printed
training command is run with --print-config when build/bin/cws exists. Standard library only; runs the script as
a user would (a subprocess)."""
import json
import os
import unittest

from own_case import OwnPrepCase  # noqa: E402  (tests/data_prep/, on sys.path as the script's folder)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# 10 sentences on 11 lines: a byte-order mark and double spaces (line 1), U+3000 separators (2), a blank line (3,
# skipped), then sentence k on line k + 1; one CRLF line end.
CORPUS = ("\ufeff迈向  充满  希望\n"
          "的\u3000新\u3000世纪\r\n"
          "\n"
          + "".join(f"句{k} 子\n" for k in range(3, 11)))


class CwsOwn(OwnPrepCase):
    SCRIPT = os.path.join(ROOT, "data_prep", "cws.py")

    def test_one_file_split_80_10_10(self):
        _, msg = self.prep_own("mine.utf8", CORPUS)
        folder = os.path.join(self.out, "mine_own")
        self.assertEqual(sorted(os.listdir(folder)), ["dev.bmes", "dev.seg", "prep.json", "test.bmes", "test.seg",
                                                      "train.bmes", "train.seg", "train_words.txt"])
        self.assertEqual(self.read("mine_own", "train.seg"),
                         "迈向 充满 希望\n的 新 世纪\n" + "".join(f"句{k} 子\n" for k in range(3, 9)))
        self.assertEqual(self.read("mine_own", "dev.seg"), "句9 子\n")
        self.assertEqual(self.read("mine_own", "test.seg"), "句10 子\n")
        self.assertEqual(self.read("mine_own", "dev.bmes"), "BES\n")
        self.assertEqual(self.read("mine_own", "test.bmes"), "BMES\n")
        self.assertTrue(self.read("mine_own", "train.bmes").startswith("BEBEBE\nSSBE\nBES\n"))
        self.assertEqual(self.read("mine_own", "train_words.txt").split("\n")[:3], ["世纪", "充满", "句3"])
        meta = json.loads(self.read("mine_own", "prep.json"))
        self.assertEqual((meta["mode"], meta["protocol"], meta["corpus"]), ("own", "own", "mine"))
        self.assertEqual({k: (v["sentences"], v["first_line"], v["last_line"]) for k, v in meta["source_lines"].items()},
                         {"train": (8, 1, 9), "dev": (1, 10, 10), "test": (1, 11, 11)})
        self.assertEqual(meta["skipped_lines"][0]["first_line_numbers"], [3])
        self.assertTrue(meta["source_files"]["segmented"]["utf8_bom_dropped"])
        s = meta["splits"]
        self.assertEqual((s["train"]["sentences"], s["train"]["words"], s["train"]["characters"]), (8, 18, 28))  # 6 + 4 + 6 x 3 characters
        self.assertEqual((s["dev"]["oov_words"], s["dev"]["oov_rate"]), (1, 0.5))   # 句9 is not a train word
        self.assertEqual((s["test"]["oov_words"], s["test"]["oov_rate"]), (1, 0.5))
        self.assertIn("skipping 1 empty or whitespace-only line(s): [3]", msg)
        self.assertIn("build/bin/cws experiments/cws/msr_atr.json --set data.dir=" + folder, msg)
        resolved = self.check_print_config(self.printed_command(msg, "cws"), "cws", folder)
        self.assertEqual(resolved["data"]["protocol"], "own data mine")

    def test_segmented_is_the_earlier_name_of_own(self):
        src = self.file("mine.utf8", CORPUS)
        code, msg = self.run_prep("--segmented", src, "--name", "old")
        self.assertEqual(code, 0, msg)
        code, msg = self.run_prep("--own", src, "--name", "new")
        self.assertEqual(code, 0, msg)
        for f in ("train.seg", "dev.seg", "test.seg", "train.bmes", "train_words.txt"):
            self.assertEqual(self.read("old_own", f), self.read("new_own", f))
        code, msg = self.run_prep("--segmented", src, "--own", src)
        self.assertEqual(code, 2, msg)
        self.assertIn("give one of them", msg)

    def test_three_files_taken_as_given(self):
        tr = self.file("a.txt", "我 爱 北京\n天安门\n")
        dv = self.file("b.txt", "我 爱\n")
        te = self.file("c.txt", "北京 天安门 广场\n")
        self.assert_fails(["--own", tr, dv, te], ["--name is needed with three files"])
        self.assert_fails(["--own", tr, dv, "--name", "x"], ["one file", "or three files", "got 2"])
        code, msg = self.run_prep("--own", tr, dv, te, "--name", "three")
        self.assertEqual(code, 0, msg)
        self.assertEqual(self.read("three_own", "train.seg"), "我 爱 北京\n天安门\n")
        self.assertEqual(self.read("three_own", "test.bmes"), "BEBMEBE\n")
        self.assertEqual(self.read("three_own", "train_words.txt"), "北京\n天安门\n我\n爱\n")  # by code point
        meta = json.loads(self.read("three_own", "prep.json"))
        self.assertEqual(sorted(meta["source_files"]), ["dev", "test", "train"])
        self.assertEqual(meta["source_lines"]["train"], {"file": tr, "sentences": 2, "first_line": 1, "last_line": 2})
        self.assertEqual((meta["splits"]["dev"]["oov_words"], meta["splits"]["test"]["oov_words"]), (0, 1))

    def test_bad_inputs_name_file_and_line(self):
        self.assert_own_refused("nbsp.utf8", CORPUS.replace("的\u3000新", "的\u00a0新"),
                                ":2: character 2 of the line is U+00A0")
        self.assert_own_refused("utf8.utf8", CORPUS.encode("utf-8").replace("句5".encode(), b"\xe5\x8f"),
                                ":6: invalid UTF-8 at byte 0 of the line")
        self.assert_own_refused("empty.utf8", "\n \n", ": no sentences")
        tr, dv = self.file("t.txt", "我 爱\n"), self.file("d.txt", "\n")
        self.assert_fails(["--own", tr, dv, tr, "--name", "x"], [f"{dv}: no sentences"])
        self.assert_split_name_and_file_refusals(".utf8", "我\n爱\n你\n", 3)


if __name__ == "__main__":
    unittest.main(verbosity=2)
