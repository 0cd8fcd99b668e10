#!/usr/bin/env python3
"""tools/check_layers.py on hand-made core/ trees: includes down the layers and within a module pass, an
include of a later layer or of an unknown module is named with file and line (exit 1).
/usr/bin/python3 tests/tools/test_check_layers.py
"""
import contextlib
import io
import os
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import check_layers  # noqa: E402


def tree(root, files):
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)


class CheckLayers(unittest.TestCase):
    def run_check(self, files):
        with tempfile.TemporaryDirectory() as core:
            tree(core, files)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                rc = check_layers.main(["--core", core])
            return rc, out.getvalue().replace(core + os.sep, "")

    def test_down_and_within_pass(self):
        rc, out = self.run_check({"graph/graph.cc": '#include "graph/graph.h"\n#include "base/gemm.h"\n',
                                  "train/cli.cc": '#include <vector>\n#include "rnn/cell.h"\n#include "data/vocab.h"\n'})
        self.assertEqual(rc, 0, out)
        self.assertIn("0 include(s)", out)

    def test_upward_and_unknown_are_named(self):
        rc, out = self.run_check({"base/threads.cc": 'int x;\n#include "ops/gemm_blis.h"\n',
                                  "optim/schedule.h": '#include "train/config.h"\n',
                                  "ops/x.cc": '#  include "magic/y.h"\n'})
        self.assertEqual(rc, 1)
        self.assertIn("base/threads.cc:2: base includes ops/ (points up", out)
        self.assertIn("optim/schedule.h:1: optim includes train/ (points up", out)
        self.assertIn("ops/x.cc:1: ops includes magic/ (not in the layer list", out)
        self.assertIn("3 include(s)", out)

    def test_the_real_core_is_in_order(self):
        self.assertEqual(check_layers.upward_includes(os.path.join(ROOT, "core")), [])


if __name__ == "__main__":
    unittest.main()
