#!/usr/bin/env python3
"""results/runs/nmt_*/ (+ results/nmt_extra/*.json) -> results/nmt.md (+ results/nmt.csv, nmt_ensembles.csv):
the translation table, built only from committed run files (tools/collect_run.sh copies summary, config,
metrics and gate statistics).

Per system: parameters, test2016 BLEU (tokenised, multi-bleu convention, lowercased) and sacreBLEU (13a, on
detokenised output against the raw references, lc), the same on newstest2014, training tokens/s of the run,
decoding tokens/s at beam 1 and 10, and the Pearson r of the decoder's input and forget gates, with the
paper's WMT14 numbers (Table 2 and 4) beside. results/nmt_extra/*.json are `nmt translate --scores` outputs
(ensembles, averaged checkpoints) shown in a second table.

The controlled speed comparison is quoted from the speed task's results/speed/nmt.csv (--speed), in the order
its numbers give (training and decoding tokens/s at equal dimensions). Systems with no seeded run that keeps its
translations, and ensembles of such runs, are named as left out of the headline tables (cells.md, the README).

usage: nmt_table.py [--runs results/runs] [--extra results/nmt_extra] [--speed results/speed]
                    [--out results/nmt.md]   (stdlib only)

A run folder or extra file that cannot be read is reported on stderr and left out (plots/run_files.py).
"""
import argparse
import csv
import glob
import os
import re

from run_files import (RunError, cell_key, csv_note, gate_pair, gate_pair_note, csv_path,
                       invocation_threads, load_runs, number_or_none, optional_json, read_command, read_json,
                       read_metrics, report, run_outcome, write_csv, seed_group_lines, SEED_SUFFIX, train_rate,
                       write_text, headline_group, HEADLINE_MIN_SEEDS, seed_of)

SCRIPT = "nmt_table.py"

# Quoted from the ATR paper (Zhang et al. 2018), Table 2 (WMT14 En-De, 4.5M pairs, case-sensitive BLEU tok/detok,
# newstest2014) and Table 4 (params, train words/s on a GTX TITAN X).
PAPER = {"gru": ("22.54 / 22.06", "83.5M", 1996), "lstm": ("22.96 / 22.39", "93.3M", 1919),
         "ran": ("22.14 / 21.40", "79.5M", 2192), "atr": ("22.48 / 21.99", "67.8M", 2518),
         "atr_ca": ("23.31 / 22.70", "63.1M", 3993), "atr_deep": ("24.16 / 23.59 (GNMT+ATR)", "", None)}
# Table 2's ensemble: RNNSearch + ATR + CA, 8 models (tok / detok).
PAPER_ENSEMBLE = "RNNSearch + ATR + CA, ensemble of 8: 24.97 / 24.33 (single model 23.31 / 22.70)"


def system_name(model):
    cell = model["cell"]["type"]
    if model.get("kind", "rnnsearch") == "dtmt":   # DTMT (issue 57; dtmt.md): its depths from the config, not the name
        t = model.get("dtmt", {})
        depth = "-".join(str(t.get(k, "?"))
                         for k in ("encoder_transitions", "query_transitions", "decoder_transitions"))
        return f"dtmt_{cell}_{depth}" + ("" if t.get("linear_transform", True) else "_no_linear")
    name = cell
    if model.get("encoder") == "ca":
        name += "_ca"
    if model.get("encoder_layers", 1) > 1 or model.get("decoder_layers", 1) > 1:
        name += "_deep"
    return name


def fmt(x, spec="{:.2f}"):
    return spec.format(x) if isinstance(x, (int, float)) else "–"


def plain(x, spec="{:.2f}"):
    """The CSV twin of fmt(): the same rounding, no thousands separators, "" when missing."""
    return spec.replace(",", "").format(x) if isinstance(x, (int, float)) else ""


def numbers(text):
    return [float(x) for x in re.findall(r"\d+(?:\.\d+)?", text or "")]


