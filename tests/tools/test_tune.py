#!/usr/bin/python3
"""tools/tune.py (the equal-budget tuner, issue 51) end to end on a fake task binary: a small Python script
written into a temporary bin/classify that answers --print-keys, --version, --print-config, --print-params and
trains by sleeping, with a dev accuracy that is a known function of its resolved config (dev_accuracy below).

  SQLite: every study of a space (2 cells) gets exactly its `trials` COMPLETE trials, one per slot,
    each in trial_<slot>/ with trial.json, its value dev_accuracy(its config); the cells draw the same shared
    values at the same slot; --seeds runs the best trial again per seed; status and export; a second run
    starts nothing; another space under the same study names is refused; the parameter-matched arm's hidden
    size is the one the fake's parameter count gives; a space the task refuses fails before any trial.
  PostgreSQL (a throw-away server on a Unix socket, no TCP; skipped without initdb or root): two workers at
    once on one study of 6 slots, and its seed runs: every slot run exactly once, none lost, none twice.
  Interrupted workers: a worker and its run SIGKILLed mid-trial, another stopped by SIGTERM; the next worker
    marks each trial FAIL ("interrupted: ..."), runs its slot again with the same parameters and resumes the
    slot's run folder; finished trials stay as they were; the budget counts COMPLETE trials only.
  tune_study on its own: a trial claimed but never started (no pid, no heartbeat) and a trial of another
    machine without heartbeat are interrupted; a live worker on this host is not, whatever its heartbeat.

/usr/bin/python3 tests/tools/test_tune.py
"""
import contextlib
import glob
import importlib.util
import io
import json
import math
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import tune as tune_cli  # noqa: E402
import tune_study  # noqa: E402
from optuna.trial import TrialState  # noqa: E402

PY = "/usr/bin/python3"
TUNE = os.path.join(ROOT, "tools", "tune.py")
TIMEOUT_S = 120   # any one tune.py call; a hang fails the test instead of stalling ctest
# Temporary folders in memory where there is /dev/shm: SQLite's commits (a dozen per trial) then cost no
# disk flush, which on a busy machine halves the time of every trial.
SCRATCH = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None


def scratch():
    return tempfile.TemporaryDirectory(prefix="twin_test_tune_", dir=SCRATCH)

# The fake task's keys: (key, type, default, allowed). Printed by --print-keys, resolved by --print-config.
KEYS = [
    ("seed", "int", 1, "[0, 2^64-1]"),
    ("out_dir", "string", "", ""),
    ("data.dir", "string", None, ""),
    ("train.max_epochs", "int", 10, "[1, 100000]"),
    ("train.patience", "int", 0, "[0, 1000]"),
    ("train.batch_size", "int", 32, "[1, 100000]"),
    ("train.optim.lr", "number", 1.0, "[0.0, 1000.0]"),
    ("model.hidden", "int", 8, "[1, 65536]"),
    ("model.embed", "int", 16, "[1, 65536]"),
    ("model.dropout", "number", 0.5, "[0.0, 0.99]"),
    ("model.init_scale", "number", 0.08, "[0.0, 10.0]"),
    ("model.cell.type", "string", "atr", ""),
    ("model.cell.hidden", "int", 0, "[0, 65536]"),
    ("model.cell.init_scale", "number", 0.08, "[0.0, 10.0]"),
    ("model.cell.bias", "choice", "default", "default | none | input | recurrent | both"),
    ("model.cell.forget_bias", "number", 0.0, "[-100.0, 100.0]"),
    ("model.cell.gru_reset_after", "bool", True, "true | false"),
]
DEFAULTS = {k: d for k, _, d, _ in KEYS}
GATES = {"atr": 2, "gru": 3, "lstm": 4}

# Shared by the fake binary (its summary) and the test (what the value must be).
F_SOURCE = '''
def dev_accuracy(c):
    """The fake task's dev accuracy: a deterministic function of the resolved config."""
    hidden = c["model.cell.hidden"] or c["model.hidden"]
    return (0.8 - 0.05 * abs(math.log10(c["train.optim.lr"]) + 2.5) - 0.1 * abs(c["model.dropout"] - 0.3)
            - 0.02 * abs(math.log10(c["model.init_scale"] / 0.05)) + 0.0001 * c["train.batch_size"]
            + {"atr": 0.01, "gru": 0.005}.get(c["model.cell.type"], 0.0) + 0.001 * (hidden % 5)
            + 0.002 * (c["model.cell.bias"] == "both") + 0.003 * c["model.cell.forget_bias"]
            + 0.0001 * (c["seed"] % 7))
'''
_ns = {"math": math}
exec(F_SOURCE, _ns)
dev_accuracy = _ns["dev_accuracy"]

