import zlib

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
    # a quarter of the cases on a cache line (as states.py allocates), the rest 16, 32 or
    # 48 bytes off it (as a user's numpy array may be): kernels must be right at each
    state = random_state(n, rng)
    return at_offset(state, 16 * int(rng.integers(0, 4))), matrix, locs, ctrl_locs, ctrl_vals


def at_offset(state, nbytes):
    """A copy of ``state`` starting ``nbytes`` past a 64-byte boundary."""
    raw = np.empty(state.nbytes + 128, dtype=np.uint8)
    start = -raw.ctypes.data % 64 + nbytes
    out = raw[start:start + state.nbytes].view(state.dtype)
    out[:] = state
    assert out.ctypes.data % 64 == nbytes
    return out


@pytest.fixture
def rng(request):
    # one seed per test id, so every case is reproducible on its own (crc32: str hash()
    # differs from process to process)
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))
