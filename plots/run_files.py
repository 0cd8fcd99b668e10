"""Helpers the results-table scripts share for reading committed run folders (results/runs/<name>/) and
writing tables (markdown and CSV). Standard library only.

A run folder that cannot be read (a required file missing, broken JSON, a missing key, no dev record in its
metrics) is reported on stderr with its path and what was wrong, and left out of the tables: `load_runs`
catches it; no table script lets a traceback out for bad input. Required files: summary.json,
config.resolved.json, metrics.jsonl (with at least one dev record) and command.txt; optional ones (eval.json,
gates.json) are ignored, with a report, when broken.
"""
import csv
import glob
import io
import argparse
import json
import os
import re
import statistics
import sys


class RunError(Exception):
    """What is wrong with one file of a run folder (or with a speed/extra JSON file)."""

    def __init__(self, path, what):
        super().__init__(f"{path}: {what}")
        self.path, self.what = path, what


class JDict(dict):
    """A JSON object that remembers its file: a missing key raises RunError naming the file and the key."""

    def __init__(self, path, pairs=()):
        super().__init__(pairs)
        self.path = path

    def __missing__(self, key):
        raise RunError(self.path, f"missing key {key!r}")


def report(script, path, what, action="skipped"):
    print(f"{script}: {action} {path}: {what}", file=sys.stderr)


def read_json(path):
    """The JSON object in `path` (a JDict); RunError if the file is missing, unreadable, broken or no object."""
    if not os.path.isfile(path):
        raise RunError(path, "file missing")
    try:
        with open(path, encoding="utf-8") as f:
            obj = json.load(f, object_pairs_hook=lambda pairs: JDict(path, pairs))
    except json.JSONDecodeError as e:
        raise RunError(path, f"broken JSON ({e})") from None
    except (OSError, UnicodeDecodeError) as e:
        raise RunError(path, f"cannot read ({e})") from None
    if not isinstance(obj, dict):
        raise RunError(path, f"not a JSON object (a {type(obj).__name__})")
    return obj


def optional_json(path, script):
    """read_json(path) if the file exists; None if it does not, or (reported on stderr) if it is broken."""
    if not os.path.exists(path):
        return None
    try:
        return read_json(path)
    except RunError as e:
        report(script, e.path, e.what, "ignored")
        return None


def read_metrics(d):
    """Every record of <d>/metrics.jsonl; RunError if it is missing, empty, has a broken line or no dev record."""
    path = os.path.join(d, "metrics.jsonl")
    if not os.path.isfile(path):
        raise RunError(path, "file missing")
    recs = []
    try:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    r = json.loads(line, object_pairs_hook=lambda pairs: JDict(f"{path} line {n}", pairs))
                except json.JSONDecodeError as e:
                    raise RunError(path, f"broken JSON on line {n} ({e})") from None
                if not isinstance(r, dict):
                    raise RunError(path, f"line {n} is not a JSON object")
                recs.append(r)
    except (OSError, UnicodeDecodeError) as e:
        raise RunError(path, f"cannot read ({e})") from None
    if not recs:
        raise RunError(path, "empty (no records)")
    if not any(r.get("split") == "dev" for r in recs):
        raise RunError(path, "no dev record (the run never evaluated)")
    return recs


def dev_records(metrics):
    return [r for r in metrics if r.get("split") == "dev"]


def epochs_run(d, summary, metrics=None):
    """Epochs evaluated over every invocation of the run (summary.json's epochs_done counts the last one only)."""
    if metrics is None:
        path = os.path.join(d, "metrics.jsonl")
        if not os.path.exists(path):
            return summary.get("epochs_done")
        metrics = [json.loads(l) for l in open(path) if '"dev"' in l]
    return max((r.get("epoch", 0) for r in dev_records(metrics)), default=0)


def read_task_run(d):
    """(summary, resolved config, its model and data sections, metrics records, starting command) of a run folder of
    a task table that reads model.cell (cws, ner, snli); RunError when a file is bad or model.cell not an object."""
    s = read_json(os.path.join(d, "summary.json"))
    cfg = read_json(os.path.join(d, "config.resolved.json"))
    metrics = read_metrics(d)
    cmd, _ = read_command(d)
    model, data = cfg.get("model", {}), cfg.get("data", {})
    if not isinstance(model.get("cell", {}), dict):
        raise RunError(os.path.join(d, "config.resolved.json"), "'model.cell' is not an object")
    return s, cfg, model, data, metrics, cmd


