import numpy as np
import pytest

from kernels.statevector import CPU_KERNELS, KERNELS, circuits, gates, naive
from kernels.statevector.states import random_state, zero_state


def test_named_matrices_are_unitary_and_consistent():
    for m in (gates.X, gates.Y, gates.Z, gates.H, gates.S, gates.T, gates.Rx(0.3),
              gates.Ry(0.4), gates.Rz(0.5), gates.phase(0.6), gates.CNOT, gates.CZ,
              gates.SWAP, gates.TOFFOLI, gates.random_unitary(3, np.random.default_rng(0))):
        np.testing.assert_allclose(m @ m.conj().T, np.eye(m.shape[0]), atol=1e-12)
    np.testing.assert_allclose(gates.S @ gates.S, gates.Z)
    np.testing.assert_allclose(gates.T @ gates.T, gates.S, atol=1e-15)
    np.testing.assert_allclose(gates.Rx(np.pi), -1j * gates.X, atol=1e-15)
    np.testing.assert_allclose(gates.Rz(0.3), np.exp(-0.15j) * gates.phase(0.3), atol=1e-15)


def test_controlled_instruction_equals_dense_controlled_matrix():
    rng = np.random.default_rng(5)
    state = random_state(3, rng)
    by_ctrl = circuits.toffoli(2, 0, 1).apply(naive.apply, state.copy())
    dense = naive.apply(state.copy(), gates.TOFFOLI, (1, 2, 0))
    np.testing.assert_allclose(by_ctrl, dense, atol=1e-15)


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_qft_is_the_discrete_fourier_transform(n):
    rng = np.random.default_rng(n)
    state = random_state(n, rng)
    out = circuits.run(KERNELS["subspace"], state.copy(), circuits.qft(n))
    # QFT|x> = sum_y exp(2 pi i x y / N) |y> / sqrt(N): numpy's inverse FFT, scaled
    np.testing.assert_allclose(out, np.fft.ifft(state) * np.sqrt(1 << n), atol=1e-12)


def test_qcbm_shape_and_determinism():
    n, depth = 5, 9
    c1 = circuits.qcbm(n, np.random.default_rng(7))
    c2 = circuits.qcbm(n, np.random.default_rng(7))
    rotations = n * (2 + 3 * (depth - 2) + 2)
    assert len(c1) == rotations + n * (depth - 1)
    assert sum(i.name == "X" and i.ctrl_locs != () for i in c1) == n * (depth - 1)
    assert all(a.params == b.params for a, b in zip(c1, c2))


@pytest.mark.parametrize("name", [k for k in CPU_KERNELS if k != "naive"])
@pytest.mark.parametrize("build", ["qcbm", "qft"])
def test_circuits_run_on_every_kernel(name, build):
    n = 6
    rng = np.random.default_rng(11)
    circ = circuits.qcbm(n, rng) if build == "qcbm" else circuits.qft(n)
    state = random_state(n, rng)
    expected = circuits.run(naive.apply, state.copy(), circ)
    circuits.run(KERNELS[name], state, circ)
    np.testing.assert_allclose(state, expected, atol=1e-11)
    np.testing.assert_allclose(np.linalg.norm(state), 1.0)


def test_unknown_gate_and_missing_angle_are_refused():
    with pytest.raises(ValueError, match="unknown gate 'Q'"):
        circuits.gate("Q", 0)
    with pytest.raises(ValueError, match="Rz needs theta"):
        circuits.gate("Rz", 0)


def test_zero_state():
    s = zero_state(3)
    assert s.dtype == np.complex128 and s[0] == 1 and np.count_nonzero(s) == 1
