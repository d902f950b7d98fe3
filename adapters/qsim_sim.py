"""qsim (through qsimcirq) behind the kernels' gate instructions. complex64 only: qsim's
state vector is single precision, so it is compared in the complex64 suites.

qsimcirq has no public way to apply gates to a state it keeps: each call of
``QSimSimulator.simulate_into_1d_array`` (the lowest-overhead public call, without the
result object that ``simulate`` wraps around it) translates the Cirq circuit to qsim's,
copies the initial state in and returns a new final state. That is what a qsim user pays
per circuit, so it is all inside ``run``; the new vector replaces the state's (no copy
back). qsim fuses gates (its default, kept); one thread (``cpu_threads=1``).
"""

import sys

import numpy as np

from . import _cirq_ops, _simulator
from ._guard import guarded_import

NAME = "qsim"
PRECISIONS = ("complex64",)
PRECISION = PRECISIONS[0]

qsimcirq, AVAILABLE, REASON = guarded_import("qsimcirq")
cirq = sys.modules.get("cirq") if AVAILABLE else None

SETTINGS = {"threads": "1 (QSimOptions cpu_threads, see set_threads)",
            "api": "QSimSimulator.simulate_into_1d_array per run: circuit translated and "
                   "state copied in and out every call (no in-place API)",
            "fusion": "qsim's default gate fusion (max_fused_gate_size 2)",
            "precision": "complex64 only"}

_simulator_cache = {}


_require, version, sync = _simulator.basics(NAME, qsimcirq, AVAILABLE, REASON)


# a QSimSimulator per thread count, cpu_threads = this count
_threads = _simulator.ThreadCount(_require)
threads, set_threads = _threads.threads, _threads.set_threads


def _sim():
    sim = _simulator_cache.get(_threads.count)
    if sim is None:
        sim = _simulator_cache[_threads.count] = qsimcirq.QSimSimulator(
            qsimcirq.QSimOptions(cpu_threads=_threads.count))
    return sim


class _State:
    """qsim keeps no state between calls: the amplitudes live here between runs."""

    def __init__(self, vec):
        self.vec = vec
        self.n = vec.shape[0].bit_length() - 1
        self.qubits = cirq.LineQubit.range(self.n)


def from_numpy(vec):
    _require()
    _simulator.precision_of(vec, NAME, PRECISIONS)
    return _State(np.array(vec, dtype=np.complex64))


def to_numpy(state):
    _require()
    return state.vec.copy()


def gate(instruction):
    _require()
    return _simulator.Program(_build, [instruction])


def circuit(instructions, n):
    _require()
    return _simulator.Program(_build, instructions, n)


def _build(instructions, n):
    return cirq.Circuit(_cirq_ops.operations(cirq, instructions, n))


def run(state, program):
    """The circuit on ``state``: the timed call (translation, copy in, simulation)."""
    _, state.vec, _ = _sim().simulate_into_1d_array(
        program.get(state.n), qubit_order=state.qubits, initial_state=state.vec)
    return state


apply = _simulator.kernel_signature(__name__)
