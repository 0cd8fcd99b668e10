#!/usr/bin/env python3
"""data_prep/cws.py on hand-made SIGHAN 2005 inputs: a good gold file is split 80/10/10 (CRLF, double spaces and
a trailing empty line as in the MSR file); a damaged .gz, a file too small to split and an empty word list each
stop with exit code 2 and a message naming the file (findings of tests/fuzz/fuzz_prep.py, which were Python
tracebacks or messages without the file before the fix). Standard library only; runs the script as a user would
(a subprocess), in a temporary folder."""
import gzip
import os
import unittest

from own_case import CorpusPrepCase, PrepCase  # noqa: E402  (tests/data_prep/, on sys.path as the script's folder)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "data_prep", "cws.py")

SENTENCES = [f"迈向  充满  希望  的  新{i}  世纪" for i in range(10)]


class CwsPrep(CorpusPrepCase):
    SCRIPT = SCRIPT
    EXTRA_ARGS = ("--corpus", "msr", "--no-check")
    RAW, RAW_SUBDIR = "sighan2005", "gold"

    def write(self, name, lines, raw_bytes=None):
        path = os.path.join(self.raw, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(raw_bytes if raw_bytes is not None else "".join(l + "\r\n" for l in lines).encode("utf-8"))

    def test_good_gold_file_is_split_80_10_10(self):
        self.write("gold/msr_test_gold.utf8", SENTENCES + [""])
        code, msg = self.run_prep()
        self.assertEqual(code, 0, msg)
        self.assertEqual(self.read("msr_inhouse", "test.seg"), "迈向 充满 希望 的 新9 世纪\n")
        self.assertEqual(self.read("msr_inhouse", "test.bmes"), "BEBEBESBEBE\n")

    def test_fuzz_damaged_gzip_names_the_file(self):
        g = gzip.compress("".join(l + "\n" for l in SENTENCES).encode("utf-8"), mtime=0)
        self.write("gold/msr_test_gold.utf8.gz", None, raw_bytes=g[:10] + b"\xff" + g[11:])  # deflate block type 11
        self.assert_fails(["cannot read", "msr_test_gold.utf8.gz", "invalid block type"])  # was zlib.error

    def test_fuzz_file_too_small_to_split_names_the_file(self):
        self.write("gold/msr_test_gold.utf8", SENTENCES[:3])
        self.assert_fails(["msr_test_gold.utf8: the dev split is empty (3 sentences in all)"])
        self.write("training/msr_training.utf8", SENTENCES[:1])
        self.assert_fails(["msr_training.utf8: the train split is empty (1 sentences in all)"],
                          "--protocol", "standard")

    def test_fuzz_empty_word_list_is_an_error(self):
        # read_word_list accepted a list without words (every test word OOV); a bakeoff file without sentences
        # was already an error
        self.write("gold/msr_test_gold.utf8", SENTENCES)
        self.write("training/msr_training.utf8", SENTENCES)
        self.write("gold/msr_training_words.utf8", ["", "  "])
        self.assert_fails(["msr_training_words.utf8: no words"], "--protocol", "standard")


CONLLU_TRAIN = ("# sent_id = 1\n# text = 我們喜歡蘋果\n1\t我們\t_\tPRON\tPN\t_\t2\tnsubj\t_\t_\n"
                "2\t喜歡\t_\tVERB\tVV\t_\t0\troot\t_\t_\n3-4\t蘋果\t_\t_\t_\t_\t_\t_\t_\t_\n"
                "3\t蘋\t_\tNOUN\tNN\t_\t2\tobj\t_\t_\n4\t果\t_\tNOUN\tNN\t_\t3\tdep\t_\t_\n\n"
                "1\t好\t_\tADJ\tJJ\t_\t0\troot\t_\t_\n")


class CwsUdPrep(PrepCase):
    """Protocol (c): CoNLL-U FORM columns, comment and multiword lines skipped, malformed lines named."""
    SCRIPT = SCRIPT
    EXTRA_ARGS = ("--protocol", "ud")

    def setUp(self):
        super().setUp()
        self.ud = os.path.join(self.tmp.name, "ud")
        os.makedirs(self.ud)
        for split in ("train", "dev", "test"):
            self.write(split, CONLLU_TRAIN)

    def write(self, split, text):
        with open(os.path.join(self.ud, f"zh-ud-{split}.conllu"), "w", encoding="utf-8") as f:
            f.write(text)

    def run_prep(self, *extra):
        return super().run_prep("--ud", self.ud, *extra)

    def test_forms_become_segmented_sentences(self):
        code, msg = self.run_prep("--no-check")
        self.assertEqual(code, 0, msg)
        self.assertEqual(self.read("gsd_ud", "test.seg"), "我們 喜歡 蘋 果\n好\n")
        self.assertEqual(self.read("gsd_ud", "test.bmes"), "BEBESS\nS\n")

    def test_published_counts_and_bad_lines(self):
        code, msg = self.run_prep()
        self.assertEqual(code, 2, msg)
        self.assertIn("expected 3997, 98608", msg)
        for text, needle in (("1\t我\t_\n", "zh-ud-dev.conllu:1: 3 TAB-separated columns"),
                             ("x\t我\t_\t_\t_\t_\t_\t_\t_\t_\n", "zh-ud-dev.conllu:1: ID 'x'"),
                             ("1\t我 們\t_\t_\t_\t_\t_\t_\t_\t_\n", "zh-ud-dev.conllu:1: FORM '我 們'")):
            self.write("dev", text)
            code, msg = self.run_prep("--no-check")
            self.assertEqual(code, 2, msg)
            self.assertIn(needle, msg)
            self.assertNotIn("Traceback", msg)


if __name__ == "__main__":
    unittest.main(verbosity=2)
