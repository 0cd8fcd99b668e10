"""State-norm curves (issue 26, "see a blow-up coming"): for every LM run whose metrics.jsonl train rows carry
the carried state's per-layer max |h| (tasks/lm/lm_task.cc log_extras: state_abs_mean, state_abs_max), three
panels against the training step: the training loss per token, max |h| per layer and the pre-clip gradient
norm, all on log scales. ATR's identity output leaves the state unbounded (h_t = i_t*p_t + f_t*h_{t-1} can grow
whenever f_t is near 1), so a blow-up shows as max |h| jumping together with the gradient norm and the loss.
One figure, lm_state_norm: a column per recipe (their step counts differ: 13 epochs of 2 x 200 against 39 of
2 x 650), one colour per cell shared by its seeds and by learning_curves_lm (learning_curves.lm_colours), one
line style per layer."""
import os

from fig_common import Bad, plt, reading
from learning_curves import lm_colours, read_metrics, tidy_curve
from lm_table import cell_and_recipe

LAYER_STYLES = ["-", "--", ":", "-."]


def state_rows(run_dir):
    """[(step, loss, grad_norm, [max |h| per layer])] of a run's train rows that carry state_abs_max, in step
    order with resumed-over rows dropped (learning_curves.tidy_curve); [] when the run logs no state norms."""
    path = os.path.join(run_dir, "metrics.jsonl")
    if not os.path.exists(path):
        return []
    with reading(path):
        records, _ = read_metrics(path)
    rows = []
    for _, r in records:
        m, step, loss = r.get("state_abs_max"), r.get("step"), r.get("loss")
        if r.get("split") != "train" or not isinstance(m, list) or not m:
            continue
        if not isinstance(step, (int, float)) or not isinstance(loss, (int, float)):
            continue
        if not all(isinstance(v, (int, float)) for v in m):
            raise Bad(f"step {step}: state_abs_max is not a list of numbers", path)
        g = r.get("grad_norm")
        rows.append({"step": step, "value": (loss, g if isinstance(g, (int, float)) else None, m)})
    return [(s, v[0], v[1], v[2]) for s, _, v in tidy_curve(rows)]


def fig_state_norm(report, run_dirs):
    """lm_state_norm from every run in run_dirs with state norms (none: noted, no figure)."""
    runs = []
    for d in run_dirs:
        if not os.path.basename(d).startswith("lm_"):
            continue
        rows = report.guard(d, state_rows, d)
        if rows:
            runs.append((d, rows) + cell_and_recipe(d))
    if not runs:
        report.note("lm_state_norm", "no LM run logs state_abs_max")
        return
    recipes = sorted({recipe for _, _, _, recipe in runs})
    cells = sorted({cell for _, _, cell, _ in runs})
    colour = lm_colours(cells)
    fig, axes = plt.subplots(3, len(recipes), figsize=(6 * len(recipes) + 2, 9), sharex="col", squeeze=False)
    for col, recipe in enumerate(recipes):
        ax_l, ax_h, ax_g = axes[:, col]
        seen = {}
        for d, rows, cell, rec in runs:
            if rec != recipe:
                continue
            seen[cell] = seen.get(cell, 0) + 1
            color, label = colour[cell], (cell if seen[cell] == 1 else None)   # a cell's seeds: one entry
            steps = [s for s, _, _, _ in rows]
            ax_l.plot(steps, [l for _, l, _, _ in rows], color=color, lw=1.0, label=label)
            for layer in range(max(len(m) for _, _, _, m in rows)):
                pts = [(s, m[layer]) for s, _, _, m in rows if layer < len(m)]
                ax_h.plot(*zip(*pts), color=color, lw=1.0, ls=LAYER_STYLES[layer % len(LAYER_STYLES)])
            g = [(s, v) for s, _, v, _ in rows if v is not None]
            if g:
                ax_g.plot(*zip(*g), color=color, lw=1.0)
        ax_l.set_title(f"recipe {recipe} (" + ", ".join(f"{c} x{n}" if n > 1 else c for c, n in sorted(seen.items()))
                       + ")", fontsize="medium")
        handles, labels = ax_l.get_legend_handles_labels()
        order = sorted(range(len(labels)), key=lambda k: labels[k])
        ax_l.legend([handles[k] for k in order], [labels[k] for k in order], fontsize="small", loc="upper right",
                    title="cell (its seeds share the colour)", title_fontsize="x-small")
        layers = max(len(m) for _, rows, _, rec in runs if rec == recipe for _, _, _, m in rows)
        ax_h.legend([plt.Line2D([], [], color="0.3", ls=LAYER_STYLES[k % len(LAYER_STYLES)]) for k in range(layers)],
                    [f"layer {k + 1}" for k in range(layers)], fontsize="x-small", loc="upper right")
        ax_g.set_xlabel("training step")
    for row, label in enumerate(("training loss per token", "max |h| of the carried state",
                                 "gradient norm (before clipping)")):
        axes[row, 0].set_ylabel(label)
        for ax in axes[row]:
            ax.set_yscale("log")
            ax.grid(alpha=0.3, which="both")
    fig.suptitle("lm: carried-state norm, loss and gradient norm during training (train log rows, log scales)")
    fig.tight_layout()
    columns = {r: sorted({cell for _, _, cell, rec in runs if rec == r}) for r in recipes}
    report.save(fig, "lm_state_norm", [os.path.join(d, "metrics.jsonl") for d, *_ in runs], columns=columns,
                colours={c: colour[c] for c in cells},
                runs={os.path.basename(d): {"points": len(r), "max_state": max(max(m) for _, _, _, m in r)}
                      for d, r, _, _ in runs})
