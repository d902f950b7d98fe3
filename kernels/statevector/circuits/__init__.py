"""Circuits as plain lists of :class:`Instruction`, runnable by any kernel or adapter
(docs/architecture.md, "Circuits").

An instruction carries the kernel arguments (matrix, locs, controls) plus the gate's name
and parameters, so that an adapter can use a tool's own named gate where it has one.
``LIBRARY[name](n, rng)`` builds the library's circuits (cuQuantum's benchmark set,
QCBM and a Heisenberg chain); the builders below take their parameters explicitly.
"""

from ._instruction import Instruction, cnot, cz, dense, gate, run, swap, toffoli
from ._library import (
    ghz,
    heisenberg,
    hidden_shift,
    iqft,
    pauli_rotation,
    qaoa,
    qcbm,
    qft,
    qpe,
    quantum_volume,
    random_circuit,
    simon,
)
from ._registry import LIBRARY, LibraryCircuit

__all__ = ["LIBRARY", "Instruction", "LibraryCircuit", "cnot", "cz", "dense", "gate", "ghz",
           "heisenberg", "hidden_shift", "iqft", "pauli_rotation", "qaoa", "qcbm", "qft",
           "qpe", "quantum_volume", "random_circuit", "run", "simon", "swap", "toffoli"]
