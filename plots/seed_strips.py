"""Seed strips: per protocol of seeds_table.PROTOCOLS, each cell's test metric over its seeds as points
(one per seed run), with the mean as a bar, so that overlap between cells is seen at a glance. One figure
with a panel per protocol that has seeded runs: seeds_<protocol keys>.png is not stable, so one name:
seed_strips."""
import os
import textwrap

import numpy as np

import seeds_table
import significance as sig
from fig_common import Bad, plt

COLUMNS = 5


def fig_seed_strips(report, runs_dir, dirs=None):
    """From every seeded run under runs_dir, or from the run folders `dirs` only when given."""
    data = seeds_table.load(runs_dir) if dirs is None else seeds_table.load_dirs(dirs)
    protos = [p for p in seeds_table.PROTOCOLS if data.get(p[0])]
    if not protos:
        report.note(runs_dir if dirs is None else "seed_strips",
                    "no seeded runs (<run>_s<seed> of a known protocol): no seed strips")
        return
    # A grid of at most COLUMNS panels a row (one row of ten is too wide to read in the README); a cell keeps
    # its colour in every panel.
    ncols = min(COLUMNS, len(protos))
    nrows = -(-len(protos) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.2 * ncols + 0.6, 3.4 * nrows), squeeze=False)
    for ax in axes.flat[len(protos):]:
        ax.set_visible(False)
    all_cells = sorted({c for p in protos for c in data[p[0]]})
    colour = {c: plt.get_cmap("tab20")(k % 20) for k, c in enumerate(all_cells)}
    sources, shown = [], {}
    rng = np.random.default_rng(0)   # horizontal jitter only
    for ax, (key, title, _, _, kind, scale, digits, _) in zip(axes.flat, protos):
        cells = data[key]
        order = sorted(cells, key=lambda c: np.mean([r[2] for r in cells[c]]) * (-1 if sig.HIGHER_IS_BETTER[kind] else 1))
        shown[key] = {}
        for x, cell in enumerate(order):
            vals = [r[2] * scale for r in cells[cell]]
            if not all(np.isfinite(vals)):
                raise Bad(f"{key} {cell}: a non-finite test metric {vals}")
            ax.scatter(x + rng.uniform(-0.12, 0.12, len(vals)), vals, s=18, zorder=3, color=colour[cell])
            ax.hlines(np.mean(vals), x - 0.3, x + 0.3, color="black", lw=1.2, zorder=2)
            shown[key][cell] = [round(v, digits) for v in vals]
            sources += [r[1] for r in cells[cell]]
        ax.set_xlim(-0.6, len(order) - 0.4)
        ax.set_xticks(range(len(order)))
        ax.set_xticklabels(order, rotation=45, ha="right", fontsize=8)
        ax.set_title(textwrap.fill(title, 42), fontsize=8.5)
        ax.grid(axis="y", lw=0.3, alpha=0.6)
    fig.suptitle("Test metric per seed (points) and mean (bar)", fontsize=10)
    fig.tight_layout()
    report.save(fig, "seed_strips", [os.path.relpath(s) for s in sources], values=shown, grid=[nrows, ncols])
