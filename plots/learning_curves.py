"""Learning curves: per task, the validation (split "dev") metric of every run against training steps and
against training wall time, one line per run. Reads each run's metrics.jsonl (core/train/trainer.h: one JSON
object per line with "split", "step", "epoch", "elapsed_s" and the task's metrics). The LM figure has a row per
recipe (lm_table.recipe_of: 13 epochs of 2 x 200 and 39 of 2 x 650 share no axis usefully) and a colour per
cell, its seeds sharing it, as in lm_state_norm; the other tasks one row, a colour per cell and a line style per
variant."""
import collections
import json
import os

from matplotlib.colors import to_hex
from matplotlib.ticker import FixedLocator, FormatStrFormatter, NullFormatter

from fig_common import Bad, load_json, plt, reading
from lm_table import cell_and_recipe

# task -> (metric key, axis label, scale factor, log scale)
METRICS = {"lm": ("ppl", "dev perplexity (log scale)", 1.0, True),
           "nmt": ("bleu", "dev BLEU", 1.0, False),
           "cws": ("f1", "dev F1 (%)", 100.0, False),
           "ner": ("f1", "dev entity F1 (%)", 100.0, False),
           "snli": ("accuracy", "dev accuracy (%)", 100.0, False),
           "classify": ("accuracy", "dev accuracy (%)", 100.0, False)}
LOG_TICKS = [v * 10 ** e for e in range(0, 7) for v in (1, 1.2, 1.5, 2, 3, 5, 7)]
CAP = 10.0   # log-scale metrics: values above CAP x the best one are drawn at the top edge (diverged runs)
# One colour per cell in every figure; the rest of a run's name (dataset, model kind, variant) picks the line
# style, so e.g. SNLI's in-house and SICK runs of one cell share a colour and differ in style.
CELL_COLORS = {"atr": "C0", "gru": "C1", "lstm": "C2", "lrn": "C3", "ran": "C4", "sru": "C5", "dt": "C6"}
# The LM figures tell a cell's variants apart (lm.md has a row for each): their own colours.
VARIANT_COLORS = {"atr_tanh": "C9", "atr_ln": "C8", "lrn_identity": "C7"}
STYLES = [("-", "o"), ("--", "s"), (":", "^"), ("-.", "D"), ((0, (5, 1)), "v"), ((0, (1, 1)), "P")]


def task_of(run_dir):
    """The run's task: summary.json "task" when readable, else the run name's prefix (lm_, nmt_, ...)."""
    path = os.path.join(run_dir, "summary.json")
    try:
        task = load_json(path).get("task") if os.path.exists(path) else None
    except (Bad, AttributeError):
        task = None
    return task if isinstance(task, str) else os.path.basename(run_dir).split("_")[0]


def read_metrics(path):
    """(records, bad) of a metrics.jsonl: the parsed objects in file order, and [(line number, why)]."""
    records, bad = [], []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except json.JSONDecodeError as e:
                bad.append((n, f"bad JSON ({e.msg})"))
                continue
            if not isinstance(r, dict):
                bad.append((n, "not a JSON object"))
            else:
                records.append((n, r))
    return records, bad


def tidy_curve(recs):
    """[(step, wall seconds or None, value)] from one split's records [{step, elapsed_s, value}] in file order.
    Resumes: a run resumed with --resume restarts from its last checkpoint, so the records of the steps the
    earlier invocation ran after that checkpoint are repeated; the later records supersede them (dropped here
    when a record's step is not above the one before). Wall time: the trainer restores elapsed_s from the
    checkpoint (core/train/progress.h), so it is already the run's cumulative training time; a run whose clock
    restarted at 0 on resume (elapsed_s falls while the step rises) gets the time reached before each restart
    added, so the wall-time axis is always monotone (the sum over invocations)."""
    kept = []
    for r in recs:
        while kept and kept[-1]["step"] >= r["step"]:
            kept.pop()
        kept.append(r)
    out, offset, prev = [], 0.0, None
    for r in kept:
        e = r.get("elapsed_s")
        if e is not None:
            if prev is not None and e < prev:
                offset += prev
            prev = e
        out.append((r["step"], None if e is None else e + offset, r["value"]))
    return out


