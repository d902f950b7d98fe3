"""Every CPU kernel against the dense reference (``naive``), on seeded random cases."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels.statevector import CPU_KERNELS, KERNELS, gates, naive
from kernels.statevector._validate import check_gate
from kernels.statevector.codegen import groups
from kernels.statevector.compiled import stride
from kernels.statevector.states import random_state

from .conftest import random_case

FAST = [k for k in CPU_KERNELS if k != "naive"]


def reference(state, matrix, locs, ctrl_locs=(), ctrl_vals=None):
    return naive.apply(state.copy(), matrix, locs, ctrl_locs, ctrl_vals)


@pytest.mark.parametrize("name", FAST)
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 10), k=st.integers(1, 3),
       n_ctrl=st.integers(0, 2))
def test_random_gates_match_dense_reference(name, seed, n, k, n_ctrl):
    if k + n_ctrl > n:
        n_ctrl = max(0, n - k)
        k = min(k, n)
    rng = np.random.default_rng(seed)
    state, matrix, locs, ctrl_locs, ctrl_vals = random_case(rng, n, k, n_ctrl)
    expected = reference(state, matrix, locs, ctrl_locs, ctrl_vals)
    out = KERNELS[name](state, matrix, locs, ctrl_locs, ctrl_vals)
    assert out is state, "kernels update in place and return the state"
    np.testing.assert_allclose(state, expected, atol=1e-12)


# The structure-specialised paths of `stride` (and the threaded copies of them), on every
# target qubit including the highest, with and without controls on 0 and on 1.
NAMED = {"X": gates.X, "Y": gates.Y, "Z": gates.Z, "H": gates.H, "S": gates.S, "T": gates.T,
         "Rx": gates.Rx(0.3), "Rz": gates.Rz(1.1), "phase": gates.phase(-0.7)}


@pytest.mark.parametrize("name", FAST)
@pytest.mark.parametrize("gate", sorted(NAMED))
@pytest.mark.parametrize("ctrl", [(), ((0,), (1,)), ((0,), (0,)), ((7, 2), (1, 0))])
def test_named_gates_every_target(name, gate, ctrl, rng):
    n = 8
    ctrl_locs, ctrl_vals = ctrl if ctrl else ((), None)
    for loc in range(n):
        if loc in ctrl_locs:
            continue
        state = random_state(n, rng)
        expected = reference(state, NAMED[gate], (loc,), ctrl_locs, ctrl_vals)
        KERNELS[name](state, NAMED[gate], (loc,), ctrl_locs, ctrl_vals)
        np.testing.assert_allclose(state, expected, atol=1e-12, err_msg=f"loc={loc}")


@pytest.mark.parametrize("name", FAST)
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 11, 13])
def test_large_strides_and_small_states(name, n, rng):
    """Every stride the generated loops special-case (1, 2, 4, blocks of 8, few blocks),
    up to the highest qubit, on states from one qubit to past naive's reach."""
    for loc in range(n):
        state = random_state(n, rng)
        matrix = gates.random_unitary(1, rng)
        expected = KERNELS["subspace"](state.copy(), matrix, (loc,))
        if n <= naive.MAX_QUBITS:
            np.testing.assert_allclose(expected, reference(state, matrix, (loc,)), atol=1e-12)
        KERNELS[name](state, matrix, (loc,))
        np.testing.assert_allclose(state, expected, atol=1e-12)


@pytest.mark.parametrize("name", FAST)
def test_gates_larger_than_unrolled(name, rng):
    """A 4- and 5-qubit gate goes through the generic loop."""
    for k in (4, 5):
        state, matrix, locs, ctrl_locs, ctrl_vals = random_case(rng, 7, k, 1)
        expected = reference(state, matrix, locs, ctrl_locs, ctrl_vals)
        KERNELS[name](state, matrix, locs, ctrl_locs, ctrl_vals)
        np.testing.assert_allclose(state, expected, atol=1e-12)


