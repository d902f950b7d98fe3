"""Bit helpers shared by every kernel: the index arithmetic of the seed's BitSubspace.

Qubit q is bit q of an amplitude index (qubit 0 is the least significant bit). Two sets
of indices matter for a gate on qubits ``locs``:

* the *subspace*: every index whose ``locs`` bits are all zero, in increasing order;
  there are 2**(n - k) of them, one per block of amplitudes the gate mixes;
* the *comspace*: the 2**k offsets that, added to a subspace index, give the block's
  amplitudes, ordered so that bit j of the offset's position is qubit ``locs[j]``
  (the same order as the gate matrix's rows and columns).
"""

import numpy as np


def log2i(x):
    """Exact base-2 logarithm of a positive power of two; ValueError otherwise."""
    x = int(x)
    if x <= 0 or x & (x - 1):
        raise ValueError(f"{x} is not a positive power of two")
    return x.bit_length() - 1


def bmask(*positions):
    """Integer with the given bit positions set: ``bmask(0, 2) == 0b101``."""
    mask = 0
    for p in positions:
        mask |= 1 << p
    return mask


def lmove(b, mask, k):
    """Keep the bits of ``b`` under ``mask`` and move the rest ``k`` places left.

    With ``mask`` covering the bits below a gap, this opens a gap of ``k`` zero bits;
    works elementwise on numpy integer arrays too.
    """
    return ((b & ~mask) << k) | (b & mask)


def group_shift(locs):
    """Masks and shift lengths that open zero bits at every position in ``locs``.

    Contiguous positions move together, so ``(1, 2, 5)`` needs two moves, not three:
    returns ``([0b1, 0b11111], [2, 1])``. Apply the moves in order with :func:`lmove`.
    """
    masks, lens = [], []
    prev = None
    for q in sorted(locs):
        if prev is not None and q == prev + 1:
            lens[-1] += 1
        else:
            masks.append((1 << q) - 1)
            lens.append(1)
        prev = q
    return masks, lens


def insert_zeros(index, locs):
    """Map a compact index (or array of them) to the full index with ``locs`` bits zero."""
    for mask, k in zip(*group_shift(locs)):
        index = lmove(index, mask, k)
    return index


def bsubspace(n, locs):
    """All indices of an n-qubit state whose ``locs`` bits are zero, ascending (int64)."""
    return insert_zeros(np.arange(1 << (n - len(locs)), dtype=np.int64), locs)


def deposit(x, locs):
    """Bit j of the integer ``x`` moved to position ``locs[j]``: entry x of
    :func:`bcomspace`, for one index (no array to build: what a small loop wants)."""
    return sum(((x >> j) & 1) << p for j, p in enumerate(locs))


def bcomspace(n, locs):
    """The 2**k offsets of a block: entry a has bit ``locs[j]`` set iff bit j of a is
    (:func:`deposit` of every a at once)."""
    a = np.arange(1 << len(locs), dtype=np.int64)
    out = np.zeros_like(a)
    for j, q in enumerate(locs):
        out |= ((a >> j) & 1) << q
    return out


def ctrl_offset(ctrl_locs, ctrl_vals):
    """The index bits fixed by controls: bit ``ctrl_locs[i]`` set iff ``ctrl_vals[i]`` is 1."""
    return bmask(*(q for q, v in zip(ctrl_locs, ctrl_vals) if v))


def ismatch(index, mask, target):
    """Whether the bits of ``index`` under ``mask`` equal ``target`` (the seed's control test)."""
    return (index & mask) == target
