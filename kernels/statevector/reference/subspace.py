"""Bit-subspace iteration with numpy gathers: for every block of amplitudes the gate mixes
(one per subspace index), multiply the gathered block by the matrix.

Only numpy indexing and ``@`` are used, so any element type works: complex, object
arrays of sympy expressions, dual numbers.
"""

from .._validate import check_gate
from ..backend import Backend
from ..bits import bcomspace, bsubspace, ctrl_offset
from ..runner import PREPARED_GATES, kernel_runner

#: The precisions are the ones the suites run it in (default first); as the module says,
#: any other element type works too (real, object arrays of symbols or dual numbers).
#: numpy's gathers take about 0.4 s a gate at 24 qubits: whole circuits up to 20.
BACKEND = Backend(
    name="subspace", role="kernel", precisions=("complex128", "complex64"),
    runner=kernel_runner(__name__), circuit_max_qubits=20, describe=PREPARED_GATES)


def block_indices(n, locs, ctrl_locs=(), ctrl_vals=()):
    """(2**(n-k-c), 2**k) array: row i holds the amplitudes of block i, in matrix order."""
    base = bsubspace(n, tuple(locs) + tuple(ctrl_locs)) + ctrl_offset(ctrl_locs, ctrl_vals)
    return base[:, None] + bcomspace(n, locs)[None, :]


def apply(state, matrix, locs, ctrl_locs=(), ctrl_vals=None):
    g = check_gate(state, matrix, locs, ctrl_locs, ctrl_vals)
    idx = block_indices(g.n, g.locs, g.ctrl_locs, g.ctrl_vals)
    # Rows are blocks, so the gate acts from the right: (U @ v)^T = v^T @ U^T.
    state[idx] = state[idx] @ g.matrix.T
    return state
