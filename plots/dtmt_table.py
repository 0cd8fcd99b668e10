#!/usr/bin/env python3
"""results/runs/nmt_*/ -> results/dtmt.md (+ results/dtmt.csv): DTMT on Multi30k (issue 57), the depth study and the
claim "deep transition beats shallow", built only from committed run files.

One row per experiment (run folders <experiment>_s<seed>): every run whose config.resolved.json says model.kind
"dtmt", and the shallow RNNSearch GRU and ATR runs of results/nmt.md as the baselines. Per row, read from the runs'
configs (never from the names): the first cell of each transition (L-GRU, the GRU it is without H(x), or ATR), the
transition depths L_s / L_q / L_d (model.dtmt.encoder_transitions, query_transitions, decoder_transitions), the heads
and the L-GRU's linear transformation; then the seeds, test2016 BLEU and sacreBLEU mean ± sd (nmt_table's numbers),
parameters and training tokens/s. A mean is over the runs that count (run_files.run_problems: seeded, translations
kept, not diverged); a row of one such run says "single seed" and gets no test. A row of at least
HEADLINE_MIN_SEEDS seeds gets the paired test against the shallow GRU (seeds_table.compare, kind "bleu": the one
test of the pair that seeds.md and claims.md quote), and the claim's verdict is claims_table.pair_row's, the row
claims.md prints for "dtmt_deep" (the same rule, the same call). The runs issue 57's queues
(experiments/queues/issue57_*.txt) name and that are not committed yet are listed by name.

usage: dtmt_table.py [--runs results/runs] [--out results/dtmt.md]   (numpy, through seeds_table's bootstrap)

A run folder that cannot be read is reported on stderr (its path and what is wrong) and left out (run_files.py).
"""
import glob
import os
import shlex

from run_files import (HEADLINE_MIN_SEEDS, RunError, csv_note, csv_path, load_runs, md_table, num, read_json,
                       run_problems, seed_of, SEED_SUFFIX, table_main, write_table)
import claims_table
import nmt_table
import seeds_table
import significance

SCRIPT = "dtmt_table.py"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUEUES = os.path.join(ROOT, "experiments", "queues", "issue57_*.txt")
DTMT_KEYS = ("encoder_transitions", "query_transitions", "decoder_transitions", "heads", "linear_transform")
BASELINES = ("gru", "atr")   # the shallow RNNSearch cells of results/nmt.md this table sets DTMT against
CLAIM = next(c for c in claims_table.CLAIMS if c[0] == "dtmt_deep")
NMT_PROTOCOL = next(p[7] for p in seeds_table.PROTOCOLS if p[0] == "nmt")
# Config keys that say where or how a run ran, not what it trained: left out when rows' configs are compared.
RUN_KEYS = ("name", "out_dir", "run", "seed", "threads")


def dtmt_config(path, model):
    """{DTMT_KEYS: value} of a model.kind "dtmt" config; RunError naming the file and key when one is missing or of
    the wrong type (a binary from before issue 57 wrote no model.dtmt)."""
    t = model.get("dtmt")
    if not isinstance(t, dict):
        raise RunError(path, "model.kind is \"dtmt\" but the key 'model.dtmt' is missing or not an object")
    out = {}
    for k in DTMT_KEYS:
        if k not in t:
            raise RunError(path, f"model.kind is \"dtmt\" but the key 'model.dtmt.{k}' is missing")
        v = t[k]
        want = bool if k == "linear_transform" else int
        if not isinstance(v, want) or (want is int and isinstance(v, bool)):
            raise RunError(path, f"key 'model.dtmt.{k}' is {v!r}, expected {want.__name__}")
        out[k] = v
    return out


def flat(cfg, prefix=""):
    """A config as {dotted key: value} (lists kept whole)."""
    out = {}
    for k, v in cfg.items():
        if isinstance(v, dict):
            out.update(flat(v, f"{prefix}{k}."))
        else:
            out[prefix + k] = v
    return out


def load_run(d):
    """nmt_table's row of run folder d plus what this table reads from its config: kind, first cell, DTMT keys."""
    r = nmt_table.load_run(d)
    path = os.path.join(d, "config.resolved.json")
    cfg = read_json(path)
    model = cfg.get("model", cfg.get("typed", {}).get("model", {}))
    r["kind"] = model.get("kind", "rnnsearch")   # a binary from before DTMT wrote no kind: RNNSearch
    r["cell"] = str(model["cell"]["type"])
    r["dtmt"] = dtmt_config(path, model) if r["kind"] == "dtmt" else None
    r["experiment"] = SEED_SUFFIX.match(r["run"]).group("base") if seed_of(r["run"]) is not None else r["run"]
    r["config"] = {k: v for k, v in flat(cfg).items() if k.split(".")[0] not in RUN_KEYS}
    return r