def run_outcome(d, summary, metrics, cmd):
    """The fields every task table keeps of how a run went: epochs evaluated (over every invocation), the stop
    reason, the starting command, and why it counts as diverged (None when it did not)."""
    return {"epochs": epochs_run(d, summary, metrics), "stop": summary.get("stop_reason"), "cmd": cmd,
            "diverged": divergence(summary, metrics)}


def train_rate(d, summary, metrics=None):
    """Training units/s (words, characters, sentences or pairs) of the whole run: the median of the "units_s"
    of metrics.jsonl's training windows (train.log_every steps each, over every invocation of the run).
    summary.json's train_units_per_s measures the last invocation only, and a pause (SIGSTOP for a CI) inside
    a step counts as training time, so it said 1,003 words/s for lm_lstm_small_s1234, whose 164 windows have
    a median of 3,460. The median also leaves out the few windows that hold a resume, a dev evaluation or a
    pause. summary.json's value when the log has no window speeds (a log without units_s)."""
    if metrics is None:
        path = os.path.join(d, "metrics.jsonl")
        metrics = read_metrics(d) if os.path.exists(path) else []
    speeds = [r["units_s"] for r in metrics
              if r.get("split") == "train" and number_or_none(r.get("units_s")) is not None]
    return statistics.median(speeds) if speeds else summary.get("train_units_per_s")


def epochs_done_problem(d, summary):
    """What is wrong with summary.json's epochs_done, or None. A binary before b0dd6a1 counted only the epochs of
    its last invocation, so a resumed run said e.g. 2 of 13; the dev records of metrics.jsonl span every
    invocation. A run stopped mid-epoch (max_steps, max_minutes) logs its last dev record in the epoch it did
    not finish, hence the allowance of one."""
    path = os.path.join(d, "metrics.jsonl")
    if not os.path.exists(path) or "epochs_done" not in summary:
        return None
    done, logged = summary["epochs_done"], epochs_run(d, summary)
    if not isinstance(done, int) or done < logged - 1 or done > logged:
        return (f"summary.json says epochs_done {done!r}, but metrics.jsonl has dev records up to epoch {logged} "
                f"(mend an old summary with tools/mend_epochs_done.py)")
    return None


def _command_lines(d):
    """The lines of the run's command.txt; RunError if it is missing or unreadable."""
    path = os.path.join(d, "command.txt")
    if not os.path.isfile(path):
        raise RunError(path, "file missing")
    try:
        with open(path, encoding="utf-8") as f:
            return path, f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise RunError(path, f"cannot read ({e})") from None


def read_command(d):
    """(the command that started the run, how many invocations command.txt records); RunError if missing/empty.

    command.txt holds one block per invocation: the command line, then `# cwd:`, `# config:`... comments."""
    path, lines = _command_lines(d)
    first = next((l for l in lines if l.strip() and not l.startswith("#")), "")
    if not first:
        raise RunError(path, "no command in it")
    return first, max(1, sum(1 for l in lines if l.startswith("# cwd:")))


def invocation_threads(d, default=None):
    """The --threads value of every invocation in the run's command.txt, in order (default where one gives none,
    i.e. the experiment's run.threads); RunError as read_command. A run resumed with more threads than it started
    with has a mixed speed."""
    _, lines = _command_lines(d)
    found = (re.search(r"--threads[ =](\d+)", l) for l in lines if l.strip() and not l.startswith("#"))
    return [int(m.group(1)) if m else default for m in found]


def first_command(d):
    """The command that started the run (first line of its command.txt), or ""."""
    path = os.path.join(d, "command.txt")
    return open(path).read().splitlines()[0] if os.path.exists(path) else ""


def load_runs(runs_dir, prefix, loader, script):
    """[loader(d) for every folder runs_dir/<prefix>*], leaving out (and reporting) the ones that fail."""
    rows = []
    for d in sorted(glob.glob(os.path.join(runs_dir, prefix + "*"))):
        if not os.path.isdir(d):
            continue
        try:
            rows.append(loader(d))
        except RunError as e:
            report(script, d, f"{os.path.relpath(e.path, d) if e.path.startswith(d) else e.path}: {e.what}")
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, ZeroDivisionError, OSError) as e:
            report(script, d, f"unexpected content ({type(e).__name__}: {e})")
    return rows


