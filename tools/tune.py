#!/usr/bin/env python3
"""Equal-budget tuning of every cell (issue 51): one Optuna study per (task and protocol, cell, arm), the same
search space, sampler, sampler seed and number of trials for each; selection on dev only; no pruning.

  /usr/bin/python3 tools/tune.py check SPACE.json...              check the files, print the studies
  /usr/bin/python3 tools/tune.py run SPACE.json... --sweep DIR     a worker: runs trials until none is left
        [--storage URL] [--threads N] [--seeds 1234,1,2] [--grace S] [--max-trials N]
  /usr/bin/python3 tools/tune.py status SPACE.json... --sweep DIR  trials per study and state, and the lane-hours
        left (tools/tune_eta.py; with --seeds, the seed runs' too)
  /usr/bin/python3 tools/tune.py export SPACE.json... --sweep DIR  DIR/<study>/study.json: every trial
  /usr/bin/python3 tools/tune.py collect SPACE.json... --sweep DIR --to results/sweeps/NAME
        export, then copy every finished study folder (never checkpoints) and write each run's stats/ (rescore)
  /usr/bin/python3 tools/tune.py import SPACE.json... --sweep DIR --from results/sweeps/NAME
        a new sweep (another machine) given the finished studies of a committed one (tools/tune_import.py)
  collect ... --unfinished-to DIR2 / import ... --unfinished-from DIR2
        the unfinished studies too (their finished trials), so that a sweep outlives its machine mid-study

Each trial is an ordinary run folder, DIR/<study>/trial_<slot>, made by the task binary (experiments/*.json
plus --set flags; its command.txt, config.resolved.json, metrics and kept outputs), and trial.json beside its
files (slot, parameters, dev value, state). Any number of workers may run at once on one study: on one
machine with the default SQLite storage (DIR/study.db), on many with --storage postgresql://... (every
worker then needs the same binary revision: the study stores the binary's --version line and refuses
another). With --seeds, a worker that finds a study's budget spent runs its best trial (best dev value of
the trials that did not diverge, lowest slot on ties) once per seed, DIR/<study>__seeds/best_s<seed>, the
same way.
The task binary is copied once per sweep to DIR/bin/<task>-<sha256>, so rebuilding build/ never changes
the kernels of a study half way (every cell of one space runs on one binary).
"""
import argparse
import datetime
import hashlib
import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import tune_space  # noqa: E402
tune_study = TrialState = None   # set by load_storage_modules(): `check` without --sweep runs without Optuna


def load_storage_modules():
    """tune_study and Optuna (seconds to import on a busy machine), for the commands that open the storage."""
    global tune_study, TrialState
    import tune_study as study_module
    from optuna.trial import TrialState as state
    tune_study, TrialState = study_module, state

REPO = Path(__file__).resolve().parent.parent
EXIT_NON_FINITE, EXIT_SIGNAL = 3, 130


class Stop(Exception):
    """The worker must stop (a signal, or a trial that failed for a reason a retry would not mend)."""


def log_to(sweep):
    def log(msg):
        line = f"tune: {datetime.datetime.now():%Y-%m-%d %H:%M:%S} {msg}"
        print(line, flush=True)
        with open(Path(sweep) / "events.log", "a") as f:
            f.write(line + "\n")
    return log


def task_keys_from(bin_dir):
    cache = {}

    def keys(task):
        if task not in cache:
            exe = Path(bin_dir) / task
            if not exe.exists():
                raise tune_space.SpaceError(f"{exe} is missing (make build)")
            out = subprocess.run([str(exe), "--print-keys"], capture_output=True, text=True)
            if out.returncode != 0:
                raise tune_space.SpaceError(f"{exe} --print-keys failed: {out.stderr.strip()}")
            cache[task] = json.loads(out.stdout)
        return cache[task]
    return keys


