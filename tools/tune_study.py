"""The studies of the equal-budget tuner (tools/tune.py; issue 51) on Optuna's storage.

A study is one (space file, cell, arm). Its budget is fixed when it is created: `trials` WAITING trials, one
per slot 0..N-1, are enqueued at once, so the budget is a count of slots and not of calls to ask(). A worker
claims a slot by moving one WAITING trial to RUNNING (Optuna's storage refuses the move to all but one worker:
a row lock on PostgreSQL; on SQLite, one machine, a file lock serialises the claims as well). It never calls
study.ask(), which would create a trial beyond the budget when no slot is left. So with any number of
workers every slot is run once, and the budget is met exactly.

Interrupted trials. A running trial carries its worker's host and pid and a heartbeat (Optuna's
trial_heartbeats table, written by a thread while the run trains). A RUNNING trial whose heartbeat is older
than the grace period, or whose worker on this host is gone, or that was claimed longer than the grace period
ago by a worker that never recorded its pid (it stopped inside claim()), was interrupted (SIGKILL, a crash, the
session's end): the next worker marks it FAIL (reason in its user attrs: "interrupted") and enqueues its slot again as a
WAITING retry with the same parameters; the retry resumes the slot's run folder from its checkpoint. An
interrupted trial is never counted as a finished one: only COMPLETE trials carry a value.

Sampling. The parameters of slot k are drawn by the space's sampler, seeded with (sampler seed, k), so
random search gives the same configurations whatever the number of workers or the order they run in (TPE
also reads the trials finished so far, so its draws depend on that order).
"""
import contextlib
import datetime
import fcntl
import json
import os
import socket
import threading
import time
from pathlib import Path

import optuna
import sqlalchemy.exc
from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution
from optuna.storages import RDBStorage
from optuna.trial import TrialState

optuna.logging.set_verbosity(optuna.logging.WARNING)
SLOT = "slot"


def write_json(path, obj):
    """A study's or a trial's record (study.json, trial.json), written whole or not at all."""
    tmp = Path(str(path) + ".tmp")
    tmp.write_text(json.dumps(obj, indent=1, sort_keys=True) + "\n")
    tmp.rename(path)


