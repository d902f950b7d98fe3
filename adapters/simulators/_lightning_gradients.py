"""Lightning's gradients of a variational circuit's energy, for lightning_sim
(docs/architecture.md, "Adapters"; the shared layout in :mod:`adapters._gradients`).

"adjoint": the C++ objects lightning.qubit's adjoint method drives (the device's
_adjoint_jacobian.py): the state, the gates as the adapter runs them (its ``operation``,
handed in), an OpsStruct of the same gates and a Hamiltonian observable, handed to
AdjointJacobianC128. "qnode": a PennyLane QNode on "lightning.qubit" with
diff_method="adjoint" and qml.grad, as PennyLane's users write it. Both renumber our qubit
q to wire n-1-q, gates and observable alike, so that the state Lightning holds has our
amplitudes in our order.
"""

import numpy as np
from pennylane_lightning import lightning_qubit_ops as ops

_PAULIS = {"X": "PauliX", "Y": "PauliY", "Z": "PauliZ"}


def _observable(problem):
    """The problem's observable as a HamiltonianC128 of named Paulis on Lightning's wires."""
    obs = ops.observables
    n, terms = problem.n, []
    for _, term in problem.observable:
        named = [obs.NamedObsC128(_PAULIS[p], [n - 1 - q]) for q, p in term.items()] \
            or [obs.NamedObsC128("Identity", [0])]
        terms.append(named[0] if len(named) == 1 else obs.TensorProdObsC128(named))
    return obs.HamiltonianC128(np.array([c for c, _ in problem.observable]), terms)


class Adjoint:
    """The problem on one StateVectorC128, built once: per call :meth:`forward` writes the
    angles into the gates' parameter lists (shared by the state's calls and the OpsStruct
    made from them) and runs the circuit from |0...0>. ``operation(instruction, n, dtype)``
    is the adapter's (method name, arguments) of one gate."""

    def __init__(self, problem, operation):
        n, dtype = problem.n, np.dtype(np.complex128)
        self.problem, self.sv = problem, ops.StateVectorC128(n)
        self.calls, self.ops_lists, self.angles = [], [[] for _ in range(7)], []
        for slot, inst in zip(problem.slots, problem.circuit(problem.theta0)):
            method, args = operation(inst, n, dtype)
            if method.startswith("apply"):  # a matrix has no generator to differentiate
                raise NotImplementedError(f"lightning's adjoint has no named gate for "
                                          f"{inst.name!r}")
            self.calls.append((getattr(self.sv, method), args))
            if len(args) == 5:  # a method's controlled form
                controls, values, wires, _, params = args
            else:  # (wires, inverse, params); CNOT, CRX, ... have their controls in wires
                (wires, _, params), controls, values = args, [], []
            # create_ops_list's columns: names, params, wires, inverses, matrices,
            # control wires, control values
            for column, value in zip(self.ops_lists, (method, params, wires, False,
                                                      np.zeros(0, dtype), controls, values)):
                column.append(value)
            if slot.param is not None:
                self.angles.append((params, slot.param))
        # the Jacobian's rows are the parametric gates, in order; a parameter sums its gates'
        self.rows = np.array([p for _, p in self.angles], dtype=np.intp)
        self.trainable = list(range(len(self.rows)))
        self.hamiltonian = _observable(problem)
        self.measure = ops.MeasurementsC128(self.sv)
        self.adjoint = ops.algorithms.AdjointJacobianC128()

    def forward(self, theta):
        theta = self.problem.check(theta)
        for params, p in self.angles:
            params[0] = theta[p]
        self.sv.resetStateVector()
        for call, args in self.calls:
            call(*args)

    def gradient(self, theta):
        self.forward(theta)
        # an OpsStruct is immutable: a new one per call carries the new angles
        ops_struct = ops.algorithms.create_ops_listC128(*self.ops_lists)
        # the reverse sweep starts from (a copy of) the state after the circuit
        jac = self.adjoint(self.sv, [self.hamiltonian], ops_struct, self.trainable)
        return np.bincount(self.rows, weights=jac, minlength=self.problem.n_params)

    def energy(self, theta):
        self.forward(theta)
        return float(self.measure.expval(self.hamiltonian))


def qnode(problem):
    """(energy, gradient): a QNode on lightning.qubit and its qml.grad, built once."""
    try:
        import pennylane as qml
        from pennylane import numpy as pnp
    except ImportError as exc:
        raise RuntimeError(f"lightning's qnode method needs pennylane: {exc}") from exc
    n = problem.n
    gates = {"X": qml.PauliX, "Y": qml.PauliY, "Z": qml.PauliZ, "H": qml.Hadamard,
             "S": qml.S, "T": qml.T, "Rx": qml.RX, "Ry": qml.RY, "Rz": qml.RZ,
             "phase": qml.PhaseShift}
    steps = []
    for s in problem.slots:
        op = gates.get(s.name)
        if op is None:
            raise NotImplementedError(f"lightning's qnode method has no gate for {s.name!r}")
        if s.ctrl_locs:  # qml.ctrl turns one control on |1> into CNOT, CRX, ...
            op = qml.ctrl(op, control=[n - 1 - q for q in s.ctrl_locs],
                          control_values=list(s.ctrl_vals or (1,) * len(s.ctrl_locs)))
        steps.append((op, s.param, n - 1 - s.locs[0]))
    paulis = {"X": qml.PauliX, "Y": qml.PauliY, "Z": qml.PauliZ}
    hamiltonian = qml.Hamiltonian(
        [c for c, _ in problem.observable],
        [qml.prod(*[paulis[p](n - 1 - q) for q, p in t.items()]) if t else qml.Identity(0)
         for _, t in problem.observable])

    @qml.qnode(qml.device("lightning.qubit", wires=n), diff_method="adjoint")
    def energy(theta):
        for op, param, wire in steps:
            if param is None:
                op(wires=wire)
            else:
                op(theta[param], wires=wire)
        return qml.expval(hamiltonian)

    grad = qml.grad(energy)
    return (lambda theta: float(energy(problem.check(theta))),
            lambda theta: np.asarray(grad(pnp.array(problem.check(theta), requires_grad=True)),
                                     dtype=np.float64))


def gradient(problem, method, operation):
    """``grad(theta)`` by ``method`` ("adjoint": the C++ objects, "qnode": PennyLane)."""
    return Adjoint(problem, operation).gradient if method == "adjoint" else qnode(problem)[1]


def energy(problem, method, operation):
    """``energy(theta)`` through the same objects as :func:`gradient`."""
    return Adjoint(problem, operation).energy if method == "adjoint" else qnode(problem)[0]
