"""Single gates on n qubits: every kernel and peer on the same gate and target qubits,
one thread, complex128 (the seed's X/H/T/CNOT benchmark, and more), and complex64 for
the kernels and peers that offer it."""

# first: _statevector_setup pins the thread counts before numpy and the tools load
from ._statevector_setup import (GATE_BACKENDS, PROFILE, ROUNDS, SEED, Suite, check_size,
                                 complex64_backends, qubits, validated)
from ._once import setup_once

import numpy as np

from kernels.statevector import CPU_KERNELS, KERNELS, circuits
from kernels.statevector.gates import random_unitary

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


class Gate(Suite):
    params = (list(GATES), qubits("gate_qubits"), GATE_BACKENDS)
    param_names = ["gate", "n", "backend"]

    @setup_once
    def setup(self, gate, n, backend):
        check_size("gate_qubits", n, backend)
        self.load(backend, n, [GATES[gate]], what=f"{gate} n={n}")

    def time_gate(self, gate, n, backend):
        self.run()


#: The seed's gates in single precision: what complex64 saves, kernel by kernel and peer
#: by peer (half the bytes per amplitude).
GATES_64 = ["X", "H", "T", "CNOT"]


class GateComplex64(Suite):
    params = (GATES_64, PROFILE["complex64_qubits"], complex64_backends(gates=True))
    param_names = ["gate", "n", "backend"]

    @setup_once
    def setup(self, gate, n, backend):
        self.load(backend, n, [GATES[gate]], what=f"{gate} n={n}", precision="complex64")

    def time_gate(self, gate, n, backend):
        self.run()

class GateCall:
    """The plain kernel signature, ``kernel(state, matrix, locs, ctrl_locs, ctrl_vals)``,
    which checks and plans on every call: what calling a kernel costs on top of applying
    a prepared gate (``Gate``), most visible on small states."""

    params = (["X", "H", "CNOT"], PROFILE["call_qubits"], list(CPU_KERNELS))
    param_names = ["gate", "n", "kernel"]
    timeout = 300
    rounds = ROUNDS
    repeat = Suite.repeat

    @setup_once
    def setup(self, gate, n, kernel):
        inst = GATES[gate]
        self.args = (inst.matrix, inst.locs, inst.ctrl_locs, inst.ctrl_vals or None)
        self.kernel = KERNELS[kernel]
        _, _, self.state = validated(kernel, n, [inst], what=f"{gate} n={n}")

    def time_call(self, gate, n, kernel):
        self.kernel(self.state, *self.args)
