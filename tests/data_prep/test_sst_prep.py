#!/usr/bin/env python3
"""data_prep/sst.py on hand-made stsa.* inputs: good files are written unchanged (a no-break space inside a token
stays), an empty line, a non-integer label, a label outside the set's range, a label without text, invalid UTF-8
and wrong published counts each stop with exit code 2 and a message naming file and line; a missing file says
where to put it; an existing prepared folder survives a failed run. Standard library only; runs the script as a
user would (a subprocess), in a temporary folder."""
import gzip
import json
import os
import unittest

from own_case import CorpusPrepCase  # noqa: E402  (tests/data_prep/, on sys.path as the script's folder)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "data_prep", "sst.py")

GOOD2 = ["1 a stirring , funny film", "0 a gob of drivel so sickly sweet", "1 its 2\u00a01\\/2 - hour running time"]
GOOD5 = ["4 a stirring , funny film", "0 a gob of drivel", "2 a middling movie"]


class SstPrep(CorpusPrepCase):
    SCRIPT = SCRIPT

    def write(self, name, lines, raw_bytes=None):
        with open(os.path.join(self.raw, name), "wb") as f:
            f.write(raw_bytes if raw_bytes is not None else "".join(l + "\n" for l in lines).encode("utf-8"))

    def write_all(self, binary_train=GOOD2, fine_train=GOOD5):
        for split in ("train", "dev", "test"):
            self.write(f"stsa.binary.{split}", binary_train if split == "train" else GOOD2)
            self.write(f"stsa.fine.{split}", fine_train if split == "train" else GOOD5)

    def run_prep(self, *extra, check=False):
        return super().run_prep(*extra, *([] if check else ["--no-check"]))

    def assert_fails(self, needles, check=False):
        self.assert_refused(*self.run_prep(check=check), needles)

    def test_good_input_is_copied_with_prep_json(self):
        self.write_all()
        code, msg = self.run_prep()
        self.assertEqual(code, 0, msg)
        self.assertEqual(self.read("sst2/train.txt"), "".join(l + "\n" for l in GOOD2))
        self.assertEqual(self.read("sst5/test.txt"), "".join(l + "\n" for l in GOOD5))
        meta = json.loads(self.read("sst5/prep.json"))
        self.assertEqual(meta["num_labels"], 5)
        self.assertEqual(meta["splits"]["train"]["labels"], [1, 0, 1, 0, 1])
        self.assertEqual(meta["splits"]["dev"]["sentences"], 3)

    def test_whitespace_is_normalised(self):
        self.write_all(binary_train=["1  two  spaces\r", "0\ttab separated "])
        code, msg = self.run_prep("--set", "sst2")
        self.assertEqual(code, 0, msg)
        self.assertEqual(self.read("sst2/train.txt"), "1 two spaces\n0 tab separated\n")
        self.assertFalse(os.path.exists(os.path.join(self.out, "sst5")))

    def test_empty_line_names_file_and_line(self):
        self.write_all(binary_train=[GOOD2[0], ""])
        self.assert_fails(["stsa.binary.train:2:", "empty line", "missing label"])

    def test_non_integer_label(self):
        self.write_all(fine_train=[GOOD5[0], GOOD5[1], "great movie"])
        self.assert_fails(["stsa.fine.train:3:", "label 'great' is not an integer"])

    def test_label_out_of_range(self):
        self.write_all(binary_train=[GOOD2[0], "2 neutral sentence"])
        self.assert_fails(["stsa.binary.train:2:", "unknown label 2", "0..1"])

    def test_label_without_text(self):
        self.write_all(fine_train=["3"])
        self.assert_fails(["stsa.fine.train:1:", "empty text after the label 3"])

    def test_invalid_utf8_names_the_line(self):
        self.write_all()
        self.write("stsa.binary.dev", None, raw_bytes=b"1 fine\n0 caf\xe9\n")
        self.assert_fails(["stsa.binary.dev:2:", "invalid UTF-8"])

    def test_published_counts_are_checked(self):
        self.write_all()
        self.assert_fails(["stsa.binary.train", "expected 6920", "--no-check"], check=True)

    def test_missing_file_says_where_to_put_it(self):
        self.write_all()
        os.remove(os.path.join(self.raw, "stsa.fine.test"))
        self.assert_fails(["missing", "stsa.fine.test", "SOURCE.md"])

    def test_failed_run_keeps_the_previous_output(self):
        self.write_all()
        self.assertEqual(self.run_prep()[0], 0)
        before = self.read("sst2/train.txt")
        self.write_all(binary_train=["x broken"])
        self.assertEqual(self.run_prep()[0], 2)
        self.assertEqual(self.read("sst2/train.txt"), before)

    # Findings of tests/fuzz/fuzz_prep.py: each was a Python traceback before the fix.
    def test_fuzz_label_of_thousands_of_digits(self):
        # int() refuses over 4300 digits (ValueError); leading zeros still make a valid label
        self.write_all(binary_train=[GOOD2[0], "9" * 5000 + " a film"])
        self.assert_fails(["stsa.binary.train:2:", "unknown label 99999999999999999999... (5000 digits)", "0..1"])
        self.write_all(binary_train=["0" * 5000 + "1 a film"])
        code, msg = self.run_prep("--set", "sst2")
        self.assertEqual(code, 0, msg)
        self.assertEqual(self.read("sst2/train.txt"), "1 a film\n")

    def test_fuzz_damaged_gzip_names_the_file(self):
        self.write_all()
        os.remove(os.path.join(self.raw, "stsa.fine.dev"))
        g = gzip.compress("".join(l + "\n" for l in GOOD5).encode("utf-8"), mtime=0)
        self.write("stsa.fine.dev.gz", None, raw_bytes=g[:10] + b"\xff" + g[11:])  # deflate block type 11: zlib.error
        self.assert_fails(["cannot read", "stsa.fine.dev.gz", "invalid block type"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
