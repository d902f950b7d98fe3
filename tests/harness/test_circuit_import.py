"""Circuits imported from OpenQASM 2 and 3, qiskit and MQT Bench: amplitude for amplitude
the state qiskit's own ``Statevector`` gives (global phase included), named gates kept,
and every instruction that is not unitary refused with its line."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from harness.circuit import convert, families, sources
from kernels.statevector import circuits, gates, naive, subspace

qiskit = pytest.importorskip("qiskit")
from qiskit import QuantumCircuit  # noqa: E402
from qiskit.circuit import library as qlib  # noqa: E402
from qiskit.quantum_info import Statevector  # noqa: E402

QASM = Path(__file__).parent / "qasm"
ATOL = 1e-12


def final_state(instructions, n):
    state = np.zeros(1 << n, dtype=np.complex128)
    state[0] = 1
    kernel = naive.apply if n <= 10 else subspace.apply
    return circuits.run(kernel, state, instructions)


def qiskit_state(qc):
    qc = qc.copy()
    qc.remove_final_measurements()
    return Statevector(qc).data


def assert_same_as_qiskit(circuit, qc):
    got = final_state(circuit.instructions, circuit.n)
    np.testing.assert_allclose(got, qiskit_state(qc), rtol=0, atol=ATOL)


def load_qasm2(path):
    import qiskit.qasm2
    return qiskit.qasm2.load(str(path), custom_instructions=qiskit.qasm2.LEGACY_CUSTOM_INSTRUCTIONS)


# --- files ----------------------------------------------------------------------------

def test_qasm2_file_with_user_gates_equals_qiskit():
    path = QASM / "user_gates.qasm"
    circuit = sources.load(path)
    assert circuit.n == 5
    assert_same_as_qiskit(circuit, load_qasm2(path))
    names = {i.name for i in circuit.instructions}
    assert {"H", "X", "SWAP", "Rz", "phase"} <= names  # named gates kept
    assert "dropped 1 barrier (no effect on the state)" in circuit.notes
    assert "dropped 5 final measurements (no effect on the state)" in circuit.notes
    # cswap as a controlled SWAP, ccx as X with two controls, cu3 as a controlled matrix
    controlled = {(i.name, len(i.ctrl_locs)) for i in circuit.instructions}
    assert {("SWAP", 1), ("X", 2), ("dense", 1), ("phase", 1), ("Rz", 1)} <= controlled


def test_qasm3_file_equals_qiskit_and_keeps_its_global_phase():
    import qiskit.qasm3
    path = QASM / "program3.qasm"
    circuit = sources.load(path)
    assert_same_as_qiskit(circuit, qiskit.qasm3.loads(path.read_text()))
    last = circuit.instructions[-1]
    assert last.name == "dense" and np.allclose(last.matrix, np.exp(0.5j) * np.eye(2))
    # negctrl: a control valued 0
    assert any(0 in (i.ctrl_vals or ()) for i in circuit.instructions)


@pytest.mark.parametrize("name, line, what", [
    ("reset.qasm", 6, "reset on qubit 1"),
    ("midmeasure.qasm", 6, "measure on qubit 1: a mid-circuit measurement"),
    ("classical.qasm", 7, "if_else on qubit 1: classical control flow"),
])
def test_non_unitary_instructions_are_refused_with_their_line(name, line, what):
    with pytest.raises(sources.SourceError, match=rf"^{name}: line {line}: {what}"):
        sources.load(QASM / name)


def test_syntax_errors_name_their_line():
    with pytest.raises(sources.SourceError, match=r"syntax.qasm: line 5, column \d+: needed"):
        sources.load(QASM / "syntax.qasm")


def test_qasm3_syntax_error_names_its_line(tmp_path):
    path = tmp_path / "bad3.qasm"
    path.write_text('OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit[2] q;\nh q[0]\ncx q[0], q[1];\n')
    with pytest.raises(sources.SourceError, match=r"line 5, column 0: syntax error: missing ';'"):
        sources.load(path)


def test_qasm3_unknown_gate_names_its_line(tmp_path):
    path = tmp_path / "unknown.qasm"
    path.write_text('OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit[2] q;\nfoo q[0];\n')
    with pytest.raises(sources.SourceError, match=r"line 4, column 0: gate 'foo' is not defined"):
        sources.load(path)


def test_unreadable_and_unbound_inputs_are_clear(tmp_path):
    with pytest.raises(sources.SourceError, match="cannot read"):
        sources.load(tmp_path / "missing.qasm")
    path = tmp_path / "param.qasm"
    path.write_text('OPENQASM 3.0;\ninclude "stdgates.inc";\ninput float theta;\nqubit q;\n'
                    'rx(theta) q;\n')
    with pytest.raises(sources.SourceError, match=r"unbound parameters \(theta\)"):
        sources.load(path)
    with pytest.raises(sources.SourceError, match="OpenQASM 4 is not supported"):
        (tmp_path / "v4.qasm").write_text("OPENQASM 4.0;\n")
        sources.load(tmp_path / "v4.qasm")


def test_version_comes_from_the_header_not_a_comment():
    assert sources.qasm_version("// OPENQASM 2.0;\nOPENQASM 3;\nqubit q;") == 3
    assert sources.qasm_version("/* OPENQASM 3.0; */ OPENQASM 2.0;") == 2
    assert sources.qasm_version("qubit q;") == 3


def test_qubits_must_match_a_file(tmp_path):
    with pytest.raises(sources.SourceError, match="declares 5 qubits, not --qubits 4"):
        sources.load(QASM / "user_gates.qasm", qubits=4)


# --- every gate of qiskit's library ----------------------------------------------------

def _standard_gates():
    """Every gate of qiskit's standard library, with random parameters (seeded)."""
    from qiskit.circuit.library import get_standard_gate_name_mapping
    rng = np.random.default_rng(7)
    for name, gate in sorted(get_standard_gate_name_mapping().items()):
        if not isinstance(gate, qiskit.circuit.Gate) or gate.num_clbits:
            continue
        params = [float(rng.uniform(-np.pi, np.pi)) for _ in gate.params]
        yield name, (gate.base_class(*params) if params else gate)