def load(runs_dir):
    """The readable nmt_* run folders this table shows: DTMT runs and shallow RNNSearch GRU / ATR runs."""
    rows = load_runs(runs_dir, "nmt_", load_run, SCRIPT)
    return [r for r in rows if r["kind"] == "dtmt" or (r["kind"] == "rnnsearch" and r["plain"] and
                                                       r["key"] in BASELINES)]


def first_cell(r):
    """The cell at the first step of each transition, as the paper names it."""
    if r["dtmt"] is None:
        return r["cell"].upper()
    if r["cell"] == "lgru":
        return "L-GRU" if r["dtmt"]["linear_transform"] else "GRU (L-GRU without H(x))"
    return r["cell"].upper()


def one(values):
    """The value every run of a row shares, else each distinct one joined by " or " (the row's configs differ)."""
    vals = sorted(set(values), key=str)
    return vals[0] if len(vals) == 1 else " or ".join(map(str, vals))


def describe(g):
    """(model, first cell, transitions, heads, linear) of a row's runs, as the table prints them."""
    if g[0]["dtmt"] is None:
        return "RNNSearch (shallow)", one(first_cell(r) for r in g), "–", "–", "–"
    t = [r["dtmt"] for r in g]
    depth = one(f"{x['encoder_transitions']} / {x['query_transitions']} / {x['decoder_transitions']}" for x in t)
    linear = one(("on" if x["linear_transform"] else "off") if r["cell"] == "lgru" else "– (not an L-GRU)"
                 for x, r in zip(t, g))
    return "DTMT", one(first_cell(r) for r in g), depth, one(x["heads"] for x in t), linear


def order(g):
    """Baselines first (GRU, ATR), then DTMT: L-GRU with H(x) by depth (the depth study), without, other cells."""
    r = g[0]
    if r["dtmt"] is None:
        return (0, BASELINES.index(r["key"]) if r["key"] in BASELINES else len(BASELINES), r["experiment"])
    t = r["dtmt"]
    return (1, r["cell"] != "lgru", not t["linear_transform"],
            (t["encoder_transitions"], t["query_transitions"], t["decoder_transitions"]), r["experiment"])


def counted(rows):
    """{experiment: its runs that count in a mean (seeded, translations kept, not diverged, a test2016 BLEU)}."""
    by = {}
    for r in sorted(rows, key=lambda r: (seed_of(r["run"]) or 0, r["run"])):
        if not run_problems(r) and r["bleu"] is not None and r["test_set"] == "test2016":
            by.setdefault(r["experiment"], []).append(r)
    return by


def ms(values, digits=2):
    """"m ± sd" over two or more values, "m (single seed)" for one, "–" for none."""
    vals = [v for v in values if v is not None]
    if not vals:
        return "–", None, None
    m, sd = significance.mean_sd(vals)
    return (f"{m:.{digits}f} ± {sd:.{digits}f}" if sd is not None else f"{m:.{digits}f} (single seed)"), m, sd


def gru_test(experiment, n, runs_dir):
    """seeds_table.compare of the experiment's seeded runs against the shallow GRU's, or why there is none."""
    if experiment == "nmt_gru":
        return None, "(the reference)"
    if n < HEADLINE_MIN_SEEDS:
        return None, "single seed: no test" if n == 1 else f"{n} seeds: no test (fewer than {HEADLINE_MIN_SEEDS})"
    a, b = claims_table.seeded_runs(runs_dir, experiment), claims_table.seeded_runs(runs_dir, "nmt_gru")
    if len(b) < HEADLINE_MIN_SEEDS:
        return None, f"no test: {len(b)} GRU seeds"
    c = seeds_table.compare("bleu", a, b)
    return c, seeds_table.fmt_cmp(c, 1, 2) if c else "no test: translations not scored for every seed (stats/)"


