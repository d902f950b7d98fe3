"""The prepared observable (Z-only terms summed into one diagonal) against the dense
matrix of the same Pauli sum, built term by term from Kronecker products."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels.variational import pauli

PAULIS = {"X": np.array([[0, 1], [1, 0]]), "Y": np.array([[0, -1j], [1j, 0]]),
          "Z": np.diag([1, -1]), "I": np.eye(2)}


def dense(observable, n):
    """sum c P as a matrix; qubit q is bit q of the index, so it is the q-th factor from
    the right of the Kronecker product."""
    out = np.zeros((1 << n, 1 << n), dtype=complex)
    for c, term in observable:
        op = np.eye(1)
        for q in reversed(range(n)):
            op = np.kron(op, PAULIS[term.get(q, "I")])
        out += c * op
    return out


@st.composite
def observables(draw):
    n = draw(st.integers(1, 5))
    letters = draw(st.sampled_from(["Z", "XYZ", "XY"]))  # all diagonal, mixed, none
    term = st.dictionaries(st.integers(0, n - 1), st.sampled_from(letters), min_size=1)
    return n, [(draw(st.floats(-3, 3)), draw(term)) for _ in range(draw(st.integers(1, 6)))]


@settings(max_examples=60, deadline=None)
@given(case=observables(), seed=st.integers(0, 2 ** 32 - 1))
def test_prepared_observable_matches_dense(case, seed):
    n, observable = case
    rng = np.random.default_rng(seed)
    state = rng.normal(size=1 << n) + 1j * rng.normal(size=1 << n)
    h = dense(observable, n)
    prepared = pauli.Observable(pauli.compile_observable(observable, n), n)
    want = h @ state
    np.testing.assert_allclose(prepared.apply(state), want, atol=1e-12, rtol=0)
    out = np.full_like(state, np.nan)  # every entry must be written, none added to
    np.testing.assert_allclose(prepared.apply(state, out=out), want, atol=1e-12, rtol=0)
    assert prepared.expectation(state) == pytest.approx(np.vdot(state, want).real, abs=1e-10)
    z_only = [t for _, t in observable if set(t.values()) == {"Z"}]
    assert (prepared.diagonal is None) == (not z_only)


def test_a_state_of_another_size_is_refused():
    prepared = pauli.Observable(pauli.compile_observable([(1.0, {0: "Z", 1: "Z"})], 3), 3)
    with pytest.raises(ValueError, match="prepared for 3 qubits"):
        prepared.expectation(np.zeros(4, dtype=complex))
    state = np.ones(8, dtype=complex)
    with pytest.raises(ValueError, match="another array"):
        prepared.apply(state, out=state)
