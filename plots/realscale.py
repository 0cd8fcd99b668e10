"""Issue 52's real-scale runs in the task tables: the sections of classify.md, snli.md, ner.md and cws.md that
hold them (beside the reduced-scale, random-embedding sections), what cells.md and claims.md read of them, and
which of their runs are still missing. Numpy (through seeds_table) and the standard library.

A section is one protocol in one embedding mode (SECTIONS: its heading names protocol, scale and embeddings).
The GloVe protocols of SST-2, SST-5, SICK and WNUT-17 run seed 1234 frozen and fine-tuned, and seeds 1 and 2 in
the mode tools/glove_mode.py chooses on dev; this module applies that script's rule (glove_mode.decide) to the
committed runs, so a section says whether its mode was chosen, and lists as missing exactly the runs the queues
still owe, each under the queue that owes it (QUEUES; GLOVE_SEEDS_QUEUE). Each section adds to
its task's own rows: the mode and why, GloVe's coverage, the training speed and peak resident memory of every
run (summary.json's peak_rss_mb), and a per-cell mean under the headline rule (run_files.headline_group: at
least 3 seeded runs that keep their outputs and did not diverge; the others named).
"""
import collections
import os
import statistics
import sys

import embeddings
from run_files import headline_group, number_or_none, optional_json, train_rate
import seeds_table

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import glove_mode  # noqa: E402  (the frozen / fine-tuned rule, applied once, in one place)

SEEDS = (1234, 1, 2)
QUEUES = "experiments/queues/issue52_{a,b}.txt"
# seeds 1 and 2 of a GloVe protocol's chosen mode: the queue `tools/glove_mode.py --queue` wrote (committed)
GLOVE_SEEDS_QUEUE = "experiments/queues/issue52_glove_seeds.txt"
DOC_CELLS = ("atr", "gru", "lstm", "lrn", "ran", "sru")

# title: the section heading; key: its seeds_table protocol; task and experiment (with {cell}) name its runs as
# tools/run_queue.sh does; glove: (glove_mode protocol, this section's mode) when the mode is chosen on dev, else
# None and seeds: {cell: seeds}; unit: what the task's training rate counts; metric: the task row's test value
# (a fraction); error: report 100 − accuracy (the LRN paper's document tables); peer: a run beside the cells.
Section = collections.namedtuple("Section", "title key task experiment glove seeds unit metric error peer")


def _glove(title, key, task, experiment, protocol, mode, unit, metric):
    return Section(title, key, task, experiment, (protocol, mode), None, unit, metric, False, None)


def _fixed(title, key, task, experiment, seeds, unit, metric, error=False, peer=None):
    return Section(title, key, task, experiment, None, seeds, unit, metric, error, peer)


SECTIONS = {}
for _mode in embeddings.MODES:
    _t = embeddings.TEXT[_mode]
    SECTIONS[f"sst2_glove_{_mode}"] = _glove(
        f"SST-2 (sentence level), {_t} (issue 52)", f"sst2_glove_{_mode}", "classify",
        f"experiments/classify/sst2_glove_{_mode}_{{cell}}.json", "sst2", _mode, "sentences", "test")
    SECTIONS[f"sst5_glove_{_mode}"] = _glove(
        f"SST-5 (sentence level), {_t} (issue 52)", f"sst5_glove_{_mode}", "classify",
        f"experiments/classify/sst5_glove_{_mode}_{{cell}}.json", "sst5", _mode, "sentences", "test")
    SECTIONS[f"sick_glove_{_mode}"] = _glove(
        f"SICK, cond +em +lc, {_t} (issue 52)", f"sick_glove_{_mode}", "snli",
        f"experiments/snli/sick_cond_glove_{_mode}_{{cell}}.json", "sick", _mode, "pairs", "test")
    SECTIONS[f"wnut17_glove_{_mode}"] = _glove(
        f"WNUT-17, {_t} word vectors (issue 52)", f"ner_glove_{_mode}", "ner",
        f"experiments/ner/wnut17_glove_{_mode}_{{cell}}.json", "wnut17", _mode, "words", "f1")
