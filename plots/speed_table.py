#!/usr/bin/env python3
"""results/speed.md (+ CSVs beside it) from the speed task's JSON files. When results/speed/lm_peers.json is
there (`build/bin/speed peers experiments/speed/lm.json --rounds 4 --set out=results/speed/lm_peers`: ours, the
oneDNN reference and PyTorch in one sitting), speed.md comes from that sitting alone (plots/speed_sitting.py), and
so do cells.md's speed column, table1.md and the speed chart. Otherwise (the fallback, e.g. on a user's machine
without the peers): ours (build/bin/speed) beside PyTorch's (tasks/speed/torch_reference.py), two separate runs,
with the ratios issue 4 sets targets on.

    python3 plots/speed_table.py [--sitting results/speed/lm_peers.json]
    python3 plots/speed_table.py [--ours results/speed/lm.json] [--torch results/speed/lm_torch.json]
                                 [--out results/speed.md]

Without a PyTorch file, the PyTorch columns come from ../shared/reference/torch_speed.md's table (marked as
such): a different sitting, so ratios against it are only indicative. A broken file is reported on stderr
(and a broken record in it left out); without a readable `--ours` file no speed table is written.
"""
import argparse
import os
import re
import sys

import speed_sitting
from run_files import RunError, csv_note, csv_path, read_json, report, write_csv, write_text

SCRIPT = "speed_table.py"
TARGET_TRAIN = {"small": 2.0, "medium": {"lstm": 1.5, "gru": 1.5, "atr": 1.5, "ran": 1.5, "lrn": 1.2}}
TARGET_INFER = 1.5

# The keys every record of build/bin/speed's JSON must carry (numbers, except cell and shape).
OUR_KEYS = ("cell", "shape", "threads", "layers", "hidden", "params", "weight_matrices", "matrix_transformations",
            "train_words_s", "infer_words_s", "train_gflops", "peak_fraction", "peak_rss_mb")
TORCH_KEYS = ("cell", "shape", "impl", "train_words_s", "infer_words_s", "train_gflops")
TEXT_KEYS = ("cell", "shape", "impl")
OPTIONAL_NUMBERS = ("embed", "train_fwd_s", "train_bwd_s", "train_update_s", "train_faults_per_step", "rss_steps",
                    "rss_step100_mb", "rss_final_mb")


def load(path):
    return read_json(path)


def checked(path, script, keys, need_records=True, top=("machine",)):
    """The JSON file at `path` with only its well-formed records; None (reported) if the file is unusable."""
    try:
        obj = read_json(path)
        for k in top:
            if not isinstance(obj[k], dict):
                raise RunError(path, f"{k!r} is not an object")
        recs = obj["records"]
        if not isinstance(recs, list):
            raise RunError(path, "'records' is not a list")
    except RunError as e:
        report(script, e.path, e.what)
        return None
    good = []
    for n, r in enumerate(recs):
        bad = None
        if not isinstance(r, dict):
            bad = "not an object"
        else:
            missing = [k for k in keys if k not in r]
            wrong = [k for k in keys if k in r and (not isinstance(r[k], str) if k in TEXT_KEYS else
                                                     not isinstance(r[k], (int, float)) or isinstance(r[k], bool))]
            if missing:
                bad = "missing key " + ", ".join(repr(k) for k in missing)
            elif wrong:
                bad = "wrong type of " + ", ".join(repr(k) for k in wrong)
        if bad:
            report(script, f"{path} record {n}", bad)
            continue
        for k in OPTIONAL_NUMBERS:   # optional columns: a wrong type is shown as missing
            if k in r and not (isinstance(r[k], (int, float)) and not isinstance(r[k], bool)):
                report(script, f"{path} record {n}", f"wrong type of {k!r}", "ignored")
                r[k] = None
        good.append(r)
    if need_records and not good:
        report(script, path, "no usable record")
        return None
    obj["records"] = good
    return obj


def load_dir(speed_dir, script=SCRIPT):
    """The one sitting of <speed_dir>/lm_peers.json (speed_sitting.py) when it is there and usable; else {ours,
    torch, rss} from <speed_dir>/lm.json, lm_torch.json, lm_rss.json (None where missing/unusable)."""
    sitting = os.path.join(speed_dir, speed_sitting.REPORT)
    if os.path.exists(sitting):
        data = speed_sitting.load(sitting, script)
        if data is not None:
            return data
        report(script, sitting, "unusable; speed.md from lm.json and lm_torch.json instead", "note:")
    return load_files(os.path.join(speed_dir, "lm.json"), os.path.join(speed_dir, "lm_torch.json"), script)


