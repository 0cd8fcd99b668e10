#!/usr/bin/env python3
"""The three papers' claims, one row each, with our evidence and a verdict by a stated rule -> results/claims.md
and claims.csv (issue 51), from the committed run folders, sweep folders and speed files alone.

Evidence, per claim: on the fixed recipes, the seeded runs of seeds_table (the paired bootstrap over test
examples and seeds, computed by seeds_table.compare, the same call every other table makes); after tuning, the
seed runs of each cell's best configuration in the tools/tune.py sweeps (tune_table.load); for speed, the speed
task's files; for the twin gates, the runs' gates.json; for DTMT's deep transition (issue 57) and LRN on SQuAD
(issue 53), rows of their own (OWN_ROWS): the DTMT runs against the nmt protocol's GRU runs, and the rc runs
rc.md compares, each through the same seeds_table.compare and the same rule.

The rule (RULES below, printed on the page):
- "A better than B": supported when the difference is in the claimed direction with bootstrap p < 0.05,
  contradicted when it is significant in the other direction, else no significant difference.
- "A matches B" (on par, or better): contradicted when A is significantly worse (p < 0.05); supported when A is
  significantly better or the 95 % interval of A - B lies within ±MARGIN; else no significant difference (the
  interval is too wide to tell parity from a difference).
- speed "A faster than B": supported when A's rate is at least 5 % above B's in every measured configuration,
  contradicted when it is at least 5 % below in one, else no significant difference (5 %: above the
  process-to-process spread the speed README measures).
- twin gates r(i,f) ≈ −0.98: supported when every seed's Pearson r over target positions is at most −0.9 in
  both decoder cells, contradicted otherwise.
- not tested here: no evidence of the needed kind (n < 3 seeds, no kept outputs, no such task yet).
usage: claims_table.py [--runs results/runs] [--sweeps results/sweeps] [--speed results/speed] [--out results/claims.md]
"""
import argparse
import csv
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_files import RunError, read_json, write_csv, write_text  # noqa: E402
import realscale  # noqa: E402
import rc_table  # noqa: E402
import seeds_table  # noqa: E402
import tune_table  # noqa: E402

SCRIPT = "claims_table.py"
MARGIN = {"accuracy": 1.0, "f1": 1.0, "bleu": 1.0, "ppl": 2.0}   # parity margin, in the table's units
# SQuAD F1 (the "squad" kind, in F1 points): ±1, as the other F1 tasks; the LRN paper's five cells span 0.74 F1
# (SRU 78.41 to GRU 79.15), so a difference inside ±1 is as close as the paper's own rows.
MARGIN["squad"] = 1.0
SPEED_MARGIN = 0.05
RULES = __doc__.split("The rule (RULES below, printed on the page):\n")[1].split("usage:")[0].strip()