SECTIONS["inhouse_glove_frozen"] = _fixed(
    "SNLI in-house (reduced data: 1 % of train; full dev and test), cond, GloVe 6B 100d frozen as the ATR authors "
    "(issue 52)", "snli_glove", "snli", "experiments/snli/inhouse_cond_glove_{cell}.json",
    {c: SEEDS for c in glove_mode.CELLS}, "pairs", "test")
SECTIONS["imdb_glove_finetune"] = _fixed(
    "IMDB document classification (full data), GloVe 6B 100d fine-tuned: error rate (issue 52)", "imdb",
    "classify", "experiments/classify/imdb_{cell}.json", {c: SEEDS for c in DOC_CELLS}, "documents", "test", True)
SECTIONS["20ng_glove_finetune"] = _fixed(
    "20 Newsgroups document classification (full data), GloVe 6B 100d fine-tuned: error rate (issue 52)", "20ng",
    "classify", "experiments/classify/20ng_{cell}.json", {c: SEEDS for c in ("atr", "gru", "lstm", "lrn")},
    "documents", "test", True)
SECTIONS["pkupd"] = _fixed(
    "PKU (d): People's Daily 1998-01 train, SIGHAN-2005 PKU gold test (full scale), random character embeddings "
    "(issue 52)", "pkupd", "cws", "experiments/cws/pkupd_{cell}.json",
    dict({c: SEEDS for c in ("atr", "gru", "lstm", "lrn")}, ran=(1234,), sru=(1234,)), "characters", "f1",
    peer="cws_pkupd_jieba")
# The embeddings of a section without a choice on dev, and why.
FIXED_MODE = {"inhouse_glove_frozen": "frozen: the ATR authors kept their vectors fixed for SNLI (no choice on dev)",
              "imdb_glove_finetune": "fine-tuned: millions of training tokens update the vectors, and the words GloVe 6B lacks "
                      "would otherwise stay random (the experiment files' `source`)",
              "20ng_glove_finetune": "fine-tuned, as IMDB (the experiment files' `source`)",
              "pkupd": "random character embeddings: no pretrained character vectors here"}
# A claim's evidence that names a GloVe protocol of two modes reads the mode glove_mode.py chose.
CHOSEN = {"ner_glove": "wnut17", "sst2_glove": "sst2", "sst5_glove": "sst5", "sick_glove": "sick"}
GLOVE_KEY = {"wnut17": "ner_glove_{}", "sst2": "sst2_glove_{}", "sst5": "sst5_glove_{}", "sick": "sick_glove_{}"}
PROTOCOL_KEYS = {s.key for s in SECTIONS.values()}   # the seeds protocols of issue 52's runs


def groups_of(task):
    """The section names of one task's table (they are listed even before any of their runs is committed)."""
    return sorted(g for g, s in SECTIONS.items() if s.task == task)


def decide(protocol, runs_dirs):
    """glove_mode.decide on these run folders, or a waiting decision that says why it could not be read."""
    try:
        return glove_mode.decide(list(runs_dirs), protocol)
    except SystemExit:   # glove_mode.fail: an unreadable seed-1234 summary (reported on stderr by it)
        return {"mode": None, "missing": [], "means": {}, "unreadable": True}


def run_dirs_of(rows):
    """The folders the rows' run folders are in (where glove_mode looks for the seed-1234 runs)."""
    return sorted({os.path.dirname(os.path.normpath(r["dir"])) for r in rows})


def expected_runs(spec, decision):
    """[(run name, cell, seed)] the section should hold: a GloVe section seed 1234 of every cell, and seeds 1 and 2
    once its mode is the one chosen; a fixed section its seeds per cell."""
    if spec.glove:
        seeds = SEEDS if decision and decision["mode"] == spec.glove[1] else (glove_mode.SELECTION_SEED,)
        per_cell = {c: seeds for c in glove_mode.CELLS}
    else:
        per_cell = spec.seeds
    return [(glove_mode.run_name(spec.task, spec.experiment.format(cell=c), s), c, s)
            for c, seeds in per_cell.items() for s in seeds]


