"""Search-space files of the equal-budget tuner (tools/tune.py; issue 51): reading and checking them.

A space file (experiments/tune/<task>.json) says, for one task and protocol, what every cell's study shares
(the base experiment, the budget, the sampler, the fixed keys and the shared space) and what is each cell's
own (the keys that make the cell, and the choices of its form: bias placement, bias initialisation, output):

  {"task": "classify", "experiment": "../classify/sst2_lstm.json", "protocol": "...",
   "metric": "accuracy", "trials": 16, "sampler": {"name": "random", "seed": 51},
   "fixed": {"train.max_epochs": 100},
   "space": {"train.optim.lr": {"log_range": [1e-4, 1e-2]}, "model.dropout": {"range": [0, 0.6]},
             "model.init_scale": {"log_range": [0.01, 0.3], "also": ["model.cell.init_scale"]}},
   "cells": {"atr": {"set": {"model.cell.type": "atr"},
                     "space": {"model.cell.bias": {"choices": ["input", "both"]}}}},
   "arms": {"hidden": {}, "params": {"match": "lstm", "hidden_key": "model.cell.hidden", "tolerance": 0.05}}}

An entry is exactly one of {"range": [lo, hi]}, {"log_range": [lo, hi]} (lo > 0), {"choices": [v, ...]}
(non-empty, no repeats), optionally with "int": true (an integer range) and "also": [keys] (further keys set
to the same value, e.g. a model's and its cell's init scale). Every key (of fixed, set, space and also) must
be one the task reads (its --print-keys), with a value of that key's type inside its allowed range or
choices. Every mistake is an Error naming the file and the key path, raised before any trial starts.
"""
import json
import math
from pathlib import Path

TOP_KEYS = {"task", "experiment", "protocol", "metric", "direction", "trials", "sampler", "fixed", "space",
            "cells", "arms", "threads", "note"}
SAMPLERS = {"random", "tpe"}
ENTRY_KINDS = ("range", "log_range", "choices")
ENTRY_KEYS = set(ENTRY_KINDS) | {"int", "also"}
ARM_KEYS = {"match", "hidden_key", "tolerance"}
METRICS = {"classify": "accuracy", "snli": "accuracy", "ner": "f1", "cws": "f1", "lm": "ppl"}
# The dev metrics each task's summary.json reports under best_dev (a number there), the selection can be on;
# the first is the default. Lower is better for these:
DEV_METRICS = {"classify": ["accuracy"], "snli": ["accuracy"], "ner": ["f1", "precision", "recall", "token_accuracy"],
               "cws": ["f1", "precision", "recall", "iv_recall", "oov_recall"], "lm": ["ppl", "loss"]}
LOWER_IS_BETTER = {"ppl", "loss"}


class SpaceError(ValueError):
    """A bad space file: the message names the file and the key."""


class Space:
    """A checked space file. `keys` maps each task key to its --print-keys row."""

    def __init__(self, path, raw, keys):
        self.path = Path(path)
        self.raw = raw
        self.task = raw["task"]
        self.experiment = (self.path.parent / raw["experiment"]).resolve()
        self.protocol = raw.get("protocol", "")
        self.metric = raw.get("metric", METRICS.get(self.task, ""))
        self.direction = raw.get("direction", "minimize" if self.metric in LOWER_IS_BETTER else "maximize")
        self.trials = raw["trials"]
        self.sampler = dict(raw.get("sampler", {"name": "random", "seed": 0}))
        self.sampler.setdefault("seed", 0)
        self.fixed = raw.get("fixed", {})
        self.space = raw.get("space", {})
        self.cells = raw["cells"]
        self.arms = raw.get("arms", {"hidden": {}})
        self.threads = raw.get("threads", 1)
        self.keys = keys

    def cell_space(self, cell):
        """The shared space followed by the cell's own entries (its form), in file order."""
        both = dict(self.space)
        both.update(self.cells[cell].get("space", {}))
        return both

    def study_name(self, cell, arm):
        return f"{self.path.stem}_{cell}_{arm}"

    def fingerprint(self, cell, arm):
        """What a study is: a study stored under the same name with another fingerprint is refused."""
        return json.dumps({"task": self.task, "experiment": str(self.raw["experiment"]), "metric": self.metric,
                           "direction": self.direction, "trials": self.trials, "sampler": self.sampler,
                           "fixed": self.fixed, "space": self.cell_space(cell), "set": self.cells[cell].get("set", {}),
                           "arm": self.arms[arm]}, sort_keys=True)


def _fail(path, where, what):
    raise SpaceError(f"{path}: {where}: {what}")


def _is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _parse_allowed(row):
    """A --print-keys row's allowed values: ('range', lo, hi), ('choices', [..]) or None."""
    a = row.get("allowed")
    if isinstance(a, list):
        return ("choices", a)
    if row.get("type") == "choice" and isinstance(a, str) and a:
        return ("choices", [c.strip() for c in a.split("|")])
    if isinstance(a, str) and a.startswith("[") and "," in a:
        lo, hi = a.strip("[]").split(",", 1)
        conv = {"2^64-1": 2.0 ** 64 - 1}
        try:
            return ("range", float(conv.get(lo.strip(), lo)), float(conv.get(hi.strip(), hi)))
        except ValueError:
            return None
    return None


