"""State-vector figures: each gate's time relative to qulacs over n (the simulator seed's
figure) beside its absolute time; effective bandwidth against the machine's copy bandwidth;
thread scaling. Each function takes the asv Results and the output folder and returns
[(caption, png file name)]."""

from harness import ids, results
from harness.statevector.tables import effective_gbs
from reports._plot import colour, grid, save

PEER = "qulacs"


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
            style = dict(marker="o", label=backend, color=colour(backend))
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
            ax.plot(*zip(*points), marker="o", label=backend, color=colour(backend))
        # above 100%: the state fits in a cache, faster than main memory
        ax.axhline(100, color="grey", linestyle="--", label="in-place update")
        _finish(ax, yscale="log", xlabel="qubits n", ylabel="% of in-place bandwidth",
                title=f"{gate}: effective bandwidth")
    caption = (f"Effective bandwidth (each amplitude read and written once, complex128) as a "
               f"percentage of the measured in-place update bandwidth, {inplace:.1f} GB/s")
    return [(caption, save(fig, out / "bandwidth.png"))]


def threads_figure(res, out):
    """Speed-up over the same backend on one thread, one line per backend and n."""
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
                ax.plot(*zip(*points), marker="os^vD"[sizes.index(n) % 5],
                        color=colour(backend), label=f"{backend} n={n}")
        ax.plot(counts, counts, color="grey", linestyle="--", label="ideal")
        _finish(ax, xlabel="threads", ylabel="speed-up vs 1 thread", xticks=counts,
                title=f"{gate}: thread scaling")
    return [("Thread scaling: speed-up of each backend over its own one-thread time",
             save(fig, out / "threads.png"))]