FAKE = r'''#!/usr/bin/python3 -IS
"""A fake `classify` for tests/tools/test_tune.py: the suite's command line, just enough for tools/tune.py.
Every run appends {argv, resume, pid} to OUT/invocations.jsonl, and its pid to OUT/training.txt once it has
saved its first checkpoint and handles SIGTERM. It trains by sleeping TWIN_FAKE_SLEEP seconds
(or the seconds TWIN_FAKE_SLEEP_FOR maps its folder's name to: {"trial_001": 60}); SIGTERM saves and exits 130."""
import json
import math
import os
import signal
import sys
import time

KEYS = __KEYS__
GATES = __GATES__
__F__


def fail(msg):
    sys.stderr.write("classify: error: " + msg + "\n")
    sys.exit(2)


def nested(flat):
    out = {}
    for k, v in flat.items():
        d = out
        parts = k.split(".")
        for p in parts[:-1]:
            d = d.setdefault(p, {})
        d[parts[-1]] = v
    return out


def flatten(obj, prefix=""):
    out = {}
    for k, v in obj.items():
        if isinstance(v, dict):
            out.update(flatten(v, prefix + k + "."))
        else:
            out[prefix + k] = v
    return out


def check(where, key, v):
    row = {k: (t, a) for k, t, _, a in KEYS}.get(key)
    if row is None:
        fail('%s: unknown key "%s"' % (where, key))
    t, allowed = row
    ok = {"int": isinstance(v, int) and not isinstance(v, bool),
          "number": isinstance(v, (int, float)) and not isinstance(v, bool),
          "bool": isinstance(v, bool), "string": isinstance(v, str),
          "choice": isinstance(v, str) and v in [a.strip() for a in allowed.split("|")]}[t]
    if not ok:
        fail('%s: "%s" must be of type %s (allowed: %s), got %s' % (where, key, t, allowed, json.dumps(v)))
    if t in ("int", "number") and allowed:
        lo, hi = (float(x.replace("2^64-1", "1.8e19")) for x in allowed.strip("[]").split(","))
        if not lo <= v <= hi:
            fail('%s: "%s" must be in %s, got %s' % (where, key, allowed, v))


def main(argv):
    if argv == ["--print-keys"]:
        print(json.dumps([{"key": k, "type": t, "default": d, "allowed": a, "doc": "fake " + k,
                           "required": d is None} for k, t, d, a in KEYS]))
        return 0
    if argv == ["--version"]:
        print(os.environ.get("TWIN_FAKE_VERSION", "classify (fake twinrnn for test_tune.py, git 0000000)"))
        return 0
    exp, sets, flags = None, [], set()
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--set", "--threads"):
            if i + 1 >= len(argv):
                fail(a + " needs a value")
            if a == "--set":
                sets.append(argv[i + 1])
            i += 2
            continue
        if a.startswith("--"):
            flags.add(a)
        elif exp is None:
            exp = a
        else:
            fail("two experiment files: %s and %s" % (exp, a))
        i += 1
    if exp is None:
        fail("no experiment file given")
    cfg = {k: d for k, _, d, _ in KEYS}
    with open(exp) as f:
        for k, v in flatten(json.load(f)).items():
            check(exp, k, v)
            cfg[k] = v
    for s in sets:
        k, _, text = s.partition("=")
        try:
            v = json.loads(text)
        except ValueError:
            v = text
        check("--set " + s, k, v)
        cfg[k] = v
    if cfg["data.dir"] is None:
        fail('%s: "data.dir" is required' % exp)
    ctype = cfg["model.cell.type"]
    if ctype not in GATES:
        fail('"model.cell.type": no cell "%s"' % ctype)
    if ctype != "atr" and cfg["model.cell.bias"] not in ("default", "none"):
        fail('"model.cell.bias" %s is for atr; the %s cell takes default or none' % (cfg["model.cell.bias"], ctype))
    if "--print-config" in flags:
        print(json.dumps(nested(cfg), indent=2))
        return 0
    hidden = cfg["model.cell.hidden"] or cfg["model.hidden"]
    if "--print-params" in flags:
        g, e = GATES[ctype], cfg["model.embed"]
        rows = [("cls/embed/E", 100, e), ("cls/fwd/%s/W" % ctype, e, g * hidden),
                ("cls/fwd/%s/U" % ctype, hidden, g * hidden), ("cls/fwd/%s/b" % ctype, 1, g * hidden),
                ("cls/out/W", hidden, 2)]
        params = [{"name": n, "rows": r, "cols": c, "count": r * c} for n, r, c in rows]
        print(json.dumps({"total": sum(p["count"] for p in params), "params": params}))
        return 0
    out = cfg["out_dir"]
    if not out:
        fail("no out_dir")
    os.makedirs(out, exist_ok=True)
    resume = "--resume" in flags
    with open(os.path.join(out, "invocations.jsonl"), "a") as f:
        f.write(json.dumps({"argv": argv, "resume": resume, "pid": os.getpid()}) + "\n")
    ckpt = os.path.join(out, "checkpoint.last.bin")
    if resume and not os.path.exists(ckpt):
        fail("--resume: no checkpoint at " + ckpt)
    if not resume and os.path.exists(ckpt):
        fail("run folder %s already holds a run; continue it with --resume" % out)
    if resume:
        with open(os.path.join(out, "resumed.txt"), "a") as f:
            f.write("resumed\n")
    with open(os.path.join(out, "config.resolved.json"), "w") as f:
        json.dump(nested(cfg), f, indent=2)
    with open(ckpt, "wb") as f:
        f.write(b"fake checkpoint, epoch 0\n")

    def on_term(signum, frame):
        with open(ckpt, "wb") as f:
            f.write(b"fake checkpoint, stopped by a signal\n")
        sys.stderr.write("stopped by signal %d; saved %s (continue with --resume)\n" % (signum, ckpt))
        os._exit(130)
    signal.signal(signal.SIGTERM, on_term)
    with open(os.path.join(out, "training.txt"), "a") as f:   # from here on a SIGTERM saves and exits 130
        f.write("%d\n" % os.getpid())
    seconds = float(os.environ.get("TWIN_FAKE_SLEEP", "0") or 0)
    seconds = json.loads(os.environ.get("TWIN_FAKE_SLEEP_FOR", "{}")).get(os.path.basename(out.rstrip("/")), seconds)
    end = time.time() + seconds
    while time.time() < end:
        time.sleep(min(0.05, max(0.0, end - time.time())))
    if os.path.basename(out.rstrip("/")) in json.loads(os.environ.get("TWIN_FAKE_DIVERGE", "[]")):
        # A run that diverges: a very good dev score first, then a non-finite loss (exit 3, no summary.json).
        with open(os.path.join(out, "metrics.jsonl"), "a") as f:
            f.write(json.dumps({"split": "dev", "epoch": 1, "accuracy": 0.999, "elapsed_s": 1.0}) + "\n")
        sys.stderr.write("non-finite loss at step 7: stopping\n")
        return 3
    acc = dev_accuracy(cfg) + float(os.environ.get("TWIN_FAKE_SKEW", "0"))   # other kernels' rounding
    epochs = cfg["train.max_epochs"]
    with open(os.path.join(out, "metrics.jsonl"), "a") as f:
        for ep in range(1, epochs + 1):   # rises to acc by epoch 3, whatever the cap (as a real run's records)
            f.write(json.dumps({"split": "dev", "epoch": ep, "accuracy": acc - 0.01 * max(0, 3 - ep),
                                "elapsed_s": time.time() % 1000}) + "\n")
    with open(os.path.join(out, "model.best.bin"), "wb") as f:
        f.write(b"fake model\n")
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump({"best_dev": {"accuracy": acc}, "stop_reason": "early_stop", "epochs_done": epochs,
                   "test": {"accuracy": acc - 0.02}}, f)
    return 0


sys.exit(main(sys.argv[1:]))
'''


