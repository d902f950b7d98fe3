"""The circuit library: its contract (names, sizes, determinism, valid instructions) and the
meaning of each circuit, tested without qiskit (test_library_qiskit.py compares with
qiskit's own library)."""

import hashlib
import itertools

import numpy as np
import pytest

from kernels.statevector import CPU_KERNELS, KERNELS, circuits, naive
from kernels.statevector._validate import check_instruction
from kernels.statevector.circuits import LIBRARY
from kernels.statevector.states import random_state, zero_state

NAMES = ("qcbm", "qft", "iqft", "ghz", "simon", "hidden_shift", "qaoa", "qpe", "qv", "random",
         "heisenberg")
RANDOM = ("qcbm", "simon", "hidden_shift", "qaoa", "qpe", "qv", "random")
NAMED_GATES = {"X", "Y", "Z", "H", "S", "T", "Rx", "Ry", "Rz", "phase", "SWAP", "dense"}
MINIMUM = {"qcbm": 1, "qft": 1, "iqft": 1, "ghz": 2, "simon": 4, "hidden_shift": 2,
           "qaoa": 2, "qpe": 2, "qv": 2, "random": 1, "heisenberg": 2}
EVEN = {"simon", "hidden_shift"}
SMALL = [(name, n) for name in NAMES for n in range(1, 9) if LIBRARY[name].accepts(n)]


def make(name, n, seed=0):
    return LIBRARY[name](n, np.random.default_rng(seed))


def run_naive(circuit, state):
    return circuits.run(naive.apply, state.copy(), circuit)


def probabilities(state):
    return np.abs(state) ** 2


def key(inst):
    """Everything an instruction says, comparable with ==."""
    return (inst.name, inst.locs, inst.ctrl_locs, inst.ctrl_vals, inst.params,
            inst.matrix.tobytes())


def test_the_names_are_cuquantums_set_qcbm_and_heisenberg():
    assert tuple(LIBRARY) == NAMES
    for name, entry in LIBRARY.items():
        assert entry.name == name and callable(entry) and entry.make == entry.__call__
        assert entry.description and "\n" not in entry.description and entry.source


@pytest.mark.parametrize("name, n", SMALL)
def test_instructions_are_valid_named_gates_on_exactly_n_qubits(name, n):
    circuit = make(name, n)
    assert circuit and all(isinstance(i, circuits.Instruction) for i in circuit)
    for inst in circuit:
        check_instruction(inst, n)
        assert inst.name in NAMED_GATES
        assert inst.name != "dense" or not inst.ctrl_locs
        assert inst.matrix.dtype == np.complex128
        np.testing.assert_allclose(inst.matrix @ inst.matrix.conj().T,
                                   np.eye(len(inst.matrix)), atol=1e-12)
    touched = {q for i in circuit for q in i.locs + i.ctrl_locs}
    if name == "qv" and n % 2:
        assert touched <= set(range(n))  # one qubit idles in each layer: may never be hit
    else:
        assert touched == set(range(n))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("n", [12, 20])
def test_large_sizes_build_valid_circuits(name, n):
    for inst in make(name, n):
        check_instruction(inst, n)


@pytest.mark.parametrize("name", NAMES)
def test_deterministic_for_a_seed_and_random_ones_differ_across_seeds(name):
    n = 8
    first, again = make(name, n, seed=3), make(name, n, seed=3)
    assert [key(i) for i in first] == [key(i) for i in again]
    others = [[key(i) for i in make(name, n, seed)] for seed in range(4, 8)]
    if name in RANDOM:
        assert all(o != [key(i) for i in first] for o in others)
    else:
        assert all(o == [key(i) for i in first] for o in others)


@pytest.mark.parametrize("name", NAMES)
def test_sizes_below_the_minimum_and_bad_arguments_raise_valueerror(name):
    entry = LIBRARY[name]
    assert entry.min_qubits == MINIMUM[name]
    rng = np.random.default_rng(0)
    for n in (-1, 0, *range(1, MINIMUM[name])):
        with pytest.raises(ValueError, match=rf"n = {n} is refused by {name}"):
            entry(n, rng)
        assert not entry.accepts(n)
    if name in EVEN:
        for n in (5, 7, 9):
            with pytest.raises(ValueError, match=rf"n = {n} .*needs an even n"):
                entry(n, rng)
    for bad in (4.0, "4", True, None):
        with pytest.raises(ValueError, match="n must be an integer"):
            entry(bad, rng)
    for bad in (None, 3, np.random.RandomState(0)):
        with pytest.raises(ValueError, match="rng must be a numpy Generator"):
            entry(6, bad)
    assert entry.accepts(np.int64(6)) and len(entry(np.int64(6), rng)) > 0