# (id, paper, claim, kind, [(protocol key, A, B)], [(space file, arm, A, B)] or None, higher is better)
CLAIMS = [
    ("atr_nmt", "ATR (EMNLP 2018), Tables 2, 4", "ATR matches GRU and LSTM on translation with fewer parameters",
     "parity", [("nmt", "atr", "gru"), ("nmt", "atr", "lstm")], None),
    ("atr_train_speed", "ATR, Table 4", "ATR trains faster than GRU and LSTM", "speed_train",
     [("nmt", "atr", "gru"), ("nmt", "atr", "lstm")], None),
    ("atr_decode_speed", "ATR, Table 4", "ATR decodes faster than GRU and LSTM", "speed_decode",
     [("nmt", "atr", "gru"), ("nmt", "atr", "lstm")], None),
    ("atr_snli", "ATR, Table 6", "ATR is better than GRU on SNLI (85.6 vs 84.6)", "better",
     [("snli", "atr", "gru"), ("snli_glove", "atr", "gru")], [("snli_inhouse.json", "hidden", "atr", "gru")]),
    ("atr_cws", "ATR, Table 7", "ATR matches GRU and LSTM on Chinese word segmentation (95.2 / 95.1 / 95.2 F1)",
     "parity", [("cws", "atr", "gru"), ("cws", "atr", "lstm"), ("gsd", "atr", "gru"), ("gsd", "atr", "lstm"),
                ("pkupd", "atr", "gru"), ("pkupd", "atr", "lstm")],
     [("cws_gsd.json", "hidden", "atr", "gru"), ("cws_gsd.json", "hidden", "atr", "lstm")]),
    ("atr_gates", "ATR, Figure 3", "ATR's twin gates are strongly negatively correlated, r(i,f) ≈ −0.98",
     "gates", [], None),
    ("lrn_ptb", "LRN (ACL 2019), Table 3", "LRN has lower PTB perplexity than LSTM (61.26 vs 63.78, MoS setup)",
     "better_low", [("ptb", "lrn", "lstm")], None),
    ("lrn_snli", "LRN, Table 2", "LRN matches LSTM on SNLI (84.88 vs 84.27)", "parity",
     [("snli", "lrn", "lstm"), ("snli_glove", "lrn", "lstm")],
     [("snli_inhouse.json", "hidden", "lrn", "lstm")]),
    ("lrn_ner", "LRN, Table 6", "LRN matches LSTM on NER (CoNLL-2003 88.56 vs 89.61)", "parity",
     [("ner", "lrn", "lstm"), ("ner_glove", "lrn", "lstm")], [("wnut17.json", "hidden", "lrn", "lstm")]),
    ("lrn_doc", "LRN, Table 4", "LRN matches LSTM on document classification (AmaPolar, Yahoo)", "parity",
     [("imdb", "lrn", "lstm"), ("20ng", "lrn", "lstm")], None),
    ("lrn_rc", "LRN, Table 5", "LRN matches LSTM on reading comprehension (SQuAD EM / F1)", "parity",
     [("rc", "lrn", "lstm")], None),
    ("dtmt_deep", "DTMT (AAAI 2019)", "DTMT's deep transition improves on a shallow GRU RNNSearch", "better",
     [("nmt_dtmt", "dtmt", "gru")], None),
]
UNTESTED = {}   # claim id -> why no evidence of the needed kind exists here (kind "untested"); none at present
KIND_OF = {p[0]: p[4] for p in seeds_table.PROTOCOLS}
SCALE = {p[0]: p[5] for p in seeds_table.PROTOCOLS}
PROTOCOL_TEXT = {p[0]: p[7] for p in seeds_table.PROTOCOLS}
# Evidence read by a row function of its own (OWN_ROWS below), not through seeds_table.PROTOCOLS: DTMT is an
# architecture, not a cell of the nmt protocol's table (it would become seeds.md's "best" of the RNNSearch cells),
# and rc.md already selects and compares the SQuAD runs.
PROTOCOL_TEXT.update({
    "nmt_dtmt": "DTMT (Meng & Zhang 2019) from experiments/nmt/dtmt.json (run folders nmt_dtmt_s<seed>; its depths, "
                "heads and depth study in [dtmt.md](dtmt.md)) against the nmt protocol's RNNSearch GRU runs, on "
                "that protocol: " + PROTOCOL_TEXT["nmt"],
    "rc": "R-Net on SQuAD v1.1 dev, official F1 per question ([rc.md](rc.md): the runs its cells.md column reads, "
          "the squad_<cell> recipe; the same paired bootstrap rc.md prints); parity margin ±1 F1 point "
          "(MARGIN's \"squad\")"})


def verdict_of(kind, cmp, metric_kind, scale):
    """(verdict, effect text) of one comparison; cmp is seeds_table.compare's result or None."""
    if cmp is None:
        return "not tested here", "–"
    b = cmp["boot"]
    d, (lo, hi), p = b["delta"] * scale, (x * scale for x in b["ci95"]), b["p"]
    text = f"{d:+.2f} [{lo:+.2f}, {hi:+.2f}], p {seeds_table.fmt_p(p)}"
    higher = seeds_table.sig.HIGHER_IS_BETTER[metric_kind]
    good = d > 0 if higher else d < 0
    sig = seeds_table.significant(p)   # the tables' one rule: p < 0.05 as printed
    if kind in ("better", "better_low"):
        return ("supported" if sig and good else "contradicted" if sig else "no significant difference"), text
    margin = MARGIN[metric_kind]
    if sig and not good:
        return "contradicted", text
    if (sig and good) or (-margin <= lo and hi <= margin):
        return "supported", text
    return "no significant difference", text


