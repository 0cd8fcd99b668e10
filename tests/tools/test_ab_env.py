#!/usr/bin/env python3
"""tools/ab_env.py on tiny Python commands: each side runs with its own environment, the sides alternate by
round, a child's peak RSS is its own (a command that allocates 200 MB under B shows it under B only), {out}
is a fresh folder per run, and bad input (a command file line, an --a without '=', a failing command) stops
with the file and line or the run named.
/usr/bin/python3 tests/tools/test_ab_env.py
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "ab_env.py")
PY = sys.executable

# Allocates (and touches) AB_MB megabytes, records the environment variable and the {out} folder it was given.
CHILD = ("import os,sys; n=int(os.environ.get('AB_MB','0')); b=bytearray(n<<20); "
         "open(sys.argv[2],'a').write(os.environ.get('AB_MB','-')+' '+sys.argv[1]+' '+str(os.path.isdir(sys.argv[1]))+'\\n')")


def run(args, cwd):
    return subprocess.run([PY, TOOL] + args, cwd=cwd, capture_output=True, text=True)


class AbEnv(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, text):
        p = os.path.join(self.d, name)
        with open(p, "w") as f:
            f.write(text)
        return p

    def test_sides_alternate_and_rss_is_the_childs(self):
        trace = os.path.join(self.d, "trace.txt")
        cmds = self.write("cmds.txt", f"# a comment\nalloc: {PY} -c \"{CHILD}\" {{out}} {trace}\n")
        r = run(["--a", "AB_MB=0", "--b", "AB_MB=200", "--commands", cmds, "--rounds", "2", "--out", "x"], self.d)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(trace) as f:
            runs = [line.split() for line in f]
        # Round 1: A then B; round 2: B then A.
        self.assertEqual([x[0] for x in runs], ["0", "200", "200", "0"])
        outs = [x[1] for x in runs]
        self.assertEqual(len(set(outs)), 4, "each run gets its own {out}")
        self.assertTrue(all(not os.path.exists(o) for o in outs), "the {out} folders are removed after the run")
        with open(os.path.join(self.d, "x.json")) as f:
            doc = json.load(f)
        rec = {(r["side"], r["round"]): r for r in doc["records"]}
        self.assertEqual(len(rec), 4)
        for rnd in (1, 2):
            self.assertGreater(rec[("B", rnd)]["peak_rss_mb"], 190)
            self.assertLess(rec[("A", rnd)]["peak_rss_mb"], 150)
        self.assertEqual(doc["b"], {"AB_MB": "200"})
        with open(os.path.join(self.d, "x.md")) as f:
            md = f.read()
        self.assertIn("| alloc |", md)
        self.assertTrue(os.path.isfile(os.path.join(self.d, "x_logs", "alloc_B_2.log")))

    def test_bad_command_line_names_file_and_line(self):
        cmds = self.write("cmds.txt", "ok: true\nno colon here\n")
        r = run(["--a", "X=1", "--b", "X=2", "--commands", cmds], self.d)
        self.assertEqual(r.returncode, 2)
        self.assertIn("cmds.txt:2: expected 'name: command'", r.stderr)
        dup = self.write("dup.txt", "ok: true\nok: true\n")
        r = run(["--a", "X=1", "--b", "X=2", "--commands", dup], self.d)
        self.assertIn("dup.txt:2: command name 'ok' is used twice", r.stderr)

    def test_bad_env_and_same_sides(self):
        cmds = self.write("cmds.txt", "ok: true\n")
        r = run(["--a", "X", "--b", "X=2", "--commands", cmds], self.d)
        self.assertEqual(r.returncode, 2)
        self.assertIn("--a X: expected NAME=VALUE", r.stderr)
        r = run(["--a", "X=2", "--b", "X=2", "--commands", cmds], self.d)
        self.assertEqual(r.returncode, 2)
        self.assertIn("the same", r.stderr)

    def test_failing_command_is_named_with_its_log(self):
        cmds = self.write("cmds.txt", f"boom: {PY} -c \"import sys; print('went wrong'); sys.exit(3)\"\n")
        r = run(["--a", "X=1", "--b", "X=2", "--commands", cmds, "--out", "y"], self.d)
        self.assertEqual(r.returncode, 1)
        self.assertIn("boom (side A, round 1) exited with 3", r.stderr)
        self.assertIn("went wrong", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.d, "y.json")), "no report from a failed sitting")


if __name__ == "__main__":
    unittest.main()