def pinned_binary(task, sweep, build_bin):
    """DIR/bin/<task>-<sha>: the sweep's copy of the task binary, made once (binaries.json records it)."""
    sweep = Path(sweep)
    record = sweep / "binaries.json"
    with tune_study.file_lock(sweep):
        pins = json.loads(record.read_text()) if record.exists() else {}
        if task in pins and Path(pins[task]["path"]).exists():
            # The line names the kernels this environment routes to (TWIN_GEMM_BACKENDS, OPENBLAS_CORETYPE): a
            # worker whose environment routes otherwise would run the study's cells on other kernels.
            now = subprocess.run([pins[task]["path"], "--version"], capture_output=True, text=True).stdout
            if now.splitlines()[:1] != [pins[task]["version"]]:
                raise Stop(f"{pins[task]['path']} --version in this environment prints {now.splitlines()[:1]}, but "
                           f"the sweep pinned it as {pins[task]['version']!r} (binaries.json): run the workers "
                           f"with the environment the sweep started with (TWIN_GEMM_BACKENDS, OPENBLAS_CORETYPE)")
            return pins[task]
        src = Path(build_bin) / task
        if not src.exists():
            raise Stop(f"{src} is missing (make build)")
        sha = hashlib.sha256(src.read_bytes()).hexdigest()
        (sweep / "bin").mkdir(parents=True, exist_ok=True)
        dst = sweep / "bin" / f"{task}-{sha[:12]}"
        if not dst.exists():
            shutil.copy2(src, str(dst) + ".tmp")
            Path(str(dst) + ".tmp").rename(dst)
        version = subprocess.run([str(dst), "--version"], capture_output=True, text=True).stdout.splitlines()[0]
        pins[task] = {"path": str(dst.resolve()), "sha256": sha, "version": version}
        tmp = record.with_suffix(".tmp")
        tmp.write_text(json.dumps(pins, indent=1) + "\n")
        tmp.rename(record)
        return pins[task]


def sets_of(pairs):
    out = []
    for k, v in pairs.items():
        out += ["--set", f"{k}={json.dumps(v)}"]
    return out


def expand_also(space, params):
    full = dict(params)
    for k, entry in space.items():
        for other in entry.get("also", []):
            full[other] = params[k]
    return full


def recurrent_params(binary, sp, cell, key, hidden):
    """The suite's count of the recurrent layers' parameters (names <scope>/<cell type>/<letter>)."""
    cset = sp.cells[cell].get("set", {})
    ctype = cset.get("model.cell.type")
    first = {k: e["choices"][0] for k, e in sp.cell_space(cell).items() if "choices" in e}
    cmd = [binary, str(sp.experiment), "--print-params"] + sets_of({**sp.fixed, **cset, **first, key: hidden})
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise Stop(f"{' '.join(cmd)} failed: {out.stderr.strip()[-500:]}")
    rows = json.loads(out.stdout)["params"]
    if ctype is None:
        raise Stop(f"{sp.path}: cells.{cell}.set needs model.cell.type for a parameter-matched arm")
    return sum(r["count"] for r in rows if r["name"].split("/")[-2:-1] == [ctype])


def matched_hidden(binary, sp, cell, arm):
    """The hidden size whose recurrent parameter count is nearest the matched cell's at its own hidden size."""
    a = sp.arms[arm]
    if not a:
        return None
    key = a["hidden_key"]
    base = resolved_value(binary, sp, a["match"], key)
    target = recurrent_params(binary, sp, a["match"], key, base)
    lo, hi = 1, 8 * base
    while lo < hi:   # smallest H with count >= target, then the nearer of H and H-1
        mid = (lo + hi) // 2
        if recurrent_params(binary, sp, cell, key, mid) >= target:
            hi = mid
        else:
            lo = mid + 1
    best = min((h for h in (lo - 1, lo) if h >= 1),
               key=lambda h: abs(recurrent_params(binary, sp, cell, key, h) - target))
    got = recurrent_params(binary, sp, cell, key, best)
    tol = a.get("tolerance", 0.05)
    if abs(got - target) > tol * target:
        raise Stop(f"{sp.path}: arm {arm}: no hidden size of {cell} brings its recurrent parameters within "
                   f"{tol:.0%} of {a['match']}'s {target} (nearest: {got} at {best})")
    return {"hidden": best, "params": got, "target": target, "match_hidden": base}


def resolved_value(binary, sp, cell, key):
    cmd = [binary, str(sp.experiment), "--print-config"] + sets_of({**sp.fixed, **sp.cells[cell].get("set", {})})
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise Stop(f"{' '.join(cmd)} failed: {out.stderr.strip()[-500:]}")
    v = json.loads(out.stdout)
    for part in key.split("."):
        v = v[part]
    if key.endswith("cell.hidden") and v == 0:
        v = json.loads(out.stdout)["model"].get("hidden", 0)
    return v


