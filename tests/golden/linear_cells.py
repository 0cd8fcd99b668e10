"""Golden forward values of the issue-55 cells, for tests/test_cells_linear_golden.cc.

Run: /usr/bin/python3 tests/golden/linear_cells.py   (numpy only; prints C++ literals to paste into the test)

An independent re-implementation in numpy of each cell's equations as its header in core/rnn/ writes them (which
follow the papers and the reference code named there), one sequence at a time and one step at a time, with no
batching, masking or scan: each sequence b runs over its own first lengths[b] steps only, forward (t = 0, 1, ...) or
backward (t = len-1, ..., 0). The rows of the padded steps are then filled as run_rnn defines them (the state is
carried through padding): forward, the state after the last real step; backward, the initial state (the padded steps
come first in a backward run and leave it unchanged).

  mingru        z = sig(a_z), h~ = g(p_h), h = (1 - z) h_prev + z h~;     g(x) = x + 0.5 (x >= 0), sig(x) (x < 0)
  minlstm       f = sig(a_f), i = sig(a_i), f' = f / (f + i), i' = i / (f + i), h = f' h_prev + i' g(p_h)
  minlstm_nn    (no normalisation, identity candidate) h = f h_prev + i p_h
  qrnn          z = tanh(a_z), f = sig(a_f), o = sig(a_o), c = f c_prev + (1 - f) z, h = o c
  qrnn_w2       the same with [a_z a_f a_o]_t = x_t W0 + x_n W1 + b, x_n the step before in the run's order
                (x_{t-1} forward, x_{t+1} backward), zero outside the sequence
  indrnn        h = relu(x W + b + u h_prev)
  hgrn          lam = gam + (1 - gam) sig(a_mu), c~ = silu(p_c), s = lam s_prev + (1 - lam) c~, o = s silu(a_g)
                (h = o is the output, s the memory)

Layouts are the suite's: projections x W + b with W [I, k H] in the column-block order each header gives ([z | h~],
[f | i | h~], [z | f | o] then for width 2 [W0 | W1], [mu | c | g]); b covers the first 3H (QRNN) or all columns.
Every number comes from authors_cells.py's gen(rows, cols, scale, phase)[r][c] = scale * sin(phase + 7 r + 3 c) (no
random numbers), which the test evaluates the same way (test_util.h sin_mat). Sizes: I = 3, H = 4, B = 2, T = 3, inputs X = gen(T*B, I, 1.0, 0.3) time-major,
h0 = gen(B, H, 0.5, 2.0), c0 = gen(B, H, 0.5, 2.5).
"""
import numpy as np

from authors_cells import gen, sigmoid as sig   # the same gen() and sigmoid as the ATR/LRN goldens

I, H, B, T = 3, 4, 2, 3


def g(x):
    return np.where(x >= 0, x + 0.5, sig(x))


def silu(x):
    return x * sig(x)


X = gen(T * B, I, 1.0, 0.3)
H0 = gen(B, H, 0.5, 2.0)
C0 = gen(B, H, 0.5, 2.5)


def run(step, lengths, reverse, memory, conv=None):
    """step(xp_row, (h, c)) -> (h, c) for one sequence; returns h_all [T*B, H] and the last c [B, H]."""
    h_all = np.zeros((T * B, H))
    c_last = np.zeros((B, H))
    for b in range(B):
        n = lengths[b]
        order = range(n - 1, -1, -1) if reverse else range(n)
        h, c = H0[b].copy(), C0[b].copy()
        hs = {}
        for t in order:
            x = X[t * B + b]
            if conv is not None:   # qrnn width 2: the neighbour in the run's order, zero outside the sequence
                nb = t + 1 if reverse else t - 1
                xn = X[nb * B + b] if 0 <= nb < n else np.zeros(I)
                xp = conv(x, xn)
            else:
                xp = x
            h, c = step(xp, (h, c))
            hs[t] = h
        for t in range(T):
            if t in hs:
                h_all[t * B + b] = hs[t]
            else:   # padding: forward after the end carries the last state, backward before the start keeps h0
                h_all[t * B + b] = H0[b] if reverse else hs[n - 1]
        c_last[b] = c
    return h_all, c_last


