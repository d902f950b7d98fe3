"""The roofline's limits (kernels.statevector.roofline.Limits) for a run: the FMA peak and
the in-place bandwidth of each memory level, per precision, of the cores a run uses. On
one thread, as ``harness tune`` cached them for this machine, or measured now in this
process where it did not; on more, measured now on that many threads, since the cores'
sum is not one core's rate times their number where they share a level."""

from harness.statevector import levels
from kernels.statevector import roofline, tuning
from kernels.statevector.codegen import peak


def limits(precisions, wanted_levels, threads=1):
    """(Limits for ``precisions`` and ``wanted_levels`` on ``threads`` threads, where they
    came from: "tuned HASH" when every one is in this machine's tuning, else "measured
    now", or "measured now on T threads")."""
    if threads > 1:
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