def make_bin(tmp):
    """<tmp>/bin/classify, the fake task binary."""
    d = os.path.join(tmp, "bin")
    os.makedirs(d)
    path = os.path.join(d, "classify")
    with open(path, "w") as f:
        f.write(FAKE.replace("__KEYS__", repr(KEYS)).replace("__GATES__", repr(GATES)).replace("__F__", F_SOURCE))
    os.chmod(path, 0o755)
    return d


def base_space(**over):
    space = {
        "task": "classify", "experiment": "exp.json", "protocol": "fake", "metric": "accuracy", "trials": 3,
        "sampler": {"name": "random", "seed": 7},
        "fixed": {"train.max_epochs": 3},
        "space": {"train.optim.lr": {"log_range": [1e-4, 1e-2]}, "model.dropout": {"range": [0.0, 0.6]},
                  "model.init_scale": {"log_range": [0.01, 0.3], "also": ["model.cell.init_scale"]},
                  "train.batch_size": {"range": [8, 64], "int": True}},
        "cells": {"atr": {"set": {"model.cell.type": "atr"},
                          "space": {"model.cell.bias": {"choices": ["input", "both"]}}},
                  "lstm": {"set": {"model.cell.type": "lstm"},
                           "space": {"model.cell.forget_bias": {"choices": [0.0, 1.0]}}}},
        "arms": {"hidden": {}, "params": {"match": "lstm", "hidden_key": "model.cell.hidden", "tolerance": 0.05}},
    }
    space.update(over)
    return space


def write_space(d, name, space):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "exp.json"), "w") as f:
        json.dump({"data": {"dir": "data"}, "model": {"hidden": 8}}, f)
    path = os.path.join(d, name + ".json")
    with open(path, "w") as f:
        json.dump(space, f, indent=1)
    return path


def tune(*args, env=None):
    """tools/tune.py ARGS to its end: (exit code, stdout, stderr)."""
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run([PY, TUNE] + list(args), capture_output=True, text=True, timeout=TIMEOUT_S, env=e,
                       cwd=ROOT)
    return r.returncode, r.stdout, r.stderr


def tune_main(*args):
    """tune.py's main() in this process (no second Optuna import: seconds on a busy machine)."""
    out, err = io.StringIO(), io.StringIO()
    handlers = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = tune_cli.main(list(args))
    finally:
        for s, h in handlers.items():   # `run` installs the worker's
            signal.signal(s, h)
    return rc, out.getvalue(), err.getvalue()


def start_worker(args, env, log_path):
    """A tune.py worker in its own session (its process group holds it and its runs), output to log_path."""
    e = dict(os.environ)
    e.update(env)
    out = open(log_path, "w")
    p = subprocess.Popen([PY, TUNE] + list(args), stdout=out, stderr=subprocess.STDOUT, env=e, cwd=ROOT,
                         start_new_session=True)
    out.close()
    return p


def stop_group(p):
    """Kills a worker started by start_worker that is still there, and everything in its process group. Only
    while it is not reaped: the group's id is then still ours (a reaped worker's pid may be anyone's)."""
    if p.poll() is None:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait(timeout=30)


def wait_for(pred, what, timeout=60.0):
    end = time.time() + timeout
    while time.time() < end:
        if pred():
            return
        time.sleep(0.05)
    raise AssertionError("timed out waiting for " + what)


def invocations(folder):
    path = os.path.join(folder, "invocations.jsonl")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def training(folder):
    """How many runs in `folder` got as far as training (checkpoint saved, SIGTERM handled)."""
    path = os.path.join(folder, "training.txt")
    if not os.path.exists(path):
        return 0
    with open(path) as f:
        return len(f.read().split())


def read_json(path):
    with open(path) as f:
        return json.load(f)


def studies(url, sweep):
    """{name: optuna Study} of every study in the storage, and the storage (dispose it)."""
    storage = tune_study.storage_for(url, sweep)
    out = {}
    for s in tune_study.optuna.get_all_study_summaries(storage):
        out[s.study_name] = tune_study.optuna.load_study(study_name=s.study_name, storage=storage)
    return out, storage


def dispose(storage):
    storage.remove_session()
    storage.engine.dispose()


def flat_config(space, cell, extra, params):
    """The resolved config of a trial, worked out from the space file alone (not from what tune.py wrote)."""
    c = dict(DEFAULTS, **{"data.dir": "data", "model.hidden": 8})
    c.update(space["fixed"])
    c.update(space["cells"][cell]["set"])
    c.update(extra)
    c.update(params)
    for k, e in {**space["space"], **space["cells"][cell].get("space", {})}.items():
        for other in e.get("also", []):
            c[other] = params[k]
    return c


def budget_of(trials):
    """(COMPLETE slots in order, counts by state)."""
    by = {}
    for t in trials:
        by[t.state.name] = by.get(t.state.name, 0) + 1
    return sorted(t.system_attrs[tune_study.SLOT] for t in trials if t.state == TrialState.COMPLETE), by


