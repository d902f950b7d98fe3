"""Rules of the functions that build arrays from pieces or cut them into pieces: the joins
(np.concatenate, the stack family, np.append, np.r_, np.c_ and np.array of a list, all one
primitive, ``_arrays.join``), the splits (several outputs: a composite of slices for the
operator-overloading engines, a vjp of the list of cotangents for the source engine) and
np.linspace.
"""

import numpy as np

from .. import _arrays
from .table import EveryArgument, MissingRuleError, _ndim, defcanonical, defrule

# -- joins: one primitive, _arrays.join -------------------------------------------------------

def _join_vjp(i, g, ans, *elements, layout):
    if layout.final is not None:
        g = np.reshape(g, (-1,) + layout.shapes[0][1:])
    start = sum(layout.sizes[:i])
    index = (slice(None),) * layout.axis + (slice(start, start + layout.sizes[i]),)
    return np.reshape(g[index], layout.given[i])


def _join_jvp(ts, ans, *elements, layout):
    width = next(len(t) for t in ts if t is not None)
    parts = []
    for t, shape in zip(ts, layout.shapes):
        if t is None:
            t = np.zeros((width,) + shape)
        parts.append(np.reshape(t, (width,) + shape))
    out = np.concatenate(parts, axis=layout.axis + 1)
    return out if layout.final is None else out.reshape((width,) + layout.final)


defrule(_arrays.join, EveryArgument(_join_vjp), _join_jvp, name="numpy join")

for _fn, _canonical in _arrays.JOINS.items():
    defcanonical(_fn, _canonical)
for _name, _canonical in _arrays.CONSTRUCTORS.items():
    defcanonical(getattr(np, _name), _canonical)
for _name, _canonical in _arrays.CONCATENATORS.items():
    defcanonical(getattr(np, _name), _canonical)


# -- splits: several outputs ---------------------------------------------------------------

def _split_bounds(n, sections, strict):
    if np.ndim(sections) == 0:
        count = int(sections)
        if strict and n % count:
            raise ValueError("array split does not result in an equal division")
        sizes = [n // count + (1 if k < n % count else 0) for k in range(count)]
        cuts = np.cumsum([0] + sizes)
        return list(zip(cuts[:-1], cuts[1:]))
    cuts = [0] + [min(int(c), n) for c in sections] + [n]
    return [(lo, max(lo, hi)) for lo, hi in zip(cuts[:-1], cuts[1:])]


def _splitter(strict, default_axis=0):
    def pieces(x, indices_or_sections, axis=default_axis):
        ndim = _ndim(x)
        if default_axis == 1 and ndim == 1:
            axis = 0  # hsplit of a vector splits its only axis
        axis %= ndim
        n = np.shape(x.value if _arrays.is_traced(x) else x)[axis]
        return [x[(slice(None),) * axis + (slice(int(lo), int(hi)),)]
                for lo, hi in _split_bounds(n, indices_or_sections, strict)]

    def vjp(g, ans, x, indices_or_sections, axis=default_axis):
        parts = [np.zeros(np.shape(a)) if c is None else c for c, a in zip(g, ans)]
        if default_axis == 1 and _ndim(x) == 1:
            axis = 0
        return np.concatenate(parts, axis=axis % _ndim(x))
    return pieces, vjp


for _fn, _strict, _axis in [(np.split, True, 0), (np.array_split, False, 0),
                            (np.vsplit, True, 0), (np.hsplit, True, 1),
                            (np.dsplit, True, 2)]:
    _pieces, _vjp = _splitter(_strict, _axis)
    defrule(_fn, [_vjp, None, None], None, composite=_pieces)


def _linspace_weights(num, endpoint):
    return np.linspace(0.0, 1.0, num, endpoint=endpoint)


def _check_linspace(start, stop, kw):
    if _ndim(start) or _ndim(stop) or kw.get("axis", 0) != 0 or kw.get("retstep"):
        raise MissingRuleError("numpy.linspace has a derivative rule for scalar start and "
                               "stop only (no retstep)")


def _linspace_vjp(which):
    def vjp(g, ans, start, stop, num=50, endpoint=True, **kw):
        _check_linspace(start, stop, kw)
        w = _linspace_weights(num, endpoint)
        return np.sum(g * (w if which else 1.0 - w))
    return vjp


def _linspace_jvp(ts, ans, start, stop, num=50, endpoint=True, **kw):
    _check_linspace(start, stop, kw)
    w = _linspace_weights(num, endpoint)
    out = 0.0
    if ts[0] is not None:
        out = out + ts[0][:, None] * (1.0 - w)
    if ts[1] is not None:
        out = out + ts[1][:, None] * w
    return out


defrule(np.linspace, [_linspace_vjp(0), _linspace_vjp(1), None, None], _linspace_jvp)


def _append_canonical(arr, values, axis=None):
    """np.append: a concatenate (of both flattened when axis is None)."""
    prim, elements, kwargs = _arrays._join_call("concatenate", (arr, values), axis)
    return prim, elements, kwargs, lambda cts: tuple(cts)


defcanonical(np.append, _append_canonical)
