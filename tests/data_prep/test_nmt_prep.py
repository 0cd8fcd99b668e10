#!/usr/bin/env python3
"""data_prep/nmt.py on a damaged input: a .gz with a broken deflate stream and invalid UTF-8 each stop with exit
code 2 and a message naming the file (and the line of the bad byte) -- findings of tests/fuzz/fuzz_prep.py, which
were a Python traceback and a message without the line before the fix. The files are the first one nmt.py reads,
so no other input is needed; --self-test skips the spm_* check, which comes before reading. Standard library
only; runs the script as a user would (a subprocess), in a temporary folder."""
import gzip
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "data_prep", "nmt.py")


class NmtPrep(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.raw = os.path.join(self.tmp.name, "raw")
        os.makedirs(os.path.join(self.raw, "multi30k", "raw"))

    def tearDown(self):
        self.tmp.cleanup()

    def assert_fails(self, name, data, needles):
        with open(os.path.join(self.raw, "multi30k", "raw", name), "wb") as f:
            f.write(data)
        p = subprocess.run([sys.executable, SCRIPT, "--raw", self.raw, "--self-test"], capture_output=True,
                           text=True)
        msg = p.stdout + p.stderr
        self.assertEqual(p.returncode, 2, msg)
        for n in needles:
            self.assertIn(n, msg)
        self.assertNotIn("Traceback", msg)

    def test_fuzz_damaged_gzip_names_the_file(self):
        g = gzip.compress(b"Two young guys .\nSeveral men .\n", mtime=0)
        self.assert_fails("train.en.gz", g[:10] + b"\xff" + g[11:],  # deflate block type 11: zlib.error
                          ["cannot read", "train.en.gz", "invalid block type", "replace it with a good copy"])

    def test_fuzz_invalid_utf8_names_the_line(self):
        self.assert_fails("train.en", b"Two young guys .\nSeveral m\xc3n .\n",
                          ["train.en:2: invalid UTF-8 at byte 9 of the line", "byte 0xc3"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
