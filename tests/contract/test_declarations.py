"""Each kernel module declares ``PRECISIONS`` (default first) and ``DEVICE``, as the
adapters do, so that every list of backends is derived from them: here the declarations
are held to what each kernel really runs."""

import importlib
import warnings

import numpy as np
import pytest

from kernels.statevector import CPU_KERNELS, KERNELS, gates, naive
from kernels.statevector.prepared import prepare
from kernels.statevector.states import PRECISIONS, random_state

#: amplitude tolerance of one gate on a unit-norm state, per precision
ATOL = {"complex128": 1e-12, "complex64": 2e-6}
DEVICES = ("cpu", "cuda")
MODULES = {name: importlib.import_module(f"kernels.statevector.{name}") for name in KERNELS}


def _cases(seed):
    """(n, matrix, locs, ctrl_locs, ctrl_vals): 1- to 3-qubit dense gates, with and
    without controls on 0 and 1, on unsorted qubits."""
    rng = np.random.default_rng(seed)
    for k, n_ctrl in ((1, 0), (1, 2), (2, 1), (3, 0)):
        n = 6
        qubits = [int(q) for q in rng.permutation(n)[:k + n_ctrl]]
        yield (n, gates.random_unitary(k, rng), tuple(qubits[:k]), tuple(qubits[k:]),
               tuple(int(v) for v in rng.integers(0, 2, n_ctrl)))


def _cupy():
    from kernels.statevector import cuda
    ok, why = cuda.available()
    if not ok:
        pytest.skip(f"cuda: {why}")
    import cupy
    return cupy


@pytest.mark.parametrize("name", list(MODULES))
def test_declarations_are_well_formed(name):
    module = MODULES[name]
    assert isinstance(module.PRECISIONS, tuple) and module.PRECISIONS
    assert set(module.PRECISIONS) <= set(PRECISIONS)
    assert len(set(module.PRECISIONS)) == len(module.PRECISIONS)
    assert module.DEVICE in DEVICES
    assert (name in CPU_KERNELS) == (module.DEVICE == "cpu")


@pytest.mark.parametrize("name", list(MODULES))
def test_each_declared_precision_runs_in_that_precision(name):
    """Every declared precision gives the right amplitudes, in that dtype (not silently
    computed in another), through the kernel and through prepare, on the declared
    device."""
    module = MODULES[name]
    xp = _cupy() if module.DEVICE == "cuda" else np
    for precision in module.PRECISIONS:
        dtype = PRECISIONS[precision]
        for seed, (n, matrix, locs, ctrls, vals) in enumerate(_cases(len(precision))):
            start = random_state(n, np.random.default_rng(seed)).astype(dtype)
            expected = naive.apply(start.astype(np.complex128), matrix, locs, ctrls, vals)
            for run in (module.apply,
                        lambda s, *g, n=n, d=dtype: prepare(name, n, *g, dtype=d)(s)):
                state = xp.array(start)  # a copy for each
                out = run(state, matrix, locs, ctrls, vals)
                assert out is state and state.dtype == dtype
                got = state.get() if xp is not np else state
                np.testing.assert_allclose(got, expected, rtol=0, atol=ATOL[precision])


@pytest.mark.parametrize("name", list(MODULES))
def test_undeclared_precisions_are_refused(name):
    """A precision the module does not declare is a NotImplementedError, before the state
    is touched (none today: every kernel runs both; the check stays for a new one)."""
    module = MODULES[name]
    for precision in set(PRECISIONS) - set(module.PRECISIONS):
        state = random_state(3, np.random.default_rng(0)).astype(PRECISIONS[precision])
        before = state.copy()
        with pytest.raises(NotImplementedError):
            module.apply(state, gates.H, (0,))
        np.testing.assert_array_equal(state, before)


@pytest.mark.parametrize("name", list(MODULES))
def test_the_device_is_where_states_live(name):
    """A cpu kernel runs numpy arrays; the cuda kernel refuses them (NotImplementedError,
    nothing touched) and runs cupy arrays."""
    module = MODULES[name]
    state = random_state(3, np.random.default_rng(1))
    before = state.copy()
    if module.DEVICE == "cpu":
        module.apply(state, gates.X, (0,))
        np.testing.assert_array_equal(state, before.reshape(4, 2)[:, ::-1].ravel())
    else:
        with pytest.raises(NotImplementedError):
            module.apply(state, gates.X, (0,))
        np.testing.assert_array_equal(state, before)


@pytest.mark.parametrize("name", ["naive", "subspace"])
def test_naive_and_subspace_run_other_element_types_too(name):
    """What their comments say beyond PRECISIONS: a real state with a real matrix, and
    object arrays of Python numbers, give the right answer in their own element type."""
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