def test_every_size_from_the_minimum_up_is_accepted():
    for name in NAMES:
        step = 2 if name in EVEN else 1
        assert all(LIBRARY[name].accepts(n) for n in range(MINIMUM[name], 40, step))


@pytest.mark.parametrize("n", range(1, 9))
def test_qcbm_and_qft_entries_are_the_existing_builders(n):
    mine = LIBRARY["qcbm"](n, np.random.default_rng(n))
    assert [key(i) for i in mine] == [key(i) for i in circuits.qcbm(n, np.random.default_rng(n))]
    assert [key(i) for i in make("qft", n)] == [key(i) for i in circuits.qft(n)]


def fingerprint(circuit):
    h = hashlib.sha256()
    for i in circuit:
        h.update(repr((i.name, tuple(map(int, i.locs)), tuple(map(int, i.ctrl_locs)),
                       tuple(map(int, i.ctrl_vals)), tuple(map(float, i.params)))).encode())
    return h.hexdigest()[:16]


def test_qcbm_and_qft_output_is_unchanged():
    # digests of the circuits that circuits.py built before the library existed (the
    # regression gate and the variational problem depend on them staying the same)
    assert fingerprint(circuits.qcbm(5, np.random.default_rng(7))) == "b2fc8ded28defeaa"
    assert fingerprint(circuits.qcbm(4, np.random.default_rng(3), 3)) == "d72ad6ed77a96dc2"
    assert fingerprint(circuits.qft(6)) == "47d8556e41de49cc"


# --- what each circuit means -------------------------------------------------------------


@pytest.mark.parametrize("n", range(2, 9))
def test_ghz_from_zero_is_the_ghz_state(n):
    expected = np.zeros(1 << n, dtype=complex)
    expected[0] = expected[-1] = 1 / np.sqrt(2)
    np.testing.assert_allclose(run_naive(make("ghz", n), zero_state(n)), expected, atol=1e-12)


@pytest.mark.parametrize("n", range(1, 9))
def test_qft_from_zero_is_uniform_and_iqft_is_the_inverse_dft(n):
    out = run_naive(make("qft", n), zero_state(n))
    np.testing.assert_allclose(out, np.full(1 << n, 2 ** (-n / 2)), atol=1e-12)
    state = random_state(n, np.random.default_rng(n))
    # iqft: sum_y exp(2 pi i x y / N) |y> / sqrt(N) -> |x>, i.e. numpy's forward FFT scaled
    np.testing.assert_allclose(run_naive(make("iqft", n), state),
                               np.fft.fft(state) / np.sqrt(1 << n), atol=1e-12)
    np.testing.assert_allclose(run_naive(make("iqft", n), run_naive(make("qft", n), state)),
                               state, atol=1e-12)


def input_distribution(state, m):
    """Probabilities of the low m qubits (the inputs), summed over the rest."""
    return probabilities(state).reshape(-1, 1 << m).sum(axis=0)


def dot(y, bits):
    return sum(b for j, b in enumerate(bits) if y >> j & 1) % 2


def secrets_consistent_with(support, m):
    """Every nonzero m-bit string s with y . s = 0 for every y in ``support``."""
    return [s for s in itertools.product((0, 1), repeat=m)
            if any(s) and all(dot(y, s) == 0 for y in support)]


@pytest.mark.parametrize("m", [2, 3])
def test_simon_measures_only_strings_orthogonal_to_its_secret(m):
    for secret in itertools.product((0, 1), repeat=m):
        if not any(secret):
            continue
        dist = input_distribution(run_naive(circuits.simon(secret), zero_state(2 * m)), m)
        orthogonal = [y for y in range(1 << m) if dot(y, secret) == 0]
        expected = np.zeros(1 << m)
        expected[orthogonal] = 1 / len(orthogonal)
        np.testing.assert_allclose(dist, expected, atol=1e-12)