def mingru():
    W, b = gen(I, 2 * H, 0.6, 1.0), gen(1, 2 * H, 0.3, 4.0)[0]

    def step(x, s):
        p = x @ W + b
        z, ht = sig(p[:H]), g(p[H:])
        return (1 - z) * s[0] + z * ht, None
    return step


def minlstm(normalise=True, cand=g):
    W, b = gen(I, 3 * H, 0.6, 1.0), gen(1, 3 * H, 0.3, 4.0)[0]

    def step(x, s):
        p = x @ W + b
        f, i, ht = sig(p[:H]), sig(p[H:2 * H]), cand(p[2 * H:])
        if normalise:
            f, i = f / (f + i), i / (f + i)
        return f * s[0] + i * ht, None
    return step


def qrnn_proj(width):
    W, b = gen(I, 3 * width * H, 0.6, 1.0), gen(1, 3 * H, 0.3, 4.0)[0]
    if width == 1:
        return (lambda x: x @ W + b), None
    W0, W1 = W[:, :3 * H], W[:, 3 * H:]
    return None, (lambda x, xn: x @ W0 + xn @ W1 + b)


def qrnn_step(proj):
    def step(a, s):
        if proj is not None:
            a = proj(a)
        z, f, o = np.tanh(a[:H]), sig(a[H:2 * H]), sig(a[2 * H:])
        c = f * s[1] + (1 - f) * z
        return o * c, c
    return step


def indrnn():
    W, b, u = gen(I, H, 0.6, 1.0), gen(1, H, 0.3, 4.0)[0], 0.5 + gen(1, H, 0.4, 5.5)[0]   # u in [0.1, 0.9]

    def step(x, s):
        return np.maximum(x @ W + b + u * s[0], 0), None
    return step


def hgrn(gam):
    W, b = gen(I, 3 * H, 0.6, 1.0), gen(1, 3 * H, 0.3, 4.0)[0]

    def step(x, st):
        p = x @ W + b
        lam = gam + (1 - gam) * sig(p[:H])
        s = lam * st[1] + (1 - lam) * silu(p[H:2 * H])
        return s * silu(p[2 * H:]), s
    return step


def emit(name, h_all, c_last=None):
    print("// %s: h_all row by row (t = 0..%d: batch 0's H values, then batch 1's)" % (name, T - 1))
    print("constexpr Golden k%s = {" % name)
    for t in range(T):
        print("    {" + ", ".join("%.9f" % v for v in h_all[t * B:(t + 1) * B].reshape(-1)) + "},")
    print("};")
    if c_last is not None:
        print("constexpr double k%sC[%d] = {%s};" % (name, B * H, ", ".join("%.9f" % v for v in c_last.reshape(-1))))


if __name__ == "__main__":
    full, padded = [T, T], [T, 2]
    emit("MinGru", *run(mingru(), full, False, False)[:1])
    emit("MinGruBackwardPadded", *run(mingru(), padded, True, False)[:1])
    emit("MinLstm", *run(minlstm(), full, False, False)[:1])
    emit("MinLstmNoNormIdentity", *run(minlstm(False, lambda v: v), full, False, False)[:1])
    proj1, _ = qrnn_proj(1)
    emit("Qrnn", *run(qrnn_step(proj1), full, False, True))
    _, conv2 = qrnn_proj(2)
    emit("QrnnW2", *run(qrnn_step(None), full, False, True, conv=conv2))
    emit("QrnnW2BackwardPadded", *run(qrnn_step(None), padded, True, True, conv=conv2))
    emit("IndRnn", *run(indrnn(), full, False, False)[:1])
    emit("Hgrn", *run(hgrn(0.3), full, False, True))
    emit("HgrnForwardPadded", *run(hgrn(0.3), padded, False, True))
