"""qiskit-aer behind the kernels' gate instructions, through ``AerState``: Aer's own state
vector, kept in Aer between calls, with its named operations (``apply_h``, ``apply_cx``,
``apply_mcx``, ``apply_mcphase``, ``apply_u``, ``apply_mcu``, ``apply_unitary``, ...).

Why AerState and not ``AerSimulator``: AerState is the only state Aer lets Python keep and
act on in place. An AerSimulator run builds a fresh state from a ``set_statevector``
instruction and copies it out again with ``save_statevector``: H on 20 qubits takes 84 ms
that way (fusion off, one thread) against 4 ms through AerState (measured, 0.18.2).

Deferred work: AerState only buffers operations (``apply_h`` on 20 qubits returns in a few
us, and a numpy buffer mapped with ``initialize(copy=False)`` is not touched); they run at
``flush()``, or at any read (probabilities, move_to_ndarray), which flushes first. ``run``
therefore ends with ``flush()``, so the timed region holds the work. Each flush also costs
a fixed ~27 us (Aer builds an experiment result and a fusion pass, fusion on or off),
which dominates small states.

Fusion: Aer's default, as its users get it, for circuits; none for single gates. Aer
fuses a flushed batch when it has at least two operations and its highest qubit is above
13 (fusion_threshold 14; transpile/fusion.hpp, framework/circuit.hpp). A circuit is one
batch, one flush: fused from 15 qubits on (10-25 ms of fusing for QCBM on 18 qubits,
measured, inside run as for Aer's users). A single gate is one operation per flush, which
Aer never fuses; a gate with controls on |0> (x, gate, x) flushes after each part, else Aer
fuses the three when they reach qubit 14 (measured). tests/adapters/test_qiskit_aer_sim.py
checks this through last_result()'s metadata.

Threads: AerState ignores ``max_parallel_threads`` (it only stores it); its thread count is
``parallel_state_update``, read when the state is created (else omp_get_max_threads()), so
``set_threads`` applies to states made afterwards. Below 14 qubits Aer runs one thread
whatever the setting (statevector_parallel_threshold).

Conventions: Aer's index is ours (qubit q is bit q) and bit j of an ``apply_unitary``
matrix's row/column index is its qubits[j] (as in qiskit), so nothing is renumbered. Aer's
``u(theta, phi, lam)`` is qiskit's U3 (no global phase); ``mcu(..., gamma)`` is
e^{i gamma} U3. Controls on |0> have no form in AerState (qiskit's ctrl_state does not
reach it): a named gate gets X on those controls before and after (what qiskit's
ctrl_state definition does; x, cx, x took 7.7 ms at 20 qubits against 15.9 ms as one
apply_multiplexer), and a controlled matrix without a name is an ``apply_multiplexer``
(Aer's uniformly controlled matrix), whatever its control values.

complex128 only: an AerState in precision='single' is a real float32 state (loadable with
apply_initialize) but cannot be read back: ``move_to_ndarray`` returns an empty array (its
save reads the result as complex128) and initialize(ndarray) refuses it ("only Double
precision supports initialize_statevector()"); AerSimulator(precision='single') returns
complex128 amplitudes and costs 119 ms for H on 20 qubits (copies in and out), measured on
0.18.2. So there is no single-precision state a caller can use.

Gradients of variational circuits (GRADIENT_METHODS, only where the qiskit-algorithms
package imports): its ``ReverseEstimatorGradient``, which runs on qiskit's Statevector
(numpy), not on Aer; Aer has no gradient of its own. :mod:`adapters.simulators._qiskit_gradients`
translates.
"""

import numpy as np

from .. import _gradients
from .._guard import guarded_import
from . import _base

NAME = "qiskit-aer"
PRECISIONS = ("complex128",)
PACKAGE = "qiskit-aer"
FUSION_DEFAULT = None  # Aer's own rule: fused from 15 qubits (SETTINGS)
PRECISION = PRECISIONS[0]
SETTINGS = {"threads": "1 (AerState parallel_state_update, see set_threads; AerState "
                       "ignores max_parallel_threads)",
            "api": "qiskit_aer AerState (statevector, double): named apply_* operations, "
                   "then flush() inside run; the state stays in Aer between runs "
                   "(AerSimulator would copy the state in and out on every run)",
            "gates": "x, y, z, h, cx, cy, cz, mcx, mcy, mcz, mcphase (S, T, phase), mcswap, "
                     "u (Rx, Ry), mcu (Rz, controlled H and rotations), unitary; controls "
                     "on |0> as X around the named gate; other controlled matrices as "
                     "apply_multiplexer",
            "fusion": "circuits: Aer's default, on (fused at flush from 15 qubits), unless a "
                      "setting is given (FUSION); single gates: off (one operation per "
                      "flush, which Aer never fuses)",
            "precision": "complex128 only (a single-precision AerState cannot be read back)",
            "gradients": "reverse (when qiskit-algorithms imports): qiskit-algorithms' "
                         "ReverseEstimatorGradient on a ParameterVector circuit and a "
                         "SparsePauliOp, qiskit Statevectors, not Aer; energy: qiskit's "
                         "StatevectorEstimator"}

