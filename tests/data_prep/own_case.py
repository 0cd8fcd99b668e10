"""The base of the data_prep --own tests (test_*_own.py): a temporary folder with OUT inside, the script run as a
user would (a subprocess), and the checks every own mode shares (a refusal exits 2, names what it must, prints no
traceback and leaves nothing behind; the printed training command passes the binary's --print-config)."""
import json
import os
import shlex
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class OwnPrepCase(unittest.TestCase):
    SCRIPT = None        # data_prep/<script>.py, set by each test class
    EXTRA_ARGS = ()      # arguments every call adds (e.g. a small BPE vocabulary)

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.out = os.path.join(self.tmp.name, "out")

    def tearDown(self):
        self.tmp.cleanup()

    def file(self, name, text=None, data=None):
        path = os.path.join(self.tmp.name, name)
        with open(path, "wb") as f:
            f.write(data if data is not None else text.encode("utf-8"))
        return path

    def run_prep(self, *args):
        p = subprocess.run([sys.executable, self.SCRIPT, "--out", self.out, *self.EXTRA_ARGS, *args],
                           capture_output=True, text=True)
        return p.returncode, p.stdout + p.stderr

    def read(self, *parts):
        with open(os.path.join(self.out, *parts), encoding="utf-8") as f:
            return f.read()

    def assert_fails(self, args, needles):
        code, msg = self.run_prep(*args)
        self.assertEqual(code, 2, msg)
        for n in needles:
            self.assertIn(n, msg)
        self.assertNotIn("Traceback", msg)
        self.assertEqual(os.listdir(self.out) if os.path.isdir(self.out) else [], [], "nothing may be left behind")

    def printed_command(self, msg, task):
        """The training command the script printed (the line starting with build/bin/<task>)."""
        return next(l.strip() for l in msg.splitlines() if l.strip().startswith(f"build/bin/{task} "))

    def check_print_config(self, line, task, folder):
        """The printed command, with --print-config, must pass the binary (it reads and checks the data)."""
        if not os.access(os.path.join(ROOT, "build", "bin", task), os.X_OK):
            self.skipTest(f"build/bin/{task} not built: the printed command is not checked")
        p = subprocess.run(shlex.split(line) + ["--print-config"], cwd=ROOT, capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        resolved = json.loads(p.stdout)
        self.assertEqual(resolved["data"]["dir"], folder)
        return resolved
