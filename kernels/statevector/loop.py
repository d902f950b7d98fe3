"""numba: the seed's generic ``subspace_mul`` loop, for a gate on any number of qubits."""

from . import _codegen
from ._plan import require_numba_dtype, subspace_args
from ._validate import check_gate

_generated = _codegen.build("loop", [_codegen.generic_subspace_source()])


def plan(g, dtype, parallel=False):
    """(compiled loop, its arguments after the state) for the checked gate ``g``."""
    fn = _generated.subspace_generic_parallel if parallel else _generated.subspace_generic_serial
    return fn, subspace_args(g, dtype)


def run(state, g, parallel=False):
    """Apply a checked gate ``g`` with the generic loop (serial or numba-parallel)."""
    fn, args = plan(g, state.dtype, parallel)
    fn(state, *args)
    return state


def apply(state, matrix, locs, ctrl_locs=(), ctrl_vals=None):
    g = check_gate(state, matrix, locs, ctrl_locs, ctrl_vals)
    require_numba_dtype("loop", state)
    return run(state, g)