OUTPUT_DIRS = ("predictions", "segmented", "translations", "logprobs")


def outputs_kept(d):
    """True when the run folder keeps the system outputs its metrics were computed from (plots/rescore.py)."""
    return any(os.path.isdir(os.path.join(d, o)) for o in OUTPUT_DIRS)


def run_label(d):
    """The run folder's name, with "outputs not kept" for runs from before outputs were kept."""
    return f"`{os.path.basename(d)}`" + ("" if outputs_kept(d) else " (outputs not kept)")


def gate_pair(gates):
    """The gate pair a gates.json entry correlates, as "i,f" or "z,r" ("" when it names none)."""
    return ",".join(str(x) for x in gates.get("pair", []))


def gate_pair_note(pair):
    """" (z,r)" beside a correlation under an r(i,f) heading when its pair is not input/forget (GRU-style
    cells), so that number does not pass for an input/forget correlation; "" otherwise."""
    return f" ({pair})" if pair and pair != "i,f" else ""


def number_or_none(x):
    """x if it is a number (not a bool), else None: table values a run may lack or hold in a wrong type."""
    return x if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def num(x, digits=None, scale=1.0):
    """x as a plain CSV number (rounded to `digits` decimals, no separators), "" when missing."""
    if not isinstance(x, (int, float)) or isinstance(x, bool):
        return ""
    x = x * scale
    if digits is None:
        return str(int(x)) if float(x).is_integer() else repr(float(x))
    return f"{x:.{digits}f}"


def _write_atomic(path, text):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    os.replace(tmp, path)


def write_text(path, text):
    _write_atomic(path, text)


