"""Rules of the scipy.special functions numpy code calls: the ufuncs (``expit``, ``logit``,
``erf``, ``gammaln``, ``xlogy``, ...: they reach engines through ``__array_ufunc__`` like
numpy's) and the Python functions ``logsumexp``, ``softmax`` and ``log_softmax``, which do
not dispatch: the operator-overloading engines swap them for wrappers while they trace
(``_arrays.FOREIGN``), the source engine binds them when it transforms ``f``.

Registered by :func:`rules.register_late` once scipy.special has been imported (by the
user): kernels.ad never imports scipy itself, and works without it. (The rules go on
scipy's own functions: ``original`` sees through a wrapper in place while an engine
traces.)
"""

import numpy as np
from scipy import special as sp

from .._arrays import original
from .reduce import batched_axis, expand
from .table import MissingRuleError, _lift, defpartials, defpositional, defrule

_TWO_OVER_SQRT_PI = 2.0 / np.sqrt(np.pi)
_INV_SQRT_2PI = 1.0 / np.sqrt(2.0 * np.pi)


def _x_over(x, y):
    """x / y, 0 where x is 0 (xlogy(0, y) is 0 for every y)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x == 0, 0.0, x / np.where(y == 0, 1.0, y))


defpartials(sp.expit, lambda ans, x: ans * (1.0 - ans))
defpartials(sp.log_expit, lambda ans, x: sp.expit(-x))
defpartials(sp.logit, lambda ans, x: 1.0 / (x * (1.0 - x)))
defpartials(sp.erf, lambda ans, x: _TWO_OVER_SQRT_PI * np.exp(-x * x))
defpartials(sp.erfc, lambda ans, x: -_TWO_OVER_SQRT_PI * np.exp(-x * x))
defpartials(sp.erfinv, lambda ans, x: np.exp(ans * ans) / _TWO_OVER_SQRT_PI)
defpartials(sp.ndtr, lambda ans, x: _INV_SQRT_2PI * np.exp(-0.5 * x * x))
defpartials(sp.log_ndtr, lambda ans, x: _INV_SQRT_2PI * np.exp(-0.5 * x * x - ans))
defpartials(sp.gammaln, lambda ans, x: sp.digamma(x))  # d log|Gamma| = psi, also for x < 0
defpartials(sp.gamma, lambda ans, x: ans * sp.digamma(x))
defpartials(sp.digamma, lambda ans, x: sp.polygamma(1, x))
defpartials(sp.xlogy, lambda ans, x, y: np.log(y), lambda ans, x, y: _x_over(x, y))
defpartials(sp.xlog1py, lambda ans, x, y: np.log1p(y), lambda ans, x, y: _x_over(x, 1.0 + y))


# -- logsumexp: log sum b exp(a) over axis; the weights are a softmax -------------------------

def _lse_check(return_sign):
    if return_sign:
        raise MissingRuleError("scipy.special.logsumexp(..., return_sign=True) is not "
                               "differentiable here (two outputs); take the sign apart")


def _lse_weights(ans, a, axis, b, keepdims):
    """d logsumexp / d a: b exp(a - ans), of the broadcast shape of a and b."""
    shape = np.broadcast_shapes(np.shape(a), np.shape(b))
    w = np.exp(a - expand(ans, shape, axis, keepdims))
    return w if b is None else w * b


def _lse_vjp(which):
    def vjp(g, ans, a, axis=None, b=None, keepdims=False, return_sign=False):
        _lse_check(return_sign)
        shape = np.broadcast_shapes(np.shape(a), np.shape(b))
        w = _lse_weights(ans, a, axis, b, keepdims)
        if which == 2:
            w = w / b  # d / d b: exp(a - ans)
        return expand(g, shape, axis, keepdims) * w
    return vjp


def _lse_jvp(ts, ans, a, axis=None, b=None, keepdims=False, return_sign=False):
    _lse_check(return_sign)
    shape = np.broadcast_shapes(np.shape(a), np.shape(b))
    w = _lse_weights(ans, a, axis, b, keepdims)
    out = 0.0
    for t, weight in ((ts[0], w), (ts[2] if len(ts) > 2 else None, w / b if b is not None
                                    else None)):
        if t is not None:
            out = out + np.sum(_lift(t, len(shape)) * weight,
                               axis=batched_axis(axis, len(shape)), keepdims=keepdims)
    return out


defrule(original(sp.logsumexp), [_lse_vjp(0), None, _lse_vjp(2)], _lse_jvp)
# b= carries a derivative too; return_sign=True (two outputs) is refused before the call
defpositional(original(sp.logsumexp), check=lambda a: _lse_check(a["return_sign"]))


# -- softmax and log_softmax over axis (None: all) ---------------------------------------------

def _sum(x, axis):
    return np.sum(x, axis=axis, keepdims=True)


defrule(original(sp.softmax),
        [lambda g, ans, x, axis=None: ans * (g - _sum(g * ans, axis))],
        lambda ts, ans, x, axis=None: ans * (ts[0] - _sum(ts[0] * ans, batched_axis(
            axis, np.ndim(x)))))
defrule(original(sp.log_softmax),
        [lambda g, ans, x, axis=None: g - np.exp(ans) * _sum(g, axis)],
        lambda ts, ans, x, axis=None: ts[0] - _sum(ts[0] * np.exp(ans), batched_axis(
            axis, np.ndim(x))))
