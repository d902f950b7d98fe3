"""qiskit-aer behind the kernels' gate instructions, through ``AerState``: Aer's own state
vector, kept in Aer between calls (the only in-place state Aer offers Python; an
``AerSimulator`` run builds a fresh state from a ``set_statevector`` instruction and copies
it out again: 70 ms for H on 20 qubits against 4 ms here, measured), with its named
operations (``apply_h``, ``apply_cx``, ``apply_mcx``, ``apply_mcphase``, ``apply_mcu``,
``apply_unitary``, ...).

Deferred work: AerState only buffers operations; they run at ``flush()`` (``apply_h`` on 20
qubits returns in 3-16 us, flush takes 4 ms). ``run`` therefore ends with ``flush()``, so
the timed region holds the work. Each flush also costs a fixed ~27 us (Aer builds an
experiment result and a fusion pass), which dominates small states.

Fusion: Aer's default, as its users get it. A single gate is one operation per flush and
Aer's fusion pass skips any batch of fewer than two (transpile/fusion.hpp), so single gates
run unfused; a circuit is one batch and one flush, fused when it spans more than 14 qubits
(Aer's fusion_threshold; AerState counts the qubits its operations touch).

Threads: AerState ignores ``max_parallel_threads`` (measured: it still reported
parallel_state_update = 2 on 2 cores); its thread count is ``parallel_state_update``,
else omp_get_max_threads(). Below 14 qubits Aer runs one thread whatever the setting.

Conventions: Aer's index is ours (qubit q is bit q) and bit j of an ``apply_unitary``
matrix is its qubits[j], so nothing is renumbered. Controls on |0> have no named form in
AerState (no ctrl_state): they go through ``apply_multiplexer`` (Aer's uniformly controlled
matrix), as does any controlled matrix without a name.

complex128 only: an AerState in precision='single' is a real float32 state (loadable with
apply_initialize) but cannot be read back: ``move_to_ndarray`` returns an empty array, and
initialize(ndarray) refuses it ("only Double precision supports initialize_statevector()"),
measured on 0.18.2.
"""

import numpy as np

from . import _simulator
from ._guard import guarded_import

NAME = "qiskit-aer"
PRECISIONS = ("complex128",)
PRECISION = PRECISIONS[0]
SETTINGS = {"threads": "1 (AerState parallel_state_update, see set_threads; AerState "
                       "ignores max_parallel_threads)",
            "api": "qiskit_aer AerState (statevector, double): named apply_* operations, "
                   "then flush() inside run; the state stays in Aer between runs",
            "gates": "x, y, z, h, cx, cy, cz, mcx, mcy, mcz, mcphase (S, T, phase), mcswap, "
                     "diagonal (Rz), mcu (controlled H and rotations), unitary; controls on "
                     "|0> and other controlled matrices as apply_multiplexer",
            "fusion": "Aer's default: circuits fused at flush above 14 qubits; a single "
                      "gate is one operation, which Aer's fusion leaves alone",
            "precision": "complex128 only (a single-precision AerState cannot be read back)"}

qiskit_aer, AVAILABLE, REASON = guarded_import("qiskit_aer", "quantum_info.states.aer_state")
_require, version, sync = _simulator.basics(NAME, qiskit_aer, AVAILABLE, REASON)

# each new AerState gets parallel_state_update = this count
_threads = _simulator.ThreadCount(_require)
threads, set_threads = _threads.threads, _threads.set_threads


def _new_state(vec):
    """An AerState holding its own copy of ``vec`` (copy=True: Aer owns the memory; a
    mapped numpy buffer, copy=False, corrupts the heap at exit unless closed first)."""
    aer = qiskit_aer.quantum_info.states.aer_state.AerState(
        method="statevector", precision="double", parallel_state_update=_threads.count)
    aer.initialize(np.ascontiguousarray(vec, dtype=np.complex128), copy=True)
    return aer


class _State:
    """An AerState. Aer can only hand its amplitudes out by moving them (which ends the
    AerState), so reading makes a fresh AerState from a copy of them."""

    def __init__(self, vec):
        self.aer = _new_state(vec)

    def read(self):
        amplitudes = self.aer.move_to_ndarray()  # flushes; the array owns its memory
        self.aer.close()
        self.aer = _new_state(amplitudes)
        return amplitudes


def from_numpy(vec):
    _require()
    _simulator.precision_of(vec, NAME, PRECISIONS)
    return _State(vec)


def to_numpy(state):
    _require()
    return state.read()


# Aer's mcu(theta, phi, lambda, gamma) = e^{i gamma} U3(theta, phi, lambda)
_U = {"H": lambda t: (np.pi / 2, 0.0, np.pi, 0.0), "Rx": lambda t: (t, -np.pi / 2, np.pi / 2, 0.0),
      "Ry": lambda t: (t, 0.0, 0.0, 0.0), "Rz": lambda t: (0.0, 0.0, t, -t / 2)}
_PHASES = {"S": np.pi / 2, "T": np.pi / 4}


def _named(name, ctrls, locs, t):
    """Aer's named operation for ``name`` on ``locs`` controlled by ``ctrls`` (all on |1>),
    or None where the matrix serves as well (uncontrolled Rx, Ry: Aer's u gate is a
    2x2 matrix too)."""
    c, q = list(ctrls), list(locs)
    if name == "SWAP" and len(q) == 2:
        return "apply_mcswap", (c, q[0], q[1])
    if len(q) != 1:
        return None
    if name in ("S", "T", "phase"):
        return "apply_mcphase", (c, q[0], _PHASES.get(name, t))
    if name in ("X", "Y", "Z"):
        if len(c) < 2:  # apply_x(q), apply_cx(c, q), apply_mcx([c...], q)
            return ("apply_c" if c else "apply_") + name.lower(), (*c, q[0])
        return "apply_mc" + name.lower(), (c, q[0])
    if name == "H" and not c:
        return "apply_h", (q[0],)
    if name == "Rz" and not c:
        return "apply_diagonal", (q, np.exp([-0.5j * t, 0.5j * t]))
    if name in _U and c:
        return "apply_mcu", (c, q[0], *_U[name](t))
    return None


def _operation(instruction):
    name, locs, ctrls, vals, params = _simulator.parts(instruction)
    rotation = name in ("Rx", "Ry", "Rz", "phase")
    if all(v == 1 for v in vals) and (len(params) == 1 or not rotation):
        op = _named(name, ctrls, locs, float(params[0]) if rotation else None)
        if op is not None:
            return op
    matrix = np.asarray(instruction.matrix, dtype=np.complex128)
    if not ctrls:
        return "apply_unitary", (list(locs), matrix)
    # a multiplexer applies mats[i] where the controls read i (bit j: ctrls[j]): the
    # matrix at the controls' values, the identity elsewhere
    chosen = sum(v << j for j, v in enumerate(vals))
    eye = np.eye(len(matrix), dtype=np.complex128)
    mats = [matrix if i == chosen else eye for i in range(1 << len(ctrls))]
    return "apply_multiplexer", (list(ctrls), list(locs), mats)


def gate(instruction):
    _require()
    return [_operation(instruction)]


def circuit(instructions, n):
    _require()
    return [_operation(inst) for inst in instructions]


def run(state, program):
    """The program's operations on ``state``, then ``flush()``: the timed call."""
    aer = state.aer
    for method, args in program:
        getattr(aer, method)(*args)
    aer.flush()
    return state


apply = _simulator.kernel_signature(__name__)