class Timed(unittest.TestCase):
    """Prints each test's wall time (the file must stay well under two minutes on a busy two-core machine)."""

    def setUp(self):
        self._t0 = time.time()

    def tearDown(self):
        print(f"  [{self._testMethodName}: {time.time() - self._t0:.1f} s]", file=sys.stderr, flush=True)


class SqliteEndToEnd(Timed):
    def test_studies_budget_shared_draws_seeds_status_export(self):
        with scratch() as tmp:
            bin_dir = make_bin(tmp)
            sp = base_space(arms={"hidden": {}})
            path = write_space(os.path.join(tmp, "spaces"), "toy", sp)
            sweep = os.path.join(tmp, "sweep")
            names = ["toy_atr_hidden", "toy_lstm_hidden"]

            rc, out, err = tune("check", path, "--bin", bin_dir)
            self.assertEqual(rc, 0, err)
            self.assertEqual(out.splitlines(), [f"{n}: 3 trials, 5 searched keys" for n in names])

            rc, out, err = tune("run", path, "--sweep", sweep, "--bin", bin_dir, "--seeds", "1,2", "--poll", "0.2")
            self.assertEqual(rc, 0, out + err)
            self.assertIn("nothing left to claim", out)
            pins = read_json(os.path.join(sweep, "binaries.json"))
            self.assertEqual(pins["classify"]["version"], "classify (fake twinrnn for test_tune.py, git 0000000)")
            self.assertTrue(os.path.basename(pins["classify"]["path"]).startswith("classify-"))

            found, storage = studies("", sweep)
            try:
                self.assertEqual(sorted(found), sorted(names + [n + "__seeds" for n in names]))
                self.assertIsNone(found["toy_atr_hidden"].user_attrs["matched"])
                draws = {}
                for name in names:
                    cell = name.split("_")[1]
                    trials = found[name].get_trials()
                    slots, by = budget_of(trials)
                    self.assertEqual((slots, by), ([0, 1, 2], {"COMPLETE": 3}), name)   # exactly the budget
                    for t in trials:
                        slot = t.system_attrs[tune_study.SLOT]
                        folder = os.path.join(sweep, name, f"trial_{slot:03d}")
                        self.assertEqual(t.user_attrs["folder"], f"{name}/trial_{slot:03d}")
                        rec = read_json(os.path.join(folder, "trial.json"))
                        self.assertEqual((rec["slot"], rec["state"], rec["params"]), (slot, "COMPLETE", t.params))
                        want = dev_accuracy(flat_config(sp, cell, {}, t.params))
                        self.assertEqual(t.value, want)
                        self.assertEqual(rec["value"], want)
                        self.assertEqual([i["resume"] for i in invocations(folder)], [False])   # run once
                        self.assertEqual(t.user_attrs["stop_reason"], "early_stop")
                        self.assertEqual(rec["test"], want - 0.02)
                        shared = {k: v for k, v in t.params.items() if k in sp["space"]}
                        self.assertEqual(sorted(shared), sorted(sp["space"]))
                        draws.setdefault(slot, []).append((name, shared))
                        self.assertIn("model.cell.init_scale=%r" % t.params["model.init_scale"], rec["command"])
                    self.assertEqual(sorted(os.listdir(os.path.join(sweep, name))),
                                     ["trial_000", "trial_001", "trial_002"])
                # The sampler is seeded per slot: every cell drew the same shared values at slot k, and the
                # slots drew different ones.
                for slot, rows in draws.items():
                    self.assertEqual(len(rows), 2)
                    for name, shared in rows[1:]:
                        self.assertEqual(shared, rows[0][1], f"slot {slot}: {name} vs {rows[0][0]}")
                self.assertEqual(len({json.dumps(draws[k][0][1], sort_keys=True) for k in draws}), 3)
                # ... by Optuna's random sampler with seed (sampler seed * 1000003 + slot), the keys drawn in file
                # order (shared, then the cell's own): what a study already in the storage was sampled with.
                for t in found["toy_atr_hidden"].get_trials():
                    slot = t.system_attrs[tune_study.SLOT]
                    optuna = tune_study.optuna
                    again = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=7 * 1_000_003 + slot)).ask()
                    self.assertEqual(t.params, {
                        "train.optim.lr": again.suggest_float("train.optim.lr", 1e-4, 1e-2, log=True),
                        "model.dropout": again.suggest_float("model.dropout", 0.0, 0.6),
                        "model.init_scale": again.suggest_float("model.init_scale", 0.01, 0.3, log=True),
                        "train.batch_size": again.suggest_int("train.batch_size", 8, 64),
                        "model.cell.bias": again.suggest_categorical("model.cell.bias", ["input", "both"])})
                # --seeds: the best trial (best dev value, lowest slot on ties) once per seed.
                for name in names:
                    cell = name.split("_")[1]
                    done = found[name].get_trials(states=(TrialState.COMPLETE,))
                    best = min(done, key=lambda t: (-t.value, t.system_attrs[tune_study.SLOT]))
                    seeds = found[name + "__seeds"]
                    self.assertEqual(seeds.user_attrs["best_slot"], best.system_attrs[tune_study.SLOT])
                    self.assertNotIn("diverged_not_chosen", seeds.user_attrs)   # the attrs older sweeps have
                    slots, by = budget_of(seeds.get_trials())
                    self.assertEqual((slots, by), ([0, 1], {"COMPLETE": 2}), name)
                    for seed in (1, 2):
                        run = os.path.join(sweep, name + "__seeds", f"best_s{seed}")
                        self.assertEqual(len(invocations(run)), 1)
                        cfg = read_json(os.path.join(run, "config.resolved.json"))
                        self.assertEqual(cfg["seed"], seed)
                        self.assertEqual(read_json(os.path.join(run, "trial.json"))["value"],
                                         dev_accuracy(flat_config(sp, cell, {}, {**best.params, "seed": seed})))
            finally:
                dispose(storage)

            # Nothing left: a second worker starts no run.
            before = {p: len(invocations(os.path.dirname(p)))
                      for p in glob.glob(os.path.join(sweep, "*", "*", "invocations.jsonl"))}
            rc, out, err = tune_main("run", path, "--sweep", sweep, "--bin", bin_dir, "--seeds", "1,2", "--poll", "0.2")
            self.assertEqual(rc, 0, out + err)
            self.assertNotIn(" started in ", out)
            self.assertEqual(before, {p: len(invocations(os.path.dirname(p))) for p in before})
            self.assertEqual(len(before), 2 * 3 + 2 * 2)

            rc, out, err = tune_main("status", path, "--sweep", sweep, "--bin", bin_dir)
            self.assertEqual(rc, 0, err)
            # The fake's summaries have no wall_seconds: nothing to time, nothing left (tests/tools/test_tune_eta.py);
            # the seed runs' folders are found without --seeds.
            self.assertEqual(out.splitlines()[:-1], [f'{n}: {{"COMPLETE": 3}} budget spent; seed runs 2 of 2 done'
                                                     for n in names])
            self.assertTrue(out.splitlines()[-1].startswith("left: 0 trials, ~0.0 lane-hours"), out)

            rc, out, err = tune_main("export", path, "--sweep", sweep, "--bin", bin_dir, "--seeds", "1,2")
            self.assertEqual(rc, 0, err)
            for name in names:
                study = read_json(os.path.join(sweep, name, "study.json"))
                self.assertEqual((study["study"], study["trials_budget"], study["metric"], study["direction"]),
                                 (name, 3, "accuracy", "maximize"))
                self.assertEqual(sorted((t["slot"], t["state"]) for t in study["trials"]),
                                 [(0, "COMPLETE"), (1, "COMPLETE"), (2, "COMPLETE")])
                for t in study["trials"]:
                    rec = read_json(os.path.join(sweep, t["user_attrs"]["folder"], "trial.json"))
                    self.assertEqual((t["value"], t["params"]), (rec["value"], rec["params"]))
                    self.assertNotIn("pid", t["user_attrs"])
                seeds = read_json(os.path.join(sweep, name + "__seeds", "study.json"))
                self.assertEqual(sorted(t["params"]["seed"] for t in seeds["trials"]), [1, 2])

            # Another budget under the same study names is refused, nothing run.
            other = write_space(os.path.join(tmp, "spaces"), "toy", base_space(trials=4, arms={"hidden": {}}))
            rc, out, err = tune_main("run", other, "--sweep", sweep, "--bin", bin_dir)
            self.assertEqual(rc, 2, out + err)
            self.assertIn("tune: error: study toy_atr_hidden in the storage was made with another fingerprint", err)

    def test_parameter_matched_arm(self):
        with scratch() as tmp:
            bin_dir = make_bin(tmp)
            path = write_space(tmp, "pm", base_space(arms={"params": base_space()["arms"]["params"]}))
            sweep = os.path.join(tmp, "sweep")
            rc, out, err = tune_main("check", path, "--sweep", sweep, "--bin", bin_dir)
            self.assertEqual(rc, 0, out + err)
            # LSTM at H 8 has 4*8*(16+8) + 32 = 800 recurrent parameters (the embedding and output rows are not
            # counted); ATR's 2H(16+H) + 2H is 780 at H 13 (2.5 % off) and 868 at 14; the LSTM matches itself.
            version = "classify (fake twinrnn for test_tune.py, git 0000000)"
            self.assertEqual(out.splitlines(),
                             [f'pm_atr_params: 3 trials, binary {version}, sets {{"model.cell.hidden": 13}}',
                              f'pm_lstm_params: 3 trials, binary {version}, sets {{"model.cell.hidden": 8}}'])
            found, storage = studies("", sweep)
            try:
                self.assertEqual(found["pm_atr_params"].user_attrs["matched"],
                                 {"hidden": 13, "params": 780, "target": 800, "match_hidden": 8})
                self.assertEqual(budget_of(found["pm_atr_params"].get_trials())[1], {"WAITING": 3})
            finally:
                dispose(storage)

    def test_a_space_the_task_refuses_fails_before_any_trial(self):
        with scratch() as tmp:
            bin_dir = make_bin(tmp)
            sp = base_space(arms={"hidden": {}})
            sp["cells"]["lstm"]["space"] = {"model.cell.bias": {"choices": ["default", "both"]}}
            path = write_space(tmp, "refused", sp)
            sweep = os.path.join(tmp, "sweep")
            rc, out, err = tune_main("run", path, "--sweep", sweep, "--bin", bin_dir)
            self.assertEqual(rc, 1, out + err)
            self.assertIn("cell lstm: the task refuses a point of the space", err)
            self.assertIn("classify: error: \"model.cell.bias\" both is for atr", err)
            self.assertEqual(glob.glob(os.path.join(sweep, "*", "trial_*")), [])