@pytest.mark.parametrize("name, gate", list(_standard_gates()), ids=lambda v: str(v)[:12])
def test_every_standard_gate_equals_qiskits_matrix(name, gate):
    k = gate.num_qubits
    n = k + 1
    qubits = list(np.random.default_rng(k).permutation(n)[:k])
    qc = QuantumCircuit(n)
    qc.h(range(n))  # a state where every amplitude counts
    qc.append(gate, [int(q) for q in qubits])
    circuit = sources.from_circuit(qc)
    assert_same_as_qiskit(circuit, qc)


def test_named_gates_keep_their_names_and_controls():
    qc = QuantumCircuit(5)
    qc.cx(0, 1)
    qc.append(qlib.XGate().control(3, ctrl_state="010"), [0, 1, 2, 4])
    qc.cp(0.3, 3, 4)
    qc.crz(0.2, 1, 2)
    qc.swap(1, 3)
    qc.append(qlib.MCXGate(4), [0, 1, 2, 3, 4])
    out = sources.from_circuit(qc).instructions
    assert [(i.name, i.locs, i.ctrl_locs, i.ctrl_vals) for i in out] == [
        ("X", (1,), (0,), (1,)),
        ("X", (4,), (0, 1, 2), (0, 1, 0)),
        ("phase", (4,), (3,), (1,)),
        ("Rz", (2,), (1,), (1,)),
        ("SWAP", (1, 3), (), ()),
        ("X", (4,), (0, 1, 2, 3), (1, 1, 1, 1)),
    ]
    assert out[2].params == (0.3,)


def test_large_library_gates_are_expanded_with_their_phases():
    qc = QuantumCircuit(6, global_phase=1.1)
    qc.h(range(6))
    qc.append(qlib.QFTGate(5), [5, 0, 2, 1, 3])
    qc.append(qlib.PermutationGate([2, 0, 1, 4, 3]), range(5))
    qc.append(qlib.UnitaryGate(gates.random_unitary(3, np.random.default_rng(2))), [4, 1, 3])
    circuit = sources.from_circuit(qc)
    assert_same_as_qiskit(circuit, qc)
    assert max(len(i.locs) for i in circuit.instructions) == 3  # the unitary, dense


def test_a_circuit_of_only_dropped_instructions_is_refused():
    qc = QuantumCircuit(2, 2)
    qc.barrier()
    qc.measure([0, 1], [0, 1])
    with pytest.raises(sources.SourceError, match="no gates to run"):
        sources.from_circuit(qc)


def test_a_measurement_followed_by_another_on_its_qubit_is_final():
    qc = QuantumCircuit(2, 2)
    qc.h(0)
    qc.measure(0, 0)
    qc.barrier()
    qc.measure(0, 1)
    qc.x(1)
    circuit = sources.from_circuit(qc)
    assert "dropped 2 final measurements (no effect on the state)" in circuit.notes


def test_gates_inside_a_definition_are_checked_too():
    inner = QuantumCircuit(1)
    inner.reset(0)
    qc = QuantumCircuit(1)
    qc.append(inner.to_instruction(), [0])
    with pytest.raises(sources.SourceError, match="inside a gate definition: a reset"):
        sources.from_circuit(qc)


# --- sources by name -------------------------------------------------------------------