def dry_check(binary, sp, cell, extra):
    """--print-config at the ends of every range and at every choice: a space the task refuses fails here,
    before any trial starts."""
    space = sp.cell_space(cell)
    lows = {k: (e["choices"][0] if "choices" in e else e.get("range", e.get("log_range"))[0]) for k, e in space.items()}
    highs = {k: (e["choices"][-1] if "choices" in e else e.get("range", e.get("log_range"))[1]) for k, e in space.items()}
    probes = [lows, highs]
    for k, e in space.items():
        for c in e.get("choices", [])[1:-1]:
            probes.append({**lows, k: c})
    for p in probes:
        p = {k: (int(v) if space[k].get("int") else v) for k, v in p.items()}
        cmd = [binary, str(sp.experiment), "--print-config"] + sets_of({**sp.fixed, **sp.cells[cell].get("set", {}),
                                                                        **extra, **expand_also(space, p)})
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode != 0:
            raise Stop(f"{sp.path}: cell {cell}: the task refuses a point of the space "
                       f"({json.dumps(p)}): {out.stderr.strip()[-600:]}")


class Worker:
    def __init__(self, args, spaces):
        self.args, self.spaces = args, spaces
        self.sweep = Path(args.sweep)
        self.sweep.mkdir(parents=True, exist_ok=True)
        self.log = log_to(self.sweep)
        self.storage = tune_study.storage_for(args.storage, self.sweep, grace=args.grace)
        self.child = None
        self.ran = 0
        self.studies = []   # (space, cell, arm, study, binary, extra sets)

    def refuse_unimported(self):
        """Before any study is created: one that a folder this sweep imported from holds (import only takes
        the spaces it is named) would otherwise start again from its first slot (tune_import's docstring)."""
        import tune_import
        existing = {s.study_name for s in self.storage.get_all_studies()}
        sources = tune_import.read_sources(self.sweep)
        held = []
        for sp in self.spaces:
            for cell in sp.cells:
                for arm in sp.arms:
                    name = sp.study_name(cell, arm)
                    folder = None if name in existing else \
                        tune_import.held_by_a_source(sources, name, sp.fingerprint(cell, arm))
                    if folder is not None:
                        held.append((sp, folder))
        if held:
            spaces = " ".join(dict.fromkeys(str(sp.path) for sp, _ in held))
            raise RuntimeError(
                f"{len(held)} stud{'y' if len(held) == 1 else 'ies'} of these spaces {'is' if len(held) == 1 else 'are'}"
                f" not in this sweep but in a folder it imported from ({self.sweep / tune_import.SOURCES}): "
                f"{', '.join(str(f) for _, f in held[:6])}{' ...' if len(held) > 6 else ''}; import "
                f"{'it' if len(held) == 1 else 'them'} first (tools/tune.py import {spaces} --sweep {self.sweep} "
                f"--from DIR [--unfinished-from DIR] [--replay]) instead of starting again from the first slot; "
                f"nothing was created")

    def prepare(self):
        self.refuse_unimported()
        for sp in self.spaces:
            pin = pinned_binary(sp.task, self.sweep, self.args.bin)
            for cell in sp.cells:
                for arm in sp.arms:
                    m = matched_hidden(pin["path"], sp, cell, arm)
                    extra = {sp.arms[arm]["hidden_key"]: m["hidden"]} if m else {}
                    dry_check(pin["path"], sp, cell, extra)
                    attrs = {"fingerprint": sp.fingerprint(cell, arm), "binary_version": pin["version"],
                             "matched": m, "space_file": str(sp.path.name), "protocol": sp.protocol}
                    study = tune_study.open_study(self.storage, sp.study_name(cell, arm), sp.direction,
                                                  sp.trials, attrs)
                    self.studies.append((sp, cell, arm, study, pin, extra))

    def seeds_study(self, sp, cell, arm, study, seeds):
        """The study of the best trial's seed runs, created once the budget is spent (None before)."""
        by, complete = tune_study.summary_of(study)
        if not complete:
            return None
        done = [t for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))]
        # Not a diverged trial (its value is its best dev before a non-finite loss stopped it): its recipe does
        # not train to the end, and seed runs that diverge have no test score. Only if every trial diverged.
        pool = [t for t in done if not t.user_attrs.get("diverged")] or done
        sign = 1 if sp.direction == "maximize" else -1
        best = min(pool, key=lambda t: (-sign * t.value, t.system_attrs[tune_study.SLOT]))
        attrs = {"from_study": study.study_name, "best_slot": best.system_attrs[tune_study.SLOT],
                 "best_value": best.value, "seeds": seeds}
        if len(done) > len(pool):   # only then: a seeds study made before this rule has the same attrs
            attrs["diverged_not_chosen"] = len(done) - len(pool)
        # Made with its trials, like a study's slots: workers on PostgreSQL (no claim lock) that both found the
        # study empty would each add a trial per seed.
        fixed = [{"fixed_params": {**best.params, "seed": seed}} for seed in seeds]
        s = tune_study.open_study(self.storage, study.study_name + "__seeds", sp.direction, len(seeds), attrs,
                                  slot_attrs=fixed)
        if not s.get_trials(deepcopy=False):   # made by an older tune.py: created empty, its trials added next
            with tune_study.claim_lock(self.storage, self.sweep):
                if not s.get_trials(deepcopy=False):
                    for k, seed in enumerate(seeds):
                        s.add_trial(tune_study.optuna.create_trial(
                            state=TrialState.WAITING,
                            system_attrs={tune_study.SLOT: k, "fixed_params": {**best.params, "seed": seed}}))
        return s

    def next_claim(self):
        for sp, cell, arm, study, pin, extra in self.studies:
            tune_study.fail_interrupted(study, self.sweep, self.log)
            t = tune_study.claim(study, self.sweep)
            if t is not None:
                return sp, cell, study, pin, extra, t, False
        if self.args.seeds:
            for sp, cell, arm, study, pin, extra in self.studies:
                s = self.seeds_study(sp, cell, arm, study, self.args.seeds)
                if s is None:
                    continue
                tune_study.fail_interrupted(s, self.sweep, self.log)
                t = tune_study.claim(s, self.sweep)
                if t is not None:
                    return sp, cell, s, pin, extra, t, True
        return None

    def others_running(self):
        for _, _, _, study, _, _ in self.studies:
            if study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
                return True
        return False

    def loop(self):
        while self.args.max_trials is None or self.ran < self.args.max_trials:
            got = self.next_claim()
            if got is None:
                if self.args.wait and self.others_running():
                    time.sleep(self.args.poll)
                    continue
                self.log("nothing left to claim: every slot of these studies is finished or running elsewhere")
                return 0
            self.run_trial(*got)
            self.ran += 1
        return 0

    def run_trial(self, sp, cell, study, pin, extra, frozen, is_seed):
        slot = frozen.system_attrs[tune_study.SLOT]
        if is_seed:
            params = dict(frozen.system_attrs["fixed_params"])
            trial = tune_study.optuna.Trial(study, frozen._trial_id)
            folder = self.sweep / study.study_name / f"best_s{params['seed']}"
        else:
            trial, params = tune_study.suggest(study, frozen, sp.cell_space(cell), sp.sampler)
            folder = self.sweep / study.study_name / f"trial_{slot:03d}"
        sets = {**sp.fixed, **sp.cells[cell].get("set", {}), **extra, **expand_also(sp.cell_space(cell), params)}
        cmd = [pin["path"], str(sp.experiment), "--threads", str(sp.threads if self.args.threads is None
                                                                  else self.args.threads),
               "--set", f"out_dir={folder}"] + sets_of(sets)
        summary = folder / "summary.json"
        if (folder / "checkpoint.last.bin").exists() and not summary.exists():
            cmd.append("--resume")
        self.log(f"{study.study_name}: trial {frozen.number} slot {slot} {'resumed' if '--resume' in cmd else 'started'}"
                 f" in {folder}")
        rc = 0
        if not summary.exists():
            folder.mkdir(parents=True, exist_ok=True)
            with tune_study.Heartbeat(self.storage, frozen._trial_id), open(folder / "tune.log", "ab") as out:
                self.child = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                              cwd=REPO)
                rc = self.child.wait()
                self.child = None
        record = {"study": study.study_name, "slot": slot, "optuna_number": frozen.number, "params": params,
                  "sets": sets, "command": cmd, "exit": rc, "retry_history": frozen.system_attrs.get("retry_history", [])}
        if rc == 0 and summary.exists():
            s = json.loads(summary.read_text())
            value = s["best_dev"][sp.metric]
            record.update(state="COMPLETE", value=value, stop_reason=s.get("stop_reason"),
                          epochs_done=s.get("epochs_done"), test=s.get("test", {}).get(sp.metric))
        elif rc == EXIT_NON_FINITE:
            value = best_logged(folder, sp)
            record.update(state="COMPLETE", value=value, diverged=True, stop_reason="non_finite")
        else:
            why = "stopped by a signal" if rc in (EXIT_SIGNAL, -signal.SIGTERM, -signal.SIGINT) else f"exit {rc}"
            study._storage.set_trial_user_attr(frozen._trial_id, "fail_reason", f"interrupted: {why}")
            study._storage.set_trial_state_values(frozen._trial_id, TrialState.FAIL)
            tune_study.requeue(study, study._storage.get_trial(frozen._trial_id))
            self.log(f"{study.study_name}: trial {frozen.number} slot {slot} {why}; marked failed, slot enqueued "
                     f"again (log: {folder / 'tune.log'})")
            raise Stop(f"trial {folder} {why}")
        tune_study.write_json(folder / "trial.json", record)
        for k in ("stop_reason", "epochs_done", "diverged"):
            if k in record:
                study._storage.set_trial_user_attr(frozen._trial_id, k, record[k])
        study._storage.set_trial_user_attr(frozen._trial_id, "folder", str(folder.relative_to(self.sweep)))
        study.tell(trial, value)
        self.log(f"{study.study_name}: trial {frozen.number} slot {slot} done: dev {sp.metric} {value:.4f}"
                 f"{' (diverged)' if record.get('diverged') else ''}")

    def run_again(self, sp, sets, folder):
        """A trial's --set pairs run on the sweep's binary into `folder` (tune import --replay); its exit code."""
        pin = pinned_binary(sp.task, self.sweep, self.args.bin)
        sets = {k: v for k, v in sets.items() if k != "out_dir"}
        cmd = [pin["path"], str(sp.experiment), "--threads", str(sp.threads if self.args.threads is None
                                                                  else self.args.threads),
               "--set", f"out_dir={folder}"] + sets_of(sets)
        with open(str(folder) + ".log", "wb") as out:
            return subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                  cwd=REPO).returncode

    def on_signal(self, signum, _frame):
        if self.child is not None and self.child.poll() is None:
            self.child.send_signal(signal.SIGTERM)   # the run saves its checkpoint and exits 130
        else:
            raise Stop(f"signal {signum}")


