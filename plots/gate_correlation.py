"""ATR paper Fig. 3: per position, the mean input gate and mean forget gate (mean over units, then over the
sentences reaching that position), both curves on one plot, with the Pearson r gates.json records.
NMT gates.json (tasks/nmt/model/nmt_gates.cc): the decoder's two cells, "cell1" and "cell2", one panel each.
LM gates.json (tasks/lm/lm_gates.cc): the top layer, one panel. The two curves are the gates named in "pair"."""
import os

from fig_common import Bad, load_json, need, numbers, plt, reading

MIN_COUNT = 20   # positions reached by fewer sentences are too noisy to draw
GATE_NAMES = {"i": "input gate i", "f": "forget gate f", "z": "update gate z", "r": "reset gate r",
              "o": "output gate o"}
NMT_LABELS = {"cell1": "decoder Cell1: s̃_j = Cell1(s_{j−1}, y_{j−1})",
              "cell2": "decoder Cell2: s_j = Cell2(s̃_j, c_j)"}


def gate_title(label, pair, r_pos, r_units):
    """A panel's title: the label and the recorded Pearson r of its gate pair (None: no pair)."""
    if not pair:
        return f"{label}\nno (i, f) or (z, r) gate pair recorded: no Pearson r"
    text = f"{label}\n{pair[0]} vs {pair[1]}: Pearson r = {r_pos:.4f} over positions"
    return text + (f", {r_units:.3f} over (unit, step) values" if r_units is not None else "")


def read_panel(stats, what):
    """One cell's statistics as {count, mean, pair, r_pos, r_units}; None when it recorded no gates."""
    count = numbers(need(stats, "count", list, what), f"'count' in {what}")
    mean = stats.get("mean")
    if not mean:
        return None
    if not isinstance(mean, dict):
        raise Bad(f"'mean' in {what} is not an object")
    mean = {g: numbers(v, f"mean '{g}' in {what}") for g, v in mean.items()}
    for g, v in mean.items():
        if len(v) != len(count):
            raise Bad(f"mean '{g}' in {what} has {len(v)} positions, 'count' has {len(count)}")
    pair, r_pos, r_units = stats.get("pair"), None, None
    if pair is not None:
        if not (isinstance(pair, list) and len(pair) == 2 and all(g in mean for g in pair)):
            raise Bad(f"'pair' in {what} is not two of the recorded gates {sorted(mean)}")
        r_pos = need(stats, "pearson_r_positions", (int, float), what)
        r_units = stats.get("pearson_r_units")
        if r_units is not None and not isinstance(r_units, (int, float)):
            raise Bad(f"'pearson_r_units' in {what} is not a number")
    return {"count": count, "mean": mean, "pair": pair, "r_pos": r_pos, "r_units": r_units}


def read_panels(g):
    """[(key, label, panel)] of a gates.json; [] when the cell records no gates."""
    if not isinstance(g, dict):
        raise Bad("not a JSON object")
    if "cell1" in g or "cell2" in g:
        out = []
        for key in ("cell1", "cell2"):
            p = read_panel(need(g, key, dict), key)
            if p:
                out.append((key, NMT_LABELS[key], p))
        return out
    if "mean" not in g and "note" in g:
        return []
    p = read_panel(g, "gates.json")
    return [("top", f"{g.get('cell', '?')}, {g.get('layer', 'top')} layer", p)] if p else []


def draw_panel(ax, label, p, position_name):
    n = len(p["count"])
    keep = [t for t in range(n) if p["count"][t] >= MIN_COUNT] or list(range(n))
    xs = [t + 1 for t in keep]
    gates = p["pair"] or sorted(p["mean"])
    for g, color in zip(gates, ["tab:blue", "tab:orange", "tab:green", "tab:red"]):
        ax.plot(xs, [p["mean"][g][t] for t in keep], marker="o", ms=3, lw=1.4, color=color,
                label=GATE_NAMES.get(g, f"gate {g}"))
    dropped = n - len(keep)
    ax.set_xlabel(position_name + (f" ({dropped} positions seen in < {MIN_COUNT} sentences omitted)"
                                   if dropped else ""))
    ax.set_ylabel("mean gate value")
    ax.set_title(gate_title(label, p["pair"], p["r_pos"], p["r_units"]))
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize="small")


def fig3(report, run_dir):
    """fig3_gates_<run> from run_dir/gates.json (a note when the run has none or records no gates)."""
    path = os.path.join(run_dir, "gates.json")
    run = os.path.basename(run_dir)
    if not os.path.exists(path):
        report.note(run_dir, "no gates.json (no Fig. 3)")
        return
    with reading(path):
        g = load_json(path)
        panels = read_panels(g)
    if not panels:
        report.note(path, "the cell records no gates (no Fig. 3)")
        return
    nmt = panels[0][0] != "top"
    fig, axes = plt.subplots(1, len(panels), figsize=(max(8.5, 6.4 * len(panels)), 4.6), squeeze=False)
    for ax, (_, label, p) in zip(axes[0], panels):
        draw_panel(ax, label, p, "target position j" if nmt else "position in sentence")
    sents = g.get("sentences")
    n = f"{sents} " if sents is not None else ""
    src = f"decoder input: {g.get('input', '?')}; {n}test sentences" if nmt else f"{n}test sentences"
    fig.suptitle(f"{run}: mean gate values per position ({g.get('cell', '?')} cell; {src})")
    fig.tight_layout()
    facts = {key: {"pair": p["pair"], "pearson_r_positions": p["r_pos"], "pearson_r_units": p["r_units"],
                   "title": gate_title(label, p["pair"], p["r_pos"], p["r_units"])} for key, label, p in panels}
    report.save(fig, f"fig3_gates_{run}", [path], panels=facts)
