"""numpy's whole public namespace (np, np.linalg, np.fft) against the rule table: every
public function has a rule, is a plain value (rules.NONDIFFERENTIABLE), is handled in a
canonical form or as a constructor, or is refused with a reason (kernels/ad/rules/namespace.py),
and a refused one, called on traced values, raises an error naming it and the reason."""

import types
import warnings

import numpy as np
import pytest

from kernels.ad import ENGINES, rules
from kernels.ad.rules import namespace as _namespace

try:
    from scipy import special
except ImportError:  # pragma: no cover
    special = None

EXACT = ["forward", "reverse", "source"]


def public_functions():
    """(qualified name, function) of every public callable of np, np.linalg and np.fft
    that is not a class (np.float64(x) and friends are escapes, refused as such)."""
    out = []
    for module, prefix in [(np, "np"), (np.linalg, "np.linalg"), (np.fft, "np.fft")]:
        for name in dir(module):
            obj = getattr(module, name)
            if name.startswith("_") or not callable(obj) or isinstance(obj, (type,
                                                                             types.ModuleType)):
                continue
            out.append((f"{prefix}.{name}", obj))
    return out


def _covered(fn):
    return (fn in rules.RULES or fn in rules.NONDIFFERENTIABLE or fn in rules.CANONICAL
            or fn in rules.REFUSED or fn in _namespace.CONSTRUCTORS)


def test_every_public_function_is_covered_or_refused():
    missing = [name for name, fn in public_functions() if not _covered(fn)]
    assert not missing, ("public numpy functions with no rule, no plain-value entry and no "
                         f"refusal (kernels/ad/rules/namespace.py): {missing}")
    assert len(public_functions()) > 400


def test_no_function_is_both_refused_and_differentiated():
    both = [rules.RULES[fn].name for fn in rules.REFUSED if fn in rules.RULES]
    both += [repr(fn) for fn in rules.REFUSED if fn in rules.NONDIFFERENTIABLE]
    assert not both


@pytest.mark.parametrize("fn", sorted(rules.REFUSED, key=rules._name), ids=rules._name)
def test_lookup_of_a_refused_function_names_it_and_why(fn):
    with pytest.raises(rules.MissingRuleError) as info:
        rules.lookup(fn)
    assert rules._name(fn) in str(info.value) and rules.REFUSED[fn] in str(info.value)


def _one_argument_calls():
    """The refused functions numpy itself takes a float array or vector alone with."""
    calls = []
    for fn, reason in rules.REFUSED.items():
        if reason.startswith("not numeric"):
            continue  # not called: np.test would run numpy's tests, np.seterr changes state
        for x in (np.array([[0.6, 1.3, 0.9], [1.1, 0.7, 1.4], [0.8, 1.2, 1.5]]),
                  np.array([0.6, 1.3, 0.9, 1.1])):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    y = fn(x)
                if isinstance(y, tuple):
                    y = y[0]
                if y is None:
                    continue
                np.sum(np.abs(np.asarray(y, dtype=complex)))
            except Exception:  # noqa: BLE001, S112 - not a one-argument numeric call
                continue
            calls.append((fn, x))
            break
    return calls


ONE_ARGUMENT = _one_argument_calls()


def test_many_refused_functions_take_one_array():
    assert len(ONE_ARGUMENT) > 30


def _caller(fn):
    def f(x):
        y = fn(x)
        if isinstance(y, tuple):
            y = y[0]
        return np.sum(np.abs(y))
    return f


def _dispatches(fn):
    """Whether numpy hands ``fn``'s traced arguments to the engine (a ufunc, or a function
    with ``__array_function__`` dispatch); the few that do not (np.asmatrix, np.require)
    convert them, which the operator-overloading engines refuse as an escape."""
    return isinstance(fn, np.ufunc) or hasattr(fn, "_implementation")


@pytest.mark.parametrize("engine", EXACT)
def test_refused_functions_on_traced_values_name_themselves_and_why(engine):
    wrong = []
    for fn, x in ONE_ARGUMENT:
        try:
            ENGINES[engine].gradient(_caller(fn), x)
        except Exception as exc:  # noqa: BLE001 - the message is what is checked
            text = str(exc)
            if engine != "source" and not _dispatches(fn):
                continue  # an error, never a number: EscapeError names the user's line
            if rules._name(fn) not in text or rules.REFUSED[fn] not in text:
                wrong.append(f"{rules._name(fn)}: {type(exc).__name__}: {text[:160]}")
        else:
            wrong.append(f"{rules._name(fn)}: answered")
    assert not wrong, "\n".join(wrong)


def _eig(a):
    return np.real(np.sum(np.linalg.eig(a)[0]))


def _percentile(x):
    return np.percentile(x, 50.0)


def _full(x):
    return np.sum(np.full(3, x[0]) * x)


def _interp_knots(x):
    return np.interp(0.7, x, x * x)


def _lse_sign(x):
    return special.logsumexp(x, return_sign=True)[0]


@pytest.mark.parametrize("engine", EXACT)
@pytest.mark.parametrize("f, message", [
    (_eig, r"numpy\.linalg\.eig \(no rule yet: eig's derivative needs distinct eigenvalues"),
    (_percentile, r"numpy\.percentile \(an order statistic"),
    (_full, r"numpy\.full \(a constructor|copyto|would drop its derivative"),
    (_lse_sign, r"logsumexp\(\.\.\., return_sign=True\) is not differentiable"),
    (_interp_knots, r"numpy\.interp has no derivative rule in its knots xp"),
], ids=["eig", "percentile", "full", "logsumexp-return_sign", "interp-knots"])
def test_refusals_in_every_engine(engine, f, message):
    if f is _lse_sign and special is None:
        pytest.skip("scipy is not installed")
    x = np.array([[2.0, 0.3, 0.1], [0.2, 1.0, 0.4], [0.1, 0.5, 3.0]])
    with pytest.raises(Exception, match=message):  # noqa: PT011 - the message is checked
        ENGINES[engine].gradient(f, x if f is _eig else x[0])
