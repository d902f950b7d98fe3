"""Every engine on the shared cases (tests/ad/cases.py): against central differences along a
random direction, and against each other; the shared error contract."""

import zlib

import numpy as np
import pytest

from kernels.ad import ENGINES, rules

from .cases import CASES, IDS
from .gradcheck import check_gradient

EXACT = ["forward", "reverse", "source"]


def test_the_contract_names_four_engines():
    assert set(ENGINES) == {"forward", "reverse", "source", "compiled", "finite"}
    assert all(callable(e.gradient) for e in ENGINES.values())


def test_every_rule_is_reached_by_a_case():
    used = {fn for case in CASES for fn in case[3]}
    missing = [r.name for fn, r in rules.RULES.items() if fn not in used]
    assert not missing, f"rules without a test case: {missing}"


@pytest.mark.parametrize("engine", EXACT)
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_gradcheck(engine, case):
    name, f, make_args, _ = case
    # a seed of the name's own (str hash() differs from process to process: a matrix
    # drawn near-singular once in a while failed pinv's case)
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    check_gradient(ENGINES[engine].gradient, f, *make_args(rng), rng=rng)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_engines_agree(case):
    name, f, make_args, _ = case
    args = make_args(np.random.default_rng(7))
    want = ENGINES["forward"].gradient(f, *args)
    for engine in ["reverse", "source"]:
        got = ENGINES[engine].gradient(f, *args)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12, err_msg=engine)
    approx = ENGINES["finite"].gradient(f, *args)
    for g, w in zip(approx, want):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-7, err_msg="finite")


@pytest.mark.parametrize("engine", EXACT)  # finite differences need no rules
def test_missing_rule_names_the_function_and_the_fix(engine):
    with pytest.raises(rules.MissingRuleError, match=r"numpy\.spacing.*defpartials"):
        ENGINES[engine].gradient(lambda x: np.sum(np.spacing(x)), np.ones(3))


@pytest.mark.parametrize("engine", list(ENGINES))
def test_non_scalar_output_is_refused(engine):
    with pytest.raises(ValueError, match=r"scalar.*\(3,\)"):
        ENGINES[engine].gradient(lambda x: x * 2.0, np.ones(3))


@pytest.mark.parametrize("engine", list(ENGINES))
def test_non_float_argument_is_refused(engine):
    with pytest.raises(TypeError, match=r"argument 1"):
        ENGINES[engine].gradient(lambda x, s: np.sum(x), np.ones(3), "text")


BAD_ARGUMENTS = [
    ("text", r"argument 1 is a str; .* differentiates real floats and float arrays only"),
    (True, r"argument 1 is a bool"),
    (np.arange(3), r"argument 1 is an array of dtype int64; .* \(convert with \.astype\(float\)\)"),
    (np.ones(3, dtype=bool), r"argument 1 is an array of dtype bool"),
    (np.ones(3) * 1j, r"argument 1 is an array of dtype complex128"),
    (2j, r"argument 1 is a complex"),
    ([1.0, 2.0], r"argument 1 is a list \(make it an array\)"),
]


@pytest.mark.parametrize("engine", list(ENGINES))
@pytest.mark.parametrize("bad, message", BAD_ARGUMENTS, ids=lambda p: repr(p)[:20])
def test_every_engine_refuses_the_same_arguments_the_same_way(engine, bad, message):
    with pytest.raises(TypeError, match=message):
        ENGINES[engine].gradient(lambda x, s: np.sum(x), np.ones(3), bad)


@pytest.mark.parametrize("engine", list(ENGINES))
def test_every_engine_accepts_ints_and_numpy_scalars(engine):
    f = lambda a, b, c, d: a * b * c * np.sum(d)  # noqa: E731
    grads = ENGINES[engine].gradient(f, 2, np.int64(3), np.float32(0.5), np.ones(2, np.float32))
    assert [type(g) for g in grads[:3]] == [float, float, float]
    np.testing.assert_allclose(grads[:3], [3.0, 2.0, 12.0], rtol=1e-6)
    np.testing.assert_allclose(grads[3], [3.0, 3.0], rtol=1e-6)


@pytest.mark.parametrize("engine", list(ENGINES))
def test_constant_function_has_zero_gradient(engine):
    grads = ENGINES[engine].gradient(lambda x, y: 3.0, np.ones(3), 2.0)
    assert np.array_equal(grads[0], np.zeros(3)) and grads[1] == 0.0


@pytest.mark.parametrize("engine", list(ENGINES))
def test_user_rule_registration(engine):
    @rules.primitive
    def softplus(x):
        return np.log1p(np.exp(x))

    rules.defpartials(softplus, lambda ans, x: 1.0 / (1.0 + np.exp(-x)))
    try:
        x = np.array([-1.0, 0.5, 2.0])
        (g,) = ENGINES[engine].gradient(lambda x: np.sum(softplus(x) * x), x)
        s = 1.0 / (1.0 + np.exp(-x))
        np.testing.assert_allclose(g, np.log1p(np.exp(x)) + x * s, rtol=1e-6)
    finally:
        del rules.RULES[softplus]


def _ad_adapters():
    import adapters
    return [name for name, kind in adapters.ADAPTERS.items() if kind == "ad"]


@pytest.mark.parametrize("adapter", _ad_adapters())
@pytest.mark.parametrize("problem", ["trmul", "quadratic", "rational", "trig", "ackley_loop",
                                     "ackley", "polynomial"])
def test_engines_agree_with_the_peers(problem, adapter):
    import adapters
    from kernels.ad.problems import PROBLEMS

    tool = adapters.load(adapter)
    if not tool.AVAILABLE:
        pytest.skip(tool.REASON)
    p = PROBLEMS[problem]
    args = p.make_args(min(p.sizes[0], 16), np.random.default_rng(11))
    try:
        want = tool.gradient(p.f, *args)
    except NotImplementedError as exc:  # e.g. algopy has no `@`
        pytest.skip(str(exc))
    for engine in EXACT:
        for g, w in zip(ENGINES[engine].gradient(p.f, *args), want):
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12, err_msg=engine)


try:
    from scipy.special import logsumexp  # bound before an engine swaps the name
except ImportError:  # pragma: no cover
    logsumexp = None


def _logsumexp_imported_by_name(x):
    return logsumexp(x)


@pytest.mark.parametrize("engine", EXACT)
def test_scipy_logsumexp_imported_by_name(engine):
    # the source engine binds the function itself; the operator-overloading engines swap
    # scipy.special.logsumexp while they trace, so a name bound earlier reaches scipy's own
    # code, which refuses the traced value by name (never a wrong number)
    if logsumexp is None:
        pytest.skip("scipy is not installed")
    from kernels.ad._arrays import EscapeError
    x = np.array([0.5, 1.0, 1.5])
    want = np.exp(x) / np.sum(np.exp(x))
    if engine == "source":
        np.testing.assert_allclose(ENGINES[engine].gradient(_logsumexp_imported_by_name, x)[0],
                                   want, rtol=1e-12)
    else:
        with pytest.raises(EscapeError, match=r"converted to a plain numpy array"):
            ENGINES[engine].gradient(_logsumexp_imported_by_name, x)
