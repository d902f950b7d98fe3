"""Rules of the functions that move, copy or select elements: indexing, reshaping, axis
permutations, flips and rolls, repeat and tile, padding, triangles and diagonals, sort and
partition (the joins and splits are in ``.join``).

All are linear, so a jvp applies the function itself to the batched tangent (with axes
shifted past the batch axis) and a vjp applies its transpose.
"""

import operator

import numpy as np

from .. import _arrays
from .reduce import batched_axis
from .table import (
    MissingRuleError,
    Scatter,
    _lift,
    _ndim,
    alias,
    defrule,
    each_direction,
    is_complex,
)


def _shift(axis, ndim):
    """A single axis of an unbatched array as an axis of the batched one."""
    return axis % ndim + 1


# -- indexing -----------------------------------------------------------------------------

def _basic(index):
    """Whether ``index`` is basic indexing without an Ellipsis (ints, slices, None), which
    never reorders axes, so the batch axis can simply stay in front."""
    items = index if type(index) is tuple else (index,)
    for i in items:
        if not (type(i) is int or type(i) is slice or i is None or isinstance(i, np.integer)):
            return False
    return True


def _without_ellipsis(index, ndim):
    items = index if type(index) is tuple else (index,)
    if not any(i is Ellipsis for i in items):
        return index
    k = next(j for j, i in enumerate(items) if i is Ellipsis)
    used = sum(1 for i in items if i is not None and i is not Ellipsis
               and not (isinstance(i, np.ndarray) and i.dtype == bool))
    used += sum(i.ndim - 1 for i in items if isinstance(i, np.ndarray) and i.dtype == bool)
    return items[:k] + (slice(None),) * (ndim - used) + items[k + 1:]


def _getitem_jvp(ts, ans, x, index):
    t = ts[0]
    if _basic(index):
        return t[(slice(None), *index) if type(index) is tuple else (slice(None), index)]
    # Advanced (or mixed) indexing may move the indexed axes to the front, so index a view
    # with the batch axis last, where indexing leaves it last, then move it back.
    moved = np.moveaxis(t, 0, -1)[_without_ellipsis(index, _ndim(x))]
    return np.moveaxis(moved, -1, 0)


def _index_value(index):
    """Lists inside an index are arrays to numpy's ufunc.at (a list index in x[[0, 1]])."""
    if type(index) is list:
        return np.asarray(index)
    if type(index) is tuple:
        return tuple(np.asarray(i) if type(i) is list else i for i in index)
    return index


defrule(operator.getitem,
        [lambda g, ans, x, index: Scatter(np.shape(x), index if type(index) is int
                                          else _index_value(index), g), None],
        _getitem_jvp)


def _take_vjp(g, ans, x, indices, axis=None, **kw):
    if axis is None:
        return Scatter(np.shape(x), np.unravel_index(np.asarray(indices), np.shape(x)), g)
    index = (slice(None),) * (axis % _ndim(x)) + (np.asarray(indices),)
    return Scatter(np.shape(x), index, g)


def _take_jvp(ts, ans, x, indices, axis=None, **kw):
    t = ts[0]
    if axis is None:
        return np.take(t.reshape(len(t), -1), indices, axis=1)
    return np.take(t, indices, axis=_shift(axis, _ndim(x)))


defrule(np.take, [_take_vjp, None], _take_jvp)


# -- reshaping: the vjp reshapes back, the jvp reshapes forward ------------------------------

def _reshaping(fn):
    defrule(fn, [lambda g, ans, x, *args, **kw: np.reshape(g, np.shape(x)), None, None],
            lambda ts, ans, x, *args, **kw: np.reshape(ts[0], (len(ts[0]),) + np.shape(ans)))


for _fn in (np.reshape, np.ravel, np.squeeze, np.expand_dims, np.atleast_1d, np.atleast_2d,
            np.atleast_3d, np.copy, _arrays.asarray, _arrays.astype):
    _reshaping(_fn)


def _cast_vjp(g, ans, x, dtype=None, **kw):
    if dtype is not None and np.dtype(dtype).kind not in "fc":
        return None  # an integer or bool cast is locally constant
    return np.reshape(g, np.shape(x))


def _cast_jvp(ts, ans, x, dtype=None, **kw):
    if dtype is not None and np.dtype(dtype).kind not in "fc":
        return np.zeros((len(ts[0]),) + np.shape(ans))
    t = ts[0]
    return t if is_complex(ans) or not is_complex(t) else np.real(t)