def _check_known(path, where, key, keys):
    if key not in keys:
        near = sorted(keys, key=lambda k: _distance(k, key))[:1]
        _fail(path, where, f"'{key}' is not a key the task reads" + (f" (did you mean '{near[0]}'?)" if near else ""))


def check_value(path, where, key, value, keys):
    """`value` fits task key `key` (type, range, choices), else SpaceError naming `where`."""
    _check_known(path, where, key, keys)
    row = keys[key]
    t = row.get("type", "")
    ok = {"int": lambda v: isinstance(v, int) and not isinstance(v, bool),
          "number": _is_num, "bool": lambda v: isinstance(v, bool),
          "string": lambda v: isinstance(v, str), "choice": lambda v: isinstance(v, str)}.get(t.split(" ")[0], lambda v: True)
    if not ok(value):
        _fail(path, where, f"{json.dumps(value)} is not of {key}'s type {t}")
    allowed = _parse_allowed(row)
    if allowed and allowed[0] == "choices" and value not in allowed[1]:
        _fail(path, where, f"{json.dumps(value)} is not one of {key}'s choices {allowed[1]}")
    if allowed and allowed[0] == "range" and _is_num(value) and not allowed[1] <= value <= allowed[2]:
        _fail(path, where, f"{value} is outside {key}'s allowed range {row.get('allowed')}")


def _distance(a, b):
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def check_entry(path, where, key, entry, keys):
    if not isinstance(entry, dict):
        _fail(path, where, "an entry is an object: {\"range\": [lo, hi]}, {\"log_range\": [lo, hi]} or "
                           "{\"choices\": [...]}")
    unknown = sorted(set(entry) - ENTRY_KEYS)
    if unknown:
        _fail(path, f"{where}.{unknown[0]}", f"unknown field (allowed: {', '.join(sorted(ENTRY_KEYS))})")
    kinds = [k for k in ENTRY_KINDS if k in entry]
    if len(kinds) != 1:
        _fail(path, where, f"needs exactly one of range, log_range, choices (got {kinds or 'none'})")
    kind = kinds[0]
    spec = entry[kind]
    also = entry.get("also", [])
    if not isinstance(also, list) or not all(isinstance(a, str) for a in also):
        _fail(path, f"{where}.also", "is a list of key paths")
    if "int" in entry and not isinstance(entry["int"], bool):
        _fail(path, f"{where}.int", "is true or false")
    targets = [key] + also
    for k in targets:   # first: a key the task does not read is named as such, whatever its entry says
        _check_known(path, where if k == key else f"{where}.also", k, keys)
    if kind == "choices":
        if not isinstance(spec, list) or not spec:
            _fail(path, f"{where}.choices", f"is a non-empty list of the values to try, got {json.dumps(spec)}")
        if len({json.dumps(v) for v in spec}) != len(spec):
            _fail(path, f"{where}.choices", "lists a value twice")
        for k in targets:
            for v in spec:
                check_value(path, f"{where}.choices", k, v, keys)
        return
    if not (isinstance(spec, list) and len(spec) == 2 and all(_is_num(v) for v in spec)):
        _fail(path, f"{where}.{kind}", "is [lo, hi], two finite numbers")
    lo, hi = spec
    if lo == hi:
        _fail(path, f"{where}.{kind}", f"is empty: [{lo}, {hi}] (lo < hi needed; a value not searched belongs "
                                       f"in \"fixed\")")
    if lo > hi:
        _fail(path, f"{where}.{kind}", f"is inverted: [{lo}, {hi}] (lo < hi needed)")
    if kind == "log_range" and lo <= 0:
        _fail(path, f"{where}.log_range", f"needs lo > 0 for a log scale, got {lo}")
    is_int = entry.get("int", False)
    if is_int and not (float(lo).is_integer() and float(hi).is_integer()):
        _fail(path, f"{where}.{kind}", "an integer range has integer ends")
    for k in targets:
        t = keys.get(k, {}).get("type", "")
        if k in keys and t not in ("int", "number"):
            _fail(path, where, f"a range needs a numeric key; {k} is of type {t}")
        if k in keys and t == "int" and not is_int:
            _fail(path, where, f"{k} is an integer key: add \"int\": true")
        for v in (int(lo) if is_int else lo, int(hi) if is_int else hi):
            check_value(path, f"{where}.{kind}", k, v, keys)


