"""The circuits of the library, each built from its explicit parameters (a secret, a graph,
a phase) or from a generator ``rng`` (docs/architecture.md, "Circuits"). Qubit q is bit q
of the amplitude index; a bit string ``bits`` means the integer sum(bits[j] << j).

:mod:`._registry` draws the parameters and names the circuits (``LIBRARY``); the
definitions follow NVIDIA cuQuantum's benchmark suite (``benchmarks/nv_quantum_benchmarks``)
and the textbook algorithms they implement, written here.
"""

import numbers

import numpy as np

from .. import gates
from ._instruction import Instruction, cnot, cz, dense, gate, swap


def qcbm(n, rng, depth=9):
    """The quantum circuit Born machine of the qulacs/Yao benchmarks: ``depth`` layers of
    rotations (Rx Rz first, Rz Rx last, Rz Rx Rz between), each layer but the last
    followed by a ring of CNOTs (i -> i+1 mod n). Angles come from ``rng``."""
    circuit = []
    for layer in range(depth):
        if layer == 0:
            names = ("Rx", "Rz")
        elif layer == depth - 1:
            names = ("Rz", "Rx")
        else:
            names = ("Rz", "Rx", "Rz")
        for q in range(n):
            for name in names:
                circuit.append(gate(name, q, theta=rng.uniform(0, 2 * np.pi)))
        if layer < depth - 1 and n > 1:
            circuit.extend(cnot(q, (q + 1) % n) for q in range(n))
    return circuit


