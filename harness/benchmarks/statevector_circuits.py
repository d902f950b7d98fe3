"""Whole circuits (QCBM: 9 layers with a ring of CNOTs; QFT) on every backend, one
thread: time per circuit and the peak memory of a run."""

from ._setup import (BACKENDS, PROFILE, SEED, Suite, check_size,  # first: pins threads
                     complex64_backends, qubits)
from ._once import setup_once

import numpy as np

from kernels.statevector import circuits

CIRCUITS = {
    "QCBM": lambda n: circuits.qcbm(n, np.random.default_rng(SEED)),
    "QFT": circuits.qft,
}

#: The dense oracle rebuilds a 2**n x 2**n operator for every gate: above this a circuit
#: takes minutes per run, so it is not timed.
NAIVE_CIRCUIT_QUBITS = 8


class Circuit(Suite):
    params = (list(CIRCUITS), qubits("circuit_qubits"), BACKENDS)
    param_names = ["circuit", "n", "backend"]
    timeout = 600
    # up to 20 circuits or ~1 s per combination: the slow reference backends take
    # seconds per circuit (one is enough to place them)
    repeat = (1, 20, 1.0)

    @setup_once
    def setup(self, circuit, n, backend):
        if backend == "naive" and n > NAIVE_CIRCUIT_QUBITS:
            raise NotImplementedError(
                f"naive is not timed on circuits above {NAIVE_CIRCUIT_QUBITS} qubits")
        check_size("circuit_qubits", n, backend)
        self.prepare(backend, n, CIRCUITS[circuit](n), what=f"{circuit} n={n}")

    def time_circuit(self, circuit, n, backend):
        self.run()

    def peakmem_circuit(self, circuit, n, backend):
        self.run()


class CircuitComplex64(Suite):
    """The circuits in single precision, on the kernels and peers that run it (qsim runs
    nothing else)."""

    params = (list(CIRCUITS), PROFILE["complex64_circuit_qubits"], complex64_backends())
    param_names = ["circuit", "n", "backend"]
    timeout = 600
    repeat = Circuit.repeat

    @setup_once
    def setup(self, circuit, n, backend):
        self.prepare(backend, n, CIRCUITS[circuit](n), what=f"{circuit} n={n}",
                     precision="complex64")

    def time_circuit(self, circuit, n, backend):
        self.run()
