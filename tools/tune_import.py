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
carries `imported` (from where, when).

--replay: a study run on another binary (another machine's build of the same revision, or a machine whose
libraries have other kernels) is imported only if its shortest finished trial, run again on this sweep's
binary in DIR/.replay/, gives the committed results: every metrics.jsonl record equal but for its wall-clock
keys, every kept output byte for byte. The study then records the new --version line and `replayed` (the
old line, the slot, what was compared, TWIN_GEMM_BACKENDS). Products of the same shapes in the same library
and code path round the same on any CPU that runs that code path; another routing (BLIS instead of Eigen
for the thin products, say) does not, and the replay refuses it; nor does the same revision compiled with
another -mtune (README, "A sweep folder outlives ..."). `--jobs N` runs N replays at once. `--replay-epochs K`
runs the trial again for its first K epochs only (train.max_epochs=K; nothing a run does before its cap depends
on the cap) and compares the committed records of those epochs, every training and dev record, but not the
kept outputs (of the best epoch): a large sweep's replays then cost minutes, not lane-hours, and every kernel
of training and of the dev evaluation has still run and been compared. A study already in the storage is left
as it is (import twice is a no-op); a sweep folder that already holds the study's folder, without the study in
the storage, is refused (it is not ours to overwrite).

--unfinished-from DIR (written by `collect --unfinished-to DIR`): a machine may not outlive a session, and a
study half run when it stops would otherwise be run again from its first slot. Such a study is imported with
its finished trials (COMPLETE, each with its run folder) and its failed ones as they are; a trial that was
running when collected becomes FAIL (interrupted) and its slot is enqueued again with its parameters, as a
worker does for an interrupted trial; a waiting slot stays waiting. The sampler draws slot k's parameters
from (seed, k) alone (random search), so the slots left get the parameters they would have had. The same
checks hold (fingerprint, matched size, binary or --replay on one of its finished trials); a study found
finished in --from is taken from there.

Import takes only the spaces it is named, and any later command opens the studies of the spaces it is named,
creating those the storage lacks. So the sweep remembers the folders it imported from (SWEEP/imports.json), and
a command that would create a study one of them holds as importable (finished in --from, or unfinished with a
finished trial in --unfinished-from, made with the same fingerprint) is refused before it creates anything:
otherwise a space imported later than another, or a `status` over every space, would start that study again
from its first slot, and a later import would leave the committed one out as "in the storage already".
"""
import concurrent.futures
import datetime
import gzip
import json
import os
import re
import shutil
from pathlib import Path

import optuna
from optuna.trial import TrialState

import tune_study

OUTPUT_DIRS = ("predictions", "segmented", "translations", "logprobs")   # tune.py's, the kept system outputs


class ImportError_(RuntimeError):
    """A committed study that cannot be imported: the message names it and what differs."""


def _slots_done(meta):
    ua = meta.get("user_attrs", {})
    slots = ua.get("slots") if "slots" in ua else len(ua.get("seeds", []))
    return slots, {t["slot"] for t in meta["trials"] if t["state"] == "COMPLETE"}


SOURCES = "imports.json"


def read_sources(sweep):
    """SWEEP/imports.json's entries ([] when there is none); a file import did not write is an error naming it."""
    path = Path(sweep) / SOURCES
    if not path.is_file():
        return []
    try:
        known = json.loads(path.read_text())
        if isinstance(known, list) and all(isinstance(e, dict) and isinstance(e.get("from"), str) for e in known):
            return known
        err = 'expected a list of {"from": DIR, "unfinished_from": DIR or null}'
    except (ValueError, UnicodeDecodeError) as e:
        err = f"not JSON ({e})"
    raise RuntimeError(f"{path}: {err}, as import writes it (the folders this sweep imported from); mend or "
                       f"remove it")


def record_sources(sweep, src_root, unfinished_root):
    """Adds the folders of a successful import to SWEEP/imports.json (absolute paths, each pair once)."""
    path = Path(sweep) / SOURCES
    known = read_sources(sweep)
    entry = {"from": str(Path(src_root).resolve()),
             "unfinished_from": str(Path(unfinished_root).resolve()) if unfinished_root is not None else None}
    if entry in known:
        return
    tmp = path.with_name(SOURCES + ".tmp")
    tmp.write_text(json.dumps(known + [entry], indent=1) + "\n")
    tmp.replace(path)


def _keeps_a_trial(meta):
    return any(t["state"] == "COMPLETE" and not t["user_attrs"].get("diverged") for t in meta["trials"])


