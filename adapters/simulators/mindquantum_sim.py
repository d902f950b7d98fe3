"""MindQuantum behind the kernels' gate instructions, through its ``mqvector`` simulator:
``Simulator("mqvector", n, dtype=...)`` keeps the state, ``apply_gate`` applies one gate
and ``apply_circuit`` a whole circuit to it in place (synchronous C++, nothing deferred).

MindQuantum's conventions are ours (checked numerically on 0.12.0): qubit q is bit q of
``get_qs()``'s index, bit j of a ``UnivMathGate`` matrix is its ``obj_qubits[j]``, and RX,
RY, RZ, PhaseShift are our Rx, Ry, Rz, phase (RX(t) = exp(-i t X / 2)). Its gates take
controls valued 1 only; a control on |0> is X on that qubit before and after, inside the
program. ``dtype=mindquantum.complex64`` is a real single-precision state (its results
differ from complex128's by single-precision rounding, see test_peer_specifics).

``set_qs`` divides the state it is given by its norm, so ``from_numpy`` refuses a state
whose norm is not 1 (ValueError) instead of holding other amplitudes than it was handed.

Threads: mqvector's ``set_threads_number`` raises NotImplementedError, and its C++ never
calls omp_set_num_threads: its ``#pragma omp parallel`` loops run with the OpenMP default
count of the libgomp its wheel bundles (mindquantum.libs/), read from OMP_NUM_THREADS when
it loads (the suites set 1 first) and changed at run time through threadpoolctl, which is
what set_threads does (measured: a second thread appears after set_threads(2)).
Importing mindquantum 0.12 imports torch (about 2 s).

Gradients of variational circuits (GRADIENT_METHODS): mqvector's own adjoint-method
operator, from ``Simulator.get_expectation_with_grad``; :mod:`._mindquantum_gradients`
translates.
"""

import numpy as np

from .. import _gradients
from .._guard import guarded_import
from . import _base

NAME = "mindquantum"
PRECISIONS = ("complex128", "complex64")
PACKAGE = "mindquantum"
FUSION_DEFAULT = 0
PRECISION = PRECISIONS[0]
SETTINGS = {"threads": "1 (OMP_NUM_THREADS=1 before import; set_threads sets the OpenMP "
                       "count of mindquantum's own libgomp through threadpoolctl)",
            "api": "Simulator('mqvector', n, dtype=complex128|complex64): apply_gate for a "
                   "gate, apply_circuit for a Circuit, on the simulator's state in place",
            "gates": "X, Y, Z, H, S, T, RX, RY, RZ, PhaseShift, SWAP (controls via .on(obj, "
                     "ctrl)); UnivMathGate otherwise; controls on |0> wrapped in X",
            "states": "set_qs renormalises, so from_numpy refuses a state of norm != 1",
            # mqvector's VectorState::ApplyCircuit (ccsrc/include/simulator/vector/
            # vector_state.tpp) loops over the circuit calling ApplyGate, one qs_policy
            # kernel per gate; apply_gate is that one call
            "fusion": "off (apply_circuit runs ApplyGate per gate, one kernel each)",
            "gradients": "adjoint: Simulator.get_expectation_with_grad(Hamiltonian, Circuit "
                         "with named rotations), built once, called per theta (complex128); "
                         "energy: get_expectation(Hamiltonian, Circuit, pr)"}

mindquantum, AVAILABLE, REASON = guarded_import("mindquantum", "simulator", "core.gates",
                                                "core.circuit", "core.operators",
                                                "core.parameterresolver")
#: how far from 1 a state's norm may be (set_qs divides every amplitude by it): within
#: the conformance tolerances of a single gate (1e-12 and 2e-6)
_NORM_TOLERANCE = {"complex128": 1e-12, "complex64": 1e-6}


_require, version, sync = _base.basics(NAME, mindquantum, AVAILABLE, REASON)


# --- threads ---------------------------------------------------------------------------

def _openmp():
    """threadpoolctl's controllers of the OpenMP runtime mqvector's loops run on: the
    libgomp in mindquantum's wheel. A build linked to a shared runtime has none of its
    own: then every OpenMP runtime loaded, as harness.threads.set_threads does anyway."""
    import threadpoolctl
    libs = threadpoolctl.ThreadpoolController().select(user_api="openmp").lib_controllers
    return [lib for lib in libs if "mindquantum" in lib.filepath] or libs


def threads():
    """The number of OpenMP threads mqvector runs its loops with (in this thread)."""
    _require()
    libs = _openmp()
    if not libs:
        raise RuntimeError(f"{REASON}: no OpenMP runtime is loaded")
    return int(libs[0].num_threads)


