"""The library's circuits against qiskit's ``Statevector`` of the same circuit built with
qiskit's own library (QFTGate, phase_estimation, qaoa_ansatz, UnitaryGate) or, where qiskit
has none, from the definition with qiskit's named gates. Amplitudes are compared exactly,
global phase included. Qubit q of ours is qubit q of qiskit's (both little-endian)."""

import numpy as np
import pytest

qiskit = pytest.importorskip("qiskit")

from qiskit import QuantumCircuit  # noqa: E402
from qiskit.circuit import library as qlib  # noqa: E402
from qiskit.quantum_info import SparsePauliOp, Statevector  # noqa: E402

from kernels.statevector import circuits, naive  # noqa: E402
from kernels.statevector.circuits import LIBRARY  # noqa: E402
from kernels.statevector.states import random_state  # noqa: E402

from .test_library import NAMES, qaoa_parameters, qpe_phase  # noqa: E402

ATOL = 1e-10

FIXED = {"X": qlib.XGate, "Y": qlib.YGate, "Z": qlib.ZGate, "H": qlib.HGate, "S": qlib.SGate,
         "T": qlib.TGate}
ROTATIONS = {"Rx": qlib.RXGate, "Ry": qlib.RYGate, "Rz": qlib.RZGate,
             "phase": qlib.PhaseGate}


def to_qiskit(circuit, n):
    """Our instructions as qiskit's named gates (UnitaryGate for dense blocks): checks each
    matrix and each convention (controls, qubit order, angles) against qiskit's."""
    qc = QuantumCircuit(n)
    for inst in circuit:
        if inst.name in FIXED:
            g = FIXED[inst.name]()
        elif inst.name in ROTATIONS:
            g = ROTATIONS[inst.name](*inst.params)
        elif inst.name == "SWAP":
            g = qlib.SwapGate()
        else:
            assert inst.name == "dense"
            g = qlib.UnitaryGate(inst.matrix)
        if inst.ctrl_locs:
            state = "".join(str(v) for v in reversed(inst.ctrl_vals))
            g = g.control(len(inst.ctrl_locs), ctrl_state=state)
        qc.append(g, list(inst.ctrl_locs) + list(inst.locs))
    return qc


def assert_same(circuit, reference, n, seed=0):
    """Our circuit through the naive kernel and qiskit's reference circuit, on a random
    state; equal amplitude by amplitude."""
    state = random_state(n, np.random.default_rng(seed))
    ours = circuits.run(naive.apply, state.copy(), circuit)
    theirs = Statevector(state).evolve(reference).data
    np.testing.assert_allclose(ours, theirs, atol=ATOL, rtol=0)


SMALL = [(name, n) for name in NAMES for n in range(1, 9) if LIBRARY[name].accepts(n)]


@pytest.mark.parametrize("name, n", SMALL)
def test_every_gate_matches_qiskits_named_gate(name, n):
    circuit = LIBRARY[name](n, np.random.default_rng(n))
    assert_same(circuit, to_qiskit(circuit, n), n)


@pytest.mark.parametrize("n", range(1, 9))
def test_qft_and_iqft_match_qiskits_qftgate(n):
    qft = QuantumCircuit(n)
    qft.append(qlib.QFTGate(n), range(n))
    assert_same(LIBRARY["qft"](n, np.random.default_rng(0)), qft, n)
    iqft = QuantumCircuit(n)
    iqft.append(qlib.QFTGate(n).inverse(), range(n))
    assert_same(LIBRARY["iqft"](n, np.random.default_rng(0)), iqft, n)


@pytest.mark.parametrize("n", range(2, 9))
def test_ghz_matches_its_definition(n):
    qc = QuantumCircuit(n)
    qc.h(0)
    for q in range(n - 1):
        qc.cx(q, q + 1)
    assert_same(LIBRARY["ghz"](n, np.random.default_rng(0)), qc, n)


@pytest.mark.parametrize("n", range(2, 9))
def test_qpe_matches_qiskits_phase_estimation(n):
    circuit = LIBRARY["qpe"](n, np.random.default_rng(n))
    phase, t = qpe_phase(circuit), n - 1
    qc = QuantumCircuit(n)
    qc.x(t)                           # the eigenstate |1> of the phase gate
    qc.compose(qlib.phase_estimation(t, qlib.PhaseGate(2 * np.pi * phase)), range(n),
               inplace=True)
    # qiskit leaves the binary fraction's first bit on qubit 0; ours leaves the integer
    # round(phase 2^t) with bit j on qubit j: the counting register reversed
    for q in range(t // 2):
        qc.swap(q, t - 1 - q)
    assert_same(circuit, qc, n)


@pytest.mark.parametrize("n", range(2, 9))
def test_qaoa_matches_qiskits_qaoa_ansatz(n):
    circuit = LIBRARY["qaoa"](n, np.random.default_rng(n))
    edges, gamma, beta = qaoa_parameters(circuit, n)
    # exp(-i gamma H_C) with H_C = sum Z_u Z_v / 2 is RZZ(gamma) on each edge
    cost = SparsePauliOp.from_sparse_list([("ZZ", list(e), 0.5) for e in edges],
                                          num_qubits=n)
    ansatz = qlib.qaoa_ansatz(cost, reps=1)
    betas, gammas = (p for p in ansatz.parameters)
    qc = ansatz.assign_parameters({betas: beta, gammas: gamma})
    assert_same(circuit, qc, n)
    rzz = QuantumCircuit(n)
    rzz.h(range(n))
    for u, v in edges:
        rzz.append(qlib.RZZGate(gamma), [u, v])
    rzz.rx(2 * beta, range(n))
    assert_same(circuit, rzz, n)


@pytest.mark.parametrize("n", range(2, 9))
def test_qv_matches_unitary_gates_on_the_same_pairs(n):
    circuit = LIBRARY["qv"](n, np.random.default_rng(n))
    qc = QuantumCircuit(n)
    for inst in circuit:
        qc.append(qlib.UnitaryGate(inst.matrix), list(inst.locs))
    assert_same(circuit, qc, n)


def simon_by_definition(secret):
    m = len(secret)
    qc = QuantumCircuit(2 * m)
    qc.h(range(m))
    for j in range(m):
        qc.cx(j, m + j)
    lowest = secret.index(1)
    for j in range(m):
        if secret[j]:
            qc.cx(lowest, m + j)
    qc.swap(m, 2 * m - 1)
    qc.h(range(m))
    return qc


def hidden_shift_by_definition(shift):
    n = len(shift)
    qc = QuantumCircuit(n)
    oracle = QuantumCircuit(n)
    for q in range(0, n, 2):
        oracle.cz(q, q + 1)
    flips = QuantumCircuit(n)
    for q in range(n):
        if shift[q]:
            flips.x(q)
    qc.h(range(n))
    qc.compose(flips, inplace=True)
    qc.compose(oracle, inplace=True)
    qc.compose(flips, inplace=True)
    qc.h(range(n))
    qc.compose(oracle, inplace=True)
    qc.h(range(n))
    return qc


@pytest.mark.parametrize("secret", [(1, 0), (0, 1), (1, 1), (0, 1, 1), (1, 0, 1, 1)])
def test_simon_matches_its_definition(secret):
    assert_same(circuits.simon(secret), simon_by_definition(list(secret)), 2 * len(secret))


@pytest.mark.parametrize("shift", [(0, 0), (1, 0), (0, 1, 1, 1), (1, 0, 0, 1, 1, 0)])
def test_hidden_shift_matches_its_definition(shift):
    assert_same(circuits.hidden_shift(shift), hidden_shift_by_definition(shift), len(shift))
