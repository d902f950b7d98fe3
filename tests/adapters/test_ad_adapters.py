import importlib
import sys
import types

import numpy as np
import pytest

import adapters
import adapters.ad
from adapters.ad import algopy_ad, jax_jit_ad
from adapters.ad._translate import binary_operators, translate
from harness.ad.validate import RHO, rho
from kernels.ad import problems
from kernels.ad.problems import PROBLEMS
from tests.ad.cases import BASIC_CASES, BASIC_IDS
from tests.ad.gradcheck import check_gradient
from tests.ad.test_evals import SMALL

AD = [name for name, kind in adapters.ADAPTERS.items() if kind == "ad"]
COMPILED = {"jax_jit_ad"}
TOOLS = {"torch", "autograd", "jax", "algopy"}  # the import roots of the AD adapters' tools
# (adapter, problem) -> what the NotImplementedError from prepare must say
UNSUPPORTED = {("algopy_ad", p): "no @ operator" for p in ("trmul", "quadratic", "mps")}
#: the same on the evals: AlgoPy's numpy covers neither @ nor every function they call
UNSUPPORTED_EVALS = {
    ("algopy_ad", "llsq"): "no @ operator", ("algopy_ad", "lse"): "numpy.max",
    ("algopy_ad", "ode"): "numpy.zeros", ("algopy_ad", "kmeans"): "no @ operator",
    ("algopy_ad", "gmm"): "no @ operator"}
SEEDS = [name for name, p in PROBLEMS.items() if p.origin == "seeds"]
EVALS = [name for name, p in PROBLEMS.items() if p.origin != "seeds" and p.output == "gradient"]
SIZES = {"ackley": 16, "ackley_loop": 16, "polynomial": 16}  # else 4: tiny, JAX compiles


@pytest.fixture(params=AD)
def adapter(request):
    module = adapters.load(request.param)
    if not module.AVAILABLE:
        pytest.skip(f"{request.param}: {module.REASON}")
    return request.param, module


def _problem(name, seed=0):
    problem = PROBLEMS[name]
    return problem, problem.make_args(SIZES.get(name, 4), np.random.default_rng(seed))


@pytest.mark.parametrize("problem_name", EVALS)
def test_evals_match_manual_or_skip_with_reason(adapter, problem_name):
    # the data is bound with functools.partial; the tool differentiates the rest
    name, module = adapter
    problem, args = PROBLEMS[problem_name].bind(SMALL[problem_name], np.random.default_rng(3))
    match = UNSUPPORTED_EVALS.get((name, problem_name))
    if match is not None:
        with pytest.raises(NotImplementedError, match=match):
            module.prepare(problem.f, *args)
        return
    prepared = module.prepare(problem.f, *args)
    assert float(prepared.objective()) == pytest.approx(float(problem.f(*args)), rel=1e-12)
    assert rho(prepared.to_numpy(prepared.gradient()), problem.manual(*args)[1]) <= RHO


def _check_contract(grads, args, want):
    assert isinstance(grads, tuple) and len(grads) == len(args)
    for g, a, w in zip(grads, args, want):
        if isinstance(a, float):
            assert type(g) is float
        else:
            assert isinstance(g, np.ndarray) and g.shape == a.shape and g.dtype == np.float64
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-13)


def _unsupported(name, module, problem, args):
    """True (having checked the error) where the tool is expected not to run the problem."""
    match = UNSUPPORTED.get((name, problem.name))
    if match is None:
        return False
    for call in (module.prepare, module.gradient):
        with pytest.raises(NotImplementedError, match=match):
            call(problem.f, *args)
    return True


@pytest.mark.parametrize("problem_name", SEEDS)
def test_gradient_matches_manual(adapter, problem_name):
    name, module = adapter
    problem, args = _problem(problem_name)
    if not _unsupported(name, module, problem, args):
        _check_contract(module.gradient(problem.f, *args), args, problem.manual(*args)[1])


@pytest.mark.parametrize("problem_name", SEEDS)
def test_prepared(adapter, problem_name):
    name, module = adapter
    problem, args = _problem(problem_name, seed=1)
    if _unsupported(name, module, problem, args):
        return
    prepared = module.prepare(problem.f, *args)
    value, want = problem.manual(*args)
    np.testing.assert_allclose(float(prepared.objective()), problem.f(*args), rtol=1e-12)
    np.testing.assert_allclose(float(prepared.objective()), value, rtol=1e-12)
    # twice: leaves and seeds are fresh per call, nothing accumulates between calls
    for _ in range(2):
        _check_contract(prepared.to_numpy(prepared.gradient()), args, want)
    if name in COMPILED:
        assert prepared.compile_seconds > 0
    else:
        assert prepared.compile_seconds == 0.0
    module.sync()


@pytest.mark.parametrize("case", BASIC_CASES, ids=BASIC_IDS)
def test_torch_namespace_runs_every_basic_case(case):
    # torch is the one tool reached through a namespace written here: it must cover every
    # numpy function and use of the engines' basic cases (the problems' operations; the
    # full construct table of tests/ad/constructs.py is the engines' own)
    module = adapters.load("torch_ad")
    if not module.AVAILABLE:
        pytest.skip(module.REASON)
    _, f, make_args, _ = case
    check_gradient(module.gradient, f, *make_args(np.random.default_rng(0)),
                   rng=np.random.default_rng(1))


