#!/usr/bin/env python3
"""data_prep/nmt.py on a damaged input: a .gz with a broken deflate stream and invalid UTF-8 each stop with exit
code 2 and a message naming the file (and the line of the bad byte) -- findings of tests/fuzz/fuzz_prep.py, which
were a Python traceback and a message without the line before the fix. The files are the first one nmt.py reads,
so no other input is needed; --self-test skips the spm_* check, which comes before reading. Standard library
only; runs the script as a user would (a subprocess), in a temporary folder."""
import gzip
import os
import unittest

from own_case import CorpusPrepCase  # noqa: E402  (tests/data_prep/, on sys.path as the script's folder)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "data_prep", "nmt.py")


class NmtPrep(CorpusPrepCase):
    SCRIPT = SCRIPT
    EXTRA_ARGS = ("--self-test",)   # it reads the files it checks, and writes nothing
    RAW_SUBDIR = os.path.join("multi30k", "raw")

    def assert_fails(self, name, data, needles):
        with open(os.path.join(self.raw, self.RAW_SUBDIR, name), "wb") as f:
            f.write(data)
        super().assert_fails(needles)

    def test_fuzz_damaged_gzip_names_the_file(self):
        g = gzip.compress(b"Two young guys .\nSeveral men .\n", mtime=0)
        self.assert_fails("train.en.gz", g[:10] + b"\xff" + g[11:],  # deflate block type 11: zlib.error
                          ["cannot read", "train.en.gz", "invalid block type", "replace it with a good copy"])

    def test_fuzz_invalid_utf8_names_the_line(self):
        self.assert_fails("train.en", b"Two young guys .\nSeveral m\xc3n .\n",
                          ["train.en:2: invalid UTF-8 at byte 9 of the line", "byte 0xc3"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