def test_library_sources():
    circuit = sources.load("lib:ghz", 5)
    state = final_state(circuit.instructions, 5)
    assert np.allclose(np.abs(state[[0, 31]]) ** 2, 0.5)
    with pytest.raises(sources.SourceError, match="lib:nope is not in the circuit library"):
        sources.load("lib:nope", 5)
    with pytest.raises(sources.SourceError, match="needs --qubits"):
        sources.load("lib:ghz")
    with pytest.raises(sources.SourceError, match="lib:simon at 5 qubits"):
        sources.load("lib:simon", 5)


@pytest.mark.parametrize("name", sorted(families.FAMILIES))
def test_qiskit_families_equal_qiskits_untranspiled_circuit(name):
    # what runs is qiskit's transpilation, the same whatever Python's hash seed
    circuit = sources.load(f"qiskit:{name}", 5)
    assert circuit.label == f"qiskit:{name}" and circuit.n == 5
    assert_same_as_qiskit(circuit, families.build(name, 5))
    assert {inst.name for inst in circuit.instructions} <= {"dense", "H", "Rx", "Ry", "Rz", "X"}
    digests = {subprocess.run(
        [sys.executable, "-c", "from harness.circuit import sources; print(sources.digest("
         f"sources.load('qiskit:{name}', 5).instructions))"], capture_output=True, text=True,
        check=True, env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in "12"}
    assert digests == {sources.digest(circuit.instructions) + "\n"}
    if name == "brickwork":  # UnitaryGates: exact, and so is qiskit's synthesis of them
        assert_same_as_qiskit(circuit, families.FAMILIES[name].build(5))
    else:  # a Lie-Trotter product: near the exact evolution qiskit simulates the gate by
        exact = qiskit_state(families.FAMILIES[name].build(5))
        overlap = abs(np.vdot(exact, final_state(circuit.instructions, 5)))
        # first order in the step: neel's 20 steps of 0.1 keep 0.95 of the state
        assert (0.9 if name == "neel" else 0.99) < overlap < 1 - 1e-6


def test_qiskit_family_errors_are_clear():
    with pytest.raises(sources.SourceError, match="qiskit:nope is not a family .* "
                                                  "qiskit:heisenberg"):
        sources.load("qiskit:nope", 4)
    with pytest.raises(sources.SourceError, match="needs --qubits"):
        sources.load("qiskit:tfim")
    with pytest.raises(sources.SourceError, match="qiskit:brickwork at 1 qubits: .*at least 2"):
        sources.load("qiskit:brickwork", 1)
    assert sources.expand(["qiskit:*"]) == [f"qiskit:{k}" for k in families.FAMILIES]


pytest.importorskip("mqt.bench")


def _mqt_names():
    from mqt.bench.benchmarks import get_available_benchmark_names
    return get_available_benchmark_names()


#: MQT Bench's circuits with mid-circuit measurements and classical control (the error
#: correction codes measure syndromes and correct on them)
DYNAMIC = {"dynamic_qft", "ghz_dynamic", "iqpe", "seven_qubit_steane_code",
           "shors_nine_qubit_code"}


@pytest.mark.parametrize("name", _mqt_names())
def test_every_mqt_bench_benchmark_equals_qiskit_or_is_refused_by_name(name):
    from mqt.bench import BenchmarkLevel, get_benchmark
    n = next((k for k in range(5, 18) if _generates(name, k)), None)
    if n is None:
        with pytest.raises(sources.SourceError, match=rf"mqt:{name} at \d+ qubits"):
            sources.load(f"mqt:{name}", 6)
        return
    if name in DYNAMIC:
        with pytest.raises(sources.SourceError, match="not unitary|mid-circuit"):
            sources.load(f"mqt:{name}", n)
        return
    circuit = sources.load(f"mqt:{name}", n)
    qc = get_benchmark(name, BenchmarkLevel.ALG, n, **sources._seeded(name))
    assert_same_as_qiskit(circuit, qc)
    # the same circuit each time (seeded generators)
    assert sources.digest(sources.load(f"mqt:{name}", n).instructions) == \
        sources.digest(circuit.instructions)


def _generates(name, n):
    from mqt.bench import BenchmarkLevel, get_benchmark
    try:
        get_benchmark(name, BenchmarkLevel.ALG, n, **sources._seeded(name))
        return True
    except Exception:
        return False


def test_mqt_errors_are_clear():
    with pytest.raises(sources.SourceError, match="mqt:nope is not an MQT Bench benchmark"):
        sources.load("mqt:nope", 4)
    with pytest.raises(sources.SourceError, match="level 'mapped' is not one of"):
        sources.load("mqt:ghz:mapped", 4)
    circuit = sources.load("mqt:qft:indep", 4)
    assert circuit.label == "mqt:qft:indep" and circuit.n == 4


def test_convert_refusal_messages_name_the_position_without_a_file():
    qc = QuantumCircuit(2)
    qc.h(0)
    qc.reset(1)
    with pytest.raises(convert.NotUnitary, match=r"^instruction 1: reset on qubit 1"):
        convert.from_qiskit(qc)
