"""Cirq behind the kernels' gate instructions.

The state is Cirq's own simulation state, ``cirq.StateVectorSimulationState``, and a gate
is applied to it with ``cirq.act_on``: what Cirq's simulator does for each operation of a
circuit, without building a new state or copying the amplitudes in and out per call.
Programs are the Cirq operations, built once (Cirq's named gates where it has them; see
:mod:`._cirq_ops` for the qubit renumbering: Cirq is big-endian). A circuit is its
operations in the instructions' order, applied one by one as ``cirq.Simulator`` applies a
``cirq.Circuit``'s operations (no moments, no optimisation passes, no gate fusion: Cirq's
simulator fuses nothing either). Measured: ``act_on``'s own dispatch is ~15% of an H on 12
qubits; the rest is the gate's ``_apply_unitary_`` numpy work.

Threads: Cirq applies gates with numpy slicing and ``np.einsum``, on one thread; only
einsums of 26 or more indices (about 24+ qubits) take numpy's optimize path, which may
call BLAS, pinned to one thread by the suites. Cirq has no thread count of its own, so
there is no set_threads. complex64 is computed in single precision (Cirq casts gate
matrices to the state's dtype).
"""

import numpy as np

from .._guard import guarded_import
from . import _base, _cirq_ops

NAME = "cirq"
PRECISIONS = ("complex128", "complex64")  # the simulation state's dtype
PACKAGE = "cirq-core"
FUSION_DEFAULT = 0
PRECISION = PRECISIONS[0]
SETTINGS = {"threads": "1 (numpy slicing and einsum; no thread control)",
            "api": "StateVectorSimulationState + cirq.act_on per operation",
            "gates": "Cirq's named gates (X, H, CNOT, CCX, rx, ZPowGate, ...), else "
                     "MatrixGate with controlled_by",
            "circuits": "the circuit's operations in order, no optimisation passes",
            # cirq.act_on per operation, as cirq.Simulator applies a circuit's operations
            # (SimulatorBase._core_iterator, cirq/sim/simulator_base.py); Cirq merges
            # gates only in transformers (merge_single_qubit_gates_to_*, ...), which
            # neither its simulator nor this adapter runs
            "fusion": "off (cirq.act_on per operation; Cirq's simulator fuses nothing)",
            "precision": "complex128, complex64 (the simulation state's dtype)"}

cirq, AVAILABLE, REASON = guarded_import("cirq")


_require, version, sync = _base.basics(NAME, cirq, AVAILABLE, REASON)


def from_numpy(vec):
    """A simulation state holding a copy of ``vec`` (complex128 or complex64)."""
    _require()
    precision = _base.precision_of(vec, NAME, PRECISIONS)
    n = int(np.asarray(vec).shape[0]).bit_length() - 1
    return cirq.StateVectorSimulationState(
        initial_state=np.array(vec, dtype=_base.DTYPES[precision]),
        qubits=cirq.LineQubit.range(n), dtype=_base.DTYPES[precision])


def to_numpy(state):
    _require()
    return state.target_tensor.reshape(-1).copy()


def _build(instructions, n):
    return _cirq_ops.operations(cirq, instructions, n)


def run(state, program):
    """Apply the program's operations to ``state`` in place: the timed call."""
    if not isinstance(state, cirq.StateVectorSimulationState):
        raise _base.not_a_state(NAME, state)
    ops, act_on = _base.built(program, NAME, len(state.qubits)), cirq.act_on
    try:
        for op in ops:
            act_on(op, state)
    except Exception as exc:
        raise _base.tool_failed(NAME, exc) from exc
    return state


gate, circuit, apply = _base.programs(__name__, _require, _build, per_size=True)
