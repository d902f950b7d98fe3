"""Cotangents that hold traced values: an engine differentiated inside forward mode
(forward over reverse, forward over source), where the vjps run on forward Duals."""

import numpy as np

from . import _arrays, rules


def traced_parts(ct):
    """Whether the sparse cotangent ``ct`` holds traced values."""
    if isinstance(ct, rules.Scatter):
        return isinstance(ct.values, _arrays.Traced)
    if isinstance(ct, rules.ScatterSum):
        return any(isinstance(p.values, _arrays.Traced) for p in ct.parts)
    return False


def as_output(ct, like):
    """as_output for an argument ``like`` that is a traced value of an enclosing level
    (a forward Dual: forward over reverse, forward over source): the cotangent, itself
    traced, densified, real and of ``like``'s shape (zeros where nothing flowed back)."""
    if ct is None:
        return np.zeros(np.shape(like)) if np.ndim(like) else 0.0
    ct = rules.densify(ct)
    if rules.is_complex(ct):
        ct = np.real(ct)
    return np.reshape(ct, np.shape(like)) if np.ndim(like) else ct


def densify(ct):
    """densify of a sparse cotangent whose values are traced (forward Duals: forward over
    reverse), by operations an engine differentiates (np.add.at is none): each part is a
    0/1 matrix, placing its values at their flat positions, times its values."""
    positions = np.arange(int(np.prod(ct.shape))).reshape(ct.shape)
    out = 0.0
    for p in ct.parts:
        where = np.ravel(positions[p.index])
        place = np.zeros((positions.size, where.size))
        place[where, np.arange(where.size)] = 1.0
        values = np.ravel(np.broadcast_to(p.values, positions[p.index].shape))
        out = out + np.reshape(place @ values, ct.shape)
    return out