def qft(n):
    """The quantum Fourier transform: H and controlled phases, then the qubit reversal."""
    circuit = []
    for q in reversed(range(n)):
        circuit.append(gate("H", q))
        for c in reversed(range(q)):
            circuit.append(gate("phase", q, ctrl=(c,), theta=np.pi / (1 << (q - c))))
    circuit.extend(swap(q, n - 1 - q) for q in range(n // 2))
    return circuit


def _inverse_fourier(qubits):
    """The inverse of :func:`qft` on ``qubits`` (their order: the first is the low bit):
    the reversal first, then each step of the QFT undone in reverse order."""
    t = len(qubits)
    circuit = [swap(qubits[q], qubits[t - 1 - q]) for q in range(t // 2)]
    for q in range(t):
        for c in range(q):
            circuit.append(gate("phase", qubits[q], ctrl=(qubits[c],),
                                theta=-np.pi / (1 << (q - c))))
        circuit.append(gate("H", qubits[q]))
    return circuit


def iqft(n):
    """The inverse quantum Fourier transform, gate by gate the inverse of :func:`qft`:
    ``iqft(n)`` maps sum_y exp(2 pi i x y / N) |y> / sqrt(N) to |x>."""
    return _inverse_fourier(list(range(n)))


def ghz(n):
    """The GHZ state preparation: H on qubit 0, then a chain of CNOTs 0 -> 1 -> ... -> n-1;
    from |0...0> it gives (|0...0> + |1...1>) / sqrt(2)."""
    return [gate("H", 0)] + [cnot(q, q + 1) for q in range(n - 1)]


def _bits(name, bits, minimum, even=False):
    """``bits`` as a tuple of ints 0/1 with at least ``minimum`` entries (an even number of
    them if ``even``); ValueError naming ``name`` otherwise."""
    try:
        bits = list(bits)
        out = tuple(int(b) for b in bits)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a sequence of bits 0/1, got {bits!r}") from None
    if any(b not in (0, 1) or b != v for b, v in zip(out, bits)):
        raise ValueError(f"{name} must hold bits 0 or 1, got {bits!r}")
    if len(out) < minimum or (even and len(out) % 2):
        need = f"an even number >= {minimum} of" if even else f"at least {minimum}"
        raise ValueError(f"{name} must have {need} bits, got {len(out)}")
    return out


def simon(secret):
    """Simon's algorithm for the secret ``secret`` (m >= 2 bits): 2m qubits, inputs 0..m-1,
    outputs m..2m-1. H on the inputs, the oracle |x>|y> -> |x>|y xor f(x)>, H on the inputs.
    f copies x, adds ``secret`` when x's bit at the secret's lowest set bit is 1 (so that
    f(x) = f(x xor secret)), then swaps the first and last output qubits (cuQuantum's
    oracle). Measured, the inputs give only strings y with y . secret = 0 (mod 2), each with
    the same probability; the final Hadamards are cuQuantum's measurement basis, kept
    because they are part of the algorithm's unitary."""
    s = _bits("secret", secret, 2)
    m = len(s)
    inputs, outputs = range(m), range(m, 2 * m)
    circuit = [gate("H", q) for q in inputs]
    circuit += [cnot(i, o) for i, o in zip(inputs, outputs)]
    if any(s):
        lowest = s.index(1)
        circuit += [cnot(lowest, outputs[j]) for j in range(m) if s[j]]
    circuit.append(swap(outputs[0], outputs[-1]))
    circuit += [gate("H", q) for q in inputs]
    return circuit


def hidden_shift(shift):
    """The hidden shift algorithm for the bent function f(x) = sum_i x_2i x_2i+1 and
    g(x) = f(x xor shift) (``shift``: an even number of bits): H on all qubits, g's phase
    oracle (X on the shifted qubits, CZ on the pairs (2i, 2i+1), X again), H, f's phase
    oracle, H. From |0...0> it gives |shift> (up to a global phase) with probability 1."""
    s = _bits("shift", shift, 2, even=True)
    n = len(s)
    hadamards = [gate("H", q) for q in range(n)]
    flips = [gate("X", q) for q in range(n) if s[q]]
    oracle = [cz(q, q + 1) for q in range(0, n, 2)]
    return hadamards + flips + oracle + flips + hadamards + oracle + hadamards


def qaoa(n, edges, gamma, beta):
    """One layer (p = 1) of QAOA for MaxCut on the graph ``edges`` (pairs of qubits):
    H on every qubit, exp(-i gamma Z_u Z_v / 2) on each edge as CNOT(u, v) Rz(gamma)_v
    CNOT(u, v), then the mixer Rx(2 beta) on every qubit."""
    edges = [tuple(int(q) for q in e) for e in edges]
    for e in edges:
        if len(e) != 2 or e[0] == e[1] or not all(0 <= q < n for q in e):
            raise ValueError(f"edges must be pairs of distinct qubits below n = {n}, got {e}")
    circuit = [gate("H", q) for q in range(n)]
    for u, v in edges:
        circuit += [cnot(u, v), gate("Rz", v, theta=gamma), cnot(u, v)]
    circuit += [gate("Rx", q, theta=2 * beta) for q in range(n)]
    return circuit


def qpe(counting, phase):
    """Quantum phase estimation of U = phase(2 pi ``phase``) (eigenvalue exp(2 pi i phase)
    on |1>) with ``counting`` qubits 0..counting-1 and the eigenstate qubit ``counting``:
    X prepares the eigenstate, H on the counting qubits, U^(2^j) controlled by counting
    qubit j (one controlled phase each, its angle reduced mod 2 pi), the inverse QFT on the
    counting register. That register then holds round(phase * 2^counting) mod
    2^counting: exactly when phase * 2^counting is an integer, else with probability at
    least 4 / pi^2."""
    if not isinstance(counting, numbers.Integral) or isinstance(counting, bool) \
            or counting < 1:
        raise ValueError(f"counting must be a positive number of qubits, got {counting!r}")
    if not isinstance(phase, numbers.Real) or not np.isfinite(phase):
        raise ValueError(f"phase must be a finite real number, got {phase!r}")
    t, phase = int(counting), float(phase)
    circuit = [gate("X", t)] + [gate("H", q) for q in range(t)]
    for j in range(t):
        # phase * 2^j is exact in binary; the remainder keeps the angle in [0, 2 pi)
        circuit.append(gate("phase", t, ctrl=(j,), theta=2 * np.pi * ((phase * 2.0**j) % 1.0)))
    return circuit + _inverse_fourier(list(range(t)))


def _special_unitary(rng):
    """A Haar-random 4x4 unitary scaled to determinant 1."""
    u = gates.random_unitary(2, rng)
    return u / np.linalg.det(u) ** 0.25


def quantum_volume(n, rng, depth=None):
    """The quantum volume model circuit: ``depth`` (default n) layers, each a random
    permutation of the qubits paired off (perm[0], perm[1]), (perm[2], perm[3]), ... with a
    random SU(4) block (a dense instruction) on each pair; one qubit idles when n is odd."""
    circuit = []
    for _ in range(n if depth is None else depth):
        perm = [int(q) for q in rng.permutation(n)]
        circuit += [dense(_special_unitary(rng), perm[2 * w], perm[2 * w + 1])
                    for w in range(n // 2)]
    return circuit


_RANDOM_ONE = ("H", "X", "Rz", "Rx", "Ry")
_RANDOM_TWO = (cnot, cz, swap)


def random_circuit(n, rng, depth=None):
    """cuQuantum's random circuit: ``depth`` (default n) layers; each layer shuffles the
    qubits and covers them with gates on one or two of them (chosen at random): one of H,
    X, Rz, Rx, Ry (angles uniform in [0, 2 pi)) or one of CNOT, CZ, SWAP."""
    circuit = []
    for _ in range(n if depth is None else depth):
        free = [int(q) for q in rng.permutation(n)]
        while free:
            k = int(rng.integers(1, min(len(free), 2) + 1))
            operands, free = free[:k], free[k:]
            if k == 1:
                name = _RANDOM_ONE[int(rng.integers(len(_RANDOM_ONE)))]
                theta = rng.uniform(0, 2 * np.pi) if name[0] == "R" else None
                circuit.append(gate(name, operands[0], theta=theta))
            else:
                circuit.append(_RANDOM_TWO[int(rng.integers(len(_RANDOM_TWO)))](*operands))
    return circuit


_PAULI_PAIRS = {"Rxx": np.kron(gates.X, gates.X), "Ryy": np.kron(gates.Y, gates.Y),
                "Rzz": np.kron(gates.Z, gates.Z)}


def pauli_rotation(name, theta, a, b):
    """exp(-i theta/2 P x P) on qubits a and b, P the Pauli that ``name`` (Rxx, Ryy or Rzz)
    doubles: qiskit's rxx, ryy, rzz."""
    matrix = (np.cos(theta / 2) * np.eye(4) - 1j * np.sin(theta / 2) * _PAULI_PAIRS[name])
    return Instruction(name, matrix, (a, b), params=(float(theta),))


#: The change of basis that takes Z to each Pauli (V^dagger Z V = P) and back, on each
#: qubit of a pair: H and H for X, Rx(pi/2) and Rx(-pi/2) for Y, nothing for Z.
_BASIS = {"X": (("H", None), ("H", None)), "Y": (("Rx", np.pi / 2), ("Rx", -np.pi / 2)),
          "Z": None}


def _pauli_pair(pauli, theta, a, b):
    """exp(-i theta/2 P x P) on qubits a and b as hardware-native circuits write it: the
    change of basis on both (:data:`_BASIS`), CNOT, Rz(theta), CNOT, the change back."""
    basis = _BASIS[pauli]
    into = [gate(basis[0][0], q, theta=basis[0][1]) for q in (a, b)] if basis else []
    back = [gate(basis[1][0], q, theta=basis[1][1]) for q in (a, b)] if basis else []
    return [*into, cnot(a, b), gate("Rz", b, theta=theta), cnot(a, b), *back]


def heisenberg(n, steps, dt, anisotropy):
    """First-order Trotter steps of the XXZ chain H = sum over neighbours of XX + YY +
    ``anisotropy`` ZZ (open ends), from the Neel state (X on the odd qubits): each step
    exp(-i dt H) on the even bonds, then the odd ones, each bond's three terms as
    CNOT-Rz-CNOT in their bases (:func:`_pauli_pair`). H conserves the magnetisation, so
    every amplitude outside the Neel state's sector is zero in exact arithmetic; the
    rounding of each term's basis changes seeds tiny values there, which decay into
    subnormal floats (kernels.statevector.subnormals): the workload physicists simulate
    most, and a stall for a kernel that computes with subnormals."""
    circuit = [gate("X", q) for q in range(1, n, 2)]
    for _ in range(steps):
        for first in (0, 1):
            for a in range(first, n - 1, 2):
                for pauli, theta in (("X", 2 * dt), ("Y", 2 * dt), ("Z", 2 * anisotropy * dt)):
                    circuit += _pauli_pair(pauli, theta, a, a + 1)
    return circuit