def expected_runs(queues=QUEUES):
    """The run folders the issue's queue files name (tools/run_queue.sh: <task>_<experiment basename>_s<seed>)."""
    out = []
    for path in sorted(glob.glob(queues)):
        with open(path, encoding="utf-8") as f:
            for line in f:
                words = shlex.split(line, comments=True)
                if len(words) < 2:
                    continue
                name = f"{words[0]}_{os.path.splitext(os.path.basename(words[1]))[0]}"
                seeds = words[words.index("--seeds") + 1].split(",") if "--seeds" in words[:-1] else []
                out += [f"{name}_s{s}" for s in seeds] if seeds else [name]
    return out


def config_lines(groups, ref):
    """Whether every DTMT row's config differs from the reference row's (the claim's DTMT) only in model.dtmt.* and
    model.cell.type (the depth study's "everything else fixed"), else which keys differ, as markdown lines."""
    if ref not in groups:
        return []
    base = groups[ref][0]["config"]
    lines = []
    for exp, g in sorted(groups.items()):
        if exp == ref or g[0]["dtmt"] is None:
            continue
        diff = sorted(k for k in set(base) | set(g[0]["config"]) if base.get(k) != g[0]["config"].get(k)
                      and not k.startswith("model.dtmt.") and k != "model.cell.type")
        if diff:
            lines.append(f"- `{exp}` differs from `{ref}` in " + ", ".join(
                f"`{k}` ({g[0]['config'].get(k)!r} vs {base.get(k)!r})" for k in diff) + ".")
    head = (f"Configs: every DTMT row's resolved config differs from `{ref}`'s only in `model.dtmt.*` and "
            "`model.cell.type`" + (", except:" if lines else " (everything else fixed)."))
    return ["", head] + ([""] + lines if lines else [])


def claim_lines(runs_dir, missing):
    """The claim's row: claims_table.pair_row, the row claims.md prints, with the rule it applies."""
    proto, a, b, n, verdict, effect = claims_table.dtmt_rows(CLAIM, runs_dir)[0]
    rule = claims_table.RULES.split("\n- ")[0].lstrip("- ").replace("\n  ", " ")
    lines = ["## The claim: deep transition beats shallow", "",
             f"\"{CLAIM[2]}\" ({CLAIM[1]}), judged by [claims.md](claims.md)'s rule (`plots/claims_table.py`, the "
             f"same call): {rule} Not tested here below {HEADLINE_MIN_SEEDS} seeds a "
             "side. A: the seeded runs of `experiments/nmt/dtmt.json` (`nmt_dtmt_s<seed>`); B: the shallow "
             "RNNSearch GRU (`nmt_gru_s<seed>`).", ""]
    lines += md_table("| A | B | n (A / B) | A − B [95 % CI], p | verdict |", "|---|---|---|---|---|",
                      [f"| {a} | {b} | {n} | {effect} | **{verdict}** |"])
    if verdict == "not tested here" and missing:
        lines += ["", "Until the runs listed below are committed, the claim is not tested here."]
    return lines


HEADER = ("| model | first cell | transitions L_s / L_q / L_d | heads | linear transform | seeds | test2016 BLEU "
          "mean ± sd | sacreBLEU mean ± sd | params | train tok/s | Δ GRU [95 % CI] p | runs |")
ALIGN = "|---|---|---|---:|---|---:|---:|---:|---:|---:|---|---|"
CSV_HEADER = ["experiment", "model", "first_cell", "transitions", "heads", "linear_transform", "seeds",
              "test2016_bleu_mean", "test2016_bleu_sd", "test2016_sacrebleu_mean", "test2016_sacrebleu_sd", "params",
              "train_tok_s", "d_gru", "d_gru_lo95", "d_gru_hi95", "p_gru_bootstrap", "p_gru_welch", "runs"]