def write_csv(path, header, rows):
    """One CSV table: a header row, then `rows` (lists of plain values; None -> empty)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for r in rows:
        w.writerow(["" if v is None else v for v in r])
    _write_atomic(path, buf.getvalue())
    return path


def csv_path(md_path, suffix=""):
    """results/nmt.md -> results/nmt.csv (suffix "_ensembles": results/nmt_ensembles.csv)."""
    return os.path.splitext(md_path)[0] + suffix + ".csv"


def csv_note(paths, md_path):
    names = ", ".join(f"`{os.path.relpath(p, os.path.dirname(md_path) or '.')}`" for p in paths)
    return f"The same numbers as CSV beside this file: {names}."


def write_table(path, lines, rows, script, csv_header, csv_rows):
    """Appends every run's starting command (in run-folder order) to `lines` and writes them to `path`, and the CSV
    table (csv_header, csv_rows) beside it (csv_path); returns both paths."""
    rows = sorted(rows, key=lambda r: r["run"])
    lines = lines + ["Commands (the one that started each run):", ""] + [f"- `{r['run']}`: `{r['cmd']}`" for r in rows]
    if not rows:
        lines.append("- (no run yet)")
    _write_atomic(path, "\n".join(lines) + "\n")
    print(f"{script}: wrote {path} and {csv_path(path)} ({len(rows)} runs)")
    return [path, write_csv(csv_path(path), csv_header, csv_rows)]


def md_table(header, align, rows):
    """A markdown table's lines: the header and alignment lines, then `rows` (markdown lines), or one row saying
    that no finished run is committed yet, as wide as the header, so that an empty table still shows its columns."""
    empty = "| (no finished run committed yet) |" + " |" * (align.count("|") - 2)
    return [header, align] + (list(rows) or [empty])


def write_sections(path, lines, rows, script, csv_header, group, default, section, always=()):
    """write_table for a table of one section per value of r[group] (sorted; `default` alone when there is no
    row, so an empty table still shows its headings; the values `always` too, with or without rows: sections that
    say which runs they still wait for): section(value, that value's rows) returns the section's lines and the
    rows it lists, in the order listed, which the CSV follows; each section ends in a blank line."""
    ordered = []
    for value in sorted(({r[group] for r in rows} or {default}) | set(always)):
        body, listed = section(value, [r for r in rows if r[group] == value])
        lines = lines + body + [""]
        ordered += listed
    return write_table(path, lines, rows, script, csv_header, [r["csv"] for r in ordered])


# The cells in the order the tables list them (the ATR paper's, then the others); variants follow their cell.
CELL_ORDER = ["atr", "gru", "lstm", "lrn", "ran", "sru"]


def cell_key(cell):
    """A short name for a resolved `model.cell` config: the type, then every non-default variant
    (e.g. atr_tanh for `output: tanh`, ran_identity for `content: identity`, lrn_ln for layer norm)."""
    key = str(cell.get("type", "?"))
    if cell.get("output", "default") != "default":
        key += "_" + str(cell["output"])
    if cell.get("content", "default") not in ("default", "linear"):
        key += "_" + str(cell["content"])
    if cell.get("layer_norm"):
        key += "_ln"
    if cell.get("input_tanh"):
        key += "_input_tanh"
    if cell.get("coupled"):
        key += "_coupled"
    if cell.get("bias", "default") != "default":
        key += "_bias_" + str(cell["bias"])
    if cell.get("forget_bias", 0.0):
        key += f"_fb{cell['forget_bias']:g}"
    if cell.get("highway_bias", 0.0):
        key += f"_hb{cell['highway_bias']:g}"
    if cell.get("gru_reset_after") is False and key.startswith("gru"):
        key += "_reset_before"
    if cell.get("transitions", 1) != 1:
        key += f"_t{cell['transitions']}"
    # issue 55's options: minGRU/minLSTM's candidate ("g" is the default's own name), minLSTM without the
    # f/(f+i) normalisation, QRNN's filter width, IndRNN's recurrent-weight bound, HGRN's forget-gate bound
    if cell.get("candidate", "default") not in ("default", "g"):
        key += "_" + str(cell["candidate"])
    if cell.get("normalize_gates") is False:
        key += "_nonorm"
    if cell.get("filter_width", 1) != 1:
        key += f"_w{cell['filter_width']}"
    if cell.get("recurrent_bound", 1.0) != 1.0:
        key += f"_rb{cell['recurrent_bound']:g}"
    if cell.get("forget_lower_bound", 0.0):
        key += f"_lb{cell['forget_lower_bound']:g}"
    for name, default in cell_option_defaults().items():   # an option added since, without a short name here
        if name not in CELL_KEYS_NAMED and name in cell and cell[name] != default:
            v = cell[name]
            key += (f"_{name}" if v else f"_no_{name}") if isinstance(v, bool) else (
                f"_{name}{v:g}" if isinstance(v, (int, float)) else f"_{name}_{v}")
    return key


# The model.cell keys cell_key names above (or, for type, starts with), and those that set a run's size or initial
# values rather than which cell it is (never in a key). Any other model.cell key of experiments/KEYS.md (generated
# from the binaries' tables) at a value other than its default is named "_<key><value>", so that an option added in
# core/rnn keeps its runs apart from the plain cell's without an edit here (a short name above is optional).
CELL_KEYS_NAMED = {"type", "output", "content", "layer_norm", "input_tanh", "coupled", "bias", "forget_bias",
                   "highway_bias", "gru_reset_after", "transitions", "candidate", "normalize_gates", "filter_width",
                   "recurrent_bound", "forget_lower_bound", "hidden", "init", "init_scale", "bias_init"}
KEYS_MD = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "experiments", "KEYS.md")
_CELL_DEFAULTS = {}


def cell_option_defaults(path=KEYS_MD):
    """{key: default} of every `model.cell.<key>` row of experiments/KEYS.md (its default column is JSON)."""
    if path not in _CELL_DEFAULTS:
        rows = {}
        with open(path, encoding="utf-8") as f:
            for line in f:
                m = re.match(r"\| `model\.cell\.(\w+)` \| \w+ \| `([^`]*)` \|", line)
                if m:
                    rows[m.group(1)] = json.loads(m.group(2))
        _CELL_DEFAULTS[path] = rows
    return _CELL_DEFAULTS[path]


def cell_sort_key(key):
    base = key.split("_")[0]
    return (CELL_ORDER.index(base) if base in CELL_ORDER else len(CELL_ORDER), base, key != base, key)


def pct(x):
    """A fraction as a percentage with two decimals for markdown; "–" when missing."""
    return f"{100 * x:.2f}" if isinstance(x, (int, float)) else "–"


def pct_csv(x):
    """The same for CSV: empty when missing."""
    return f"{100 * x:.2f}" if isinstance(x, (int, float)) else ""


def table_main(doc, default_out, load, write, with_runs=False):
    """The command line of a table script run alone: --runs (default results/runs) and --out; with_runs: write
    also takes the --runs folder (a table that names the runs still missing from it)."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", default="results/runs")
    ap.add_argument("--out", default=default_out)
    a = ap.parse_args()
    if not os.path.isdir(a.runs):
        ap.error(f"--runs {a.runs}: no such directory")
    write(load(a.runs), a.out, *([a.runs] if with_runs else []))


