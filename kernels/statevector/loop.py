"""numba: the seed's generic ``subspace_mul`` loop, for a gate on any number of qubits."""

import numpy as np

from . import _codegen
from ._plan import NUMBA_DTYPES, numba_kernel, subspace_args

#: The dtypes its loops are compiled for (default first), and where its states live.
PRECISIONS = tuple(np.dtype(char).name for char in NUMBA_DTYPES)
DEVICE = "cpu"

_generated = _codegen.build("loop", [_codegen.generic_subspace_source()])


def plan(g, dtype, parallel=False):
    """(compiled loop, its arguments after the state) for the checked gate ``g``."""
    fn = _generated.subspace_generic_parallel if parallel else _generated.subspace_generic_serial
    return fn, subspace_args(g, dtype)


apply = numba_kernel("loop", plan)
