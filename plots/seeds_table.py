#!/usr/bin/env python3
"""Cell comparisons over several seeds with paired significance -> results/seeds.md and seeds.csv (and the
same tables inside results/cells.md, through cells_table.py).

A run of one experiment with seed N lives in results/runs/<run>_s<N> (the task binaries' --seed). For each
protocol of PROTOCOLS, per cell: the seeds, mean ± sample standard deviation of the test metric, min–max;
then the difference to the best cell (by mean) and to LSTM with
  - the paired bootstrap over test examples and seeds (Koehn 2004; Clark et al. 2011): 1,000 resamples, each
    draws the examples with replacement and one seed per system; its 95 % interval and two-sided p;
  - Welch's t over the seed means (seed-level; p only).
Both come from the runs' per-example statistics (stats/test.tsv, written by plots/rescore.py from the kept
outputs), so they need no data and no build. A difference is called ("†") only where the bootstrap p, as printed
(three decimals), is below 0.05 (significant()): a printed p 0.050 is not a difference.

One test per pair: compare() runs the bootstrap of two cells' runs once, in a fixed order of the pair (by the
run folders' names), caches it, and gives the other direction the same test with its sign flipped; every table
that quotes a pair (seeds.md, cells.md, cws.md, claims.md, tuned.md, plots/compare.py) calls it, so a pair has
one interval and one p wherever it is quoted. A run that diverged (run_files.divergence) is left out, and said so.

usage: seeds_table.py [--runs results/runs] [--out results/seeds.md]   (numpy, installed with matplotlib)
"""
import os
import re

import numpy as np

import hashlib

import embeddings
from run_files import (RunError, csv_note, csv_path, read_json, report, run_divergence, table_main, write_csv,
                       write_text)
import significance as sig

SCRIPT = "seeds_table.py"
SEED_DIR = re.compile(r"^(?P<base>.+)_s(?P<seed>\d+)$")
RESAMPLES = 1000
ALPHA = 0.05

