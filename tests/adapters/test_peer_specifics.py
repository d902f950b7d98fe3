"""What each simulator adapter promises beyond the shared contract (test_simulators.py):
the tool's own named gates where it has them (not a matrix), and each tool's quirks."""

import numpy as np
import pytest

import adapters
from kernels.statevector import circuits, gates
from kernels.statevector.circuits import Instruction
from kernels.statevector.states import random_state

N = 5
CASES = {  # what each instruction must become, per adapter
    "X": circuits.gate("X", 2), "H": circuits.gate("H", 2), "T": circuits.gate("T", 2),
    "Rx": circuits.gate("Rx", 2, theta=0.7), "CNOT": circuits.cnot(2, 1),
    "Toffoli": circuits.toffoli(0, 3, 2), "CPhase": circuits.gate("phase", 1, ctrl=(3,),
                                                                  theta=0.5),
    "dense": Instruction("dense", gates.random_unitary(2, np.random.default_rng(0)), (3, 1)),
}


def _cirq(module, inst):
    return type(module.gate(inst).get(N)[0].gate).__name__


def _first(program):
    return program[0][0]


def _lightning(module, inst):
    return module.gate(inst).get(N, "StateVectorC128")[0][0]


def _class(obj):
    return type(obj).__name__


EXPECTED = {
    "cirq_sim": (_cirq, {"X": "_PauliX", "H": "HPowGate", "T": "ZPowGate", "Rx": "Rx",
                         "CNOT": "CXPowGate", "Toffoli": "CCXPowGate",
                         "CPhase": "CZPowGate", "dense": "MatrixGate"}),
    "qiskit_aer_sim": (lambda m, i: _first(m.gate(i).get(N)),
                       {"X": "apply_x", "H": "apply_h", "T": "apply_mcphase",
                        "Rx": "apply_u", "CNOT": "apply_cx", "Toffoli": "apply_mcx",
                        "CPhase": "apply_mcphase", "dense": "apply_unitary"}),
    "lightning_sim": (_lightning, {"X": "PauliX", "H": "Hadamard", "T": "T", "Rx": "RX",
                                   "CNOT": "CNOT", "Toffoli": "Toffoli",
                                   "CPhase": "ControlledPhaseShift", "dense": "applyMatrix"}),
    "mindquantum_sim": (lambda m, i: _class(m.gate(i).get(N)),
                        {"X": "XGate", "H": "HGate", "T": "TGate", "Rx": "RX",
                         "CNOT": "XGate", "Toffoli": "XGate", "CPhase": "PhaseShift",
                         "dense": "UnivMathGate"}),
    "qibojit_sim": (lambda m, i: _class(m.gate(i).get(N)[0]),
                    # controlled_by turns X and U1 into qibo's CNOT, TOFFOLI and CU1
                    {"X": "X", "H": "H", "T": "T", "Rx": "RX", "CNOT": "CNOT",
                     "Toffoli": "TOFFOLI", "CPhase": "CU1", "dense": "Unitary"}),
    "projectq_sim": (lambda m, i: _class(_first(m.gate(i).get(N))),
                     {"X": "XGate", "H": "HGate", "T": "TGate", "Rx": "Rx", "CNOT": "XGate",
                      "Toffoli": "XGate", "CPhase": "R", "dense": "MatrixGate"}),
    # a pyquest Circuit of operator objects, each one QuEST call (controlledNot,
    # multiControlledMultiQubitNot, controlledPhaseShift, twoQubitUnitary)
    "quest_sim": (lambda m, i: _class(next(iter(m.gate(i).get(N)))),
                  {"X": "X", "H": "H", "T": "T", "Rx": "Rx", "CNOT": "X", "Toffoli": "X",
                   "CPhase": "Phase", "dense": "U"}),
}


@pytest.mark.parametrize("adapter", sorted(EXPECTED))
def test_named_gates_become_the_tools_own(adapter):
    module = adapters.load(adapter)
    if not module.AVAILABLE:
        pytest.skip(module.REASON)
    name_of, expected = EXPECTED[adapter]
    got = {case: name_of(module, inst) for case, inst in CASES.items()}
    assert got == expected


