#!/usr/bin/env python3
"""Expected best validation score as a function of the number of trials (Dodge et al. 2019, "Show your work:
improved reporting of experimental results", EMNLP; their Eq. 1 and its variance), and its figure.

With the N finished trials of a study sorted ascending, v_(1) <= ... <= v_(N), and the empirical distribution
putting 1/N on each, the maximum of n trials drawn from it with replacement has
    P(max_n <= v_(i)) = (i / N)^n,
so   E[max_n]   = sum_i v_(i) ((i/N)^n - ((i-1)/N)^n)
     E[max_n^2] = sum_i v_(i)^2 ((i/N)^n - ((i-1)/N)^n),   sd = sqrt(E[max_n^2] - E[max_n]^2).
For a score where lower is better (perplexity) the same holds for the minimum with the order reversed.
At n = 1 the expectation is the mean of the trials; as n grows it approaches the best trial.

Trials that cannot be chosen (diverged runs: tools/tune.py never repeats one as a cell's best) are d more of the
N draws, below every usable value, and the expectation is conditioned on at least one usable trial among the n:
    P(max_n <= v_(i) | some usable) = (((d + i) / N)^n - (d / N)^n) / (1 - (d / N)^n),   i = 1 .. N - d,
so at n = 1 it is the mean of the usable trials, it never exceeds the best usable one, and with d = 0 it is the
formula above. A cell whose trials diverge more often thus needs more trials for the same expected best.
"""
import math


def expected_best(values, n, higher_is_better=True, unusable=0):
    """(expected best of n trials, its standard deviation) under the empirical distribution of the usable
    trials' `values` plus `unusable` trials that are never chosen (the module's docstring)."""
    if not values:
        raise ValueError("expected_best: no trial values")
    if n < 1:
        raise ValueError(f"expected_best: n must be >= 1, got {n}")
    if unusable < 0:
        raise ValueError(f"expected_best: unusable must be >= 0, got {unusable}")
    v = sorted(values) if higher_is_better else sorted(values, reverse=True)
    big_n = len(v) + unusable
    none_usable = (unusable / big_n) ** n
    mean = second = 0.0
    for i, x in enumerate(v, unusable + 1):
        w = ((i / big_n) ** n - ((i - 1) / big_n) ** n) / (1 - none_usable)
        mean += w * x
        second += w * x * x
    return mean, math.sqrt(max(0.0, second - mean * mean))


def curve(values, n_max=None, higher_is_better=True, unusable=0):
    """[(n, mean, sd)] for n = 1 .. n_max (default: the number of trials, unusable ones included)."""
    n_max = n_max or len(values) + unusable
    return [(n, *expected_best(values, n, higher_is_better, unusable)) for n in range(1, n_max + 1)]


def fig_expected_best(groups, colours=None):
    """One panel per (space, arm): for each cell its expected best dev score against trials, ±1 sd shaded.
    groups: [(title, metric label, {cell: ([usable values], number unusable)}, budget)]. Returns the figure."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator
    cols = min(3, len(groups))
    rows = (len(groups) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.4 * rows), squeeze=False)
    for ax, (title, label, cells, budget) in zip(axes.flat, groups):
        for k, (cell, (values, unusable)) in enumerate(sorted(cells.items())):
            if not values:
                continue
            pts = curve(values, budget, unusable=unusable)
            xs = [p[0] for p in pts]
            ms = [100 * p[1] for p in pts]
            sds = [100 * p[2] for p in pts]
            colour = (colours or {}).get(cell, f"C{k % 10}")
            ax.plot(xs, ms, label=f"{cell} ({len(values)}{f' + {unusable} diverged' if unusable else ''})",
                    color=colour, lw=1.6)
            ax.fill_between(xs, [m - s for m, s in zip(ms, sds)], [m + s for m, s in zip(ms, sds)], color=colour,
                            alpha=0.12, lw=0)
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("trials (n)")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylabel(f"expected best dev {label} (%)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="lower right")
    for ax in list(axes.flat)[len(groups):]:
        ax.axis("off")
    fig.suptitle("Expected best dev score after n trials\n(Dodge et al. 2019; shaded: ±1 sd)", fontsize=9)
    fig.tight_layout()
    return fig
