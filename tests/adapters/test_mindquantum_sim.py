"""What the mindquantum adapter promises beyond the shared contract (test_simulators.py
checks the amplitudes; test_peer_specifics the named gates, the norm check and complex64):
the X gates of controls on |0> inside the program, the norm tolerance, and set_threads
reaching mindquantum's own OpenMP runtime."""

import numpy as np
import pytest

from adapters import mindquantum_sim as mq
from kernels.statevector import circuits
from kernels.statevector.states import random_state

pytestmark = pytest.mark.skipif(not mq.AVAILABLE, reason=mq.REASON)


def test_controls_on_zero_are_x_gates_in_the_program():
    program = mq.gate(circuits.gate("Z", 2, ctrl=(0, 4), ctrl_vals=(1, 0)))
    names = [type(g).__name__ for g in program]
    assert names == ["XGate", "ZGate", "XGate"]
    assert list(program[0].obj_qubits) == [4] and list(program[1].ctrl_qubits) == [0, 4]


@pytest.mark.parametrize("dtype, ok, refused", [(np.complex128, 1e-14, 1e-9),
                                                (np.complex64, 1e-8, 1e-5)])
def test_norm_tolerance(dtype, ok, refused):
    state = random_state(4, np.random.default_rng(0))
    out = mq.to_numpy(mq.from_numpy((state * (1 + ok)).astype(dtype)))
    assert out.dtype == dtype
    np.testing.assert_allclose(out, state, rtol=0, atol=1e-12 if dtype == np.complex128 else 1e-6)
    with pytest.raises(ValueError, match="normalises"):
        mq.from_numpy((state * (1 + refused)).astype(dtype))


def test_set_threads_reaches_mindquantums_openmp():
    before = mq.threads()
    libs = mq._openmp()
    assert libs and all("mindquantum" in lib.filepath for lib in libs)  # not torch's
    try:
        mq.set_threads(2)
        assert mq.threads() == 2
        assert all(lib.num_threads == 2 for lib in mq._openmp())
    finally:
        mq.set_threads(before)
    assert mq.threads() == before
    with pytest.raises(ValueError):
        mq.set_threads(0)