qiskit_aer, AVAILABLE, REASON = guarded_import("qiskit_aer", "quantum_info.states.aer_state")
_require, version, sync = _base.basics(NAME, qiskit_aer, AVAILABLE, REASON)
# the circuit gradient's package (a separate distribution, qiskit-algorithms)
_algorithms, _HAS_ALGORITHMS, _ALGORITHMS_REASON = guarded_import("qiskit_algorithms",
                                                                  "gradients")

# each new AerState gets parallel_state_update = this count
_threads = _base.ThreadCount(_require)
threads, set_threads = _threads.threads, _threads.set_threads


#: Fusion settings: 0 = fusion_enable false; k = fusion_max_qubit k with fusion_threshold 1
#: (so that Aer fuses whatever the state's size). None keeps Aer's defaults (on, 5 qubits,
#: fusion_threshold 14: fused from 15 qubits, as SETTINGS says). An AerState takes its
#: configuration before it holds amplitudes: a
#: state is made with Aer's defaults, ``bind`` remakes it for a program's setting ahead of
#: the timed runs (the harness calls it when it loads a state), and ``run`` remakes it
#: when a program with another setting comes.
FUSION = (0, 2, 3, 4, 5)


def fusion_config(fusion):
    """The AerState configuration of a fusion setting (None: Aer's defaults)."""
    if fusion is None:
        return ()
    if fusion == 0:
        return (("fusion_enable", False),)
    return (("fusion_enable", True), ("fusion_max_qubit", fusion), ("fusion_threshold", 1))


class _Ops(list):
    """A program's operations and the fusion configuration they run under."""
    config = ()


def _new_state(vec, config=()):
    """An AerState holding its own copy of ``vec`` (copy=True: Aer owns the memory; a
    mapped numpy buffer, copy=False, is freed by Aer too unless the AerState is closed
    first, which corrupts the heap at exit), configured with ``config``."""
    aer = qiskit_aer.quantum_info.states.aer_state.AerState(
        method="statevector", precision="double", parallel_state_update=_threads.count,
        **dict(config))
    aer.config = config
    # Aer's initialize refuses a read-only array even when it copies it
    aer.initialize(np.require(vec, np.complex128, ("C", "W")), copy=True)
    return aer


class _State:
    """An AerState. Aer can only hand its amplitudes out by moving them (which ends the
    AerState), so reading makes a fresh AerState from a copy of them."""

    def __init__(self, vec):
        self.aer = _new_state(vec)
        self.n = vec.shape[0].bit_length() - 1

    def read(self, config=None):
        amplitudes = self.aer.move_to_ndarray()  # flushes; the array owns its memory
        config = self.aer.config if config is None else config
        self.aer.close()
        self.aer = _new_state(amplitudes, config)
        return amplitudes


def from_numpy(vec):
    _require()
    _base.precision_of(vec, NAME, PRECISIONS)
    return _State(np.asarray(vec))


def to_numpy(state):
    _require()
    return state.read()


# name -> (theta, phi, lam, gamma) of Aer's mcu = e^{i gamma} U3(theta, phi, lam) at angle t
_U = {"H": lambda t: (np.pi / 2, 0.0, np.pi, 0.0), "Rx": lambda t: (t, -np.pi / 2, np.pi / 2, 0.0),
      "Ry": lambda t: (t, 0.0, 0.0, 0.0), "Rz": lambda t: (0.0, 0.0, t, -t / 2)}
_PHASES = {"S": np.pi / 2, "T": np.pi / 4}


