"""Each fusing peer's settings (``FUSION``, ``circuit(..., fusion=k)``) give the right
state, and the tool really fuses at them: fewer operations in the tool's own program
(qulacs, qibo), Aer's own report that it fused (its metadata, for the configuration the
adapter gives its AerState), or different float32 arithmetic (qsim, whose fuser keeps no
count we can read)."""

import numpy as np
import pytest

from adapters.simulators import _base as _simulator
from harness import registry
from harness.errors import Unavailable
from harness.statevector import backends
from kernels.statevector import KERNELS, circuits

N = 8


@pytest.fixture(scope="module")
def qcbm():
    return circuits.LIBRARY["qcbm"].make(N, np.random.default_rng(3))


def start():
    vec = np.zeros(1 << N, np.complex128)
    vec[0] = 1
    return vec


def fusing_peers():
    return [b.name for b in registry.simulators().values() if b.fusion.settings and not b.own]


@pytest.mark.parametrize("name", fusing_peers())
def test_every_setting_gives_the_right_state(name, qcbm):
    expected = circuits.run(KERNELS["stride"], start(), qcbm)
    declared = registry.simulator(name)
    for fusion in declared.fusion.settings:
        backend = backends.get(name, declared.default_precision, fusion)
        try:
            backend.require()
        except Unavailable as exc:
            pytest.skip(str(exc))
        program = backend.program(qcbm, N)
        state = backend.load(start())
        backend.run(state, program)
        np.testing.assert_allclose(backend.result(state), expected,
                                   atol=1e-12 if backend.dtype == np.complex128 else 1e-5)


@pytest.mark.parametrize("name", fusing_peers())
def test_an_undeclared_setting_is_refused(name, qcbm):
    module = registry.simulator(name).module
    if not module.AVAILABLE:
        pytest.skip(module.REASON)
    for bad in (7, -1, True, "2"):
        with pytest.raises(ValueError, match="fusion"):
            module.circuit(qcbm, N, fusion=bad)


def native(name, qcbm, fusion):
    module = registry.simulator(name).module
    if not module.AVAILABLE:
        pytest.skip(module.REASON)
    return _simulator.built(module.circuit(qcbm, N, fusion=fusion), module.NAME, N)


def test_qulacs_optimizer_merges_gates(qcbm):
    counts = {k: native("qulacs", qcbm, k).get_gate_count() for k in (0, 2, 4)}
    assert counts[0] == len(qcbm)
    assert counts[4] < counts[2] < counts[0]


def test_qibo_fuse_merges_gates(qcbm):
    counts = {k: len(native("qibojit", qcbm, k).queue) for k in (0, 1, 2)}
    assert counts[0] == len(qcbm)
    assert counts[2] < counts[1] < counts[0]


def test_aer_fuses_with_the_adapters_configuration(qcbm):
    from adapters.simulators import qiskit_aer_sim as aer
    if not aer.AVAILABLE:
        pytest.skip(aer.REASON)
    import qiskit
    from qiskit_aer import AerSimulator
    qc = qiskit.QuantumCircuit(N)
    for inst in qcbm:
        qc.unitary(inst.matrix, list(inst.locs)) if not inst.ctrl_locs else qc.cx(
            inst.ctrl_locs[0], inst.locs[0])
    qc.save_statevector()
    for k in (0, 2, 4):
        config = dict(aer.fusion_config(k))
        meta = AerSimulator(method="statevector", **config).run(qc).result().results[0]
        fused = meta.metadata["fusion"]
        assert fused["enabled"] is (k > 0)
        if k:
            assert fused["applied"] and fused["max_fused_qubits"] == k
    # and the AerState the adapter runs a program on has that configuration: made with
    # Aer's defaults, remade by bind (outside the timed run; the harness calls it)
    program = aer.circuit(qcbm, N, fusion=2)
    state = aer.from_numpy(start())
    assert "fusion_max_qubit" not in state.aer.configuration()
    aer.bind(state, program)
    assert state.aer.configuration()["fusion_max_qubit"] == "2"
    aer.run(state, program)
    assert state.aer.configuration()["fusion_max_qubit"] == "2"
    backend = backends.get("qiskit-aer", "complex128", 3)
    backend.program(qcbm, N)
    assert backend.load(start()).aer.configuration()["fusion_max_qubit"] == "3"
    aer.run(state, aer.circuit(qcbm, N, fusion=0))  # remade for the other setting
    assert state.aer.configuration()["fusion_enable"] == "False"


def test_qsim_arithmetic_changes_with_the_setting(qcbm):
    """Different fused matrices round differently in float32: the states agree to the
    tolerance and not bit for bit."""
    out = {}
    for k in (2, 3):
        module = registry.simulator("qsim").module
        if not module.AVAILABLE:
            pytest.skip(module.REASON)
        state = module.from_numpy(start().astype(np.complex64))
        module.run(state, module.circuit(qcbm, N, fusion=k))
        out[k] = module.to_numpy(state)
    np.testing.assert_allclose(out[2], out[3], atol=1e-5)
    assert not np.array_equal(out[2], out[3])
