"""AD figures: forward mode's chunk-size sweep (time against chunk, log-log, one line per
case), with the chunk forward mode picks by default marked on each line; the evals' time
over manual, per eval and size."""

from harness import ids, results
from harness.ad import eval_tables
from harness.ad.tables import MANUAL, default_chunks
from kernels.ad.problems import PROBLEMS
from reports._plot import grid, save
from reports.palette import plot_style


def chunk_figure(res, out):
    data = results.table(res, ids.AD_CHUNK)
    cases = list(dict.fromkeys(case for case, _ in data))
    fig, (ax,) = grid(1, width=7.5, height=5.0)
    for row, (problem, n) in enumerate(cases):
        points = sorted((c, t) for (case, c), t in data.items()
                        if case == (problem, n) and c != "default")
        line = ax.plot(*zip(*points), marker="o", label=f"{problem} n={n}")[0] if points \
            else None
        default = data.get(((problem, n), "default"))
        if default is None:
            continue
        # the default run's own time, drawn at the chunk it starts with
        picks = default_chunks(problem, n)
        ax.plot(picks[0], default, marker="*", markersize=16, linestyle="none",
                color=line.get_color() if line else "black", markeredgecolor="black")
        ax.annotate("default " + " then ".join(map(str, picks)), (picks[0], default),
                    textcoords="offset points", xytext=(8, 4 - 12 * row), fontsize="small")
    ax.set(xscale="log", yscale="log", xlabel="chunk (directions per pass)",
           ylabel="seconds per gradient", title="Forward mode: gradient time against chunk")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")
    # default_chunks is what the code here picks: results from an older commit may have
    # run another default, hence the caption
    return [("Forward mode's chunk sweep: minimum gradient time against chunk size; the star "
             "is the default run, drawn at the default chunk of the current code",
             save(fig, out / "ad_chunks.png"))]


def eval_figure(res, out):
    """gradbench's picture of an eval: one panel per eval (gradients, Jacobians, nested),
    each backend's derivative time over the hand-written one's against the eval's sizes
    (log scale; 1 = manual). A panel whose tools were all skipped says so."""
    data = {}
    for benchmark in (ids.EVAL_GRADIENT, ids.EVAL_JACOBIAN, ids.EVAL_NESTED):
        data.update(eval_tables.optional(res, benchmark))
    evals = list(dict.fromkeys(name for (name, _), _ in data))
    fig, axes = grid(len(evals), width=5.0, height=3.8)
    for ax, name in zip(axes, evals):
        sizes = [s for s in PROBLEMS[name].sizes if ((name, s), MANUAL) in data]
        backends = list(dict.fromkeys(b for (case, b) in data if case[0] == name))
        for b in (b for b in backends if b != MANUAL):
            points = [(i, data[(name, s), b] / data[(name, s), MANUAL])
                      for i, s in enumerate(sizes) if ((name, s), b) in data]
            if points:
                ax.plot(*zip(*points), label=b, **plot_style(b))
        ax.axhline(1.0, color="grey", linewidth=1)
        ax.set_xticks(range(len(sizes)), [str(s) for s in sizes], fontsize="small")
        output = PROBLEMS[name].output
        kind = "sparse jacobian" if output == "sparse" else output
        ax.set(yscale="log", title=f"{name} ({kind})",
               ylabel="time / manual")
        ax.grid(True, which="both", alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize="x-small", ncol=2)
        else:
            ax.text(0.5, 0.5, "every tool but manual skipped\n(past the profile's limit: "
                    "see the table)", transform=ax.transAxes, ha="center", va="center",
                    fontsize="small", color="grey")
    return [("The evals: each backend's derivative time over the hand-written derivative's, "
             "per eval and size (log scale; the grey line is manual)",
             save(fig, out / "ad_evals.png"))]
