"""Paired significance tests between systems scored on the same test set, from per-example statistics.

A run keeps one row of sufficient statistics per test example (`stats/<split>.tsv`, written by
plots/rescore.py from the run's kept outputs and the references): summing rows over any sample of examples
and applying the metric's function gives the metric of that sample, so resampling examples is exact for
corpus-level metrics (BLEU, F1) as well as for averages (accuracy, perplexity).

  kind      columns (one row per example)                          metric of the column sums
  accuracy  correct                                                mean of correct
  f1        correct gold pred  (words of a segmented sentence)     2 correct / (gold + pred)
  bleu      hyp_len ref_len m1 t1 m2 t2 m3 t3 m4 t4                BLEU-4 with the brevity penalty, in %
  ppl       logprob tokens  (natural log)                          exp(-logprob / tokens), lower is better
  squad     exact_match f1 questions  (a question's best over its  100 f1 / questions: SQuAD's official F1,
            answers, evaluate-v1.1.py's; questions is 1)           in % (exact_match's mean is its EM)

Tests (all seeded, so every number is reproducible):
  paired_bootstrap         Koehn (2004): resample examples with replacement; with several seeds per system
                           each resample also draws one seed of each system (Clark et al. 2011), so the
                           interval covers both the test sample and the training seed.
  approximate_randomization  swap the two systems' rows of each example with probability 1/2 (Riezler and
                           Maxwell 2005; Noreen 1989); `exact_randomization` enumerates every swap (small N).
  welch_t                  the seed-level test: Welch's t over the seeds' metric values.
numpy (installed with matplotlib) does the resampling.
"""
import itertools
import math

import numpy as np

COLUMNS = {
    "accuracy": ("correct",),
    "f1": ("correct", "gold", "pred"),
    "bleu": ("hyp_len", "ref_len", "m1", "t1", "m2", "t2", "m3", "t3", "m4", "t4"),
    "ppl": ("logprob", "tokens"),
    "squad": ("exact_match", "f1", "questions"),
}
HIGHER_IS_BETTER = {"accuracy": True, "f1": True, "bleu": True, "ppl": False, "squad": True}