def pair_row(proto, a, b, ra, rb, kind, metric_kind, scale, few="fewer than 3 seeds", pending=""):
    """One evidence row (proto, a, b, n, verdict, effect) of cells a and b from their seeded runs (seeds_table.load's
    (seed, dir, value, stats rows) tuples): not tested below 3 seeds a side (`few` says why, after `pending`), else
    verdict_of the pair's one test (seeds_table.compare). Every fixed-recipe row, and dtmt.md's verdict, comes from
    here."""
    if not ra or not rb:
        return (proto, a, b, "–", "not tested here", pending + "no seeded runs of both cells")
    n = f"{len(ra)} / {len(rb)}"
    if len(ra) < 3 or len(rb) < 3:
        return (proto, a, b, n, "not tested here", pending + few)
    cmp = seeds_table.compare(metric_kind, ra, rb)
    v, eff = verdict_of(kind, cmp, metric_kind, scale)
    return (proto, a, b, n, v, eff if cmp else "outputs not kept for every seed")


def fixed_rows(claim, seeds, runs_dir=None):
    """The rows of a claim's seeded evidence; runs_dir: where glove_mode finds the seed-1234 runs that choose the
    GloVe mode of a protocol named without it (realscale.CHOSEN)."""
    cid, paper, text, kind, pairs, _ = claim
    out = []
    for named, a, b in pairs:
        proto, why = realscale.resolve(named, runs_dir)
        # issue 52's runs: say that they are still to come, not only that they are absent
        pending = "issue 52's runs not committed yet: " if proto in realscale.PROTOCOL_KEYS or why else ""
        if why:
            out.append((proto, a, b, "–", "not tested here", why))
            continue
        cells = seeds.get(proto, {})
        out.append(pair_row(proto, a, b, cells.get(a, []), cells.get(b, []), kind, KIND_OF[proto], SCALE[proto],
                            pending=pending))
    return out


def seeded_runs(runs_dir, experiment, metric="bleu", kind="bleu"):
    """seeds_table.load's tuples for the seeded run folders <experiment>_s<seed> of runs_dir (in its order: by
    seed), for an experiment no PROTOCOLS pattern names; a diverged or unreadable run is reported and left out."""
    pattern = re.compile(re.escape(experiment) + r"_s(?P<seed>\d+)$")
    names = sorted(os.listdir(runs_dir)) if os.path.isdir(runs_dir) else []
    out = []
    for name in names:
        m = pattern.fullmatch(name)
        d = os.path.join(runs_dir, name)
        if not m or not os.path.isdir(d):
            continue
        run = seeds_table.read_seeded_run(d, metric, kind, SCRIPT)
        if run is not None and not run.diverged:
            out.append((int(m.group("seed")), d, run.value, run.rows))
    return sorted(out, key=lambda r: (r[0], r[1]))


def dtmt_rows(claim, runs_dir):
    """dtmt_deep's evidence: test2016 BLEU of the seeded runs of experiments/nmt/dtmt.json (nmt_<A>_s<seed>) against
    the shallow RNNSearch runs of experiments/nmt/<B>.json (nmt_<B>_s<seed>, the nmt protocol's), one test."""
    return [pair_row(proto, a, b, seeded_runs(runs_dir, "nmt_" + a), seeded_runs(runs_dir, "nmt_" + b), claim[3],
                     "bleu", 1) for proto, a, b in claim[4]]