def find_pg_bin():
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return os.path.dirname(found[-1]) if found else None


def pg_skip_reason():
    if find_pg_bin() is None:
        return "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb)"
    if os.geteuid() != 0:
        return "not root: the throw-away server runs as the postgres user"
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        return "no postgres user"
    if importlib.util.find_spec("psycopg2") is None:
        return "no psycopg2 for /usr/bin/python3 (Debian's python3-psycopg2)"
    return None


class ExportWithoutSeeds(Timed):
    def test_export_without_seeds_makes_no_seed_study_and_a_later_seeds_worker_runs(self):
        """export/collect without --seeds once made each spent study's seed-run study with seeds [] and no slots,
        and a worker with --seeds then stopped on it ("made with another seeds"). Now: nothing is made without
        --seeds, a later --seeds worker runs the seed runs, and export without --seeds still writes them."""
        with scratch() as tmp:
            bin_dir = make_bin(tmp)
            path = write_space(os.path.join(tmp, "spaces"), "toy", base_space(arms={"hidden": {}}))
            sweep = os.path.join(tmp, "sweep")
            names = ["toy_atr_hidden", "toy_lstm_hidden"]
            rc, out, err = tune_main("run", path, "--sweep", sweep, "--bin", bin_dir, "--poll", "0.2")
            self.assertEqual(rc, 0, out + err)
            rc, out, err = tune_main("export", path, "--sweep", sweep, "--bin", bin_dir)
            self.assertEqual(rc, 0, out + err)
            found, storage = studies("", sweep)
            dispose(storage)
            self.assertEqual(sorted(found), names)                      # no __seeds study made
            rc, out, err = tune_main("run", path, "--sweep", sweep, "--bin", bin_dir, "--seeds", "1", "--poll", "0.2")
            self.assertEqual(rc, 0, out + err)
            for name in names:
                self.assertTrue(os.path.exists(os.path.join(sweep, name + "__seeds", "best_s1", "summary.json")))
            rc, out, err = tune_main("export", path, "--sweep", sweep, "--bin", bin_dir)
            self.assertEqual(rc, 0, out + err)
            for name in names:                                         # the existing seed studies are written
                meta = read_json(os.path.join(sweep, name + "__seeds", "study.json"))
                self.assertEqual((meta["user_attrs"]["seeds"], [t["state"] for t in meta["trials"]]),
                                 ([1], ["COMPLETE"]))


