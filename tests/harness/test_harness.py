"""Validation before timing, backends, profiles and thread settings."""

import numpy as np
import pytest

from harness import profiles, registry, threads
from harness.errors import Unavailable, ValidationError
from harness.statevector import backends, validate
from kernels.statevector import circuits
from kernels.statevector.runner import KernelRunner
from kernels.statevector.settings import PRECISIONS
from kernels.statevector.states import random_state


def test_backend_names_cover_kernels_and_qulacs():
    names = backends.names()
    assert names[:9] == ["naive", "subspace", "blocked", "loop", "unrolled", "stride",
                         "threaded", "cuda", "fused"]
    assert "qulacs" in names
    with pytest.raises(ValueError, match="unknown backend 'nope'"):
        backends.get("nope")


def test_unavailable_backend_is_a_skip_with_its_reason():
    ok, why = registry.simulator("cuda").available()
    if ok:
        pytest.skip("a GPU is present here")
    with pytest.raises(Unavailable, match="cuda: .+"):
        backends.get("cuda").require()


class _Broken(KernelRunner):
    """A kernel that is wrong by a phase on one amplitude."""

    def program(self, instructions, n):
        inner = super().program(instructions, n)

        def run(state):
            inner(state)
            state[-1] *= 1j
        return run


def test_wrong_result_fails_validation_before_timing():
    vec = random_state(5, np.random.default_rng(0))
    inst = [circuits.gate("H", 2)]
    broken = backends.get("stride")
    broken.require()
    broken._runner = _Broken(broken._runner.module, PRECISIONS["complex128"])
    with pytest.raises(ValidationError, match=r"stride H \(complex128\): max amplitude error"):
        validate.validated_program(broken, vec, inst, what="H")
    assert validate.validated_program(backends.get("stride"), vec, inst) is not None


def test_complex64_backends_are_checked_at_their_precision():
    vec = random_state(9, np.random.default_rng(4))
    circ = circuits.qcbm(9, np.random.default_rng(5))
    backend = backends.get("stride", "complex64")
    program = validate.validated_program(backend, vec, circ)
    state = backend.load(vec)
    assert state.dtype == np.complex64
    backend.run(state, program)
    err = np.max(np.abs(state - validate.reference(vec, circ)))
    assert 1e-9 < err < PRECISIONS["complex64"].atol  # single precision, and close
    # a wrong complex64 result still fails
    with pytest.raises(ValidationError, match=r"\(complex64\)"):
        validate.compare("x", state * 1.001, validate.reference(vec, circ), precision="complex64")
    with pytest.raises(ValueError, match="unknown precision"):
        backends.get("stride", "complex256")


def test_validation_catches_nan_and_shape():
    expected = np.ones(4, dtype=complex)
    with pytest.raises(ValidationError, match="error nan"):
        validate.compare("x", np.array([1, 1, 1, np.nan]), expected)
    with pytest.raises(ValidationError, match="shape"):
        validate.compare("x", np.ones(8), expected)


@pytest.mark.parametrize("n", [3, 11])
def test_reference_is_dense_or_blocked_and_agrees(n):
    vec = random_state(n, np.random.default_rng(n))
    circ = circuits.qft(n)
    ref = validate.reference(vec, circ)
    np.testing.assert_allclose(ref, np.fft.ifft(vec) * np.sqrt(1 << n), atol=1e-10)


def test_profiles(monkeypatch):
    monkeypatch.setenv(profiles.ENV_VAR, "full")
    assert profiles.current()["gate_qubits"] == list(range(4, 26))
    monkeypatch.setenv(profiles.ENV_VAR, "huge")
    with pytest.raises(ValueError, match="not a profile"):
        profiles.current()


def test_set_threads_checks_range():
    with pytest.raises(ValueError, match="threads must be between 1 and"):
        threads.set_threads(0)
    assert threads.set_threads(1) == 1


def test_gate_suite_setup_validates_and_skips():
    from harness.benchmarks import statevector_gates as suite

    bench = suite.Gate()
    bench.setup("CNOT", 6, "stride")
    bench.time_gate("CNOT", 6, "stride")
    with pytest.raises(NotImplementedError, match="above its limit"):
        bench.setup("X", 13, "naive")


def test_peers_run_at_their_profile_sizes(monkeypatch):
    from harness.benchmarks import _statevector_setup

    monkeypatch.setitem(_statevector_setup.PROFILE, "peer_gate_qubits", [6])
    assert "qulacs" not in _statevector_setup.PEERS  # the baseline runs every size
    monkeypatch.setattr(_statevector_setup, "PEERS", ["cirq"])
    with pytest.raises(NotImplementedError, match="peers at gate_qubits"):
        _statevector_setup.check_size("gate_qubits", 8, "cirq")
    _statevector_setup.check_size("gate_qubits", 6, "cirq")
    _statevector_setup.check_size("gate_qubits", 8, "stride")  # kernels run every size
    _statevector_setup.check_size("gate_qubits", 8, "qulacs")


def test_complex64_suite_validates_and_times():
    from harness.benchmarks import statevector_gates as suite

    # derived from what each kernel and peer declares: qsim yes, qulacs (complex128) no
    # (the example plugin, which other tests install for a while, may have been there
    # when the suite was first imported, or be there now)
    # the gate suites leave out the backends that run whole circuits only (fused)
    from harness.benchmarks._statevector_setup import TIMED
    declared = set(registry.names("complex64", roles=TIMED, one_gate=True))
    assert set(suite.GateComplex64.params[2]) ^ declared <= {"example-numpy"}
    assert {"stride", "qsim"} <= set(suite.GateComplex64.params[2])
    assert "qulacs" not in suite.GateComplex64.params[2]
    bench = suite.GateComplex64()
    bench.setup("H", 8, "stride")
    assert bench.state.dtype == np.complex64
    bench.time_gate("H", 8, "stride")


def test_circuit_suite_skips_what_the_profile_leaves_out():
    from harness.benchmarks import statevector_circuits as suite

    assert {"lib:qv", "mqt:vqe_su2"} <= set(suite.Circuit.params[0])
    with pytest.raises(NotImplementedError, match="naive on circuits up to 8 qubits"):
        suite.Circuit().setup("lib:qft", 12, "naive")
    bench = suite.Circuit()
    bench.setup("lib:qcbm", 5, "qulacs")
    bench.time_circuit("lib:qcbm", 5, "qulacs")
    bench = suite.CircuitComplex64()
    bench.setup("lib:qv", 6, "stride")
    assert bench.state.dtype == np.complex64


def test_circuit_suite_skips_sizes_a_benchmark_refuses():
    pytest.importorskip("mqt.bench")
    from harness.benchmarks import statevector_circuits as suite

    with pytest.raises(NotImplementedError, match="mqt:half_adder at 6 qubits.*odd"):
        suite.Circuit().setup("mqt:half_adder", 6, "stride")
    with pytest.raises(NotImplementedError, match="lib:simon at 5 qubits"):
        suite.Circuit().setup("lib:simon", 5, "stride")


def test_profiles_circuit_patterns_expand():
    from harness.circuit import sources
    from kernels.statevector.circuits import LIBRARY

    names = sources.expand(["lib:*", "lib:qft", "mqt:q*"])
    assert names[:len(LIBRARY)] == [f"lib:{k}" for k in LIBRARY]
    assert names.count("lib:qft") == 1
    if pytest.importorskip("mqt.bench"):
        assert "mqt:qft" in names and "mqt:ghz" not in names