def held_by_a_source(sources, name, fingerprint):
    """The folder of an import source (read_sources) that holds study `name` as import would take it (finished
    in --from; in --unfinished-from with a finished trial), made with `fingerprint`; else None."""
    for entry in sources:
        roots = [(Path(entry["from"]), False)]
        if entry.get("unfinished_from"):
            roots.append((Path(entry["unfinished_from"]), True))
        for root, partial in roots:
            src = root / name / "study.json"
            if not src.is_file():
                continue
            meta = json.loads(src.read_text())
            if meta.get("user_attrs", {}).get("fingerprint") != fingerprint:
                continue
            slots, done = _slots_done(meta)
            importable = _keeps_a_trial(meta) if partial else done == set(range(slots))
            if importable:
                return root / name
    return None


def _source(src_root, unfinished_root, sname):
    """The study.json to import `sname` from, and whether it may be unfinished: a finished one in --from
    first, then --unfinished-from."""
    src = src_root / sname / "study.json"
    if src.is_file():
        return src, False
    if unfinished_root is not None and (unfinished_root / sname / "study.json").is_file():
        return unfinished_root / sname / "study.json", True
    return None, False


def _planned(worker, src_root, pinned, matched_of, unfinished_root=None):
    """(space, cell, arm, name, meta, folder, replay, unfinished) of every study to import; raises on the
    first that differs."""
    plan = []
    existing = {s.study_name for s in worker.storage.get_all_studies()}
    for sp in worker.spaces:
        pin = pinned(sp)
        for cell in sp.cells:
            for arm in sp.arms:
                name = sp.study_name(cell, arm)
                for sname in (name, name + "__seeds"):
                    src, partial = _source(src_root, unfinished_root, sname)
                    if src is None:
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
                    replay = None
                    if ua.get("binary_version", pin["version"]) != pin["version"]:
                        if not worker.args.replay or sname != name:
                            raise ImportError_(
                                f"{where}: run on binary {ua.get('binary_version')!r}, but this sweep's {sp.task} "
                                f"binary is {pin['version']!r} (build that revision and pass --bin; or --replay, "
                                f"which imports it only if one of its trials run again on this binary gives the "
                                f"same results; or start its studies afresh in another sweep)")
                        replay = pin
                    done = {t["slot"] for t in meta["trials"] if t["state"] == "COMPLETE"}
                    if not isinstance(slots, int) or not done <= set(range(slots)):
                        raise ImportError_(f"{where}: finished slots {sorted(done)} are not within its {slots} slots")
                    unfinished = done != set(range(slots))
                    if unfinished and not partial:
                        worker.log(f"import: {sname} is not finished ({len(done)} of {slots} slots); not imported")
                        continue
                    if partial and sname != name and not any(p[3] == name for p in plan) and name not in existing:
                        worker.log(f"import: {sname}: its study {name} is not imported; left to run afresh")
                        continue
                    if partial and not _keeps_a_trial(meta):
                        worker.log(f"import: {sname}: no finished trial to keep or replay; left to run afresh")
                        continue
                    numbers = sorted(t["number"] for t in meta["trials"])
                    if numbers != list(range(len(numbers))):
                        raise ImportError_(f"{where}: trial numbers {numbers} are not 0..{len(numbers) - 1}")
                    if (worker.sweep / sname).exists():
                        raise ImportError_(f"{worker.sweep / sname} exists but the storage has no study {sname}: "
                                           f"move it away first (it is not overwritten)")
                    if replay is None and sname != name:
                        replay = next((p[6] for p in plan if p[3] == name), None)   # its study's verdict
                    plan.append((sp, cell, arm, sname, meta, src.parent, replay, unfinished))
    return plan


TIMING = re.compile(r"(_s|_per_s|seconds)$")   # wall-clock keys of metrics.jsonl: the only ones a replay may change


def _records(path):
    out = []
    for line in Path(path).read_text().splitlines():
        if line.strip():
            out.append({k: v for k, v in json.loads(line).items() if not TIMING.search(k)})
    return out