def write(rows, out, runs_dir="results/runs", queues=QUEUES):
    """results/dtmt.md and dtmt.csv from load()'s rows (runs_dir: for the paired tests' statistics; queues: the
    issue's queue files, whose runs not yet committed are named); returns the paths written."""
    groups = counted(rows)
    md, csv_rows = [], []
    for exp in sorted(groups, key=lambda e: order(groups[e])):
        g = groups[exp]
        model, cell, depth, heads, linear = describe(g)
        bleu, bm, bsd = ms(r["bleu"] for r in g)
        sacre, sm, ssd = ms(r["sacre"] for r in g)
        wps = [r["wps"] for r in g if r["wps"] is not None]
        rate = sum(wps) / len(wps) if wps else None
        c, test = gru_test(exp, len(g), runs_dir)
        seeds = f"{len(g)}" + (" (single seed)" if len(g) == 1 else "")
        name = f"**{model}**" if exp == "nmt_dtmt" else model   # the claim's row
        md.append(f"| {name} | {cell} | {depth} | {heads} | {linear} | {seeds} | {bleu} | {sacre} | "
                  f"{one(nmt_table.fmt(r['params'], '{:,}') for r in g)} | {nmt_table.fmt(rate, '{:,.0f}')} | {test} | "
                  + ", ".join(f"`{r['run']}`" for r in g) + " |")
        csv_rows.append([exp, model, cell, *("" if x == "–" else x for x in (depth, heads, linear)), len(g),
                         num(bm, 4), num(bsd, 4), num(sm, 4), num(ssd, 4), one(r["params"] for r in g), num(rate, 0)]
                        + seeds_table.cmp_csv(c, 1) + [" ".join(r["run"] for r in g)])
    present = {r["run"] for r in rows}
    expected = expected_runs(queues)
    missing = [n for n in expected if not os.path.isdir(os.path.join(runs_dir, n))]
    unreadable = [n for n in expected if n not in present and n not in missing]   # reported on stderr by load
    left = sorted((r for r in rows if r["experiment"] not in groups or r not in groups[r["experiment"]]),
                  key=lambda r: r["run"])
    lines = ["# DTMT: deep transition RNN translation on Multi30k (issue 57)", "",
             f"Protocol: the nmt protocol of seeds.md ({NMT_PROTOCOL}) for every row: the same data, BPE, "
             "decoding and scoring, the best dev BLEU model, its translations kept (`make rescore` re-scores them), as "
             "in [nmt.md](nmt.md). DTMT (Meng & Zhang, AAAI 2019): every encoder step, the query and the decoder step "
             "are a transition of a first cell (the L-GRU, with its linear transformation l ⊙ H(x) of the input) "
             "and L_s / L_q / L_d T-GRUs, with multi-head attention; read from each run's `config.resolved.json` "
             "(`model.dtmt.*`, `model.cell.type`). The baselines are nmt.md's shallow RNNSearch runs.",
             f"test2016 BLEU as nmt.md's (tokenised, lowercased); sacreBLEU (13a, detokenised, lc) beside it. Means "
             f"over the runs that count (seeded, translations kept, not diverged); a single-seed row is one draw "
             f"and no test is made from it. Δ GRU: the paired bootstrap over the test sentences and the seeds "
             f"against the shallow GRU ({seeds_table.RESAMPLES:,} resamples; † where p < 0.05 as printed; Welch's t "
             f"over the seeds), for rows of at least {HEADLINE_MIN_SEEDS} seeds: the one test of the pair that "
             "seeds.md and claims.md quote. Params: the model's; train tok/s: the mean over the row's runs of each "
             "run's median logged training window, as nmt.md reads it (1 thread, other jobs sharing the cores, on "
             "whichever machine the run had: rows compare only roughly).",
             "Generated by `python3 plots/dtmt_table.py` from `results/runs/nmt_*`. " + csv_note([csv_path(out)], out),
             ""]
    lines += md_table(HEADER, ALIGN, md)
    if left:
        lines += ["", "Not in these means (in nmt.md, with the reason): " + ", ".join(
            f"`{r['run']}` ({', '.join(run_problems(r)) or 'no test2016 BLEU'})" for r in left) + "."]
    lines += config_lines(groups, "nmt_dtmt")
    lines += [""] + claim_lines(runs_dir, missing) + [""]
    queue_names = ", ".join(f"`{os.path.relpath(p, ROOT)}`" for p in sorted(glob.glob(queues)))
    if missing:
        lines += ["## Runs not committed yet", "", f"Named by the issue's queues ({queue_names}) and not in "
                  f"the run folders: " + ", ".join(f"`{n}`" for n in missing) + ". Their rows are missing or have "
                  "fewer seeds above until they are committed (`tools/collect_run.sh`, then `make rescore`).", ""]
    else:
        lines += [f"Every run the issue's queues ({queue_names}) name is committed.", ""]
    if unreadable:
        lines += ["Committed but not readable (`make tables` reports what is wrong on stderr): "
                  + ", ".join(f"`{n}`" for n in unreadable) + ".", ""]
    return write_table(out, lines, rows, SCRIPT, CSV_HEADER, csv_rows)


if __name__ == "__main__":
    table_main(__doc__, "results/dtmt.md", load, write, with_runs=True)
