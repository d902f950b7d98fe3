"""The variational problem every gradient method and peer differentiates: a parameterised
circuit, an observable, and the energy <psi(theta)| H |psi(theta)> with psi(theta) =
U(theta)|0...0>.

A circuit is a tuple of :class:`Slot`: a named gate from :mod:`kernels.statevector.circuits`
whose angle is ``theta[param]`` (``param`` None for a fixed gate such as CNOT). Several
slots may share a parameter; the gradient is then the sum over them.
"""

from functools import cached_property
from typing import NamedTuple

import numpy as np

from ..statevector import circuits, states
from . import fused, pauli
from .fused import GENERATORS  # the parameterised gates and their generators

#: The kernel the energy (and every method built on it) runs: the fastest one-thread CPU
#: kernel (stride: structure-specialised 2x2 paths, named CNOT and diagonal updates).
KERNEL = "stride"


class Slot(NamedTuple):
    name: str            # a gate of circuits.gate: "Rx", "Rz", "X", ...
    locs: tuple
    ctrl_locs: tuple = ()
    ctrl_vals: tuple = ()
    param: int | None = None   # index into theta, or None for a fixed gate


def _check_slot(s, n):
    """ValueError naming the slot if its qubits, controls or parameter are not a gate on
    ``n`` qubits (a stray qubit index would otherwise wrap around in numpy's indexing)."""
    qubits = (*s.locs, *s.ctrl_locs)
    if not s.locs or any(not isinstance(q, (int, np.integer)) or not 0 <= q < n
                         for q in qubits):
        raise ValueError(f"slot {s}: qubits must be integers in [0, {n})")
    if len(set(qubits)) != len(qubits):
        raise ValueError(f"slot {s}: a qubit appears twice among its targets and controls")
    if s.ctrl_vals and (len(s.ctrl_vals) != len(s.ctrl_locs)
                        or any(v not in (0, 1) for v in s.ctrl_vals)):
        raise ValueError(f"slot {s}: ctrl_vals must be one 0 or 1 per control")
    if s.param is None:
        return
    if not isinstance(s.param, (int, np.integer)) or s.param < 0:
        raise ValueError(f"slot {s}: param must be a non-negative integer or None")
    if s.name not in GENERATORS:
        raise ValueError(f"slot {s}: gate {s.name!r} has no angle; parameterised "
                         f"gates are {sorted(GENERATORS)}")


class Problem:
    """A parameterised circuit on ``n`` qubits and a Pauli-sum observable.

    ``circuit(theta)`` gives the instructions at those angles, ``energy(theta)`` runs them
    with :data:`KERNEL` from |0...0> and measures the observable. ``theta0`` is a starting
    point (1-D float array of ``n_params`` angles).
    """

    def __init__(self, n, slots, observable, theta0, name="circuit"):
        self.n, self.name = int(n), name
        self.slots = tuple(Slot(*s) for s in slots)
        if self.n < 1:
            raise ValueError(f"a problem needs n >= 1 qubits, got {n!r}")
        params = [s.param for s in self.slots if s.param is not None]
        self.n_params = max(params) + 1 if params else 0
        for s in self.slots:
            _check_slot(s, self.n)
        observable = list(observable)
        self.compiled = pauli.compile_observable(observable, self.n)  # checks it first
        self.observable = [(float(c), dict(t)) for c, t in observable]
        self.theta0 = self.check(theta0)

    def __repr__(self):
        return (f"<Problem {self.name}: {self.n} qubits, {len(self.slots)} gates, "
                f"{self.n_params} parameters, {len(self.observable)} observable terms>")

    def check(self, theta):
        """``theta`` as a 1-D float64 array of ``n_params`` finite angles, or ValueError."""
        arr = np.asarray(theta)
        if arr.dtype.kind not in "fiu" or arr.shape != (self.n_params,):
            raise ValueError(f"theta must be a 1-D real array of {self.n_params} angles, "
                             f"got shape {arr.shape} dtype {arr.dtype}")
        if not np.all(np.isfinite(arr)):
            raise ValueError("theta must be finite")
        return arr.astype(np.float64)

    def circuit(self, theta):
        """The circuit at angles ``theta``: a list of :class:`circuits.Instruction`."""
        theta = self.check(theta)
        return [circuits.gate(s.name, *s.locs, ctrl=s.ctrl_locs, ctrl_vals=s.ctrl_vals or None,
                              theta=None if s.param is None else theta[s.param])
                for s in self.slots]

    def state(self, theta, dtype=np.complex128):
        """psi(theta) = U(theta)|0...0> with :data:`KERNEL`, fixed gates prepared and each
        run of rotations on one qubit applied as one 2x2 (:mod:`fused`)."""
        plan = fused.plan(self.slots, self.n, KERNEL, np.dtype(dtype).name)
        theta = self.check(theta)
        return fused.run(plan, fused.rotations(plan, theta), states.zero_state(self.n, dtype))

    @cached_property
    def measure(self):
        """The observable prepared for repeated use on states (:class:`pauli.Observable`:
        its diagonal terms summed once, on first use)."""
        return pauli.Observable(self.compiled, self.n)

    def energy(self, theta):
        """<psi(theta)| H |psi(theta)>."""
        return self.measure.expectation(self.state(theta))

    def hamiltonian(self):
        """The observable as a dense 2**n x 2**n matrix (small n only: a test oracle)."""
        if self.n > 12:
            raise NotImplementedError(f"a dense observable of {self.n} qubits is too large")
        dim = 1 << self.n
        out = np.zeros((dim, dim), dtype=np.complex128)
        for k in range(dim):
            e = np.zeros(dim, dtype=np.complex128)
            e[k] = 1
            out[:, k] = pauli.apply_observable(e, self.compiled)
        return out


def tfim_ring(n):
    """The transverse-field Ising model on a ring: sum_i Z_i Z_{i+1 mod n} + sum_i X_i."""
    if int(n) != n or n < 2:
        raise ValueError(f"the Ising ring needs n >= 2 qubits, got {n!r}")
    return ([(1.0, {i: "Z", (i + 1) % n: "Z"}) for i in range(n)]
            + [(1.0, {i: "X"}) for i in range(n)])


def qcbm_energy(n, depth=9, rng=None):
    """The QCBM ansatz of the gate benchmarks (:func:`circuits.qcbm`, ``depth`` layers of
    Rx/Rz rotations with rings of CNOTs) with every rotation angle a parameter (25n of them
    at depth 9), its angles from ``rng`` as ``theta0``, and the Ising ring's energy."""
    if rng is None:
        rng = np.random.default_rng(0)
    if int(n) != n or n < 2:
        raise ValueError(f"qcbm_energy needs n >= 2 qubits, got {n!r}")
    if int(depth) != depth or depth < 1:
        raise ValueError(f"depth must be a positive integer, got {depth!r}")
    slots, theta0 = [], []
    for inst in circuits.qcbm(int(n), rng, int(depth)):
        param = None
        if inst.name in GENERATORS:
            param = len(theta0)
            theta0.append(inst.params[0])
        slots.append(Slot(inst.name, inst.locs, inst.ctrl_locs, inst.ctrl_vals, param))
    return Problem(n, slots, tfim_ring(int(n)), np.array(theta0), name=f"qcbm{depth}")
