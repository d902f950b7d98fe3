"""State-vector figures: each gate's time relative to qulacs over n (the simulator seed's
figure) beside its absolute time; each circuit's time over the fastest backend's, per
backend and precision (a heatmap); effective bandwidth against the machine's copy
bandwidth; thread scaling; distributed scaling. Each function takes the asv Results and
the output folder and returns [(caption, png file name)]."""

import numpy as np
from matplotlib.colors import LogNorm

from harness import ids, registry, results
from harness.distributed import tables as distributed_tables
from harness.distributed.scaling import SCALINGS
from harness.statevector import tables
from harness.statevector.tables import effective_gbs
from reports._plot import grid, save
from reports.palette import colour, plot_style

PEER = registry.baseline("peer").name
#: the thread figure's line style per n, in the order the sizes appear
LINES = ("-", "--", ":", "-.")
#: the heatmap's colour scale reaches its darkest at this many times the fastest, or at the
#: largest ratio shown when that is larger
HEAT_TOP = 10.0


def _ordered(values):
    """Distinct values in first-seen order (asv's parameter order: the suites' order)."""
    return list(dict.fromkeys(values))


def _series(data, gate, backend):
    """[(n, seconds)] of one gate and backend, by n."""
    return sorted((n, t) for (g, n, b), t in data.items() if g == gate and b == backend)


def _finish(ax, **labels):
    ax.set(**labels)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")


def gate_figures(res, out):
    data = results.table(res, ids.GATE_TIME)
    made = []
    for gate in _ordered(g for g, _, _ in data):
        peer = dict(_series(data, gate, PEER))
        fig, (rel, absolute) = grid(2, width=5.6, height=4.2)
        for backend in _ordered(b for g, _, b in data if g == gate):
            points = _series(data, gate, backend)
            style = dict(label=backend, **plot_style(backend))
            absolute.plot(*zip(*points), **style)
            shared = [(n, t / peer[n]) for n, t in points if n in peer]
            if backend != PEER and shared:
                rel.plot(*zip(*shared), **style)
        # the seed's figure: below the dashed line is faster than qulacs
        rel.axhline(1.0, color=colour(PEER), linestyle="--", label=f"{PEER} = 1")
        if not peer:
            rel.text(0.5, 0.5, f"no {PEER} results for {gate}", transform=rel.transAxes,
                     ha="center")
        _finish(rel, yscale="log", xlabel="qubits n", ylabel=f"time / {PEER} time",
                title=f"{gate}: time relative to {PEER}")
        _finish(absolute, yscale="log", xlabel="qubits n", ylabel="seconds",
                title=f"{gate}: minimum time per gate")
        made.append((f"{gate}: time relative to {PEER} (left) and absolute time (right) "
                     f"over n, minimum, one thread", save(fig, out / f"gate_{gate}.png")))
    return made


def bandwidth_figure(res, out):
    """Every amplitude read and written once per gate, as a percentage of the one-thread
    in-place update bandwidth that machine.MemoryBandwidth measured on the same machine
    (a gate's access pattern, the ceiling for a kernel once the state leaves the caches)."""
    data = results.table(res, ids.GATE_TIME)
    inplace = results.table(res, ids.INPLACE_BANDWIDTH)[()]
    gates = _ordered(g for g, _, _ in data)
    fig, axes = grid(len(gates))
    for ax, gate in zip(axes, gates):
        for backend in _ordered(b for g, _, b in data if g == gate):
            points = [(n, 100 * effective_gbs(n, t) / inplace)
                      for n, t in _series(data, gate, backend)]
            ax.plot(*zip(*points), label=backend, **plot_style(backend))
        # above 100%: the state fits in a cache, faster than main memory
        ax.axhline(100, color="grey", linestyle="--", label="in-place update")
        _finish(ax, yscale="log", xlabel="qubits n", ylabel="% of in-place bandwidth",
                title=f"{gate}: effective bandwidth")
    caption = (f"Effective bandwidth (each amplitude read and written once, complex128) as a "
               f"percentage of the measured in-place update bandwidth, {inplace:.1f} GB/s")
    return [(caption, save(fig, out / "bandwidth.png"))]


def threads_figure(res, out):
    """Speed-up over the same backend on one thread, one line per backend and n (the
    backend's colour and marker, a line style per n)."""
    data = results.table(res, ids.THREADS_TIME)
    gates = _ordered(g for g, _, _, _ in data)
    fig, axes = grid(len(gates))
    for ax, gate in zip(axes, gates):
        counts = sorted({t for g, _, _, t in data if g == gate})
        sizes = _ordered(n for g, n, _, _ in data if g == gate)
        for backend, n in _ordered((b, n) for g, n, b, _ in data if g == gate):
            one = data.get((gate, n, backend, 1))
            points = [(t, one / data[(gate, n, backend, t)]) for t in counts
                      if one is not None and (gate, n, backend, t) in data]
            if len(points) > 1:  # a backend timed on one thread only is a serial reference
                ax.plot(*zip(*points), linestyle=LINES[sizes.index(n) % len(LINES)],
                        label=f"{backend} n={n}", **plot_style(backend))
        ax.plot(counts, counts, color="grey", linestyle="--", label="ideal")
        _finish(ax, xlabel="threads", ylabel="speed-up vs 1 thread", xticks=counts,
                title=f"{gate}: thread scaling")
    return [("Thread scaling: speed-up of each backend over its own one-thread time",
             save(fig, out / "threads.png"))]


