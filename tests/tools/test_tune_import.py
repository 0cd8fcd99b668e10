#!/usr/bin/python3
"""tools/tune.py import (tools/tune_import.py) on the fake task binary of test_tune.py.

A sweep on one machine: a space of two cells, run to its end with seed runs, collected. A new sweep on
another machine imports it: every study comes back with its trials (numbers, slots, parameters, values,
folders) so that export gives back the collected study.json, and `run` starts nothing; importing twice is a
no-op. --replay: a study of another binary is imported only if its shortest trial run again here gives the
committed results (timings apart), and a worker whose environment changes the binary's --version line is
refused. A study not finished when collected is left to run afresh while the finished one is imported and its
trials never run again. Refused, with nothing written to the new sweep: a space whose fingerprint differs,
a study run on another binary, and a sweep folder that already holds the study's folder. A sweep that imported
one space refuses a command naming another whose studies its source folder holds, until that one is imported.

/usr/bin/python3 tests/tools/test_tune_import.py
"""
import contextlib
import gzip
import json
import os
import shutil
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_tune import (Timed, base_space, budget_of, dispose, invocations, make_bin, read_json, scratch,  # noqa: E402
                       studies, tune_main, write_space)
import tune_import  # noqa: E402  (on sys.path from test_tune)

NAMES = ["toy_atr_hidden", "toy_lstm_hidden"]


def trial_rows(study_json):
    return sorted((t["number"], t["state"], t["slot"], t["value"], json.dumps(t["params"], sort_keys=True),
                   json.dumps(t["user_attrs"], sort_keys=True)) for t in study_json["trials"])


def runs_started(sweep):
    """Every invocation of the fake binary in the sweep's run folders (collect keeps no invocations.jsonl, so
    an imported trial folder has none unless it ran again)."""
    out = []
    for root, _, files in os.walk(sweep):
        if "invocations.jsonl" in files:
            out += [(os.path.relpath(root, sweep), i["resume"]) for i in invocations(root)]
    return sorted(out)


def committed_sweep(case, tmp, trials, seeds):
    """A toy space run to its end in <tmp>/first and collected into <tmp>/committed: (bin, space, committed)."""
    bin_dir = make_bin(tmp)
    path = write_space(os.path.join(tmp, "spaces"), "toy", base_space(arms={"hidden": {}}, trials=trials))
    first, committed = os.path.join(tmp, "first"), os.path.join(tmp, "committed")
    with_seeds = ["--seeds", seeds] if seeds else []
    rc, out, err = tune_main("run", path, "--sweep", first, "--bin", bin_dir, "--poll", "0.2", *with_seeds)
    case.assertEqual(rc, 0, out + err)
    rc, out, err = tune_main("collect", path, "--sweep", first, "--bin", bin_dir, "--to", committed, *with_seeds)
    case.assertEqual(rc, 0, out + err)
    return bin_dir, path, committed


