"""tune.py import: a sweep continued from the finished studies of a committed sweep folder (issue 51).

A sweep's storage (study.db) and trial folders live outside the repository, and a session's machine may not
survive it; `collect` keeps each finished study in the repository (study.json with every trial, the trial run
folders without checkpoints). `import` puts such studies back into a new sweep, so that the remaining studies
and the seed runs of every study's best trial go on without running a finished trial again:

  /usr/bin/python3 tools/tune.py import SPACE.json... --sweep DIR --from results/sweeps/NAME

A committed study is imported only if it is the same study: its fingerprint (space, budget, sampler, arm)
and its parameter-matched hidden size equal what the space file gives now, its binary's --version line
equals the sweep's pinned binary (same revision and kernels; otherwise the cells of one space would run on
different binaries), and every slot has a COMPLETE trial. Each is checked for every study before anything is
written. Trials are added in their original numbers (retries and interrupted trials too, as FAIL), with
their parameters, values and user attributes, so that `export` gives back the committed trials; the study
carries `imported` (from where, when). A study already in the storage is left as it is (import twice is a
no-op); a sweep folder that already holds the study's folder, without the study in the storage, is refused
(it is not ours to overwrite).
"""
import datetime
import json
import shutil
from pathlib import Path

import optuna
from optuna.trial import TrialState

import tune_study


class ImportError_(RuntimeError):
    """A committed study that cannot be imported: the message names it and what differs."""


def _planned(worker, src_root, pinned, matched_of):
    """(space, cell, arm, name, meta, folder) of every study to import; raises on the first that differs."""
    plan = []
    existing = {s.study_name for s in worker.storage.get_all_studies()}
    for sp in worker.spaces:
        pin = pinned(sp)
        for cell in sp.cells:
            for arm in sp.arms:
                name = sp.study_name(cell, arm)
                for sname in (name, name + "__seeds"):
                    src = src_root / sname / "study.json"
                    if not src.is_file():
                        continue
                    if sname in existing:
                        worker.log(f"import: {sname} is in the storage already; left as it is")
                        continue
                    meta = json.loads(src.read_text())
                    ua = meta.get("user_attrs", {})
                    where = f"{src}"
                    if sname == name:
                        if ua.get("fingerprint") != sp.fingerprint(cell, arm):
                            raise ImportError_(f"{where}: made with another space, budget, sampler or arm than "
                                               f"{sp.path} gives now (fingerprint differs); not imported")
                        m = matched_of(pin, sp, cell, arm)
                        if ua.get("matched") != m:
                            raise ImportError_(f"{where}: its parameter-matched size {json.dumps(ua.get('matched'))}"
                                               f" is not what the pinned binary gives now ({json.dumps(m)})")
                        slots = ua.get("slots")
                    else:
                        slots = len(ua.get("seeds", []))
                        if ua.get("from_study") != name:
                            raise ImportError_(f"{where}: a seeds study of {ua.get('from_study')!r}, not of {name}")
                    if ua.get("binary_version", pin["version"]) != pin["version"]:
                        raise ImportError_(f"{where}: run on binary {ua.get('binary_version')!r}, but this sweep's "
                                           f"{sp.task} binary is {pin['version']!r} (build that revision and pass "
                                           f"--bin, or start its studies afresh in another sweep)")
                    done = {t["slot"] for t in meta["trials"] if t["state"] == "COMPLETE"}
                    if not isinstance(slots, int) or done != set(range(slots)):
                        worker.log(f"import: {sname} is not finished ({len(done)} of {slots} slots); not imported")
                        continue
                    numbers = sorted(t["number"] for t in meta["trials"])
                    if numbers != list(range(len(numbers))):
                        raise ImportError_(f"{where}: trial numbers {numbers} are not 0..{len(numbers) - 1}")
                    if (worker.sweep / sname).exists():
                        raise ImportError_(f"{worker.sweep / sname} exists but the storage has no study {sname}: "
                                           f"move it away first (it is not overwritten)")
                    plan.append((sp, cell, arm, sname, meta, src.parent))
    return plan


def _trial(sp, cell, t, seeds):
    space = sp.cell_space(cell)
    system = {tune_study.SLOT: t["slot"]}
    if t.get("retry_history"):
        system["retry_history"] = t["retry_history"]
    if seeds:
        params, dists = {}, {}
        system["fixed_params"] = t["params"]
    else:
        params = t["params"]
        unknown = sorted(set(params) - set(space))
        if unknown:
            raise ImportError_(f"trial {t['number']}: parameters {unknown} are not in the space")
        dists = {k: tune_study.distribution(space[k]) for k in params}
    state = TrialState[t["state"]]
    if state == TrialState.RUNNING or state == TrialState.WAITING:
        state, t = TrialState.FAIL, {**t, "user_attrs": {**t.get("user_attrs", {}),
                                                        "fail_reason": "interrupted: not finished when collected"}}
    return optuna.create_trial(state=state, value=t["value"] if state == TrialState.COMPLETE else None,
                               params=params, distributions=dists, user_attrs=t.get("user_attrs", {}),
                               system_attrs=system)


def import_finished(worker, src_root, pinned, matched_of):
    """Imports every finished committed study of the worker's spaces that the storage lacks. Returns the count."""
    src_root = Path(src_root)
    if not src_root.is_dir():
        raise ImportError_(f"--from {src_root}: no such folder")
    plan = _planned(worker, src_root, pinned, matched_of)
    stamp = {"from": str(src_root), "at": datetime.datetime.now().isoformat(timespec="seconds")}
    for sp, cell, arm, name, meta, folder in plan:
        seeds = name.endswith("__seeds")
        trials = [_trial(sp, cell, t, seeds) for t in sorted(meta["trials"], key=lambda t: t["number"])]
        tmp = worker.sweep / (name + ".importing")
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(folder, tmp)
        (tmp / "study.json").unlink()   # export writes it again from the storage
        tmp.rename(worker.sweep / name)
        study = optuna.create_study(study_name=name, storage=worker.storage, direction=meta["direction"])
        for k, v in meta["user_attrs"].items():
            if k != "slots":
                study.set_user_attr(k, v)
        study.set_user_attr("imported", stamp)
        for t in trials:
            study.add_trial(t)
        if "slots" in meta["user_attrs"]:
            study.set_user_attr("slots", meta["user_attrs"]["slots"])   # last, as open_study does
        worker.log(f"import: {name}: {len(trials)} trials from {folder}")
    return len(plan)