def mode_line(group, spec, decision):
    if not spec.glove:
        return f"Embeddings: {FIXED_MODE[group]}."
    protocol, mode = spec.glove
    rule = (f"Frozen or fine-tuned: `tools/glove_mode.py`'s rule, one mode for every cell (the higher mean best-dev "
            f"score of the seven cells' seed-{glove_mode.SELECTION_SEED} runs, frozen on a tie)")
    if decision["mode"] is None:
        why = ("a seed-1234 summary cannot be read" if decision.get("unreadable") else
               f"{len(decision['missing'])} of {2 * len(glove_mode.CELLS)} seed-{glove_mode.SELECTION_SEED} runs "
               "of the two modes are not committed yet")
        return f"{rule}: not chosen yet ({why}); seeds 1 and 2 run in the chosen mode only."
    means = ", ".join(f"{embeddings.TEXT[m].split()[-1]} {100 * decision['means'][m]:.2f}" for m in glove_mode.MODES)
    if decision["mode"] == mode:
        return f"{rule}: **chosen** (mean best dev {means}): this section holds the protocol's three seeds."
    return (f"{rule}: not chosen (mean best dev {means}): this section holds only the seed-"
            f"{glove_mode.SELECTION_SEED} runs the choice was made on.")


def coverage_line(spec, rows):
    """GloVe's share of the training tokens, as the runs' configs (or, before any run, the experiment file) quote
    data_prep/glove.py's glove.json."""
    if spec.glove is None and spec.key == "pkupd":
        return []
    sources = []
    for r in rows:
        cfg = optional_json(os.path.join(r["dir"], "config.resolved.json"), "realscale.py") or {}
        sources.append((embeddings.token_coverage(cfg.get("source")), f"`{r['run']}`"))
    if not any(v is not None for v, _ in sources):
        path = spec.experiment.format(cell="lstm")
        exp = optional_json(os.path.join(ROOT, path), "realscale.py") or {}
        sources = [(embeddings.token_coverage(exp.get("source")), f"`{path}`")]
    values = sorted({v for v, _ in sources if v is not None})
    if not values:
        return ["GloVe coverage: not recorded.", ""]
    where = next(w for v, w in sources if v is not None)
    return [f"GloVe coverage: {' / '.join(f'{v:.1f}' for v in values)} % of the training tokens have a vector "
            f"(`data_prep/glove.py`'s glove.json, as {where}'s `source` quotes it); the vocabulary words loaded "
            "from the vectors file are per run below.", ""]


def tokens_per_unit(summary):
    """Tokens per training unit of a classify run (its train_tokens_per_s / train_units_per_s), or None."""
    t, u = number_or_none(summary.get("train_tokens_per_s")), number_or_none(summary.get("train_units_per_s"))
    return t / u if t and u else None


def resources(spec, rows):
    """Per run: embeddings (from its config), vocabulary rows loaded from GloVe, training rate, peak RSS."""
    tokens = spec.unit != "pairs"   # an SNLI run records no token count
    out = ["Per run (training rate: the median of its logged training windows, 1 thread on a shared 2-core "
           "machine; peak RSS: summary.json's `peak_rss_mb`, the process's high-water mark):", "",
           f"| run | embeddings (config) | GloVe vectors loaded | train {spec.unit}/s | "
           + ("train tokens/s | " if tokens else "") + "peak RSS (MB) |",
           "|---|---|---|---:|" + ("---:|" if tokens else "") + "---:|"]
    for r in sorted(rows, key=lambda r: r["run"]):
        s = optional_json(os.path.join(r["dir"], "summary.json"), "realscale.py") or {}
        mode = embeddings.run_mode(r["dir"])
        # a peer (jieba) trains nothing here: no embeddings, no training rate
        emb = "– (a peer: its own dictionary and HMM)" if r["run"] == spec.peer else embeddings.TEXT.get(mode, "?")
        rate = train_rate(r["dir"], s)
        per = tokens_per_unit(s) if spec.unit in ("sentences", "documents") else (
            1.0 if spec.unit in ("words", "characters") else None)
        rss = number_or_none(s.get("peak_rss_mb"))
        out.append(f"| `{r['run']}` | {emb} | {embeddings.vocabulary_text(s)} | "
                   f"{f'{rate:,.0f}' if number_or_none(rate) else '–'} | "
                   + (f"{f'{rate * per:,.0f}' if number_or_none(rate) and per else '–'} | " if tokens else "")
                   + f"{f'{rss:,.0f}' if rss is not None else '– (not recorded)'} |")
    if not rows:
        out.append("| (no run committed yet) | | | | " + ("| " if tokens else "") + "|")
    return out + [""]


