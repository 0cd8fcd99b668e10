"""The LRN README's memory figure: for one sentence, each token's contribution weight to the final state
(mean over units of g_k, Eq. 10; the last row of the dependency matrix) as a heat strip under the tokens, and,
when the full matrix is known, how each token's weight evolves over the later steps (the "forget chain").
Source, first found:
  run_dir/memory.json, the classification task's --memory dump (tasks/classify/classify_memory_report.cc memory_report):
    {"cell", "exact", "sentences": [{"tokens", "weights": [T] final-state weights, "weights_by_step": rows
    k = 0..t, "label", "predicted", "probabilities", "source", ...}]}; a bare {"tokens", "weights"} (a vector or
    the [t][k] matrix) is read too. Default sentence: the first (the task puts the LRN paper's "great" first).
  else the "dependencies" of run_dir/gates.json (NMT decoder or LM, see dependencies.py); default sentence: the
    first with 8-16 tokens."""
import os

import numpy as np
from matplotlib.colors import LogNorm

from dependencies import read_dependencies, read_sentence
from fig_common import Bad, load_json, need, numbers, pick_sentence, plain_text, plt, reading

RANGE = 1e4   # colour scale: the largest weight down to 1/RANGE of it (smaller ones get the bottom colour)


def read_memory_entry(e, what):
    """(tokens, weights, meta): weights the [t][k] matrix when known, else the final-state vector."""
    if isinstance(e, dict) and "weights_by_step" in e:
        tokens, weights = read_sentence(e, what, "weights_by_step")
    else:
        w = need(e, "weights", list, what)
        if w and isinstance(w[0], list):
            tokens, weights = read_sentence(e, what)
        else:
            tokens = need(e, "tokens", list, what)
            weights = numbers(w, f"'weights' in {what}")
            if len(weights) != len(tokens) or not tokens:
                raise Bad(f"{what} has {len(tokens)} tokens but {len(weights)} weights")
            tokens = [str(s) for s in tokens]
    meta = {k: e[k] for k in ("label", "predicted", "source") if e.get(k) is not None}
    return tokens, weights, meta


def read_memory(m):
    """[(tokens, weights, meta)] of a memory.json."""
    if isinstance(m, dict) and "sentences" in m:
        return [read_memory_entry(e, f"sentences[{k}]") for k, e in enumerate(need(m, "sentences", list))]
    return [read_memory_entry(m, "memory.json")]


def find_source(run_dir):
    """(path, [(tokens, weights, meta)], header) from memory.json or else the gates.json dependencies;
    (None, [], {}) when the run has neither."""
    path = os.path.join(run_dir, "memory.json")
    if os.path.exists(path):
        with reading(path):
            m = load_json(path)
            sents = read_memory(m)
        if sents:
            return path, sents, {k: m[k] for k in ("cell", "exact") if k in m}
    path = os.path.join(run_dir, "gates.json")
    if os.path.exists(path):
        with reading(path):
            g = load_json(path)
            sents = [(tok, w, {}) for tok, w in read_dependencies(g)]
        if sents:
            return path, sents, {"cell": g.get("cell")}
    return None, [], {}


def final_weights(weights):
    """The contribution of every token to the final state: the vector itself, or the matrix's last row."""
    return list(weights) if not isinstance(weights[0], list) else weights[-1][:len(weights)]


def log_norm(values):
    """A log colour scale over the top RANGE decades of values (weights decay geometrically along the forget
    chain, so a linear scale shows only the last token or two)."""
    top = max([v for v in values if v > 0], default=1.0)
    return LogNorm(vmin=top / RANGE, vmax=top, clip=True)