class Diverged(Timed):
    def test_a_diverged_trial_is_never_the_configuration_the_seed_runs_repeat(self):
        """Slot 1 of each cell diverges after the best dev score of all (0.999): it counts as a finished trial
        of the budget with that value, but the seed runs repeat the best of the slots that did not diverge,
        and plots/tune_table.py names the same trial as the cell's best."""
        sys.path.insert(0, os.path.join(ROOT, "plots"))
        import tune_table
        with scratch() as tmp:
            bin_dir = make_bin(tmp)
            sp = base_space(arms={"hidden": {}})
            path = write_space(os.path.join(tmp, "spaces"), "toy", sp)
            sweep = os.path.join(tmp, "sweep")
            rc, out, err = tune("run", path, "--sweep", sweep, "--bin", bin_dir, "--seeds", "1", "--poll", "0.2",
                                env={"TWIN_FAKE_DIVERGE": json.dumps(["trial_001"])})
            self.assertEqual(rc, 0, out + err)
            self.assertIn("slot 1 done: dev accuracy 0.9990 (diverged)", out)
            found, storage = studies("", sweep)
            try:
                for name in ("toy_atr_hidden", "toy_lstm_hidden"):
                    done = found[name].get_trials(states=(TrialState.COMPLETE,))
                    by_slot = {t.system_attrs[tune_study.SLOT]: t for t in done}
                    self.assertEqual(sorted(by_slot), [0, 1, 2])
                    self.assertEqual((by_slot[1].value, by_slot[1].user_attrs["diverged"]), (0.999, True))
                    best = min((by_slot[0], by_slot[2]), key=lambda t: (-t.value, t.system_attrs[tune_study.SLOT]))
                    seeds = found[name + "__seeds"]
                    self.assertEqual(seeds.user_attrs["best_slot"], best.system_attrs[tune_study.SLOT], name)
                    self.assertEqual(seeds.user_attrs["diverged_not_chosen"], 1)
                    recs = [dict(read_json(os.path.join(sweep, name, f"trial_{k:03d}", "trial.json")), slot=k)
                            for k in range(3)]
                    self.assertEqual(tune_table.best_trial(recs)["slot"], best.system_attrs[tune_study.SLOT])
                    # Every trial diverged: the best of them is taken (there is nothing else).
                    self.assertEqual(tune_table.best_trial([recs[1]])["slot"], 1)
            finally:
                dispose(storage)