def value_of(spec, r):
    """The row's test number in the section's units: %, or the error rate 100 − accuracy."""
    v = number_or_none(r.get(spec.metric))
    return None if v is None else (100 - 100 * v if spec.error else 100 * v)


def cell_means(spec, rows, extra_columns=None):
    """Per cell, the headline rule's mean (run_files.headline_group), or – and why; extra_columns: (header,
    {cell: text}) pairs printed after it (the LRN paper's numbers beside the document sections)."""
    extra_columns = extra_columns or []
    what = "test error (%)" if spec.error else f"test {'accuracy' if spec.metric == 'test' else 'F1'} (%)"
    out = [f"Per cell: the mean {what} over at least 3 seeded runs that keep their outputs and did not diverge "
           "(fewer: no mean, and why):", "",
           f"| cell | runs | {what} mean ± sd | min–max | " + "".join(f"{h} | " for h, _ in extra_columns)
           + "not in a mean |", "|---|---:|---:|---:|" + "---:|" * len(extra_columns) + "---|"]
    by = {}
    for r in rows:
        if value_of(spec, r) is not None and r["run"] != spec.peer:
            by.setdefault(r["cell"], []).append(dict(r, value=value_of(spec, r)))
    cells = [c for c in (glove_mode.CELLS if spec.glove else spec.seeds) if c in by] + sorted(
        c for c in by if c not in (glove_mode.CELLS if spec.glove else spec.seeds))
    for c in cells:
        good, why = headline_group(by[c])
        vals = [g["value"] for g in good]
        if why:
            mean = "–"
        else:
            sd = f" ± {statistics.stdev(vals):.2f}" if len(vals) > 1 else ""
            mean = f"{statistics.mean(vals):.2f}{sd}"
        spread = f"{min(vals):.2f}–{max(vals):.2f}" if vals and not why else "–"
        out.append(f"| {c} | {len(by[c])} | {mean} | {spread} | " + "".join(f"{d.get(c, '')} | " for _, d in
                                                                             extra_columns) + f"{why or ''} |")
    if not cells:
        out.append("| (no run committed yet) | | | | " + "| " * len(extra_columns) + "|")
    return out + [""]


def missing_line(spec, decision, rows):
    """The runs the section still owes, named under the queue that owes them; [] when none."""
    have = {r["run"] for r in rows}
    want = [(n, s) for n, _, s in expected_runs(spec, decision)] + ([(spec.peer, None)] if spec.peer else [])
    gone = [(n, s) for n, s in want if n not in have]
    if not gone:
        return []
    # a GloVe protocol's seeds 1 and 2 come from the seeds queue; every other run from issue 52's two lanes
    by_queue = collections.OrderedDict()
    for n, s in gone:
        q = GLOVE_SEEDS_QUEUE if spec.glove and s != glove_mode.SELECTION_SEED else QUEUES
        by_queue.setdefault(q, []).append(n)
    later = (" (then seeds 1 and 2 of every cell in the chosen mode, from the queue `tools/glove_mode.py "
             "--queue` writes)" if spec.glove and decision["mode"] is None else "")
    parts = "; ".join(f"{q}: " + ", ".join(f"`{n}`" for n in names) for q, names in by_queue.items())
    return [f"Missing ({len(gone)} of {len(want)} runs, not committed yet) from {parts}{later}.", ""]