def _named(name, ctrls, locs, t):
    """Aer's named operation ``(AerState method name, args)`` for ``name`` on ``locs``
    controlled by ``ctrls`` (taken on |1>), or None where it has none."""
    c, q = list(ctrls), list(locs)
    if name == "SWAP" and len(q) == 2:
        return "apply_mcswap", (c, q[0], q[1])
    if len(q) != 1:
        return None
    if name in ("S", "T", "phase"):
        return "apply_mcphase", (c, q[0], _PHASES.get(name, t))
    if name in ("X", "Y", "Z"):
        if len(c) < 2:  # apply_x(q), apply_cx(c, q), apply_mcx([c...], q)
            method = ("apply_c" if c else "apply_") + name.lower()
            return method, (*c, q[0])
        return "apply_mc" + name.lower(), (c, q[0])
    if name == "H" and not c:
        return "apply_h", (q[0],)
    if name in ("Rx", "Ry") and not c:
        # u: 1 us of Python per call against 6 us for apply_unitary (its checks), the
        # same 2x2 matrix in Aer
        return "apply_u", (q[0], *_U[name](t)[:3])
    if name in _U:  # Rz (a diagonal, which Aer's mcu detects), controlled H and rotations
        return "apply_mcu", (c, q[0], *_U[name](t))
    return None


def _operations(instruction):
    """The Aer operations of one instruction, as ``[(AerState method name, args)]``."""
    name, locs, ctrls, vals, params = _base.parts(instruction)
    rotation = name in ("Rx", "Ry", "Rz", "phase")
    if len(params) == 1 or not rotation:  # no angle: the matrix is what counts
        op = _named(name, ctrls, locs, float(params[0]) if rotation else None)
        if op is not None:
            flips = [("apply_x", (c,)) for c, v in zip(ctrls, vals) if v == 0]
            return [*flips, op, *flips]
    matrix = np.asarray(instruction.matrix, dtype=np.complex128)
    if not ctrls:
        return [("apply_unitary", (list(locs), matrix))]
    # a multiplexer applies mats[i] where the controls read i (bit j: ctrls[j]): the
    # matrix at the controls' values, the identity elsewhere
    chosen = sum(v << j for j, v in enumerate(vals))
    eye = np.eye(len(matrix), dtype=np.complex128)
    mats = [matrix if i == chosen else eye for i in range(1 << len(ctrls))]
    return [("apply_multiplexer", (list(ctrls), list(locs), mats))]


def _build(instructions, n):
    """A gate (n None): its operations with a flush after each but the last (run flushes
    that one), so that Aer's fusion never merges them. A circuit: every operation, one
    batch."""
    if n is None:
        ops = _operations(instructions[0])
        return [part for op in ops[:-1] for part in (op, ("flush", ()))] + ops[-1:]
    return [op for inst in instructions for op in _operations(inst)]


def _configured(k):
    """The build of Aer's operations for a circuit fused at flush as setting ``k`` says
    (see FUSION)."""
    config = fusion_config(k)

    def build(instructions, n):
        out = _Ops(_build(instructions, n))
        out.config = config
        return out
    return build


gate, circuit, apply = _base.programs(__name__, _require, _build, fusion=FUSION,
                                      fused=_configured)


def bind(state, program):
    """Make ``state`` ready for ``program`` outside the timed run: an AerState configured
    for the program's fusion setting (what ``run`` would otherwise do on its first call)."""
    if type(state) is not _State:
        raise _base.not_a_state(NAME, state)
    config = getattr(_base.built(program, NAME, state.n), "config", None)
    if config is not None and state.aer.config != config:
        state.read(config)
    return state


def run(state, program):
    """The program's operations on ``state``, then ``flush()``, which applies them (and
    fuses a circuit): the timed call."""
    if type(state) is not _State:
        raise _base.not_a_state(NAME, state)
    ops = _base.built(program, NAME, state.n)
    config = getattr(ops, "config", None)  # None: a gate, which Aer never fuses
    if config is not None and state.aer.config != config:  # made for another setting
        state.read(config)
    aer = state.aer
    try:
        for method, args in ops:
            getattr(aer, method)(*args)
        aer.flush()
    except Exception as exc:
        raise _base.tool_failed(NAME, exc) from exc
    return state



# --- circuit gradients (docs/architecture.md, "Adapters"): in _qiskit_gradients -------

_METHODS = ("reverse",)  # qiskit-algorithms' ReverseEstimatorGradient
if _HAS_ALGORITHMS:
    #: declared only where qiskit-algorithms imports, so that no gradient is listed for
    #: an available adapter that cannot run one
    GRADIENT_METHODS = _METHODS


def _require_gradients():
    _require()
    _base.require(NAME + " gradient", _HAS_ALGORITHMS, _ALGORITHMS_REASON)


prepare_gradient, prepare_energy, circuit_gradient = _gradients.delegated(
    NAME, _METHODS, _require_gradients, __name__, "._qiskit_gradients")