SEED_SUFFIX = re.compile(r"^(?P<base>.+)_s(?P<seed>\d+)$")

# How a run counts in a table (issue 51). A run is *seeded* when its folder is named <experiment>_s<seed> (the
# task binaries' --seed and --seeds write those folders, and their summary.json holds the same "seed"); a folder
# without the suffix is from before --seed existed: it ran the experiment's default seed, keeps no outputs, and
# may repeat a seeded run, so it is never pooled with them. A run *diverged* when training stopped on a
# non-finite loss (summary.json stop_reason "non_finite") or its dev perplexity more than doubled over its best
# so far (the LM's notion; only LM runs log a dev perplexity that does). A table never mixes unseeded or diverged
# runs into a mean, and a headline table (cells.md, the README's block) shows only a mean over at least
# HEADLINE_MIN_SEEDS seeded runs that keep their outputs and did not diverge; other runs are left out of it,
# with the reason (headline_group), and stay in their task's own table.
HEADLINE_MIN_SEEDS = 3


def seed_of(run):
    """The seed of a run folder named <experiment>_s<seed> (a path or a name), None for an unseeded folder."""
    m = SEED_SUFFIX.match(os.path.basename(os.path.normpath(str(run))))
    return int(m.group("seed")) if m else None


def ppl_rise(curve):
    """The index of the worst dev perplexity that is more than twice the best before it, None when none is."""
    rises = [i for i in range(1, len(curve)) if curve[i] > 2 * min(curve[:i])]
    return max(rises, key=lambda i: curve[i]) if rises else None


def divergence(summary, metrics=None):
    """Why a run counts as diverged ("stopped on a non-finite loss", "dev perplexity X after epoch k, more than
    twice its best before"), or None. metrics: its metrics.jsonl records, for the dev perplexity curve."""
    if summary.get("stop_reason") == "non_finite":
        return "training stopped on a non-finite loss (stop_reason non_finite)"
    curve = [r["ppl"] for r in dev_records(metrics or []) if number_or_none(r.get("ppl")) is not None]
    i = ppl_rise(curve)
    if i is None:
        return None
    return f"dev perplexity {curve[i]:.3g} after epoch {i + 1}, more than twice its best before ({min(curve[:i]):.3g})"


def run_divergence(d, summary=None):
    """divergence() of a run folder, reading what it needs (a missing or broken metrics.jsonl counts as no
    curve: the caller reports unreadable runs itself)."""
    if summary is None:
        summary = optional_json(os.path.join(d, "summary.json"), "run_files.py") or {}
    try:
        metrics = read_metrics(d) if os.path.isfile(os.path.join(d, "metrics.jsonl")) else []
    except RunError:
        metrics = []
    return divergence(summary, metrics)


def run_problems(r):
    """What keeps one run (a table row: "run", "dir", optional "diverged") out of a headline mean: a list of
    "no seed" (a run from before --seed), "outputs not kept", "diverged"; [] for a run that counts."""
    out = []
    if seed_of(r["run"]) is None:
        out.append("no seed")
    if not outputs_kept(r["dir"]):
        out.append("outputs not kept")
    if r.get("diverged"):
        out.append("diverged")
    return out


def headline_group(rows, minimum=HEADLINE_MIN_SEEDS):
    """(the rows that count, why the group is left out or None) for the runs of one cell and metric: the group
    counts when at least `minimum` of its runs are seeded, keep their outputs and did not diverge; the reason
    names every other run and what is wrong with it."""
    good = [r for r in rows if not run_problems(r)]
    if len(good) >= minimum:
        return good, None
    parts = []
    if good:
        parts.append(f"{len(good)} usable seed{'s' if len(good) > 1 else ''} (" + ", ".join(
            f"`{r['run']}`" for r in sorted(good, key=lambda r: r["run"])) + f"), fewer than {minimum}")
    for r in sorted((r for r in rows if run_problems(r)), key=lambda r: r["run"]):
        parts.append(f"`{r['run']}`: " + ", ".join(run_problems(r)))
    return good, "; ".join(parts) or "no run"


