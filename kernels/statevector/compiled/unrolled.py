"""numba: the subspace loop with the 2x2, 4x4 and 8x8 products fully unrolled (generated
from one template, matrix entries held in locals); larger gates fall back to ``loop``."""

from .. import subnormals
from ..backend import Backend
from ..codegen import sources
from ..runner import PREPARED_GATES, kernel_runner
from . import loop
from ._plan import NUMBA_PRECISIONS, numba_kernel, subspace_args

BACKEND = Backend(name="unrolled", role="kernel", precisions=NUMBA_PRECISIONS,
                  runner=kernel_runner(__name__), describe=PREPARED_GATES,
                  flushes_subnormals=subnormals.OURS)

#: Gate sizes (in qubits) that get an unrolled product.
UNROLLED_QUBITS = (1, 2, 3)

_generated = sources.build(
    "unrolled", [sources.unrolled_subspace_source(k) for k in UNROLLED_QUBITS])


def plan(g, dtype, parallel=False):
    """(compiled loop, its arguments after the state) for the checked gate ``g``."""
    k = len(g.locs)
    if k not in UNROLLED_QUBITS:
        return loop.plan(g, dtype, parallel)
    d = 1 << k
    fn = getattr(_generated, f"subspace_{d}x{d}_{'parallel' if parallel else 'serial'}")
    return fn, subspace_args(g, dtype)


apply = numba_kernel("unrolled", plan)
