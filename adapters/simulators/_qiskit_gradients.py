"""Qiskit's reverse-mode gradient of a variational circuit's energy, for qiskit_aer_sim
(docs/architecture.md, "Adapters"; the shared layout in :mod:`adapters._gradients`). It
runs in qiskit and numpy, not Aer: ``ReverseEstimatorGradient`` of the qiskit-algorithms
package (Jones and Gacon's reverse sweep over qiskit ``Statevector``s), and the energy
from qiskit's ``StatevectorEstimator``.

Translated once: a ``QuantumCircuit`` over a ``ParameterVector`` (rx, ry, rz, p with
angle theta[k]; x, y, z, h, s, t; controls through ``Gate.control(k, ctrl_state)``) and a
``SparsePauliOp`` built with ``from_sparse_list``, which takes qubit indices, so that no
label string's big-endian order is involved. Qiskit's qubit q is bit q of the amplitude
index and its RX(t) is exp(-i t X / 2), ours (checked by tests/adapters/
test_qiskit_aer_sim.py). Each call hands the gradient's ``run`` the angles in the order of
``circuit.parameters`` (qiskit sorts them; an angle no gate uses is absent).

Per call, ReverseEstimatorGradient itself (0.4.0) re-binds the circuit, simulates it with
``Statevector``, rebuilds the observable's sparse matrix (``to_matrix(sparse=True)``,
seconds at 20 qubits) and sweeps back one gate at a time through ``Statevector.evolve``:
that is its users' cost, kept as it is.

Controlled rotations: with qiskit 2.x, ``ControlledGate.is_parameterized()`` is False (it
reads the gate's own ``_params``, empty: the angle lives in ``base_gate``), so
qiskit-algorithms 0.4.0 never gives a crx/cry/crz/cp a gradient parameter and fails with
KeyError (qiskit-algorithms issue 216; qiskit PR 13952). A circuit with one is therefore
handed to the gradient through ``qiskit.transpile`` into uncontrolled rotations and CNOTs
(angles become expressions such as theta[k] / 2, which the gradient differentiates by the
chain rule); the energy runs the circuit as built.
"""

import numpy as np
from qiskit import transpile
from qiskit.circuit import ParameterVector, QuantumCircuit, library
from qiskit.primitives import StatevectorEstimator
from qiskit.quantum_info import SparsePauliOp
from qiskit_algorithms.gradients import ReverseEstimatorGradient

_ROTATIONS = {"Rx": library.RXGate, "Ry": library.RYGate, "Rz": library.RZGate,
              "phase": library.PhaseGate}
_FIXED = {"X": library.XGate, "Y": library.YGate, "Z": library.ZGate, "H": library.HGate,
          "S": library.SGate, "T": library.TGate}
#: what transpile unrolls controlled rotations into: gates the gradient differentiates or
#: leaves alone (it turns u into its own rotations)
_BASIS = ["rx", "ry", "rz", "p", "u", "x", "y", "z", "h", "s", "sdg", "t", "tdg", "cx"]


def _gate(slot, theta):
    if slot.param is not None and slot.name in _ROTATIONS:
        gate = _ROTATIONS[slot.name](theta[slot.param])
    elif slot.param is None and slot.name in _FIXED:
        gate = _FIXED[slot.name]()
    else:
        raise NotImplementedError(f"qiskit: no gate for {slot.name} "
                                  f"{'with' if slot.param is not None else 'without'} an angle")
    if len(slot.locs) != 1:
        raise NotImplementedError(f"qiskit: {slot.name} acts on one qubit, not {slot.locs}")
    if slot.ctrl_locs:
        vals = slot.ctrl_vals or (1,) * len(slot.ctrl_locs)
        # ctrl_state's bit j is the value of the j-th control qubit appended; annotated=False
        # (a ControlledGate, qiskit's behaviour before 2.3) says so, which qiskit 2.3 on
        # asks for when a rotation has several controls (DeprecationWarning)
        gate = gate.control(len(slot.ctrl_locs), annotated=False,
                            ctrl_state=sum(int(v) << j for j, v in enumerate(vals)))
    return gate


def circuit(problem):
    """The problem's circuit on ``ParameterVector("theta", n_params)``."""
    theta = ParameterVector("theta", problem.n_params)
    out = QuantumCircuit(problem.n)
    for slot in problem.slots:
        out.append(_gate(slot, theta), [*slot.ctrl_locs, *slot.locs])
    return out


def observable(problem):
    terms = [("".join(term.values()), list(term), coeff) for coeff, term in problem.observable]
    return SparsePauliOp.from_sparse_list(terms, num_qubits=problem.n)


def _angles(circ):
    """The index into theta of each of ``circ.parameters``, in that order."""
    return np.array([p.index for p in circ.parameters], dtype=np.intp)


def _differentiable(problem, circ):
    """``circ``, or its transpiled form when it has controlled rotations (module doc)."""
    if any(slot.param is not None and slot.ctrl_locs for slot in problem.slots):
        return transpile(circ, basis_gates=_BASIS, optimization_level=0)
    return circ


def gradient(problem, method):
    """``grad(theta)`` by qiskit-algorithms' ReverseEstimatorGradient (the one method,
    "reverse")."""
    circ = _differentiable(problem, circuit(problem))
    angles, op, gradient = _angles(circ), observable(problem), ReverseEstimatorGradient()

    def grad(theta):
        theta = problem.check(theta)
        result = gradient.run([circ], [op], [theta[angles]]).result()
        out = np.zeros(problem.n_params)
        out[angles] = result.gradients[0]  # an angle no gate uses keeps 0
        return out
    return grad


def energy(problem, method):
    """``energy(theta)``: StatevectorEstimator's expectation value at theta."""
    circ = circuit(problem)
    angles, op, estimator = _angles(circ), observable(problem), StatevectorEstimator()

    def value(theta):
        theta = problem.check(theta)
        return float(estimator.run([(circ, op, theta[angles])]).result()[0].data.evs)
    return value
