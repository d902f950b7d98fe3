"""qiskit-aer behind the kernels' gate instructions, through ``AerState``: Aer's own state
vector, kept in Aer between calls, with named operations (``apply_h``, ``apply_cx``,
``apply_mcx``, ``apply_mcphase``, ``apply_unitary``, ...).

AerState buffers operations and applies them at ``flush()``: ``apply_h`` on 20 qubits
returns in a few microseconds, far under the time needed to touch 16 MiB (measured: 4-9
us without flush, 3.6 ms with it). ``run`` therefore ends with ``flush()``, so the timed
region holds the work. A circuit is one batch of operations and one flush, which lets
Aer's controller apply its gate fusion as for any circuit it runs (its default; a single
gate has nothing to fuse).

Aer's index convention is ours (qubit q is bit q; an ``apply_unitary`` matrix's bit j is
its qubit j), so nothing is renumbered. complex128 only: an AerState configured for single
precision can neither be initialised from an array ("only Double precision supports
initialize_statevector()") nor read back (``move_to_ndarray`` returns an empty array),
measured on 0.18.2.
"""

import numpy as np

from . import _simulator
from ._guard import guarded_import

NAME = "qiskit-aer"
PRECISIONS = ("complex128",)
PRECISION = PRECISIONS[0]
SETTINGS = {"threads": "1 (max_parallel_threads, see set_threads)",
            "api": "qiskit_aer AerState: named apply_* operations, then flush() inside run",
            "gates": "x, y, z, h, cx, cz, mcx, mcphase (S, T, phase), mcswap, diagonal (Rz), "
                     "unitary; controlled matrices as apply_multiplexer",
            "fusion": "Aer's default at flush (on above its qubit threshold)"}

qiskit_aer, AVAILABLE, REASON = guarded_import("qiskit_aer", "quantum_info.states.aer_state")


_require, version, sync = _simulator.basics(NAME, qiskit_aer, AVAILABLE, REASON)


# each new AerState gets max_parallel_threads = this count
_threads = _simulator.ThreadCount(_require)
threads, set_threads = _threads.threads, _threads.set_threads


def _new_state(vec):
    aer = qiskit_aer.quantum_info.states.aer_state.AerState(
        method="statevector", precision="double", max_parallel_threads=_threads.count)
    aer.initialize(np.array(vec, dtype=np.complex128), copy=True)
    return aer


class _State:
    """An AerState; reading the amplitudes moves them out of Aer, so the holder makes a
    fresh AerState from them to keep going."""

    def __init__(self, vec):
        self.aer = _new_state(vec)

    def read(self):
        self.aer.flush()
        amplitudes = self.aer.move_to_ndarray()
        self.aer.close()
        self.aer = _new_state(amplitudes)
        return np.array(amplitudes)


def from_numpy(vec):
    _require()
    _simulator.precision_of(vec, NAME, PRECISIONS)
    return _State(vec)


def to_numpy(state):
    _require()
    return state.read()


def _phase(t):
    return lambda c, q: ("apply_mcphase", (list(c), q[0], t))


# (name, targets, controls) -> f(theta) -> f(controls, targets) -> (AerState method, args)
_NAMED = {
    ("X", 1, 0): lambda t: lambda c, q: ("apply_x", (q[0],)),
    ("Y", 1, 0): lambda t: lambda c, q: ("apply_y", (q[0],)),
    ("Z", 1, 0): lambda t: lambda c, q: ("apply_z", (q[0],)),
    ("H", 1, 0): lambda t: lambda c, q: ("apply_h", (q[0],)),
    ("S", 1, 0): lambda t: _phase(np.pi / 2),
    ("T", 1, 0): lambda t: _phase(np.pi / 4),
    ("phase", 1, 0): _phase,
    ("phase", 1, 1): _phase,
    ("Rz", 1, 0): lambda t: lambda c, q: (
        "apply_diagonal", (list(q), np.exp([-0.5j * t, 0.5j * t]))),
    ("X", 1, 1): lambda t: lambda c, q: ("apply_cx", (c[0], q[0])),
    ("Z", 1, 1): lambda t: lambda c, q: ("apply_cz", (c[0], q[0])),
    ("X", 1, 2): lambda t: lambda c, q: ("apply_mcx", (list(c), q[0])),
    ("SWAP", 2, 0): lambda t: lambda c, q: ("apply_mcswap", ([], q[0], q[1])),
}


def _operation(instruction):
    name, locs, ctrls, vals, params = _simulator.parts(instruction)
    entry = _simulator.named(instruction, _NAMED)
    if entry is not None:
        return entry(params[0] if params else None)(ctrls, locs)
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
