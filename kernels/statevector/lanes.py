"""A gate on the amplitudes of a vector register and on whole vectors, as SIMD kernels
hold it: the qubits below w (a register's 2**w lanes, or amplitudes) are mixed inside
each vector, those above pick which vectors a group of the gate's K = 2**h inputs holds
(h targets above w). Lane l of output vector o is

    sum over input vectors i and patterns p:  e[o, i * P + p][l] * x_i[l ^ p]

with the P patterns every subset of the lane targets' bits (a constant shuffle each) and
e the per-lane entries: the gate's entry between the row of (o, lane l) and the column
of (i, lane l ^ p), or the identity's on the lanes where a control below w is not met.
The fused split layout's lane gates (:mod:`.fused.split`, :mod:`.fused.simd`) and the
stride kernel's groups of vectors (:mod:`.codegen.groups`) both read these.
"""

from functools import lru_cache

import numpy as np

from .bits import bcomspace


def patterns(mask):
    """Every subset of the bits of ``mask`` (the xor patterns of the lane targets), bit j
    of the pattern's index picking the j-th lowest bit."""
    return bcomspace(0, [b for b in range(mask.bit_length()) if mask >> b & 1]).tolist()


def parity_terms(mask, runs):
    """For each output run o of a gate on ``runs`` runs a group that keeps its targets'
    parity, the terms it takes: (input run i, index j into the patterns of ``mask``) for
    the patterns whose bit count has the parity of o ^ i's (the high targets they differ
    in), i by i. A gate that conserves its targets' number of ones, or their parity
    (hopping, XX + YY and Heisenberg couplings, Givens rotations), has nonzero entries
    only between a row and a column an even number of target bits apart, so the others
    are zero: half the terms."""
    odd = [bin(p).count("1") % 2 for p in patterns(mask)]
    return [[(i, j) for i in range(runs) for j, par in enumerate(odd)
             if par == bin(o ^ i).count("1") % 2] for o in range(runs)]


def by_parity(entries, mask):
    """The entries ``entries`` (:func:`dense`, patterns of ``mask``, at least one lane
    target) as a lane kernel that keeps parity takes them: e[o, t] for the t-th of
    :func:`parity_terms`. None unless every entry left out is zero."""
    count, span, lanes = entries.shape
    e = entries.reshape(count, count, span // count, lanes)
    terms = parity_terms(mask, count)
    kept = np.zeros(e.shape[:3], dtype=bool)
    for o, pairs in enumerate(terms):
        for i, j in pairs:
            kept[o, i, j] = True
    if np.any(e[~kept]):
        return None
    return np.stack([[e[o, i, j] for i, j in pairs] for o, pairs in enumerate(terms)])


def dense(matrix, locs, ctrl_locs, ctrl_vals, w, mask=None):
    """e[o, i * P + p, l] (module docstring), complex128, for the gate ``matrix`` on
    ``locs`` with controls ``ctrl_locs`` = ``ctrl_vals``. ``mask``: the lane targets
    whose patterns are taken (default all; a lane target the gate does not mix,
    :func:`..fusion.mixed`, needs none: its patterns' entries are all zero)."""
    rows, cols, met, identity = _indices(tuple(locs), tuple(ctrl_locs), tuple(ctrl_vals), w,
                                         mask)
    return np.where(met, np.asarray(matrix, dtype=np.complex128)[rows, cols], identity)


def diagonal(matrix, locs, ctrl_locs, ctrl_vals, w):
    """A diagonal gate's entries per input vector c and lane l: its diagonal at the row
    of (c, l), 1 where a control below w is not met."""
    rows, _, met, _ = _indices(tuple(locs), tuple(ctrl_locs), tuple(ctrl_vals), w)
    d = np.diagonal(np.asarray(matrix, dtype=np.complex128))
    return np.where(met, d[rows[:, 0]], 1)


@lru_cache(maxsize=4096)
def _indices(locs, ctrl_locs, ctrl_vals, w, mask=None):
    """(rows, cols, met, identity), arrays over (output vector, term, lane): the matrix
    row of (o, lane), the column of (i, lane ^ p), whether the lane's controls below w
    are met, the identity's entry. Cached: circuits repeat gates, and the plain kernel
    call plans on every call."""
    lanes = np.arange(1 << w)
    pats = np.array(patterns(sum(1 << q for q in locs if q < w) if mask is None else mask))
    high = [j for j, q in enumerate(locs) if q >= w]
    count = 1 << len(high)
    met = np.ones(lanes.size, dtype=bool)
    for q, c in zip(ctrl_locs, ctrl_vals):
        if q < w:
            met &= ((lanes >> q) & 1) == c

    def index(vec, lane):  # the matrix index of vector index vec (high targets) and lane
        out = np.zeros(np.broadcast(vec, lane).shape, dtype=np.int64)
        for bit, j in enumerate(high):
            out |= ((vec >> bit) & 1) << j
        for j, q in enumerate(locs):
            if q < w:
                out |= ((lane >> q) & 1) << j
        return out

    o = np.arange(count)[:, None, None, None]
    i = np.arange(count)[None, :, None, None]
    p = np.arange(pats.size)[None, None, :, None]
    lane = lanes[None, None, None, :]
    full = (count, count, pats.size, lanes.size)
    shape = (count, count * pats.size, lanes.size)
    identity = ((o == i) & (pats[p] == 0)).astype(np.complex128)
    out = [np.ascontiguousarray(np.broadcast_to(a, full)).reshape(shape)
           for a in (index(o, lane), index(i, lane ^ pats[p]), identity)]
    out.insert(2, met)
    for a in out:
        a.flags.writeable = False  # shared through the cache
    return tuple(out)
