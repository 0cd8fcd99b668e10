#!/usr/bin/env python3
"""results/speed.md from one sitting of `build/bin/speed peers` over the speed experiment (issue 56, point 3):
the ATR paper's Table 4 on this CPU (every cell of ours), ours beside oneDNN and PyTorch paired by round,
issue 56's goals, and the memory check against a baseline of the same configurations run by an older binary.

speed_table.py uses this whenever <speed>/lm_peers.json exists (then cells.md's speed column, table1.md and
the speed chart read the same sitting); two separate runs (lm.json, lm_torch.json) are only the fallback.

Inputs, all under <speed>/:
  lm_peers.json            the sitting's report (tasks/speed/speed_peers.h): runs, medians, paired ratios;
  lm_peers.runs/           every run's config, report and log (the per-field medians of our reports come
                           from there: weight matrices, the forward / backward / update split, the 256-bit peak);
  lm_peers_commands.txt    optional: the sitting's command (its first line not starting with '#');
  lm_peers_profile/        optional: the profile that explains a goal not met (README.md linked);
  lm_peers_memory_before/  optional: <cell>_<shape>_t<threads>_r<k>.json, the speed reports of the older binary
                           (README.md says which) on the same configurations, one process each;
  lm_peers_memory_why/     optional: why the memory check fails where it does (README.md linked).
Our records here are per (cell, shape, threads): words/s, GFLOP/s and the wait4 peak RSS are the report's
medians over rounds; the other numeric fields the median of the rounds' own reports (a constant stays as is).
A broken file or record is named on stderr and left out; without a usable report speed_table.py falls back.
"""
import os
import statistics

import peers_table
from run_files import RunError, csv_note, csv_path, number_or_none, read_json, report, write_csv, write_text

REPORT = "lm_peers.json"
PAPER = "the paper (Table 4, GPU): 2,518 : 1,996 : 1,919 (1.31 : 1.04 : 1.00)"
NEEDED = ("layers", "hidden", "params", "weight_matrices", "matrix_transformations")   # numbers of our reports
BUDGET = 1.10   # issue 56 point 5: peak RSS no more than 10 % above the baseline's


def is_num(x):
    return number_or_none(x) is not None


def median_record(recs):
    """One record: per numeric field the median over `recs` (a field equal in all of them kept as it is), the
    other fields from the first."""
    out = {}
    for k, v in recs[0].items():
        vals = [r[k] for r in recs if is_num(r.get(k))]
        if not is_num(v) or not vals:
            out[k] = v
        else:
            out[k] = v if all(x == v for x in vals) else statistics.median(vals)
    return out


def run_reports(rep, runs_dir, script):
    """{(program, cell, shape, threads): [report document of each finished run]}, broken ones reported."""
    out = {}
    for n, run in enumerate(rep["runs"]):
        try:
            if not run.get("ok"):
                continue
            key = (run["program"], run["cell"], run["shape"], run["threads"])
            doc = read_json(os.path.join(runs_dir, run["report"]))
            if not isinstance(doc.get("records"), list) or not doc["records"] or \
                    not isinstance(doc["records"][0], dict):
                raise RunError(os.path.join(runs_dir, run["report"]), "no record")
        except RunError as e:
            report(script, e.path, e.what)
            continue
        except (KeyError, TypeError, AttributeError):
            report(script, f"lm_peers.json runs[{n}]", "missing 'program', 'cell', 'shape', 'threads' or 'report'")
            continue
        out.setdefault(key, []).append(doc)
    return out


def first_command(path):
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return next((line.strip() for line in f if line.strip() and not line.startswith("#")), None)