def load_run(d):
    s = read_json(os.path.join(d, "summary.json"))
    e = optional_json(os.path.join(d, "eval.json"), SCRIPT)   # a later --eval-only (e.g. a newer binary's
    for k in ("translations", "decoder_gates"):               # gate analysis) adds to it
        if e and k in e:
            s[k] = e[k]
    cfg = read_json(os.path.join(d, "config.resolved.json"))
    metrics = read_metrics(d)
    cmd, _ = read_command(d)
    model = cfg.get("model", cfg.get("typed", {}).get("model", {}))
    if not model:
        raise RunError(os.path.join(d, "config.resolved.json"), "missing key 'model'")
    tr = s.get("translations", {})
    data = cfg.get("data", {})
    test = data.get("test", "test2016")
    t, t1, nt = tr.get(test, {}), tr.get(test + "_beam1", {}), tr.get("newstest2014", {})
    gates = s.get("decoder_gates", {})
    cell1, cell2 = gates.get("cell1", {}), gates.get("cell2", {})
    r = {"run": os.path.basename(d), "dir": d, "system": system_name(model), "key": cell_key(model["cell"]),
         "plain": model.get("encoder", "default") != "ca" and model.get("encoder_layers", 1) == 1
         and model.get("decoder_layers", 1) == 1 and model.get("kind", "rnnsearch") == "rnnsearch",   # not DTMT
         "test_set": test, "params": s.get("params"),
         "bleu": t.get("bleu"), "sacre": t.get("sacrebleu"), "nt_bleu": nt.get("bleu"),
         "nt_sacre": nt.get("sacrebleu"), "wps": train_rate(d, s, metrics),
         "dec1": t1.get("decode_tokens_s"), "dec10": t.get("decode_tokens_s"),
         "pair": gate_pair(cell1),
         "r1": cell1.get("pearson_r_positions"), "r2": cell2.get("pearson_r_positions"),
         **run_outcome(d, s, metrics, cmd), "sig": str(t.get("sacrebleu_signature", ""))}
    for k in ("params", "bleu", "sacre", "nt_bleu", "nt_sacre", "wps", "dec1", "dec10", "r1", "r2"):
        r[k] = number_or_none(r[k])
    p = PAPER.get(r["system"], ("", "", None))
    # Cells without input and forget gates (GRU, DTMT's L-GRU/T-GRU) correlate update z with reset r instead.
    pair_note = gate_pair_note(r["pair"])
    # The header promises 1 thread; a run started or resumed with more says so beside its speed.
    threads = invocation_threads(d, cfg.get("run", {}).get("threads", cfg.get("threads")))
    r["threads"] = "+".join("?" if t is None else str(t) for t in threads)
    threads_note = f" ({r['threads']} threads)" if any(t not in (1, None) for t in threads) else ""
    r["md"] = (f"| {r['system']} | {fmt(r['params'], '{:,}')} | {fmt(r['bleu'])} | {fmt(r['sacre'])} | "
               f"{fmt(r['nt_bleu'])} / {fmt(r['nt_sacre'])} | {fmt(r['wps'], '{:,.0f}')}{threads_note} | "
               f"{fmt(r['dec1'], '{:,.0f}')} / {fmt(r['dec10'], '{:,.0f}')} | {fmt(r['r1'], '{:.3f}')} / "
               f"{fmt(r['r2'], '{:.3f}')}{pair_note} | {r['epochs']} ({r['stop']}) | {p[0]} | "
               f"{p[1]}{', ' + str(p[2]) if p[2] else ''} |")
    tok = numbers(p[0])
    r["csv"] = [r["system"], r["key"], plain(r["params"], "{}"), plain(r["bleu"]), plain(r["sacre"]),
                plain(r["nt_bleu"]), plain(r["nt_sacre"]), plain(r["wps"], "{:.0f}"), r["threads"],
                plain(r["dec1"], "{:.0f}"), plain(r["dec10"], "{:.0f}"), plain(r["r1"], "{:.3f}"),
                plain(r["r2"], "{:.3f}"), r["pair"],
                r["epochs"], r["stop"], *(f"{x:.2f}" for x in tok[:2]), *([""] * (2 - len(tok[:2]))),
                p[1][:-1] if p[1] else "", p[2] or "", r["run"], r["cmd"]]
    return r


def load(runs_dir):
    """Every readable nmt_* run folder of runs_dir (the others reported on stderr)."""
    return load_runs(runs_dir, "nmt_", load_run, SCRIPT)


def load_extra(extra_dir):
    """The readable results/nmt_extra/*.json files, as (name, object) (the others reported on stderr)."""
    out = []
    for f in sorted(glob.glob(os.path.join(extra_dir, "*.json"))):
        try:
            e = read_json(f)
            models = e.get("models", [])
            if not isinstance(models, list):
                raise RunError(f, "'models' is not a list")
            row = (f"| {os.path.basename(f)[:-5]} | {', '.join(str(m) for m in models)} | {e.get('beam')} | "
                   f"{fmt(e.get('bleu'))} | {fmt(e.get('sacrebleu'))} | `{e.get('command', '')}` |")
            out.append({"md": row, "models": [str(m) for m in models], "csv": [os.path.basename(f)[:-5], "; ".join(str(m) for m in models),
                                           e.get("beam"), plain(e.get("bleu")), plain(e.get("sacrebleu")),
                                           e.get("split", ""), e.get("command", "")]})
        except RunError as err:
            report(SCRIPT, err.path, err.what)
    return out


