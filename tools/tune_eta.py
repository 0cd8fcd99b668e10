#!/usr/bin/env python3
"""How long a sweep has left, for `tools/tune.py status` (issue 51): from the run folders alone.

A trial's duration is its run's summary.json wall_seconds (a resumed run's elapsed time carries over in its
checkpoint, so a trial stopped and resumed counts once, whole). For a study:
  - a slot whose folder has summary.json is done;
  - a slot still to run, or running (its progress.json holds the elapsed seconds so far), is expected to take
    the median finished trial of its study, or of every study of its space when its own has none yet
    (cells differ: a cell's own median replaces the space's as soon as it has one), less what it has run;
  - each seed run of the best trial (its folder <study>__seeds/best_s<seed>) is expected to take what the best
    trial took (the same configuration on another seed), or the study's median while that is not known (trials
    left, or a best trial that diverged and left no time).
The figures are lane-hours (one trial per lane at a time); the wall time is that over the number of lanes. They
are estimates from early-stopping runs, whose lengths vary by a factor of several between configurations.
"""
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "plots"))
from tune_table import best_trial  # noqa: E402  (the one rule for a cell's best trial, as the tables use it)


def _json(path):
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _run_state(folder):
    """(done, its wall seconds or None, elapsed seconds so far) of one trial's run folder; absent: not done, 0 s.
    Done: summary.json, or trial.json COMPLETE without one (a diverged run stops before writing its summary;
    its time is the elapsed_s of its last progress.json, which is also what a run still going has run)."""
    s = _json(folder / "summary.json")
    if isinstance(s, dict) and isinstance(s.get("wall_seconds"), (int, float)):
        return True, float(s["wall_seconds"]), 0.0
    p = _json(folder / "progress.json")
    elapsed = p.get("elapsed_s") if isinstance(p, dict) else None
    elapsed = float(elapsed) if isinstance(elapsed, (int, float)) else 0.0
    t = _json(folder / "trial.json")
    if isinstance(t, dict) and t.get("state") == "COMPLETE":
        return True, elapsed or None, 0.0
    return False, None, elapsed


def _left(expected, elapsed):
    # A run already past the median still has some time to go: a tenth of the median, not nothing.
    return max(expected - elapsed, 0.1 * expected)


class Estimate:
    def __init__(self, sweep, seeds):
        self.sweep, self.seeds = Path(sweep), list(seeds)
        self.studies = []    # (space, study name, slots, higher is better)
        self.trials_left = self.seeds_left = 0.0
        self.n_trials = self.n_seeds = 0
        self.unknown = []    # studies of a space with no finished trial at all: no estimate

    def add(self, space, name, slots, higher_is_better):
        self.studies.append((space, name, slots, higher_is_better))

    def _slots(self, name, slots):
        return [_run_state(self.sweep / name / f"trial_{k:03d}") for k in range(slots)]

    def _best_wall(self, name, slots, higher):
        """The wall seconds of the study's best trial, chosen by tune_table.best_trial (tune.py's rule) from the
        trials' trial.json."""
        recs = []
        for k in range(slots):
            t = _json(self.sweep / name / f"trial_{k:03d}" / "trial.json")
            if isinstance(t, dict) and t.get("state") == "COMPLETE" and isinstance(t.get("value"), (int, float)):
                recs.append({**t, "slot": k})
        return _run_state(self.sweep / name / f"trial_{best_trial(recs, higher)['slot']:03d}")[1] if recs else None

    def lines(self):
        """One text per study, in the order added, then the total: what status prints after each study's counts."""
        runs = {name: self._slots(name, slots) for _, name, slots, _ in self.studies}
        by_space = {}
        for space, name, _, _ in self.studies:
            by_space.setdefault(space, []).extend(w for _, w, _ in runs[name] if w is not None)
        out = []
        for space, name, slots, higher in self.studies:
            own = [w for _, w, _ in runs[name] if w is not None]
            typical = statistics.median(own) if own else (statistics.median(by_space[space]) if by_space[space]
                                                          else None)
            todo = [e for done, _, e in runs[name] if not done]
            text = []
            if typical is None:
                if todo:
                    self.unknown.append(name)
                    text.append(f"{len(todo)} trial{'s' if len(todo) > 1 else ''} left, no finished trial in its space "
                                f"to time {'them' if len(todo) > 1 else 'it'} by")
            else:
                left = sum(_left(typical, e) for e in todo)
                self.trials_left += left
                self.n_trials += len(todo)
                text.append(f"median trial {typical / 60:.0f} min{'' if own else ' (its space)'}"
                            + (f", {len(todo)} left: ~{left / 3600:.1f} lane-h" if todo else ""))
            seeds_dir = self.sweep / (name + "__seeds")
            seeds = self.seeds or sorted(int(p.name[6:]) for p in seeds_dir.glob("best_s*") if p.name[6:].isdigit())
            if seeds:
                states = [_run_state(seeds_dir / f"best_s{s}") for s in seeds]
                waiting = [e for done, _, e in states if not done]
                per = (self._best_wall(name, slots, higher) if not todo else None) or typical
                if waiting and per is not None:
                    left = sum(_left(per, e) for e in waiting)
                    self.seeds_left += left
                    self.n_seeds += len(waiting)
                    text.append(f"seed runs {len(seeds) - len(waiting)} of {len(seeds)} done, "
                                f"~{left / 3600:.1f} lane-h left")
                elif not waiting:
                    text.append(f"seed runs {len(seeds)} of {len(seeds)} done")
            out.append("; ".join(text))
        total = (f"left: {self.n_trials} trials, ~{self.trials_left / 3600:.1f} lane-hours"
                 + (f"; {self.n_seeds} seed runs, ~{self.seeds_left / 3600:.1f} lane-hours" if self.n_seeds else
                    ("" if self.seeds else " (seed runs not counted: give --seeds)"))
                 + f"; in all ~{(self.trials_left + self.seeds_left) / 3600:.1f} lane-hours "
                   f"(wall: that over the number of lanes)"
                 + (f"; not estimated: {', '.join(self.unknown)}" if self.unknown else ""))
        return out, total
