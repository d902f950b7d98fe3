"""Rules of reductions (``sum``, ``mean``, ``prod``, ``max``/``min``, ``var``/``std``,
vector, Frobenius, nuclear and 2-norms), each with ``axis`` and ``keepdims``, and of the
functions along an axis (``cumsum``, ``cumprod``, ``diff``, ``gradient``).

A reduction's vjp broadcasts the output's cotangent back over the reduced axes; its jvp
reduces the batched tangent over the same axes shifted by the batch axis.
"""

import numpy as np

from .linalg import _svd_parts
from .table import (
    MissingRuleError,
    _ndim,
    defrule,
    each_direction,
    is_complex,
    real_cotangent,
)


def _axes(axis, ndim):
    """``axis`` as a tuple of non-negative axes (all of them for None)."""
    if axis is None:
        return tuple(range(ndim))
    return tuple(a % ndim for a in (axis if isinstance(axis, tuple) else (axis,)))


def batched_axis(axis, ndim):
    """``axis`` of an unbatched array of ``ndim`` dimensions as an axis (or tuple, or None
    for all) of its batched tangent, whose batch axis comes first."""
    if axis is None:
        return tuple(range(1, ndim + 1))
    if isinstance(axis, tuple):
        return tuple(a % ndim + 1 for a in axis)
    return axis % ndim + 1


def expand(g, shape, axis, keepdims):
    """``g``, the cotangent of a reduction over ``axis``, broadcast back to ``shape``."""
    if axis is not None and not keepdims:
        g = np.expand_dims(g, _axes(axis, len(shape)))
    elif axis is None and not keepdims:
        g = np.reshape(g, (1,) * len(shape))
    return np.broadcast_to(g, shape)


def _count(shape, axis):
    return int(np.prod([shape[a] for a in _axes(axis, len(shape))]))


def _reduction(fn, vjp, jvp, keywords=()):
    """Register a reduction from ``vjp(g, ans, x, axis, keepdims, **kw)`` with ``g``
    already broadcast to ``x``'s shape (and ``ans`` with it, as ``ans_b``), and
    ``jvp(t, ans, x, axis_b, keepdims, **kw)`` with the batched axis; ``keywords``: the
    array keywords it differentiates (``where``, ``initial``; kernels/ad/_keywords.py)."""

    def vjp_(g, ans, x, axis=None, *, keepdims=False, **kw):
        shape = np.shape(x)
        return vjp(expand(g, shape, axis, keepdims), expand(ans, shape, axis, keepdims), x,
                   axis, **kw)

    def jvp_(ts, ans, x, axis=None, *, keepdims=False, **kw):
        return jvp(ts[0], ans, x, batched_axis(axis, _ndim(x)), keepdims, **kw)

    defrule(fn, [vjp_, None], jvp_, keywords=keywords)


def _masked(g, where):
    """``g`` where the reduction reads (``where=``), 0 elsewhere."""
    return g if where is True else g * where


def _sum_jvp(t, ans, x, axis, keepdims, where=True, initial=None):
    # initial= adds a constant: no tangent
    return np.sum(t, axis=axis, keepdims=keepdims, where=where)


def _mean_vjp(g, ans, x, axis, where=True):
    if where is True:
        return g / _count(np.shape(x), axis)
    read = np.broadcast_to(where, np.shape(x))
    return g * read / np.sum(read, axis=axis, keepdims=True)


_reduction(np.sum, lambda g, ans, x, axis, where=True, initial=None: _masked(g, where),
           _sum_jvp, keywords=("where", "initial"))
_reduction(np.mean, _mean_vjp,
           lambda t, ans, x, axis, keepdims, where=True: np.mean(t, axis=axis,
                                                                 keepdims=keepdims,
                                                                 where=where),
           keywords=("where",))


