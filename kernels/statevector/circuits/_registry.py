"""The circuit library: ``LIBRARY[name](n, rng) -> [Instruction]`` for the circuits of
NVIDIA cuQuantum's benchmark suite plus QCBM and a Heisenberg chain (docs/architecture.md,
"Circuits").

Each entry checks n (an integer at least its minimum, even where the definition needs
it) and draws whatever its definition leaves random (a secret, a graph, angles, unitaries)
from ``rng`` alone, so the same seed gives the same circuit. Where cuQuantum fixes a
choice or draws it from the global ``random`` module, it comes from ``rng`` here: QPE's
phase (cuQuantum: 1/6 of a turn), QAOA's graph (cuQuantum: the complete graph) and angles,
the random circuit's gate choices, the secrets. Other differences, on purpose: QV has n
layers (the quantum volume definition; cuQuantum uses 30) of SU(4) blocks; Simon's final
Hadamards are in the circuit (cuQuantum adds them only when it measures); QPE's counting
qubit j controls U^(2^j) (cuQuantum's folded variant applies U^(j+1)).
"""

import numbers
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from . import _library as lib


class LibraryCircuit(NamedTuple):
    """One library circuit; call it (or its ``make``) as ``make(n, rng)``."""

    name: str
    build: Callable      # (n, rng) -> [Instruction], n already checked
    min_qubits: int
    even: bool           # n must be even
    needs: str           # why n is limited, for the error message and the docs
    description: str
    source: str          # the definition it follows

    def check(self, n):
        """``n`` as an int if this circuit accepts it; ValueError naming n otherwise."""
        if isinstance(n, bool) or not isinstance(n, numbers.Integral):
            raise ValueError(f"n must be an integer number of qubits, got {n!r}")
        n = int(n)
        if n < self.min_qubits or (self.even and n % 2):
            kind = "an even n" if self.even else "n"
            raise ValueError(f"n = {n} is refused by {self.name}: it needs {kind} >= "
                             f"{self.min_qubits} ({self.needs})")
        return n

    def accepts(self, n):
        """Whether ``make(n, rng)`` builds a circuit (True) or raises ValueError."""
        try:
            self.check(n)
        except ValueError:
            return False
        return True

    def make(self, n, rng):
        """The circuit on exactly n qubits: a list of Instructions, its unitary part only."""
        n = self.check(n)
        if not isinstance(rng, np.random.Generator):
            raise ValueError(f"rng must be a numpy Generator (np.random.default_rng(seed)), "
                             f"got {type(rng).__name__}")
        return self.build(n, rng)

    __call__ = make


def _nonzero_bits(m, rng):
    # a zero secret makes f one-to-one and the output says nothing; redraw (p <= 1/4)
    while True:
        bits = [int(b) for b in rng.integers(0, 2, m)]
        if any(bits):
            return bits


def _random_graph(n, rng):
    """The edges (u < v) of an Erdos-Renyi graph G(n, 1/2), redrawn until it has one."""
    pairs = [(u, v) for u in range(n) for v in range(u + 1, n)]
    while True:
        edges = [p for p, keep in zip(pairs, rng.random(len(pairs)) < 0.5) if keep]
        if edges:
            return edges


def _qaoa(n, rng):
    edges = _random_graph(n, rng)
    gamma, beta = rng.uniform(-np.pi, np.pi, 2)
    return lib.qaoa(n, edges, float(gamma), float(beta))


# the benchmark definitions of NVIDIA/cuQuantum: benchmarks/nv_quantum_benchmarks/benchmarks/
# (and the older benchmarks/cuquantum_benchmarks/benchmarks/, same file names)
_CUQ = "cuQuantum benchmarks, "

_ENTRIES = [
    LibraryCircuit(
        "qcbm", lambda n, rng: lib.qcbm(n, rng), 1, False, "one qubit or more",
        "quantum circuit Born machine: 9 layers of Rx/Rz rotations with random angles, "
        "a ring of CNOTs between layers",
        "qulacs and Yao benchmarks (QCBM)"),
    LibraryCircuit(
        "qft", lambda n, rng: lib.qft(n), 1, False, "one qubit or more",
        "quantum Fourier transform: H and controlled phases, then the qubit reversal",
        _CUQ + "qft.py"),
    LibraryCircuit(
        "iqft", lambda n, rng: lib.iqft(n), 1, False, "one qubit or more",
        "inverse quantum Fourier transform, gate by gate the inverse of qft",
        _CUQ + "iqft.py"),
    LibraryCircuit(
        "ghz", lambda n, rng: lib.ghz(n), 2, False, "a GHZ state entangles two qubits or more",
        "GHZ state preparation: H, then a chain of CNOTs",
        _CUQ + "ghz.py"),
    LibraryCircuit(
        "simon", lambda n, rng: lib.simon(_nonzero_bits(n // 2, rng)), 4, True,
        "n/2 input and n/2 output qubits; the oracle swaps two output qubits",
        "Simon's algorithm for a random nonzero secret: H, the 2-to-1 oracle, H on the "
        "inputs", _CUQ + "simon.py"),
    LibraryCircuit(
        "hidden_shift", lambda n, rng: lib.hidden_shift(rng.integers(0, 2, n)), 2, True,
        "the bent function pairs the qubits",
        "hidden shift algorithm for a random shift of the bent function sum x_2i x_2i+1: "
        "H, X, CZ layers", _CUQ + "hidden_shift.py"),
    LibraryCircuit(
        "qaoa", _qaoa, 2, False, "a graph needs an edge",
        "QAOA p = 1 for MaxCut on a random G(n, 1/2) graph, random angles: H, "
        "CNOT-Rz-CNOT per edge, Rx", _CUQ + "qaoa.py"),
    LibraryCircuit(
        "qpe", lambda n, rng: lib.qpe(n - 1, rng.uniform(0, 1)), 2, False,
        "one counting qubit and the eigenstate qubit",
        "quantum phase estimation of a random phase gate: n - 1 counting qubits, "
        "controlled phases, inverse QFT", _CUQ + "qpe.py"),
    LibraryCircuit(
        "qv", lambda n, rng: lib.quantum_volume(n, rng), 2, False,
        "random SU(4) blocks on pairs",
        "quantum volume: n layers of Haar-random SU(4) blocks (dense) on random qubit pairs",
        _CUQ + "quantum_volume.py"),
    LibraryCircuit(
        "random", lambda n, rng: lib.random_circuit(n, rng), 1, False, "one qubit or more",
        "random circuit of depth n: each layer covers the qubits with random H, X, Rx, Ry, "
        "Rz, CNOT, CZ, SWAP", _CUQ + "random.py"),
    LibraryCircuit(
        # a step of 0.1 stalled our fused plans 3x at n = 20 (0.05: not at all): whether
        # and how much the amplitudes turn subnormal depends on the step, so it is fixed
        "heisenberg", lambda n, rng: lib.heisenberg(n, n, 0.1, 1.0),
        2, False, "a bond joins two qubits",
        "n Trotter steps of the Heisenberg chain (XX, YY, ZZ on neighbours, each "
        "CNOT-Rz-CNOT in its basis; steps of 0.1) from the Neel state: it conserves the "
        "magnetisation, so most amplitudes are zero in exact arithmetic and subnormal in "
        "floating point",
        "written here: the physics workload that stalled kernels computing with "
        "subnormal floats"),
]

#: name -> :class:`LibraryCircuit`, callable as ``make(n, rng) -> [Instruction]``.
LIBRARY = {entry.name: entry for entry in _ENTRIES}
