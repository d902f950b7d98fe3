"""numba: the seed's generic ``subspace_mul`` loop, for a gate on any number of qubits."""

from . import _codegen
from ._plan import as_matrix, require_numba_dtype, subspace_plan
from ._validate import check_gate

_generated = _codegen.build("loop", [_codegen.generic_subspace_source()])


def run(state, g, parallel=False):
    """Apply a checked gate ``g`` with the generic loop (serial or numba-parallel)."""
    fn = _generated.subspace_generic_parallel if parallel else _generated.subspace_generic_serial
    fn(state, as_matrix(g.matrix, state.dtype), *subspace_plan(g.n, g.locs, g.ctrl_locs, g.ctrl_vals))
    return state


def apply(state, matrix, locs, ctrl_locs=(), ctrl_vals=None):
    g = check_gate(state, matrix, locs, ctrl_locs, ctrl_vals)
    require_numba_dtype("loop", state)
    return run(state, g)