def same_results(was, now, epochs=None):
    """None if run folder `now` gave what `was` kept (metrics.jsonl without its timings, every kept output byte
    for byte), else the first difference in words; and what was compared. With `epochs` (`now` was run with
    train.max_epochs=epochs, `was` ran longer): `was`'s records of those first epochs, every one, and no kept
    output (those are of `was`'s best epoch, which `now` may not have reached)."""
    a, b = _records(Path(was) / "metrics.jsonl"), _records(Path(now) / "metrics.jsonl")
    if epochs is not None:
        total = len(a)
        a = [r for r in a if isinstance(r.get("epoch"), int) and r["epoch"] <= epochs]
        compared = [f"metrics.jsonl (epochs 1 to {epochs}: {len(a)} of {total} records, timings left out; "
                    f"kept outputs not compared)"]
        if not a:   # nothing to compare is no evidence
            return f"the committed run has no metrics.jsonl record with an epoch from 1 to {epochs}", compared
    else:
        compared = [f"metrics.jsonl ({len(a)} records, timings left out)"]
    if len(a) != len(b):
        return f"metrics.jsonl has {len(b)} records, the committed run {len(a)}", compared
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            keys = sorted(k for k in set(x) | set(y) if x.get(k) != y.get(k))
            return f"metrics.jsonl record {i + 1} differs in {keys}: {[x.get(k) for k in keys]} vs " \
                   f"{[y.get(k) for k in keys]}", compared
    for kept in ([] if epochs is not None else sorted(Path(was).glob("*/*"))):
        if kept.parent.name not in OUTPUT_DIRS or not kept.is_file():
            continue
        data = gzip.decompress(kept.read_bytes()) if kept.suffix == ".gz" else kept.read_bytes()
        mine = Path(now) / kept.parent.name / kept.name.removesuffix(".gz")
        if not mine.is_file() or mine.read_bytes() != data:
            return f"{kept.parent.name}/{mine.name} differs", compared
        compared.append(f"{kept.parent.name}/{mine.name}")
    return None, compared


def _replayed(worker, sp, name, meta, folder, pin, run):
    """Runs the study's shortest finished trial again on the sweep's binary; its evidence, or raises."""
    done = [t for t in meta["trials"] if t["state"] == "COMPLETE" and not t["user_attrs"].get("diverged")]
    t = min(done, key=lambda t: (t["user_attrs"].get("epochs_done") or 10 ** 9, t["slot"]))
    trial_dir = folder / f"trial_{t['slot']:03d}"
    record = json.loads((trial_dir / "trial.json").read_text())
    out = worker.sweep / ".replay" / name / trial_dir.name
    shutil.rmtree(out, ignore_errors=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    sets, epochs = dict(record["sets"]), t["user_attrs"].get("epochs_done")
    first = getattr(worker.args, "replay_epochs", 0) or 0
    first = first if first and (epochs is None or epochs > first) else None
    if first is not None:   # a run's records of its first epochs do not depend on its epoch cap
        sets["train.max_epochs"] = first
    worker.log(f"import: {name}: trial slot {t['slot']} ({epochs} epochs) run again on {pin['path']} in {out}"
               + (f", its first {first} epoch(s)" if first is not None else ""))
    rc = run(sp, sets, out)
    if rc != 0:
        raise ImportError_(f"{name}: its trial slot {t['slot']} run again on this binary exited {rc} (log {out}.log)")
    diff, compared = same_results(trial_dir, out, first)
    if diff:
        raise ImportError_(f"{name}: its trial slot {t['slot']} run again on {pin['version']!r} does not give the "
                           f"committed results ({diff}); not imported (a study keeps one binary's rounding)")
    return {"binary_version_was": meta["user_attrs"].get("binary_version"), "slot": t["slot"], "equal": compared,
            "binary_sha256": pin["sha256"], "TWIN_GEMM_BACKENDS": os.environ.get("TWIN_GEMM_BACKENDS"),
            "epochs": first or epochs}


def _replay_all(worker, replays, run, jobs):
    """The evidence of every study's replay by name, `jobs` replays at a time (each is a one-thread run: on a new
    machine the replays of a large sweep are lane-hours that would otherwise run one after another). Raises
    the first failure in the plan's order, so the message does not depend on which replay ended first."""
    if jobs <= 1:
        return {name: _replayed(worker, sp, name, meta, folder, pin, run) for sp, name, meta, folder, pin in replays}
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=jobs)
    try:
        futures = {name: pool.submit(_replayed, worker, sp, name, meta, folder, pin, run)
                   for sp, name, meta, folder, pin in replays}
        return {name: f.result() for name, f in futures.items()}
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _trial(sp, cell, t, seeds, unfinished=False, retry_of=None):
    """The optuna trial of exported trial `t`. A finished study's RUNNING or WAITING trial (a retry left
    over) becomes FAIL; an unfinished one's WAITING trial stays WAITING. `retry_of`: the number of the
    interrupted trial whose slot this WAITING trial runs again (its retry history gains it)."""
    space = sp.cell_space(cell)
    system = {tune_study.SLOT: t["slot"]}
    history = list(t.get("retry_history") or []) + ([retry_of] if retry_of is not None else [])
    if history:
        system["retry_history"] = history
    if seeds:
        params, dists = {}, {}
        system["fixed_params"] = t["params"]
    else:
        params = t["params"]
        unknown = sorted(set(params) - set(space))
        if unknown:
            raise ImportError_(f"trial {t['number']}: parameters {unknown} are not in the space")
        dists = {k: tune_study.distribution(space[k]) for k in params}
    state = TrialState[t["state"]] if retry_of is None else TrialState.WAITING
    if state == TrialState.RUNNING or (state == TrialState.WAITING and not unfinished):
        state, t = TrialState.FAIL, {**t, "user_attrs": {**t.get("user_attrs", {}),
                                                        "fail_reason": "interrupted: not finished when collected"}}
    user_attrs = {} if state == TrialState.WAITING else t.get("user_attrs", {})
    return optuna.create_trial(state=state, value=t["value"] if state == TrialState.COMPLETE else None,
                               params=params, distributions=dists, user_attrs=user_attrs, system_attrs=system)