def run_curve(report, run_dir, metric, scale):
    """The run's dev curve (a problem reported and None when metrics.jsonl is missing, empty or unusable)."""
    path = os.path.join(run_dir, "metrics.jsonl")
    with reading(path):
        if not os.path.exists(path):
            raise Bad("file missing")
        records, bad = read_metrics(path)
    for n, why in bad:
        report.problem(f"{path}:{n}", why + " (line skipped)")
    if not records:
        raise Bad("no records" if not bad else "no readable records", path)
    dev, unusable = [], 0
    for n, r in records:
        if r.get("split") != "dev":
            continue
        step, value = r.get("step"), r.get(metric)
        if not isinstance(step, (int, float)) or not isinstance(value, (int, float)):
            unusable += 1
            continue
        e = r.get("elapsed_s")
        dev.append({"step": step, "elapsed_s": e if isinstance(e, (int, float)) else None, "value": value * scale})
    if not dev:
        raise Bad(f"no dev records with a numeric 'step' and '{metric}'" +
                  (f" ({unusable} dev records without)" if unusable else ""), path)
    if unusable:
        report.problem(path, f"{unusable} dev records without a numeric 'step' and '{metric}' (skipped)")
    return tidy_curve(dev)


def cell_and_variant(run_dir, name):
    """(cell, variant) of a run: the cell is config.resolved.json's model.cell.type when that word is in the
    run's name, else the name's last word; the variant is the name without that word ("" when alone)."""
    words = name.split("_")
    cell = None
    try:
        cfg = load_json(os.path.join(run_dir, "config.resolved.json"))
        cell = cfg["model"]["cell"]["type"]
    except (Bad, KeyError, TypeError):
        pass
    if not isinstance(cell, str) or cell not in words:
        cell = words[-1]
    rest = list(words)
    rest.remove(cell)
    return cell, "_".join(rest)


def line_styles(names_dirs):
    """{name: (colour, linestyle, marker)}: colour by cell, style by variant in order of first appearance."""
    cells, variants, out = {}, {}, {}
    for name, run_dir in names_dirs:
        cell, variant = cell_and_variant(run_dir, name)
        if cell not in cells:
            cells[cell] = CELL_COLORS.get(cell) or f"C{(7 + len([c for c in cells if c not in CELL_COLORS])) % 10}"
        variants.setdefault(variant, STYLES[len(variants) % len(STYLES)])
        out[name] = (cells[cell],) + variants[variant]
    return out


def lm_colours(cells):
    """{cell: colour} for LM cell keys (lm_table.cell_and_recipe: "atr", "atr_tanh", ...), the same in every LM
    figure: CELL_COLORS, then VARIANT_COLORS, then a Dark2 colour (none of tab10's) per other cell in sorted order."""
    fixed = {**CELL_COLORS, **VARIANT_COLORS}
    others = sorted({c for c in cells if c not in fixed})
    dark2 = plt.get_cmap("Dark2")
    return {c: fixed[c] if c in fixed else to_hex(dark2(others.index(c) % 8)) for c in set(cells)}


def curve_rows(task, runs):
    """[(row title or None, [(run_dir, curve, colour, linestyle, marker, legend label or None, LM cell or None)])].
    LM: a row per recipe ("other" last), a colour per cell (lm_colours), its runs drawn alike with one legend entry
    "cell xN"; other tasks: one row, a legend entry per run, colour by cell and style by variant (line_styles)."""
    def short(run_dir):
        name = os.path.basename(run_dir)
        return name[len(task) + 1:] if name.startswith(task + "_") else name
    if task != "lm":
        styles = line_styles([(short(d), d) for d, _ in runs])
        return [(None, [(d, c) + styles[short(d)] + (short(d), None) for d, c in runs])]
    by_recipe = collections.defaultdict(list)
    for d, c in runs:
        cell, recipe = cell_and_recipe(d)
        by_recipe[recipe].append((cell, d, c))
    colours = lm_colours([cell for members in by_recipe.values() for cell, _, _ in members])
    rows = []
    for recipe in sorted(by_recipe, key=lambda r: (r == "other", r)):
        members = sorted(by_recipe[recipe], key=lambda m: (m[0], os.path.basename(m[1])))
        count = collections.Counter(cell for cell, _, _ in members)
        entries, seen = [], set()
        for cell, d, c in members:
            label = None if cell in seen else (f"{cell} x{count[cell]}" if count[cell] > 1 else cell)
            seen.add(cell)
            entries.append((d, c, colours[cell], "-", "o", label, cell))
        rows.append((f"recipe {recipe}", entries))
    return rows