class PostgresServer:
    """A throw-away PostgreSQL server: data folder and Unix socket in a temporary folder, no TCP."""

    def __init__(self):
        self.bin = find_pg_bin()
        self.dir = tempfile.mkdtemp(prefix="twin_test_tune_pg_", dir=SCRATCH)
        self.data = os.path.join(self.dir, "data")
        self.user = pwd.getpwnam("postgres")
        os.chown(self.dir, self.user.pw_uid, self.user.pw_gid)
        self.started = False

    def _as_postgres(self, *cmd):
        def drop():
            os.initgroups("postgres", self.user.pw_gid)
            os.setgid(self.user.pw_gid)
            os.setuid(self.user.pw_uid)
        env = {"PATH": "/usr/bin:/bin", "HOME": self.dir, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
        r = subprocess.run([os.path.join(self.bin, cmd[0])] + list(cmd[1:]), preexec_fn=drop, cwd=self.dir, env=env,
                           capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}\n{r.stdout}\n{r.stderr}")
        return r

    def start(self, db):
        self._as_postgres("initdb", "-D", self.data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync")
        opts = f"-c listen_addresses='' -c unix_socket_directories='{self.dir}' -c fsync=off"
        self._as_postgres("pg_ctl", "-D", self.data, "-o", opts, "-l", os.path.join(self.dir, "server.log"),
                          "-w", "-t", "60", "start")
        self.started = True
        self._as_postgres("createdb", "-h", self.dir, "-U", "postgres", db)
        return f"postgresql://postgres@/{db}?host={self.dir}"

    def stop(self):
        try:
            if self.started:
                self._as_postgres("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


class Postgres(Timed):
    def test_two_workers_at_once_meet_the_budget_exactly(self):
        why = pg_skip_reason()
        if why:
            print(f"SKIP test_tune.py PostgreSQL: {why}", flush=True)
            raise unittest.SkipTest(why)
        server = PostgresServer()
        workers = []
        storage = None
        try:
            url = server.start("tunetest")
            with scratch() as tmp:
                bin_dir = make_bin(tmp)
                sp = base_space(trials=6, cells={"atr": base_space()["cells"]["atr"]}, arms={"hidden": {}})
                path = write_space(tmp, "pg", sp)
                sweep = os.path.join(tmp, "sweep")
                args = ["run", path, "--sweep", sweep, "--bin", bin_dir, "--storage", url, "--seeds", "1,2",
                        "--poll", "0.2"]
                workers = [start_worker(args, {"TWIN_FAKE_SLEEP": "0.5"}, os.path.join(tmp, f"worker{i}.log"))
                           for i in range(2)]
                for w in workers:
                    w.wait(timeout=TIMEOUT_S)
                logs = []
                for i, w in enumerate(workers):
                    with open(os.path.join(tmp, f"worker{i}.log")) as f:
                        logs.append(f.read())
                    self.assertEqual(w.returncode, 0, logs[i])
                found, storage = studies(url, sweep)
                self.assertEqual(sorted(found), ["pg_atr_hidden", "pg_atr_hidden__seeds"])
                trials = found["pg_atr_hidden"].get_trials()
                slots, by = budget_of(trials)
                self.assertEqual((slots, by), ([0, 1, 2, 3, 4, 5], {"COMPLETE": 6}))   # made once, no extra trial
                for t in trials:
                    folder = os.path.join(sweep, "pg_atr_hidden", f"trial_{t.system_attrs[tune_study.SLOT]:03d}")
                    self.assertEqual(len(invocations(folder)), 1, folder)   # no slot run twice
                    self.assertEqual(t.value, dev_accuracy(flat_config(sp, "atr", {}, t.params)))
                self.assertEqual(len(os.listdir(os.path.join(sweep, "pg_atr_hidden"))), 6)
                seeds = found["pg_atr_hidden__seeds"].get_trials()
                self.assertEqual(budget_of(seeds), ([0, 1], {"COMPLETE": 2}))   # one trial per seed, not two
                for seed in (1, 2):
                    self.assertEqual(len(invocations(os.path.join(sweep, "pg_atr_hidden__seeds", f"best_s{seed}"))), 1)
                # Both workers ran trials of the one study (the budget was shared, not run by one alone).
                ran = [sum(" done: dev accuracy " in line for line in log.splitlines()) for log in logs]
                self.assertEqual(sum(ran), 8, logs)
                self.assertTrue(all(n >= 1 for n in ran), f"trials per worker: {ran}")
        finally:
            for w in workers:
                stop_group(w)
            if storage is not None:
                dispose(storage)
            server.stop()


class Interrupted(Timed):
    def test_sigkill_and_sigterm_mid_trial_then_resumed_retries(self):
        with scratch() as tmp:
            bin_dir = make_bin(tmp)
            sp = base_space(cells={"lstm": base_space()["cells"]["lstm"]}, arms={"hidden": {}})
            path = write_space(tmp, "kill", sp)
            sweep = os.path.join(tmp, "sweep")
            study_dir = os.path.join(sweep, "kill_lstm_hidden")
            folder = [os.path.join(study_dir, f"trial_{k:03d}") for k in range(3)]
            args = ["run", path, "--sweep", sweep, "--bin", bin_dir, "--grace", "3", "--poll", "0.2"]
            workers = []
            try:
                # Worker A: slot 0 quick, slot 1 trains for a minute; A and its run are SIGKILLed mid-trial
                # (the machine lost them: no signal handler runs, the trial stays RUNNING).
                a = start_worker(args, {"TWIN_FAKE_SLEEP_FOR": json.dumps({"trial_001": 60})},
                                 os.path.join(tmp, "a.log"))
                workers.append(a)
                wait_for(lambda: training(folder[1]) == 1, "slot 1 to start training")
                child = invocations(folder[1])[0]["pid"]
                os.killpg(a.pid, signal.SIGKILL)
                a.wait(timeout=30)
                wait_for(lambda: not _running(child), "the killed run to be gone", timeout=10)
                with open(os.path.join(folder[0], "trial.json"), "rb") as f:
                    slot0_record = f.read()
                found, storage = studies("", sweep)
                try:
                    trials = found["kill_lstm_hidden"].get_trials()
                    self.assertEqual(budget_of(trials), ([0], {"COMPLETE": 1, "RUNNING": 1, "WAITING": 1}))
                    slot0_value = [t.value for t in trials if t.state == TrialState.COMPLETE][0]
                    killed = [t for t in trials if t.state == TrialState.RUNNING][0]
                finally:
                    dispose(storage)

                # Worker B: finds A's trial interrupted (its pid is gone), marks it FAIL, resumes slot 1's folder
                # from its checkpoint; slot 2 then trains long and B gets SIGTERM: it stops its run (which saves
                # and exits 130), marks the trial FAIL, enqueues the slot again and exits 130.
                b = start_worker(args, {"TWIN_FAKE_SLEEP_FOR": json.dumps({"trial_002": 60})},
                                 os.path.join(tmp, "b.log"))
                workers.append(b)
                wait_for(lambda: training(folder[2]) == 1, "slot 2 to start training")
                os.kill(b.pid, signal.SIGTERM)
                self.assertEqual(b.wait(timeout=60), 130)
                with open(os.path.join(tmp, "b.log")) as f:
                    b_out = f.read()
                self.assertIn(f"kill_lstm_hidden: trial {killed.number} (slot 1) was interrupted; marked failed, "
                              "its slot enqueued again", b_out)
                self.assertRegex(b_out, r"kill_lstm_hidden: trial \d+ slot 1 resumed in .*trial_001")
                self.assertRegex(b_out, r"trial \d+ slot 2 stopped by a signal; marked failed, slot enqueued again")

                # Worker C (in this process): resumes slot 2 and finishes the budget.
                rc, out, err = tune_main(*args)
                self.assertEqual(rc, 0, out + err)
                self.assertRegex(out, r"kill_lstm_hidden: trial \d+ slot 2 resumed in .*trial_002")
            finally:
                for w in workers:
                    stop_group(w)

            found, storage = studies("", sweep)
            try:
                trials = found["kill_lstm_hidden"].get_trials()
                slots, by = budget_of(trials)
                self.assertEqual((slots, by), ([0, 1, 2], {"COMPLETE": 3, "FAIL": 2}))   # FAIL trials not counted
                failed = {t.system_attrs[tune_study.SLOT]: t for t in trials if t.state == TrialState.FAIL}
                self.assertEqual(failed[1].number, killed.number)
                self.assertEqual(failed[1].user_attrs["fail_reason"],
                                 "interrupted: its worker stopped mid-trial (process gone)")
                self.assertEqual(failed[2].user_attrs["fail_reason"], "interrupted: stopped by a signal")
                for t in trials:
                    if t.state != TrialState.COMPLETE:
                        continue
                    slot = t.system_attrs[tune_study.SLOT]
                    self.assertEqual(t.value, dev_accuracy(flat_config(sp, "lstm", {}, t.params)))
                    if slot in failed:   # the retry: the same parameters, its history names the failed trial
                        self.assertEqual(t.params, failed[slot].params)
                        self.assertEqual(t.system_attrs["retry_history"], [failed[slot].number])
                        self.assertEqual(read_json(os.path.join(folder[slot], "trial.json"))["retry_history"],
                                         [failed[slot].number])
                    else:
                        self.assertEqual(t.value, slot0_value)
            finally:
                dispose(storage)
            rc, out, err = tune_main("status", path, "--sweep", sweep, "--bin", bin_dir)
            self.assertEqual((rc, out.splitlines()[0]), (0, 'kill_lstm_hidden: {"COMPLETE": 3, "FAIL": 2} budget spent'),
                             err)
            # The finished trial is as it was; each interrupted slot ran twice, the second time resumed.
            with open(os.path.join(folder[0], "trial.json"), "rb") as f:
                self.assertEqual(f.read(), slot0_record)
            self.assertEqual([i["resume"] for i in invocations(folder[0])], [False])
            for k in (1, 2):
                self.assertEqual([i["resume"] for i in invocations(folder[k])], [False, True], folder[k])
                self.assertTrue(os.path.exists(os.path.join(folder[k], "resumed.txt")))
                self.assertIn("--resume", read_json(os.path.join(folder[k], "trial.json"))["command"])


def _running(pid):
    """A live process (not a zombie)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


class StudyLiveness(Timed):
    """tune_study.fail_interrupted on hand-made RUNNING trials."""

    def test_heartbeat_follows_the_grace_period(self):
        with scratch() as tmp:
            for grace, beat in ((120, 20), (3, 1), (40, 10)):
                storage = tune_study.storage_for("", tmp, grace=grace)
                self.assertEqual((storage.grace_period, storage.heartbeat_interval), (grace, beat))
                dispose(storage)

    def test_orphaned_claim_other_host_and_live_worker(self):
        with scratch() as tmp:
            storage = tune_study.storage_for("", tmp, grace=1)
            try:
                study = tune_study.open_study(storage, "s", "maximize", 4, {"fingerprint": "x"})
                waiting = study.get_trials(states=(TrialState.WAITING,))
                self.assertEqual([t.system_attrs[tune_study.SLOT] for t in waiting], [0, 1, 2, 3])
                st = study._storage
                # slot 0: moved to RUNNING by a worker that stopped inside claim() (no heartbeat, no pid)
                self.assertTrue(st.set_trial_state_values(waiting[0]._trial_id, TrialState.RUNNING))
                # slot 1: a worker on another machine, its last heartbeat now
                self.assertTrue(st.set_trial_state_values(waiting[1]._trial_id, TrialState.RUNNING))
                st.record_heartbeat(waiting[1]._trial_id)
                st.set_trial_user_attr(waiting[1]._trial_id, "host", "another-machine")
                st.set_trial_user_attr(waiting[1]._trial_id, "pid", 1)
                # slot 2: this process, alive on this host (its command line names test_tune), no heartbeat since
                self.assertTrue(st.set_trial_state_values(waiting[2]._trial_id, TrialState.RUNNING))
                st.record_heartbeat(waiting[2]._trial_id)
                st.set_trial_user_attr(waiting[2]._trial_id, "host", socket.gethostname())
                st.set_trial_user_attr(waiting[2]._trial_id, "pid", os.getpid())
                logged = []
                self.assertEqual(tune_study.fail_interrupted(study, tmp, logged.append), [])   # all within grace
                time.sleep(2.2)   # Optuna counts whole seconds: > 1 s means 2
                failed = tune_study.fail_interrupted(study, tmp, logged.append)
                self.assertEqual(sorted(failed), [(0, 0), (1, 1)])
                self.assertEqual(len(logged), 2)
                trials = {t.number: t for t in study.get_trials()}
                self.assertEqual(trials[0].user_attrs["fail_reason"],
                                 "interrupted: its worker stopped mid-trial (stopped while claiming it)")
                self.assertEqual(trials[1].user_attrs["fail_reason"],
                                 "interrupted: its worker stopped mid-trial (no heartbeat)")
                self.assertEqual(trials[2].state, TrialState.RUNNING)   # alive here: left alone
                retries = sorted((t.system_attrs[tune_study.SLOT], t.system_attrs["retry_history"])
                                 for t in trials.values() if t.state == TrialState.WAITING and t.number > 3)
                self.assertEqual(retries, [(0, [0]), (1, [1])])
                # claim takes the lowest slot first: the retry of slot 0
                got = tune_study.claim(study, tmp)
                self.assertEqual((got.system_attrs[tune_study.SLOT], got.number), (0, 4))
            finally:
                dispose(storage)


if __name__ == "__main__":
    t0 = time.time()
    result = unittest.main(exit=False, verbosity=2).result
    print(f"test_tune.py: {time.time() - t0:.1f} s", flush=True)
    sys.exit(0 if result.wasSuccessful() else 1)
