"""Gates bound to a kernel ahead of time: checked and planned once, then applied many
times. This is the counterpart of a qulacs gate object (built once, then
``update_quantum_state``), and what the benchmarks time, so that every backend is timed
applying a gate it has already built; the per-call cost of the plain kernel signature,
which checks and plans on every call, is timed separately."""

import numpy as np

from . import MODULES as _MODULES
from ._plan import require_numba_dtype_of
from ._validate import check_gate_on


def prepare(name, n, matrix, locs, ctrl_locs=(), ctrl_vals=None, dtype=np.complex128):
    """``apply(state) -> state`` for one gate on n-qubit states of ``dtype``, using kernel
    ``name``. Invalid gates raise ValueError here, once; ``apply`` only checks that the
    state has the prepared size and dtype (ValueError, state untouched, otherwise)."""
    if name not in _MODULES:
        raise ValueError(f"unknown kernel {name!r}; known: {sorted(_MODULES)}")
    module = _MODULES[name]
    dtype = np.dtype(dtype)
    if int(n) != n or n < 1:
        raise ValueError(f"n must be a positive number of qubits, got {n!r}")
    g = check_gate_on(int(n), matrix, locs, ctrl_locs, ctrl_vals, dtype)
    shape = (1 << int(n),)

    def refuse(state):
        raise ValueError(f"state must be a contiguous, writeable array of shape {shape} and "
                         f"dtype {dtype} as prepared, got {_describe(state)}")

    if hasattr(module, "plan"):  # the numba kernels: the loop and its arguments, bound now
        require_numba_dtype_of(name, dtype)
        fn, args = module.plan(g, dtype)

        def apply(state):
            # the checks inline: this is the call every gate benchmark times
            try:
                flags = state.flags
                ok = (state.shape == shape and state.dtype == dtype and flags.c_contiguous
                      and flags.writeable)
            except AttributeError:
                ok = False
            if not ok:
                refuse(state)
            fn(state, *args)
            return state
    else:  # naive, subspace, cuda: the kernel signature, which checks the state again
        kernel, m, targets, ctrls, vals = module.apply, g.matrix, g.locs, g.ctrl_locs, g.ctrl_vals

        def apply(state):
            if getattr(state, "shape", None) != shape or getattr(state, "dtype", None) != dtype:
                refuse(state)
            return kernel(state, m, targets, ctrls, vals)
    return apply


def _describe(state):
    shape, dtype = getattr(state, "shape", None), getattr(state, "dtype", None)
    if shape is None or dtype is None:
        return type(state).__name__
    flags = getattr(state, "flags", None)
    extra = [] if flags is None else (
        (["not contiguous"] if not flags.c_contiguous else [])
        + (["read-only"] if not getattr(flags, "writeable", True) else []))
    return " ".join([str(shape), str(dtype), *extra])
