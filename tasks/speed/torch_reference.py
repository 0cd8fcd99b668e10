#!/usr/bin/env python3
"""The speed task's workload in PyTorch, for the side-by-side table (issue 4). Optional: needs Debian's
python3-torch (run with /usr/bin/python3); nothing in `make test` uses it.

    /usr/bin/python3 tasks/speed/torch_reference.py experiments/speed/lm.json [--out results/speed/torch_lm]
                     [--intra 1] [--blas-threads 2]

Reads the same experiment JSON as build/bin/speed (cells, shapes, vocab, batch, bptt, warmup_steps, windows,
steps_per_window, seed) and writes <out>.json in the speed task's record format, so
`python3 plots/speed_table.py` can put both side by side. The workload is reference/torch_speed.md's: a word LM
on random ids, embedding -> L stacked cells -> untied softmax, no dropout; training = forward + backward +
gradient-norm clip 5 + SGD step (the clip matches build/bin/speed); words/s = bptt*batch / median step time.
LSTM and GRU are PyTorch's fused nn.LSTM / nn.GRU; ATR, LRN, RAN and SRU are loop cells with every input-side
projection done for the whole sequence before the loop (the fair way to write them in PyTorch), in the
equations of core/rnn/*.h; the other cells of the file (issue 55's minGRU, ...) have no form here and are skipped.
BLAS threads must be fixed before torch loads, hence --blas-threads (it sets
OPENBLAS_NUM_THREADS and OMP_NUM_THREADS for this process); --intra is torch.set_num_threads. The best setting
on our 2-core machine was 1 intra-op thread with 2 BLAS threads (torch_speed.md).
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import time


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("config", help="speed experiment JSON (experiments/speed/*.json)")
    ap.add_argument("--out", help="output prefix (default: <config's out>_torch)")
    ap.add_argument("--intra", type=int, default=1, help="torch intra-op threads (default 1)")
    ap.add_argument("--blas-threads", type=int, default=2, help="OpenBLAS threads (default 2)")
    return ap.parse_args()


ARGS = parse_args()
os.environ["OPENBLAS_NUM_THREADS"] = str(ARGS.blas_threads)
os.environ["OMP_NUM_THREADS"] = str(ARGS.blas_threads)
try:
    import torch
    import torch.nn as nn
except ImportError:
    sys.exit("torch_reference.py: PyTorch is not installed (Debian: apt-get install python3-torch; "
             "run with /usr/bin/python3)")


# The cells this reference has a PyTorch form of (nn.LSTM / nn.GRU, and LoopCell's kinds).
TORCH_CELLS = ("lstm", "gru", "atr", "lrn", "ran", "sru")


class LoopCell(nn.Module):
    """Input projection for the whole sequence, then an elementwise recurrence (row-vector convention)."""

    def __init__(self, kind, i, h):
        super().__init__()
        self.kind, self.h = kind, h
        k_in = {"atr": 1, "lrn": 3, "ran": 3, "sru": 3 if i == h else 4}[kind]
        k_rec = {"atr": 1, "lrn": 0, "ran": 2, "sru": 0}[kind]
        bias = {"atr": h, "lrn": 3 * h, "ran": 2 * h, "sru": 2 * h}[kind]
        self.W = nn.Parameter(torch.empty(i, k_in * h).uniform_(-0.1, 0.1))
        self.U = nn.Parameter(torch.empty(h, k_rec * h).uniform_(-0.1, 0.1)) if k_rec else None
        self.b = nn.Parameter(torch.zeros(bias))
        self.has_memory = kind in ("ran", "sru")

    def forward(self, x, state):   # x: [T, B, I]
        T, B, _ = x.shape
        h_dim = self.h
        xp = x.reshape(T * B, -1) @ self.W
        nb = self.b.shape[0]
        xp = torch.cat([xp[:, :nb] + self.b, xp[:, nb:]], 1) if xp.shape[1] > nb else xp + self.b
        if self.kind == "sru" and xp.shape[1] == 3 * h_dim:
            xp = torch.cat([xp, x.reshape(T * B, -1)], 1)
        xp = xp.view(T, B, -1)
        h, c = state
        outs = []
        for t in range(T):
            a = xp[t]
            if self.kind == "atr":      # h = σ(p+q) p + σ(p−q) h_prev
                q = h @ self.U
                h = torch.sigmoid(a + q) * a + torch.sigmoid(a - q) * h
            elif self.kind == "lrn":    # h = tanh(σ(k+h) v + σ(q−h) h)
                qg, kg, v = a[:, :h_dim], a[:, h_dim:2 * h_dim], a[:, 2 * h_dim:]
                h = torch.tanh(torch.sigmoid(kg + h) * v + torch.sigmoid(qg - h) * h)
            elif self.kind == "ran":    # [i f] = σ(a + h U), c = i c̃ + f c, h = tanh(c)
                g = torch.sigmoid(a[:, :2 * h_dim] + h @ self.U)
                c = g[:, :h_dim] * a[:, 2 * h_dim:] + g[:, h_dim:] * c
                h = torch.tanh(c)
            else:                       # sru: c = x̃ + f (c − x̃), h = x_h + r (tanh c − x_h)
                f, r = torch.sigmoid(a[:, :h_dim]), torch.sigmoid(a[:, h_dim:2 * h_dim])
                xt, xh = a[:, 2 * h_dim:3 * h_dim], a[:, 3 * h_dim:]
                c = xt + f * (c - xt)
                h = xh + r * (torch.tanh(c) - xh)
            outs.append(h)
        return torch.stack(outs), (h, c)


class LM(nn.Module):
    def __init__(self, cell, vocab, embed, hidden, layers):
        super().__init__()
        self.cell, self.layers = cell, layers
        self.emb = nn.Embedding(vocab, embed)
        if cell in ("lstm", "gru"):
            self.rnn = (nn.LSTM if cell == "lstm" else nn.GRU)(embed, hidden, layers)
        else:
            self.rnn = nn.ModuleList(LoopCell(cell, embed if l == 0 else hidden, hidden) for l in range(layers))
        self.out = nn.Linear(hidden, vocab)

    def forward(self, ids, state):
        x = self.emb(ids)
        if self.cell in ("lstm", "gru"):
            y, state = self.rnn(x, state)
        else:
            new = []
            for l, cell in enumerate(self.rnn):
                x, s = cell(x, state[l])
                new.append(s)
            y, state = x, new
        return self.out(y.reshape(-1, y.shape[-1])), state

    def zero_state(self, batch, hidden):
        z = torch.zeros(self.layers, batch, hidden)
        if self.cell == "lstm":
            return (z, z.clone())
        if self.cell == "gru":
            return z
        return [(torch.zeros(batch, hidden), torch.zeros(batch, hidden)) for _ in range(self.layers)]


def detach(s):
    if isinstance(s, torch.Tensor):
        return s.detach()
    return type(s)(detach(x) for x in s) if isinstance(s, (tuple, list)) else s


def gemm_flops(cell, embed, hidden, layers, vocab, tokens):
    """Training-step GEMM flops counted as build/bin/speed counts them: 2mnk forward, twice that backward."""
    per_token = 0
    for l in range(layers):
        i = embed if l == 0 else hidden
        k_in = {"lstm": 4, "gru": 3, "atr": 1, "lrn": 3, "ran": 3, "sru": 3 if i == hidden else 4}[cell]
        k_rec = {"lstm": 4, "gru": 3, "atr": 1, "lrn": 0, "ran": 2, "sru": 0}[cell]
        per_token += 2 * i * k_in * hidden + 2 * hidden * k_rec * hidden
    per_token += 2 * hidden * vocab
    return 3 * per_token * tokens


def run(cfg, cell, shape):
    torch.manual_seed(cfg.get("seed", 1))
    V, B, T = cfg.get("vocab", 10000), cfg.get("batch", 20), cfg.get("bptt", 35)
    E, H, L = shape["embed"], shape["hidden"], shape.get("layers", 2)
    model = LM(cell, V, E, H, L)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss(reduction="sum")
    windows = [(torch.randint(V, (T, B)), torch.randint(V, (T * B,))) for _ in range(4)]
    state = {"train": model.zero_state(B, H), "infer": model.zero_state(B, H)}
    k = [0]

    def train_step():
        x, y = windows[k[0] % 4]
        k[0] += 1
        logits, s = model(x, state["train"])
        state["train"] = detach(s)
        loss = loss_fn(logits, y) / B
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()

    def infer_step():
        x, y = windows[k[0] % 4]
        k[0] += 1
        with torch.no_grad():
            logits, s = model(x, state["infer"])
            state["infer"] = s
            loss_fn(logits, y)

    def timed(step):
        for _ in range(cfg.get("warmup_steps", 3)):
            step()
        per = []
        for _ in range(cfg.get("windows", 5)):
            t0 = time.perf_counter()
            for _ in range(cfg.get("steps_per_window", 5)):
                step()
            per.append((time.perf_counter() - t0) / cfg.get("steps_per_window", 5))
        return statistics.median(per)

    t_train, t_infer = timed(train_step), timed(infer_step)
    flops = gemm_flops(cell, E, H, L, V, T * B)
    return {"cell": cell, "shape": shape["name"], "embed": E, "hidden": H, "layers": L,
            "threads": ARGS.blas_threads, "intra_threads": ARGS.intra,
            "params": sum(p.numel() for p in model.parameters()),
            "train_step_s": t_train, "infer_step_s": t_infer,
            "train_words_s": T * B / t_train, "infer_words_s": T * B / t_infer,
            "train_step_flops": flops, "train_gflops": flops / t_train / 1e9,
            "impl": "nn." + cell.upper() if cell in ("lstm", "gru") else "loop"}


def main():
    with open(ARGS.config) as f:
        cfg = json.load(f)
    torch.set_num_threads(ARGS.intra)
    out = ARGS.out or cfg["out"] + "_torch"
    records = []
    for shape in cfg["shapes"]:
        for cell in cfg["cells"]:
            if cell not in TORCH_CELLS:   # issue 55's cells (mingru, ...) and object entries have no PyTorch twin here
                print(f"{cell if isinstance(cell, str) else cell.get('name')}: no PyTorch reference; skipped", flush=True)
                continue
            r = run(cfg, cell, shape)
            print(f"{cell:5s} {shape['name']:8s} train {r['train_words_s']:8.0f} words/s "
                  f"({r['train_gflops']:.1f} GFLOP/s)  infer {r['infer_words_s']:8.0f} words/s", flush=True)
            records.append(r)
    report = {"tool": f"pytorch {torch.__version__} (torch_reference.py)",
              "workload": "word LM, random ids, untied softmax, no dropout; train = fwd + bwd + clip 5 + SGD",
              "machine": {"cores": os.cpu_count(), "cpu": platform.processor() or platform.machine(),
                          "date": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"),
                          "blas_threads": ARGS.blas_threads, "intra_threads": ARGS.intra},
              "config": cfg, "records": records}
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    tmp = out + ".json.tmp"
    with open(tmp, "w") as f:
        json.dump(report, f, indent=2)
        f.write("\n")
    os.replace(tmp, out + ".json")
    print(f"wrote {out}.json")


if __name__ == "__main__":
    main()