def load(path, script="speed_table.py"):
    """speed_table's data ({ours, torch, rss, ours_path, torch_path}) from a sitting's report, plus the report
    ("sitting"), the oneDNN records and the sitting's facts; None (reported) when the report is unusable."""
    rep = peers_table.load(path, script)
    if rep is None:
        return None
    prefix = path[:-5] if path.endswith(".json") else path
    docs = run_reports(rep, prefix + ".runs", script)
    programs = {}
    for s in rep["summary"]:
        try:
            key = (s["program"], s["cell"], s["shape"], s["threads"])
            rec = median_record([d["records"][0] for d in docs.get(key, [])] or [{}])
            for k in ("train_words_s", "infer_words_s", "train_gflops", "peak_rss_mb"):
                rec["own_" + k] = rec.get(k)   # the median of the runs' own reports, before the summary's
                rec[k] = s[k]["median"]
                rec[k + "_min"], rec[k + "_max"] = s[k]["min"], s[k]["max"]
            rec.update(cell=s["cell"], shape=s["shape"], threads=s["threads"], rounds=s["train_words_s"]["n"])
            for k in ("peak_fraction", "fma_peak_gflops", "fma_peak_bits"):
                if k in s:
                    rec[k] = s[k]
        except (KeyError, TypeError) as e:
            report(script, path, f"summary entry {s!r:.80} without {e}")
            continue
        if s["program"] == "twinrnn" and not all(is_num(rec.get(k)) for k in NEEDED):
            report(script, path, f"{key}: no kept report with {', '.join(NEEDED)}")
            continue
        programs.setdefault(s["program"], []).append(rec)
    if not programs.get("twinrnn"):
        report(script, path, "no usable record of ours")
        return None

    def tool_of(program):
        d = next((v[0] for k, v in docs.items() if k[0] == program and v), None)
        return (d.get("tool", program), d.get("machine", {})) if d else (program, {})

    dates = sorted(d["machine"]["date"] for v in docs.values() for d in v
                   if isinstance(d.get("machine"), dict) and isinstance(d["machine"].get("date"), str))
    machine = dict(rep["machine"])
    machine["date"] = dates[0] if dates else machine.get("date", "?")
    ours = {"tool": rep.get("tool", "twinrnn speed peers"), "machine": machine, "config": rep["config"],
            "records": programs["twinrnn"]}
    torch = None
    if programs.get("pytorch"):
        tool, tm = tool_of("pytorch")
        torch = {"tool": tool, "machine": tm, "records": [dict(r, impl=r.get("impl", "?")) for r in programs["pytorch"]]}
    tool, tm = tool_of("onednn")
    onednn_tool = tm.get("program") or tool
    return {"ours": ours, "torch": torch, "rss": None, "ours_path": path, "torch_path": path, "sitting": rep,
            "onednn": programs.get("onednn", []), "onednn_tool": onednn_tool, "prefix": prefix,
            "span": (dates[0], dates[-1]) if dates else ("?", "?"),
            "command": first_command(prefix + "_commands.txt")
            or f"build/bin/speed peers <experiment> --rounds {rep['rounds']}"}


def memory_before(folder, script="speed_table.py"):
    """{(cell, shape, threads): [peak_rss_mb of each baseline report]} from <prefix>_memory_before/."""
    out = {}
    if not os.path.isdir(folder):
        return out
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".json"):
            continue
        try:
            doc = read_json(os.path.join(folder, name))
            for r in doc["records"]:
                out.setdefault((r["cell"], r["shape"], r["threads"]), []).append(float(r["peak_rss_mb"]))
        except RunError as e:
            report(script, e.path, e.what)
        except (KeyError, TypeError, ValueError):
            report(script, os.path.join(folder, name), "records without cell, shape, threads, peak_rss_mb")
    return out


def two(x):
    return "–" if x is None else f"{x:.2f}"


def spread(r, k, spec=",.0f"):
    return f"{format(r[k], spec)} ({format(r[k + '_min'], spec)}–{format(r[k + '_max'], spec)})"


def rel(path, out):
    return os.path.relpath(path, os.path.dirname(out) or ".")