def _uses_missing(x):
    return np.no_such_function_for_tests(x)


def test_a_missing_function_is_unsupported(adapter):
    name, module = adapter
    with pytest.raises(NotImplementedError, match="numpy.no_such_function_for_tests"):
        module.prepare(_uses_missing, np.ones(3))


def test_bad_input(adapter):
    _, module = adapter
    f = PROBLEMS["ackley"].f
    with pytest.raises(TypeError, match="argument 0 must be a real number or an ndarray.*str"):
        module.gradient(f, "1.0")
    with pytest.raises(TypeError, match="argument 1 .* complex128 array"):
        module.gradient(problems.trmul, np.eye(2), np.eye(2, dtype=complex))
    with pytest.raises(TypeError, match="at least one argument"):
        module.gradient(f)
    with pytest.raises(TypeError, match="plain Python function"):
        module.gradient(np.sum, np.ones(3))


def test_jit_refuses_a_long_unrolled_loop(monkeypatch):
    if not jax_jit_ad.AVAILABLE:
        pytest.skip(jax_jit_ad.REASON)
    # 16 loop elements trace to over 100 equations; the vectorised Ackley to a handful
    monkeypatch.setattr(jax_jit_ad, "MAX_EQUATIONS", 50)
    x = PROBLEMS["ackley"].make_args(16, np.random.default_rng(0))
    with pytest.raises(NotImplementedError, match=r"traced operations.*MAX_EQUATIONS = 50"):
        jax_jit_ad.prepare(problems.ackley_loop, *x)
    assert jax_jit_ad.prepare(problems.ackley, *x).compile_seconds > 0


def test_algopy_refuses_seeds_above_its_memory_limit(monkeypatch):
    if not algopy_ad.AVAILABLE:
        pytest.skip(algopy_ad.REASON)
    monkeypatch.setattr(algopy_ad, "MAX_TAYLOR_BYTES", 2 * 16 * 16 * 8 - 1)
    rng = np.random.default_rng(0)
    with pytest.raises(NotImplementedError, match="16 directions over 16 inputs"):
        algopy_ad.prepare(problems.ackley, rng.standard_normal(16))
    algopy_ad.prepare(problems.ackley, rng.standard_normal(15))


def test_registry_lists_the_ad_adapters():
    assert AD == ["torch_ad", "autograd_ad", "jax_ad", "jax_jit_ad", "algopy_ad"]
    report = adapters.available()
    assert set(adapters.usable("ad")) == {name for name in AD if report[name][0]}
    for name in AD:
        module = adapters.load(name)
        assert isinstance(module.NAME, str) and report[name] == (module.AVAILABLE, module.REASON)
        assert all(callable(getattr(module, api)) for api in ("gradient", "prepare", "sync"))


def test_broken_tools_leave_the_adapters_unavailable(monkeypatch):
    real_import = importlib.import_module

    def import_module(name, package=None):
        if name.partition(".")[0] in TOOLS:
            raise OSError(f"lib{name}.so: cannot open shared object file")
        return real_import(name, package)

    monkeypatch.setattr(importlib, "import_module", import_module)
    for name in AD:  # fresh adapter imports; monkeypatch puts the real modules back
        monkeypatch.delitem(sys.modules, f"adapters.ad.{name}", raising=False)
        monkeypatch.delattr(adapters.ad, name, raising=False)
    before = {name: ok for name, (ok, _) in adapters.available().items() if name not in AD}

    report = adapters.available()
    for name in AD:
        ok, reason = report[name]
        assert not ok and "failed to import: OSError" in reason and "cannot open" in reason
        with pytest.raises(RuntimeError, match="unavailable.*OSError"):
            adapters.load(name).gradient(problems.ackley, np.ones(3))
    assert adapters.usable("ad") == {}
    assert {name: ok for name, (ok, _) in report.items() if name not in AD} == before


# -- translate ---------------------------------------------------------------------------

def _helper(x):
    return np.sin(x)


def _outer(x):
    return _helper(x) + 1.0


def _closure_over(fn):
    return lambda x: fn(x) * 2.0


def test_translate_rebinds_numpy_in_helpers_and_closures():
    fake = types.ModuleType("fake_numpy")
    fake.sin = lambda x: 10.0 * x
    other = types.ModuleType("other_numpy")
    other.sin = lambda x: -x

    g = translate(_outer, fake)
    assert g(2.0) == 21.0 and _outer(2.0) == np.sin(2.0) + 1.0
    assert g.__globals__["np"] is fake and g.__globals__["_helper"] is not _helper
    assert globals()["np"] is np
    assert translate(_outer, fake) is g  # cached
    assert translate(_outer, other)(2.0) == -1.0
    # a numpy function held by a closure (or imported by name) is swapped by its name
    assert translate(_closure_over(np.sin), fake)(2.0) == 40.0
    with pytest.raises(TypeError, match="plain Python function"):
        translate(np.sum, fake)


def test_binary_operators_follow_helpers():
    assert "@" in binary_operators(problems.trmul)
    assert "@" not in binary_operators(problems.ackley)
    # polynomial's powers are in _square_error, which it reaches only through map
    assert "**" in binary_operators(problems.polynomial)
