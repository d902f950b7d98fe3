"""Prepared gates (checked and planned once) give the same result as the kernel call."""

import numpy as np
import pytest

from kernels.statevector import CPU_KERNELS, KERNELS, gates
from kernels.statevector.prepared import prepare

from .conftest import random_case


@pytest.mark.parametrize("name", CPU_KERNELS)
def test_prepared_equals_kernel_call(name, rng):
    for n, k, n_ctrl in [(1, 1, 0), (5, 1, 2), (7, 2, 1), (8, 3, 0), (9, 4, 1)]:
        state, matrix, locs, ctrl_locs, ctrl_vals = random_case(rng, n, k, n_ctrl)
        expected = KERNELS["naive"](state.copy(), matrix, locs, ctrl_locs, ctrl_vals)
        apply = prepare(name, n, matrix, locs, ctrl_locs, ctrl_vals)
        assert apply(state) is state
        np.testing.assert_allclose(state, expected, atol=1e-12)


def test_prepared_threaded_follows_thread_count(rng, monkeypatch):
    import numba

    from kernels.statevector import threaded
    monkeypatch.setattr(threaded, "PARALLEL_THRESHOLD", 0)
    state, matrix, locs, _, _ = random_case(rng, 10, 1, 0)
    expected = KERNELS["subspace"](state.copy(), matrix, locs)
    apply = prepare("threaded", 10, matrix, locs)
    for t in (1, numba.config.NUMBA_NUM_THREADS):
        numba.set_num_threads(t)
        out = apply(state.copy())
        np.testing.assert_allclose(out, expected, atol=1e-12)
    numba.set_num_threads(1)


def test_prepare_checks_the_gate_once_and_the_state_each_call():
    with pytest.raises(ValueError, match="locs has qubit 3"):
        prepare("stride", 3, gates.X, (3,))
    with pytest.raises(ValueError, match="unknown kernel"):
        prepare("fast", 3, gates.X, (0,))
    apply = prepare("stride", 3, gates.X, (0,))
    wrong = np.zeros(16, dtype=complex)
    with pytest.raises(ValueError, match=r"shape \(8,\)"):
        apply(wrong)
    assert not wrong.any()
    with pytest.raises(ValueError, match="dtype complex128"):
        apply(np.zeros(8, dtype=np.complex64))
    with pytest.raises(NotImplementedError, match="object"):
        prepare("loop", 3, gates.X, (0,), dtype=object)