def rc_rows(claim, runs_dir):
    """lrn_rc's evidence: SQuAD v1.1 dev F1 of the runs cells.md's SQuAD column reads (rc_table.headline_rows),
    as rc.md pairs them (rc_table.cmp_runs, kind "squad"): the same test rc.md prints."""
    by = rc_table.counted(rc_table.headline_rows(rc_table.load(runs_dir)))
    out = []
    for proto, a, b in claim[4]:
        ga, gb = by.get(a, []), by.get(b, [])
        row = pair_row(proto, a, b, rc_table.cmp_runs(ga, "f1"), rc_table.cmp_runs(gb, "f1"), claim[3], "squad", 1,
                       few="fewer than 3 seeds (issue 53's queues run one seed per cell first; rc.md compares them)")
        why = next((r["no_rows"] for r in ga + gb if r["rows"] is None), None)
        if why and row[5] == "outputs not kept for every seed":   # rc.md's reason, which names the run
            row = row[:5] + (f"no per-question statistics: {why}",)
        out.append(row)
    return out


# Claims whose evidence a function of its own reads (claim, runs dir) -> rows, instead of fixed_rows.
OWN_ROWS = {"dtmt_deep": dtmt_rows, "lrn_rc": rc_rows}


def tuned_rows(claim, tuned):
    out = []
    for space, arm, a, b in claim[5] or []:
        cells = tuned.get((space, arm), {})
        ra = cells.get(a, {}).get("seeds", [])
        rb = cells.get(b, {}).get("seeds", [])
        label = f"{space.removesuffix('.json')} (tuned, {arm})"
        if len(ra) < 3 or len(rb) < 3:
            div = [f"{c} seed {','.join(map(str, cells[c]['diverged_seeds']))}" for c in (a, b)
                   if cells.get(c, {}).get("diverged_seeds")]
            why = (f"fewer than 3 scored seed runs: diverged {'; '.join(div)}" if div else
                   "sweep or its seed runs not finished")
            out.append((label, a, b, f"{len(ra)} / {len(rb)}", "not tested here", why))
            continue
        metric = cells[a]["study"]["meta"]["metric"]
        cmp = seeds_table.compare(tune_table.KIND[metric], ra, rb)
        v, eff = verdict_of(claim[3], cmp, tune_table.KIND[metric], 100)
        out.append((label, a, b, f"{len(ra)} / {len(rb)}", v, eff if cmp else "outputs not kept for every seed"))
    return out


def speed_label(col):
    """train, decode_beam1, ... as before; the rows/s at max length: decode_beam1 at max length, ..."""
    if "_rows_s_fixed" in col:
        return col.replace("_rows_s_fixed", "") + " at max length"
    return col.replace("_tokens_s", "")


def speed_rows(claim, speed_dir):
    path = os.path.join(speed_dir, "nmt.csv")
    if not os.path.isfile(path):
        return [("nmt speed", "atr", "–", "–", "not tested here", f"no {path}")]
    with open(path, encoding="utf-8") as f:
        rates = {r["cell"]: r for r in csv.DictReader(f)}
    # Decoding: the decoders' rows/s with every hypothesis run to its max length (the same work for every cell)
    # where the report has it; tokens/s at the models' own output lengths (barely trained: they differ) before it.
    fixed = all("decode_rows_s_fixed_beam%d" % b in next(iter(rates.values()), {}) for b in (1, 10))
    cols = (["train_tokens_s"] if claim[3] == "speed_train" else
            ["decode_rows_s_fixed_beam1", "decode_rows_s_fixed_beam10"] if fixed else
            ["decode_tokens_s_beam1", "decode_tokens_s_beam10"])
    out = []
    for _, a, b in claim[4]:
        if a not in rates or b not in rates:
            out.append(("nmt speed", a, b, "–", "not tested here", "cell not measured"))
            continue
        ratios = [float(rates[a][c]) / float(rates[b][c]) for c in cols]
        if all(r >= 1 + SPEED_MARGIN for r in ratios):
            v = "supported"
        elif any(r <= 1 - SPEED_MARGIN for r in ratios):
            v = "contradicted"
        else:
            v = "no significant difference"
        out.append((f"nmt speed ({path})", a, b, "1 sitting", v,
                    ", ".join(f"{speed_label(c)} {r:.2f}x" for c, r in zip(cols, ratios))))
    return out