@pytest.mark.parametrize("n", [4, 6, 8])
@pytest.mark.parametrize("seed", range(3))
def test_simon_entries_reveal_the_secret_they_were_built_from(n, seed):
    circuit = make("simon", n, seed)
    m = n // 2
    dist = input_distribution(run_naive(circuit, zero_state(n)), m)
    support = [y for y in range(1 << m) if dist[y] > 1e-9]
    found = secrets_consistent_with(support, m)
    assert len(found) == 1 and len(support) == 1 << (m - 1)
    assert [key(i) for i in circuit] == [key(i) for i in circuits.simon(found[0])]


@pytest.mark.parametrize("n", [2, 4])
def test_hidden_shift_gives_its_shift_with_certainty(n):
    for shift in itertools.product((0, 1), repeat=n):
        out = run_naive(circuits.hidden_shift(shift), zero_state(n))
        index = sum(b << j for j, b in enumerate(shift))
        assert probabilities(out)[index] == pytest.approx(1, abs=1e-12)


@pytest.mark.parametrize("n", [2, 4, 6, 8])
@pytest.mark.parametrize("seed", range(3))
def test_hidden_shift_entries_reveal_the_shift_they_were_built_from(n, seed):
    circuit = make("hidden_shift", n, seed)
    prob = probabilities(run_naive(circuit, zero_state(n)))
    index = int(np.argmax(prob))
    assert prob[index] == pytest.approx(1, abs=1e-12)
    shift = [index >> j & 1 for j in range(n)]
    assert [key(i) for i in circuit] == [key(i) for i in circuits.hidden_shift(shift)]


@pytest.mark.parametrize("t", range(1, 7))
def test_qpe_of_an_exact_phase_writes_its_bits_in_the_counting_register(t):
    for k in range(0, 1 << t, 1 if t < 5 else 7):    # every k up to 4 counting qubits
        out = run_naive(circuits.qpe(t, k / (1 << t)), zero_state(t + 1))
        # counting register = k, eigenstate qubit t = |1>; amplitude 1, phase included
        assert out[k + (1 << t)] == pytest.approx(1, abs=1e-12)


def qpe_phase(circuit):
    """The phase the entry drew: U = phase(2 pi phase) is controlled by counting qubit 0."""
    (theta,) = next(i.params for i in circuit if i.ctrl_locs == (0,) and i.name == "phase")
    return theta / (2 * np.pi)


@pytest.mark.parametrize("n", range(2, 9))
def test_qpe_entries_estimate_their_phase(n):
    t = n - 1
    circuit = make("qpe", n, seed=n)
    phase = qpe_phase(circuit)
    prob = probabilities(run_naive(circuit, zero_state(n)))
    assert prob[1 << t:].sum() == pytest.approx(1, abs=1e-12)   # the eigenstate stays
    best = int(np.argmax(prob[1 << t:]))
    assert best == round(phase * (1 << t)) % (1 << t)
    assert prob[(1 << t) + best] >= 4 / np.pi**2


def qaoa_parameters(circuit, n):
    """Graph and angles of a QAOA entry: CNOT(u, v) Rz(gamma)_v CNOT(u, v) per edge, Rx(2 beta)."""
    edges = [i.ctrl_locs + i.locs for i, nxt in zip(circuit, circuit[1:])
             if i.name == "X" and i.ctrl_locs and nxt.name == "Rz"]
    (gamma,) = {i.params[0] for i in circuit if i.name == "Rz"}
    (beta,) = {i.params[0] / 2 for i in circuit if i.name == "Rx"}
    return edges, gamma, beta


def qaoa_state(n, edges, gamma, beta):
    """exp(-i beta sum X) exp(-i gamma/2 sum_edges Z_u Z_v) |+...+>, computed directly."""
    z = 1 - 2 * ((np.arange(1 << n)[:, None] >> np.arange(n)) & 1)    # Z eigenvalues
    cost = sum(z[:, u] * z[:, v] for u, v in edges)
    state = np.exp(-0.5j * gamma * cost) / np.sqrt(1 << n)
    rx = np.array([[np.cos(beta), -1j * np.sin(beta)], [-1j * np.sin(beta), np.cos(beta)]])
    psi = state.reshape((2,) * n)     # axis a is qubit n-1-a
    for axis in range(n):
        psi = np.moveaxis(np.tensordot(rx, psi, axes=(1, axis)), 0, axis)
    return psi.reshape(-1)


