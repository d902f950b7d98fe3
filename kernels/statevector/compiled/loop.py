"""numba: the seed's generic ``subspace_mul`` loop, for a gate on any number of qubits."""

from .. import subnormals
from ..backend import Backend
from ..codegen import sources
from ..runner import PREPARED_GATES, kernel_runner
from ._plan import NUMBA_PRECISIONS, numba_kernel, subspace_args

BACKEND = Backend(name="loop", role="kernel", precisions=NUMBA_PRECISIONS,
                  runner=kernel_runner(__name__), describe=PREPARED_GATES,
                  flushes_subnormals=subnormals.OURS)

_generated = sources.build("loop", [sources.generic_subspace_source()])


def plan(g, dtype, parallel=False):
    """(compiled loop, its arguments after the state) for the checked gate ``g``."""
    fn = _generated.subspace_generic_parallel if parallel else _generated.subspace_generic_serial
    return fn, subspace_args(g, dtype)


apply = numba_kernel("loop", plan)