def table4(data, out):
    """Lines and CSV rows of Table 4 on this CPU: per shape, every cell of ours at every thread count."""
    ours, cfg = data["ours"], data["sitting"]["config"]
    recs = {(r["cell"], r["shape"], r["threads"]): r for r in ours["records"]}
    cells = list(dict.fromkeys(r["cell"] for r in ours["records"]))
    lines, rows = ["", "## Table 4 on this CPU (ours, every cell)", ""], []
    lines.append("Words/s: median (min–max) over the rounds; × LSTM: over our LSTM's median at the same shape and "
                 "threads; GFLOP/s and % of the FMA peak: training; fwd / bwd / update: our report's split of a "
                 "training step (median over rounds); peak RSS: the process's own (wait4), median.")
    for shape in cfg["shapes"]:
        name = shape["name"]
        lines += ["", f"### {name} ({shape.get('layers', 2)} x {shape['hidden']}, embedding {shape['embed']})", "",
                  "| cell | WM / MT | params | threads | training words/s | × LSTM | inference words/s | × LSTM | "
                  "GFLOP/s | % FMA peak | fwd / bwd / update ms | peak RSS MiB |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for cell in cells:
            for t in cfg["threads"]:
                r, lstm = recs.get((cell, name, t)), recs.get(("lstm", name, t))
                if r is None:
                    continue
                x = {k: r[k] / lstm[k] if lstm else None for k in ("train_words_s", "infer_words_s")}
                split = [1e3 * r[k] if is_num(r.get(k)) else None for k in ("train_fwd_s", "train_bwd_s",
                                                                            "train_update_s")]
                pf = r.get("peak_fraction")
                cols = [cell, f"{r['weight_matrices']} / {r['matrix_transformations']}", f"{r['params']:,}", t,
                        spread(r, "train_words_s"), two(x["train_words_s"]), spread(r, "infer_words_s"),
                        two(x["infer_words_s"]), f"{r['train_gflops']:.1f}", "–" if pf is None else f"{100 * pf:.1f}",
                        " / ".join("–" if v is None else f"{v:.1f}" for v in split), f"{r['peak_rss_mb']:.0f}"]
                lines.append("| " + " | ".join(str(c) for c in cols) + " |")
                rows.append([name, cell, r["weight_matrices"], r["matrix_transformations"], r["params"], t] +
                            [f"{r[k + q]:.0f}" for k in ("train_words_s", "infer_words_s") for q in ("", "_min", "_max")]
                            + [f"{r['train_gflops']:.1f}", "" if pf is None else f"{100 * pf:.1f}"]
                            + ["" if v is None else f"{v:.2f}" for v in split] + [f"{r['peak_rss_mb']:.0f}"])
        for t in cfg["threads"]:
            a, g, l = (recs.get((c, name, t)) for c in ("atr", "gru", "lstm"))
            if a and g and l:
                a, g, l = (x["train_words_s"] for x in (a, g, l))
                lines += ["", f"ATR : GRU : LSTM training words/s, {t} thread{'s' if t > 1 else ''}: {a:,.0f} : "
                              f"{g:,.0f} : {l:,.0f} ({a / l:.2f} : {g / l:.2f} : 1.00)."]
        lines += ["", f"ATR : GRU : LSTM in {PAPER}."]
    return lines, rows


TABLE4_CSV = ["shape", "cell", "weight_matrices", "matrix_transformations", "params", "threads", "train_words_s",
              "train_min", "train_max", "infer_words_s", "infer_min", "infer_max", "train_gflops", "fma_peak_pct",
              "fwd_ms", "bwd_ms", "update_ms", "peak_rss_mib"]


def memory(data, out):
    """Lines and CSV rows of the memory check: our reports' own peak RSS (median over rounds) against the
    baseline's on the same configurations."""
    folder = data["prefix"] + "_memory_before"
    before = memory_before(folder)
    lines = ["", "## Memory (issue 56, point 5: peak RSS per configuration no more than 10 % above before)", ""]
    if not before:
        return lines + [f"No baseline in `{rel(folder, out)}/`: not judged."], []
    readme = os.path.join(folder, "README.md")
    lines.append(f"Before: the reports in [`{rel(folder, out)}/`]({rel(readme if os.path.exists(readme) else folder, out)}) "
                 "(an older binary, one process per configuration); now: this sitting's reports of ours. Both are "
                 "the process's own ru_maxrss as its report gives it, the median over its runs.")
    lines += ["", "| shape | cell | threads | before MiB | now MiB | now / before | within 10 % |",
              "|---|---|---:|---:|---:|---:|---|"]
    rows, ratios = [], []
    for r in data["ours"]["records"]:
        b = before.get((r["cell"], r["shape"], r["threads"]))
        now = r.get("own_peak_rss_mb")
        if not b or not is_num(now):
            continue
        b = statistics.median(b)
        x = now / b
        ratios.append((x, r))
        lines.append(f"| {r['shape']} | {r['cell']} | {r['threads']} | {b:.0f} | {now:.0f} | {x:.3f} | "
                     f"{'yes' if x <= BUDGET else 'no'} |")
        rows.append([r["shape"], r["cell"], r["threads"], f"{b:.1f}", f"{now:.1f}", f"{x:.3f}",
                     "yes" if x <= BUDGET else "no"])
    if ratios:
        worst = max(ratios, key=lambda p: p[0])
        n_ok = sum(1 for x, _ in ratios if x <= BUDGET)
        lines += ["", f"{n_ok} of {len(ratios)} configurations within 10 %; the largest ratio {worst[0]:.3f} "
                      f"({worst[1]['shape']} {worst[1]['cell']}, {worst[1]['threads']} thr.). Cells without a "
                      "baseline are newer than the baseline's binary."]
        why = data["prefix"] + "_memory_why"
        if n_ok < len(ratios) and os.path.isdir(why):
            readme = os.path.join(why, "README.md")
            lines += ["", f"Why not within 10 %: [`{rel(why, out)}/`]({rel(readme if os.path.exists(readme) else why, out)})."]
    return lines, rows


def write(data, out):
    rep, ours = data["sitting"], data["ours"]
    m, cfg = ours["machine"], rep["config"]
    peaks = {}
    for r in ours["records"]:
        p = peaks.setdefault(r["threads"], [0.0, 0.0, r.get("fma_peak_bits", "?")])
        p[0] = max(p[0], r.get("fma_peak_gflops") or 0.0)
        p[1] = max(p[1], r.get("fma_peak_256_gflops") or 0.0)
    bits = next(iter(peaks.values()))[2] if peaks else "?"
    peak_text = ", ".join(f"{v[0]:.1f} GFLOP/s at {t} thread{'s' if t > 1 else ''}" for t, v in sorted(peaks.items()))
    p256 = ", ".join(f"{v[1]:.1f}" for _, v in sorted(peaks.items()))
    torch_cells = sorted({r["cell"] for r in (data["torch"] or {}).get("records", [])},
                         key=[c if isinstance(c, str) else c["name"] for c in cfg["cells"]].index)
    peer_cells = set(torch_cells) | {r["cell"] for r in data["onednn"]}
    csvs = [csv_path(out), csv_path(out, "_all")]
    t4_lines, t4_rows = table4(data, out)
    mem_lines, mem_rows = memory(data, out)
    if mem_rows:
        csvs.append(csv_path(out, "_memory"))
    profile = data["prefix"] + "_profile"
    runs = rel(data["prefix"] + ".runs", out)
    lines = ["# Speed: the ATR paper's Table 4 on a 2-core CPU, ours beside oneDNN and PyTorch in one sitting", "",
             f"Generated by `python3 plots/speed_table.py` (or `make tables`) from "
             f"[`{rel(data['ours_path'], out)}`]({rel(data['ours_path'], out)}), the report of one sitting: "
             f"`{data['command']}`, {data['span'][0]} to {data['span'][1]}. Every run's config, report and log are "
             f"in `{runs}/`; `build/bin/speed peers <experiment> --from-runs` re-derives the report from them.",
             f"Machine: {m.get('cpu', '?')}, {m.get('cores', '?')} logical cores; our matrix products: "
             f"{m.get('gemm', '?')}; allocator: {m.get('allocator', '?')}.",
             f"FMA peak on the widest vectors ({bits}-bit), the highest any of our processes measured: {peak_text} "
             f"(the 256-bit loop's: {p256}, for information only).",
             f"Programs: ours (`build/bin/speed`, every cell); oneDNN, {data['onednn_tool']}, for "
             f"{', '.join(sorted({r['cell'] for r in data['onednn']})) or 'none'}: oneDNN's RNN primitives, as "
             "PyTorch 2.x runs nn.LSTM on a CPU; "
             + (f"PyTorch, {data['torch']['tool']}, for {', '.join(torch_cells)}." if data["torch"] else
                "PyTorch: not measured.")
             + "".join(f" Note: {n}." for n in rep.get("notes", [])),
             f"Workload: word LM on random ids, vocabulary {cfg['vocab']:,}, batch {cfg['batch']}, BPTT {cfg['bptt']}, "
             "untied softmax, no dropout; training = forward + backward + clip 5 + SGD; words/s = batch x BPTT / "
             f"median step time within a run. {rep['rounds']} rounds, a fresh process per run, the programs' order "
             "reversed every other round; a ratio to a peer is paired by round: median (min–max).",
             csv_note(csvs, out)]
    lines += t4_lines
    lines += ["", "## Ours beside oneDNN and PyTorch (the cells a peer has)"]
    lines += [x.replace("## ", "### ", 1) if x.startswith("## ") else x
              for x in peers_table.config_tables(rep, cells=peer_cells)]
    lines += ["", "## Issue 56's goals", "",
              "Rules (plots/peers_table.py): ours / oneDNN \"met\" when >= 1.00 in every round, \"met on the "
              "median\" when only the median is; ATR >= 1.3x our LSTM on the medians; % of the peak: our median "
              "training GFLOP/s over the highest peak any of our processes measured at that thread count.", ""]
    lines += peers_table.goal_table(rep)
    if os.path.isdir(profile):
        readme = os.path.join(profile, "README.md")
        lines += ["", f"Where a goal is not met, the profile that shows why: [`{rel(profile, out)}/`]"
                      f"({rel(readme if os.path.exists(readme) else profile, out)})."]
    lines += mem_lines
    write_text(out, "\n".join(lines) + "\n")
    write_csv(csvs[0], TABLE4_CSV, t4_rows)
    write_csv(csvs[1], peers_table.SUMMARY_CSV_HEADER, peers_table.summary_csv_rows(rep))
    if mem_rows:
        write_csv(csvs[2], ["shape", "cell", "threads", "before_peak_rss_mib", "now_peak_rss_mib", "ratio",
                            "within_10pct"], mem_rows)
    print(f"speed_table.py: wrote {out}, " + ", ".join(csvs))
    return [out] + csvs