# dtype= is the cast these rules differentiate (float <-> complex; others are constant)
defrule(_arrays.asarray, [_cast_vjp, None], _cast_jvp, keywords=("dtype",))
defrule(_arrays.astype, [_cast_vjp, None], _cast_jvp, keywords=("dtype",))
if hasattr(np, "astype"):  # numpy 2's function form of x.astype(dtype)
    alias(np.astype, _arrays.astype)


def _permutation(fn, x, args, kwargs):
    """The axis permutation ``fn`` applies (``transpose``, ``swapaxes``, ``moveaxis``):
    read from its effect on an empty array whose axes all have different lengths."""
    ndim = _ndim(x)
    probe = np.empty(tuple(range(2, ndim + 2)) if ndim else ())
    if probe.size > 2 ** 22:
        raise MissingRuleError(f"{fn.__name__} of an array of {ndim} dimensions")
    return [n - 2 for n in np.shape(fn(probe, *args, **kwargs))]


def _permuting(fn):
    def vjp(g, ans, x, *args, **kw):
        return np.transpose(g, np.argsort(_permutation(fn, x, args, kw)))

    def jvp(ts, ans, x, *args, **kw):
        return np.transpose(ts[0], [0] + [a + 1 for a in _permutation(fn, x, args, kw)])
    defrule(fn, [vjp, None, None], jvp)


for _fn in (np.transpose, np.swapaxes, np.moveaxis, np.rollaxis, np.matrix_transpose
            if hasattr(np, "matrix_transpose") else np.transpose):
    _permuting(_fn)


def _broadcast_to_jvp(ts, ans, x, shape, **kw):
    t = _lift(ts[0], len(np.shape(ans)))
    return np.broadcast_to(t, (len(t),) + np.shape(ans))


# the vjp hands back the output's cotangent: the engines sum it down to x's shape
defrule(np.broadcast_to, [lambda g, ans, x, shape, **kw: g, None], _broadcast_to_jvp)


# -- flips, rolls, rotations -------------------------------------------------------------

def _flip_jvp(ts, ans, x, axis=None):
    return np.flip(ts[0], batched_axis(axis, _ndim(x)))


defrule(np.flip, [lambda g, ans, x, axis=None: np.flip(g, axis), None], _flip_jvp)
defrule(np.fliplr, [lambda g, ans, x: np.fliplr(g)], lambda ts, ans, x: np.flip(ts[0], 2))
defrule(np.flipud, [lambda g, ans, x: np.flipud(g)], lambda ts, ans, x: np.flip(ts[0], 1))


def _negated(shift):
    return tuple(-s for s in shift) if isinstance(shift, (tuple, list)) else -shift


def _roll_jvp(ts, ans, x, shift, axis=None):
    t = ts[0]
    if axis is None:
        return np.roll(t.reshape(len(t), -1), shift, axis=1).reshape(t.shape)
    axes = tuple(_shift(a, _ndim(x)) for a in axis) if isinstance(axis, tuple) else \
        _shift(axis, _ndim(x))
    return np.roll(t, shift, axes)


defrule(np.roll, [lambda g, ans, x, shift, axis=None: np.roll(g, _negated(shift), axis),
                  None, None], _roll_jvp)


def _rot90_jvp(ts, ans, x, k=1, axes=(0, 1)):
    return np.rot90(ts[0], k, tuple(_shift(a, _ndim(x)) for a in axes))


defrule(np.rot90, [lambda g, ans, x, k=1, axes=(0, 1): np.rot90(g, -k, axes), None, None],
        _rot90_jvp)


# -- repeat, tile, pad --------------------------------------------------------------------

def _repeat_vjp(g, ans, x, repeats, axis=None):
    # np.add.reduceat, a ufunc method, is no operation a traced cotangent goes through
    return each_direction(lambda t: _repeat_summed(t, x, repeats, axis), g)


def _repeat_summed(g, x, repeats, axis):
    shape = np.shape(x)
    if axis is None:
        g, axis, along = np.ravel(g), 0, int(np.prod(shape))
    else:
        axis = axis % len(shape)
        along = shape[axis]
    counts = np.broadcast_to(np.asarray(repeats), (along,))
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    summed = np.add.reduceat(g, starts, axis=axis) if along else g
    # reduceat gives the element itself for a zero count: those get no cotangent
    zero = counts == 0
    if zero.any():
        summed = np.moveaxis(summed, axis, 0).copy()
        summed[zero] = 0.0
        summed = np.moveaxis(summed, 0, axis)
    return np.reshape(summed, shape)