def load_space(path, task_keys):
    """Reads and checks `path`. `task_keys(task)` returns the task's --print-keys rows (a list of dicts)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise SpaceError(f"{path}: cannot read: {e.strerror}") from e
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as e:
        raise SpaceError(f"{path}:{e.lineno}:{e.colno}: not valid JSON: {e.msg}") from e
    if not isinstance(raw, dict):
        _fail(path, "(top)", "a space file is a JSON object")
    unknown = sorted(set(raw) - TOP_KEYS)
    if unknown:
        near = min(sorted(TOP_KEYS), key=lambda k: _distance(k, unknown[0]))
        hint = f" (did you mean '{near}'?)" if _distance(near, unknown[0]) <= 2 else ""
        _fail(path, unknown[0], f"unknown key{hint}; allowed: {', '.join(sorted(TOP_KEYS))}")
    for k in ("task", "experiment", "trials", "cells"):
        if k not in raw:
            _fail(path, k, "is required")
    if raw["task"] not in METRICS:
        _fail(path, "task", f"'{raw['task']}' is not a task here ({', '.join(sorted(METRICS))})")
    if not (isinstance(raw["experiment"], str) and (path.parent / raw["experiment"]).is_file()):
        _fail(path, "experiment", f"no experiment file {path.parent / str(raw['experiment'])}")
    if not (isinstance(raw["trials"], int) and not isinstance(raw["trials"], bool) and raw["trials"] >= 1):
        _fail(path, "trials", f"is the number of trials per study, an integer >= 1, got {json.dumps(raw['trials'])}")
    if "metric" in raw and raw["metric"] not in DEV_METRICS[raw["task"]]:
        _fail(path, "metric", f"{json.dumps(raw['metric'])} is not a dev metric of the {raw['task']} task "
                              f"(its summary's best_dev: {', '.join(DEV_METRICS[raw['task']])})")
    if "direction" in raw and raw["direction"] not in ("maximize", "minimize"):
        _fail(path, "direction", "is maximize or minimize")
    if "threads" in raw and not (isinstance(raw["threads"], int) and raw["threads"] >= 1):
        _fail(path, "threads", "is an integer >= 1")
    sampler = raw.get("sampler", {})
    if not isinstance(sampler, dict) or sorted(set(sampler) - {"name", "seed"}):
        _fail(path, "sampler", "is {\"name\": \"random\" | \"tpe\", \"seed\": N}")
    if sampler.get("name", "random") not in SAMPLERS:
        _fail(path, "sampler.name", f"'{sampler.get('name')}' is not one of {', '.join(sorted(SAMPLERS))}")
    if not isinstance(sampler.get("seed", 0), int) or isinstance(sampler.get("seed", 0), bool):
        _fail(path, "sampler.seed", "is an integer")
    keys = {row["key"]: row for row in task_keys(raw["task"])}
    for name in ("fixed", "space"):
        if not isinstance(raw.get(name, {}), dict):
            _fail(path, name, "is an object keyed by config key")
    for k, v in raw.get("fixed", {}).items():
        check_value(path, f"fixed.{k}", k, v, keys)
    for k, e in raw.get("space", {}).items():
        check_entry(path, f"space.{k}", k, e, keys)
    if not isinstance(raw["cells"], dict) or not raw["cells"]:
        _fail(path, "cells", "is a non-empty object: cell label -> {\"set\": {...}, \"space\": {...}}")
    for label, c in raw["cells"].items():
        if not isinstance(c, dict) or sorted(set(c) - {"set", "space"}):
            _fail(path, f"cells.{label}", "is {\"set\": {key: value}, \"space\": {key: entry}}")
        for k, v in c.get("set", {}).items():
            check_value(path, f"cells.{label}.set.{k}", k, v, keys)
        for k, e in c.get("space", {}).items():
            if k in raw.get("space", {}):
                _fail(path, f"cells.{label}.space.{k}", "is in the shared space already (the shared space is "
                                                        "the same for every cell)")
            check_entry(path, f"cells.{label}.space.{k}", k, e, keys)
        for k in c.get("set", {}):
            if k in raw.get("space", {}) or k in c.get("space", {}):
                _fail(path, f"cells.{label}.set.{k}", "is also searched; a key is either set or searched")
        for k in c.get("space", {}):
            if k in raw.get("fixed", {}):
                _fail(path, f"cells.{label}.space.{k}", "is also in fixed; a key is either fixed or searched")
    for k in raw.get("space", {}):
        if k in raw.get("fixed", {}):
            _fail(path, f"space.{k}", "is also in fixed; a key is either fixed or searched")
    arms = raw.get("arms", {"hidden": {}})
    if not isinstance(arms, dict) or not arms:
        _fail(path, "arms", "is an object: arm name -> {} (hidden-matched) or {match, hidden_key, tolerance}")
    for name, a in arms.items():
        if not isinstance(a, dict) or sorted(set(a) - ARM_KEYS):
            _fail(path, f"arms.{name}", f"takes only {', '.join(sorted(ARM_KEYS))}")
        if a:
            if a.get("match") not in raw["cells"]:
                _fail(path, f"arms.{name}.match", f"names the cell whose parameter count the others match; "
                                                  f"'{a.get('match')}' is not among cells")
            if a.get("hidden_key") not in keys:
                _fail(path, f"arms.{name}.hidden_key", f"'{a.get('hidden_key')}' is not a key the task reads")
            tol = a.get("tolerance", 0.05)
            if not (_is_num(tol) and 0 < tol < 1):
                _fail(path, f"arms.{name}.tolerance", f"is a fraction in (0, 1), got {tol}")
    return Space(path, raw, keys)
