"""numba parallel versions of ``stride`` (one qubit), ``unrolled`` (2-3 qubits) and
``loop`` (more), generated from the same templates with ``prange``.

Below :data:`PARALLEL_THRESHOLD` amplitudes, or with one numba thread, the serial
versions run: waking a thread team costs more than such a gate.
"""

import numba

from .. import subnormals, tuning
from ..backend import Backend
from ..runner import PREPARED_GATES, kernel_runner
from . import stride
from ._plan import NUMBA_PRECISIONS, numba_kernel

#: stride's loops, run in parallel on numba's threads.
BACKEND = Backend(name="threaded", role="kernel", precisions=NUMBA_PRECISIONS,
                  runner=kernel_runner(__name__), describe=PREPARED_GATES,
                  threads="numba", tuned=True, flushes_subnormals=subnormals.OURS)

#: Smallest state (in amplitudes) that is worth splitting across threads. The seed used
#: 4096. `python -m harness threshold` on the project machine (2 cores, AMD EPYC) timed
#: the parallel stride loop against the serial one for H: 1.00x at 2**12 amplitudes,
#: 1.30x at 2**14, 1.82x at 2**16; below 2**14 a thread team's wake-up eats the gain.
#: The default: ``python -m harness tune`` measures this machine's.
PARALLEL_THRESHOLD = 1 << 14
#: ... and the tuning constant (kernels.statevector.tuning) that holds this machine's.
THRESHOLD_KEY = "threaded_parallel_threshold"


def plan(g, dtype):
    """(loop, arguments) like the serial kernels' ``plan``; the loop picks the serial or
    parallel version per call, so a later change of numba's thread count is followed."""
    serial, s_args = stride.plan(g, dtype, parallel=False)
    if (1 << g.n) < tuning.value(THRESHOLD_KEY, PARALLEL_THRESHOLD):
        return serial, s_args
    # the two loops split the work differently, so each is bound to its own arguments
    parallel, p_args = stride.plan(g, dtype, parallel=True)

    def either(state):
        if numba.get_num_threads() > 1:
            return parallel(state, *p_args)
        return serial(state, *s_args)
    return either, ()


apply = numba_kernel("threaded", plan)