def load_files(ours_path, torch_path, script=SCRIPT):
    ours = None
    if os.path.exists(ours_path):
        ours = checked(ours_path, script, OUR_KEYS, top=("machine", "config"))
        if ours is not None:
            m = ours["machine"]
            missing = [k for k in ("date", "cpu", "cores") if k not in m]
            if missing:
                report(script, ours_path, "missing key " + ", ".join(f"'machine.{k}'" for k in missing))
                ours = None
    else:
        report(script, ours_path, "file missing")
    torch = None
    if os.path.exists(torch_path):
        torch = checked(torch_path, script, TORCH_KEYS)
        if torch is not None and ("tool" not in torch or "date" not in torch["machine"]):
            report(script, torch_path, "missing key 'tool' or 'machine.date'")
            torch = None
    rss_path = os.path.join(os.path.dirname(ours_path), "lm_rss.json")
    rss = None
    if os.path.exists(rss_path):
        rss = checked(rss_path, script, ("shape", "cell", "threads", "rss_step100_mb", "rss_steps", "rss_final_mb",
                                         "peak_rss_mb"))
        if rss is not None and "date" not in rss["machine"]:
            report(script, rss_path, "missing key 'machine.date'")
            rss = None
    return {"ours": ours, "torch": torch, "rss": rss, "ours_path": ours_path, "torch_path": torch_path}


def reference_table(path):
    """The torch_speed.md table: {(shape, cell): (train, infer)}."""
    rows = {}
    if not os.path.exists(path):
        return rows
    for line in open(path, encoding="utf-8"):
        m = re.match(r"\|\s*(small|medium)\s*\|\s*(\w+)[^|]*\|\s*([\d,]+)\s*\|\s*[\d.]+\s*\|\s*([\d,]+)\s*\|", line)
        if m:
            rows[(m.group(1), m.group(2).lower())] = (float(m.group(3).replace(",", "")),
                                                      float(m.group(4).replace(",", "")))
    return rows


def fmt(x, spec=",.0f"):
    return format(x, spec) if x else "–"


def plain(x, spec=".0f"):
    return format(x, spec) if x else ""


def best_small_2_threads(ours):
    """{cell: record} of the small shape at 2 threads (the cross-task table's speed column), best train words/s."""
    best = {}
    for r in (ours or {}).get("records", []):
        if r["shape"] == "small" and r["threads"] == 2:
            if r["cell"] not in best or r["train_words_s"] > best[r["cell"]]["train_words_s"]:
                best[r["cell"]] = r
    return best


