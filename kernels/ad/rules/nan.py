"""Rules of the reductions that skip NaNs (``nansum``, ``nanmean``, ``nanprod``,
``nanmax``/``nanmin``, ``nancumsum``, ``nancumprod``), each the plain reduction with a
``where=`` mask of the numbers, and of ``ptp``, ``average`` (in the values and the
weights), ``cumulative_sum``/``cumulative_prod`` (numpy 2), ``full_like`` (its fill
value is differentiable) and ``median`` (one axis or all).
"""

import numpy as np

from .reduce import batched_axis, expand
from .table import RULES, MissingRuleError, _lift, _ndim, alias, defpositional, defrule


def _numbers(x):
    return ~np.isnan(x)


def _masked_rule(fn, plain, fill):
    """``fn(x, axis, ...)`` is ``plain`` over the numbers of x (NaNs read as ``fill``):
    the plain rule's vjp and jvp with where= the mask, or with NaNs filled."""
    rule = RULES[plain]

    def vjp(g, ans, x, axis=None, **kw):
        if "where" in rule.keywords:
            return rule.vjps[0](g, ans, x, axis, where=_numbers(x), **kw)
        return rule.vjps[0](g, ans, np.where(_numbers(x), x, fill), axis, **kw) * _numbers(x)

    def jvp(ts, ans, x, axis=None, **kw):
        if "where" in rule.keywords:
            return rule.jvp(ts, ans, x, axis, where=_numbers(x), **kw)
        t = ts[0] * _numbers(x)
        return rule.jvp([t], ans, np.where(_numbers(x), x, fill), axis, **kw)
    defrule(fn, [vjp, None], jvp)


for _fn, _plain, _fill in [(np.nansum, np.sum, 0.0), (np.nanmean, np.mean, 0.0),
                           (np.nanprod, np.prod, 1.0), (np.nanmax, np.max, -np.inf),
                           (np.nanmin, np.min, np.inf), (np.nancumsum, np.cumsum, 0.0),
                           (np.nancumprod, np.cumprod, 1.0)]:
    _masked_rule(_fn, _plain, _fill)


# -- ptp: max - min --------------------------------------------------------------------------

def _ptp_vjp(g, ans, x, axis=None, keepdims=False):
    high, low = np.max(x, axis, keepdims=keepdims), np.min(x, axis, keepdims=keepdims)
    return (RULES[np.max].vjps[0](g, high, x, axis, keepdims=keepdims)
            - RULES[np.min].vjps[0](g, low, x, axis, keepdims=keepdims))


def _ptp_jvp(ts, ans, x, axis=None, keepdims=False):
    high, low = np.max(x, axis, keepdims=keepdims), np.min(x, axis, keepdims=keepdims)
    return (RULES[np.max].jvp(ts, high, x, axis, keepdims=keepdims)
            - RULES[np.min].jvp(ts, low, x, axis, keepdims=keepdims))


defrule(np.ptp, [_ptp_vjp, None], _ptp_jvp)


# -- average: sum(a w) / sum(w) over axis ------------------------------------------------------

def _average_parts(a, axis, weights, keepdims):
    if weights is None:
        weights = np.ones(np.shape(a))
    if np.shape(weights) != np.shape(a):
        raise MissingRuleError("numpy.average with weights of another shape than a has no "
                               "derivative rule; broadcast the weights first")
    return weights, np.sum(weights, axis=axis, keepdims=True)


def _check_returned(returned):
    if returned:
        raise MissingRuleError("numpy.average(..., returned=True) is not differentiable "
                               "here (two outputs); compute the sum of weights apart")


def _average_vjp(which):
    def vjp(g, ans, a, axis=None, weights=None, returned=False, *, keepdims=False):
        _check_returned(returned)
        w, total = _average_parts(a, axis, weights, keepdims)
        g = expand(g, np.shape(a), axis, keepdims)
        if which == 0:
            return g * w / total
        return g * (a - expand(ans, np.shape(a), axis, keepdims)) / total
    return vjp