@pytest.mark.parametrize("name", [k for k in FAST if k != "subspace"])
def test_complex64(name, rng):
    state, matrix, locs, ctrl_locs, ctrl_vals = random_case(rng, 6, 2, 1)
    expected = reference(state, matrix, locs, ctrl_locs, ctrl_vals)
    small = state.astype(np.complex64)
    KERNELS[name](small, matrix, locs, ctrl_locs, ctrl_vals)
    assert small.dtype == np.complex64
    np.testing.assert_allclose(small, expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", ["loop", "unrolled", "stride", "threaded"])
def test_numba_kernels_refuse_other_dtypes_untouched(name):
    state = np.array([1.0, 0.0, 0.0, 0.0])
    with pytest.raises(NotImplementedError, match="float64"):
        KERNELS[name](state, gates.X, (0,))
    assert state.tolist() == [1.0, 0.0, 0.0, 0.0]


def test_naive_refuses_large_states_before_building():
    state = np.zeros(1 << (naive.MAX_QUBITS + 1), dtype=complex)
    with pytest.raises(NotImplementedError, match="13 qubits"):
        naive.apply(state, gates.X, (0,))


def test_threaded_parallel_path_matches_serial(rng, monkeypatch):
    """Force the parallel versions on (threshold 0) so they are tested on small states."""
    import numba

    from kernels.statevector import threaded
    monkeypatch.setattr(threaded, "PARALLEL_THRESHOLD", 0)
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    for n in (1, 4, 9, 12):
        for k in (1, 2, 3):
            if k > n:
                continue
            for n_ctrl in (0, 1):
                if k + n_ctrl > n:
                    continue
                state, matrix, locs, ctrl_locs, ctrl_vals = random_case(rng, n, k, n_ctrl)
                expected = KERNELS["subspace"](state.copy(), matrix, locs, ctrl_locs, ctrl_vals)
                KERNELS["threaded"](state, matrix, locs, ctrl_locs, ctrl_vals)
                np.testing.assert_allclose(state, expected, atol=1e-12)


def _group_case(rng, dtype, locs, ctrl_locs, ctrl_vals, n, parallel):
    """stride's group loop (serial or parallel) on one gate against naive."""
    state = random_state(n, rng).astype(dtype)
    matrix = gates.random_unitary(len(locs), rng)
    expected = reference(state.astype(np.complex128), matrix, locs, ctrl_locs, ctrl_vals)
    g = check_gate(state, matrix, locs, ctrl_locs, ctrl_vals)
    fn, args = stride.group_plan(g, state.dtype, parallel)
    fn(state, *args)
    np.testing.assert_allclose(state, expected, atol=2e-5 if dtype == np.complex64 else 1e-12)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize("parallel", [False, True])
def test_every_group_variant_matches_the_reference(dtype, parallel, rng):
    """Each split of a two- or three-qubit gate between the lanes of a vector and the
    vectors (codegen/groups.py's VARIANTS for this precision), in both loops: the lane
    targets in their order and reversed, the others above the lanes."""
    v = groups.VECTOR_BITS[np.dtype(dtype).char]
    n = v + 4
    for vv, mask, count in groups.VARIANTS:
        if vv != v:
            continue
        low = [q for q in range(v) if mask >> q & 1]
        high = list(range(v, v + count.bit_length() - 1))
        for locs in (low + high, (high + low)[::-1]):
            _group_case(rng, dtype, tuple(locs), (), None, n, parallel)


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), single=st.booleans(), k=st.integers(2, 3),
       n_ctrl=st.integers(0, 2), n=st.integers(3, 9), parallel=st.booleans())
def test_groups_of_vectors_with_controls_anywhere(seed, single, k, n_ctrl, n, parallel):
    """Targets and controls (either value) on random qubits: among a vector's lanes,
    above them, or both."""
    rng = np.random.default_rng(seed)
    dtype = np.complex64 if single else np.complex128
    n_ctrl = min(n_ctrl, n - k)
    qubits = [int(q) for q in rng.permutation(n)[:k + n_ctrl]]
    vals = tuple(int(x) for x in rng.integers(0, 2, n_ctrl))
    _group_case(rng, dtype, tuple(qubits[:k]), tuple(qubits[k:]), vals, n, parallel)
