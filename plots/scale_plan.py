#!/usr/bin/env python3
"""The WMT14-scale plan (issue 10) from measured figures: how many nodes make one pass over WMT14 En-De
(4.5M sentence pairs) in a day with data-parallel training over MPI (core/train/dist.h), per network bandwidth.

Reads the JSON that `build/bin/speed nmt --shaped-corpus` writes (results/speed/nmt_wmt14_shape.json: one node's
training target tokens/s of RNNSearch+ATR at the paper's size, target tokens per step and the bytes
MPI_Allreduce moves per step) and writes a markdown table with its assumptions stated.

The model of a data-parallel step on N nodes, each with the measured per-node batch (so the global batch grows
with N; the learning rate may then need retuning, as in every large-batch recipe):
  compute_s = tokens_per_step / tokens_s                  (one node's forward + backward + update, measured)
  comm_s    = 2 (N - 1) / N * bytes_per_step / bandwidth  (ring allreduce, which Open MPI uses for large
                                                           messages; latency and any overlap ignored)
  throughput(N) = N * tokens_per_step / (compute_s + comm_s)   target tokens/s of the whole job
A day's pass needs throughput(N) * 86400 >= pairs * target_tokens_per_pair; the smallest such N is reported.

usage: scale_plan.py [--bench results/speed/nmt_wmt14_shape.json] [--out results/scale_plan.md]
                     [--pairs 4500000] [--tokens-per-pair T] [--gbits 1,10,25,100]
T defaults to the shaped corpus's mean words per sentence + 1 (the EOS token). Standard library only.
"""
import argparse
import json
import sys

DAY_S = 86400.0
MAX_NODES = 100000


def step_seconds(nodes, tokens_s, tokens_per_step, bytes_per_step, bandwidth_Bps):
    """(compute, communication) seconds of one data-parallel step on `nodes` nodes."""
    compute = tokens_per_step / tokens_s
    comm = 2.0 * (nodes - 1) / nodes * bytes_per_step / bandwidth_Bps if nodes > 1 else 0.0
    return compute, comm


def throughput(nodes, tokens_s, tokens_per_step, bytes_per_step, bandwidth_Bps):
    compute, comm = step_seconds(nodes, tokens_s, tokens_per_step, bytes_per_step, bandwidth_Bps)
    return nodes * tokens_per_step / (compute + comm)


def nodes_for(epoch_tokens, seconds, tokens_s, tokens_per_step, bytes_per_step, bandwidth_Bps):
    """Smallest N whose throughput makes `epoch_tokens` in `seconds`, or None when no N up to MAX_NODES does
    (the ring's traffic per node tends to 2 * bytes_per_step, so throughput grows without bound but slowly)."""
    need = epoch_tokens / seconds
    for n in range(1, MAX_NODES + 1):
        if throughput(n, tokens_s, tokens_per_step, bytes_per_step, bandwidth_Bps) >= need:
            return n
    return None


def embed_note(doc, row):
    """The share of the allreduced bytes that are the two embeddings, whose gradients touch only the rows of a
    step's words (the output layer's are dense: full softmax). From the experiment file when it is readable."""
    try:
        with open(doc["experiment"], encoding="utf-8") as f:
            embed = json.load(f)["model"]["embed"]
        rows = row["src_vocab"] + row["tgt_vocab"]
    except (OSError, KeyError, TypeError, ValueError):
        return ""
    share = rows * embed / row["params"]
    return (f" {share:.0%} of the bytes are the two embeddings ({rows:,} rows x {embed}), whose gradients are "
            "sparse in a step (only the rows of its words): a sparse allreduce of those rows would cut the "
            "traffic by about that share, which matters on slow networks.")


class PlanError(Exception):
    """Bad input, with the file and what was expected: one line for the user."""


def fail(msg):
    raise PlanError(msg)


