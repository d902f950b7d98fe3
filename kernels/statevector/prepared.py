"""Gates bound to a kernel ahead of time: checked and planned once, then applied many
times. This is the counterpart of a qulacs gate object (built once, then
``update_quantum_state``), and what the benchmarks time, so that every backend is timed
applying a gate it has already built; the per-call cost of the plain kernel signature,
which checks and plans on every call, is timed separately."""

import numpy as np

from . import MODULES as _MODULES
from .runner import bind_gate


def prepare(name, n, matrix, locs, ctrl_locs=(), ctrl_vals=None, dtype=np.complex128):
    """``apply(state) -> state`` for one gate on n-qubit states of ``dtype``, using kernel
    ``name``. Invalid gates raise ValueError here, once; ``apply`` only checks that the
    state has the prepared size and dtype (ValueError, state untouched, otherwise)."""
    if name not in _MODULES:
        raise ValueError(f"unknown kernel {name!r}; known: {sorted(_MODULES)}")
    return bind_gate(_MODULES[name], n, matrix, locs, ctrl_locs, ctrl_vals, dtype)