# (key, title, run-name pattern whose group is the cell, summary metric, stats kind, scale, digits, protocol)
PROTOCOLS = [
    ("sst2", "SST-2 test accuracy (%)", r"^classify_sst2_(?!glove_)(?P<cell>.+)$", "accuracy", "accuracy", 100, 2,
     "SST-2 sentence level (Kim 2014 splits 6,920 / 872 / 1,821), random embeddings, best-dev model"),
    # Issue 52's real scale: one protocol per embedding mode run (tools/glove_mode.py runs seed 1234 both ways, then
    # seeds 1 and 2 in the mode it chose on dev); the run's config must say the same embeddings (EMBEDDINGS).
    ("sst2_glove_frozen", "SST-2 test accuracy (%), GloVe frozen", r"^classify_sst2_glove_frozen_(?P<cell>[a-z_]+)$",
     "accuracy", "accuracy", 100, 2, "SST-2 sentence level (Kim 2014 splits), issue 52: GloVe 6B 100d frozen, the "
     "recipe of the random-embedding rows otherwise, best-dev model"),
    ("sst2_glove_finetune", "SST-2 test accuracy (%), GloVe fine-tuned",
     r"^classify_sst2_glove_finetune_(?P<cell>[a-z_]+)$", "accuracy", "accuracy", 100, 2, "SST-2 sentence level "
     "(Kim 2014 splits), issue 52: GloVe 6B 100d fine-tuned, the recipe of the random-embedding rows otherwise, "
     "best-dev model"),
    ("sst5", "SST-5 test accuracy (%)", r"^classify_sst5_(?!glove_)(?P<cell>.+)$", "accuracy", "accuracy", 100, 2,
     "SST-5 sentence level (8,544 / 1,101 / 2,210), random embeddings, best-dev model"),
    ("sst5_glove_frozen", "SST-5 test accuracy (%), GloVe frozen", r"^classify_sst5_glove_frozen_(?P<cell>[a-z_]+)$",
     "accuracy", "accuracy", 100, 2, "SST-5 sentence level (8,544 / 1,101 / 2,210), issue 52: GloVe 6B 100d frozen, "
     "best-dev model"),
    ("sst5_glove_finetune", "SST-5 test accuracy (%), GloVe fine-tuned",
     r"^classify_sst5_glove_finetune_(?P<cell>[a-z_]+)$", "accuracy", "accuracy", 100, 2, "SST-5 sentence level "
     "(8,544 / 1,101 / 2,210), issue 52: GloVe 6B 100d fine-tuned, best-dev model"),
    ("sick", "SICK test accuracy (%), cond +em +lc", r"^snli_sick_cond_(?P<cell>[a-z]+)$", "accuracy", "accuracy",
     100, 2, "SICK TRAIN / TRIAL / TEST (4,439 / 495 / 4,906), the ATR authors' cond model with the exact-match "
     "feature, lowercased"),
    ("sick_glove_frozen", "SICK test accuracy (%), cond +em +lc, GloVe frozen",
     r"^snli_sick_cond_glove_frozen_(?P<cell>[a-z_]+)$", "accuracy", "accuracy", 100, 2, "SICK TRAIN / TRIAL / TEST "
     "(4,439 / 495 / 4,906), the cond model with the exact-match feature, lowercased, issue 52: GloVe 6B 100d frozen"),
    ("sick_glove_finetune", "SICK test accuracy (%), cond +em +lc, GloVe fine-tuned",
     r"^snli_sick_cond_glove_finetune_(?P<cell>[a-z_]+)$", "accuracy", "accuracy", 100, 2, "SICK TRAIN / TRIAL / "
     "TEST (4,439 / 495 / 4,906), the cond model with the exact-match feature, lowercased, issue 52: GloVe 6B 100d "
     "fine-tuned"),
    ("snli", "SNLI in-house test accuracy (%), cond", r"^snli_inhouse_cond_(?P<cell>[a-z]+)$", "accuracy",
     "accuracy", 100, 2, "reduced scale: 1 % of SNLI 1.0 train (5,498 pairs), full dev and test"),
    ("snli_glove", "SNLI in-house test accuracy (%), cond, GloVe frozen",
     r"^snli_inhouse_cond_glove_(?P<cell>[a-z_]+)$", "accuracy", "accuracy", 100, 2, "reduced data: 1 % of SNLI "
     "1.0 train (5,498 pairs), full dev and test; issue 52: GloVe 6B 100d frozen, as the ATR authors kept theirs, "
     "lowercased"),
    ("cws", "CWS MSR (b) test F1 (%)", r"^cws_msr_(?P<cell>atr|gru|lstm|ran|lrn|sru)$", "f1", "f1", 100, 2,
     "in-house protocol (b): the SIGHAN-2005 MSR gold test file split 80/10/10 by line order"),
    ("gsd", "CWS UD Chinese GSD (c) test F1 (%)", r"^cws_gsd_(?P<cell>atr|gru|lstm|ran|lrn|sru)$", "f1", "f1", 100,
     2, "protocol (c): UD Chinese GSD 1.4 with its own train/dev/test (3,997 / 500 / 500 sentences)"),
    ("pkupd", "CWS PKU (d) test F1 (%)", r"^cws_pkupd_(?P<cell>atr|gru|lstm|ran|lrn|sru)$", "f1", "f1", 100, 2,
     "protocol (d), full scale (issue 52): PKU-annotated People's Daily 1998-01 train (less the lines that are "
     "SIGHAN-2005 PKU test sentences; its last 10 % dev), the SIGHAN-2005 PKU gold test, random character "
     "embeddings"),
    ("ner", "WNUT-17 test entity F1 (%)", r"^ner_wnut17_(?P<cell>atr|gru|lstm|ran|lrn|sru)$", "f1", "f1", 100, 2,
     "WNUT-17 (3,394 / 1,009 / 1,287 sentences), Lample et al.'s BiRNN-CRF with a character BiRNN, random "
     "embeddings, conlleval entity F1"),
    ("ner_glove_frozen", "WNUT-17 test entity F1 (%), GloVe frozen", r"^ner_wnut17_glove_frozen_(?P<cell>[a-z_]+)$",
     "f1", "f1", 100, 2, "WNUT-17 (3,394 / 1,009 / 1,287 sentences), Lample et al.'s BiRNN-CRF, issue 52: "
     "GloVe 6B 100d frozen word vectors (characters random), conlleval entity F1"),
    ("ner_glove_finetune", "WNUT-17 test entity F1 (%), GloVe fine-tuned",
     r"^ner_wnut17_glove_finetune_(?P<cell>[a-z_]+)$", "f1", "f1", 100, 2, "WNUT-17 (3,394 / 1,009 / 1,287 "
     "sentences), Lample et al.'s BiRNN-CRF, issue 52: GloVe 6B 100d fine-tuned word vectors (characters random), "
     "conlleval entity F1"),
    ("imdb", "IMDB test accuracy (%) (error rate = 100 − accuracy)", r"^classify_imdb_(?P<cell>[a-z_]+)$",
     "accuracy", "accuracy", 100, 2, "IMDB documents, full scale (issue 52): 22,500 / 2,500 / 25,000, GloVe 6B 100d "
     "fine-tuned, the first 256 and last 768 tokens of longer documents, unidirectional encoder, last state"),
    ("20ng", "20 Newsgroups test accuracy (%) (error rate = 100 − accuracy)", r"^classify_20ng_(?P<cell>[a-z_]+)$",
     "accuracy", "accuracy", 100, 2, "20 Newsgroups (bydate) documents, full scale (issue 52): 10,182 / 1,132 / "
     "7,532, GloVe 6B 100d fine-tuned, the first 256 and last 768 tokens of longer documents, unidirectional encoder, "
     "last state"),
    ("nmt", "Multi30k test2016 BLEU", r"^nmt_(?P<cell>atr|gru|lstm)$", "bleu", "bleu", 1, 2,
     "RNNSearch En→De on Multi30k (29k pairs), tokenised lowercased BLEU, beam 10"),
    ("ptb", "PTB test perplexity, small recipe", r"^lm_(?P<cell>lstm|atr_tanh|lrn)_small$", "ppl", "ppl", 1, 1,
     "Zaremba et al.'s small recipe (2 x 200, 13 epochs)"),
    # 39 epochs of 2 x 650 take 7-10 h on a one-thread lane, so this recipe has one seed per cell: its bootstrap
    # resamples test sentences only and cannot speak for other seeds, which the protocol line says.
    ("ptb_tf", "PTB test perplexity, the ATR authors' TensorFlow recipe", r"^lm_(?P<cell>[a-z_]+?)_atr_authors$",
     "ppl", "ppl", 1, 1, "the ATR repository's TensorFlow LM (2 x 650, lr 0.6, 39 epochs). One seed per cell: the "
     "bootstrap resamples the test sentences only, so a † says these trained models differ on this test "
     "set, not that the cells would over other seeds, and there is no Welch test"),
]

