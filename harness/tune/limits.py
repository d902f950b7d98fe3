"""The roofline's limits (kernels.statevector.roofline.Limits) for a run: the FMA peak of
one core per precision and the in-place bandwidth of each memory level, as ``harness
tune`` cached them for this machine, or measured now in this process where it did not."""

from harness.statevector import levels
from kernels.statevector import roofline, tuning
from kernels.statevector.codegen import peak


def limits(precisions, wanted_levels):
    """(Limits for ``precisions`` and ``wanted_levels``, where they came from: "tuned
    HASH" when every one is in this machine's tuning, else "measured now")."""
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