def circuit_figures(res, out, settings=None):
    """Rows: circuits at their largest n; columns: backends; each cell the backend's time
    over the fastest's there; a figure per precision. A cell whose settings differ from
    the rest of its backend's column (``settings``: the map tables.differing reads)
    carries a dagger."""
    made = []
    for precision, key in tables.PRECISIONS["circuit"]:
        backends, found = tables.over_fastest(tables.table_of(res, key),
                                              tables.backend_order(res, key))
        if not found:
            continue
        marks = {b: tables.differing([(name, (key, (name, n, b)))
                                      for name, (n, _, _, r) in found.items() if b in r],
                                     settings) for b in backends}
        fig, (ax,) = grid(1, width=max(6.5, 0.62 * len(backends) + 3.2),
                          height=max(3.0, 0.42 * len(found) + 1.9))
        _heatmap(fig, ax, backends, found, marks)
        ax.set_title(f"{precision}: time / fastest")
        made.append((f"{precision}: each circuit's minimum time on every backend over the "
                     "fastest backend's, at the circuit's largest n (1 = the fastest; - = "
                     f"not run at that n; {tables.MARK}: settings differ from the rest of "
                     "that backend's column, see the table's footnotes)",
                     save(fig, out / f"circuits_{precision}.png")))
    return made


def _heatmap(fig, ax, backends, found, marks):
    values = np.array([[r.get(b, np.nan) for b in backends] for _, _, _, r in found.values()])
    top = max(HEAT_TOP, np.nanmax(values))
    norm = LogNorm(1.0, top)
    image = ax.imshow(values, cmap=_heat_colours(), norm=norm, aspect="auto")
    for i, name in enumerate(found):
        for j, backend in enumerate(backends):
            value = values[i, j]
            text = "-" if np.isnan(value) else f"{value:.3g}"
            dark = not np.isnan(value) and norm(value) > 0.55
            ax.text(j, i, text + (tables.MARK if name in marks[backend] else ""),
                    ha="center", va="center", fontsize="small",
                    fontweight="bold" if value == 1 else "normal",
                    color="white" if dark else "black")
    ax.set_xticks(range(len(backends)), backends, rotation=45, ha="right")
    ax.set_yticks(range(len(found)), [f"{name} n={n}" for name, (n, *_) in found.items()])
    bar = fig.colorbar(image, ax=ax, label="time / fastest", shrink=0.8)
    ticks = [t for t in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000) if t <= top]
    bar.set_ticks(ticks, labels=[str(t) for t in ticks])
    bar.minorticks_off()


def _heat_colours():
    """Light for the fastest, dark for the slowest; cells with no result are grey."""
    from matplotlib import colormaps
    return colormaps["YlOrRd"].with_extremes(bad="#eeeeee")


def distributed_figure(res, out):
    """Strong and weak scaling of the distributed backends: per scaling, the speed-up
    (strong) or efficiency (weak) against ranks, one line per circuit and backend (the
    backend's colour and marker, a line style per circuit), with the ideal."""
    rows = distributed_tables.rows(res)
    fig, axes = grid(len(SCALINGS))
    for ax, scaling in zip(axes, SCALINGS):
        mine = [r for r in rows if r[0] == scaling and r[7] is not None]
        ranks = sorted({r[4] for r in mine})
        circuits = _ordered(r[1] for r in mine)
        for circuit, backend in _ordered((r[1], r[3]) for r in mine):
            points = [(r[4], r[7] if scaling == "strong" else r[8]) for r in mine
                      if r[1] == circuit and r[3] == backend]
            # the backend's colour and marker, a line style per circuit
            ax.plot(*zip(*sorted(points)), label=f"{circuit} ({backend})",
                    linestyle=LINES[circuits.index(circuit) % len(LINES)],
                    **plot_style(backend))
        if ranks:
            ideal = ranks if scaling == "strong" else [1.0] * len(ranks)
            ax.plot(ranks, ideal, color="grey", linestyle="--", label="ideal")
        _finish(ax, xlabel="MPI ranks", xticks=ranks,
                ylabel="speed-up vs 1 rank" if scaling == "strong" else "efficiency",
                title=f"{scaling} scaling")
        ax.set_ylim(bottom=0)  # a loss of efficiency shown at its size
    return [("Distributed state vectors: strong scaling's speed-up (the same n) and weak "
             "scaling's efficiency (one slice size per rank) against MPI ranks, each "
             "backend against its own time on one rank: a slow backend scales easily, so "
             "read the times in the table below",
             save(fig, out / "distributed.png"))]
