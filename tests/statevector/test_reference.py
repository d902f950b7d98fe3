"""The fast reference (kernels/statevector/reference/blocked.py) against the dense oracle,
gate after gate, on random circuits drawn by hypothesis: every kind of matrix it treats
apart (dense, diagonal, a permutation with phases), controls inside and outside a window,
gates that must wait for others, gates wider than a window, runs it merges; windows made
narrow so that one circuit is many of them; and whole library circuits beyond the
oracle's size against subspace."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels.statevector import circuits, naive, subspace
from kernels.statevector._validate import check_gate_on
from kernels.statevector.reference import blocked
from kernels.statevector.states import random_state


def _matrix(draw, k):
    dim = 1 << k
    kind = draw(st.sampled_from(["dense", "diagonal", "permutation"]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(dim) + 1j * rng.standard_normal(dim)
    if kind == "diagonal":
        return np.diag(values)
    if kind == "permutation":
        out = np.zeros((dim, dim), dtype=complex)
        out[np.arange(dim), rng.permutation(dim)] = values
        return out
    return rng.standard_normal((dim, dim)) + 1j * rng.standard_normal((dim, dim))


@st.composite
def gate(draw, n):
    k = draw(st.integers(1, min(3, n)))
    n_ctrl = draw(st.integers(0, min(2, n - k)))
    qubits = draw(st.permutations(range(n)))[:k + n_ctrl]
    vals = tuple(draw(st.lists(st.integers(0, 1), min_size=n_ctrl, max_size=n_ctrl)))
    return circuits.Instruction("dense", _matrix(draw, k), tuple(qubits[:k]),
                                tuple(qubits[k:]), vals)


@st.composite
def circuit(draw):
    n = draw(st.integers(1, 8))
    return n, draw(st.lists(gate(n), min_size=1, max_size=25))


def _oracle(state, instructions):
    for inst in instructions:
        naive.apply(state, inst.matrix, inst.locs, inst.ctrl_locs, inst.ctrl_vals)
    return state


def _checked(instructions, n):
    return [check_gate_on(n, i.matrix, i.locs, i.ctrl_locs, i.ctrl_vals or None,
                          np.complex128) for i in instructions]


@settings(max_examples=150, deadline=None)
@given(circuit(), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_random_circuits_in_narrow_windows_match_the_oracle(drawn, width, seed):
    """Windows of 1 to 4 target qubits: most circuits become many windows, gates wait
    for the ones they share a qubit with, a 3-qubit gate may be wider than a window."""
    n, instructions = drawn
    start = random_state(n, np.random.default_rng(seed))
    expected = _oracle(start.copy(), instructions)
    got = start.copy()
    saved = blocked.WINDOW_QUBITS
    blocked.WINDOW_QUBITS = width
    try:
        blocked.run(got, _checked(instructions, n))
    finally:
        blocked.WINDOW_QUBITS = saved
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9 * max(1, np.abs(expected).max()))


def test_windows_keep_the_order_of_gates_that_share_a_qubit():
    """A gate that does not fit its window waits, and so does every later gate on its
    qubits (its targets or its controls); gates on other qubits may go ahead."""
    g = [circuits.gate("H", q) for q in range(4)] + [circuits.cnot(0, 3), circuits.gate("T", 3)]
    checked = _checked(g, 4)
    windows = blocked._windows(checked, 2)
    position = {id(x): i for i, (_, w) in enumerate(windows) for x in w}
    assert len(position) == len(g)  # every gate, once
    # H on 0 and 3 before the CNOT, the CNOT before T on 3
    assert position[id(checked[0])] <= position[id(checked[4])]
    assert position[id(checked[3])] <= position[id(checked[4])] <= position[id(checked[5])]
    assert all(len(span) <= 2 for span, _ in windows)


def test_runs_of_one_qubit_gates_merge_into_their_product():
    g = _checked([circuits.gate("H", 0), circuits.gate("Rz", 0, theta=0.3),
                  circuits.gate("H", 0), circuits.cnot(1, 0), circuits.gate("X", 1)], 2)
    merged = blocked._merged(g)
    assert len(merged) == 3  # H Rz H as one, then the CNOT (controlled: never merged), X
    np.testing.assert_allclose(merged[0].matrix, g[2].matrix @ g[1].matrix @ g[0].matrix)


@pytest.mark.parametrize("name", ["qft", "qv", "random", "qaoa"])
def test_library_circuits_beyond_the_oracle_match_subspace(name):
    n = 13
    instructions = circuits.LIBRARY[name].make(n, np.random.default_rng(7))
    start = random_state(n, np.random.default_rng(8))
    expected = circuits.run(subspace.apply, start.copy(), instructions)
    got = blocked.run(start.copy(), _checked(instructions, n))
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-10)


def test_it_refuses_what_it_does_not_run_before_touching_the_state():
    state = np.ones(4, dtype=np.float32)
    before = state.copy()
    with pytest.raises(NotImplementedError, match="complex128 and complex64"):
        blocked.apply(state, np.eye(2), (0,))
    np.testing.assert_array_equal(state, before)