def write(data, out, reference="../shared/reference/torch_speed.md"):
    """results/speed.md and its CSVs from load_files()/load_dir(); returns the paths written ([] without ours)."""
    if data.get("sitting"):
        return speed_sitting.write(data, out)
    ours, torch = data["ours"], data["torch"]
    if ours is None:
        report(SCRIPT, out, "not written: no usable speed file", "kept")
        return []
    ref = reference_table(reference)

    # PyTorch's best per (shape, cell) over its records (one thread setting per file as run).
    tbest = {}
    if torch:
        for r in torch["records"]:
            key = (r["shape"], r["cell"])
            t = tbest.setdefault(key, [0, 0])
            t[0], t[1] = max(t[0], r["train_words_s"]), max(t[1], r["infer_words_s"])
        tsrc = f"PyTorch: {torch['tool']}, {torch['machine']['date']}, {torch['machine'].get('blas_threads')} " \
               f"BLAS threads x {torch['machine'].get('intra_threads')} intra-op"
    else:
        tbest = {k: list(v) for k, v in ref.items()}
        tsrc = "PyTorch: ../shared/reference/torch_speed.md (another sitting: ratios indicative only)"

    csv_best, csv_all, csv_torch = csv_path(out), csv_path(out, "_all"), csv_path(out, "_torch")
    m = ours["machine"]
    lines = ["# Speed: the ATR paper's Table 4 on a 2-core CPU, ours beside PyTorch", "",
             f"Ours: `build/bin/speed {ours['config'].get('_file', 'experiments/speed/lm.json')}`, "
             f"{m['date']}, {m['cpu']}, {m['cores']} cores, {m.get('blas', '?')}, "
             f"OMP_WAIT_POLICY {m.get('omp_wait_policy', '?')}.",
             f"{tsrc}.",
             "Workload (reference/torch_speed.md): word LM on random ids, vocabulary 10,000, batch 20, BPTT 35, "
             "2 layers, untied softmax, no dropout; training = forward + backward + clip 5 + SGD. "
             "Words/s = 700 / median step time. Ratios are ours / PyTorch's best; targets from issue 4.",
             f"Generated by `python3 plots/speed_table.py` from `{data['ours_path']}`"
             + (f" and `{data['torch_path']}`." if torch else "."),
             csv_note([csv_best, csv_all] + ([csv_torch] if torch else []), out), ""]
    best_rows = []
    for shape in ["small", "medium"]:
        recs = [r for r in ours["records"] if r["shape"] == shape]
        if not recs:
            continue
        best = {}
        for r in recs:
            b = best.setdefault(r["cell"], r)
            if r["train_words_s"] > b["train_words_s"]:
                best[r["cell"]] = r
        lines += [f"## {shape} ({recs[0]['layers']} x {recs[0]['hidden']})", "",
                  "| cell | WM / MT | threads | train words/s | PyTorch | ratio (target) | inference words/s | "
                  "PyTorch | ratio (target) | GFLOP/s | % FMA peak | fwd / bwd / update ms |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for cell, r in best.items():
            tt, ti = tbest.get((shape, cell), [0, 0])
            tgt = TARGET_TRAIN["small"] if shape == "small" else TARGET_TRAIN["medium"].get(cell)
            rt = r["train_words_s"] / tt if tt else 0
            infer = max(x["infer_words_s"] for x in recs if x["cell"] == cell)
            ri = infer / ti if ti else 0
            ok = lambda ratio, t: "" if not ratio or not t else (" ✓" if ratio >= t else " ✗")
            met = lambda ratio, t: "" if not ratio or not t else ("yes" if ratio >= t else "no")
            fwd, bwd, upd = (1e3 * (r.get(k) or 0) for k in ("train_fwd_s", "train_bwd_s", "train_update_s"))
            lines.append(
                f"| {cell} | {r['weight_matrices']} / {r['matrix_transformations']} | {r['threads']} | "
                f"{fmt(r['train_words_s'])} | {fmt(tt)} | {fmt(rt, '.2f')}x ({tgt or '–'}){ok(rt, tgt)} | "
                f"{fmt(infer)} | {fmt(ti)} | {fmt(ri, '.2f')}x ({TARGET_INFER}){ok(ri, TARGET_INFER)} | "
                f"{r['train_gflops']:.1f} | {100 * r['peak_fraction']:.1f} | "
                f"{fwd:.1f} / {bwd:.1f} / {upd:.1f} |")
            best_rows.append([shape, cell, r["weight_matrices"], r["matrix_transformations"], r["threads"],
                              plain(r["train_words_s"]), plain(tt), plain(rt, ".2f"), tgt or "", met(rt, tgt),
                              plain(infer), plain(ti), plain(ri, ".2f"), TARGET_INFER, met(ri, TARGET_INFER),
                              f"{r['train_gflops']:.1f}", f"{100 * r['peak_fraction']:.1f}", f"{fwd:.1f}",
                              f"{bwd:.1f}", f"{upd:.1f}"])
        if all(c in best for c in ("atr", "gru", "lstm")) and best["lstm"]["train_words_s"]:
            l = best["lstm"]["train_words_s"]
            lines += ["", f"ATR : GRU : LSTM training words/s = {best['atr']['train_words_s']:,.0f} : "
                          f"{best['gru']['train_words_s']:,.0f} : {l:,.0f} "
                          f"({best['atr']['train_words_s'] / l:.2f} : {best['gru']['train_words_s'] / l:.2f} : 1.00); "
                          "the paper (Table 4, GPU): 2,518 : 1,996 : 1,919 (1.31 : 1.04 : 1.00)."]
        lines.append("")
    lines += ["## Every configuration (ours)", "", "| shape | cell | threads | train words/s | inference words/s | "
              "GFLOP/s | page faults / step | peak RSS MiB | RSS @100 -> @N MiB |", "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    all_rows = []
    for r in ours["records"]:
        has_rss = bool(r.get("rss_steps")) and all(isinstance(r.get(k), (int, float))
                                                   for k in ("rss_step100_mb", "rss_final_mb"))
        rss = f"{r['rss_step100_mb']:.0f} -> {r['rss_final_mb']:.0f} (N={r['rss_steps']})" if has_rss else "–"
        lines.append(f"| {r['shape']} | {r['cell']} | {r['threads']} | {r['train_words_s']:,.0f} | "
                     f"{r['infer_words_s']:,.0f} | {r['train_gflops']:.1f} | {r.get('train_faults_per_step') or 0:.0f} | "
                     f"{r['peak_rss_mb']:.0f} | {rss} |")
        all_rows.append([r["shape"], r["cell"], r["threads"], r["params"], f"{r['train_words_s']:.0f}",
                         f"{r['infer_words_s']:.0f}", f"{r['train_gflops']:.1f}",
                         f"{r.get('train_faults_per_step') or 0:.0f}", f"{r['peak_rss_mb']:.0f}",
                         f"{r['rss_step100_mb']:.0f}" if has_rss else "", f"{r['rss_final_mb']:.0f}" if has_rss else "",
                         r["rss_steps"] if has_rss else ""])
    rss = data["rss"]
    if rss:
        lines += ["", "## Memory", ""]
        for r in rss["records"]:
            lines.append(f"- {r['shape']} {r['cell']}, {r['threads']} thread(s) (`build/bin/speed "
                         f"experiments/speed/lm_rss.json`, {rss['machine']['date']}): resident set after training "
                         f"step 100: {r['rss_step100_mb']:.0f} MiB, after step {r['rss_steps']}: "
                         f"{r['rss_final_mb']:.0f} MiB; process peak {r['peak_rss_mb']:.0f} MiB; "
                         f"{r.get('train_faults_per_step') or 0:.0f} page faults per step. (That run shared the "
                         "cores with other jobs: its words/s are not speed figures.)")
    torch_rows = []
    if torch:
        lines += ["", "## Every configuration (PyTorch)", "", "| shape | cell | implementation | train words/s | "
                  "inference words/s | GFLOP/s |", "|---|---|---|---:|---:|---:|"]
        for r in torch["records"]:
            lines.append(f"| {r['shape']} | {r['cell']} | {r['impl']} | {r['train_words_s']:,.0f} | "
                         f"{r['infer_words_s']:,.0f} | {r['train_gflops']:.1f} |")
            torch_rows.append([r["shape"], r["cell"], r["impl"], f"{r['train_words_s']:.0f}",
                               f"{r['infer_words_s']:.0f}", f"{r['train_gflops']:.1f}"])
    write_text(out, "\n".join(lines) + "\n")
    written = [out,
               write_csv(csv_best, ["shape", "cell", "weight_matrices", "matrix_transformations", "threads",
                                    "train_words_s", "torch_train_words_s", "train_ratio", "train_target",
                                    "train_target_met", "infer_words_s", "torch_infer_words_s", "infer_ratio",
                                    "infer_target", "infer_target_met", "train_gflops", "fma_peak_pct",
                                    "fwd_ms", "bwd_ms", "update_ms"], best_rows),
               write_csv(csv_all, ["shape", "cell", "threads", "params", "train_words_s", "infer_words_s",
                                   "train_gflops", "page_faults_per_step", "peak_rss_mib", "rss_step100_mib",
                                   "rss_final_mib", "rss_steps"], all_rows)]
    if torch:
        written.append(write_csv(csv_torch, ["shape", "cell", "implementation", "train_words_s", "infer_words_s",
                                             "train_gflops"], torch_rows))
    print(f"{SCRIPT}: wrote {', '.join(written)}")
    return written


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sitting", help="a `speed peers` report: speed.md from it (default results/speed/lm_peers.json "
                                      "when it exists and neither --ours nor --torch is given)")
    ap.add_argument("--ours", help="build/bin/speed's report (default results/speed/lm.json)")
    ap.add_argument("--torch", help="torch_reference.py's report (default results/speed/lm_torch.json)")
    ap.add_argument("--reference", default="../shared/reference/torch_speed.md")
    ap.add_argument("--out", default="results/speed.md")
    a = ap.parse_args()
    sitting = a.sitting
    if sitting is None and a.ours is None and a.torch is None and os.path.exists("results/speed/lm_peers.json"):
        sitting = "results/speed/lm_peers.json"
    data = speed_sitting.load(sitting) if sitting else \
        load_files(a.ours or "results/speed/lm.json", a.torch or "results/speed/lm_torch.json")
    if data is None or not write(data, a.out, a.reference):
        sys.exit(1)


if __name__ == "__main__":
    main()