# The embeddings a protocol's runs start from (plots/embeddings.py's modes); a run whose config says otherwise is
# not one of its runs (it may belong to a later protocol), so a GloVe run never joins a random-embedding protocol.
EMBEDDINGS = {"sst2": "random", "sst5": "random", "sick": "random", "snli": "random", "ner": "random",
              "sst2_glove_frozen": "frozen", "sst2_glove_finetune": "finetune", "sst5_glove_frozen": "frozen",
              "sst5_glove_finetune": "finetune", "sick_glove_frozen": "frozen", "sick_glove_finetune": "finetune",
              "snli_glove": "frozen", "ner_glove_frozen": "frozen", "ner_glove_finetune": "finetune",
              "imdb": "finetune", "20ng": "finetune", "pkupd": "random"}


def read_stats(path, kind):
    """The [N, k] rows of a stats/<split>.tsv file; RunError when it is missing or not kind's columns."""
    if not os.path.isfile(path):
        raise RunError(path, "file missing (plots/rescore.py --write-stats writes it from the kept outputs)")
    with open(path, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        if tuple(header) != sig.COLUMNS[kind]:
            raise RunError(path, f"columns {header}, expected {list(sig.COLUMNS[kind])}")
        try:
            rows = np.loadtxt(f, delimiter="\t", ndmin=2)
        except ValueError as e:
            raise RunError(path, f"not a table of numbers ({e})") from None
    return rows.reshape(-1, len(header))


class SeededRun:
    """One seeded run folder as the tables read it: summary.json, its test `metric`, its stats/test.tsv rows (None
    when missing: no significance for it) and why it diverged ("" when it did not)."""

    def __init__(self, summary, value, rows, diverged):
        self.summary, self.value, self.rows, self.diverged = summary, value, rows, diverged


def read_seeded_run(d, metric, kind, script=SCRIPT):
    """The SeededRun of run folder d, or None when its summary.json cannot be read or holds no test `metric`;
    each problem reported on stderr in `script`'s name (a diverged run: "left out", with no statistics read)."""
    try:
        summary = read_json(os.path.join(d, "summary.json"))
        value = summary["test"][metric]
    except RunError as e:
        report(script, e.path, e.what)
        return None
    except (KeyError, TypeError):
        report(script, os.path.join(d, "summary.json"), f"no test {metric}")
        return None
    why = run_divergence(d, summary)
    if why:
        report(script, d, f"diverged ({why})", "left out")
        return SeededRun(summary, value, None, why)
    try:
        rows = read_stats(os.path.join(d, "stats", "test.tsv"), kind)
    except RunError as e:
        report(script, e.path, e.what, "no significance for")
        rows = None
    return SeededRun(summary, value, rows, "")


class SeedData(dict):
    """load()'s {protocol key: {cell: [runs]}}, with .left_out: {protocol key: [(run dir, why)]}, the seeded runs
    of a protocol left out because they diverged."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.left_out = {}


def load(runs_dir):
    """{protocol key: {cell: [(seed, run dir, test metric, stats rows or None)]}} of every seeded run that did
    not diverge (a SeedData: .left_out names the others)."""
    if not os.path.isdir(runs_dir):
        return SeedData()
    return load_dirs(os.path.join(runs_dir, name) for name in sorted(os.listdir(runs_dir)))


def load_dirs(dirs):
    """load() of the given run folders only (those named <run>_s<seed> whose run matches a protocol)."""
    out = SeedData()
    for d in dirs:
        m = SEED_DIR.match(os.path.basename(os.path.normpath(d)))
        if not m or not os.path.isdir(d):
            continue
        for key, _, pattern, metric, kind, *_ in PROTOCOLS:
            pm = re.match(pattern, m.group("base"))
            if not pm:
                continue
            mode = embeddings.run_mode(d) if key in EMBEDDINGS else None
            if mode is not None and mode != EMBEDDINGS[key]:   # no config (a hand-made folder): the name decides
                report(SCRIPT, d, f"its config says {embeddings.TEXT[mode]}, not protocol {key}'s "
                       f"{embeddings.TEXT[EMBEDDINGS[key]]}", f"not in protocol {key}:")
                continue
            run = read_seeded_run(d, metric, kind)
            if run is not None and run.diverged:   # never in a mean: its number is not a draw of the recipe
                out.left_out.setdefault(key, []).append((d, run.diverged))
            elif run is not None:
                out.setdefault(key, {}).setdefault(pm.group("cell"), []).append(
                    (int(m.group("seed")), d, run.value, run.rows))
            break
    for cells in out.values():
        for runs in cells.values():
            runs.sort()
    return out


_CACHE = {}


def _side_key(runs):
    """A cache key of one side: its run folders (absolute) and a digest of its statistics."""
    h = hashlib.sha1()
    for r in runs:
        h.update(os.path.abspath(r[1]).encode())
        if r[3] is not None:
            h.update(repr(r[3].shape).encode())
            h.update(np.ascontiguousarray(r[3]).tobytes())
        h.update(repr(r[2]).encode())
    return h.hexdigest()


def _order(runs):
    """The pair's fixed order: by the run folders' names (not their paths), so every caller draws alike."""
    return tuple(sorted(os.path.basename(os.path.normpath(r[1])) for r in runs)), _side_key(runs)


def _flip(c):
    """The same test, seen from the other side: b - a."""
    boot = dict(c["boot"], delta=-c["boot"]["delta"], ci95=(-c["boot"]["ci95"][1], -c["boot"]["ci95"][0]))
    welch = dict(c["welch"], t=-c["welch"]["t"]) if c["welch"] else None
    return {"boot": boot, "welch": welch}


def compare(kind, a_runs, b_runs, resamples=RESAMPLES):
    """Bootstrap and Welch of a - b between two cells' runs; None when a side lacks statistics or sizes differ.
    One test per pair: computed once in the pair's fixed order (_order) and cached; the other direction is the
    same test with the sign flipped (the same p, the interval mirrored)."""
    ra = [r[3] for r in a_runs if r[3] is not None]
    rb = [r[3] for r in b_runs if r[3] is not None]
    if not ra or not rb or len(ra) != len(a_runs) or len(rb) != len(b_runs):
        return None
    if len({x.shape[0] for x in ra + rb}) != 1:
        return None
    ka, kb = _order(a_runs), _order(b_runs)
    if kb < ka:
        return _flip(compare(kind, b_runs, a_runs, resamples))
    key = (kind, resamples, ka[1], kb[1])
    if key not in _CACHE:
        boot = sig.paired_bootstrap(kind, ra, rb, resamples=resamples, seed=20261125)
        welch = sig.welch_t([r[2] for r in a_runs], [r[2] for r in b_runs])
        _CACHE[key] = {"boot": boot, "welch": welch}
    c = _CACHE[key]
    return {"boot": dict(c["boot"]), "welch": dict(c["welch"]) if c["welch"] else None}


def significant(p):
    """The one rule for calling a difference (†, claims.md's verdicts): the bootstrap p as the tables print it
    (fmt_p, three decimals) is below ALPHA. A p of 0.04995 prints as 0.050 and is not called."""
    return p < 0.0005 or round(p, 3) < ALPHA


def protocol_rows(proto, cells, reference="lstm", resamples=None):
    """Per cell: summary numbers and the comparisons with the best cell and with `reference` (stored under
    "best" and "lstm"; the reference is LSTM in the results tables, plots/compare.py --ref chooses it)."""
    key, _, _, _, kind, scale, digits, _ = proto
    higher = sig.HIGHER_IS_BETTER[kind]
    stats = {}
    for cell, runs in cells.items():
        vals = [r[2] * scale for r in runs]
        mean, sd = sig.mean_sd(vals)
        stats[cell] = {"n": len(vals), "mean": mean, "sd": sd, "min": min(vals), "max": max(vals),
                       "seeds": [r[0] for r in runs], "runs": runs}
    best = (max if higher else min)(stats, key=lambda c: stats[c]["mean"]) if stats else None
    for cell, st in stats.items():
        for ref_name, ref in (("best", best), ("lstm", reference)):
            if ref not in cells or ref == cell:
                st[ref_name] = None
                continue
            st[ref_name] = compare(kind, cells[cell], cells[ref], resamples or RESAMPLES)
    return stats, best


def fmt_p(p):
    """A p-value as tables print it: three decimals, and "< 0.001" below that, never a bare 0.000."""
    return "< 0.001" if p < 0.0005 else f"{p:.3f}"


def fmt_cmp(c, scale, digits):
    if c is None:
        return "–"
    b = c["boot"]
    lo, hi = (x * scale for x in b["ci95"])
    mark = " †" if significant(b["p"]) else ""
    welch = f", Welch p {fmt_p(c['welch']['p'])}" if c["welch"] else ""
    return (f"{b['delta'] * scale:+.{digits}f} [{lo:+.{digits}f}, {hi:+.{digits}f}] p {fmt_p(b['p'])}{mark}"
            f"{welch}")


def cmp_csv(c, scale):
    """compare()'s result as the five CSV cells delta, lo95, hi95, p_bootstrap, p_welch (empty when c is None)."""
    if c is None:
        return [""] * 5
    b = c["boot"]
    return [f"{b['delta'] * scale:.6g}", f"{b['ci95'][0] * scale:.6g}", f"{b['ci95'][1] * scale:.6g}", f"{b['p']:.6g}",
            f"{c['welch']['p']:.6g}" if c["welch"] else ""]


def build(data, base_dir, heading="#"):
    rel = lambda p: os.path.relpath(p, base_dir)
    lines = [f"{heading} Cell comparisons over seeds, with paired significance", "",
             "Each cell's test metric over its seeds (one run folder per seed, `<run>_s<seed>`): mean ± sample "
             "standard deviation (n), min–max. Δ best / Δ LSTM: the difference of the means to the best cell (by "
             "mean) and to LSTM, with the 95 % interval and two-sided p of a paired bootstrap over the test "
             f"examples and the seeds ({RESAMPLES:,} resamples; Koehn 2004, Clark et al. 2011) and Welch's t "
             "over the seed values; † marks a difference the bootstrap supports at p < 0.05 as printed (a p of "
             "0.050 is not one), and only those are called differences. Each pair is one test, computed once: the "
             "row of A against B and the row of B against A quote the same interval (mirrored) and p. The "
             "statistics come from each run's kept outputs (`stats/test.tsv`, `make rescore` checks them), so "
             "every number here can be re-scored from the repository.", ""]
    rows_csv = []
    for proto in PROTOCOLS:
        key, title, _, _, kind, scale, digits, protocol = proto
        cells = data.get(key)
        lines += [f"{heading}# {title}", "", f"Protocol: {protocol}.", ""]
        left = getattr(data, "left_out", {}).get(key, [])
        left_line = ["Left out (diverged, so not a draw of the recipe): " + "; ".join(
            f"[`{os.path.basename(d)}`]({rel(d)}): {why}" for d, why in sorted(left)) + ".", ""] if left else []
        if not cells:
            lines += ["(no seeded runs committed yet)", ""] + left_line
            continue
        stats, best = protocol_rows(proto, cells)
        lines += ["| cell | mean ± sd (n) | min–max | seeds | Δ best | Δ LSTM |", "|---|---:|---:|---|---|---|"]
        for cell in sorted(stats, key=lambda c: (-stats[c]["mean"] if sig.HIGHER_IS_BETTER[kind] else stats[c]["mean"])):
            st = stats[cell]
            spread = f" ± {st['sd']:.{digits}f} ({st['n']})" if st["sd"] is not None else " (one seed)"
            name = f"**{cell}**" if cell == best else cell
            lines.append(f"| {name} | {st['mean']:.{digits}f}{spread} | {st['min']:.{digits}f}–"
                         f"{st['max']:.{digits}f} | {', '.join(map(str, st['seeds']))} | "
                         f"{fmt_cmp(st['best'], scale, digits) if cell != best else '(best)'} | "
                         f"{fmt_cmp(st['lstm'], scale, digits) if cell != 'lstm' else '(LSTM)'} |")
            rows_csv.append([key, cell, st["n"], f"{st['mean']:.6g}", f"{st['sd']:.6g}" if st["sd"] is not None else "",
                             f"{st['min']:.6g}", f"{st['max']:.6g}", " ".join(map(str, st["seeds"]))]
                            + cmp_csv(st["best"], scale) + cmp_csv(st["lstm"], scale))
        runs = [r[1] for st in stats.values() for r in st["runs"]]
        lines += ["", "Runs: " + ", ".join(f"[`{os.path.basename(d)}`]({rel(d)})" for d in sorted(runs)), ""]
        lines += left_line
    return lines, rows_csv


CSV_HEADER = ["protocol", "cell", "n", "mean", "sd", "min", "max", "seeds",
              "d_best", "d_best_lo95", "d_best_hi95", "p_best_bootstrap", "p_best_welch",
              "d_lstm", "d_lstm_lo95", "d_lstm_hi95", "p_lstm_bootstrap", "p_lstm_welch"]


def write_generated(out, lines, script, csv_header, rows, counted):
    """A table script's output: `lines` and the line that says which script generated them to out (markdown), its
    CSV table (csv_header, rows) beside it; prints what it wrote (len(rows) `counted`); returns both paths."""
    lines = lines + [f"Generated by `make tables` (`plots/{script}`). " + csv_note([csv_path(out)], out)]
    write_text(out, "\n".join(lines) + "\n")
    write_csv(csv_path(out), csv_header, rows)
    print(f"{script}: wrote {out} and {csv_path(out)} ({len(rows)} {counted})")
    return [out, csv_path(out)]


def write(data, out):
    lines, rows = build(data, os.path.dirname(out) or ".")
    return write_generated(out, lines, SCRIPT, CSV_HEADER, rows, "cells")


def main():
    table_main(__doc__, "results/seeds.md", load, write)


if __name__ == "__main__":
    main()
