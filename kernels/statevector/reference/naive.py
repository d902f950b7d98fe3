"""The oracle: build the dense 2**n x 2**n operator from kron products, then one matvec.

Slow and memory-hungry on purpose; every other kernel is tested against it.
"""

import numpy as np

from .._validate import check_gate
from ..backend import Backend
from ..runner import PREPARED_GATES, kernel_runner

#: Largest state the dense operator is built for: 2**12 squared complex128 is 256 MiB.
MAX_QUBITS = 12

#: The dense oracle. The precisions are the ones the suites run it in (default first);
#: being plain numpy, it also takes other element types: real states with real
#: matrices, object arrays (sympy symbols, dual numbers). Whole circuits it runs up to 10
#: qubits: above, rebuilding the operator for every gate takes minutes per circuit.
BACKEND = Backend(
    name="naive", role="reference", precisions=("complex128", "complex64"),
    runner=kernel_runner(__name__), max_qubits=MAX_QUBITS,
    max_qubits_reason=f"it builds the dense 2**n x 2**n operator (2**{MAX_QUBITS} squared "
                      "complex128 is 256 MiB)",
    circuit_max_qubits=10, flushes_subnormals="no",
    describe=PREPARED_GATES)


def controlled_block(matrix, n_ctrl, ctrl_vals):
    """The matrix on (targets, controls) as one block: identity except where the control
    bits (the high ``n_ctrl`` bits of the index) equal ``ctrl_vals``."""
    dim = matrix.shape[0]
    # real stays real (a real state takes a real gate without a complex detour), complex
    # stays complex; object arrays (symbols, dual numbers) stay objects
    dtype = np.result_type(matrix.dtype, np.float64) if matrix.dtype != object else object
    block = np.eye(dim << n_ctrl, dtype=dtype)
    sel = sum(v << i for i, v in enumerate(ctrl_vals)) * dim
    block[sel:sel + dim, sel:sel + dim] = matrix
    return block


def dense_operator(n, matrix, locs, ctrl_locs=(), ctrl_vals=()):
    """The full operator of a (controlled) gate on n qubits, as a dense matrix."""
    block = controlled_block(np.asarray(matrix), len(ctrl_locs), ctrl_vals)
    order = list(locs) + list(ctrl_locs)
    order += [q for q in range(n) if q not in order]
    # kron(I, block) acts with bit p of its index on qubit order[p]; permute the tensor
    # axes (axis a is bit n-1-a) so that bit q becomes qubit q.
    op = np.kron(np.eye(1 << (n - len(locs) - len(ctrl_locs)), dtype=block.dtype), block)
    pos = {q: p for p, q in enumerate(order)}
    axes = [n - 1 - pos[n - 1 - a] for a in range(n)]
    op = op.reshape((2,) * (2 * n)).transpose(axes + [n + a for a in axes])
    return op.reshape(1 << n, 1 << n)


def apply(state, matrix, locs, ctrl_locs=(), ctrl_vals=None):
    g = check_gate(state, matrix, locs, ctrl_locs, ctrl_vals)
    if g.n > MAX_QUBITS:
        raise NotImplementedError(
            f"naive builds a dense operator; {g.n} qubits is above its limit of {MAX_QUBITS}")
    op = dense_operator(g.n, g.matrix, g.locs, g.ctrl_locs, g.ctrl_vals)
    state[:] = op @ state
    return state
