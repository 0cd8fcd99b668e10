"""Golden forward values of ATR and LRN in their authors' forms, for tests/test_cells_authors.cc (issue 51).

Run: /usr/bin/python3 tests/golden/authors_cells.py   (numpy only; prints C++ literals to paste into the test)

This is a re-implementation in numpy, written from reading the authors' code, not a copy of it. Each case follows
one file, in the parameter layout of that file, and computes exactly what its forward pass computes:

  atr_repo   the ATR authors' repository as stored by the code index, DeepLearnXMU/ATR (same README; a fork calls it
             github.com/bzhangGo/ATR), pytorch-lm/rnn/atr.py at commit 61badb9c, class ATR: the PyTorch PTB LM's cell
             (lm/pytorch-lm/model.py, commit d0b4386b, does `from rnn import ATR`; the lm/pytorch-lm/rnn/ copy is not
             in the index). Choices followed:
               p = self.i2h(x), q = self.h2h(h_): two nn.Linear, each WITH its bias; nn.Linear computes
                 x A^T + bias with A of shape [out, in], so i2h.weight is [H, I] and h2h.weight is [H, H];
               i = (p + q).sigmoid(), f = (p - q).sigmoid()   (x-side minus h-side, the README's correction);
               h = i * p + f * h_                              (no output nonlinearity);
               prev_h = zeros when no init_state is given      (we give none: h0 = 0).
             The per-step shrinking of the batch to the sequences still running is a no-op here (all lengths = T).
  lrn_atr    bzhangGo/lrn (the LRN repository), lm/code/rnn.py (commit 226d3c23), class ATRCell. Choices followed:
               _W [I, H], _W_b [H], _U [H, H], _U_b [H], used as torch.mm(x, _W) + _W_b (already x W + b);
               p = x _W + _W_b, q = h_ _U + _U_b, i = sigmoid(p + q), f = sigmoid(p - q);
               h = tanh(i * p + f * h_)                        (this file's ATR has a tanh output);
               h0 given (the repository's RNN wrapper takes h; we pass a fixed non-zero one).
  lrn_lrn    bzhangGo/lrn, lm/code/rnn.py, class LRNCell (nli/code/rnns/lrn.py, the TensorFlow cell, agrees). Choices:
               p, q, r = (x _W + _W_b).split(H, -1), _W [I, 3H], _W_b [3H]: the FIRST chunk p feeds the input
                 gate, the SECOND chunk q the forget gate, the third r is the value;
               i = sigmoid(p + h_), f = sigmoid(q - h_), h = tanh(i * r + f * h_);
               h0 given (fixed, non-zero).
  typo_atr   NOT an authors' code form: the ATR paper's printed forget gate f = sigmoid(q - p) (which the ATR README
             calls a typo), on atr_repo's weights and inputs. Only for the negative test: the suite must NOT match it.

Sizes I = 3, H = 4, B = 2, T = 3. Every weight, bias, input and initial state comes from one formula (no random
numbers), gen(rows, cols, scale, phase)[r][c] = scale * sin(phase + 7 r + 3 c), in the AUTHORS' layout of each file;
tests/test_cells_authors.cc evaluates the same formula and maps it onto the suite's parameters. Inputs are time-major:
x_t = X[t*B:(t+1)*B] of X = gen(T*B, I, 1.0, 0.3).
"""
import numpy as np

I, H, B, T = 3, 4, 2, 3


def gen(rows, cols, scale, phase):
    r = np.arange(rows)[:, None]
    c = np.arange(cols)[None, :]
    return scale * np.sin(phase + 7.0 * r + 3.0 * c)


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


X = gen(T * B, I, 1.0, 0.3)            # [T*B, I] time-major inputs, shared by every case
H0 = gen(B, H, 0.5, 2.0)               # [B, H] the given initial state of lrn_atr and lrn_lrn


def atr_repo(typo=False):
    """DeepLearnXMU/ATR pytorch-lm/rnn/atr.py: nn.Linear layout (weight [out, in], bias [out]), h0 = 0."""
    i2h_w, i2h_b = gen(H, I, 0.6, 1.0), gen(1, H, 0.3, 4.0)[0]
    h2h_w, h2h_b = gen(H, H, 0.6, 2.5), gen(1, H, 0.3, 5.5)[0]
    h = np.zeros((B, H))
    out = []
    for t in range(T):
        x = X[t * B:(t + 1) * B]
        p = x @ i2h_w.T + i2h_b
        q = h @ h2h_w.T + h2h_b
        i = sigmoid(p + q)
        f = sigmoid(q - p) if typo else sigmoid(p - q)
        h = i * p + f * h
        out.append(h)
    return out


def lrn_atr():
    """bzhangGo/lrn lm/code/rnn.py ATRCell: _W [I, H], _U [H, H] used as x _W, tanh output."""
    w, w_b = gen(I, H, 0.6, 1.0), gen(1, H, 0.3, 4.0)[0]
    u, u_b = gen(H, H, 0.6, 2.5), gen(1, H, 0.3, 5.5)[0]
    h = H0.copy()
    out = []
    for t in range(T):
        x = X[t * B:(t + 1) * B]
        p = x @ w + w_b
        q = h @ u + u_b
        i = sigmoid(p + q)
        f = sigmoid(p - q)
        h = np.tanh(i * p + f * h)
        out.append(h)
    return out


def lrn_lrn():
    """bzhangGo/lrn lm/code/rnn.py LRNCell: _W [I, 3H] split into p (input gate), q (forget gate), r (value)."""
    w, w_b = gen(I, 3 * H, 0.6, 1.0), gen(1, 3 * H, 0.3, 4.0)[0]
    h = H0.copy()
    out = []
    for t in range(T):
        x = X[t * B:(t + 1) * B]
        p, q, r = np.split(x @ w + w_b, 3, axis=-1)
        i = sigmoid(p + h)
        f = sigmoid(q - h)
        h = np.tanh(i * r + f * h)
        out.append(h)
    return out


def emit(name, steps):
    """A C++ initializer: T rows of B*H values each (row t: batch 0's H values, then batch 1's)."""
    print("// %s: h_t for t = 0..%d, each row [b0 h0..h%d, b1 h0..h%d]" % (name, T - 1, H - 1, H - 1))
    print("const double k%s[%d][%d] = {" % (name, T, B * H))
    for h in steps:
        print("    {" + ", ".join("%.9f" % v for v in h.reshape(-1)) + "},")
    print("};")


if __name__ == "__main__":
    emit("AtrRepo", atr_repo())
    emit("LrnRepoAtr", lrn_atr())
    emit("LrnRepoLrn", lrn_lrn())
    emit("AtrPaperTypo", atr_repo(typo=True))
