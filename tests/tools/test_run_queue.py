#!/usr/bin/env python3
"""tools/run_queue.sh in a scratch git repository with a stand-in task binary that writes summary.json and logs
which build ran it: binaries are pinned per queue at its first start (a build of later code does not run the
queue's later runs), a '# pin:' name shared by two lanes, a task added while no build input changed, a task added
after the code changed (refused), a stale or modified build/ (refused: a pin names the code it runs), REPIN=1, runs saving by the clock (--save-minutes) when their binary can, and
the bad queue lines and pin files (named, nothing run).
/usr/bin/python3 tests/tools/test_run_queue.py
"""
import os
import shutil
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Stand-in for a task binary: --version, and a run that writes OUT(_sSEED)/summary.json and logs "BUILD EXP".
# --help lists --save-minutes unless built without it (a build from before the flag); every run's arguments go
# to LOG.args.
FAKE = """#!/bin/bash
if [ "$1" = --version ]; then echo "fake BUILD"; exit 0; fi
if [ "$1" = --help ]; then echo "usage: fake <experiment.json> [--threads N]HELP"; exit 0; fi
echo "$*" >> LOG.args
exp=$1; shift; out=""; seed=""
while [ $# -gt 0 ]; do
  case "$1" in
    --set) case "$2" in out_dir=*) out=${2#out_dir=};; esac; shift 2;;
    --seed) seed=$2; shift 2;;
    *) shift;;
  esac
done
[ -n "$seed" ] && out="${out}_s$seed"
mkdir -p "$out" && echo '{}' > "$out/summary.json" && echo "BUILD $exp$([ -n "$seed" ] && echo " s$seed")" >> LOG
"""


def read(path):
    with open(path) as f:
        return f.read()


