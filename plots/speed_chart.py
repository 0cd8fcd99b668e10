"""Speed chart: training and inference words/s per cell from the speed task (results/speed/): the one sitting
of lm_peers.json (ours, oneDNN, PyTorch; speed_sitting.py) when it is there, else
lm.json (build/bin/speed: "records" per cell x shape x threads), at 2 threads (or the most measured), one row
per shape; lm_torch.json (tasks/speed/torch_reference.py) beside ours when present; nmt.json (build/bin/speed nmt:
"rows" per cell with train and decode tokens/s) as a last row when present."""
import os

import numpy as np

import speed_sitting
from fig_common import Bad, load_json, need, plt, reading


def lm_speeds(doc, what):
    """(threads, shapes, cells, {(cell, shape): (train, infer)}, tool) at 2 threads when measured (the
    machine's cores), else the largest thread count measured; tool: the "tool" field (lm_torch.json)."""
    recs = need(doc, "records", list, what)
    rows = []
    for k, r in enumerate(recs):
        where = f"records[{k}]"
        rows.append((need(r, "cell", str, where), need(r, "shape", str, where), need(r, "threads", int, where),
                     need(r, "train_words_s", (int, float), where), need(r, "infer_words_s", (int, float), where)))
    if not rows:
        raise Bad("'records' is empty")
    threads = 2 if any(r[2] == 2 for r in rows) else max(r[2] for r in rows)
    rows = [r for r in rows if r[2] == threads]
    cells = list(dict.fromkeys(r[0] for r in rows))
    shapes = list(dict.fromkeys(r[1] for r in rows))
    tool = doc.get("tool") if isinstance(doc.get("tool"), str) else "PyTorch"
    return threads, shapes, cells, {(c, s): (tr, inf) for c, s, _, tr, inf in rows}, tool


def nmt_speeds(doc, what):
    """(threads, cells, {cell: (train, decode beam 1, decode beam 10 or None)})."""
    rows = need(doc, "rows", list, what)
    out = {}
    for k, r in enumerate(rows):
        where = f"rows[{k}]"
        b10 = r.get("decode_tokens_s_beam10") if isinstance(r, dict) else None
        out[need(r, "cell", str, where)] = (need(r, "train_tokens_s", (int, float), where),
                                            need(r, "decode_tokens_s_beam1", (int, float), where),
                                            b10 if isinstance(b10, (int, float)) else None)
    if not out:
        raise Bad("'rows' is empty")
    return doc.get("threads"), list(out), out


def bars(ax, cells, series, ylabel):
    """Grouped bars: series = [(label, {cell: value}, color)]; values printed above the bars in thousands."""
    series = [s for s in series if any(c in s[1] for c in cells)]
    width = 0.8 / max(len(series), 1)
    x = np.arange(len(cells))
    for j, (label, vals, color) in enumerate(series):
        xs = x - 0.4 + width * (j + 0.5)
        ys = [vals.get(c, 0.0) for c in cells]
        ax.bar(xs, ys, width * 0.92, label=label, color=color)
        for xi, c in zip(xs, cells):
            if c in vals:
                v = vals[c]
                ax.text(xi, v, f"{v / 1000:.1f}k" if v >= 1000 else f"{v:.0f}", ha="center", va="bottom", fontsize=6.5,
                        rotation=90 if len(series) > 2 else 0)
    ax.set_xticks(x)
    ax.set_xticklabels(cells)
    ax.set_ylabel(ylabel)
    top = max((v for _, vals, _ in series for v in vals.values()), default=1.0)
    ax.set_ylim(0, top * 1.38)   # headroom for the value labels and the legend above the bars
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize="small", loc="upper center", ncol=len(series), frameon=False)


def read_optional(report, path, reader):
    """reader(json) for an optional file: None (with a note) when absent, None (a problem) when malformed."""
    if not os.path.exists(path):
        report.note(path, "not found (left out of the speed chart)")
        return None
    with reading(path):
        return reader(load_json(path), os.path.basename(path))


