"""ProjectQ behind the kernels' gate instructions, as its users drive it: a ``MainEngine``
with the ``Simulator`` backend and no compiler engines (``engine_list=[]``, so gates reach
the simulator as written), gates applied with ``gate | qubits`` under ``Control``, and
``eng.flush()`` inside ``run``, since ProjectQ queues commands until a flush.

ProjectQ's C++ simulator is built from source: PyPI has only an sdist, and version 0.8.0
does not build with setuptools >= 72 (its setup.py uses ``Compiler.dry_run``), so ``make
setup`` builds its wheel in a separate environment with older setuptools (see the
Makefile). Without the C++ extension ProjectQ silently runs a slow pure-Python simulator:
the adapter says which one it has in REASON and SETTINGS.

Conventions are ours (checked numerically on 0.8.0): the qubits allocated in order 0..n-1
are bits 0..n-1 of the wavefunction, and a ``MatrixGate`` on ``(q_0, ..., q_{k-1})`` has
bit j of its index on ``q_j``. A control on |0> is X before and after, inside the program.
ProjectQ refuses to deallocate qubits that are not in a classical state, so a state being
dropped is first reset to |0...0>.

Why the engine and not the simulator object: the C++ kernels are reachable directly only
through private names (``eng.backend._base.apply_controlled_gate(matrix, ids,
ctrls)`` then ``.run()``, module ``projectq.backends._sim._cppsim``); the public way to
apply a gate matrix is ``gate | qubits`` (``Simulator.apply_qubit_operator`` takes Pauli
sums only). Measured on 0.8.0, one thread: QCBM at n=12 21 ms through the engine, 16 ms
with prebuilt Commands into ``backend.receive``, 5 ms through the private object; at
n=20 all three take 1.3-1.5 s. Most of the engine's cost is ProjectQ's own
per gate (Command objects, ``_handle``'s type checks, rebuilding rotation matrices).
"""

import atexit
import weakref

import numpy as np

from .._guard import guarded_import, tool_version
from . import _base

NAME = "projectq"
PRECISIONS = ("complex128",)
PACKAGE = "projectq"
FUSION_DEFAULT = 0
PRECISION = PRECISIONS[0]

projectq, AVAILABLE, REASON = guarded_import("projectq", "ops", "meta", "backends")
if AVAILABLE:
    try:
        import projectq.backends._sim._cppsim  # noqa: F401  (the compiled simulator)
        _KIND = "C++ simulator"
    except ImportError:
        _KIND = "Python fallback simulator (the C++ extension is not built: slow)"
    REASON = f"projectq {tool_version(projectq, 'projectq')} ({_KIND})"
else:
    _KIND = "unavailable"

SETTINGS = {"threads": "1 (the C++ simulator's OpenMP loops follow the runtime's count: "
                       "omp_set_num_threads of the libgomp it links, see set_threads)",
            "api": "MainEngine(Simulator(), engine_list=[]): gate | qubits under Control, "
                   "eng.flush() inside run",
            # Simulator() has gate_fusion=False (ProjectQ's default): its _handle calls the
            # C++ run() after every apply_controlled_gate, so the C++ Fusion queue
            # (simulator.hpp, fusing up to 5 qubits) never holds more than one gate.
            # The pure-Python fallback applies each gate at once and has no fusion.
            "fusion": "off (Simulator(gate_fusion=False), ProjectQ's default: each gate "
                      "runs as it arrives)",
            "simulator": _KIND}

_require, version, sync = _base.basics(NAME, projectq, AVAILABLE, REASON)


# Threads: the C++ kernels are plain `#pragma omp parallel` loops (and ProjectQ has no
# thread option); measured: H on each of 22 qubits, cpu/wall 1.0 at one thread, 2.0 (1.9x
# faster) at two. The runtime is found through _cppsim's handle: the OpenMP runtime
# _cppsim links (the system libgomp, shared with any other tool linking it). The Python
# fallback has none.
if _KIND == "C++ simulator":
    _threads = _base.OpenMPThreads(
        _require, lambda: projectq.backends._sim._cppsim.__file__, REASON)
    threads, set_threads = _threads.threads, _threads.set_threads


class _State:
    def __init__(self, vec):
        from projectq.backends import Simulator
        self.eng = projectq.MainEngine(backend=Simulator(), engine_list=[])
        self.n = vec.shape[0].bit_length() - 1
        self.qureg = self.eng.allocate_qureg(self.n)
        self.eng.flush()
        self.eng.backend.set_wavefunction(vec, self.qureg)
        # after the engine's own exit handler, so it runs before it (atexit is LIFO)
        atexit.register(_release, weakref.ref(self))

    def read(self):
        self.eng.flush()
        mapping, wavefunction = self.eng.backend.cheat()
        if any(mapping[q.id] != k for k, q in enumerate(self.qureg)):
            raise RuntimeError(f"projectq placed the qubits at {mapping}, not in order")
        return np.array(wavefunction, dtype=np.complex128)

    def release(self):
        """Back to |0...0>, so that the qubits can be deallocated."""
        if self.qureg is not None:
            zero = np.zeros(1 << self.n, dtype=np.complex128)
            zero[0] = 1
            self.eng.flush()
            self.eng.backend.set_wavefunction(zero, self.qureg)
            self.qureg = None

    def __del__(self):
        try:
            self.release()
        except Exception:  # interpreter shutdown: nothing is left to protect
            pass


def _release(ref):
    state = ref()
    if state is not None:
        state.release()


def from_numpy(vec):
    _require()
    _base.precision_of(vec, NAME, PRECISIONS)
    return _State(np.array(vec, dtype=np.complex128))


def to_numpy(state):
    _require()
    return state.read()


def _operations(instruction):
    """[(gate, control qubits, target qubits)] for one instruction."""
    ops = projectq.ops
    name, locs, ctrls, vals, params = _base.parts(instruction)
    fixed = {"X": ops.X, "Y": ops.Y, "Z": ops.Z, "H": ops.H, "S": ops.S, "T": ops.T}
    # ProjectQ's Rx, Ry, Rz are ours; R(t) is diag(1, exp(i t)), our phase
    rotations = {"Rx": ops.Rx, "Ry": ops.Ry, "Rz": ops.Rz, "phase": ops.R}
    if len(locs) == 1 and name in fixed:
        gate = fixed[name]
    elif len(locs) == 1 and name in rotations and len(params) == 1:
        gate = rotations[name](params[0])
    elif name == "SWAP" and len(locs) == 2:
        gate = ops.Swap
    else:
        gate = ops.MatrixGate(np.asarray(instruction.matrix, dtype=np.complex128))
    flips = [(ops.X, (), (q,)) for q, v in zip(ctrls, vals) if v == 0]
    return [*flips, (gate, ctrls, locs), *flips]


def _build(instructions, n):
    return [op for inst in instructions for op in _operations(inst)]


def run(state, program):
    """The program's gates through the engine, then flush: the timed call."""
    from projectq.meta import Control
    if type(state) is not _State:
        raise _base.not_a_state(NAME, state)
    ops, eng, qureg = _base.built(program, NAME, state.n), state.eng, state.qureg
    try:
        for g, ctrls, targets in ops:
            qubits = tuple(qureg[q] for q in targets)
            if ctrls:
                with Control(eng, [qureg[q] for q in ctrls]):
                    g | qubits
            else:
                g | qubits
        eng.flush()
    except Exception as exc:
        raise _base.tool_failed(NAME, exc) from exc
    return state


gate, circuit, apply = _base.programs(__name__, _require, _build)