def _repeat_jvp(ts, ans, x, repeats, axis=None):
    t = ts[0]
    if axis is None:
        return np.repeat(t.reshape(len(t), -1), repeats, axis=1)
    return np.repeat(t, repeats, axis=_shift(axis, _ndim(x)))


defrule(np.repeat, [_repeat_vjp, None, None], _repeat_jvp)


def _tiled(x, reps):
    reps = (reps,) if np.ndim(reps) == 0 else tuple(reps)
    ndim = max(_ndim(x), len(reps))
    return (1,) * (ndim - len(reps)) + reps, (1,) * (ndim - _ndim(x)) + np.shape(x)


def _tile_vjp(g, ans, x, reps):
    reps, shape = _tiled(x, reps)
    split = np.reshape(g, [n for pair in zip(reps, shape) for n in pair])
    return np.sum(split, axis=tuple(range(0, 2 * len(reps), 2))).reshape(np.shape(x))


def _tile_jvp(ts, ans, x, reps):
    reps, _ = _tiled(x, reps)
    return np.tile(_lift(ts[0], len(reps)), (1,) + reps)


defrule(np.tile, [_tile_vjp, None], _tile_jvp)


def _widths(x, pad_width):
    return np.broadcast_to(np.asarray(pad_width, dtype=int), (_ndim(x), 2))


def _check_pad_mode(mode):
    if mode != "constant":
        raise MissingRuleError(f"numpy.pad with mode={mode!r}: only mode='constant' has a "
                               f"derivative rule")


def _pad_vjp(g, ans, x, pad_width, mode="constant", **kw):
    _check_pad_mode(mode)
    w = _widths(x, pad_width)
    return g[tuple(slice(lo, n - hi) for (lo, hi), n in zip(w, np.shape(g)))]


def _pad_jvp(ts, ans, x, pad_width, mode="constant", **kw):
    _check_pad_mode(mode)
    return np.pad(ts[0], [(0, 0)] + [tuple(p) for p in _widths(x, pad_width)])


defrule(np.pad, [_pad_vjp, None, None], _pad_jvp)


# -- triangles and diagonals ------------------------------------------------------------------

defrule(np.tril, [lambda g, ans, x, k=0: np.tril(g, k), None],
        lambda ts, ans, x, k=0: np.tril(ts[0], k))
defrule(np.triu, [lambda g, ans, x, k=0: np.triu(g, k), None],
        lambda ts, ans, x, k=0: np.triu(ts[0], k))


def _diagonal_index(n, m, offset):
    """Row and column indices of the ``offset`` diagonal of an ``n x m`` matrix."""
    rows = np.arange(max(0, -offset), min(n, m - offset))
    return rows, rows + offset


def _diagonal_vjp(g, ans, x, offset=0, axis1=0, axis2=1):
    return each_direction(lambda t: _diagonal_placed(t, x, offset, axis1, axis2), g)


def _diagonal_placed(g, x, offset, axis1, axis2):
    """Zeros of x's shape with ``g`` on the ``offset`` diagonal of ``axis1, axis2``."""
    ndim = _ndim(x)
    shape = np.shape(x)
    out = np.zeros(shape, dtype=np.result_type(g, float))
    view = np.moveaxis(out, (axis1 % ndim, axis2 % ndim), (-2, -1))
    rows, cols = _diagonal_index(shape[axis1], shape[axis2], offset)
    view[..., rows, cols] = g
    return out


def _diagonal_jvp(ts, ans, x, offset=0, axis1=0, axis2=1):
    ndim = _ndim(x)
    return np.diagonal(ts[0], offset, _shift(axis1, ndim), _shift(axis2, ndim))


defrule(np.diagonal, [_diagonal_vjp, None, None, None], _diagonal_jvp)


def _diag_vjp(g, ans, v, k=0):
    if _ndim(v) == 1:
        return np.diagonal(g, k)
    return _diagonal_vjp(g, ans, v, k)


def _diag_jvp(ts, ans, v, k=0):
    t = ts[0]
    if _ndim(v) == 2:
        return np.diagonal(t, k, 1, 2)
    out = np.zeros((len(t),) + np.shape(ans), dtype=t.dtype)
    rows, cols = _diagonal_index(ans.shape[0], ans.shape[1], k)
    out[:, rows, cols] = t
    return out


defrule(np.diag, [_diag_vjp, None], _diag_jvp)


