"""qsim (through qsimcirq) behind the kernels' gate instructions. complex64 only: qsim's
state vector is single precision, so it is compared in the complex64 suites.

A program is the Cirq circuit of :mod:`adapters.simulators._cirq_ops`, translated ONCE (outside the
timed region) into qsim's own C++ circuit with ``QSimCircuit.translate_cirq_to_qsim``.
``run`` is one call of ``qsimcirq.qsim.qsim_simulate_fullstate(options, vector)``: the
binding ``QSimSimulator`` itself calls (the SIMD module qsimcirq picked for this CPU).
``QSimSimulator.simulate_into_1d_array`` adds, per call, a QSimCircuit copy of the circuit
and its translation (or, with ``circuit_memoization_size``, a circuit equality check):
measured at n=12, QCBM 7.3 ms through it (1.6 ms memoized) against 0.27 ms through the
binding, for the same qsim work.

qsim keeps no state between calls and has no in-place API: each call allocates a new
vector, copies the input into it, reorders it to qsim's SIMD layout and back, and returns
that vector (no copy out). That copy and reordering are what every qsim user pays per
circuit, so they are inside ``run``: measured at n=20, an empty circuit takes 1.3 ms
of the 1.9 ms of an H.
"""

import sys

import numpy as np

from .._guard import guarded_import
from . import _base, _cirq_ops

NAME = "qsim"
PRECISIONS = ("complex64",)  # qsim's CPU state vector is float32
PACKAGE = "qsimcirq"
PRECISION = PRECISIONS[0]

qsimcirq, AVAILABLE, REASON = guarded_import("qsimcirq")
cirq = sys.modules.get("cirq") if AVAILABLE else None

#: qsim's default fusion (QSimOptions.max_fused_gate_size = 2): qsim fuses a circuit's
#: gates into blocks of up to 2 qubits inside every call (so inside ``run``); a single
#: gate is not changed by it.
_FUSION = 2
#: The max_fused_gate_size settings: qsim has no "off" (its fuser always runs, and 1
#: gives the same state bit for bit as 2, measured on QCBM at 8 and 10 qubits), so the
#: suites' unfused comparison runs it at its default and says so.
FUSION = (2, 3, 4, 5, 6)
FUSION_DEFAULT = _FUSION

#: qsim sets flush-to-zero and denormals-are-zero only when asked (its option "z",
#: denormals_are_zeros); QSimOptions leaves it off, and each call then clears both bits
FLUSHES_SUBNORMALS = "no"
SETTINGS = {"threads": "1 (the cpu_threads option 't' of every call, see set_threads)",
            "api": "qsimcirq.qsim.qsim_simulate_fullstate on a circuit translated once "
                   "(what QSimSimulator calls); no in-place API: the state is copied in "
                   "and reordered for SIMD every call, inside run",
            "fusion": f"qsim's default gate fusion (max_fused_gate_size {_FUSION}), "
                      "done inside each run",
            "precision": "complex64 only (complex128 states refused)"}
if AVAILABLE:
    SETTINGS["simd"] = qsimcirq.qsim.__name__.rpartition(".")[2]  # qsim_avx512, ...

_require, version, sync = _base.basics(NAME, qsimcirq, AVAILABLE, REASON)


# qsim takes its thread count with every call (OpenMP "num_threads" clauses, so
# OMP_NUM_THREADS does not matter): the programs' options carry the current count.
_threads = _base.ThreadCount(_require)
threads, set_threads = _threads.threads, _threads.set_threads


class _State:
    """qsim keeps no state between calls: the amplitudes live here between runs."""

    def __init__(self, vec):
        self.vec = vec
        self.n = vec.shape[0].bit_length() - 1


def from_numpy(vec):
    _require()
    _base.precision_of(vec, NAME, PRECISIONS)
    return _State(np.array(vec, dtype=np.complex64, order="C"))


def to_numpy(state):
    _require()
    return state.vec.copy()


def _build(instructions, n, n_threads, fusion=_FUSION):
    """The options of qsim's call for the instructions on n qubits: qsim's circuit
    (the Cirq circuit translated over LineQubit 0..n-1, Cirq's big-endian order, which
    qsimcirq reverses to qsim's little-endian: our qubit order), fusion, threads."""
    cirq_circuit = qsimcirq.QSimCircuit(cirq.Circuit(_cirq_ops.operations(cirq, instructions, n)))
    translated, _ = cirq_circuit.translate_cirq_to_qsim(cirq.LineQubit.range(n))
    options = qsimcirq.QSimOptions(max_fused_gate_size=fusion, cpu_threads=n_threads)
    # "c" the circuit, "s" the seed (unused by a unitary circuit, but read): the two keys
    # QSimSimulator adds to the options for each call
    return {**options.as_dict(), "c": translated, "s": 0}


def run(state, program):
    """The circuit on ``state``: the timed call (copy in, fusion, simulation)."""
    if type(state) is not _State:
        raise _base.not_a_state(NAME, state)
    options = _base.built(program, NAME, state.n, _threads.count)
    try:
        out = qsimcirq.qsim.qsim_simulate_fullstate(options, state.vec.view(np.float32))
    except Exception as exc:
        raise _base.tool_failed(NAME, exc) from exc
    if out.shape[0] != 2 * state.vec.shape[0]:  # qsim prints its errors and returns []
        raise RuntimeError(f"qsim failed on a {state.n}-qubit state (see its message)")
    state.vec = out.view(np.complex64)
    return state


def _fused(size):
    """The build of qsim's call for a circuit fused by qsim into gates of up to ``size``
    qubits (max_fused_gate_size) inside every run."""
    def build(instructions, n, n_threads):
        return _build(instructions, n, n_threads, size)
    return build


# a program per state size and thread count (qsim takes them with every call); its
# circuits at its default, max_fused_gate_size 2
gate, circuit, apply = _base.programs(__name__, _require, _build, per_size=True,
                                      fusion=FUSION, fused=_fused)