def load_row(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        fail(f"{path}: cannot read ({e.strerror}); run `build/bin/speed nmt experiments/nmt/wmt14_shape_atr.json "
             f"--cells atr --shaped-corpus 40000 --shaped-pairs 20000 --steps 10 --sentences 30 --threads 2 "
             f"--out results/speed/nmt_wmt14_shape` first (with the cores otherwise idle)")
    except json.JSONDecodeError as e:
        fail(f"{path}: not JSON ({e})")
    rows = doc.get("rows") or []
    row = next((r for r in rows if r.get("cell") == "atr"), rows[0] if rows else None)
    need = ("train_tokens_s", "train_tokens_per_step", "allreduce_bytes_per_step", "params")
    if row is None or any(not isinstance(row.get(k), (int, float)) or row.get(k) <= 0 for k in need):
        fail(f"{path}: expected rows[] with positive {', '.join(need)} (written by build/bin/speed nmt)")
    return doc, row


def build(bench, out, pairs=4.5e6, tokens_per_pair=None, gbits=(1.0, 10.0, 25.0, 100.0)):
    """Writes the plan for the bench JSON `bench` to `out`; PlanError on bad input (nothing written then)."""
    doc, row = load_row(bench)
    if not gbits or min(gbits) <= 0 or pairs <= 0:
        fail("the bandwidths and the number of pairs must be positive")
    shaped = doc.get("shaped_corpus", {})
    tpp = tokens_per_pair or float(shaped.get("mean_words", 26)) + 1.0
    epoch = pairs * tpp
    ts, tps, by = row["train_tokens_s"], row["train_tokens_per_step"], row["allreduce_bytes_per_step"]
    one_node_days = epoch / ts / DAY_S
    lines = [
        "# WMT14-scale plan: nodes for one pass over WMT14 En-De in a day (issue 10)",
        "",
        f"Generated by `/usr/bin/python3 plots/scale_plan.py --bench {bench}` (also run by `make tables`) from the measurement "
        f"`{doc.get('command', '?')}` ({doc.get('date', '?')}, {doc.get('threads', '?')} threads = one node of "
        "this machine's kind). The model is RNNSearch+ATR at the paper's size (embedding 620, hidden 1000, "
        f"{row.get('src_vocab', '?')} / {row.get('tgt_vocab', '?')} source / target pieces, untied): "
        f"{row['params']:,} parameters.",
        "",
        "| measured on one node | value |",
        "|---|---:|",
        f"| training target tokens/s | {ts:,.0f} |",
        f"| target tokens per step (its batch: up to 80 sentences / 3,000 tokens) | {tps:,.0f} |",
        f"| seconds per step | {tps / ts:.2f} |",
        f"| bytes allreduced per step (every gradient, float32) | {by / 1e6:,.1f} MB |",
        "",
        f"One pass = {pairs:,.0f} pairs x {tpp:.0f} target tokens (mean words + EOS; word-level pieces as in "
        f"the shaped corpus) = {epoch / 1e6:,.1f}M target tokens: **{one_node_days:.1f} days on one node**.",
        "",
        "| network | allreduce s/step (ring, at N) | nodes for one pass a day | job tokens/s at N | "
        "communication share |",
        "|---|---:|---:|---:|---:|",
    ]
    for g in gbits:
        bw = g * 1e9 / 8
        n = nodes_for(epoch, DAY_S, ts, tps, by, bw)
        if n is None:
            lines.append(f"| {g:g} Gbit/s | – | not reachable with <= {MAX_NODES:,} nodes | – | – |")
            continue
        c, m = step_seconds(n, ts, tps, by, bw)
        lines.append(f"| {g:g} Gbit/s | {m:.2f} | **{n}** | {throughput(n, ts, tps, by, bw):,.0f} | "
                     f"{m / (c + m):.0%} |")
    lines += [
        "",
        "Assumptions: each node keeps the measured per-node batch, so the global batch is N x that (the "
        "experiment's batch is the global one the ranks share: set `data.batch_tokens` and `data.max_sentences` "
        "to N times the values above; large-batch training may need a retuned learning rate or warm-up), the ring allreduce moves 2 (N-1)/N of the "
        "gradient bytes per node per step at the stated bandwidth, latency and overlap of communication with "
        "the backward pass are ignored (core/train/dist.h reduces after the backward pass, in buckets), and "
        "the nodes are of the measured kind (2 cores)." + embed_note(doc, row),
        "",
    ]
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default="results/speed/nmt_wmt14_shape.json")
    ap.add_argument("--out", default="results/scale_plan.md")
    ap.add_argument("--pairs", type=float, default=4.5e6, help="sentence pairs in one pass (WMT14 En-De: 4.5M)")
    ap.add_argument("--tokens-per-pair", type=float, default=None)
    ap.add_argument("--gbits", default="1,10,25,100", help="network bandwidths to plan for, Gbit/s")
    a = ap.parse_args()
    try:
        try:
            gbits = [float(x) for x in a.gbits.split(",") if x]
        except ValueError:
            fail(f"--gbits expects comma-separated numbers, got '{a.gbits}'")
        build(a.bench, a.out, a.pairs, a.tokens_per_pair, gbits)
    except PlanError as e:
        print(f"scale_plan.py: {e}", file=sys.stderr)
        sys.exit(2)
    print(f"scale_plan.py: wrote {a.out}")


if __name__ == "__main__":
    main()
