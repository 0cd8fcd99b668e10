"""ATR paper Fig. 4: dependency arcs over one target sentence. gates.json "dependencies" (ATR and LRN runs;
core/rnn/gates.h dependency_matrix) holds per sentence the tokens the cell reads ("inputs" for NMT: <s> y_1 ..
y_{n-1}; "tokens" for LM) and a lower-triangular matrix: row t = mean over units of the contribution weight
g_k (Eq. 10) of token k <= t to the state after step t. Each token t >= 1 is linked to the earlier token k < t
with the largest weight (the token itself, k = t, is excluded). SentencePiece pieces are drawn as they are,
with their word-start mark "▁" kept."""
import os

from matplotlib.patches import FancyArrowPatch
from matplotlib.path import Path

from fig_common import Bad, load_json, need, numbers, pick_sentence, plain_text, plt, reading


def read_sentence(entry, what, wkey="weights"):
    """(tokens, weights) of one dependencies entry, checked: weights[t] has >= t+1 numbers for each token;
    every row is returned with exactly len(tokens) entries (zeros after k = t when stored shorter)."""
    if not isinstance(entry, dict):
        raise Bad(f"{what} is not an object")
    key = "inputs" if "inputs" in entry else "tokens"
    tokens = need(entry, key, list, what)
    if not all(isinstance(s, str) for s in tokens):
        raise Bad(f"'{key}' in {what} is not a list of strings")
    rows = need(entry, wkey, list, what)
    n = len(tokens)
    if len(rows) != n or n == 0:
        raise Bad(f"{what} has {n} tokens but {len(rows)} '{wkey}' rows")
    weights = []
    for t, row in enumerate(rows):
        row = numbers(row, f"'{wkey}' row {t} in {what}")
        if len(row) < t + 1:
            raise Bad(f"'{wkey}' row {t} in {what} has {len(row)} entries, needs {t + 1}")
        weights.append(row[:n] + [0.0] * (n - len(row)))
    return tokens, weights


def read_dependencies(g):
    """[(tokens, weights)] of a gates.json; [] when it has no "dependencies"."""
    if not isinstance(g, dict):
        raise Bad("not a JSON object")
    deps = g.get("dependencies")
    if deps is None:
        return []
    if not isinstance(deps, list):
        raise Bad("'dependencies' is not a list")
    return [read_sentence(e, f"dependencies[{k}]") for k, e in enumerate(deps)]


def choose_arcs(weights):
    """[(t, k, w)]: for each step t >= 1, the earlier position k < t with the largest weights[t][k] (the first
    one on a tie), skipping rows whose earlier weights are all <= 0. The diagonal (k = t) is never chosen."""
    arcs = []
    for t in range(1, len(weights)):
        row = weights[t][:t]
        k = max(range(t), key=lambda j: (row[j], -j))
        if row[k] > 0:
            arcs.append((t, k, row[k]))
    return arcs


def arc_path(k, t, y0, height):
    """A quadratic Bezier from token k up to the height and down to token t (peak = height above y0)."""
    return Path([(k, y0), ((k + t) / 2.0, y0 + 2.0 * height), (t, y0)], [Path.MOVETO, Path.CURVE3, Path.CURVE3])


def draw_arcs(ax, tokens, weights):
    """Tokens along a row at y = 0, arcs above them from each chosen earlier token to the dependent one."""
    n = len(tokens)
    arcs = choose_arcs(weights)
    top = 0.5
    for t, k, w in arcs:
        share = w / max(sum(weights[t][:t]), 1e-12)   # the chosen token's share of the weight on earlier ones
        height = 0.35 * (t - k) ** 0.85
        top = max(top, height)
        ax.add_patch(FancyArrowPatch(path=arc_path(k, t, 0.12, height), arrowstyle="-|>", mutation_scale=9,
                                     lw=0.7 + 2.3 * share, color="tab:blue", alpha=0.45 + 0.55 * share))
    long_tokens = n > 12 or max((len(s) for s in tokens), default=0) > 8
    for x, s in enumerate(tokens):
        plain_text(ax, x, 0.0, s, ha="right" if long_tokens else "center", va="top", fontsize=10,
                   rotation=40 if long_tokens else 0, rotation_mode="anchor")
    ax.set_xlim(-0.8, n - 0.2)
    ax.set_ylim(-0.25 * max(top, 1.0), top + 0.35)
    ax.axis("off")
    return arcs


def fig4(report, run_dir, sentence=None):
    """fig4_arcs_<run> for a run whose gates.json has dependencies (silently nothing otherwise)."""
    path = os.path.join(run_dir, "gates.json")
    if not os.path.exists(path):
        return
    with reading(path):
        deps = read_dependencies(load_json(path))
        if not deps:
            return
        idx = pick_sentence([len(tok) for tok, _ in deps], sentence)
    run = os.path.basename(run_dir)
    tokens, weights = deps[idx]
    fig, ax = plt.subplots(figsize=(max(7.5, 0.62 * len(tokens) + 1.5), 4.4))
    arcs = draw_arcs(ax, tokens, weights)
    pieces = "; ▁ = SentencePiece word start, kept" if any(s.startswith("▁") for s in tokens) else ""
    ax.set_title(f"{run}: sentence {idx} ({len(tokens)} tokens)\neach token → the earlier token with the largest "
                 "contribution weight g_k (Eq. 10)\narrow at the dependent token; line width: its share of the "
                 f"weight on earlier tokens{pieces}", fontsize="small")
    fig.tight_layout()
    report.save(fig, f"fig4_arcs_{run}", [path], sentence=idx, tokens=tokens,
                arcs=[[tokens[t], tokens[k]] for t, k, _ in arcs])
