"""Circuit families that qiskit writes: ``qiskit:NAME`` of ``python -m harness circuit``.

The library's circuits (``lib:``) and MQT Bench's (``mqt:``) are the ones our fusion
planner and the kernels were looked at on; these are for the other kind, circuits nobody
here chose the gates of. Each is built with qiskit's own circuit library and synthesis
(``PauliEvolutionGate`` with a Lie-Trotter product, ``UnitaryGate`` of a Haar-random
unitary) and then transpiled by qiskit to the gates an OpenQASM 2 file from the field
uses (:data:`BASIS`), so what runs is qiskit's decomposition, not ours:

- ``heisenberg``: Trotter steps of the Heisenberg XXZ chain (J = 1 on XX and YY, 0.5 on
  ZZ, a field of 0.3 on Z), from |+...+>;
- ``neel``: Trotter steps of the isotropic Heisenberg chain from the Neel state, whose
  amplitudes turn subnormal;
- ``tfim``: Trotter steps of the transverse-field Ising chain (J = 1 on ZZ, h = 0.7 on X),
  from |0...0>;
- ``brickwork``: layers of Haar-random two-qubit unitaries on alternating neighbour
  pairs, the random circuits of quantum-advantage experiments.

Each family is a function of n alone (its random draws come from ``SEED``), so one name
and size always give the same circuit.
"""

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

#: The seed of the brickwork circuits' unitaries.
SEED = 20261128
#: What qiskit transpiles every family to, at its optimisation level 1: the gates of
#: qelib1.inc that files from the field use, CNOT the one two-qubit gate. (With rzz, rxx
#: and ryy allowed too, qiskit's two-qubit synthesis picks among them by the order of a
#: set of names, so the circuit changed with Python's hash seed.)
BASIS = ("u3", "cx", "rz", "rx", "ry", "h")
#: Trotter steps of the spin chains and their total time.
STEPS, TIME = 4, 0.4
#: ... and of the chain from the Neel state: long, small steps, as physicists run them
#: (the amplitudes that turn subnormal need many steps to get there)
NEEL_STEPS, NEEL_TIME = 20, 2.0
#: Layers of the brickwork circuit.
LAYERS = 16


class Family(NamedTuple):
    name: str
    build: Callable  #: n -> a qiskit QuantumCircuit, before transpilation
    min_qubits: int
    description: str


def _chain(n, couplings, fields):
    """The SparsePauliOp of a nearest-neighbour chain: ``couplings`` [(pauli pair, J)] on
    every bond, ``fields`` [(pauli, h)] on every site."""
    from qiskit.quantum_info import SparsePauliOp
    terms = [(p, [i, i + 1], c) for i in range(n - 1) for p, c in couplings]
    terms += [(p, [i], h) for i in range(n) for p, h in fields]
    return SparsePauliOp.from_sparse_list(terms, n)


def _trotter(hamiltonian, n, start_in_plus):
    from qiskit import QuantumCircuit
    from qiskit.circuit.library import PauliEvolutionGate
    from qiskit.synthesis import LieTrotter
    qc = QuantumCircuit(n)
    if start_in_plus:
        qc.h(range(n))
    qc.append(PauliEvolutionGate(hamiltonian, time=TIME, synthesis=LieTrotter(reps=STEPS)),
              range(n))
    return qc


def heisenberg(n):
    return _trotter(_chain(n, [("XX", 1.0), ("YY", 1.0), ("ZZ", 0.5)], [("Z", 0.3)]), n,
                    start_in_plus=True)


def neel(n):
    """The isotropic chain from the Neel state, |0101...>: it conserves the magnetisation,
    so every amplitude outside the Neel state's sector is zero in exact arithmetic, and
    what rounding seeds there turns subnormal (kernels.statevector.subnormals)."""
    from qiskit import QuantumCircuit
    from qiskit.circuit.library import PauliEvolutionGate
    from qiskit.synthesis import LieTrotter
    qc = QuantumCircuit(n)
    qc.x(range(1, n, 2))
    chain = _chain(n, [("XX", 1.0), ("YY", 1.0), ("ZZ", 1.0)], [])
    qc.append(PauliEvolutionGate(chain, time=NEEL_TIME,
                                 synthesis=LieTrotter(reps=NEEL_STEPS)), range(n))
    return qc


def tfim(n):
    return _trotter(_chain(n, [("ZZ", 1.0)], [("X", 0.7)]), n, start_in_plus=False)


def brickwork(n):
    from qiskit import QuantumCircuit
    from qiskit.circuit.library import UnitaryGate
    from qiskit.quantum_info import random_unitary
    rng = np.random.default_rng(SEED)
    qc = QuantumCircuit(n)
    for layer in range(LAYERS):
        for q in range(layer % 2, n - 1, 2):
            u = random_unitary(4, seed=int(rng.integers(1 << 31)))
            qc.append(UnitaryGate(u), [q, q + 1])
    return qc


FAMILIES = {f.name: f for f in (
    Family("heisenberg", heisenberg, 2,
           f"{STEPS} Lie-Trotter steps of the Heisenberg XXZ chain from |+...+>"),
    Family("neel", neel, 2,
           f"{NEEL_STEPS} Lie-Trotter steps of the Heisenberg XXX chain from the Neel "
           "state (subnormal-heavy)"),
    Family("tfim", tfim, 2, f"{STEPS} Lie-Trotter steps of the transverse-field Ising chain"),
    Family("brickwork", brickwork, 2,
           f"{LAYERS} brickwork layers of Haar-random two-qubit unitaries"),
)}


def build(name, n):
    """The family ``name`` on n qubits, transpiled by qiskit to :data:`BASIS`: a
    QuantumCircuit. KeyError for an unknown name, ValueError for too few qubits."""
    family = FAMILIES[name]
    if n < family.min_qubits:
        raise ValueError(f"{name} needs at least {family.min_qubits} qubits, got {n}")
    from qiskit import transpile
    return transpile(family.build(n), basis_gates=list(BASIS), optimization_level=1,
                     seed_transpiler=SEED)