def metric_of_sums(kind, s):
    """The metric of column sums `s` (an array whose last axis is COLUMNS[kind]); vectorised over the rest."""
    s = np.asarray(s, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        if kind == "accuracy":
            raise ValueError("accuracy needs the example count: use metric()")
        if kind == "f1":
            den = s[..., 1] + s[..., 2]
            return np.where(den > 0, 2.0 * s[..., 0] / np.where(den > 0, den, 1.0), 0.0)
        if kind == "bleu":
            hyp, ref = s[..., 0], s[..., 1]
            logp = np.zeros_like(hyp)
            zero = np.zeros(hyp.shape, dtype=bool)
            for n in range(4):
                m, t = s[..., 2 + 2 * n], s[..., 3 + 2 * n]
                zero |= (m <= 0) | (t <= 0)
                logp = logp + np.log(np.where(m > 0, m, 1.0)) - np.log(np.where(t > 0, t, 1.0))
            bp = np.where(hyp < ref, 1.0 - ref / np.where(hyp > 0, hyp, 1.0), 0.0)
            return np.where(zero | (hyp <= 0), 0.0, 100.0 * np.exp(logp / 4.0 + bp))
        if kind == "ppl":
            return np.exp(-s[..., 0] / s[..., 1])
        if kind == "squad":
            return np.where(s[..., 2] > 0, 100.0 * s[..., 1] / np.where(s[..., 2] > 0, s[..., 2], 1.0), 0.0)
    raise ValueError(f"unknown metric kind {kind!r}; known: {', '.join(COLUMNS)}")


def metric(kind, rows):
    """The metric of a [N, k] array of per-example rows."""
    rows = np.asarray(rows, dtype=float)
    if kind == "accuracy":
        return float(rows[:, 0].sum() / len(rows)) if len(rows) else 0.0
    return float(metric_of_sums(kind, rows.sum(axis=0)))


def _check(kind, groups):
    if kind not in COLUMNS:
        raise ValueError(f"unknown metric kind {kind!r}; known: {', '.join(COLUMNS)}")
    out = []
    for g in groups:
        arrs = [np.asarray(r, dtype=float) for r in (g if isinstance(g, (list, tuple)) else [g])]
        if not arrs:
            raise ValueError("a system with no runs")
        for a in arrs:
            if a.ndim != 2 or a.shape[1] != len(COLUMNS[kind]):
                raise ValueError(f"{kind} rows must be [N, {len(COLUMNS[kind])}], got {list(a.shape)}")
        out.append(arrs)
    n = {a.shape[0] for g in out for a in g}
    if len(n) != 1:
        raise ValueError(f"the runs were scored on different numbers of examples: {sorted(n)}")
    return out, n.pop()


def _sample_metric(kind, counts, rows):
    """Metric of each resample: counts [R, N] (how often each example is drawn), rows [N, k] -> [R]."""
    sums = counts @ rows
    if kind == "accuracy":
        return sums[:, 0] / counts.sum(axis=1)
    return metric_of_sums(kind, sums)


def _p_two_sided(deltas, observed):
    """Two-sided p of a bootstrap: how often the resampled difference falls on the other side of zero."""
    R = len(deltas)
    if observed == 0:
        return 1.0
    against = np.count_nonzero(deltas <= 0) if observed > 0 else np.count_nonzero(deltas >= 0)
    return min(1.0, 2.0 * (1 + against) / (R + 1))


def paired_bootstrap(kind, a, b, resamples=1000, seed=12345, chunk=200):
    """Paired bootstrap of metric(a) - metric(b). a, b: one [N, k] array each, or a list of them (one per
    seed). Returns dict(delta, ci95=(lo, hi), p, resamples): delta is the difference of the seed means; the
    95 % interval and the two-sided p come from the resampled differences."""
    (ga, gb), N = _check(kind, [a, b])
    observed = float(np.mean([metric(kind, r) for r in ga]) - np.mean([metric(kind, r) for r in gb]))
    rng = np.random.Generator(np.random.PCG64(seed))
    seed_rng = np.random.Generator(np.random.PCG64([seed, 1]))   # apart, so one seed per system resamples alike
    deltas = np.empty(resamples)
    for start in range(0, resamples, chunk):
        R = min(chunk, resamples - start)
        counts = rng.multinomial(N, np.full(N, 1.0 / N), size=R).astype(float)   # [R, N]
        ia = seed_rng.integers(0, len(ga), size=R)   # the seed of each system in each resample
        ib = seed_rng.integers(0, len(gb), size=R)
        ma = np.empty(R)
        mb = np.empty(R)
        for s in range(len(ga)):
            sel = ia == s
            if sel.any():
                ma[sel] = _sample_metric(kind, counts[sel], ga[s])
        for s in range(len(gb)):
            sel = ib == s
            if sel.any():
                mb[sel] = _sample_metric(kind, counts[sel], gb[s])
        deltas[start:start + R] = ma - mb
    lo, hi = np.percentile(deltas, [2.5, 97.5])
    return {"delta": observed, "ci95": (float(lo), float(hi)), "p": _p_two_sided(deltas, observed),
            "resamples": resamples}


def _pooled(g):
    return np.sum(g, axis=0) / len(g)   # the seeds' rows averaged: a linear pool of their statistics


def approximate_randomization(kind, a, b, trials=10000, seed=12345):
    """Approximate randomization of |metric(a) - metric(b)|: each trial swaps the two systems' rows of each
    example with probability 1/2. Several seeds per system: their rows are averaged first. Returns dict(delta,
    p, trials); p = (1 + #{|delta*| >= |delta|}) / (trials + 1)."""
    (ga, gb), N = _check(kind, [a, b])
    ra, rb = _pooled(ga), _pooled(gb)
    observed = metric(kind, ra) - metric(kind, rb)
    rng = np.random.Generator(np.random.PCG64(seed))
    hits = 0
    done = 0
    while done < trials:
        R = min(500, trials - done)
        swap = rng.integers(0, 2, size=(R, N)).astype(float)   # 1: exchange this example's rows
        ones = np.ones((R, N))
        sa = swap @ rb + (ones - swap) @ ra
        sb = swap @ ra + (ones - swap) @ rb
        if kind == "accuracy":
            d = (sa[:, 0] - sb[:, 0]) / N
        else:
            d = metric_of_sums(kind, sa) - metric_of_sums(kind, sb)
        hits += int(np.count_nonzero(np.abs(d) >= abs(observed) - 1e-12))
        done += R
    return {"delta": float(observed), "p": (1 + hits) / (trials + 1), "trials": trials}


def exact_randomization(kind, a, b):
    """The exact permutation p: every one of the 2^N swaps (N <= 20), p = #{|delta*| >= |delta|} / 2^N."""
    (ga, gb), N = _check(kind, [a, b])
    if N > 20:
        raise ValueError(f"exact randomization enumerates 2^N swaps; N = {N} is too many (use approximate)")
    ra, rb = _pooled(ga), _pooled(gb)
    observed = abs(metric(kind, ra) - metric(kind, rb))
    hits = 0
    for swap in itertools.product((0, 1), repeat=N):
        m = np.array(swap, dtype=bool)
        xa = np.where(m[:, None], rb, ra)
        xb = np.where(m[:, None], ra, rb)
        hits += abs(metric(kind, xa) - metric(kind, xb)) >= observed - 1e-12
    return hits / 2 ** N


def mean_sd(xs):
    """(mean, sample standard deviation); sd is None for a single value."""
    xs = [float(x) for x in xs]
    m = sum(xs) / len(xs)
    if len(xs) < 2:
        return m, None
    return m, math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def _betacf(a, b, x):
    """Continued fraction of the regularized incomplete beta (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        for num in (m * (b - m) * x / ((a + m2 - 1) * (a + m2)), -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def betainc(a, b, x):
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    lbeta = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1) / (a + b + 2):
        return math.exp(lbeta) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbeta) * _betacf(b, a, 1.0 - x) / b


def welch_t(xs, ys):
    """Welch's unequal-variance t test of mean(xs) - mean(ys): dict(t, df, p) with a two-sided p; None when
    either side has fewer than two values. Two constant samples with different means give p = 0."""
    if len(xs) < 2 or len(ys) < 2:
        return None
    mx, sx = mean_sd(xs)
    my, sy = mean_sd(ys)
    vx, vy = sx * sx / len(xs), sy * sy / len(ys)
    if vx + vy == 0:
        return {"t": math.inf if mx != my else 0.0, "df": float(len(xs) + len(ys) - 2), "p": 0.0 if mx != my else 1.0}
    t = (mx - my) / math.sqrt(vx + vy)
    df = (vx + vy) ** 2 / (vx * vx / (len(xs) - 1) + vy * vy / (len(ys) - 1))
    p = betainc(df / 2.0, 0.5, df / (df + t * t))
    return {"t": t, "df": df, "p": p}