def storage_for(url, sweep_dir, heartbeat=20, grace=120):
    """An RDBStorage for `url` (default: SQLite file study.db in the sweep folder)."""
    if not url:
        url = f"sqlite:///{Path(sweep_dir).resolve() / 'study.db'}"
    kwargs = {"connect_args": {"timeout": 120}} if url.startswith("sqlite") else {}
    # A live trial beats several times within the grace period: with a 20 s beat and --grace 3, a worker on
    # another machine would take every running trial for an interrupted one and run its slot a second time.
    heartbeat = max(1, min(heartbeat, grace // 4))
    for attempt in range(6):
        try:
            return RDBStorage(url, engine_kwargs=kwargs, heartbeat_interval=heartbeat, grace_period=grace)
        except (sqlalchemy.exc.ProgrammingError, sqlalchemy.exc.IntegrityError, sqlalchemy.exc.OperationalError):
            # Workers started at once on a new database race to create Optuna's tables (PostgreSQL: 'type
            # "studydirection" already exists'); the loser's transaction is rolled back, and it finds them made.
            if attempt == 5:
                raise
            time.sleep(0.5 * (attempt + 1))


@contextlib.contextmanager
def claim_lock(storage, sweep_dir):
    """Serialises claims and retries on SQLite (all its workers share one machine); a no-op elsewhere."""
    if not getattr(storage, "_backend", storage).url.startswith("sqlite"):
        yield
        return
    with file_lock(sweep_dir):
        yield


@contextlib.contextmanager
def file_lock(sweep_dir):
    Path(sweep_dir).mkdir(parents=True, exist_ok=True)
    with open(Path(sweep_dir) / ".claim.lock", "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def sampler_for(spec, slot):
    seed = (int(spec.get("seed", 0)) * 1_000_003 + slot) % (2 ** 32)
    if spec.get("name", "random") == "tpe":
        return optuna.samplers.TPESampler(seed=seed)
    return optuna.samplers.RandomSampler(seed=seed)


def distribution(entry):
    if "choices" in entry:
        return CategoricalDistribution(entry["choices"])
    lo, hi = entry.get("range", entry.get("log_range"))
    log = "log_range" in entry
    if entry.get("int"):
        return IntDistribution(int(lo), int(hi), log=log)
    return FloatDistribution(float(lo), float(hi), log=log)


def open_study(storage, name, direction, slots, attrs, wait_s=120, slot_attrs=None):
    """Creates the study with its `slots` WAITING trials, or loads it. `attrs` (its fingerprint, the binary's
    version line, ...) are stored by the creator; a loaded study whose stored attrs differ is refused.
    `slot_attrs[k]`: further system attrs of slot k's trial (a seed run's fixed parameters)."""
    try:
        study = optuna.create_study(study_name=name, storage=storage, direction=direction)
        created = True
    except optuna.exceptions.DuplicatedStudyError:
        study = optuna.load_study(study_name=name, storage=storage)
        created = False
    if created:
        for k, v in attrs.items():
            study.set_user_attr(k, v)
        for k in range(slots):
            study.add_trial(optuna.create_trial(state=TrialState.WAITING,
                                                system_attrs={SLOT: k, **(slot_attrs[k] if slot_attrs else {})}))
        study.set_user_attr("slots", slots)   # last: a study with this attr has all its slots
        return study
    deadline = time.time() + wait_s
    while "slots" not in study.user_attrs:
        if time.time() > deadline:
            raise RuntimeError(f"study {name}: created but its slots were never all enqueued (its creator died "
                               f"while creating it); delete it (optuna delete-study --study-name {name}) and start again")
        time.sleep(1)
        study = optuna.load_study(study_name=name, storage=storage)
    for k, v in attrs.items():
        if study.user_attrs.get(k) != v:
            raise RuntimeError(f"study {name} in the storage was made with another {k}: stored "
                               f"{json.dumps(study.user_attrs.get(k))[:300]}, now {json.dumps(v)[:300]} (a study keeps "
                               f"its space, budget and binary; name a new sweep folder or storage to change them)")
    return study


def _alive_here(trial):
    if trial.user_attrs.get("host") != socket.gethostname():
        return None   # unknown: another machine's worker, judged by its heartbeat only
    pid = trial.user_attrs.get("pid")
    if not isinstance(pid, int):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        return "tune" in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return False


def _orphaned(trial, grace):
    """Claimed (RUNNING) longer than the grace period ago, but its worker never recorded its pid: it stopped
    inside claim(), before its first heartbeat, so Optuna's heartbeat check never sees it."""
    start = trial.datetime_start
    return ("pid" not in trial.user_attrs and start is not None
            and (datetime.datetime.now() - start).total_seconds() > grace)


def fail_interrupted(study, sweep_dir, log):
    """Marks FAIL every RUNNING trial whose worker is gone and enqueues its slot again (same parameters).
    Returns the (number, slot) pairs it failed."""
    storage = study._storage
    stale = set(storage._get_stale_trial_ids(study._study_id))
    grace = getattr(storage, "_backend", storage).grace_period or 120
    failed = []
    with claim_lock(storage, sweep_dir):
        for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
            here = _alive_here(t)
            orphan = here is None and _orphaned(t, grace)
            if not (here is False or (here is None and t._trial_id in stale) or orphan):
                continue
            why = "process gone" if here is False else "stopped while claiming it" if orphan else "no heartbeat"
            try:
                storage.set_trial_user_attr(t._trial_id, "fail_reason", "interrupted: its worker stopped mid-trial "
                                            f"({why})")
                if not storage.set_trial_state_values(t._trial_id, TrialState.FAIL):
                    continue
            except RuntimeError:   # finished by someone else meanwhile
                continue
            requeue(study, t)
            failed.append((t.number, t.system_attrs.get(SLOT)))
            log(f"{study.study_name}: trial {t.number} (slot {t.system_attrs.get(SLOT)}) was interrupted; marked "
                f"failed, its slot enqueued again (it resumes from the run folder's checkpoint)")
    return failed


def requeue(study, t):
    """A WAITING copy of trial `t` for the same slot, with its parameters (Optuna's RetryFailedTrialCallback)."""
    history = list(t.system_attrs.get("retry_history", [])) + [t.number]
    study.add_trial(optuna.create_trial(state=TrialState.WAITING, params=t.params, distributions=t.distributions,
                                        system_attrs={SLOT: t.system_attrs[SLOT], "retry_history": history,
                                                      **({"fixed_params": t.system_attrs["fixed_params"]}
                                                         if "fixed_params" in t.system_attrs else {})}))


def claim(study, sweep_dir):
    """One WAITING trial of `study` moved to RUNNING by this worker (lowest slot first), or None."""
    storage = study._storage
    with claim_lock(storage, sweep_dir):
        waiting = sorted(study.get_trials(deepcopy=False, states=(TrialState.WAITING,)),
                         key=lambda t: (t.system_attrs.get(SLOT, 0), t.number))
        for t in waiting:
            try:
                if storage.set_trial_state_values(t._trial_id, TrialState.RUNNING):
                    # The heartbeat first: a claimed trial without one has no pid either (see _orphaned).
                    storage.record_heartbeat(t._trial_id)
                    storage.set_trial_user_attr(t._trial_id, "host", socket.gethostname())
                    storage.set_trial_user_attr(t._trial_id, "pid", os.getpid())
                    return t
            except RuntimeError:
                continue
    return None


class Heartbeat:
    """Writes the trial's heartbeat every interval while the run trains."""

    def __init__(self, storage, trial_id):
        self._storage, self._id = storage, trial_id
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, daemon=True)

    def _beat(self):
        interval = self._storage.get_heartbeat_interval() or 20
        while not self._stop.wait(interval):
            try:
                self._storage.record_heartbeat(self._id)
            except Exception:   # a busy database: the next beat tries again
                pass

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def suggest(study, frozen, space, sampler_spec):
    """The slot's parameters: drawn with the slot-seeded sampler, or the stored ones of a retry."""
    slot = frozen.system_attrs[SLOT]
    study.sampler = sampler_for(sampler_spec, slot)
    trial = optuna.Trial(study, frozen._trial_id)
    params = {}
    for key, entry in space.items():
        d = distribution(entry)
        if isinstance(d, CategoricalDistribution):
            v = trial.suggest_categorical(key, entry["choices"])
        elif isinstance(d, IntDistribution):
            v = trial.suggest_int(key, d.low, d.high, log=d.log)
        else:
            v = trial.suggest_float(key, d.low, d.high, log=d.log)
        params[key] = v
    return trial, params


def summary_of(study):
    """Counts by state, and whether every slot has a COMPLETE trial."""
    trials = study.get_trials(deepcopy=False)
    by = {}
    for t in trials:
        by[t.state.name] = by.get(t.state.name, 0) + 1
    done = {t.system_attrs.get(SLOT) for t in trials if t.state == TrialState.COMPLETE}
    return by, len(done) == study.user_attrs.get("slots", -1)