#: unit diagonals of the small matrices traced so far, by (rows, columns, offset): read
#: only, at most 64 of them, each at most _UNIT_DIAGONAL_LIMIT elements (a larger one's
#: zeros cost more than the store of its diagonal, so caching it would only hold memory)
_UNIT_DIAGONALS = {}
_UNIT_DIAGONAL_LIMIT = 4096


def _unit_diagonal(n, m, offset, g, dtype):
    """An n x m matrix of zeros with ``g`` on the ``offset`` diagonal, written through a
    strided view of its flat buffer (np.eye builds the identity the same way)."""
    out = np.zeros(n * m, dtype=dtype)
    first = -offset if offset < 0 else 0
    count = min(n, m - offset) - first
    if count > 0:
        start = first * (m + 1) + offset
        out[start:start + count * (m + 1):m + 1] = g
    return out.reshape(n, m)


def _trace_vjp(g, ans, x, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    if type(x) is np.ndarray and x.ndim == 2 and axis1 == 0 and axis2 == 1:
        # the common call: g on the offset diagonal of zeros
        n, m = x.shape
        if type(g) is float and g == 1.0 and n * m <= _UNIT_DIAGONAL_LIMIT:
            # the trace as f's result, of a small matrix: a copy of the cached unit
            # diagonal (a third of the cost of zeros and a strided store, which
            # tr(A @ B)'s gradient pays each call). Not unit * g: inf * 0 is nan.
            key = (n, m, offset)
            unit = _UNIT_DIAGONALS.get(key)
            if unit is None:
                if len(_UNIT_DIAGONALS) >= 64:
                    _UNIT_DIAGONALS.clear()
                unit = _UNIT_DIAGONALS[key] = _unit_diagonal(n, m, offset, 1.0, float)
                unit.flags.writeable = False
            return unit.copy()
        if not isinstance(g, _arrays.Traced):  # (a Dual is no array to write into)
            return _unit_diagonal(n, m, offset, g, float if type(g) is float else
                                  np.result_type(g, 1.0))
    ndim = _ndim(x)
    shape = np.shape(x)
    eye = np.eye(shape[axis1 % ndim], shape[axis2 % ndim], k=offset)
    out = (g[..., None, None] if _ndim(g) else g) * eye
    return np.moveaxis(out, (-2, -1), (axis1 % ndim, axis2 % ndim))


def _trace_jvp(ts, ans, x, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    ndim = _ndim(x)
    return np.trace(ts[0], offset, axis1=_shift(axis1, ndim), axis2=_shift(axis2, ndim))


defrule(np.trace, [_trace_vjp, None, None, None], _trace_jvp)


# -- sort ---------------------------------------------------------------------------------

def _sort_order(x, axis):
    return np.argsort(x, axis=axis, kind="stable")


def _sort_vjp(g, ans, x, axis=-1, **kw):
    return each_direction(lambda t: _sort_placed(t, x, axis), g)


def _sort_placed(g, x, axis):
    """``g`` put back where the sort took each element from."""
    if axis is None:
        out = np.zeros(np.size(x), dtype=np.result_type(g, float))
        out[_sort_order(np.ravel(x), 0)] = g
        return out.reshape(np.shape(x))
    out = np.zeros(np.shape(x), dtype=np.result_type(g, float))
    np.put_along_axis(out, _sort_order(x, axis), g, axis)
    return out


def _sort_jvp(ts, ans, x, axis=-1, **kw):
    t = ts[0]
    if axis is None:
        return t.reshape(len(t), -1)[:, _sort_order(np.ravel(x), 0)]
    order = _sort_order(x, axis)[None]
    return np.take_along_axis(t, order, _shift(axis, _ndim(x)))


defrule(np.sort, [_sort_vjp, None], _sort_jvp)


def _partition_order(x, kth, axis):
    return np.argpartition(x, kth, axis=axis)


def _partition_vjp(g, ans, x, kth, axis=-1, **kw):
    return each_direction(lambda t: _partition_placed(t, x, kth, axis), g)


def _partition_placed(g, x, kth, axis):
    out = np.zeros(np.shape(x), dtype=np.result_type(g, float))
    np.put_along_axis(out, _partition_order(x, kth, axis), g, axis)
    return out


def _partition_jvp(ts, ans, x, kth, axis=-1, **kw):
    order = _partition_order(x, kth, axis)[None]
    return np.take_along_axis(ts[0], order, _shift(axis, _ndim(x)))


defrule(np.partition, [_partition_vjp, None], _partition_jvp)
