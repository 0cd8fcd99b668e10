#!/usr/bin/env python3
"""`tools/tune.py export` and `collect` (issue 51): a sweep's studies written as study.json beside their run
folders, and the finished ones copied to a committed folder (results/sweeps/NAME) without checkpoints, with each
run's per-example statistics, so that `make rescore` checks the trials as it checks results/runs. Split from
tune.py, which imports this module only for these two commands (after it has loaded the storage modules).
"""
import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import tune_study
from tune_study import write_json

REPO = Path(__file__).resolve().parent.parent


def export(worker):
    """DIR/<study>/study.json for every study of the worker (its trials, states, values, parameters and attrs)."""
    stored = {s.study_name for s in worker.storage.get_all_studies()}
    for sp, cell, arm, study, pin, extra in worker.studies:
        # With --seeds the seed-run study is made if the budget is spent (as a worker would make it); without,
        # only one that exists is written. (Making it without the seeds gave it seeds [] and no slots, which a
        # worker with --seeds then refused as "made with another seeds".)
        name = study.study_name + "__seeds"
        seeds = (worker.seeds_study(sp, cell, arm, study, worker.args.seeds) if worker.args.seeds else
                 tune_study.optuna.load_study(study_name=name, storage=worker.storage) if name in stored else None)
        for s in [study] + ([seeds] if seeds is not None else []):
            trials = [{"number": t.number, "state": t.state.name, "slot": t.system_attrs.get(tune_study.SLOT),
                       "value": t.value, "params": t.params or t.system_attrs.get("fixed_params", {}),
                       "user_attrs": {k: v for k, v in t.user_attrs.items() if k not in ("pid", "host")},
                       "retry_history": t.system_attrs.get("retry_history", [])}
                      for t in s.get_trials(deepcopy=False)]
            out = {"study": s.study_name, "cell": cell, "arm": arm, "task": sp.task, "space_file": sp.path.name,
                   "metric": sp.metric, "direction": sp.direction, "trials_budget": sp.trials,
                   "sampler": sp.sampler, "user_attrs": s.user_attrs, "trials": trials}
            (worker.sweep / s.study_name).mkdir(parents=True, exist_ok=True)
            write_json(worker.sweep / s.study_name / "study.json", out)
            print(f"tune: wrote {worker.sweep / s.study_name / 'study.json'} ({len(trials)} trials)")


# What tools/collect_run.sh keeps of a run (never checkpoints, vocabularies or the console log), plus trial.json;
# an output file over 1 MB is stored gzip -9n, as there (plots/rescore.py reads both).
RUN_FILES = ("config.resolved.json", "command.txt", "params.txt", "metrics.jsonl", "summary.json", "eval.json",
             "gates.json", "memory.json", "machine.txt", "trial.json")
OUTPUT_DIRS = ("predictions", "segmented", "translations", "logprobs")


def copy_run(src, dst):
    dst.mkdir(parents=True, exist_ok=True)
    for f in RUN_FILES:
        if (src / f).is_file():
            shutil.copy2(src / f, dst / f)
    for d in OUTPUT_DIRS:
        if not (src / d).is_dir():
            continue
        shutil.rmtree(dst / d, ignore_errors=True)
        (dst / d).mkdir()
        for f in sorted((src / d).iterdir()):
            if not f.is_file():
                continue
            if f.stat().st_size > 1 << 20:
                with open(f, "rb") as i, gzip.GzipFile(dst / d / (f.name + ".gz"), "wb", 9, mtime=0) as o:
                    shutil.copyfileobj(i, o)
            else:
                shutil.copy2(f, dst / d / f.name)


def collect_unfinished(src, dst):
    """An unfinished study's study.json and its finished trials' run folders (those with trial.json), so that
    `import --unfinished-from` on another machine goes on from them; a running trial's folder is left out (its
    checkpoint is not kept: its slot runs again from the start)."""
    tmp = dst.with_name(dst.name + ".collecting")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    shutil.copy2(src / "study.json", tmp / "study.json")
    for run in sorted(src.glob("trial_*")) + sorted(src.glob("best_s*")):
        if (run / "trial.json").exists():
            copy_run(run, tmp / run.name)
    shutil.rmtree(dst, ignore_errors=True)
    tmp.rename(dst)


def collect(worker, to, unfinished_to=None):
    """Copies each finished study folder of the sweep to `to` without checkpoints, then writes every run's
    per-example statistics (plots/rescore.py --write-stats, which re-scores them from their kept outputs), so
    that `make rescore` checks the trials as it checks results/runs. With `unfinished_to`, each unfinished
    study goes there instead (collect_unfinished), and a study finished now leaves it."""
    seed_runs, copied, left, kept = [], 0, [], []
    for sp, cell, arm, study, pin, extra in worker.studies:
        for name in (study.study_name, study.study_name + "__seeds"):
            src = worker.sweep / name
            if not (src / "study.json").is_file():
                continue
            meta = json.loads((src / "study.json").read_text())
            slots = meta["user_attrs"].get("slots") or len(meta["user_attrs"].get("seeds", [])) or -1
            done = {t["slot"] for t in meta["trials"] if t["state"] == "COMPLETE"}
            if len(done) != slots:   # a results folder holds finished studies only: the tables need whole budgets
                if unfinished_to is not None and done:   # one without a finished trial has nothing to keep
                    collect_unfinished(src, unfinished_to / name)
                    kept.append(f"{name} ({len(done)} of {slots})")
                else:
                    left.append(f"{name} ({len(done)} of {slots})")
                continue
            if unfinished_to is not None and (unfinished_to / name).exists():
                shutil.rmtree(unfinished_to / name)
            copied += 1
            dst = to / name
            dst.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src / "study.json", dst / "study.json")
            for run in sorted(src.glob("trial_*")) + sorted(src.glob("best_s*")):
                if (run / "summary.json").exists() or (run / "trial.json").exists():
                    copy_run(run, dst / run.name)
            seed_runs += sorted(str(p) for p in list(dst.glob("trial_*")) + list(dst.glob("best_s*"))
                                if (p / "summary.json").exists())
    print(f"tune: copied {copied} finished studies to {to}" +
          (f"; not finished, their finished trials copied to {unfinished_to}: {', '.join(kept)}" if kept else "") +
          (f"; not finished, left out: {', '.join(left)}" if left else ""))
    if seed_runs:
        rc = subprocess.run(["/usr/bin/python3", str(REPO / "plots" / "rescore.py"), "--write-stats"] + seed_runs,
                            cwd=REPO).returncode
        if rc != 0:
            print(f"tune: rescore --write-stats of the seed runs exited {rc}", file=sys.stderr)
            return 1
    return 0