def set_threads(n):
    """Run mqvector's loops with ``n`` OpenMP threads from now on (OpenMP's count is per
    calling thread: the thread that times ``run``)."""
    _require()
    n = int(n)
    if n < 1:
        raise ValueError(f"n must be at least 1 thread, got {n}")
    for lib in _openmp():
        lib.set_num_threads(n)


# --- states ----------------------------------------------------------------------------

def from_numpy(vec):
    """A new mqvector simulator holding a copy of ``vec``, in ``vec``'s precision."""
    _require()
    precision = _base.precision_of(vec, NAME, PRECISIONS)
    vec = np.asarray(vec, dtype=np.complex128)  # set_qs's argument; a copy for complex64
    norm = float(np.linalg.norm(vec))           # in double for both precisions
    if abs(norm - 1) > _NORM_TOLERANCE[precision]:
        raise ValueError(f"mindquantum normalises the states it is given; this one has norm "
                         f"{norm:.12g}, so its amplitudes would change")
    dtype = mindquantum.complex128 if precision == "complex128" else mindquantum.complex64
    sim = mindquantum.simulator.Simulator("mqvector", vec.shape[0].bit_length() - 1,
                                          dtype=dtype)
    sim.set_qs(vec)
    return sim


def to_numpy(sim):
    """The amplitudes of ``sim`` as a new array in its precision (``get_qs`` returns a new
    complex128 array for both precisions; complex64 values convert back exactly)."""
    _require()
    dtype = np.complex128 if sim.dtype == mindquantum.complex128 else np.complex64
    return sim.get_qs().astype(dtype, copy=False)


# --- gates -----------------------------------------------------------------------------

def _named(G):
    """name -> f(theta) -> a MindQuantum gate."""
    return {"X": lambda t: G.X, "Y": lambda t: G.Y, "Z": lambda t: G.Z, "H": lambda t: G.H,
            "S": lambda t: G.S, "T": lambda t: G.T, "Rx": G.RX, "Ry": G.RY, "Rz": G.RZ,
            "phase": G.PhaseShift}


def _gates(instruction, angle=None):
    """The MindQuantum gates of one instruction, in order: X.on(t, c) is its CNOT,
    X.on(t, [c1, c2]) its Toffoli, Z.on(t, c) its CZ, PhaseShift with a control its
    controlled phase. ``angle``, a parameter name, replaces a rotation's angle (the
    circuits MindQuantum differentiates); its gate must then be a named rotation, since a
    matrix has no parameter."""
    G = mindquantum.core.gates
    name, locs, ctrls, vals, params = _base.parts(instruction)
    table = _named(G)
    rotation = name in ("Rx", "Ry", "Rz", "phase")
    named = len(locs) == 1 and name in table and (len(params) == 1 or not rotation)
    if angle is not None and not (named and rotation):
        raise NotImplementedError(f"mindquantum has no parameterised gate for {name} on "
                                  f"qubits {locs}")
    if named:
        if angle is None:
            angle = float(params[0]) if params else None
        base = table[name](angle).on(locs[0], list(ctrls) or None)
    elif name == "SWAP" and len(locs) == 2:
        base = G.SWAP.on(list(locs), list(ctrls) or None)
    else:
        matrix = np.asarray(instruction.matrix, dtype=np.complex128)
        base = G.UnivMathGate(name, matrix).on(list(locs), list(ctrls) or None)
    flips = [G.X.on(q) for q, v in zip(ctrls, vals) if v == 0]
    return [*flips, base, *flips]


def _build(instructions, n):
    """A gate (n None): the instruction's gate, or a Circuit when controls on |0> add X
    gates around it. A circuit: a MindQuantum Circuit (it caches its C++ gates after the
    first run)."""
    gates = [g for inst in instructions for g in _gates(inst)]
    if n is None and len(gates) == 1:
        return gates[0]
    return mindquantum.core.circuit.Circuit(gates)


def run(sim, program):
    """The gate or circuit on ``sim`` in place: the timed call."""
    if not isinstance(sim, mindquantum.simulator.Simulator):
        raise _base.not_a_state(NAME, sim)
    native = _base.built(program, NAME, sim.n_qubits)
    try:
        if isinstance(native, mindquantum.core.circuit.Circuit):
            sim.apply_circuit(native)
        else:
            sim.apply_gate(native)
    except Exception as exc:
        raise _base.tool_failed(NAME, exc) from exc
    return sim


gate, circuit, apply = _base.programs(__name__, _require, _build)


# --- circuit gradients (docs/architecture.md, "Adapters"): in _mindquantum_gradients --

#: mqvector's adjoint-method gradient operator (Simulator.get_expectation_with_grad)
GRADIENT_METHODS = ("adjoint",)


# the gradient module builds its circuit from this adapter's _gates, handed in
prepare_gradient, prepare_energy, circuit_gradient = _gradients.delegated(
    NAME, GRADIENT_METHODS, _require, __name__, "._mindquantum_gradients", gates=_gates)
