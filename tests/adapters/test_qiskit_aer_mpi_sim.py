"""The qiskit-aer-mpi adapter in one process (an MPI job of one rank; the 2-, 4- and
8-rank cases are tests/statevector/distributed/test_mpi.py's): its translation of our
gates into qiskit's against the reference, and the guards on what Aer ran. Skipped where
make aer-mpi has not built Aer's MPI mode."""

import numpy as np
import pytest

from adapters.simulators import qiskit_aer_mpi_sim as aer
from kernels.statevector import KERNELS, circuits, states
from tests.statevector.test_fusion import random_gates

if not aer.AVAILABLE:
    pytest.skip(aer.REASON, allow_module_level=True)

REFERENCE = KERNELS["loop"]


@pytest.mark.parametrize("seed", range(4))
def test_random_circuits_from_zero_and_from_a_state(seed):
    # random_gates draws named and unnamed gates, controls on |0> and |1>, two-qubit
    # matrices: every branch of the translation
    n = 7
    gates = random_gates(n, np.random.default_rng(seed), 40)
    program = aer.circuit(gates, n)
    for start in (states.zero_state(n), states.random_state(n, np.random.default_rng(seed))):
        state = aer.from_numpy(start)
        aer.run(state, program)
        expected = circuits.run(REFERENCE, start.copy(), gates)
        np.testing.assert_allclose(aer.to_numpy(state), expected, atol=1e-12)


def test_one_gate_is_a_program_too():
    (gate,) = random_gates(5, np.random.default_rng(9), 1)
    state = aer.from_numpy(states.zero_state(5))
    aer.run(state, aer.gate(gate))
    expected = circuits.run(REFERENCE, states.zero_state(5), [gate])
    np.testing.assert_allclose(aer.to_numpy(state), expected, atol=1e-12)


def test_a_run_that_simulates_fewer_qubits_is_refused(monkeypatch):
    # with Aer's truncation on, a run that saves nothing simulates no qubit: the timed
    # run would measure nothing, so the adapter turns it off and checks every run
    n = 6
    program = aer.circuit(random_gates(n, np.random.default_rng(3), 10), n)
    options = aer._options

    def truncating(m):
        opts, ranks = options(m)
        return {**opts, "enable_truncation": True}, ranks
    monkeypatch.setattr(aer, "_options", truncating)
    with pytest.raises(RuntimeError, match=f"simulated 0 of the circuit's {n} qubits"):
        aer.run(aer.from_numpy(states.zero_state(n)), program)


def test_a_state_of_another_tool_is_refused():
    program = aer.circuit(random_gates(4, np.random.default_rng(0), 3), 4)
    with pytest.raises(ValueError, match="qiskit-aer-mpi"):
        aer.run(np.zeros(16, np.complex128), program)
