#!/usr/bin/env python3
"""data_prep/ptb.py on hand-made ptb.{train,valid,test}.txt: good files give the splits and the vocabulary by
descending count; a damaged .gz, invalid UTF-8 (with the line, counting CR, CRLF and LF line ends as the reader
does), an empty split and valid words unknown to a train split without <unk> each stop with exit code 2 and a
message naming the file (findings of tests/fuzz/fuzz_prep.py and its review). Standard library only; runs the
script as a user would (a subprocess), in a temporary folder."""
import gzip
import os
import unittest

from own_case import CorpusPrepCase  # noqa: E402  (tests/data_prep/, on sys.path as the script's folder)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "data_prep", "ptb.py")

TRAIN = " the cat sat \n the <unk> ran \n"
VALID = " the cat \n"


class PtbPrep(CorpusPrepCase):
    SCRIPT = SCRIPT
    EXTRA_ARGS = ("--no-check",)
    RAW = "ptb"

    def write(self, name, data):
        with open(os.path.join(self.raw, name), "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode("utf-8"))

    def write_all(self, train=TRAIN, valid=VALID, test=VALID):
        self.write("ptb.train.txt", train)
        self.write("ptb.valid.txt", valid)
        self.write("ptb.test.txt", test)

    def test_good_input(self):
        self.write_all(train=" the cat sat \r\n the <unk> ran \r the end \n")  # universal newlines: 3 lines
        code, msg = self.run_prep()
        self.assertEqual(code, 0, msg)
        with open(os.path.join(self.out, "train.txt"), encoding="utf-8") as f:
            self.assertEqual(f.read(), "the cat sat\nthe <unk> ran\nthe end\n")
        with open(os.path.join(self.out, "vocab.txt"), encoding="utf-8") as f:
            self.assertEqual(f.read().split(), ["the", "<eos>", "cat", "sat", "<unk>", "ran", "end"])
        umask = os.umask(0o22)
        os.umask(umask)
        # The folder has the usual mode, as every other script's (it was mkdtemp's 0700 before c081d35).
        self.assertEqual(os.stat(self.out).st_mode & 0o777, 0o777 & ~umask)
        code, msg = self.run_prep()   # a second run replaces the folder whole and leaves nothing else beside it
        self.assertEqual(code, 0, msg)
        self.assertEqual(sorted(os.listdir(os.path.dirname(self.out))), ["out", "ptb"])

    def test_fuzz_damaged_gzip_names_the_file(self):
        self.write_all()
        os.remove(os.path.join(self.raw, "ptb.train.txt"))
        g = gzip.compress(TRAIN.encode("utf-8"), mtime=0)
        self.write("ptb.train.txt.gz", g[:10] + b"\xff" + g[11:])  # deflate block type 11: zlib.error
        self.assert_fails(["cannot read", "ptb.train.txt.gz", "invalid block type"])

    def test_fuzz_invalid_utf8_names_the_line(self):
        # the message gave a byte position inside the decoder's current chunk, no line
        self.write_all(valid=b" the cat \r the \r\n cat \n the \xff cat \n")
        self.assert_fails(["ptb.valid.txt:4: invalid UTF-8", "byte 0xff"])

    def test_empty_split_names_the_file(self):
        self.write_all(test=" \n\n")
        self.assert_fails(["ptb.test.txt: split test is empty"])

    def test_unknown_words_without_unk_name_the_files(self):
        self.write_all(train=" the cat sat \n", valid=" the dog \n")
        self.assert_fails(["ptb.valid.txt: 1 words outside the training vocabulary", "ptb.train.txt"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