@pytest.mark.parametrize("n", range(2, 9))
def test_qaoa_is_p1_maxcut_on_a_random_graph(n):
    circuit = make("qaoa", n, seed=n)
    edges, gamma, beta = qaoa_parameters(circuit, n)
    assert edges and len(set(edges)) == len(edges) and all(u < v < n for u, v in edges)
    assert len(circuit) == 2 * n + 3 * len(edges)
    assert -np.pi <= gamma <= np.pi and -np.pi <= beta <= np.pi
    np.testing.assert_allclose(run_naive(circuit, zero_state(n)),
                               qaoa_state(n, edges, gamma, beta), atol=1e-12)


def test_qaoa_graphs_vary_with_the_seed():
    graphs = {tuple(qaoa_parameters(make("qaoa", 6, seed), 6)[0]) for seed in range(5)}
    assert len(graphs) == 5


@pytest.mark.parametrize("n", range(2, 9))
def test_qv_is_n_layers_of_su4_blocks_on_disjoint_pairs(n):
    circuit = make("qv", n, seed=n)
    width = n // 2
    assert len(circuit) == n * width
    for layer in range(n):
        blocks = circuit[layer * width:(layer + 1) * width]
        qubits = [q for b in blocks for q in b.locs]
        assert len(set(qubits)) == 2 * width
        for b in blocks:
            assert b.name == "dense" and len(b.locs) == 2
            assert np.linalg.det(b.matrix) == pytest.approx(1, abs=1e-12)


@pytest.mark.parametrize("n", range(1, 9))
def test_random_has_depth_n_layers_covering_every_qubit(n):
    circuit = make("random", n, seed=n)
    assert sum(len(i.locs + i.ctrl_locs) for i in circuit) == n * n
    assert all(i.name in {"H", "X", "Rx", "Ry", "Rz", "SWAP"} or
               (i.name in {"X", "Z"} and len(i.ctrl_locs) == 1) for i in circuit)


# --- every library circuit on every CPU kernel ------------------------------------------------


@pytest.mark.parametrize("kernel", [k for k in CPU_KERNELS if k != "naive"])
@pytest.mark.parametrize("name", NAMES)
def test_library_circuits_run_on_every_kernel(kernel, name):
    n = 6
    circuit = make(name, n, seed=11)
    state = random_state(n, np.random.default_rng(11))
    expected = run_naive(circuit, state)
    circuits.run(KERNELS[kernel], state, circuit)
    np.testing.assert_allclose(state, expected, atol=1e-11)


def test_builders_refuse_bad_parameters():
    with pytest.raises(ValueError, match="secret must have at least 2 bits"):
        circuits.simon([1])
    with pytest.raises(ValueError, match="secret must hold bits"):
        circuits.simon([1, 2])
    with pytest.raises(ValueError, match="shift must have an even number"):
        circuits.hidden_shift([1, 0, 1])
    with pytest.raises(ValueError, match="counting must be a positive"):
        circuits.qpe(0, 0.25)
    with pytest.raises(ValueError, match="phase must be a finite"):
        circuits.qpe(3, float("nan"))
    with pytest.raises(ValueError, match="edges must be pairs"):
        circuits.qaoa(3, [(0, 3)], 0.1, 0.2)
    with pytest.raises(ValueError, match="edges must be pairs"):
        circuits.qaoa(3, [(1, 1)], 0.1, 0.2)


def test_heisenberg_keeps_the_neel_states_magnetisation():
    n = 6
    state = np.zeros(1 << n, complex)
    state[0] = 1
    out = run_naive(make("heisenberg", n), state)
    ones = np.array([bin(i).count("1") for i in range(1 << n)])
    assert np.max(np.abs(out[ones != n // 2])) < 1e-12
    assert np.sum(np.abs(out[ones == n // 2]) ** 2) == pytest.approx(1)
    assert abs(out[0b101010]) < 0.99  # it moved off the Neel state


@pytest.mark.parametrize("pauli", ["X", "Y", "Z"])
def test_each_bond_term_is_its_pauli_rotation(pauli):
    from kernels.statevector.circuits import _library
    columns = []
    for j in range(4):
        basis = np.zeros(4, complex)
        basis[j] = 1
        columns.append(run_naive(_library._pauli_pair(pauli, 0.3, 0, 1), basis))
    expected = circuits.pauli_rotation(f"R{pauli.lower() * 2}", 0.3, 0, 1).matrix
    np.testing.assert_allclose(np.array(columns).T, expected, atol=1e-14)
