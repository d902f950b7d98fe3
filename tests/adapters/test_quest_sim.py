"""What the quest adapter promises beyond the shared contract (test_simulators.py checks
it against the reference): pyQuEST's own operators (each one QuEST call) for the named
gates, QuEST's multi-state control for controls on |0>, matrices QuEST would refuse as
unitaries run as plain matrices, the thread count reaching OpenMP, and a clear REASON
when pyquest is missing or is the numpy-1.x wheel."""

import importlib
import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

from adapters.simulators import quest_sim as qs
from kernels.statevector import circuits, gates, naive
from kernels.statevector.circuits import Instruction
from kernels.statevector.states import random_state

available = pytest.mark.skipif(not qs.AVAILABLE, reason=qs.REASON)
N = 5
RNG = np.random.default_rng(0)
U2 = gates.random_unitary(2, RNG)
NONUNITARY = RNG.normal(size=(4, 4)) + 1j * RNG.normal(size=(4, 4))

NAMED = [  # (instruction, [(pyquest class, controls, control pattern) per operator])
    *[(circuits.gate(g, 3), [(g, [], None)]) for g in "XYZHST"],
    *[(circuits.gate(g, 4, theta=-2.1), [(g, [], None)]) for g in ("Rx", "Ry", "Rz")],
    (circuits.gate("phase", 1, theta=0.7), [("Phase", [], None)]),
    (circuits.cnot(4, 1), [("X", [4], None)]),            # controlledNot
    (circuits.toffoli(4, 0, 2), [("X", [4, 0], None)]),    # multiControlledMultiQubitNot
    (circuits.gate("Y", 0, ctrl=(2,)), [("Y", [2], None)]),
    (circuits.cz(2, 0), [("Z", [2], None)]),
    (circuits.gate("Rx", 2, ctrl=(1,), theta=0.3), [("Rx", [1], None)]),
    (circuits.gate("phase", 2, ctrl=(1, 4), theta=0.3), [("Phase", [1, 4], None)]),
    (circuits.swap(3, 1), [("Swap", [], None)]),
    # gates pyquest's named operator does not take with these controls: QuEST's unitary
    (circuits.gate("H", 1, ctrl=(0, 3)), [("U", [0, 3], None)]),
    (circuits.gate("Ry", 1, ctrl=(0, 3), theta=0.2), [("U", [0, 3], None)]),
    (Instruction("SWAP", gates.SWAP, (0, 4), (2,), (1,)), [("U", [2], None)]),
    # controls on |0>, one target: multiStateControlledUnitary in one pass
    (circuits.gate("X", 2, ctrl=(0,), ctrl_vals=(0,)), [("U", [0], [0])]),
    (circuits.gate("Rz", 2, ctrl=(0, 4), ctrl_vals=(1, 0), theta=1.1), [("U", [0, 4], [1, 0])]),
    # several targets with a control on |0>: X around it
    (Instruction("dense", U2, (1, 3), (0, 4), (0, 1)),
     [("X", [], None), ("U", [0, 4], None), ("X", [], None)]),
    # the name is trusted only with its parameters: otherwise the matrix runs
    (Instruction("Rz", gates.Rz(0.5), (3,)), [("U", [], None)]),
    (circuits.dense(U2, 4, 0), [("U", [], None)]),
    # not unitary (QuEST's unitary functions would refuse it): applyMatrix*
    (Instruction("dense", NONUNITARY, (4, 0)), [("MatrixOperator", [], None)]),
    (Instruction("dense", NONUNITARY, (4, 0), (2,), (1,)), [("MatrixOperator", [2], None)]),
]


def _describe(op):
    return (type(op).__name__, list(getattr(op, "controls", [])),
            getattr(op, "control_pattern", None))


@available
@pytest.mark.parametrize("inst, expected", NAMED, ids=lambda x: str(getattr(x, "name", "")))
def test_named_gates_are_quests_own_and_match_reference(inst, expected):
    program = qs.gate(inst)
    assert [_describe(op) for op in program.get(N)] == expected
    state = random_state(N, np.random.default_rng(1))
    expected_state = inst.apply(naive.apply, state.copy())
    reg = qs.from_numpy(state)
    qs.run(reg, program)
    np.testing.assert_allclose(qs.to_numpy(reg), expected_state, rtol=0, atol=1e-12)