def _average_jvp(ts, ans, a, axis=None, weights=None, returned=False, *, keepdims=False):
    _check_returned(returned)
    w, total = _average_parts(a, axis, weights, keepdims)
    b_axis = batched_axis(axis, _ndim(a))
    out = 0.0
    if ts[0] is not None:
        out = out + np.sum(ts[0] * (w / total), axis=b_axis, keepdims=keepdims)
    if len(ts) > 2 and ts[2] is not None:
        centred = (a - expand(ans, np.shape(a), axis, keepdims)) / total
        out = out + np.sum(ts[2] * centred, axis=b_axis, keepdims=keepdims)
    return out


defrule(np.average, [_average_vjp(0), None, _average_vjp(2), None], _average_jvp)
defpositional(np.average)  # weights= carries a derivative too


# -- numpy 2's cumulative_sum / cumulative_prod: cumsum / cumprod without include_initial ----

def _cumulative(fn, plain):
    rule = RULES[plain]

    def check(x, axis, include_initial):
        if include_initial:
            raise MissingRuleError(f"{rule.name}'s numpy 2 form with include_initial=True "
                                   f"has no derivative rule; concatenate the initial value")
        if axis is None and _ndim(x) > 1:
            raise ValueError("axis is required for arrays of more than one dimension")

    def vjp(g, ans, x, *, axis=None, include_initial=False):
        check(x, axis, include_initial)
        return rule.vjps[0](g, ans, x, axis)

    def jvp(ts, ans, x, *, axis=None, include_initial=False):
        check(x, axis, include_initial)
        return rule.jvp(ts, ans, x, axis)
    defrule(fn, [vjp], jvp)


if hasattr(np, "cumulative_sum"):
    _cumulative(np.cumulative_sum, np.cumsum)
    _cumulative(np.cumulative_prod, np.cumprod)


# -- full_like: the fill value is differentiable (an array of copies of it) -------------------

defrule(np.full_like, [None, lambda g, ans, a, fill_value, *args, **kw: g],
        lambda ts, ans, a, fill_value, *args, **kw: np.broadcast_to(
            _lift(ts[1], np.ndim(ans)), (len(ts[1]),) + np.shape(ans)))

# numpy.linalg's array-API names that compute what numpy's own do
for _fn, _same in [(np.linalg.matmul, np.matmul), (np.linalg.tensordot, np.tensordot),
                   (np.linalg.outer, np.outer), (np.linalg.matrix_transpose,
                                                 np.matrix_transpose)]:
    if _fn is not _same:
        alias(_fn, _same)


# -- median: the middle element (the mean of the middle two) of each sorted slice ------------

def _median_parts(x, axis, keepdims):
    """x with the reduced axis last (flattened for None), its sort order, and the ranks of
    the middle element(s)."""
    if isinstance(axis, tuple):
        raise MissingRuleError("numpy.median over several axes has no derivative rule; "
                               "reshape first")
    xm = np.ravel(x) if axis is None else np.moveaxis(x, axis, -1)
    n = xm.shape[-1]
    mids = [n // 2] if n % 2 else [n // 2 - 1, n // 2]
    return xm, np.argsort(xm, axis=-1), mids


def _median_vjp(g, ans, x, axis=None, out=None, overwrite_input=False, keepdims=False):
    xm, order, mids = _median_parts(x, axis, keepdims)
    g = np.asarray(g)
    if keepdims:
        g = np.reshape(g, xm.shape[:-1])
    ct = np.zeros(xm.shape, dtype=np.result_type(g, float))
    for k in mids:  # argsort is a permutation: the middle ranks are distinct elements
        np.put_along_axis(ct, order[..., k:k + 1], g[..., None] / len(mids), axis=-1)
    return np.reshape(ct, np.shape(x)) if axis is None else np.moveaxis(ct, -1, axis)


def _median_jvp(ts, ans, x, axis=None, out=None, overwrite_input=False, keepdims=False):
    xm, order, mids = _median_parts(x, axis, keepdims)
    t = ts[0]
    tm = t.reshape(len(t), -1) if axis is None else np.moveaxis(t, axis % np.ndim(x) + 1, -1)
    picked = np.take_along_axis(tm, np.broadcast_to(order[..., mids], tm.shape[:-1]
                                                    + (len(mids),)), axis=-1)
    out = np.mean(picked, axis=-1)
    return out.reshape((len(t),) + np.shape(ans)) if keepdims else out


defrule(np.median, [_median_vjp, None], _median_jvp)
