"""MindQuantum's own gradient of a variational circuit's energy (DESIGN.md, "Contract:
variational circuits"), for mindquantum_sim.

Translated once: the problem's circuit becomes a MindQuantum ``Circuit`` whose rotations
carry ParameterResolver names (one name per angle, ``theta<k>``; slots sharing an angle
share the name) and its observable a ``Hamiltonian`` of a ``QubitOperator``.
``Simulator("mqvector", n).get_expectation_with_grad(hamiltonian, circuit)`` compiles them
into mqvector's gradient operator, the adjoint method in C++ (one forward pass, then a
backward sweep that uncomputes the gates); each call passes the angles, in the order of
the circuit's ``params_name`` (first appearance, not the name's index), and returns the
energy and d energy / d angle per name (complex; the imaginary part is rounding), with
the contributions of every gate sharing a name summed.

The operator starts from the simulator's state, which therefore stays |0...0>: nothing
is ever applied to that simulator. The energy is ``get_expectation(hamiltonian, circuit,
pr=...)`` on a second simulator: mqvector runs the circuit on a copy of its |0...0> and
measures, leaving the simulator as it was.

Conventions, checked numerically on 0.12.0 (tests/adapters/test_mindquantum_sim.py): RX,
RY, RZ and PhaseShift are our Rx, Ry, Rz, phase (RX(t) = exp(-i t X / 2)), and ``Z0`` of a
QubitOperator acts on qubit 0, bit 0 of the amplitude index, so nothing is renumbered.
"""

import numpy as np

from .mindquantum_sim import _gates, mindquantum

PREFIX = "theta"


def circuit(problem):
    """``(Circuit, angles)``: the problem's circuit with angle k named ``theta<k>``, and
    the index into theta of each of its ``params_name`` (MindQuantum's order)."""
    gates = []
    zero = np.zeros(problem.n_params)  # any angles: the named rotations replace them
    for slot, inst in zip(problem.slots, problem.circuit(zero)):
        angle = None if slot.param is None else f"{PREFIX}{slot.param}"
        gates += _gates(inst, angle)
    out = mindquantum.core.circuit.Circuit(gates)
    angles = np.array([int(name[len(PREFIX):]) for name in out.params_name], dtype=np.intp)
    return out, angles


def hamiltonian(problem):
    """The observable as a Hamiltonian: a term {0: "Z", 2: "X"} is ``"Z0 X2"``."""
    ops = mindquantum.core.operators
    total = ops.QubitOperator()
    for coeff, term in problem.observable:
        total += ops.QubitOperator(" ".join(f"{p}{q}" for q, p in sorted(term.items())), coeff)
    return ops.Hamiltonian(total)


def _simulator(problem):
    return mindquantum.simulator.Simulator("mqvector", problem.n, dtype=mindquantum.complex128)


def adjoint(problem):
    """``grad(theta)`` through mqvector's gradient operator."""
    circ, angles = circuit(problem)
    operator = _simulator(problem).get_expectation_with_grad(hamiltonian(problem), circ)

    def grad(theta):
        theta = problem.check(theta)
        _, by_name = operator(theta[angles])  # shapes (1, 1) and (1, 1, len(angles))
        out = np.zeros(problem.n_params)
        out[angles] = by_name[0, 0].real     # an angle no gate uses keeps 0
        return out
    return grad


def energy(problem):
    """``energy(theta)``: mqvector's expectation of the circuit run at theta."""
    circ, angles = circuit(problem)
    names, ham, sim = circ.params_name, hamiltonian(problem), _simulator(problem)
    resolver = mindquantum.core.parameterresolver.ParameterResolver

    def value(theta):
        theta = problem.check(theta)
        pr = resolver(dict(zip(names, theta[angles].tolist())))
        return float(sim.get_expectation(ham, circ, pr=pr).real)
    return value