def _available(adapter):
    module = adapters.load(adapter)
    if not module.AVAILABLE:
        pytest.skip(module.REASON)
    return module


def test_mindquantum_refuses_a_state_it_would_renormalise():
    mq = _available("mindquantum_sim")
    state = random_state(3, np.random.default_rng(0))
    with pytest.raises(ValueError, match="normalises"):
        mq.from_numpy(2 * state)
    mq.from_numpy(state)


def test_mindquantum_complex64_is_single_precision():
    mq = _available("mindquantum_sim")
    state = random_state(8, np.random.default_rng(1))
    circ = circuits.qcbm(8, np.random.default_rng(2), depth=5)
    out = {}
    for dtype in (np.complex128, np.complex64):
        s = mq.from_numpy(state.astype(dtype))
        mq.run(s, mq.circuit(circ, 8))
        out[dtype] = mq.to_numpy(s)
    err = np.max(np.abs(out[np.complex64] - out[np.complex128]))
    assert 1e-9 < err < 1e-4  # rounded like single precision, not computed in double


def test_qibojit_leaves_numbas_threads_alone():
    import numba
    qj = _available("qibojit_sim")
    before = numba.get_num_threads()
    qj._backends.clear()  # a new backend, whose constructor sets every core
    qj.from_numpy(np.ones(2, dtype=np.complex64) / 2 ** 0.5)
    qj.run(qj.from_numpy(np.ones(2, dtype=np.complex64) / 2 ** 0.5),
           qj.gate(circuits.gate("H", 0)))
    assert numba.get_num_threads() == before


def test_projectq_says_which_simulator_it_runs():
    pq = _available("projectq_sim")
    assert pq.REASON.endswith("(C++ simulator)") or "Python fallback" in pq.REASON
    assert pq.SETTINGS["simulator"] in pq.REASON


def test_projectq_runs_each_gate_as_it_arrives():
    """What its SETTINGS["fusion"] ("off") rests on: the engine's Simulator backend has
    gate fusion off, so its C++ Fusion queue is run after every gate."""
    pq = _available("projectq_sim")
    state = pq.from_numpy(random_state(3, np.random.default_rng(0)))
    assert state.eng.backend._gate_fusion is False
    assert pq.SETTINGS["fusion"].startswith("off")


TOOLS = {"cirq_sim": "cirq", "qsim_sim": "qsimcirq", "qiskit_aer_sim": "qiskit_aer",
         "lightning_sim": "pennylane_lightning", "mindquantum_sim": "mindquantum",
         "qibojit_sim": "qibojit", "projectq_sim": "projectq", "quest_sim": "pyquest"}


@pytest.mark.parametrize("adapter", sorted(TOOLS))
def test_a_missing_tool_makes_the_adapter_unavailable(adapter, monkeypatch):
    """A fresh copy of the adapter, imported while its tool cannot be: it imports, says
    why, and every function names the reason."""
    import importlib.util
    import sys
    tool = TOOLS[adapter]
    for name in [m for m in sys.modules if m == tool or m.startswith(tool + ".")] + [tool]:
        monkeypatch.setitem(sys.modules, name, None)
    path = adapters.load(adapter).__file__
    spec = importlib.util.spec_from_file_location(f"adapters.simulators._{adapter}_copy", path)
    copy = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, copy)
    spec.loader.exec_module(copy)
    assert copy.AVAILABLE is False and copy.REASON.startswith(tool)
    state = np.ones(2, dtype=np.complex128) / 2 ** 0.5
    for call in (copy.version, lambda: copy.gate(circuits.gate("X", 0)),
                 lambda: copy.circuit([], 1), lambda: copy.from_numpy(state),
                 lambda: copy.apply(state, gates.X, (0,))):
        with pytest.raises(RuntimeError, match="adapter is unavailable"):
            call()