def _trials(sp, cell, meta, seeds, unfinished):
    """Every trial of the exported study in its numbers; an unfinished study's slots that have neither a
    finished nor a waiting trial (one was running when collected) get a waiting retry after them."""
    trials = sorted(meta["trials"], key=lambda t: t["number"])
    out = [_trial(sp, cell, t, seeds, unfinished) for t in trials]
    if unfinished:
        covered = {t["slot"] for t in trials if t["state"] in ("COMPLETE", "WAITING")}
        last = {}
        for t in trials:
            last[t["slot"]] = t
        for slot in sorted(set(last) - covered):
            out.append(_trial(sp, cell, last[slot], seeds, True, retry_of=last[slot]["number"]))
    return out


def import_finished(worker, src_root, pinned, matched_of, run=None, unfinished_root=None):
    """Imports every finished committed study of the worker's spaces that the storage lacks, and with
    `unfinished_root` the unfinished ones found there. Returns the count.
    `run(space, sets, folder)`: runs a trial's --set pairs on the sweep's binary (for --replay)."""
    src_root = Path(src_root)
    if not src_root.is_dir():
        raise ImportError_(f"--from {src_root}: no such folder")
    if unfinished_root is not None:
        unfinished_root = Path(unfinished_root)
        if not unfinished_root.is_dir():
            raise ImportError_(f"--unfinished-from {unfinished_root}: no such folder")
    read_sources(worker.sweep)   # read again at the end: a file import cannot add to is refused first
    plan = _planned(worker, src_root, pinned, matched_of, unfinished_root)
    replays = [(sp, name, meta, folder, pin) for sp, cell, arm, name, meta, folder, pin, _ in plan
               if pin is not None and not name.endswith("__seeds")]
    evidence = _replay_all(worker, replays, run, getattr(worker.args, "jobs", 1) or 1)   # before anything is written
    for sp, cell, arm, name, meta, folder, pin, unfinished in plan:
        seeds = name.endswith("__seeds")
        trials = _trials(sp, cell, meta, seeds, unfinished)
        stamp = {"from": str(folder.parent), "at": datetime.datetime.now().isoformat(timespec="seconds")}
        if unfinished:
            stamp["unfinished"] = f"{len(_slots_done(meta)[1])} of {_slots_done(meta)[0]} slots"
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
        if pin is not None:   # replayed equal (a seeds study: its study was): the sweep's binary from now on
            if "binary_version" in meta["user_attrs"]:
                study.set_user_attr("binary_version", pin["version"])
            study.set_user_attr("replayed", evidence[name.removesuffix("__seeds")])
        for t in trials:
            study.add_trial(t)
        if "slots" in meta["user_attrs"]:
            study.set_user_attr("slots", meta["user_attrs"]["slots"])   # last, as open_study does
        worker.log(f"import: {name}: {len(trials)} trials from {folder}"
                   + (f" (unfinished: {stamp['unfinished']} finished)" if unfinished else ""))
    record_sources(worker.sweep, src_root, unfinished_root)
    return len(plan)
