"""qulacs's gradient of a variational circuit's energy, for qulacs_sim (docs/architecture.md,
"Adapters"; the shared layout in :mod:`adapters._gradients`).

"backprop": a ParametricQuantumCircuit built once, its parameters set per call, and
ParametricQuantumCircuit.backprop(Observable). backprop differentiates qulacs's parametric
gates only, ParametricRX/RY/RZ and ParametricPauliRotation, each R(a) = exp(+i a P / 2)
with its own parameter. So each of our angles becomes one or more of them, angle
a_k = f_k * theta[p_k], and dE/dtheta_p = sum_k f_k dE/da_k: a rotation
exp(-i t c P / 2) has f = -c (qulacs's sign). Controls and phase are Pauli sums
(:func:`rotation_terms`). Fixed gates are the adapter's own (``gate``, handed in).
"""

import itertools
import math

import numpy as np
import qulacs

from . import _base

# U(t) = exp(-i t G / 2) with G as Pauli terms on the target ("I": the identity);
# phase(t) = exp(i t |1><1|) = exp(-i t (Z - I) / 2).
_GENERATORS = {"Rx": ((1.0, "X"),), "Ry": ((1.0, "Y"),), "Rz": ((1.0, "Z"),),
               "phase": ((1.0, "Z"), (-1.0, "I"))}
_PAULI_IDS = {"X": 1, "Y": 2, "Z": 3}


def rotation_terms(slot):
    """The slot's gate as commuting Pauli rotations, ``[(c, {qubit: "X"|"Y"|"Z"})]`` with
    the gate = prod exp(-i t c P / 2) up to a global phase.

    Controls (q, v) make the generator Pi (x) G with Pi = prod_q (I + (1 - 2v) Z_q) / 2:
    2**k commuting terms Z_S (x) G; the identity term is a global phase, dropped.
    """
    if slot.name not in _GENERATORS:
        raise NotImplementedError(f"qulacs's backprop has no parametric form of {slot.name!r}")
    (target,), ctrls = slot.locs, slot.ctrl_locs
    signs = [1 - 2 * v for v in slot.ctrl_vals or (1,) * len(ctrls)]
    out = []
    for subset in itertools.product((False, True), repeat=len(ctrls)):
        scale = 2.0 ** -len(ctrls) * math.prod(s for s, used in zip(signs, subset) if used)
        zs = {q: "Z" for q, used in zip(ctrls, subset) if used}
        for c, pauli in _GENERATORS[slot.name]:
            word = zs if pauli == "I" else {**zs, target: pauli}
            if word:
                out.append((scale * c, word))
    return out


def _observable(problem):
    observable = qulacs.Observable(problem.n)
    for c, term in problem.observable:
        observable.add_operator(c, " ".join(f"{p} {q}" for q, p in term.items()))
    return observable


class Backprop:
    """The problem as one ParametricQuantumCircuit, an Observable and a QuantumState;
    ``gate(instruction)`` is the adapter's qulacs gate of a fixed instruction."""

    def __init__(self, problem, gate):
        self.problem, n = problem, problem.n
        self.circuit = qulacs.ParametricQuantumCircuit(n)
        rows, factors = [], []
        for slot, inst in zip(problem.slots, problem.circuit(problem.theta0)):
            if slot.param is None:
                self.circuit.add_gate(gate(_base.checked(inst, n)))
                continue
            for c, word in rotation_terms(slot):
                if len(word) == 1:
                    (q, pauli), = word.items()
                    getattr(self.circuit, f"add_parametric_R{pauli}_gate")(q, 0.0)
                else:
                    self.circuit.add_parametric_multi_Pauli_rotation_gate(
                        list(word), [_PAULI_IDS[p] for p in word.values()], 0.0)
                rows.append(slot.param)
                factors.append(-c)
        self.rows, self.factors = np.array(rows, dtype=np.intp), np.array(factors)
        self.observable = _observable(problem)
        self.state = qulacs.QuantumState(n)

    def _bind(self, theta):
        theta = self.problem.check(theta)
        set_parameter = self.circuit.set_parameter
        for k, angle in enumerate((self.factors * theta[self.rows]).tolist()):
            set_parameter(k, angle)

    def gradient(self, theta):
        self._bind(theta)
        da = np.array(self.circuit.backprop(self.observable))
        return np.bincount(self.rows, weights=self.factors * da,
                           minlength=self.problem.n_params)

    def energy(self, theta):
        self._bind(theta)
        self.state.set_zero_state()
        self.circuit.update_quantum_state(self.state)
        return float(self.observable.get_expectation_value(self.state))


def gradient(problem, method, gate):
    """``grad(theta)`` by backprop (qulacs's one method)."""
    return Backprop(problem, gate).gradient


def energy(problem, method, gate):
    """``energy(theta)`` on the same circuit and observable."""
    return Backprop(problem, gate).energy
