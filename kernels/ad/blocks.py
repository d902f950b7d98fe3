"""Jacobian rows in blocks: one backward pass pulls back a whole block of cotangent rows,
as ``vmap(vjp)`` does (reverse mode's and the source engine's ``jacobian``).

The block rides the backward pass as the partials of one forward Dual (kernels.ad.forward).
A pullback is linear in its cotangent, so forward mode through it, seeded with the rows as
its directions, carries each row's pullback on a leading axis through the rule table's
batched jvps: no rule needs a batched vjp of its own, and a Jacobian of ``r`` rows costs
``r / chunk`` backward passes of wide numpy calls instead of ``r`` passes of narrow ones.

The Dual's value is a fixed random combination of the block's rows, pulled back by the
same pass the plain way; the same combination of its partials must agree with it. That
checks every row of the batch against the unbatched pullback at no extra pass: a vjp that
treated its cotangent other than linearly (or branched on its values) would break the
agreement. A pullback forward mode cannot follow (a vjp calling what has no forward rule,
or turning its cotangent into a plain array) or that fails the check is taken row by row
instead, so a block is never wrong where a row would be right.
"""

import numpy as np

from . import _arrays, _cotangents, forward, rules
from ._args import jacobian_seed
from .errors import EscapeError, MissingRuleError

#: how far the combination of the batched rows may stray from the plain pullback of the
#: combined row, relative to the combination's scale: both are the same linear
#: operations, summed in other orders
AGREEMENT = 1e-10

#: the combination's weights: fixed (a block's check is the same on every call), none
#: near zero, so that no row drops out of it
_WEIGHTS = np.random.default_rng(20261129).uniform(0.5, 1.5, 4096)


def rows(pull, shape, x, seeds=None, nested=False):
    """``(k, x.size)``: the pullback of each seed to ``x``, flattened.

    ``pull(ct)`` runs one backward pass from the output's cotangent ``ct`` and returns
    ``x``'s cotangent as the pass left it (None where nothing reached ``x``, a sparse
    scatter, an array). ``seeds`` is ``(k, *shape)`` (or ``(k, prod(shape))``); None means
    every one-hot of an output of ``shape``, made a block at a time. Blocks are as wide as
    forward mode's chunks over the output's or ``x``'s size, whichever is larger
    (kernels.ad.forward.balanced_chunk: each node's cotangent is that many times its size).
    ``nested`` (x or f's value a Dual of an enclosing level, whose derivatives the
    cotangents carry; no ``seeds``): one pass per one-hot, the rows Duals of that level.
    """
    size = int(np.prod(shape))
    if nested:
        got = [_cotangents.traced_as_output(pull(jacobian_seed(shape, i)), x)
               for i in range(size)]
        return np.reshape(np.stack(got), (size, np.size(x))) if got else np.zeros(
            (0, np.size(x)))
    count = size if seeds is None else len(seeds)
    out = np.empty((count, np.size(x)))
    chunk = forward.balanced_chunk(count, max(size, np.size(x)))
    _arrays.enter()  # a vjp may build arrays from the Dual cotangents (np.stack, np.array)
    try:
        for start in range(0, count, chunk):
            if seeds is None:
                block = np.zeros((min(chunk, count - start), size))
                block[np.arange(len(block)), start + np.arange(len(block))] = 1.0
            else:
                block = np.reshape(seeds[start:start + chunk], (-1, size))
            out[start:start + len(block)] = _block(pull, block, shape, x)
    finally:
        _arrays.leave()
    return out


def _block(pull, block, shape, x):
    if len(block) > 1:
        weights = np.resize(_WEIGHTS, len(block))
        combined = weights @ block
        seed = forward.directions(combined.reshape(shape) if shape else float(combined[0]),
                                  block.reshape((-1,) + shape))
        try:
            got = _rows_of(_cotangents.densify(pull(seed)), seed, weights, x)
        except (MissingRuleError, EscapeError):
            got = None
        if got is not None:
            return got
    return _row_by_row(pull, block, shape, x)


def _row_by_row(pull, block, shape, x):
    """The block's rows one backward pass each, with plain cotangents."""
    return np.stack([np.ravel(rules.as_output(pull(row.reshape(shape) if shape else
                                                   float(row[0])), x)) for row in block])


def _rows_of(ct, seed, weights, x):
    """The block's rows from the x-cotangent of a Dual seed; None where the batch cannot be
    trusted (its rows combined by ``weights`` disagree with the plain pullback of the
    combined row, or the pullback was not linear)."""
    k = len(weights)
    if ct is None:
        return np.zeros((k, np.size(x)))
    if not forward.along(ct, seed):
        # nothing of the seed's directions reached x: right only if nothing at all did
        return np.zeros((k, np.size(x))) if not np.any(ct) else None
    value = np.ravel(np.broadcast_to(np.real(ct.value), np.shape(x)))
    partials = np.broadcast_to(np.real(ct.partials), (k,) + np.shape(x)).reshape(k, -1)
    with np.errstate(invalid="ignore", over="ignore"):
        combined = weights @ partials
        scale = weights @ np.abs(partials)
    # an entry that is not finite (a derivative may be inf, and inf - inf nan) must be so
    # in both; a finite one must agree
    finite = np.isfinite(combined) & np.isfinite(value)
    if np.any(np.isfinite(combined) != np.isfinite(value)) or np.any(
            np.abs(combined - value)[finite] > AGREEMENT * (
                scale[finite] + np.max(scale[finite], initial=0.0))):
        return None
    return partials