class Import(Timed):
    def test_import_a_collected_sweep_then_continue(self):
        with scratch() as tmp:
            bin_dir, path, committed = committed_sweep(self, tmp, 3, "1,2")
            kept = sorted(os.listdir(committed))
            self.assertEqual(kept, sorted(NAMES + [n + "__seeds" for n in NAMES]))

            # Another machine: the committed folder imported into a new sweep; nothing runs again.
            second = os.path.join(tmp, "second")
            rc, out, err = tune_main("import", path, "--sweep", second, "--bin", bin_dir, "--seeds", "1,2",
                                     "--from", committed)
            self.assertEqual(rc, 0, out + err)
            self.assertIn(f"tune: imported 4 studies into {second}", out)
            rc, out, err = tune_main("run", path, "--sweep", second, "--bin", bin_dir, "--seeds", "1,2", "--poll", "0.2")
            self.assertEqual(rc, 0, out + err)
            self.assertNotIn(" started in ", out)
            self.assertEqual(runs_started(second), [])
            rc, out, err = tune_main("export", path, "--sweep", second, "--bin", bin_dir, "--seeds", "1,2")
            self.assertEqual(rc, 0, out + err)
            for name in kept:
                was = read_json(os.path.join(committed, name, "study.json"))
                now = read_json(os.path.join(second, name, "study.json"))
                self.assertEqual(trial_rows(now), trial_rows(was), name)
                self.assertEqual(now["user_attrs"]["imported"]["from"], committed)
                self.assertEqual({k: v for k, v in now["user_attrs"].items() if k != "imported"}, was["user_attrs"])
                for t in now["trials"]:
                    folder = t["user_attrs"].get("folder") or f"{name}/best_s{t['params']['seed']}"
                    self.assertTrue(os.path.isfile(os.path.join(second, folder, "summary.json")), folder)
            # Twice: the studies are there already, nothing changes.
            rc, out, err = tune_main("import", path, "--sweep", second, "--bin", bin_dir, "--seeds", "1,2",
                                     "--from", committed)
            self.assertEqual(rc, 0, out + err)
            self.assertIn("import: toy_atr_hidden is in the storage already; left as it is", out)
            self.assertIn("tune: imported 0 studies", out)

            # A study not finished when collected: the finished one is imported, the other runs afresh.
            partial = os.path.join(tmp, "partial")
            shutil.copytree(committed, partial)
            shutil.rmtree(os.path.join(partial, "toy_lstm_hidden__seeds"))
            shutil.rmtree(os.path.join(partial, "toy_atr_hidden__seeds"))
            lstm = read_json(os.path.join(partial, "toy_lstm_hidden", "study.json"))
            lstm["trials"][1]["state"], lstm["trials"][1]["value"] = "RUNNING", None
            with open(os.path.join(partial, "toy_lstm_hidden", "study.json"), "w") as f:
                json.dump(lstm, f)
            third = os.path.join(tmp, "third")
            rc, out, err = tune_main("import", path, "--sweep", third, "--bin", bin_dir, "--from", partial)
            self.assertEqual(rc, 0, out + err)
            self.assertIn("import: toy_lstm_hidden is not finished (2 of 3 slots); not imported", out)
            self.assertIn("tune: imported 1 studies", out)
            rc, out, err = tune_main("run", path, "--sweep", third, "--bin", bin_dir, "--seeds", "1", "--poll", "0.2")
            self.assertEqual(rc, 0, out + err)
            self.assertEqual(runs_started(third),
                             [("toy_atr_hidden__seeds/best_s1", False), ("toy_lstm_hidden/trial_000", False),
                              ("toy_lstm_hidden/trial_001", False), ("toy_lstm_hidden/trial_002", False),
                              ("toy_lstm_hidden__seeds/best_s1", False)])
            found, storage = studies("", third)
            try:
                self.assertEqual(budget_of(found["toy_atr_hidden"].get_trials()), ([0, 1, 2], {"COMPLETE": 3}))
                # The imported study's best trial is the one the first sweep found.
                self.assertEqual(found["toy_atr_hidden__seeds"].user_attrs["best_slot"],
                                 read_json(os.path.join(committed, "toy_atr_hidden__seeds", "study.json"))
                                 ["user_attrs"]["best_slot"])
            finally:
                dispose(storage)

    def test_an_unfinished_study_goes_on_from_its_finished_trials(self):
        with scratch() as tmp:
            # The whole sweep on one machine: what the slots' parameters and values are when nothing stops it.
            bin_dir, path, whole = committed_sweep(self, tmp, 3, "1")
            # Another sweep stopped after 5 trials (atr's 3 slots and lstm's first 2), collected with its
            # unfinished study (lstm's; atr's seed runs, none run, have nothing to keep); lstm's slot 1 is made to
            # look running when collected (its folder left out).
            first, committed, unfinished = (os.path.join(tmp, n) for n in ("stopped", "committed2", "unfinished"))
            rc, out, err = tune_main("run", path, "--sweep", first, "--bin", bin_dir, "--poll", "0.2",
                                     "--max-trials", "5")
            self.assertEqual(rc, 0, out + err)
            rc, out, err = tune_main("collect", path, "--sweep", first, "--bin", bin_dir, "--to", committed,
                                     "--unfinished-to", unfinished, "--seeds", "1")
            self.assertEqual(rc, 0, out + err)
            self.assertIn(f"not finished, their finished trials copied to {unfinished}: toy_lstm_hidden (2 of 3); "
                          f"not finished, left out: toy_atr_hidden__seeds (0 of 1)", out)
            self.assertEqual(sorted(os.listdir(committed)), ["toy_atr_hidden"])
            self.assertEqual(sorted(os.listdir(unfinished)), ["toy_lstm_hidden"])
            self.assertEqual(sorted(os.listdir(os.path.join(unfinished, "toy_lstm_hidden"))),
                             ["study.json", "trial_000", "trial_001"])
            lstm_json = os.path.join(unfinished, "toy_lstm_hidden", "study.json")
            lstm = read_json(lstm_json)
            one = next(t for t in lstm["trials"] if t["slot"] == 1)
            one["state"], one["value"] = "RUNNING", None
            with open(lstm_json, "w") as f:
                json.dump(lstm, f)
            shutil.rmtree(os.path.join(unfinished, "toy_lstm_hidden", "trial_001"))

            # Without --unfinished-from the unfinished study is left to run afresh (test above); with it:
            second = os.path.join(tmp, "second")
            rc, out, err = tune_main("import", path, "--sweep", second, "--bin", bin_dir, "--seeds", "1",
                                     "--from", committed, "--unfinished-from", unfinished)
            self.assertEqual(rc, 0, out + err)
            self.assertIn("import: toy_lstm_hidden: 4 trials from", out)
            self.assertIn("(unfinished: 1 of 3 slots finished)", out)
            self.assertIn("tune: imported 2 studies", out)
            rc, out, err = tune_main("run", path, "--sweep", second, "--bin", bin_dir, "--seeds", "1", "--poll", "0.2")
            self.assertEqual(rc, 0, out + err)
            # Only lstm's slots 1 and 2 and the seed runs ran; atr's trials and lstm's slot 0 did not.
            self.assertEqual(runs_started(second),
                             [("toy_atr_hidden__seeds/best_s1", False), ("toy_lstm_hidden/trial_001", False), ("toy_lstm_hidden/trial_002", False),
                              ("toy_lstm_hidden__seeds/best_s1", False)])
            rc, out, err = tune_main("export", path, "--sweep", second, "--bin", bin_dir, "--seeds", "1")
            self.assertEqual(rc, 0, out + err)
            now = read_json(os.path.join(second, "toy_lstm_hidden", "study.json"))
            was = read_json(os.path.join(whole, "toy_lstm_hidden", "study.json"))

            def by_slot(study):
                return {t["slot"]: (t["value"], json.dumps(t["params"], sort_keys=True))
                        for t in study["trials"] if t["state"] == "COMPLETE"}
            # Every slot got the parameters and the value it has in the sweep that never stopped.
            self.assertEqual(by_slot(now), by_slot(was))
            states = sorted((t["number"], t["state"], t["slot"], t["retry_history"]) for t in now["trials"])
            self.assertEqual(states, [(0, "COMPLETE", 0, []), (1, "FAIL", 1, []), (2, "COMPLETE", 2, []),
                                      (3, "COMPLETE", 1, [1])])
            self.assertEqual(now["trials"][1]["user_attrs"]["fail_reason"], "interrupted: not finished when collected")
            self.assertEqual(now["user_attrs"]["imported"]["unfinished"], "1 of 3 slots")
            self.assertEqual(read_json(os.path.join(second, "toy_lstm_hidden__seeds", "study.json"))
                             ["user_attrs"]["best_slot"],
                             read_json(os.path.join(whole, "toy_lstm_hidden__seeds", "study.json"))
                             ["user_attrs"]["best_slot"])
            # Collected again, finished: it leaves the unfinished folder for the finished one.
            rc, out, err = tune_main("collect", path, "--sweep", second, "--bin", bin_dir, "--to", committed,
                                     "--unfinished-to", unfinished, "--seeds", "1")
            self.assertEqual(rc, 0, out + err)
            self.assertEqual(os.listdir(unfinished), [])
            self.assertEqual(sorted(os.listdir(committed)), sorted(NAMES + [n + "__seeds" for n in NAMES]))
            # A missing --unfinished-from folder is an error naming it.
            rc, out, err = tune_main("import", path, "--sweep", os.path.join(tmp, "third"), "--bin", bin_dir,
                                     "--from", committed, "--unfinished-from", os.path.join(tmp, "nowhere"))
            self.assertEqual(rc, 1, out + err)
            self.assertIn("--unfinished-from", err)

    def test_refused_with_nothing_written(self):
        with scratch() as tmp:
            bin_dir, path, committed = committed_sweep(self, tmp, 2, "")

            def refused(space_path, src, want, prepare=None):
                sweep = os.path.join(tmp, f"sweep_{time.monotonic_ns()}")
                if prepare:
                    prepare(sweep)
                before = sorted(os.listdir(sweep)) if os.path.isdir(sweep) else []
                rc, out, err = tune_main("import", space_path, "--sweep", sweep, "--bin", bin_dir, "--from", src)
                self.assertEqual(rc, 1, out + err)
                self.assertIn(want, err)
                found, storage = studies("", sweep)
                dispose(storage)
                self.assertEqual(found, {})
                left = sorted(f for f in os.listdir(sweep) if f not in before)
                self.assertEqual([f for f in left if f.startswith("toy_")], [])

            # Another budget under the same names.
            other = write_space(os.path.join(tmp, "other"), "toy", base_space(arms={"hidden": {}}, trials=3))
            refused(other, committed, "made with another space, budget, sampler or arm")
            # Another binary.
            moved = os.path.join(tmp, "moved")
            shutil.copytree(committed, moved)
            s = read_json(os.path.join(moved, "toy_lstm_hidden", "study.json"))
            s["user_attrs"]["binary_version"] = "classify (twinrnn 0.13.0, git fd07b8789deb)"
            with open(os.path.join(moved, "toy_lstm_hidden", "study.json"), "w") as f:
                json.dump(s, f)
            refused(path, moved, "run on binary 'classify (twinrnn 0.13.0, git fd07b8789deb)', but this sweep's")
            # A folder of the study already in the sweep, not in its storage: not overwritten.
            refused(path, committed, "exists but the storage has no study toy_atr_hidden",
                    prepare=lambda sweep: os.makedirs(os.path.join(sweep, "toy_atr_hidden", "trial_000")))
            # No such folder.
            refused(path, os.path.join(tmp, "nowhere"), "--from")

    def test_a_space_not_imported_is_not_started_afresh(self):
        # Two spaces run and collected; a new sweep imports one. Any command naming the other (run, status) is
        # refused before it creates a study, until that space is imported too; a space whose studies the
        # source holds with another fingerprint is a new study and runs.
        with scratch() as tmp:
            bin_dir = make_bin(tmp)
            d = os.path.join(tmp, "spaces")
            one = write_space(d, "toy", base_space(arms={"hidden": {}}, trials=2))
            two = write_space(d, "duo", base_space(arms={"hidden": {}}, trials=2))
            first, committed = os.path.join(tmp, "first"), os.path.join(tmp, "committed")
            for cmd in (["run", "--poll", "0.2"], ["collect", "--to", committed]):
                rc, out, err = tune_main(cmd[0], one, two, "--sweep", first, "--bin", bin_dir, *cmd[1:])
                self.assertEqual(rc, 0, out + err)
            second = os.path.join(tmp, "second")
            rc, out, err = tune_main("import", one, "--sweep", second, "--bin", bin_dir, "--from", committed)
            self.assertEqual(rc, 0, out + err)
            self.assertEqual(read_json(os.path.join(second, "imports.json")),
                             [{"from": os.path.realpath(committed), "unfinished_from": None}])
            for cmd in (["status"], ["run", "--poll", "0.2"]):
                rc, out, err = tune_main(cmd[0], one, two, "--sweep", second, "--bin", bin_dir, *cmd[1:])
                self.assertEqual(rc, 2, out + err)
                self.assertIn("2 studies of these spaces are not in this sweep but in a folder it imported from", err)
                self.assertIn(os.path.join(os.path.realpath(committed), "duo_atr_hidden"), err)
                self.assertIn(f"import them first (tools/tune.py import {two} --sweep {second}", err)
                found, storage = studies("", second)
                dispose(storage)
                self.assertEqual(sorted(found), ["toy_atr_hidden", "toy_lstm_hidden"])
            self.assertEqual(runs_started(second), [])
            # A file import did not write: an error naming it, nothing created.
            sources = os.path.join(second, "imports.json")
            with open(sources) as f:
                kept = f.read()
            for bad in ("[{", '{"from": "x"}'):
                with open(sources, "w") as f:
                    f.write(bad)
                rc, out, err = tune_main("run", one, two, "--sweep", second, "--bin", bin_dir, "--poll", "0.2")
                self.assertEqual(rc, 2, out + err)
                self.assertIn(f"tune: error: {sources}: ", err)
                self.assertIn("as import writes it", err)
            with open(sources, "w") as f:
                f.write(kept)
            self.assertEqual(runs_started(second), [])
            rc, out, err = tune_main("import", two, "--sweep", second, "--bin", bin_dir, "--from", committed)
            self.assertEqual(rc, 0, out + err)
            self.assertIn("tune: imported 2 studies", out)
            self.assertEqual(len(read_json(os.path.join(second, "imports.json"))), 1)   # the same folder once
            rc, out, err = tune_main("run", one, two, "--sweep", second, "--bin", bin_dir, "--poll", "0.2")
            self.assertEqual(rc, 0, out + err)
            self.assertEqual(runs_started(second), [])
            # Another budget under the same names: not the committed study, so it starts (in a third sweep).
            third = os.path.join(tmp, "third")
            rc, out, err = tune_main("import", one, "--sweep", third, "--bin", bin_dir, "--from", committed)
            self.assertEqual(rc, 0, out + err)
            other = write_space(os.path.join(tmp, "other"), "duo", base_space(arms={"hidden": {}}, trials=1))
            rc, out, err = tune_main("run", one, other, "--sweep", third, "--bin", bin_dir, "--poll", "0.2")
            self.assertEqual(rc, 0, out + err)
            self.assertEqual(runs_started(third), [("duo_atr_hidden/trial_000", False),
                                                   ("duo_lstm_hidden/trial_000", False)])


