"""MindQuantum's own gradient of a variational circuit's energy, for mindquantum_sim
(docs/architecture.md, "Adapters"; the shared layout in :mod:`adapters._gradients`).

Translated once: the problem's circuit becomes a MindQuantum ``Circuit`` whose rotations
carry ParameterResolver names (one name per angle, ``theta<k>``; slots sharing an angle
share the name; the gates are the adapter's, its ``gates(instruction, angle)`` handed in)
and its observable a ``Hamiltonian`` of a ``QubitOperator``.
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

import mindquantum
import numpy as np
from mindquantum.core.circuit import Circuit
from mindquantum.core.operators import Hamiltonian, QubitOperator
from mindquantum.core.parameterresolver import ParameterResolver
from mindquantum.simulator import Simulator

PREFIX = "theta"


def circuit(problem, gates):
    """``(Circuit, angles)``: the problem's circuit with angle k named ``theta<k>``, and
    the index into theta of each of its ``params_name`` (MindQuantum's order);
    ``gates(instruction, angle)`` is the adapter's list of MindQuantum gates of one."""
    native = []
    zero = np.zeros(problem.n_params)  # any angles: the named rotations replace them
    for slot, inst in zip(problem.slots, problem.circuit(zero)):
        angle = None if slot.param is None else f"{PREFIX}{slot.param}"
        native += gates(inst, angle)
    out = Circuit(native)
    angles = np.array([int(name[len(PREFIX):]) for name in out.params_name], dtype=np.intp)
    return out, angles


def hamiltonian(problem):
    """The observable as a Hamiltonian: a term {0: "Z", 2: "X"} is ``"Z0 X2"``."""
    total = QubitOperator()
    for coeff, term in problem.observable:
        total += QubitOperator(" ".join(f"{p}{q}" for q, p in sorted(term.items())), coeff)
    return Hamiltonian(total)


def _simulator(problem):
    return Simulator("mqvector", problem.n, dtype=mindquantum.complex128)


def gradient(problem, method, gates):
    """``grad(theta)`` through mqvector's gradient operator (its one method, "adjoint")."""
    circ, angles = circuit(problem, gates)
    operator = _simulator(problem).get_expectation_with_grad(hamiltonian(problem), circ)

    def grad(theta):
        theta = problem.check(theta)
        _, by_name = operator(theta[angles])  # shapes (1, 1) and (1, 1, len(angles))
        out = np.zeros(problem.n_params)
        out[angles] = by_name[0, 0].real     # an angle no gate uses keeps 0
        return out
    return grad


def energy(problem, method, gates):
    """``energy(theta)``: mqvector's expectation of the circuit run at theta."""
    circ, angles = circuit(problem, gates)
    names, ham, sim = circ.params_name, hamiltonian(problem), _simulator(problem)

    def value(theta):
        theta = problem.check(theta)
        pr = ParameterResolver(dict(zip(names, theta[angles].tolist())))
        return float(sim.get_expectation(ham, circ, pr=pr).real)
    return value
