"""Every backend declares its facts once (kernels.statevector.backend.Backend) and the
harness derives every list from them: here the declarations are held to what each of our
backends really runs (its precisions, on its device), and each registered backend's
declaration to the rules every table relies on."""

import warnings

import numpy as np
import pytest

from harness import registry
from kernels.statevector import KERNELS, MODULES, circuits, gates, naive
from kernels.statevector.backend import BASELINES, ROLES
from kernels.statevector.prepared import prepare
from kernels.statevector.settings import PRECISIONS
from kernels.statevector.states import random_state

#: amplitude tolerance of one gate on a unit-norm state, per precision
ATOL = {"complex128": 1e-12, "complex64": 2e-6}
DECLARED = registry.simulators()
OWN = [name for name, b in DECLARED.items() if b.own]


def _cases(seed):
    """(n, matrix, locs, ctrl_locs, ctrl_vals): 1- to 3-qubit dense gates, with and
    without controls on 0 and 1, on unsorted qubits."""
    rng = np.random.default_rng(seed)
    for k, n_ctrl in ((1, 0), (1, 2), (2, 1), (3, 0)):
        n = 6
        qubits = [int(q) for q in rng.permutation(n)[:k + n_ctrl]]
        yield (n, gates.random_unitary(k, rng), tuple(qubits[:k]), tuple(qubits[k:]),
               tuple(int(v) for v in rng.integers(0, 2, n_ctrl)))


def _xp(backend):
    ok, why = backend.available()
    if not ok:
        pytest.skip(f"{backend.name}: {why}")
    if backend.device == "cuda":
        import cupy
        return cupy
    return np


def test_the_registry_holds_every_backend_once_with_well_formed_facts():
    assert set(KERNELS) <= set(DECLARED) and len(DECLARED) == len(set(DECLARED))
    for name, b in DECLARED.items():
        assert b.name == name and b.role in ROLES and b.precisions
        assert b.baseline in (None, *BASELINES)
        assert b.circuit_max_qubits <= b.max_qubits
        assert b.mpi or not b.mpi_environment  # only a job's ranks get one
        assert b.accepts(None) and b.resolve(None) == b.fusion.default
    # each baseline a table draws others against is declared by exactly one backend
    for kind in BASELINES:
        assert sum(b.baseline == kind for b in DECLARED.values()) == 1, kind
    # validation has an oracle at every size a circuit can have
    assert registry.references() and registry.references()[-1].circuit_max_qubits >= 30


@pytest.mark.parametrize("name", OWN)
def test_each_declared_precision_runs_in_that_precision(name):
    """Every declared precision gives the right amplitudes, in that dtype (not silently
    computed in another), through the backend's runner and, for a one-gate kernel, the
    kernel and prepare, on the declared device."""
    backend = DECLARED[name]
    xp = _xp(backend)
    for precision in backend.precisions:
        dtype = precision.dtype
        for seed, (n, matrix, locs, ctrls, vals) in enumerate(_cases(len(precision.name))):
            start = random_state(n, np.random.default_rng(seed)).astype(dtype)
            expected = naive.apply(start.astype(np.complex128), matrix, locs, ctrls, vals)
            runner = backend.make(precision)
            program = runner.program([circuits.Instruction("dense", matrix, locs, ctrls,
                                                           vals)], n)
            state = runner.load(start)
            runner.run(state, program)
            runner.sync()
            got = runner.result(state)
            assert got.dtype == dtype
            np.testing.assert_allclose(got, expected, rtol=0, atol=ATOL[precision.name])
            if not backend.one_gate:
                continue
            for run in (MODULES[name].apply,
                        lambda s, *g, n=n, d=dtype: prepare(name, n, *g, dtype=d)(s)):
                state = xp.array(start)  # a copy for each
                out = run(state, matrix, locs, ctrls, vals)
                assert out is state and state.dtype == dtype
                got = state.get() if xp is not np else state
                np.testing.assert_allclose(got, expected, rtol=0, atol=ATOL[precision.name])


@pytest.mark.parametrize("name", OWN)
def test_undeclared_precisions_are_refused(name):
    """A precision the backend does not declare is refused by its declaration (none
    today: each of ours runs both; the check stays for a new one)."""
    backend = DECLARED[name]
    for precision in set(PRECISIONS.values()) - set(backend.precisions):
        with pytest.raises(ValueError, match="runs"):
            backend.make(precision)


@pytest.mark.parametrize("name", list(MODULES))
def test_the_device_is_where_states_live(name):
    """A cpu kernel runs numpy arrays; the cuda kernel refuses them (NotImplementedError,
    nothing touched) and runs cupy arrays."""
    module = MODULES[name]
    state = random_state(3, np.random.default_rng(1))
    before = state.copy()
    if module.BACKEND.device == "cpu":
        module.apply(state, gates.X, (0,))
        np.testing.assert_array_equal(state, before.reshape(4, 2)[:, ::-1].ravel())
    else:
        with pytest.raises(NotImplementedError):
            module.apply(state, gates.X, (0,))
        np.testing.assert_array_equal(state, before)


@pytest.mark.parametrize("name", ["naive", "subspace"])
def test_naive_and_subspace_run_other_element_types_too(name):
    """What their comments say beyond their precisions: a real state with a real matrix,
    and object arrays of Python numbers, give the right answer in their own element
    type."""
    module = MODULES[name]
    rng = np.random.default_rng(3)
    real = rng.standard_normal(8)
    h = gates.H.real.copy()
    expected = naive.apply(real.astype(np.complex128), h, (1,), (2,), (0,))
    with warnings.catch_warnings():
        # in real arithmetic throughout: no ComplexWarning on the way back into the state
        warnings.simplefilter("error")
        out = module.apply(real.copy(), h, (1,), (2,), (0,))
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, expected.real, atol=1e-12)
    objects = np.array([complex(x) for x in real], dtype=object)
    out = module.apply(objects, gates.H.astype(object), (1,), (2,), (0,))
    assert out.dtype == object
    np.testing.assert_allclose(out.astype(np.complex128), expected, atol=1e-12)
