"""Bad input: a ValueError naming the bad argument, and the state left as it was."""

import numpy as np
import pytest

from kernels.statevector import KERNELS, gates
from kernels.statevector.states import check_fits, random_state, zero_state

BAD = [
    # (description, state shape, matrix, locs, ctrl_locs, ctrl_vals, word in the message)
    ("2-D state", (4, 4), gates.X, (0,), (), None, "state"),
    ("length not a power of two", (6,), gates.X, (0,), (), None, "state"),
    ("matrix too small for locs", (8,), gates.X, (0, 1), (), None, "matrix"),
    ("matrix not square", (8,), np.ones((2, 4)), (0,), (), None, "matrix"),
    ("loc out of range", (8,), gates.X, (3,), (), None, "locs"),
    ("negative loc", (8,), gates.X, (-1,), (), None, "locs"),
    ("repeated loc", (8,), gates.CNOT, (1, 1), (), None, "locs"),
    ("no locs", (8,), np.ones((1, 1)), (), (), None, "locs"),
    ("control out of range", (8,), gates.X, (0,), (5,), None, "ctrl_locs"),
    ("control overlaps locs", (8,), gates.X, (0,), (0,), None, "overlap"),
    ("repeated control", (8,), gates.X, (0,), (1, 1), None, "ctrl_locs"),
    ("ctrl_vals wrong length", (8,), gates.X, (0,), (1, 2), (1,), "ctrl_vals"),
    ("ctrl_vals not 0/1", (8,), gates.X, (0,), (1,), (2,), "ctrl_vals"),
    ("fractional loc", (8,), gates.X, (0.5,), (), None, "locs"),
    # numpy would cast None to nan and "1" to 1: numbers nobody wrote
    ("object matrix of non-numbers", (8,), np.array([[None, 1], [1, None]], dtype=object),
     (0,), (), None, "matrix"),
    ("object matrix of strings", (8,), np.array([["0", "1"], ["1", "0"]], dtype=object),
     (0,), (), None, "matrix"),
]


@pytest.mark.parametrize("name", list(KERNELS))
@pytest.mark.parametrize("case", BAD, ids=[c[0] for c in BAD])
def test_value_errors_leave_state_unchanged(name, case):
    _, shape, matrix, locs, ctrl_locs, ctrl_vals, word = case
    rng = np.random.default_rng(1)
    state = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape))
    before = state.copy()
    with pytest.raises(ValueError, match=word):
        KERNELS[name](state, matrix, locs, ctrl_locs, ctrl_vals)
    np.testing.assert_array_equal(state, before)


def test_scalar_locs_are_accepted():
    state = zero_state(2)
    KERNELS["stride"](state, gates.X, 1)
    assert state[2] == 1


def test_state_that_cannot_fit_is_refused_before_allocation():
    with pytest.raises(MemoryError, match=r"50 qubits .* needs 16\.0 PiB"):
        zero_state(50)
    with pytest.raises(MemoryError, match="45 qubits"):
        random_state(45, np.random.default_rng(0))
    with pytest.raises(ValueError, match="n must be"):
        check_fits(0)
