#!/usr/bin/env python3
"""tools/ab_steps.py on fake task binaries (Python scripts that log a train line per step to the run folder's
metrics.jsonl, burning a fixed amount of CPU per step): a build doing half the work per step measures about
half the CPU seconds in every round, only steps K+1..N count (a slow start-up does not), the run folders are
removed, the sign test is the exact binomial one, and bad input (no binary, steps not a multiple of the log
interval, the same folder twice, a run that dies early) stops with the argument or the run named.
/usr/bin/python3 tests/tools/test_ab_steps.py
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "ab_steps.py")
PY = sys.executable

# argv: EXP --threads 1 --set out_dir=D --set train.max_steps=M --set train.log_every=K [--set die_at=S]
FAKE = """#!{py}
import json, os, sys, time
sets = dict(a.split("=", 1) for a in sys.argv[2:] if "=" in a)
out, M, K = sets["out_dir"], int(sets["train.max_steps"]), int(sets["train.log_every"])
die = int(sets.get("die_at", 0))
os.makedirs(out)
t0 = time.monotonic()
end = time.process_time() + {startup}
while time.process_time() < end: pass
for step in range(1, M + 1):
    if step == die: sys.exit(3)
    end = time.process_time() + {per_step}
    while time.process_time() < end: pass
    if step % K == 0:
        with open(os.path.join(out, "metrics.jsonl"), "a") as f:
            f.write(json.dumps({{"split": "train", "step": step, "elapsed_s": time.monotonic() - t0}}) + "\\n")
"""


def load_tool():
    spec = importlib.util.spec_from_file_location("ab_steps", TOOL)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class AbSteps(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name
        self.exp = os.path.join(self.d, "exp.json")
        with open(self.exp, "w") as f:
            f.write("{}\n")

    def tearDown(self):
        self.tmp.cleanup()

    def fake_dir(self, name, per_step, startup=0.0):
        d = os.path.join(self.d, name)
        os.makedirs(d)
        p = os.path.join(d, "task")
        with open(p, "w") as f:
            f.write(FAKE.format(py=PY, per_step=per_step, startup=startup))
        os.chmod(p, 0o755)
        return d

    def run_tool(self, args):
        return subprocess.run([PY, TOOL] + args, cwd=self.d, capture_output=True, text=True)

    def test_half_the_work_per_step_measures_half_the_cpu_seconds_in_every_round(self):
        # A has a long start-up (1 s of CPU) that must not count; per step A burns 0.12 s, B 0.06 s.
        a, b = self.fake_dir("a", 0.12, startup=1.0), self.fake_dir("b", 0.06)
        work = os.path.join(self.d, "work")
        os.makedirs(work)
        r = self.run_tool(["--a", a, "--b", b, "--task", "task", "--exp", self.exp, "--rounds", "3",
                           "--from-step", "2", "--to-step", "6", "--out", "res", "--work", work])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.d, "res.json")) as f:
            doc = json.load(f)
        self.assertEqual(len(doc["records"]), 3)
        self.assertEqual(doc["steps"], [3, 6])
        for rec in doc["records"]:
            # 4 steps: A 0.48 s, B 0.24 s of CPU (clock ticks of 10 ms and the poll's delay aside).
            self.assertGreater(rec["A"]["cpu_s"], 0.40, rec)
            self.assertLess(rec["A"]["cpu_s"], 0.75, rec)   # the 1 s start-up is not in it
            self.assertLess(rec["b_over_a"], 0.75, rec)
            self.assertGreater(rec["b_over_a"], 0.3, rec)
        s = doc["summary"]
        self.assertEqual(s["rounds_b_faster"], 3)
        self.assertAlmostEqual(s["sign_test_p"], 0.25)   # 2 * (1/2)^3
        self.assertEqual(os.listdir(work), [])           # the run folders are gone
        with open(os.path.join(self.d, "res.md")) as f:
            md = f.read()
        self.assertIn("B faster in 3 of 3 rounds", md)
        self.assertTrue(os.path.isfile(os.path.join(self.d, "res_logs", "B_3.log")))

    def test_sign_test_is_the_exact_two_sided_binomial(self):
        t = load_tool()
        self.assertAlmostEqual(t.sign_test_p(6, 6), 2 / 64)
        self.assertAlmostEqual(t.sign_test_p(0, 6), 2 / 64)
        self.assertAlmostEqual(t.sign_test_p(5, 6), 2 * 7 / 64)
        self.assertAlmostEqual(t.sign_test_p(3, 6), 1.0)
        self.assertAlmostEqual(t.sign_test_p(1, 1), 1.0)

    def test_a_run_that_dies_before_step_n_is_named(self):
        a, b = self.fake_dir("a", 0.01), self.fake_dir("b", 0.01)
        r = self.run_tool(["--a", a, "--b", b, "--task", "task", "--exp", self.exp, "--rounds", "2",
                           "--from-step", "2", "--to-step", "6", "--out", "res", "--", "--set", "die_at=5"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("round 1: the run ended (exit 3) before logging steps 2 and 6", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.d, "res.json")))

    def test_bad_arguments_are_named(self):
        a, b = self.fake_dir("a", 0.01), self.fake_dir("b", 0.01)
        base = ["--task", "task", "--exp", self.exp]
        cases = [
            (["--a", a, "--b", os.path.join(self.d, "nowhere")] + base, "--b " + os.path.join(self.d, "nowhere")),
            (["--a", a, "--b", b] + base + ["--from-step", "4", "--to-step", "10"], "N a multiple of K"),
            (["--a", a, "--b", b] + base + ["--from-step", "4", "--to-step", "4"], "1 <= K < N"),
            (["--a", a, "--b", a + "/"] + base, "are the same folder"),
            (["--a", a, "--b", b, "--task", "task", "--exp", "missing.json"], "--exp missing.json: no such file"),
            (["--a", a, "--b", b] + base + ["--rounds", "0"], "--rounds 0"),
        ]
        for args, needle in cases:
            r = self.run_tool(args)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            self.assertIn(needle, r.stderr)


if __name__ == "__main__":
    unittest.main()