def _others(x, axis):
    """The product of all the other elements along ``axis`` (None: all), for each element:
    exclusive cumulative products from both sides, so zeros in ``x`` are no problem (a
    division ``prod / x`` would give nan at a zero)."""
    if np.ndim(x) == 0:
        return np.ones(np.shape(x))
    if axis is None:
        return _others(np.ravel(x), 0).reshape(np.shape(x))
    axes = _axes(axis, np.ndim(x))
    if len(axes) > 1:  # several axes: move them last and flatten them into one
        rest = [a for a in range(np.ndim(x)) if a not in axes]
        moved = np.transpose(x, rest + list(axes))
        flat = moved.reshape(moved.shape[:len(rest)] + (-1,))
        out = _others(flat, -1).reshape(moved.shape)
        return np.transpose(out, np.argsort(rest + list(axes)))
    x = np.moveaxis(x, axes[0], -1)
    ones = np.ones(x.shape[:-1] + (1,), dtype=x.dtype)
    left = np.cumprod(np.concatenate([ones, x[..., :-1]], axis=-1), axis=-1)
    right = np.cumprod(np.concatenate([ones, x[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    return np.moveaxis(left * right, -1, axes[0])


def _prod_weights(x, axis, where, initial):
    """d prod / dx: the product of the other elements read (``where=``), times
    ``initial``."""
    read = x if where is True else np.where(where, x, 1.0)
    w = _masked(_others(read, axis), where)
    return w if initial is None else w * initial


def _prod_jvp(t, ans, x, axis, keepdims, where=True, initial=None):
    unbatched = tuple(a - 1 for a in np.atleast_1d(axis)) if np.size(axis) else None
    w = _prod_weights(x, unbatched if unbatched is None or len(unbatched) > 1
                      else unbatched[0], where, initial)
    return np.sum(t * w, axis=axis, keepdims=keepdims)


_reduction(np.prod, lambda g, ans, x, axis, where=True, initial=None:
           g * _prod_weights(x, axis, where, initial), _prod_jvp,
           keywords=("where", "initial"))


def _extremum(fn):
    """max or min: the cotangent goes to the elements read (``where=``) equal to the
    result, shared equally among ties (autograd's choice); none when ``initial=`` is the
    result."""

    def vjp(g, ans, x, axis, where=True, initial=None):
        hit = _masked(x == ans, where)
        return g * hit / np.maximum(np.sum(hit, axis=axis, keepdims=True), 1)

    def jvp(t, ans, x, axis, keepdims, where=True, initial=None):
        unbatched = tuple(a - 1 for a in np.atleast_1d(axis))
        full = expand(ans, np.shape(x), unbatched, keepdims)
        hit = _masked(x == full, where)
        return np.sum(t * hit, axis=axis, keepdims=keepdims) / np.maximum(np.sum(
            hit, axis=unbatched, keepdims=keepdims), 1)
    _reduction(fn, vjp, jvp, keywords=("where", "initial"))


for _fn in (np.max, np.min, np.amax, np.amin):
    _extremum(_fn)


def _moments(fn):
    """var and std (``ddof``, ``where=`` too): d var = 2 (x - mean) dx / (N - ddof), over
    the elements read."""
    std = fn is np.std

    def factor(ans, x, axis, ddof, where):
        centred = x - np.mean(x, axis=axis, keepdims=True, where=where)
        if where is True:
            count = _count(np.shape(x), axis)
        else:
            count = np.sum(np.broadcast_to(where, np.shape(x)), axis=axis, keepdims=True)
        scale = 2.0 / (count - ddof)
        if std:
            scale = scale / (2.0 * ans)
        return _masked(np.conj(centred) * scale if is_complex(x) else centred * scale, where)

    def vjp(g, ans, x, axis, ddof=0, where=True):
        return real_cotangent(g) * factor(ans, x, axis, ddof, where)

    def jvp(t, ans, x, axis, keepdims, ddof=0, where=True):
        unbatched = None if axis is None else tuple(a - 1 for a in np.atleast_1d(axis))
        ans_b = expand(ans, np.shape(x), unbatched, keepdims)
        return np.real(np.sum(t * factor(ans_b, x, unbatched, ddof, where), axis=axis,
                              keepdims=keepdims))
    _reduction(fn, vjp, jvp, keywords=("where",))


_moments(np.var)
_moments(np.std)


def _cumsum_vjp(g, ans, x, axis=None):
    if axis is None:
        return np.cumsum(g[::-1])[::-1].reshape(np.shape(x))
    return np.flip(np.cumsum(np.flip(g, axis), axis=axis), axis)


def _cumsum_jvp(ts, ans, x, axis=None):
    t = ts[0]
    if axis is None:
        return np.cumsum(t.reshape(len(t), -1), axis=1)
    return np.cumsum(t, axis=batched_axis(axis, _ndim(x)))


defrule(np.cumsum, [_cumsum_vjp, None], _cumsum_jvp)


# -- norms ------------------------------------------------------------------------------

def _norm_kind(x, ord, axis):
    """('vector', p, axis) or ('fro', None, axes), or MissingRuleError for the norms whose
    derivative needs singular values (2, -2, 'nuc' of matrices) or has none (ord 0)."""
    ndim = np.ndim(x)
    matrix = (axis is None and ndim == 2 and ord is not None) or (
        isinstance(axis, tuple) and len(axis) == 2)
    if matrix:
        if ord in (None, "fro"):
            return "fro", 2, axis if axis is not None else (0, 1)
        if ord in (2, -2, "nuc"):
            return "singular", ord, axis if axis is not None else (0, 1)
        raise MissingRuleError(f"numpy.linalg.norm of a matrix with ord={ord!r}: the "
                               f"Frobenius, nuclear and 2-norms have rules")
    p = 2 if ord is None else ord
    if p == 0 or isinstance(p, str):
        raise MissingRuleError(f"numpy.linalg.norm with ord={ord!r} has no derivative rule")
    return "vector", p, axis


def _norm_weight(ans, x, ord, axis, keepdims):
    """d norm / dx, of x's shape (axis None: x read flat, as numpy does for ord None)."""
    kind, p, axes = _norm_kind(x, ord, axis)
    if kind == "singular":
        return _singular_weight(x, p, axes)
    full = expand(ans, np.shape(x), axes, keepdims)
    mag = np.abs(x)
    direction = np.conj(x) / np.where(mag, mag, 1.0) if is_complex(x) else np.sign(x)
    if p == np.inf or p == -np.inf:
        hit = mag == full
        return direction * hit / np.sum(hit, axis=axes, keepdims=True)
    if p == 1:
        return direction
    # d (sum |x|^p)^(1/p) = |x|^(p-1) sign(x) / norm^(p-1)
    safe = np.where(full, full, 1.0)
    return direction * mag ** (p - 1) / safe ** (p - 1)


def _norm_vjp(g, ans, x, ord=None, axis=None, keepdims=False):
    kind, _, axes = _norm_kind(x, ord, axis)
    g = expand(real_cotangent(g), np.shape(x), axes, keepdims)
    return g * _norm_weight(ans, x, ord, axis, keepdims)


def _norm_jvp(ts, ans, x, ord=None, axis=None, keepdims=False):
    _, _, axes = _norm_kind(x, ord, axis)
    w = _norm_weight(ans, x, ord, axis, keepdims)
    return np.real(np.sum(ts[0] * w, axis=batched_axis(axes, _ndim(x)), keepdims=keepdims))


defrule(np.linalg.norm, [_norm_vjp, None, None], _norm_jvp)


# -- cumulative products ---------------------------------------------------------------

def _cumprod_weights(x):
    """M[..., i, j] = d cumprod(x)[j] / d x[i] = prod of x[:j+1] but x[i], for j >= i (0
    otherwise), along the last axis; products, not quotients, so zeros are exact."""
    n = np.shape(x)[-1]
    m = np.zeros(np.shape(x) + (n,), dtype=np.result_type(x, float))
    for i in range(n):
        others = x.copy()
        others[..., i] = 1.0
        m[..., i, i:] = np.cumprod(others, axis=-1)[..., i:]
    return m


def _along_last(x, axis):
    return np.moveaxis(np.ravel(x) if axis is None else x, -1 if axis is None else axis, -1)


def _cumprod_vjp(g, ans, x, axis=None):
    xm, gm = _along_last(x, axis), _along_last(g, axis)
    ct = np.einsum("...ij,...j->...i", _cumprod_weights(xm), gm)
    return np.reshape(ct, np.shape(x)) if axis is None else np.moveaxis(ct, -1, axis)


def _cumprod_jvp(ts, ans, x, axis=None):
    t = ts[0]
    xm = _along_last(x, axis)
    tm = t.reshape(len(t), -1) if axis is None else np.moveaxis(t, batched_axis(axis, _ndim(x)), -1)
    out = np.einsum("...ij,c...i->c...j", _cumprod_weights(xm), tm)
    return out if axis is None else np.moveaxis(out, -1, batched_axis(axis, _ndim(x)))


defrule(np.cumprod, [_cumprod_vjp, None], _cumprod_jvp)


def _singular_weight(x, ord, axes):
    """d norm / dx for the norms made of singular values: d s_i = u_i^T dx v_i, so the
    nuclear norm's weight is U V^T, the 2-norm's u_0 v_0^T (the largest), -2's the last."""
    if np.iscomplexobj(x):
        raise MissingRuleError(f"numpy.linalg.norm(..., ord={ord!r}) of a complex matrix has "
                               f"no derivative rule")
    axes = tuple(a % np.ndim(x) for a in axes)
    moved = np.moveaxis(x, axes, (-2, -1))
    u, s, v = _svd_parts(moved)
    if ord == "nuc":
        w = u @ np.swapaxes(v, -1, -2)
    else:
        i = 0 if ord == 2 else -1
        w = u[..., :, i, None] * v[..., None, :, i]
    return np.moveaxis(w, (-2, -1), axes)


# -- differences ------------------------------------------------------------------------

def _check_diff(kwargs):
    if kwargs.get("prepend") is not None or kwargs.get("append") is not None:
        raise MissingRuleError("numpy.diff with prepend/append has no derivative rule; "
                               "concatenate first")


def _diff_vjp(g, ans, x, n=1, axis=-1, **kw):
    _check_diff(kw)
    axis %= _ndim(x)
    for _ in range(n):  # the transpose of one difference, n times: g shifted minus g
        edge = list(np.shape(g))
        edge[axis] = 1
        zero = np.zeros(edge)
        g = np.concatenate((zero, g), axis) - np.concatenate((g, zero), axis)
    return g


def _diff_jvp(ts, ans, x, n=1, axis=-1, **kw):
    _check_diff(kw)
    return np.diff(ts[0], n, axis=batched_axis(axis, _ndim(x)))


defrule(np.diff, [_diff_vjp, None, None], _diff_jvp)


def _gradient_check(x, varargs, kw):
    """The axis and the (scalar) spacing of a np.gradient call this rule covers."""
    axis = kw.get("axis")
    if axis is None and _ndim(x) != 1:
        raise MissingRuleError("numpy.gradient of an N-D array without axis= (several "
                               "outputs) has no derivative rule; pass axis=")
    if kw.get("edge_order", 1) != 1 or len(varargs) > 1 or any(np.ndim(v) for v in varargs):
        raise MissingRuleError("numpy.gradient has a derivative rule for edge_order=1 and "
                               "one scalar spacing")
    if isinstance(axis, (tuple, list)):
        raise MissingRuleError("numpy.gradient over several axes has no derivative rule")
    return (0 if axis is None else axis % _ndim(x)), float(varargs[0]) if varargs else 1.0


def _gradient_vjp(g, ans, x, *varargs, **kw):
    axis, h = _gradient_check(x, varargs, kw)
    return each_direction(lambda t: _gradient_transposed(t, axis, h), g)


def _gradient_transposed(g, axis, h):
    g = np.moveaxis(g, axis, -1)
    ct = np.zeros(g.shape, dtype=np.result_type(g, float))
    ct[..., 0] -= g[..., 0] / h  # one-sided at the ends, central inside
    ct[..., 1] += g[..., 0] / h
    ct[..., -1] += g[..., -1] / h
    ct[..., -2] -= g[..., -1] / h
    ct[..., 2:] += g[..., 1:-1] / (2 * h)
    ct[..., :-2] -= g[..., 1:-1] / (2 * h)
    return np.moveaxis(ct, -1, axis)


def _gradient_jvp(ts, ans, x, *varargs, **kw):
    axis, h = _gradient_check(x, varargs, kw)
    return np.gradient(ts[0], h, axis=axis + 1)


def _gradient_vjp_h(g, ans, x, *varargs, **kw):
    # differences over h: d / dh = -ans / h
    _, h = _gradient_check(x, varargs, kw)
    return -np.sum(g * ans) / h


def _gradient_jvp_all(ts, ans, x, *varargs, **kw):
    out = 0.0 if ts[0] is None else _gradient_jvp(ts, ans, x, *varargs, **kw)
    if len(ts) > 1 and ts[1] is not None:
        _, h = _gradient_check(x, varargs, kw)
        out = out - ts[1].reshape((len(ts[1]),) + (1,) * np.ndim(ans)) * ans / h
    return out


defrule(np.gradient, [_gradient_vjp, _gradient_vjp_h], _gradient_jvp_all)
