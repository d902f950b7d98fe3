"""states.py: allocations on a cache line, the same seeded values as before, and kernels
right on states at every offset from a line."""

import numpy as np
import pytest

from kernels.statevector import KERNELS, gates, naive, states

from .conftest import at_offset


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_states_start_on_a_cache_line(dtype):
    for n in (1, 3, 10, 17):
        for state in (states.zero_state(n, dtype), states.random_state(n, np.random.default_rng(n),
                                                                        dtype)):
            assert state.ctypes.data % states.ALIGNMENT == 0
            assert state.dtype == dtype and state.shape == (1 << n,)
            assert state.flags.c_contiguous and state.flags.writeable
    assert states.zero_state(3, dtype)[0] == 1 and not states.zero_state(3, dtype)[1:].any()


def test_random_state_values_are_the_seeded_draws():
    rng = np.random.default_rng(7)
    re, im = rng.standard_normal(16), rng.standard_normal(16)
    expected = (re + 1j * im) / np.linalg.norm(re + 1j * im)
    np.testing.assert_array_equal(states.random_state(4, np.random.default_rng(7)), expected)
    np.testing.assert_array_equal(states.random_state(4, np.random.default_rng(7), np.complex64),
                                  expected.astype(np.complex64))


def test_aligned_copies_and_casts_any_input():
    src = at_offset(np.arange(10, dtype=np.complex128), 16)
    out = states.aligned(src, np.complex64)
    assert out.ctypes.data % 64 == 0 and out.dtype == np.complex64
    np.testing.assert_array_equal(out, np.arange(10))
    out[0] = 5
    assert src[0] == 0  # a copy
    assert states.empty(0).size == 0 and states.zeros(5).sum() == 0


# The SIMD loops move 64-byte vectors: every structure path at every 16-byte offset.
CASES = [(gates.X, (2,), ()), (gates.X, (1,), (2,)), (gates.X, (0,), (1,)),
         (gates.H, (0,), ()), (gates.H, (3,), ()), (gates.T, (1,), ()), (gates.Rx(0.4), (2,), ()),
         (gates.Rz(0.9), (0,), ()), (gates.Y, (4,), (0,)), (gates.X, (0,), (1, 2))]


@pytest.mark.parametrize("name", ["stride", "threaded", "unrolled", "loop"])
@pytest.mark.parametrize("dtype, offset", [(dtype, offset)
                                           for dtype in (np.complex128, np.complex64)
                                           for offset in range(0, 64, np.dtype(dtype).itemsize)])
def test_kernels_are_right_off_a_cache_line(name, dtype, offset):
    base = states.random_state(7, np.random.default_rng(offset), dtype)
    for matrix, locs, ctrl in CASES:
        state = at_offset(base, offset)
        expected = naive.apply(base.astype(np.complex128), matrix, locs, ctrl)
        KERNELS[name](state, matrix, locs, ctrl)
        np.testing.assert_allclose(state, expected, atol=1e-5 if dtype == np.complex64 else 1e-12)
        base = states.aligned(state)
