"""The bases of the data_prep tests: a temporary folder with OUT inside, the script run as a user would (a
subprocess), and the checks every script's refusals share (exit 2, a message naming what it must, no traceback).
PrepCase is the common part; CorpusPrepCase adds the hand-made RAW folder of the corpus tests (test_*_prep.py),
OwnPrepCase the --own tests (test_*_own.py: nothing may be left behind; the printed training command passes the
binary's --print-config)."""
import json
import os
import shlex
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class PrepCase(unittest.TestCase):
    SCRIPT = None        # data_prep/<script>.py, set by each test class
    EXTRA_ARGS = ()      # arguments every call adds (e.g. a small BPE vocabulary, --no-check)

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.out = os.path.join(self.tmp.name, "out")

    def tearDown(self):
        self.tmp.cleanup()

    def run_prep(self, *args):
        """(exit code, stdout + stderr) of SCRIPT --out OUT EXTRA_ARGS args."""
        p = subprocess.run([sys.executable, self.SCRIPT, "--out", self.out, *self.EXTRA_ARGS, *args],
                           capture_output=True, text=True)
        return p.returncode, p.stdout + p.stderr

    def read(self, *parts):
        with open(os.path.join(self.out, *parts), encoding="utf-8") as f:
            return f.read()

    def assert_refused(self, code, msg, needles):
        """A refusal of bad input: exit code 2, every needle in the message, no traceback."""
        self.assertEqual(code, 2, msg)
        for n in needles:
            self.assertIn(n, msg)
        self.assertNotIn("Traceback", msg)


class CorpusPrepCase(PrepCase):
    RAW = "raw"          # the raw-corpus folder (--raw) in the temporary folder
    RAW_SUBDIR = ""      # a folder inside it that the script reads (created too)

    def setUp(self):
        super().setUp()
        self.raw = os.path.join(self.tmp.name, self.RAW)
        os.makedirs(os.path.join(self.raw, self.RAW_SUBDIR))

    def run_prep(self, *extra):
        return super().run_prep("--raw", self.raw, *extra)

    def assert_fails(self, needles, *extra):
        self.assert_refused(*self.run_prep(*extra), needles)


class OwnPrepCase(PrepCase):
    def file(self, name, text=None, data=None):
        path = os.path.join(self.tmp.name, name)
        with open(path, "wb") as f:
            f.write(data if data is not None else text.encode("utf-8"))
        return path

    def assert_fails(self, args, needles):
        self.assert_refused(*self.run_prep(*args), needles)
        self.assertEqual(os.listdir(self.out) if os.path.isdir(self.out) else [], [], "nothing may be left behind")

    def own_file(self, name, content):
        """file() of content: str (written as UTF-8), or bytes for what UTF-8 cannot spell."""
        return self.file(name, data=content) if isinstance(content, bytes) else self.file(name, content)

    def prep_own(self, name, content, *extra):
        """(path, output) of --own on one file of content (own_file) and the extra arguments: the run must pass."""
        path = self.own_file(name, content)
        code, msg = self.run_prep("--own", path, *extra)
        self.assertEqual(code, 0, msg)
        return path, msg

    def assert_own_refused(self, name, content, where, *needles):
        """--own on one file of content (own_file) is refused naming the file: its path, then `where` (":<line>:
        what" or ": what"), and every further needle in the message; returns the file's path."""
        path = self.own_file(name, content)
        self.assert_fails(["--own", path], [path + where, *needles])
        return path

    def assert_split_name_and_file_refusals(self, ext, small_text, items):
        """The refusals prep_common's own mode gives for any format: a file of `items` items (too few to split
        80/10/10), a --name that cannot name a folder, a file that is not there."""
        small = self.assert_own_refused("small" + ext, small_text,
                                        f": the dev split would be empty ({items} items in all")
        self.assert_fails(["--own", small, "--name", "a b"], ["--name 'a b'"])
        self.assert_fails(["--own", os.path.join(self.tmp.name, "missing" + ext)], ["no file", "missing" + ext])

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
