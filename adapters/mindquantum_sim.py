"""MindQuantum behind the kernels' gate instructions, through its ``mqvector`` simulator:
``Simulator("mqvector", n, dtype=...)`` keeps the state, ``apply_gate`` applies one gate
and ``apply_circuit`` a whole circuit to it in place.

MindQuantum's conventions are ours (checked numerically on 0.12.0): qubit q is bit q of
``get_qs()``'s index, bit j of a ``UnivMathGate`` matrix is its ``obj_qubits[j]``, and RX,
RY, RZ, PhaseShift are our Rx, Ry, Rz, phase. Its gates take controls valued 1 only; a
control on |0> is X on that qubit before and after, inside the program.

``set_qs`` normalises the state it is given, so ``from_numpy`` refuses a state whose norm
is not 1 (ValueError) instead of returning other amplitudes than it was handed. Threads:
mqvector has no runtime control (``set_threads_number`` raises NotImplementedError for
it); its OpenMP runtime follows OMP_NUM_THREADS, which the suites set to 1 before import.
"""

import numpy as np

from . import _simulator
from ._guard import guarded_import

NAME = "mindquantum"
PRECISIONS = ("complex128", "complex64")
PRECISION = PRECISIONS[0]
SETTINGS = {"threads": "1 (OMP_NUM_THREADS=1 before import; no runtime control for mqvector)",
            "api": "Simulator('mqvector'): apply_gate for a gate, apply_circuit for a circuit",
            "gates": "X, Y, Z, H, S, T, RX, RY, RZ, PhaseShift, SWAP with controls; "
                     "UnivMathGate otherwise; controls on |0> wrapped in X"}

mindquantum, AVAILABLE, REASON = guarded_import("mindquantum", "simulator", "core.gates",
                                                "core.circuit")
#: how far from 1 a state's norm may be before set_qs would visibly change it
_NORM_TOLERANCE = {"complex128": 1e-10, "complex64": 1e-5}


_require, version, sync = _simulator.basics(NAME, mindquantum, AVAILABLE, REASON)


def from_numpy(vec):
    _require()
    precision = _simulator.precision_of(vec, NAME, PRECISIONS)
    vec = np.asarray(vec)
    norm = float(np.linalg.norm(vec))
    if abs(norm - 1) > _NORM_TOLERANCE[precision]:
        raise ValueError(f"mindquantum normalises the states it is given; this one has norm "
                         f"{norm:.12g}, so its amplitudes would change")
    dtype = mindquantum.complex128 if precision == "complex128" else mindquantum.complex64
    sim = mindquantum.simulator.Simulator("mqvector", vec.shape[0].bit_length() - 1,
                                          dtype=dtype)
    sim.set_qs(vec.astype(np.complex128))
    return sim


def to_numpy(sim):
    _require()
    # get_qs() returns complex128 whatever the simulator's precision
    dtype = np.complex128 if sim.dtype == mindquantum.complex128 else np.complex64
    return np.asarray(sim.get_qs(), dtype=dtype).copy()


def _named(G):
    """name -> f(theta) -> a MindQuantum gate."""
    return {"X": lambda t: G.X, "Y": lambda t: G.Y, "Z": lambda t: G.Z, "H": lambda t: G.H,
            "S": lambda t: G.S, "T": lambda t: G.T, "Rx": G.RX, "Ry": G.RY, "Rz": G.RZ,
            "phase": G.PhaseShift}


def _gates(instruction):
    """The MindQuantum gates of one instruction, in order."""
    G = mindquantum.core.gates
    name, locs, ctrls, vals, params = _simulator.parts(instruction)
    table = _named(G)
    rotation = name in ("Rx", "Ry", "Rz", "phase")
    if len(locs) == 1 and name in table and (len(params) == 1 or not rotation):
        base = table[name](params[0] if params else None).on(locs[0], list(ctrls) or None)
    elif name == "SWAP" and len(locs) == 2:
        base = G.SWAP.on(list(locs), list(ctrls) or None)
    else:
        matrix = np.asarray(instruction.matrix, dtype=np.complex128)
        base = G.UnivMathGate(name, matrix).on(list(locs), list(ctrls) or None)
    flips = [G.X.on(q) for q, v in zip(ctrls, vals) if v == 0]
    return [*flips, base, *flips]


def gate(instruction):
    _require()
    gates = _gates(instruction)
    if len(gates) == 1:
        return gates[0]
    return mindquantum.core.circuit.Circuit(gates)


def circuit(instructions, n):
    _require()
    return mindquantum.core.circuit.Circuit([g for inst in instructions for g in _gates(inst)])


def run(sim, program):
    """The gate or circuit on ``sim`` in place: the timed call."""
    if isinstance(program, mindquantum.core.circuit.Circuit):
        sim.apply_circuit(program)
    else:
        sim.apply_gate(program)
    return sim


apply = _simulator.kernel_signature(__name__)
