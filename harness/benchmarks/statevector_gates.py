"""Single gates on n qubits: every kernel and peer on the same gate and target qubits,
one thread, complex128 (the seed's X/H/T/CNOT benchmark, and more), and complex64 for
the kernels and peers that offer it."""

# first: _statevector_setup pins the thread counts before numpy and the tools load
from ._statevector_setup import (GATE_BACKENDS, PROFILE, ROUNDS, Suite, check_size,
                                 complex64_backends, qubits, validated)
from ._once import setup_once

from harness.statevector.cases import GATES
from kernels.statevector import CPU_KERNELS, KERNELS

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
