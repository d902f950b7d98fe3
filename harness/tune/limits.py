"""The roofline's limits (kernels.statevector.roofline.Limits) for a run: the FMA peak and
the in-place bandwidth of each memory level, per precision, of the cores a run uses. On
one thread, as ``harness tune`` cached them for this machine, or measured now in this
process where it did not; on more, measured now on that many threads, since the cores'
sum is not one core's rate times their number where they share a level.

A state that sits in L3 is judged by a pass over a buffer of its own size
(:func:`for_state`): how fast a core reaches the L3 falls with the size, and on a
virtual machine the share of an L3 it reaches can be less than the L3 the OS reports
(a 2-core Xeon that reports 48 MiB updated 1-16 MiB in place at 39-48 GB/s, 24 MiB and
more at 18-22: the L3 yardstick, half of it, was a DRAM's, and put one-pass-per-gate
runs at 218-236% of their roofline)."""

from harness.statevector import levels
from harness.threads import numba_threads
from kernels.statevector import roofline, tuning
from kernels.statevector.codegen import peak


def limits(precisions, wanted_levels, threads=1):
    """(Limits for ``precisions`` and ``wanted_levels`` on ``threads`` threads, where they
    came from: "tuned HASH" when every one is in this machine's tuning, else "measured
    now", or "measured now on T threads")."""
    if threads > 1:
        with numba_threads(threads):
            return (roofline.Limits({p: peak.fma_rate(p, threads=threads) for p in precisions},
                                    {lv: levels.inplace_gbs(lv, threads=threads)
                                     for lv in wanted_levels}),
                    f"measured now on {threads} threads")
    tuned = tuning.load()
    keys = ([roofline.fmas_key(p) for p in precisions]
            + [roofline.gbs_key(lv) for lv in wanted_levels])
    if all(k in tuned for k in keys):
        return (roofline.Limits({p: float(tuned[roofline.fmas_key(p)]) for p in precisions},
                                {lv: float(tuned[roofline.gbs_key(lv)]) for lv in wanted_levels}),
                f"tuned {tuning.describe()}")
    return (roofline.Limits({p: peak.fma_rate(p) for p in precisions},
                            {lv: levels.inplace_gbs(lv) for lv in wanted_levels}),
            "measured now")


def for_state(precision, nbytes, threads=1):
    """(Limits, where they came from, the level the state sits in) for a run on a state of
    ``nbytes`` in ``precision`` on ``threads`` threads: the FMA peak, L2 (where a stage's
    chunks sit) and, for a state past L2, the bandwidth of its passes. That is DRAM's
    yardstick past the L3, and in L3 a buffer of the state's own size, measured now."""
    level = levels.level_of(nbytes)
    wanted = sorted({"L2", level} - {"L3"})
    found, origin = limits([precision], wanted, threads)
    if level != "L3":
        return found, origin, level
    with numba_threads(threads):
        gbs = {**found.gbs, "L3": levels.size_gbs(nbytes, threads=threads)}
    return (found._replace(gbs=gbs),
            f"{origin}; L3 on a buffer of the state's {nbytes / 2**20:.3g} MiB",
            level)