def cell_of(spec, run):
    """The cell of a run folder's name (its seeds_table protocol's pattern), or None."""
    proto = next(p for p in seeds_table.PROTOCOLS if p[0] == spec.key)
    m = seeds_table.SEED_DIR.match(run)
    pm = seeds_table.re.match(proto[2], m.group("base") if m else run)
    return pm.group("cell") if pm else None


def section(group, rows, body, all_rows, extra_columns=None):
    """The lines of one real-scale section and the rows it lists: the heading, the protocol, the embeddings and
    how they were chosen, GloVe's coverage, `body` (the task's own section lines without their heading), the
    per-cell means, the runs' speed and memory, and what is missing."""
    spec = SECTIONS[group]
    decision = decide(spec.glove[0], run_dirs_of(all_rows)) if spec.glove else None
    rows = [dict(r, cell=cell_of(spec, r["run"]) or r["run"]) for r in rows]
    proto = next(p for p in seeds_table.PROTOCOLS if p[0] == spec.key)
    lines = [f"## {spec.title}", "", f"Protocol: {proto[7]}. Paired tests between cells: `seeds.md` "
             f"({proto[1]}).", "", mode_line(group, spec, decision), ""] + coverage_line(spec, rows)
    body = body[2:] if body[1:2] == [""] else body[1:]   # the task's heading (and its blank line) replaced above
    lines += body + ([""] if body and body[-1] != "" else [])
    lines += cell_means(spec, rows, extra_columns) + resources(spec, rows) + missing_line(spec, decision, rows)
    return lines[:-1] if lines[-1] == "" else lines


def sectioner(section_fn, all_rows):
    """write_sections' section function for a task table: a real-scale group through section() around the task's
    own section_fn, every other group as section_fn alone (the reduced-scale sections unchanged)."""
    def one(value, rows):
        if value not in SECTIONS:
            return section_fn(value, rows)
        body, listed = section_fn(value, rows)
        return section(value, rows, body, all_rows), listed
    return one


# --- cells.md and claims.md ---

# cells.md's real-scale columns: column key -> the section whose protocol (and error rate or not) it reads
CELL_COLUMNS = {"snli_glove": "inhouse_glove_frozen", "imdb": "imdb_glove_finetune",
                "20ng": "20ng_glove_finetune", "pkupd": "pkupd"}


def cells_candidates(seeds):
    """{cell: {column: [candidate rows]}} for cells_table.collect from seeds_table.load's data: each seeded run of
    a real-scale protocol (its value in the column's units) and, named as diverged, the runs it left out."""
    out = {}
    for col, group in CELL_COLUMNS.items():
        spec = SECTIONS[group]
        for cell, runs in seeds.get(spec.key, {}).items():
            for r in runs:
                value = 100 - 100 * r[2] if spec.error else 100 * r[2]
                out.setdefault(cell, {}).setdefault(col, []).append(
                    {"value": value, "run": os.path.basename(os.path.normpath(r[1])), "dir": r[1], "diverged": None})
        for d, why in getattr(seeds, "left_out", {}).get(spec.key, []):
            run = os.path.basename(os.path.normpath(d))
            cell = cell_of(spec, run)
            if cell:
                out.setdefault(cell, {}).setdefault(col, []).append(
                    {"value": float("nan"), "run": run, "dir": d, "diverged": why})
    return out


def resolve(proto, runs_dir):
    """(the seeds protocol a claim's evidence reads, why it cannot be read or None): a GloVe protocol named without
    its mode (CHOSEN) reads the mode glove_mode.py chose on the committed seed-1234 runs."""
    if proto not in CHOSEN:
        return proto, None
    d = decide(CHOSEN[proto], [runs_dir] if runs_dir else [])
    if d["mode"] is None:
        return proto, (f"GloVe mode not chosen yet (issue 52: {len(d['missing'])} seed-"
                       f"{glove_mode.SELECTION_SEED} runs not committed)" if not d.get("unreadable") else
                       "GloVe mode not chosen: a seed-1234 summary cannot be read")
    return GLOVE_KEY[CHOSEN[proto]].format(d["mode"]), None

