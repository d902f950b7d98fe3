"""Gates bound to a kernel ahead of time: checked and planned once, then applied many
times. This is the counterpart of a qulacs gate object (built once, then
``update_quantum_state``), and what the benchmarks time, so that every backend is timed
applying a gate it has already built; the per-call cost of the plain kernel signature,
which checks and plans on every call, is timed separately."""

import numpy as np

from . import cuda, loop, naive, stride, subspace, threaded, unrolled
from ._plan import require_numba_dtype_of
from ._validate import check_gate

_MODULES = {"naive": naive, "subspace": subspace, "loop": loop, "unrolled": unrolled,
            "stride": stride, "threaded": threaded, "cuda": cuda}


class _Shape:
    """Stands in for a state of n qubits when checking a gate before any state exists."""

    def __init__(self, n):
        self.shape = (1 << n,)


def prepare(name, n, matrix, locs, ctrl_locs=(), ctrl_vals=None, dtype=np.complex128):
    """``apply(state) -> state`` for one gate on n-qubit states of ``dtype``, using kernel
    ``name``. Invalid gates raise ValueError here, once; ``apply`` only checks that the
    state has the prepared size and dtype (ValueError, state untouched, otherwise)."""
    if name not in _MODULES:
        raise ValueError(f"unknown kernel {name!r}; known: {sorted(_MODULES)}")
    module = _MODULES[name]
    dtype = np.dtype(dtype)
    g = check_gate(_Shape(n), matrix, locs, ctrl_locs, ctrl_vals)
    shape = (1 << n,)

    def check(state):
        if state.shape != shape or state.dtype != dtype:
            raise ValueError(f"state must have shape {shape} and dtype {dtype} as prepared, "
                             f"got {state.shape} {state.dtype}")

    if hasattr(module, "plan"):  # the numba kernels: the loop and its arguments, bound now
        require_numba_dtype_of(name, dtype)
        fn, args = module.plan(g, dtype)

        def apply(state):
            check(state)
            fn(state, *args)
            return state
    else:
        kernel, m, targets, ctrls, vals = module.apply, g.matrix, g.locs, g.ctrl_locs, g.ctrl_vals

        def apply(state):
            check(state)
            return kernel(state, m, targets, ctrls, vals)
    return apply