# Summary keys that measure speed (they differ between two runs of one experiment on a loaded machine).
_SPEED_KEY = re.compile(r"(_s|_per_s|seconds)$")


def reproduced_by(rows):
    """{earlier run name: seeded run name} for every unseeded run whose rerun <run>_s<seed>, with the seed it ran
    with (row "seed": its config's seed, the default one), gave the same test numbers (every key of row "test"
    but speeds) after the same number of steps (row "steps"): the same run, which a table lists once."""
    by_name = {r["run"]: r for r in rows}
    out = {}
    for r in rows:
        if seed_of(r["run"]) is not None or r.get("seed") is None:
            continue
        twin = by_name.get(f"{r['run']}_s{r['seed']}")
        if twin is None or r.get("steps") is None or r.get("steps") != twin.get("steps"):
            continue
        ta, tb = r.get("test"), twin.get("test")
        if not isinstance(ta, dict) or not isinstance(tb, dict):
            continue
        keys = {k for k in set(ta) | set(tb) if not _SPEED_KEY.search(k)}
        if keys and all(ta.get(k) == tb.get(k) for k in keys):
            out[r["run"]] = twin["run"]
    return out


def seed_group_lines(rows, value_key, scale=100.0, digits=2, what="test", higher_is_better=True):
    """Markdown lines of a per-experiment table over seeds (issue 25): runs named <experiment>_s<seed> are one
    group; each group's mean ± sample sd (n), min–max of r[value_key] * scale, its seeds, and whether every run
    keeps its outputs, best mean first. A run without a seed suffix, and a run that diverged (r["diverged"]), is a
    group of one, never pooled ("one run"). [] when no row is seeded (nothing to group over)."""
    if not any(seed_of(r["run"]) is not None for r in rows):
        return []
    groups = {}
    for r in rows:
        m = SEED_SUFFIX.match(r["run"])
        # A run without the suffix (from before --seed) is its own row, never pooled with the seeded runs: it
        # may repeat one of their seeds. A diverged run is its own row too: its number is not a draw of the recipe.
        if r.get("diverged"):
            base, seed, kind = r["run"] + " (diverged)", m.group("seed") if m else None, "diverged"
            kind = "diverged" if m else "diverged_unseeded"
        elif m:
            base, seed, kind = m.group("base"), m.group("seed"), "seeded"
        else:
            base, seed, kind = r["run"] + " (unseeded name)", None, "unseeded"
        groups.setdefault(base, (kind, []))[1].append((seed, r))
    out = ["| experiment | runs | " + what + " mean ± sd (n) | min–max | seeds | outputs kept |",
           "|---|---:|---:|---:|---|---|"]
    sign = -1 if higher_is_better else 1
    def mean_of(g):
        vals = [r[value_key] for _, r in g if number_or_none(r[value_key]) is not None]
        return sign * sum(vals) / len(vals) if vals else float("inf")
    for base, (kind, g) in sorted(groups.items(), key=lambda kv: mean_of(kv[1][1])):
        vals = [scale * r[value_key] for _, r in g if number_or_none(r[value_key]) is not None]
        if not vals:
            continue
        mean = sum(vals) / len(vals)
        if len(vals) > 1:
            sd = (sum((v - mean) ** 2 for v in vals) / (len(vals) - 1)) ** 0.5
            ms = f"{mean:.{digits}f} ± {sd:.{digits}f} ({len(vals)})"
        else:
            ms = f"{mean:.{digits}f} (one {'seed' if kind in ('seeded', 'diverged') else 'run'})"
        seeds = ", ".join(sorted((s for s, _ in g if s), key=int)) or "–"
        kept = sum(outputs_kept(r["dir"]) for _, r in g)
        label = {"seeded": f"`{base}`", "unseeded": f"`{g[0][1]['run']}` (earlier run, no seed suffix)",
                 "diverged": f"`{g[0][1]['run']}` (diverged, not pooled)",
                 "diverged_unseeded": f"`{g[0][1]['run']}` (earlier run, no seed suffix; diverged)"}[kind]
        out.append(f"| {label} | {len(g)} | {ms} | {min(vals):.{digits}f}–{max(vals):.{digits}f} | {seeds} | "
                   f"{'all' if kept == len(g) else 'none' if kept == 0 else f'{kept} of {len(g)}'} |")
    return out
