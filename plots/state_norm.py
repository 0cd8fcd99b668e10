"""State-norm curves (issue 26, "see a blow-up coming"): for every LM run whose metrics.jsonl train rows carry
the carried state's per-layer max |h| (tasks/lm/lm_task.cc log_extras: state_abs_mean, state_abs_max), three
panels against the training step: the training loss per token, max |h| per layer and the pre-clip gradient
norm, all on log scales. ATR's identity output leaves the state unbounded (h_t = i_t*p_t + f_t*h_{t-1} can grow
whenever f_t is near 1), so a blow-up shows as max |h| jumping together with the gradient norm and the loss.
One figure, lm_state_norm, one colour per run and one line style per layer."""
import os

from fig_common import Bad, plt, reading
from learning_curves import read_metrics, tidy_curve

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
            runs.append((d, rows))
    if not runs:
        report.note("lm_state_norm", "no LM run logs state_abs_max")
        return
    fig, (ax_l, ax_h, ax_g) = plt.subplots(3, 1, figsize=(10, 9), sharex=True)
    for k, (d, rows) in enumerate(runs):
        color, name = f"C{k % 10}", os.path.basename(d)[3:]
        steps = [s for s, _, _, _ in rows]
        ax_l.plot(steps, [l for _, l, _, _ in rows], color=color, lw=1.2, label=name)
        for layer in range(max(len(m) for _, _, _, m in rows)):
            pts = [(s, m[layer]) for s, _, _, m in rows if layer < len(m)]
            ax_h.plot(*zip(*pts), color=color, lw=1.2, ls=LAYER_STYLES[layer % len(LAYER_STYLES)],
                      label=f"{name}, layer {layer + 1}")
        g = [(s, v) for s, _, v, _ in rows if v is not None]
        if g:
            ax_g.plot(*zip(*g), color=color, lw=1.2, label=name)
    for ax, label in ((ax_l, "training loss per token"), (ax_h, "max |h| of the carried state"),
                      (ax_g, "gradient norm (before clipping)")):
        ax.set_yscale("log")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3, which="both")
    ax_l.legend(fontsize="small", loc="upper right")
    ax_h.legend(fontsize="x-small", loc="upper right", ncol=2)
    ax_g.set_xlabel("training step")
    fig.suptitle("lm: carried-state norm, loss and gradient norm during training (train log rows, log scales)")
    fig.tight_layout()
    report.save(fig, "lm_state_norm", [os.path.join(d, "metrics.jsonl") for d, _ in runs],
                runs={os.path.basename(d): {"points": len(r), "max_state": max(max(m) for _, _, _, m in r)}
                      for d, r in runs})
