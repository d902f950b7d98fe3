"""The gates every state-vector comparison runs: the gate suites time them on every
backend, ``python -m harness validate`` checks every backend on them (the seed's X, H, T
and CNOT, and more)."""

import numpy as np

from kernels.statevector import circuits
from kernels.statevector.gates import random_unitary

#: The seed of the dense gates' matrices.
SEED = 20191231

# Target qubits as in the seed's benchmark (its 1-based qubit 3 is our qubit 2; CNOT is
# controlled by qubit 2 onto qubit 1); multi-qubit gates use unsorted, non-adjacent locs.
_rng = np.random.default_rng(SEED)
GATES = {
    "X": circuits.gate("X", 2),
    "H": circuits.gate("H", 2),
    "T": circuits.gate("T", 2),
    "CNOT": circuits.cnot(2, 1),
    "Rx": circuits.gate("Rx", 2, theta=0.7),
    "Rz": circuits.gate("Rz", 2, theta=0.7),
    "Toffoli": circuits.toffoli(0, 3, 2),
    "dense2": circuits.dense(random_unitary(2, _rng), 3, 1),
    "dense3": circuits.dense(random_unitary(3, _rng), 3, 0, 2),
}
