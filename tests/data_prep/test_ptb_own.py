#!/usr/bin/env python3
"""data_prep/ptb.py --own (issue 29): a user's plain text (one sentence per line) for the lm task, split 80/10/10 by
line order (or three files) into OUT/<name>_own/{train,valid,test}.txt + vocab.txt built as for PTB (descending
count, ties by first appearance, <eos> once per line); --vocab-size keeps the most frequent words and writes every
other word as <unk>; bad input (a literal <eos>, UTF-8, empty file, bad size) stops with exit code 2 naming
file:line and leaves nothing behind. The printed training command (batch sizes lowered for a tiny corpus) is run
with --print-config when build/bin/lm exists. Standard library only; runs the script as a user would."""
import json
import os
import sys
import unittest

from own_case import OwnPrepCase  # noqa: E402  (tests/data_prep/, on sys.path as the script's folder)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "data_prep", "ptb.py")

TEXT = ("the cat sat\n"      # 1
        "the dog sat\n"      # 2
        "\n"                 # 3: blank, skipped
        "the cat ran\n"      # 4
        "a bird flew\n"      # 5
        "the  cat sat\r\n"   # 6: two spaces, CRLF
        "the dog ran\n"      # 7
        "the bird sat\n"     # 8
        "a cat flew\n"       # 9
        "the zebra ran\n"    # 10: valid
        "the yak sat\n")     # 11: test


class PtbOwn(OwnPrepCase):
    SCRIPT = SCRIPT

    def test_split_and_full_vocabulary(self):
        _, msg = self.prep_own("story.txt", TEXT, "--vocab-size", "0")
        folder = os.path.join(self.out, "story_own")
        self.assertEqual(sorted(os.listdir(folder)), ["prep.json", "test.txt", "train.txt", "valid.txt", "vocab.txt"])
        self.assertEqual(self.read("story_own", "train.txt"), "the cat sat\nthe dog sat\nthe cat ran\na bird flew\n"
                         "the cat sat\nthe dog ran\nthe bird sat\na cat flew\n")
        self.assertEqual(self.read("story_own", "valid.txt"), "the <unk> ran\n")   # zebra: unseen in train
        self.assertEqual(self.read("story_own", "test.txt"), "the <unk> sat\n")
        # counts: <eos> 8, the 6, cat 4, sat 4, dog 2, ran 2, a 2, bird 2, flew 2 (ties by first appearance);
        # <unk> never occurs in train: appended
        self.assertEqual(self.read("story_own", "vocab.txt").split(),
                         ["<eos>", "the", "cat", "sat", "dog", "ran", "a", "bird", "flew", "<unk>"])
        meta = json.loads(self.read("story_own", "prep.json"))
        self.assertEqual({k: (v["sentences"], v["first_line"], v["last_line"]) for k, v in meta["source_lines"].items()},
                         {"train": (8, 1, 9), "valid": (1, 10, 10), "test": (1, 11, 11)})
        self.assertEqual(meta["splits"]["valid"], {"sentences": 1, "words": 3, "tokens_with_eos": 4,
                                                   "replaced_by_unk": 1, "replaced_rate": 0.333333})
        self.assertEqual(meta["splits"]["train"]["tokens_with_eos"], 32)
        self.assertEqual(meta["source_files"]["text"]["blank_lines_skipped"], 1)
        self.assertEqual(meta["vocabulary"]["size"], 10)
        self.check_lm_command(msg, folder)

    def check_lm_command(self, msg, folder):
        line = self.printed_command(msg, "lm")
        self.assertEqual(line, f"build/bin/lm experiments/lm/atr_small.json --set data.dir={folder} --set "
                               f"data.vocab=vocab.txt --set train.batch_size=16 --set data.eval_batch_size=2 "
                               f"--set out_dir=runs/lm_{os.path.basename(folder)[:-4]}")
        self.check_print_config(line, "lm", folder)

    def test_vocab_size_writes_rare_words_as_unk(self):
        _, msg = self.prep_own("story.txt", TEXT, "--vocab-size", "6", "--name", "small")
        # 4 words kept besides <eos> and <unk>: the, cat, sat, dog (dog ties with ran, a, bird, flew and comes first)
        self.assertEqual(self.read("small_own", "train.txt"), "the cat sat\nthe dog sat\nthe cat <unk>\n"
                         "<unk> <unk> <unk>\nthe cat sat\nthe dog <unk>\nthe <unk> sat\n<unk> cat <unk>\n")
        self.assertEqual(self.read("small_own", "valid.txt"), "the <unk> <unk>\n")
        self.assertEqual(self.read("small_own", "vocab.txt").split(), ["<eos>", "<unk>", "the", "cat", "sat", "dog"])
        meta = json.loads(self.read("small_own", "prep.json"))
        self.assertEqual(meta["vocabulary"]["training_word_types_replaced_by_unk"], 4)
        self.assertEqual(meta["splits"]["train"]["replaced_by_unk"], 8)
        self.assertIn("vocabulary 6 (4 rarer training word types written as <unk>)", msg)

    def test_three_files(self):
        tr = self.file("tr.txt", "a b\nb <unk> c\n")   # a <unk> of the user's stays a word (as in PTB)
        va = self.file("va.txt", "b d\n")
        te = self.file("te.txt", "c\n")
        code, msg = self.run_prep("--own", tr, va, te, "--name", "three")
        self.assertEqual(code, 0, msg)
        self.assertEqual(self.read("three_own", "valid.txt"), "b <unk>\n")
        self.assertEqual(self.read("three_own", "vocab.txt").split(), ["b", "<eos>", "a", "<unk>", "c"])

    def test_bad_inputs_name_file_and_line(self):
        self.assert_own_refused("eos.txt", "a b\nc <eos>\n", ":2: the word <eos> is in the text")
        self.assert_own_refused("utf8.txt", b"a b\nc d\n\xe2\x82 e\n", ":3: invalid UTF-8 at byte 0 of the line")
        self.assert_own_refused("empty.txt", "", ": empty file")
        good = self.file("story.txt", TEXT)
        self.assert_fails(["--own", good, "--vocab-size", "2"], ["--vocab-size 2: 0 (no limit) or at least 3"])
        self.assert_own_refused("small.txt", "a\nb\nc\nd\ne\n", ": the dev split would be empty (5 items")


if __name__ == "__main__":
    unittest.main(verbosity=2)
