"""What the numba kernels share: the dtype check and the per-gate index plan.

Plans are cached per (n, locs, controls), so a circuit that applies the same kind of
gate again and again pays for the bit arithmetic once.
"""

from functools import lru_cache

import numpy as np

from .._validate import check_gate
from ..bits import bcomspace, ctrl_offset, group_shift

#: dtype.char of complex128 and complex64, the types the numba kernels are compiled for.
NUMBA_DTYPES = "DF"
#: The same as precision names, default first: what every numba kernel declares.
NUMBA_PRECISIONS = tuple(np.dtype(char).name for char in NUMBA_DTYPES)


def require_numba_dtype(name, state):
    """NotImplementedError (before anything is touched) for states the numba kernels
    are not compiled for; object arrays belong to ``subspace``."""
    if not isinstance(state, np.ndarray):
        raise NotImplementedError(f"{name} runs on numpy arrays, not {type(state).__name__}")
    require_numba_dtype_of(name, state.dtype)


def require_numba_dtype_of(name, dtype):
    if dtype.char not in NUMBA_DTYPES:
        raise NotImplementedError(
            f"{name} handles complex128 and complex64 states, not {dtype}; "
            "use the 'subspace' kernel for other element types")


def as_matrix(matrix, dtype):
    return np.ascontiguousarray(matrix, dtype=dtype)


@lru_cache(maxsize=4096)
def subspace_plan(n, locs, ctrl_locs, ctrl_vals):
    """(offsets, masks, lens, base_off, count) for the generated subspace loops."""
    masks, lens = group_shift(locs + ctrl_locs)
    plan = (bcomspace(n, locs), np.array(masks, dtype=np.int64),
            np.array(lens, dtype=np.int64))
    for a in plan:
        a.flags.writeable = False  # shared through the cache
    return plan + (ctrl_offset(ctrl_locs, ctrl_vals), 1 << (n - len(locs) - len(ctrl_locs)))


def subspace_args(g, dtype):
    """The arguments after the state of a generated subspace loop, for checked gate ``g``."""
    return (as_matrix(g.matrix, dtype),) + subspace_plan(g.n, g.locs, g.ctrl_locs, g.ctrl_vals)


@lru_cache(maxsize=4096)
def control_masks(ctrl_locs, ctrl_vals):
    """(mask, value) for a control test ``(i & mask) == value`` (the seed's ismatch)."""
    mask = 0
    for q in ctrl_locs:
        mask |= 1 << q
    return mask, ctrl_offset(ctrl_locs, ctrl_vals)


@lru_cache(maxsize=4096)
def numba_kernel(name, plan):
    """The kernel signature for a numba kernel whose ``plan(g, dtype)`` returns its
    compiled loop and the arguments after the state: check, plan, run."""
    def apply(state, matrix, locs, ctrl_locs=(), ctrl_vals=None):
        g = check_gate(state, matrix, locs, ctrl_locs, ctrl_vals)
        require_numba_dtype(name, state)
        fn, args = plan(g, state.dtype)
        fn(state, *args)
        return state
    apply.__qualname__ = apply.__name__ = f"{name}_apply"
    return apply