@available
def test_qubit_q_is_bit_q_and_matrix_bit_j_is_locs_j():
    reg = qs.from_numpy(np.eye(1 << N, dtype=np.complex128)[0])
    qs.run(reg, qs.gate(circuits.gate("X", 3)))
    assert np.argmax(np.abs(qs.to_numpy(reg))) == 1 << 3
    # a 2-qubit permutation taking |b0 b1> = |1 0> (index 1) to |0 1> (index 2)
    perm = np.eye(4)[:, [0, 2, 1, 3]]
    qs.run(reg, qs.gate(Instruction("dense", perm, (3, 1))))
    assert np.argmax(np.abs(qs.to_numpy(reg))) == 1 << 1


@available
def test_the_thread_count_reaches_openmp():
    try:
        qs.set_threads(2)
        assert qs.threads() == 2
    finally:
        qs.set_threads(1)
    assert qs.threads() == 1
    with pytest.raises(ValueError):
        qs.set_threads(0)


@available
def test_one_thread_under_the_suites_environment():
    """OMP_NUM_THREADS=1 (what the suites set before importing) is what QuEST runs."""
    code = ("from adapters.simulators import quest_sim as q; "
            "print(q.threads(), q.pyquest.num_threads)")
    env = dict(os.environ, OMP_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True, cwd=os.path.dirname(os.path.dirname(
                             os.path.dirname(os.path.abspath(__file__))))).stdout
    assert out.split() == ["1", "1"]


#: a script holding a quest state in a global at exit; qiskit-aer's adapter imported
#: first puts pyquest where Python wipes pyquest.core's globals before the state goes
EXIT_SCRIPT = """
import atexit, sys
import numpy as np
import adapters
adapters.load("qiskit_aer_sim")
q = adapters.load("quest_sim")
if sys.argv[1] == "without-release":
    atexit.unregister(q._release_all)
s = q.from_numpy(np.ones(8, complex) / 8 ** 0.5)
"""


@available
def test_states_alive_at_exit_are_released_quietly():
    """A state still referenced when Python exits is released before pyquest's module
    globals are wiped: no "Exception ignored in ... Register.__dealloc__" (which the same
    script prints when the adapter's exit hook is taken away)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

    def stderr(mode):
        return subprocess.run([sys.executable, "-c", EXIT_SCRIPT, mode], capture_output=True,
                              text=True, check=True, cwd=root).stderr
    assert "Exception ignored" not in stderr("as-is")
    if not importlib.import_module("adapters.simulators.qiskit_aer_sim").AVAILABLE:
        pytest.skip("the failing order needs qiskit-aer imported first")
    assert "Register.__dealloc__" in stderr("without-release")


def _fresh_copy(monkeypatch):
    path = qs.__file__
    spec = importlib.util.spec_from_file_location("adapters.simulators._quest_sim_copy", path)
    copy = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, copy)
    spec.loader.exec_module(copy)
    return copy


def test_a_missing_pyquest_makes_the_adapter_unavailable(monkeypatch):
    for name in [m for m in sys.modules if m == "pyquest" or m.startswith("pyquest.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "pyquest", None)
    copy = _fresh_copy(monkeypatch)
    assert copy.AVAILABLE is False and copy.REASON.startswith("pyquest")
    state = np.ones(2, dtype=np.complex128) / 2 ** 0.5
    for call in (copy.version, lambda: copy.gate(circuits.gate("X", 0)),
                 lambda: copy.circuit([], 1), lambda: copy.from_numpy(state),
                 lambda: copy.apply(state, gates.X, (0,)), copy.threads):
        with pytest.raises(RuntimeError, match="adapter is unavailable"):
            call()


def test_the_numpy_1_wheel_is_named_in_reason(monkeypatch):
    """pyquest 0.0.1's wheel fails to import under numpy 2 with this ValueError."""
    real = importlib.import_module

    def import_module(name, *args):
        if name == "pyquest" or name.startswith("pyquest."):
            raise ValueError("numpy.dtype size changed, may indicate binary incompatibility."
                             " Expected 96 from C header, got 88 from PyObject")
        return real(name, *args)

    # pyquest stays in sys.modules, where it is: the patched import_module fails anyway,
    # and taking pyquest out and back would put the package after pyquest.core, so that
    # at exit Python would wipe pyquest.core's globals first and pyquest's environment
    # (pyquest.env) would then be freed by a __dealloc__ that finds its logger gone
    monkeypatch.setattr(importlib, "import_module", import_module)
    copy = _fresh_copy(monkeypatch)
    assert copy.AVAILABLE is False
    assert "compiled against numpy 1.x" in copy.REASON and "pyquest-develop" in copy.REASON
