"""ATR paper Fig. 2: the surface of sigma(x+y) - sigma(x-y) (input gate minus forget gate) for x, y in [-5, 5].
Pure math: x stands for the cell's input projection p_t, y for the history projection q_t (i = sigma(p+q),
f = sigma(p-q)); positive where the input gate is the larger of the twins."""
import numpy as np

from fig_common import plt


def twin_gate_difference(x, y):
    """sigma(x+y) - sigma(x-y), elementwise."""
    return 1.0 / (1.0 + np.exp(-(x + y))) - 1.0 / (1.0 + np.exp(-(x - y)))


def fig2(report, points=101):
    grid = np.linspace(-5.0, 5.0, points)
    x, y = np.meshgrid(grid, grid)
    z = twin_gate_difference(x, y)
    fig = plt.figure(figsize=(12, 5.2))
    ax3 = fig.add_subplot(1, 2, 1, projection="3d")
    ax3.plot_surface(x, y, z, cmap="RdBu_r", vmin=-1, vmax=1, rstride=2, cstride=2, linewidth=0, rasterized=True,
                     antialiased=True)
    ax3.set_xlabel("x")
    ax3.set_ylabel("y")
    ax3.zaxis.set_rotate_label(False)
    ax3.set_zlabel("σ(x+y) − σ(x−y)", rotation=90, labelpad=10)
    ax3.set_zlim(-1, 1)
    ax3.view_init(elev=28, azim=-125)
    ax3.set_title("surface")
    ax = fig.add_subplot(1, 2, 2)
    levels = np.linspace(-1, 1, 21)
    cs = ax.contourf(x, y, z, levels=levels, cmap="RdBu_r", vmin=-1, vmax=1)
    ax.contour(x, y, z, levels=[0.0], colors="k", linewidths=1.0)
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_aspect("equal")
    ax.set_title("top view; black: σ(x+y) = σ(x−y) (y = 0)")
    fig.colorbar(cs, ax=ax, label="input gate − forget gate", ticks=np.linspace(-1, 1, 5))
    fig.suptitle("ATR twin gates (paper Fig. 2): σ(x+y) − σ(x−y), x, y ∈ [−5, 5]")
    fig.subplots_adjust(left=0.02, right=0.95, bottom=0.1, top=0.88, wspace=0.12)
    report.save(fig, "fig2_twin_gate", [], min=float(z.min()), max=float(z.max()))
