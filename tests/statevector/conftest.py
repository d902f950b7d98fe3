import numpy as np
import pytest

from kernels.statevector.states import random_state


def random_case(rng, n, k, n_ctrl):
    """A random state, a random k-qubit matrix (not unitary: kernels are matvecs) and
    random distinct target and control qubits, unsorted."""
    qubits = rng.permutation(n)[: k + n_ctrl].tolist()
    locs, ctrl_locs = tuple(qubits[:k]), tuple(qubits[k:])
    ctrl_vals = tuple(int(v) for v in rng.integers(0, 2, n_ctrl))
    dim = 1 << k
    matrix = rng.standard_normal((dim, dim)) + 1j * rng.standard_normal((dim, dim))
    return random_state(n, rng), matrix, locs, ctrl_locs, ctrl_vals


@pytest.fixture
def rng(request):
    # one seed per test id, so every case is reproducible on its own
    return np.random.default_rng(abs(hash(request.node.nodeid)) % (2**32))
