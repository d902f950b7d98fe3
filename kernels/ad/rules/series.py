"""Rules of polynomials and sequences: ``polyval`` (in the coefficients and the
points), 1-D ``convolve`` and ``correlate`` (bilinear, all three modes), ``trapezoid``
(in y and in x, along any axis), ``interp`` (in x and fp).
"""

import numpy as np

from .table import MissingRuleError, _lift, defpositional, defrule

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
    if len(ts) > 2 and ts[2] is not None and x is None:
        out = out + _lift(ts[2], np.ndim(ans)) * (ans / dx)
    if len(ts) > 1 and ts[1] is not None:
        t = ts[1] if np.ndim(x) == 1 else np.moveaxis(ts[1], axis % ym.ndim + 1, -1)
        td = np.diff(t, axis=-1)
        if np.ndim(x) == 1:
            td = td.reshape((len(td),) + (1,) * (ym.ndim - 1) + td.shape[-1:])
        out = out + np.sum(td * (ym[..., :-1] + ym[..., 1:]) / 2.0, axis=-1)
    return out


def _trapezoid_vjp_dx(g, ans, y, x=None, dx=1.0, axis=-1):
    # without x the result is linear in dx (with x, dx is not read)
    return 0.0 * np.sum(g) if x is not None else np.sum(g * ans) / dx


defrule(np.trapezoid, [_trapezoid_vjp_y, _trapezoid_vjp_x, _trapezoid_vjp_dx, None],
        _trapezoid_jvp)
defpositional(np.trapezoid)  # x= carries a derivative too


# -- interp: piecewise linear in x and in fp (the knots xp are not differentiated) -------------

def _interp_parts(x, xp, left, right, period):
    """Each point's segment, its position t in it, and where it falls below, inside and
    above the knots (numpy returns fp[0] / fp[-1] outside, or left / right)."""
    if period is not None:
        raise MissingRuleError("numpy.interp with period= has no derivative rule")
    x, xp = np.asarray(x), np.asarray(xp)
    i = np.clip(np.searchsorted(xp, x, side="right") - 1, 0, len(xp) - 2)
    t = (x - xp[i]) / (xp[i + 1] - xp[i])
    below, above = x < xp[0], x > xp[-1]
    inside = ~(below | above)
    return i, t, inside, below & (left is None), above & (right is None)


def _interp_vjp_x(g, ans, x, xp, fp, left=None, right=None, period=None):
    i, _, inside, _, _ = _interp_parts(x, xp, left, right, period)
    fp = np.asarray(fp)
    return g * inside * (fp[i + 1] - fp[i]) / (np.asarray(xp)[i + 1] - np.asarray(xp)[i])


def _interp_vjp_xp(g, ans, x, xp, fp, *args, **kw):
    raise MissingRuleError("numpy.interp has no derivative rule in its knots xp (only in x "
                           "and fp)")


def _interp_vjp_fp(g, ans, x, xp, fp, left=None, right=None, period=None):
    i, t, inside, low, high = _interp_parts(x, xp, left, right, period)
    g = np.broadcast_to(g, np.shape(i))
    ct = np.zeros(np.shape(fp), dtype=np.result_type(g, float))
    np.add.at(ct, i, g * (1.0 - t) * inside)
    np.add.at(ct, i + 1, g * t * inside)
    ct[0] += np.sum(g * low)
    ct[-1] += np.sum(g * high)
    return ct


def _interp_jvp(ts, ans, x, xp, fp, left=None, right=None, period=None):
    if ts[1] is not None:
        _interp_vjp_xp(None, ans, x, xp, fp)
    i, t, inside, low, high = _interp_parts(x, xp, left, right, period)
    out = 0.0
    if ts[0] is not None:
        fpa, xpa = np.asarray(fp), np.asarray(xp)
        out = out + ts[0] * (inside * (fpa[i + 1] - fpa[i]) / (xpa[i + 1] - xpa[i]))
    if ts[2] is not None:
        tf = ts[2]
        out = out + (tf[:, i] * ((1.0 - t) * inside) + tf[:, i + 1] * (t * inside)
                     + tf[:, :1].reshape((len(tf),) + (1,) * np.ndim(i)) * low
                     + tf[:, -1:].reshape((len(tf),) + (1,) * np.ndim(i)) * high)
    return out


defrule(np.interp, [_interp_vjp_x, _interp_vjp_xp, _interp_vjp_fp], _interp_jvp)