@contextlib.contextmanager
def environment(**env):
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


class Replay(Timed):
    def test_another_binary_imported_only_if_a_trial_gives_the_same_results(self):
        with scratch() as tmp:
            bin_dir, path, committed = committed_sweep(self, tmp, 2, "1")
            old = "classify (fake twinrnn for test_tune.py, git 0000000)"
            new = "classify (fake twinrnn for test_tune.py, git 0000000), other kernels"

            def empty(sweep):
                found, storage = studies("", sweep)
                dispose(storage)
                return found == {} and not [f for f in os.listdir(sweep) if f.startswith("toy_")]

            with environment(TWIN_FAKE_VERSION=new):
                plain = os.path.join(tmp, "plain")
                rc, out, err = tune_main("import", path, "--sweep", plain, "--bin", bin_dir, "--from", committed)
                self.assertEqual(rc, 1, out + err)
                self.assertIn(f"run on binary {old!r}, but this sweep's classify binary is {new!r}", err)
                self.assertTrue(empty(plain))
                # Rounded otherwise on this binary: refused after the replay, nothing imported.
                with environment(TWIN_FAKE_SKEW="1e-7"):
                    skewed = os.path.join(tmp, "skewed")
                    rc, out, err = tune_main("import", path, "--sweep", skewed, "--bin", bin_dir, "--from", committed,
                                             "--replay")
                    self.assertEqual(rc, 1, out + err)
                    self.assertIn("does not give the committed results (metrics.jsonl record 1 differs in ['accuracy']",
                                  err)
                    self.assertTrue(empty(skewed))
                # The same results (wall-clock keys apart): imported, the new line recorded with the evidence.
                second = os.path.join(tmp, "second")
                rc, out, err = tune_main("import", path, "--sweep", second, "--bin", bin_dir, "--from", committed,
                                         "--replay", "--seeds", "1")
                self.assertEqual(rc, 0, out + err)
                self.assertIn("tune: imported 4 studies", out)
                found, storage = studies("", second)
                try:
                    for name in NAMES:
                        ua = found[name].user_attrs
                        self.assertEqual(ua["binary_version"], new)
                        self.assertEqual((ua["replayed"]["binary_version_was"], ua["replayed"]["equal"]),
                                         (old, ["metrics.jsonl (3 records, timings left out)"]))
                        slot = ua["replayed"]["slot"]
                        self.assertTrue(os.path.isfile(os.path.join(second, ".replay", name, f"trial_{slot:03d}",
                                                                    "summary.json")))
                        self.assertEqual(found[name + "__seeds"].user_attrs["replayed"], ua["replayed"])
                finally:
                    dispose(storage)
                rc, out, err = tune_main("run", path, "--sweep", second, "--bin", bin_dir, "--seeds", "1", "--poll", "0.2")
                self.assertEqual(rc, 0, out + err)
                self.assertEqual(runs_started(second), [(f".replay/{n}/trial_000", False) for n in NAMES])
            # A worker whose environment routes otherwise than the sweep's pinned binary is refused.
            rc, out, err = tune_main("run", path, "--sweep", second, "--bin", bin_dir, "--poll", "0.2")
            self.assertEqual(rc, 1, out + err)
            self.assertIn(f"--version in this environment prints [{old!r}], but the sweep pinned it as {new!r}", err)

    def test_replays_at_once_import_what_one_at_a_time_does(self):
        """--jobs 2: the replays run side by side, and the sweep imported is the one --jobs 1 imports (the same
        trials, the same evidence); a skewed binary is refused with the same message, nothing written."""
        with scratch() as tmp:
            bin_dir, path, committed = committed_sweep(self, tmp, 2, "1")
            with environment(TWIN_FAKE_VERSION="classify (fake twinrnn for test_tune.py, git 0000000), other kernels"):
                got = {}
                for jobs in ("1", "2"):
                    sweep = os.path.join(tmp, f"jobs{jobs}")
                    rc, out, err = tune_main("import", path, "--sweep", sweep, "--bin", bin_dir, "--from", committed,
                                             "--replay", "--seeds", "1", "--jobs", jobs)
                    self.assertEqual(rc, 0, out + err)
                    self.assertEqual(sorted(os.listdir(os.path.join(sweep, ".replay"))), NAMES)
                    found, storage = studies("", sweep)
                    try:
                        got[jobs] = {n: (sorted((t.number, t.state.name, t.value) for t in s.trials),
                                         s.user_attrs["replayed"]) for n, s in found.items()}
                    finally:
                        dispose(storage)
                self.assertEqual(len(got["2"]), 4)
                self.assertEqual(got["1"], got["2"])
                errs = []
                with environment(TWIN_FAKE_SKEW="1e-7"):
                    for jobs in ("1", "2"):
                        sweep = os.path.join(tmp, f"skewed{jobs}")
                        rc, out, err = tune_main("import", path, "--sweep", sweep, "--bin", bin_dir, "--from",
                                                 committed, "--replay", "--jobs", jobs)
                        self.assertEqual(rc, 1, out + err)
                        self.assertFalse([f for f in os.listdir(sweep) if f.startswith("toy_")])
                        errs.append(err.strip().splitlines()[-1])
                self.assertIn("toy_atr_hidden: its trial slot", errs[0])
                self.assertEqual(errs[0], errs[1])
            rc, out, err = tune_main("import", path, "--sweep", os.path.join(tmp, "none"), "--bin", bin_dir,
                                     "--from", committed, "--replay", "--jobs", "0")
            self.assertEqual((rc, err.strip()), (2, "tune: error: --jobs is a number of replays at once, >= 1"))

    def test_replay_of_the_first_epochs_compares_their_records(self):
        """--replay-epochs 1: the shortest trial runs again with train.max_epochs=1 and its one record is compared
        with the committed trial's first; a binary that rounds otherwise is still refused; a cap at or past the
        trial's epochs replays the whole trial."""
        with scratch() as tmp:
            bin_dir, path, committed = committed_sweep(self, tmp, 2, "1")
            with environment(TWIN_FAKE_VERSION="classify (fake twinrnn for test_tune.py, git 0000000), other kernels"):
                with environment(TWIN_FAKE_SKEW="1e-7"):
                    skewed = os.path.join(tmp, "skewed")
                    rc, out, err = tune_main("import", path, "--sweep", skewed, "--bin", bin_dir, "--from", committed,
                                             "--replay", "--replay-epochs", "1")
                    self.assertEqual(rc, 1, out + err)
                    self.assertIn("does not give the committed results (metrics.jsonl record 1 differs in ['accuracy']",
                                  err)
                    self.assertFalse([f for f in os.listdir(skewed) if f.startswith("toy_")])
                for first, compared, cap in ((1, "metrics.jsonl (epochs 1 to 1: 1 of 3 records, timings left out; "
                                                 "kept outputs not compared)", "1"),
                                             (3, "metrics.jsonl (3 records, timings left out)", "3")):
                    sweep = os.path.join(tmp, f"first{first}")
                    rc, out, err = tune_main("import", path, "--sweep", sweep, "--bin", bin_dir, "--from", committed,
                                             "--replay", "--replay-epochs", str(first), "--seeds", "1")
                    self.assertEqual(rc, 0, out + err)
                    found, storage = studies("", sweep)
                    try:
                        for name in NAMES:
                            replayed = found[name].user_attrs["replayed"]
                            self.assertEqual((replayed["equal"], replayed["epochs"]), ([compared], first))
                            run = os.path.join(sweep, ".replay", name, f"trial_{replayed['slot']:03d}")
                            argv = [i["argv"] for i in invocations(run)]
                            self.assertEqual(len(argv), 1)
                            self.assertEqual([a for a in argv[0] if a.startswith("train.max_epochs=")],
                                             [f"train.max_epochs={cap}"])
                    finally:
                        dispose(storage)
            rc, out, err = tune_main("import", path, "--sweep", os.path.join(tmp, "none"), "--bin", bin_dir,
                                     "--from", committed, "--replay", "--replay-epochs", "-1")
            self.assertEqual((rc, err.strip()),
                             (2, "tune: error: --replay-epochs is a number of epochs >= 1 (0: the whole trial)"))

    def test_same_results_of_the_first_epochs(self):
        with scratch() as tmp:
            was, now = os.path.join(tmp, "was"), os.path.join(tmp, "now")
            for d, epochs in ((was, 3), (now, 1)):
                os.makedirs(os.path.join(d, "predictions"))
                with open(os.path.join(d, "predictions", "dev.txt"), "w") as f:
                    f.write(f"{epochs}\n")   # the best epoch's outputs: not comparable
                with open(os.path.join(d, "metrics.jsonl"), "w") as f:
                    for ep in range(1, epochs + 1):
                        f.write(json.dumps({"split": "train", "epoch": ep, "loss": 1.0 / ep,
                                            "elapsed_s": len(d)}) + "\n")
                        f.write(json.dumps({"split": "dev", "epoch": ep, "accuracy": 0.5 + ep / 10}) + "\n")
            self.assertEqual(tune_import.same_results(was, now, 1),
                             (None, ["metrics.jsonl (epochs 1 to 1: 2 of 6 records, timings left out; "
                                     "kept outputs not compared)"]))
            self.assertEqual(tune_import.same_results(was, now)[0], "metrics.jsonl has 2 records, the committed run 6")
            self.assertEqual(tune_import.same_results(was, now, 2)[0],
                             "metrics.jsonl has 2 records, the committed run 4")
            with open(os.path.join(now, "metrics.jsonl"), "w") as f:
                f.write(json.dumps({"split": "train", "epoch": 1, "loss": 1.0}) + "\n")
                f.write(json.dumps({"split": "dev", "epoch": 1, "accuracy": 0.61}) + "\n")
            self.assertEqual(tune_import.same_results(was, now, 1)[0],
                             "metrics.jsonl record 2 differs in ['accuracy']: [0.6] vs [0.61]")
            for d in (was, now):   # records without epochs (say, step-counted evaluations): nothing to compare
                with open(os.path.join(d, "metrics.jsonl"), "w") as f:
                    f.write(json.dumps({"split": "dev", "step": 1000, "f1": 0.5}) + "\n")
            self.assertEqual(tune_import.same_results(was, now, 1)[0],
                             "the committed run has no metrics.jsonl record with an epoch from 1 to 1")

    def test_same_results_compares_outputs_byte_for_byte(self):
        with scratch() as tmp:
            was, now = os.path.join(tmp, "was"), os.path.join(tmp, "now")
            for d in (was, now):
                os.makedirs(os.path.join(d, "predictions"))
                with open(os.path.join(d, "metrics.jsonl"), "w") as f:
                    f.write(json.dumps({"split": "dev", "accuracy": 0.5, "elapsed_s": len(d),
                                        "sentences_per_s": len(d) * 3.0}) + "\n")
            with gzip.GzipFile(os.path.join(was, "predictions", "dev.txt.gz"), "wb", mtime=0) as f:
                f.write(b"1\n0\n")
            with open(os.path.join(was, "predictions", "test.txt"), "wb") as f:
                f.write(b"0\n")
            with open(os.path.join(now, "predictions", "dev.txt"), "wb") as f:
                f.write(b"1\n0\n")
            with open(os.path.join(now, "predictions", "test.txt"), "wb") as f:
                f.write(b"0\n")
            self.assertEqual(tune_import.same_results(was, now),
                             (None, ["metrics.jsonl (1 records, timings left out)", "predictions/dev.txt",
                                     "predictions/test.txt"]))
            with open(os.path.join(now, "predictions", "test.txt"), "wb") as f:
                f.write(b"1\n")
            self.assertEqual(tune_import.same_results(was, now)[0], "predictions/test.txt differs")
            os.remove(os.path.join(now, "predictions", "dev.txt"))
            self.assertEqual(tune_import.same_results(was, now)[0], "predictions/dev.txt differs")
            with open(os.path.join(now, "metrics.jsonl"), "a") as f:
                f.write("{}\n")
            self.assertEqual(tune_import.same_results(was, now)[0],
                             "metrics.jsonl has 2 records, the committed run 1")


if __name__ == "__main__":
    t0 = time.time()
    result = unittest.main(exit=False, verbosity=2).result
    print(f"test_tune_import.py: {time.time() - t0:.1f} s", flush=True)
    sys.exit(0 if result.wasSuccessful() else 1)