CSV_HEADER = ["system", "cell", "params", "test2016_bleu", "test2016_sacrebleu", "newstest2014_bleu",
              "newstest2014_sacrebleu", "train_tok_s", "train_threads", "decode_tok_s_beam1",
              "decode_tok_s_beam10", "r_gates_positions_cell1", "r_gates_positions_cell2", "gate_pair", "epochs",
              "stop_reason", "paper_wmt14_bleu_tok", "paper_wmt14_bleu_detok", "paper_params_M",
              "paper_train_words_s", "run", "command"]
CSV_EXTRA_HEADER = ["what", "models", "beam", "bleu", "sacrebleu", "split", "command"]


def speed_order(path):
    """The sentence on the speed task's NMT comparison (results/speed/nmt.csv: one row per cell, train and decode
    tokens/s at equal dimensions), each rate's cells in the order of their numbers; None without a readable file."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            recs = list(csv.DictReader(f))
    except (OSError, UnicodeDecodeError, csv.Error):
        return None
    def order(col):
        vals = [(float(r[col]), r["cell"]) for r in recs
                if r.get("cell") and re.fullmatch(r"[0-9.eE+-]+", r.get(col) or "")]
        return " > ".join(f"{c.upper()} {v:,.0f}" for v, c in sorted(vals, reverse=True))
    parts = [(what, order(col)) for what, col in (("training", "train_tokens_s"),
                                                  ("decoding at beam 1", "decode_tokens_s_beam1"),
                                                  ("at beam 10", "decode_tokens_s_beam10"))]
    parts = [f"{what} {o}" for what, o in parts if o]
    if not parts:
        return None
    md = os.path.splitext(path)[0] + ".md"
    text = f"`{md}` has the controlled speed comparison at equal dimensions, tokens/s: " + "; ".join(parts) + "."
    # Reports that decode again with every hypothesis run to its max length: the decoders' own speed.
    fixed = [(what, order(col)) for what, col in (("beam 1", "decode_rows_s_fixed_beam1"),
                                                  ("beam 10", "decode_rows_s_fixed_beam10"))]
    fixed = [f"{what} {o}" for what, o in fixed if o]
    if fixed:
        text += (" The decoding tokens/s count the barely trained models' output lengths too; with every hypothesis"
                 " run to its max length (the same work for every cell), hypothesis rows/s: " + "; ".join(fixed) + ".")
    return text


def run_of(model_path):
    """The run folder name an ensemble member comes from (…/nmt_atr/model.avg.bin -> nmt_atr), or ""."""
    parts = [p for p in os.path.normpath(model_path).split(os.sep) if p.startswith("nmt_")]
    return parts[-1] if parts else ""


def write(rows, extra, out, speed_csv="results/speed/nmt.csv"):
    """results/nmt.md, nmt.csv and (with extra rows) nmt_ensembles.csv; returns the paths written. speed_csv: the
    speed task's NMT rates, quoted in the order they give."""
    csv_runs, csv_extra = csv_path(out), csv_path(out, "_ensembles")
    lines = ["# NMT: RNNSearch on Multi30k En→De (reduced-scale reproduction of the ATR paper's §4)", "",
             "Ours: trained on Multi30k (29,000 pairs; the paper used WMT14's 4.5M), joint SentencePiece BPE 8k on",
             "the lowercased Moses-tokenised text, beam 10 with length normalisation, best dev (val) BLEU model.",
             "BLEU = tokenised multi-bleu convention on the tokenised lowercased references; sacreBLEU = 13a on",
             "the detokenised output against the raw references, lowercased (the models output lowercase).",
             "newstest2014 is out-of-domain here (news vs image captions). Train and decode tokens/s are the runs'",
             "own (train: the median of the logged training windows over every start and resume; 1 thread,",
             "or the threads of each invocation (start, resume, --eval-only) where the train cell",
             "names them, e.g. 1+2, the last of which decoded; other runs sharing the 2 cores; on whichever machine",
             "the session had: each run's `machine.txt` records CPU and load where present), so they do not",
             "compare across rows;",
             speed_order(speed_csv) or "`results/speed/nmt.md` has the controlled speed comparison at equal "
             "dimensions.",
             "r(i,f): Pearson r over target positions of the decoder cells' mean input and forget gates on the test",
             "split, teacher-forced (Fig. 3, which uses newstest2014);",
             "a cell without both names the pair it correlates instead, e.g. (z,r) = update and reset gates for GRU",
             "and DTMT's L-GRU/T-GRU; – for SRU (forget and reset gates only; its figure shows those).",
             "Generated by `python3 plots/nmt_table.py` from `results/runs/nmt_*`. "
             + csv_note([csv_runs] + ([csv_extra] if extra else []), out), "",
             "| system | params | test2016 BLEU | test2016 sacreBLEU | newstest2014 BLEU / sacreBLEU | train tok/s "
             "| decode tok/s beam 1 / 10 | r(i,f) cell1 / cell2 | epochs | paper WMT14 tok / detok | paper params, train w/s |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|"]
    rows = sorted(rows, key=lambda r: -(r["bleu"] or 0))
    lines += [r["md"] for r in rows]
    if not rows:
        lines.append("| (no finished run committed yet) | | | | | | | | | | |")
    if any(SEED_SUFFIX.match(r["run"]) for r in rows):
        lines += ["", "Per experiment over its seeds (run folders `<experiment>_s<seed>`; paired significance between "
                  "cells: `seeds.md`):", ""] + seed_group_lines([r for r in rows if r["bleu"] is not None], "bleu",
                                                                scale=1.0, what="test2016 BLEU")
    # Systems without a headline group (run_files.headline_group: at least 3 seeded runs that keep their
    # translations and did not diverge) are in no headline table: say so, and why.
    alone = {}
    for sys_ in sorted({r["system"] for r in rows}):
        why = headline_group([r for r in rows if r["system"] == sys_ and r["bleu"] is not None])[1]
        if why:
            alone[sys_] = why
    if alone:
        lines += ["", f"Left out of the headline tables (`cells.md`, the README), which show a mean over at least "
                  f"{HEADLINE_MIN_SEEDS} seeded runs that keep their translations and did not diverge (\"no seed\": "
                  "a run from before `--seed`; a run without kept translations is one draw that `make rescore` "
                  "cannot re-score and no paired test can use; listed here for the record): " + "; ".join(
                      f"{k} ({v})" for k, v in alone.items()) + "."]
    sigs = sorted({r["sig"] for r in rows if r["sig"]})
    if sigs:
        lines += ["", "sacreBLEU signature: " + "; ".join(f"`{s}`" for s in sigs)]
    if extra:
        lines += ["", "## Ensembles and checkpoint averaging (test2016, `nmt translate --split ... --scores`)", "",
                  "| what | models | beam | BLEU | sacreBLEU | command |", "|---|---|---:|---:|---:|---|"]
        lines += [e["md"] for e in extra]
        unseeded = [e for e in extra if not all(seed_of(run_of(m)) is not None for m in e["models"])]
        if unseeded:
            lines += ["", ("Every row here" if len(unseeded) == len(extra) else "The rows " + ", ".join(
                e["csv"][0] for e in unseeded)) + " combines runs without a seed suffix (one run per system, no kept "
                "translations): a single draw each, left out of the headline tables and of any test."]
        lines += ["", f"The paper (Table 2, WMT14 En-De, case-sensitive tok / detok BLEU): {PAPER_ENSEMBLE}."]
    lines += ["", "Commands (the one that started each run):", ""]
    lines += [f"- `{r['run']}`: `{r['cmd']}`" for r in sorted(rows, key=lambda r: r["run"])]
    write_text(out, "\n".join(lines) + "\n")
    written = [out, write_csv(csv_runs, CSV_HEADER, [r["csv"] for r in rows])]
    if extra:
        written.append(write_csv(csv_extra, CSV_EXTRA_HEADER, [e["csv"] for e in extra]))
    print(f"{SCRIPT}: wrote {', '.join(written)} ({len(rows)} runs, {len(extra)} extra)")
    return written


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", default="results/runs")
    ap.add_argument("--extra", default="results/nmt_extra")
    ap.add_argument("--speed", default="results/speed", help="the speed task's results (its nmt.csv)")
    ap.add_argument("--out", default="results/nmt.md")
    a = ap.parse_args()
    if not os.path.isdir(a.runs):
        ap.error(f"--runs {a.runs}: no such directory")
    write(load(a.runs), load_extra(a.extra), a.out, os.path.join(a.speed, "nmt.csv"))


if __name__ == "__main__":
    main()