def fig_curves(report, task, runs):
    """learning_curves_<task> from [(run_dir, curve)]: per row (curve_rows) the metric against the training step
    (left) and the training wall time (right)."""
    metric, label, _, log = METRICS[task]
    rows = curve_rows(task, runs)
    fig, axes = plt.subplots(len(rows), 2, figsize=(12, 4.6 * len(rows)), sharey="row", squeeze=False)
    walls = [w for _, c in runs for _, w, _ in c if w is not None]
    hours = bool(walls) and max(walls) > 2 * 3600
    unit = 3600.0 if hours else 60.0
    clipped, legend_side = [], any(len(entries) > 8 for _, entries in rows)
    for (title, entries), (ax_s, ax_t) in zip(rows, axes):
        values = [v for _, c, *_ in entries for _, _, v in c]
        top = CAP * min(values) if log and min(values) > 0 else None   # per row: the recipes' levels differ
        for run_dir, curve, color, ls, mk, name, _ in entries:
            ys = [min(v, top) if top else v for _, _, v in curve]
            if any(top and v > top for _, _, v in curve):
                clipped.append(top)
            ax_s.plot([s for s, _, _ in curve], ys, marker=mk, ms=3, lw=1.3, ls=ls, color=color, label=name)
            timed = [(w / unit, y) for (_, w, _), y in zip(curve, ys) if w is not None]
            if timed:
                ax_t.plot(*zip(*timed), marker=mk, ms=3, lw=1.3, ls=ls, color=color, label=name)
            over = [(s, w) for s, w, v in curve if top and v > top]
            ax_s.plot([s for s, _ in over], [top] * len(over), "^", color=color, ms=7)
            ax_t.plot([w / unit for _, w in over if w is not None],
                      [top] * len([1 for _, w in over if w is not None]), "^", color=color, ms=7)
        for ax in (ax_s, ax_t):
            if log:
                ax.set_yscale("log")
            ax.grid(alpha=0.3, which="both" if log else "major")
        if log:
            lo, hi = ax_s.get_ylim()
            ax_s.yaxis.set_major_locator(FixedLocator([v for v in LOG_TICKS if lo <= v <= hi] or [lo, hi]))
            ax_s.yaxis.set_major_formatter(FormatStrFormatter("%g"))
            ax_s.yaxis.set_minor_formatter(NullFormatter())
        ax_s.set_ylabel(label)
        if title:
            ax_s.set_title(title, fontsize="medium", loc="left")
        if legend_side:   # a long legend would hide curves: put it beside the plots
            ax_t.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
        else:
            ax_s.legend(fontsize="small", loc="best")
    axes[-1, 0].set_xlabel("training step")
    axes[-1, 1].set_xlabel("training wall time (" + ("hours" if hours else "minutes") + ", summed over resumed sessions)")
    if legend_side:
        longest = max(len(entries) for _, entries in rows)
        fig.set_size_inches(14.5, max(4.6 * len(rows), 0.19 * longest * len(rows) + 0.8))
    what = "a row per recipe, a colour per cell shared by its seeds" if task == "lm" else "one line per run"
    note = (f"; ▲: above {'/'.join(f'{t:.0f}' for t in sorted(set(clipped)))} (diverged), drawn at the top edge"
            if clipped else "")
    fig.suptitle(f"{task}: validation {label.split(' (')[0].replace('dev ', '')} during training, {what}{note}")
    fig.tight_layout()
    facts = {}
    if task == "lm":   # a row per recipe and a colour per cell are this figure's promise (the colours lm_state_norm's)
        facts["rows"] = {title: [os.path.basename(e[0]) for e in entries] for title, entries in rows}
        facts["colours"] = {e[6]: e[2] for _, entries in rows for e in entries}
    report.save(fig, f"learning_curves_{task}", [os.path.join(d, "metrics.jsonl") for d, _ in runs], **facts,
                runs={os.path.basename(d): {"points": len(c), "last_step": c[-1][0]} for d, c in runs})


def figs_curves(report, run_dirs):
    """One learning-curve figure per task among run_dirs."""
    by_task = {}
    for d in run_dirs:
        task = task_of(d)
        if task not in METRICS:
            report.note(d, f"task '{task}' has no learning-curve metric")
            continue
        _, _, scale, _ = METRICS[task]
        curve = report.guard(d, run_curve, report, d, METRICS[task][0], scale)
        if curve:
            by_task.setdefault(task, []).append((d, curve))
    for task in sorted(by_task):
        report.guard(task, fig_curves, report, task, by_task[task])
