"""Whole circuits on every backend, one thread: the circuit library's (QCBM, QFT and
cuQuantum's set, ``lib:NAME``) and MQT Bench's benchmarks (``mqt:NAME``), named as
``python -m harness circuit`` takes them; time per circuit and the peak memory of a run,
in complex128 and, on the backends that offer it, complex64.

The profile says which circuits (``circuits``) and sizes (``circuit_qubits``) run, and
caps the slow reference kernels (``circuit_max_qubits``) and the work of one case
(``circuit_max_work``: gates x amplitudes, which bounds the reference's time).
"""

# first: _statevector_setup pins the thread counts before numpy and the tools load
from ._statevector_setup import BACKENDS, PROFILE, Suite, complex64_backends
from ._once import setup_once

from functools import cache

from harness import profiles, registry
from harness.circuit import sources

CIRCUITS = sources.expand(PROFILE.get("circuits", ()))
MEMORY_CIRCUITS = sources.expand(PROFILE.get("circuit_memory", ()))
QUBITS = PROFILE["circuit_qubits"]


@cache
def build(circuit, n):
    """The instructions of ``circuit`` at n qubits; NotImplementedError (asv's skip) with
    the reason where the source refuses that size."""
    try:
        return sources.load(circuit, n).instructions
    except sources.SourceError as exc:
        raise NotImplementedError(str(exc)) from None


def check_case(circuit, n, backend):
    """NotImplementedError for a case the profile leaves out: a slow kernel above its
    size, or a circuit whose reference would take too long."""
    limit = PROFILE.get("circuit_max_qubits", {}).get(backend)
    if limit is not None and n > limit:
        raise NotImplementedError(f"the profile times {backend} on circuits up to {limit} "
                                  "qubits")
    instructions = build(circuit, n)
    work = len(instructions) << n
    if work > PROFILE["circuit_max_work"]:
        raise NotImplementedError(
            f"{circuit} at {n} qubits: {len(instructions)} gates x 2**{n} amplitudes is more "
            "than the profile's circuit_max_work")
    return instructions


class _CircuitCase(Suite):
    """One circuit at one size on one backend, validated in setup."""

    params = (CIRCUITS, QUBITS, BACKENDS)
    param_names = ["circuit", "n", "backend"]
    timeout = 900
    # up to 10 circuits or ~0.5 s per combination: at 20 qubits a circuit takes 0.1-2 s
    # (one is enough to place the slow ones). setup's validation run has compiled and
    # warmed up everything, so asv need not spend a second run on that
    repeat = profiles.sampling(PROFILE, 1, 10, 0.5)
    min_run_count = 1
    precision = "complex128"

    @setup_once
    def setup(self, circuit, n, backend):
        instructions = check_case(circuit, n, backend)
        # unfused: the kernel comparison, one pass per gate wherever a tool allows it
        # (statevector_fusion times the settings)
        self.load(backend, n, instructions, what=f"{circuit} n={n}",
                  precision=self.precision, fusion=registry.simulator(backend).unfused())


class Circuit(_CircuitCase):
    def time_circuit(self, circuit, n, backend):
        self.run()


class CircuitComplex64(_CircuitCase):
    """The circuits in single precision, on the kernels and peers that run it (qsim runs
    nothing else)."""

    params = (CIRCUITS, PROFILE.get("complex64_circuit_qubits", QUBITS), complex64_backends())
    precision = "complex64"

    def time_circuit(self, circuit, n, backend):
        self.run()


class CircuitMemory(_CircuitCase):
    """The peak memory of one run of the profile's ``circuit_memory`` circuits, at the
    largest size (below it a state is small next to what a Python process holds)."""

    params = (MEMORY_CIRCUITS, QUBITS[-1:], BACKENDS)

    def peakmem_circuit(self, circuit, n, backend):
        self.run()