def best_logged(folder, sp):
    """A diverged run's best dev value before it diverged (0 / inf when it never evaluated)."""
    vals = []
    path = folder / "metrics.jsonl"
    for line in path.read_text().splitlines() if path.exists() else []:
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        if rec.get("split") == "dev" and isinstance(rec.get(sp.metric), (int, float)):
            vals.append(rec[sp.metric])
    if not vals:
        return 0.0 if sp.direction == "maximize" else float("inf")
    return max(vals) if sp.direction == "maximize" else min(vals)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["check", "run", "status", "export", "collect", "import"])
    ap.add_argument("spaces", nargs="+")
    ap.add_argument("--sweep", help="the sweep folder (trial run folders, study.db, events.log)")
    ap.add_argument("--storage", default="", help="an SQLAlchemy URL (default: sqlite:///SWEEP/study.db)")
    ap.add_argument("--bin", default=str(REPO / "build" / "bin"), help="where the task binaries are")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--seeds", default="", help="seeds of the best trial's runs, e.g. 1234,1,2")
    ap.add_argument("--grace", type=int, default=120, help="seconds without heartbeat before a trial is interrupted")
    ap.add_argument("--max-trials", type=int, default=None, help="stop after this many trials (tests)")
    ap.add_argument("--no-wait", dest="wait", action="store_false",
                    help="exit when nothing is claimable even while other workers run trials")
    ap.add_argument("--poll", type=float, default=30.0)
    ap.add_argument("--to", default="", help="collect: the committed sweep folder, e.g. results/sweeps/issue51")
    ap.add_argument("--from", dest="from_", default="", help="import: a committed sweep folder")
    ap.add_argument("--unfinished-to", default="",
                    help="collect: where the unfinished studies go (their finished trials), for import")
    ap.add_argument("--unfinished-from", default="",
                    help="import: also the unfinished studies collected there (--unfinished-to)")
    ap.add_argument("--replay", action="store_true",
                    help="import: a study of another binary, if one of its trials run again here gives its results")
    ap.add_argument("--replay-epochs", type=int, default=0,
                    help="import --replay: run the trial again for its first K epochs only and compare the "
                         "committed records of those (default 0: the whole trial and its kept outputs)")
    ap.add_argument("--jobs", type=int, default=1,
                    help="import --replay: how many replays run at once (each on one thread; one per core)")
    args = ap.parse_args(argv)
    args.seeds = [int(s) for s in args.seeds.split(",") if s.strip()] if args.seeds else []
    try:
        keys = task_keys_from(args.bin)
        spaces = [tune_space.load_space(p, keys) for p in args.spaces]
    except tune_space.SpaceError as e:
        print(f"tune: error: {e}", file=sys.stderr)
        return 2
    if args.command == "check" and not args.sweep:
        for sp in spaces:
            for cell in sp.cells:
                for arm in sp.arms:
                    print(f"{sp.study_name(cell, arm)}: {sp.trials} trials, {len(sp.cell_space(cell))} searched keys")
        return 0
    if not args.sweep:
        print("tune: error: --sweep DIR is needed", file=sys.stderr)
        return 2
    if args.jobs < 1:
        print("tune: error: --jobs is a number of replays at once, >= 1", file=sys.stderr)
        return 2
    if args.replay_epochs < 0:
        print("tune: error: --replay-epochs is a number of epochs >= 1 (0: the whole trial)", file=sys.stderr)
        return 2
    if args.grace < 1:
        print("tune: error: --grace is a number of seconds >= 1", file=sys.stderr)
        return 2
    load_storage_modules()
    w = Worker(args, spaces)
    try:
        if args.command == "import":
            if not args.from_:
                raise Stop("import needs --from DIR")
            import tune_import
            try:
                n = tune_import.import_finished(w, args.from_, lambda sp: pinned_binary(sp.task, w.sweep, args.bin),
                                                lambda pin, sp, cell, arm: matched_hidden(pin["path"], sp, cell, arm),
                                                run=w.run_again, unfinished_root=args.unfinished_from or None)
            except tune_import.ImportError_ as e:
                raise Stop(f"import: {e}")
            w.prepare()   # opens every study as `run` would: an imported one whose attrs differ is refused here
            print(f"tune: imported {n} studies into {w.sweep}")
            return 0
        w.prepare()
        if args.command == "check":
            for sp, cell, arm, study, pin, extra in w.studies:
                print(f"{study.study_name}: {sp.trials} trials, binary {pin['version']}, sets {json.dumps(extra)}")
            return 0
        if args.command == "status":
            import tune_eta
            est = tune_eta.Estimate(w.sweep, args.seeds)
            for sp, cell, arm, study, pin, extra in w.studies:
                est.add(str(sp.path), study.study_name, study.user_attrs.get("slots", sp.trials),
                        sp.direction == "maximize")
            times, total = est.lines()
            for (sp, cell, arm, study, pin, extra), t in zip(w.studies, times):
                by, complete = tune_study.summary_of(study)
                print(f"{study.study_name}: {json.dumps(by, sort_keys=True)}{' budget spent' if complete else ''}"
                      f"{'; ' + t if t else ''}")
            print(total)
            return 0
        if args.command in ("export", "collect"):
            import tune_collect
            if args.command == "collect" and not args.to:
                raise Stop("collect needs --to DIR")
            tune_collect.export(w)
            if args.command == "export":
                return 0
            return tune_collect.collect(w, Path(args.to), Path(args.unfinished_to) if args.unfinished_to else None)
        signal.signal(signal.SIGTERM, w.on_signal)
        signal.signal(signal.SIGINT, w.on_signal)
        return w.loop()
    except Stop as e:
        print(f"tune: stopped: {e}", file=sys.stderr)
        return EXIT_SIGNAL if "signal" in str(e) else 1
    except RuntimeError as e:
        print(f"tune: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
