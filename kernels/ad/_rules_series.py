"""Rules of polynomials and sequences: ``polyval`` (in the coefficients and the
points), 1-D ``convolve`` and ``correlate`` (bilinear, all three modes), ``trapezoid``
(in y and in x, along any axis).
"""

import numpy as np

from .rules import MissingRuleError, defpositional, defrule

# -- polyval: p[0] x^(n-1) + ... + p[n-1] ----------------------------------------------------


def _powers(p, x):
    """x^(n-1), ..., x^0 along a last axis: d polyval / d p."""
    return np.asarray(x)[..., None] ** np.arange(len(p) - 1, -1, -1)


def _slope(p, x):
    """d polyval / d x: the derivative polynomial at x (0 for a constant)."""
    return np.polyval(np.polyder(p), x) if len(p) > 1 else np.zeros(np.shape(x))


def _polyval_vjp_p(g, ans, p, x):
    w = _powers(p, x)
    return np.sum(np.asarray(g)[..., None] * w, axis=tuple(range(w.ndim - 1)))


def _polyval_jvp(ts, ans, p, x):
    out = 0.0
    if ts[0] is not None:
        out = out + np.einsum("ck,...k->c...", ts[0], _powers(p, x))
    if ts[1] is not None:
        out = out + _slope(p, x) * ts[1]
    return out


defrule(np.polyval, [_polyval_vjp_p, lambda g, ans, p, x: g * _slope(p, x)], _polyval_jvp)


# -- convolve and correlate (1-D, bilinear): a slice of the full convolution ----------------

def _window(mode, m, n):
    """(start, length) of ``mode``'s output within the full convolution of lengths m, n."""
    short, full = min(m, n), m + n - 1
    if mode == "full":
        return 0, full
    if mode == "same":
        return (short - 1) // 2, max(m, n)
    if mode == "valid":
        return short - 1, max(m, n) - short + 1
    raise ValueError(f"mode must be 'full', 'same' or 'valid', got {mode!r}")


def _padded(g, mode, m, n):
    """The output's cotangent placed in the full convolution's."""
    start, length = _window(mode, m, n)
    full = np.zeros(m + n - 1, dtype=np.result_type(g, float))
    full[start:start + length] = g
    return full


def _convolve_vjp(which):
    def vjp(g, ans, a, v, mode="full"):
        # c_k = sum_i a_i v_(k-i): a's cotangent correlates g with v (and v's with a)
        other = v if which == 0 else a
        return np.convolve(_padded(g, mode, len(a), len(v)), other[::-1], "valid")
    return vjp


def _convolve_jvp(ts, ans, a, v, mode="full"):
    out = 0.0
    if ts[0] is not None:
        out = out + np.array([np.convolve(t, v, mode) for t in ts[0]])
    if ts[1] is not None:
        out = out + np.array([np.convolve(a, t, mode) for t in ts[1]])
    return out


defrule(np.convolve, [_convolve_vjp(0), _convolve_vjp(1), None], _convolve_jvp)


def _reversed_conj(v, a, mode):
    """np.correlate(a, v, mode) is np.convolve(a, conj(v[::-1]), mode) (checked for every
    mode and length; 'same' with the longer v is numpy's one exception, refused)."""
    if mode == "same" and len(v) > len(a):
        raise MissingRuleError("numpy.correlate(a, v, mode='same') with v longer than a has "
                               "no derivative rule (numpy centres it differently); use "
                               "'full' and slice")
    return np.conj(v[::-1])


def _correlate_vjp_a(g, ans, a, v, mode="valid"):
    return _convolve_vjp(0)(g, ans, a, _reversed_conj(v, a, mode), mode)


def _correlate_vjp_v(g, ans, a, v, mode="valid"):
    w = _reversed_conj(v, a, mode)
    return np.conj(_convolve_vjp(1)(g, ans, a, w, mode)[::-1])  # through the flip and conj


def _correlate_jvp(ts, ans, a, v, mode="valid"):
    w = _reversed_conj(v, a, mode)
    tw = None if ts[1] is None else np.conj(ts[1][:, ::-1])
    return _convolve_jvp([ts[0], tw], ans, a, w, mode)


defrule(np.correlate, [_correlate_vjp_a, _correlate_vjp_v, None], _correlate_jvp)


# -- trapezoid: sum_i d_i (y_i + y_(i+1)) / 2 along an axis, d = diff(x) or dx ---------------

def _spacing(y, x, dx):
    """d along the last axis (y's axis moved last; x 1-D or moved like y)."""
    if x is None:
        return np.full(np.shape(y)[-1] - 1, float(dx))
    return np.diff(x, axis=-1)


def _last(a, axis):
    return None if a is None else np.moveaxis(a, axis, -1)


def _trapezoid_weights(d, n):
    """d trapezoid / d y: each point's share of its two intervals."""
    w = np.zeros(np.shape(d)[:-1] + (n,))
    w[..., :-1] += d / 2.0
    w[..., 1:] += d / 2.0
    return w


def _moved_x(x, axis, y):
    if x is None or np.ndim(x) == 1:
        return x
    if np.ndim(x) != np.ndim(y):
        raise MissingRuleError("numpy.trapezoid with an x of neither 1 nor y's dimensions "
                               "has no derivative rule; broadcast x to y's shape first")
    return _last(x, axis)


def _trapezoid_vjp_y(g, ans, y, x=None, dx=1.0, axis=-1):
    ym = _last(y, axis)
    w = _trapezoid_weights(_spacing(ym, _moved_x(x, axis, y), dx), ym.shape[-1])
    return np.moveaxis(np.asarray(g)[..., None] * w, -1, axis)


def _trapezoid_vjp_x(g, ans, y, x=None, dx=1.0, axis=-1):
    ym = _last(y, axis)
    ct_d = np.asarray(g)[..., None] * (ym[..., :-1] + ym[..., 1:]) / 2.0
    ct = np.zeros(ct_d.shape[:-1] + (ct_d.shape[-1] + 1,), dtype=ct_d.dtype)
    ct[..., 1:] += ct_d  # d_i = x_(i+1) - x_i
    ct[..., :-1] -= ct_d
    if np.ndim(x) == 1:
        return np.reshape(ct, (-1, ct.shape[-1])).sum(axis=0)
    return np.moveaxis(ct, -1, axis)


def _trapezoid_jvp(ts, ans, y, x=None, dx=1.0, axis=-1):
    ym, xm = _last(y, axis), _moved_x(x, axis, y)
    out = 0.0
    if ts[0] is not None:
        w = _trapezoid_weights(_spacing(ym, xm, dx), ym.shape[-1])
        out = out + np.sum(np.moveaxis(ts[0], axis % ym.ndim + 1, -1) * w, axis=-1)
    if len(ts) > 1 and ts[1] is not None:
        t = ts[1] if np.ndim(x) == 1 else np.moveaxis(ts[1], axis % ym.ndim + 1, -1)
        td = np.diff(t, axis=-1)
        if np.ndim(x) == 1:
            td = td.reshape((len(td),) + (1,) * (ym.ndim - 1) + td.shape[-1:])
        out = out + np.sum(td * (ym[..., :-1] + ym[..., 1:]) / 2.0, axis=-1)
    return out


defrule(np.trapezoid, [_trapezoid_vjp_y, _trapezoid_vjp_x, None, None], _trapezoid_jvp)
defpositional(np.trapezoid)  # x= carries a derivative too