def draw_strip(ax, tokens, final):
    n = len(tokens)
    norm = log_norm(final)
    im = ax.imshow(np.array([[max(v, norm.vmin) for v in final]]), cmap="viridis", aspect="auto", norm=norm,
                   extent=(-0.5, n - 0.5, 0.5, -0.5))
    for x, v in enumerate(final):
        light = v < norm.vmin * (norm.vmax / norm.vmin) ** 0.6
        plain_text(ax, x, 0, f"{v:.2f}" if v >= 0.005 else f"{v:.0e}", ha="center", va="center", fontsize=7,
                   color="white" if light else "black")
    ax.set_yticks([])
    ax.set_xticks(range(n))
    ax.set_xticklabels(tokens, rotation=40, ha="left", rotation_mode="anchor")
    ax.xaxis.tick_top()
    ax.tick_params(axis="x", length=0)
    return im


def draw_matrix(ax, tokens, weights):
    n = len(tokens)
    m = np.array([row[:n] for row in weights], dtype=float)
    norm = log_norm(m.ravel().tolist())
    m = np.ma.masked_where(np.triu(np.ones((n, n), dtype=bool), 1), np.maximum(m, norm.vmin))
    im = ax.imshow(m, cmap="viridis", norm=norm, aspect="auto")
    ax.set_xticks(range(n))
    ax.set_xticklabels(tokens, rotation=40, ha="right", rotation_mode="anchor", fontsize=8)
    ax.set_yticks(range(n))
    ax.set_yticklabels(tokens, fontsize=8)
    ax.set_xlabel("token k")
    ax.set_ylabel("state after reading token t")
    for lab in ax.get_xticklabels() + ax.get_yticklabels():
        lab.set_parse_math(False)
    return im


def caption(run, idx, tokens, path, header, meta):
    """The figure's title: run, sentence, source file, and what the classification dump says about it."""
    src = os.path.basename(path) + (f" {meta['source']}" if "source" in meta else "")
    src += "" if path.endswith("memory.json") else " dependencies"
    text = f"{run}: memory of sentence {idx} ({len(tokens)} tokens)\n{header.get('cell') or '?'} cell; from {src}"
    extra = []
    if "label" in meta or "predicted" in meta:
        extra.append(f"label {meta.get('label', '?')}, predicted {meta.get('predicted', '?')}")
    if header.get("exact") is False:
        extra.append("tanh output: Eq. 10 is an approximation")
    return text + ("\n" + "; ".join(extra) if extra else "")


def fig_memory(report, run_dir, sentence=None):
    """memory_strip_<run> (silently nothing when the run has no memory.json and no dependencies)."""
    path, sents, header = find_source(run_dir)
    if not sents:
        return
    run = os.path.basename(run_dir)
    with reading(path):
        if path.endswith("memory.json"):
            idx = pick_sentence([len(s[0]) for s in sents], 0 if sentence is None else sentence)
        else:
            idx = pick_sentence([len(s[0]) for s in sents], sentence)
    tokens, weights, meta = sents[idx]
    final = final_weights(weights)
    full = isinstance(weights[0], list)
    width = max(7.0, 0.55 * len(tokens) + 2.0)
    if full:
        fig, (ax, ax2) = plt.subplots(2, 1, figsize=(width, width * 0.55 + 2.6),
                                      gridspec_kw={"height_ratios": [1, max(3, len(tokens) * 0.45)]})
    else:
        fig, ax = plt.subplots(figsize=(width, 2.8))
    im = draw_strip(ax, tokens, final)
    fig.colorbar(im, ax=ax, fraction=0.04, pad=0.01, label="g_k (log)")
    ax.set_xlabel("contribution of each token to the final state (mean over units of g_k, Eq. 10)")
    if full:
        im2 = draw_matrix(ax2, tokens, weights)
        fig.colorbar(im2, ax=ax2, fraction=0.04, pad=0.01, label="g_k (log)")
        ax2.set_title("every step: row t = weights of tokens k ≤ t in the state after token t", fontsize="small")
    fig.suptitle(caption(run, idx, tokens, path, header, meta), fontsize="medium")
    fig.tight_layout()
    report.save(fig, f"memory_strip_{run}", [path], sentence=idx, tokens=tokens, final_weights=final)
