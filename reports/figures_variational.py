"""Variational-circuit figures: gradient time over n per method and peer (log scale), and
the peak memory one gradient adds over n."""

from harness import ids, results
from reports._plot import grid, save
from reports.palette import plot_style


def _lines(ax, data):
    backends = list(dict.fromkeys(b for _, b in data))
    for b in backends:
        points = sorted((n, v) for (n, bb), v in data.items() if bb == b)
        ax.plot(*zip(*points), label=b, linestyle="-" if ":" not in b else "--",
                **plot_style(b))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small", ncol=2)


def gradient_figure(res, out):
    fig, (ax,) = grid(1, width=7.5, height=5.0)
    _lines(ax, results.table(res, ids.VARIATIONAL_GRADIENT))
    ax.set(yscale="log", xlabel="qubits n", ylabel="seconds per gradient",
           title="Gradient of the QCBM energy (25n angles), one thread")
    return [("Minimum time of one gradient against n, every method and peer (log scale)",
             save(fig, out / "variational_gradient.png"))]


def memory_figure(res, out):
    fig, (ax,) = grid(1, width=7.5, height=5.0)
    data = {k: max(v, 1e-2) for k, v in results.table(res, ids.VARIATIONAL_MEMORY).items()}
    _lines(ax, data)
    ax.set(yscale="log", xlabel="qubits n", ylabel="MiB",
           title="Peak memory one gradient adds (floored at 0.01 MiB)")
    return [("Peak resident memory added by one gradient against n (log scale)",
             save(fig, out / "variational_memory.png"))]