def gate_rows(runs_dir):
    rs = []
    for seed in (1234, 1, 2):
        d = os.path.join(runs_dir, f"nmt_atr_s{seed}")
        try:
            g = read_json(os.path.join(d, "gates.json"))
            rs.append((seed, g["cell1"]["pearson_r_positions"], g["cell2"]["pearson_r_positions"]))
        except (RunError, KeyError, TypeError):
            continue
    if len(rs) < 3:
        return [("nmt gates", "atr", "–", str(len(rs)), "not tested here", "fewer than 3 seeded runs with gates.json")]
    ok = all(r1 <= -0.9 and r2 <= -0.9 for _, r1, r2 in rs)
    text = "; ".join(f"s{s}: cell1 {r1:.3f}, cell2 {r2:.3f}" for s, r1, r2 in rs)
    return [("nmt (decoder gates over target positions)", "atr", "–", str(len(rs)),
             "supported" if ok else "contradicted", text)]


def build(runs_dir, sweeps_dir, speed_dir):
    seeds = seeds_table.load(runs_dir)
    tuned = tune_table.load(sweeps_dir) if os.path.isdir(sweeps_dir) else {}
    lines = ["# The papers' claims, tested here", "",
             "Generated by `plots/claims_table.py` from `results/runs/`, `results/sweeps/` and `results/speed/` "
             "alone. One row per piece of evidence: the protocol (and scale), the cells, n (seeds per cell), the "
             "effect A − B in the table's units with its 95 % interval and p (paired bootstrap over test "
             "examples and seeds, `plots/seeds_table.py`), and the verdict. Every protocol here is at a reduced "
             "scale on one CPU but issue 52's real-scale ones (GloVe vectors, documents, PKU (d); the protocol "
             "notes below say how); the papers' setups are in brackets in each claim.",
             "", "**The rule.**", "", RULES, "",
             f"Parity margins: {', '.join(f'{k} ±{v:g}' for k, v in MARGIN.items())} (points; perplexity in ppl).", "",
             "| claim | source | evidence (protocol) | A | B | n (A / B) | A − B [95 % CI], p | verdict |",
             "|---|---|---|---|---|---|---|---|"]
    csv_rows = []
    used = set()
    for claim in CLAIMS:
        cid, paper, text, kind = claim[:4]
        if kind.startswith("speed"):
            rows = speed_rows(claim, speed_dir)
        elif kind == "gates":
            rows = gate_rows(runs_dir)
        elif kind == "untested":
            rows = [("–", "–", "–", "–", "not tested here", UNTESTED[cid])]
        elif cid in OWN_ROWS:
            rows = OWN_ROWS[cid](claim, runs_dir)
        else:
            rows = fixed_rows(claim, seeds, runs_dir) + tuned_rows(claim, tuned)
        for proto, a, b, n, v, eff in rows:
            used.add(proto)
            label = (f"{proto} (fixed recipe)" if proto in PROTOCOL_TEXT else
                     f"{proto} (GloVe, the mode chosen on dev)" if proto in realscale.CHOSEN else proto)
            lines.append(f"| {text} | {paper} | {label} | {a} | {b} | {n} | {eff} | **{v}** |")
            csv_rows.append([("" if x == "–" else x) for x in (cid, paper, text, proto, a, b, n, eff, v)])
    lines += ["", "Protocols:", ""]
    for key in sorted(used & set(PROTOCOL_TEXT)):
        lines.append(f"- `{key}`: {PROTOCOL_TEXT[key]}")
    lines.append("- tuned rows: the winner of each cell's equal-budget search, run with 3 new seeds "
                 "([tuned.md](tuned.md)).")
    return lines, csv_rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", default="results/runs")
    ap.add_argument("--sweeps", default="results/sweeps")
    ap.add_argument("--speed", default="results/speed")
    ap.add_argument("--out", default="results/claims.md")
    a = ap.parse_args(argv)
    lines, rows = build(a.runs, a.sweeps, a.speed)
    write_text(a.out, "\n".join(lines) + "\n")
    write_csv(a.out[:-3] + ".csv", ["claim", "paper", "text", "evidence", "a", "b", "n", "effect", "verdict"], rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