class RunQueue(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.repo = os.path.join(self.tmp, "repo")
        self.runs = os.path.join(self.tmp, "runs")
        self.log = os.path.join(self.tmp, "ran.log")
        for d in ("tools", "core", "experiments", "results", "build/bin"):
            os.makedirs(os.path.join(self.repo, d))
        shutil.copy(os.path.join(ROOT, "tools", "run_queue.sh"), os.path.join(self.repo, "tools"))
        self.write("CMakeLists.txt", "project(x)\n")
        self.write("core/a.cc", "int a = 1;\n")
        for e in ("e1", "e2", "e3", "e4"):
            self.write(f"experiments/{e}.json", "{}\n")
        self.write("results/r.md", "r\n")
        self.build("alpha", "v1")
        self.build("beta", "v1")
        self.git("init", "-q")
        self.commit("first")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def write(self, rel, text):
        with open(os.path.join(self.repo, rel), "w") as f:
            f.write(text)

    def build(self, task, version, save_minutes=True):
        """build/bin/<task> as a build of `version` would be (save_minutes: it has --save-minutes)."""
        path = os.path.join(self.repo, "build/bin", task)
        with open(path, "w") as f:
            f.write(FAKE.replace("BUILD", version).replace("LOG", self.log)
                    .replace("HELP", " [--save-minutes M]" if save_minutes else ""))
        os.chmod(path, 0o755)

    def git(self, *args):
        env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
        return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=self.repo,
                              env=env, check=True, capture_output=True, text=True).stdout.strip()

    def commit(self, msg):
        self.git("add", "-A", "--", ".", ":!build")
        self.git("commit", "-q", "-m", msg)
        return self.git("rev-parse", "--short", "HEAD")

    def queue(self, name, *lines):
        self.write(f"experiments/{name}", "".join(line + "\n" for line in lines))
        return f"experiments/{name}"

    def start(self, queue, **env):
        p = subprocess.run(["bash", "tools/run_queue.sh", queue, self.runs, "1"], cwd=self.repo,
                           env={**os.environ, **env}, capture_output=True, text=True)
        return p.returncode, p.stdout + p.stderr

    def ran(self):
        return read(self.log).splitlines() if os.path.exists(self.log) else []

    def test_later_runs_keep_the_first_starts_build(self):
        rev1 = self.git("rev-parse", "--short", "HEAD")
        q = self.queue("lane.txt", "alpha experiments/e1.json")
        rc, out = self.start(q)
        self.assertEqual(rc, 0, out)
        self.assertIn(f"pinned to revision {rev1}", out)
        self.assertEqual(read(os.path.join(self.runs, "bin/pins/lane.rev")).strip(), rev1)
        # the code changes, build/ is rebuilt, a line is added: the new run still runs the pinned build
        self.write("core/a.cc", "int a = 2;\n")
        self.build("alpha", "v2")
        self.queue("lane.txt", "alpha experiments/e1.json", "alpha experiments/e2.json --seeds 1,2")
        rev2 = self.commit("change the code")
        rc, out = self.start(q)
        self.assertEqual(rc, 0, out)
        self.assertIn(f"pinned to revision {rev1}", out)
        self.assertIn(f"HEAD is {rev2}", out)
        self.assertEqual(self.ran(), ["v1 experiments/e1.json", "v1 experiments/e2.json s1",
                                      "v1 experiments/e2.json s2"])
        self.assertIn("binary: fake v1", read(os.path.join(self.runs, "alpha_e2_s2", "machine.txt")))
        self.assertNotIn("TWIN_SUBNORMALS=keep", read(os.path.join(self.runs, "alpha_e2_s2", "machine.txt")))
        # REPIN=1 moves the pin on purpose: the next run has the new build, and the log says so
        self.queue("lane.txt", "alpha experiments/e1.json", "alpha experiments/e3.json")
        rc, out = self.start(q, REPIN="1", TWIN_SUBNORMALS="keep")
        self.assertEqual(rc, 0, out)
        # a variable that changes what the binary computes is recorded with the run's start
        self.assertRegex(read(os.path.join(self.runs, "alpha_e3", "machine.txt")),
                         r"\n  environment: [^\n]*TWIN_SUBNORMALS=keep")
        self.assertIn(f"repinned from {rev1} (REPIN) to revision {rev2}", out)
        self.assertEqual(self.ran()[-1], "v2 experiments/e3.json")
        log = read(os.path.join(self.runs, "bin/pins/lane.log"))
        self.assertIn(f"pinned to {rev1}", log)
        self.assertIn(f"repinned from {rev1} (REPIN) to {rev2}", log)

    def test_runs_save_by_the_clock_when_the_binary_can(self):
        # a lane dies without a signal when its session ends: each run saves every SAVE_MINUTES (default 10)
        self.build("beta", "v1", save_minutes=False)   # a pinned build from before the flag runs without it
        q = self.queue("lane.txt", "alpha experiments/e1.json", "beta experiments/e2.json")
        rc, out = self.start(q)
        self.assertEqual(rc, 0, out)
        args = read(self.log + ".args").splitlines()
        self.assertEqual(len(args), 2, args)
        self.assertIn("--threads 1 --save-minutes 10 ", args[0] + " ")
        self.assertNotIn("--save-minutes", args[1])
        q = self.queue("lane2.txt", "alpha experiments/e3.json", "alpha experiments/e4.json")
        self.start(q, SAVE_MINUTES="0")
        self.assertNotIn("--save-minutes", read(self.log + ".args").splitlines()[2])
        rc, out = self.start(self.queue("lane3.txt", "alpha experiments/e1.json --seeds 5"), SAVE_MINUTES="3")
        self.assertEqual(rc, 0, out)
        self.assertIn("--save-minutes 3 ", read(self.log + ".args").splitlines()[-1] + " ")

    def test_lanes_share_a_named_pin_and_add_tasks_while_the_code_is_the_same(self):
        rev1 = self.git("rev-parse", "--short", "HEAD")
        qa = self.queue("series_a.txt", "# pin: series (both lanes)", "alpha experiments/e1.json")
        qb = self.queue("series_b.txt", "# pin: series", "alpha experiments/e2.json", "beta experiments/e3.json")
        rc, out = self.start(qa)
        self.assertEqual(rc, 0, out)
        self.assertTrue(os.path.exists(os.path.join(self.runs, "bin/pins/series.rev")))
        # a results-only commit and a rebuild of the same code: lane b adds beta to the pin, runs alpha's pinned copy
        self.write("results/r.md", "r2\n")
        rev2 = self.commit("results")
        self.build("alpha", "v1-rebuilt")
        self.build("beta", "v1-rebuilt")
        rc, out = self.start(qb)
        self.assertEqual(rc, 0, out)
        self.assertIn(f"pinned to revision {rev1}", out)
        self.assertEqual(self.ran(), ["v1 experiments/e1.json", "v1 experiments/e2.json",
                                      "v1-rebuilt experiments/e3.json"])
        self.assertIn(f"added beta to {rev1}", read(os.path.join(self.runs, "bin/pins/series.log")))
        self.assertNotEqual(rev1, rev2)

    def test_a_task_the_pin_lacks_after_the_code_changed_is_refused(self):
        rev1 = self.git("rev-parse", "--short", "HEAD")
        self.assertEqual(self.start(self.queue("lane.txt", "alpha experiments/e1.json"))[0], 0)
        self.write("core/a.cc", "int a = 3;\n")
        self.commit("code")
        q = self.queue("lane.txt", "alpha experiments/e1.json", "beta experiments/e2.json")
        rc, out = self.start(q)
        self.assertEqual(rc, 2, out)
        self.assertIn(f"pinned to revision {rev1}", out)
        self.assertIn(f"bin/beta-{rev1} is missing", out)
        self.assertIn("REPIN=1", out)
        self.assertEqual(self.ran(), ["v1 experiments/e1.json"])   # nothing more ran

    def test_a_stale_or_modified_build_is_not_pinned_under_heads_revision(self):
        # the real binaries' --version names the revision they were built from ("git <rev>", "+modified")
        rev1 = self.git("rev-parse", "--short=12", "HEAD")
        self.write("core/a.cc", "int a = 4;\n")
        rev2 = self.commit("code")
        q = self.queue("lane.txt", "alpha experiments/e1.json")
        self.build("alpha", f"v1 (twinrnn 0.13.0, git {rev1})")   # build/ not rebuilt since rev1
        rc, out = self.start(q)
        self.assertEqual(rc, 2, out)
        self.assertIn(f"build/bin/alpha is a build of {rev1}, whose build inputs", out)
        self.assertIn("make build", out)
        self.build("alpha", f"v2 (twinrnn 0.13.0, git {rev2}+modified)")
        rc, out = self.start(q)
        self.assertEqual(rc, 2, out)
        self.assertIn(f"build/bin/alpha is a build of {rev2} with uncommitted changes", out)
        self.assertEqual(self.ran(), [])
        self.assertFalse(os.path.exists(os.path.join(self.runs, "bin/pins/lane.rev")))
        # a build of rev2, HEAD a results commit after it: the same code, pinned under HEAD
        self.build("alpha", f"v2 (twinrnn 0.13.0, git {rev2})")
        self.write("results/r.md", "r3\n")
        rev3 = self.commit("results")
        rc, out = self.start(q)
        self.assertEqual(rc, 0, out)
        self.assertIn(f"pinned to revision {rev3}", out)
        self.assertEqual(self.ran(), [f"v2 (twinrnn 0.13.0, git {rev2}) experiments/e1.json"])
        # a task added to that pin later is checked too: beta built from rev1's code is refused
        self.build("beta", f"v1 (twinrnn 0.13.0, git {rev1})")
        rc, out = self.start(self.queue("lane.txt", "alpha experiments/e1.json", "beta experiments/e2.json"))
        self.assertEqual(rc, 2, out)
        self.assertIn(f"build/bin/beta is a build of {rev1}, whose build inputs", out)
        self.assertFalse(os.path.exists(os.path.join(self.runs, f"bin/beta-{rev3}")))
        self.assertEqual(len(self.ran()), 1)

    def test_bad_lines_and_pin_files_are_named_before_anything_runs(self):
        cases = [
            (["alpha experiments/e1.json", "alpha experiments/missing.json"], "lane.txt:2: no experiment file"),
            (["alpha experiments/e1.json", "alpha"], "lane.txt:2: expected 'task experiment.json [flags]'"),
            (["# pin: a/b", "alpha experiments/e1.json"], "lane.txt:1: '# pin:' needs a name"),
            (["gamma experiments/e1.json"], "build/bin/gamma is missing"),
        ]
        for lines, expected in cases:
            with self.subTest(expected=expected):
                rc, out = self.start(self.queue("lane.txt", *lines))
                self.assertEqual(rc, 2, out)
                self.assertIn(expected, out)
                self.assertEqual(self.ran(), [])
                self.assertFalse(os.path.exists(os.path.join(self.runs, "bin/pins/lane.rev")))
        os.makedirs(os.path.join(self.runs, "bin/pins"), exist_ok=True)
        with open(os.path.join(self.runs, "bin/pins/lane.rev"), "w") as f:
            f.write("not a revision\n")
        rc, out = self.start(self.queue("lane.txt", "alpha experiments/e1.json"))
        self.assertEqual(rc, 2, out)
        self.assertIn("lane.rev: expected a git revision", out)
        self.assertEqual(self.ran(), [])


if __name__ == "__main__":
    unittest.main()