def sitting_speeds(path):
    """(ours, oneDNN, PyTorch) as lm_speeds gives them, from one `speed peers` sitting (speed_sitting.py);
    None when the report is unusable (named on stderr by the loader)."""
    data = speed_sitting.load(path, "make_figures.py")
    if data is None:
        return None
    what = os.path.basename(path)
    onednn = lm_speeds({"records": data["onednn"]}, what) if data["onednn"] else None
    torch = lm_speeds(dict(data["torch"], tool="PyTorch"), what) if data["torch"] else None
    return lm_speeds(data["ours"], what), onednn, torch


def fig_speed(report, speed_dir):
    sitting_path = os.path.join(speed_dir, speed_sitting.REPORT)
    sitting = report.guard(sitting_path, sitting_speeds, sitting_path) if os.path.exists(sitting_path) else None
    onednn = None
    if sitting:   # one sitting: ours and the peers measured together (preferred over two separate files)
        lm_path, (lm, onednn, torch) = sitting_path, sitting
        torch_path = sitting_path
    else:
        lm_path = os.path.join(speed_dir, "lm.json")
        lm = report.guard(speed_dir, read_optional, report, lm_path, lm_speeds)
        torch_path = os.path.join(speed_dir, "lm_torch.json")
        torch = report.guard(torch_path, read_optional, report, torch_path, lm_speeds) if lm else None
    nmt = report.guard(speed_dir, read_optional, report, os.path.join(speed_dir, "nmt.json"), nmt_speeds)
    if not lm and not nmt:
        report.note(speed_dir, "no usable lm.json or nmt.json (no speed chart)")
        return
    nrows = (len(lm[1]) if lm else 0) + (1 if nmt else 0)
    fig, axes = plt.subplots(nrows, 2, figsize=(12, 3.4 * nrows + 0.6), squeeze=False)
    sources, row = [], 0
    if lm:
        threads, shapes, cells, ours, _ = lm
        sources.append(lm_path)
        tor, tool = {}, "PyTorch"
        if torch and torch[0] == threads:
            if torch_path not in sources:
                sources.append(torch_path)
            tor, tool = torch[3], torch[4]
        elif torch:
            report.note(torch_path, f"measured at {torch[0]} threads, ours at {threads} (left out)")
        dnn = onednn[3] if onednn and onednn[0] == threads else {}
        for shape in shapes:
            for col, (kind, idx) in enumerate((("training", 0), ("inference", 1))):
                series = [("ours (C++)", {c: ours[(c, shape)][idx] for c in cells if (c, shape) in ours}, "C0"),
                          ("oneDNN (C++)", {c: dnn[(c, shape)][idx] for c in cells if (c, shape) in dnn}, "C2"),
                          (tool, {c: tor[(c, shape)][idx] for c in cells if (c, shape) in tor}, "C1")]
                ax = axes[row][col]
                bars(ax, cells, series, "words/s")
                ax.set_title(f"word LM, {shape} shape: {kind} words/s, {threads} threads")
            row += 1
    if nmt:
        threads, cells, rows = nmt
        sources.append(os.path.join(speed_dir, "nmt.json"))
        t = f", {threads} threads" if threads else ""
        bars(axes[row][0], cells, [("ours (C++)", {c: rows[c][0] for c in cells}, "C0")], "target tokens/s")
        axes[row][0].set_title(f"NMT (RNNSearch): training tokens/s{t}")
        b10 = {c: rows[c][2] for c in cells if rows[c][2] is not None}
        bars(axes[row][1], cells, [("beam 1", {c: rows[c][1] for c in cells}, "C0"), ("beam 10", b10, "C2")],
             "target tokens/s")
        axes[row][1].set_title(f"NMT (RNNSearch): decoding tokens/s{t}")
    fig.suptitle("Speed per cell (CPU; higher is better)")
    fig.tight_layout()
    report.save(fig, "speed_chart", sources)
