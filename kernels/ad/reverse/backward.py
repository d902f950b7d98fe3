"""The backward pass of the reverse engine (kernels.ad.reverse): every recorded node's vjps
run once, in reverse creation order, with no recursion.

Nodes are numbered as they are created and a node's parents always exist before it, so
popping the highest number first from a heap visits every node after all of its consumers
(a reverse topological order found in one pass); a 200 000-node chain works.
"""

import heapq

import numpy as np

from ..rules import accumulate, densify

_ndarray = np.ndarray
_float64 = np.float64


def backpropagate(out, g):
    """{leaf's number: (leaf, its cotangent)} for every leaf ``out`` depends on, ``g`` being
    the cotangent of ``out``; touches no Variable, so the caller decides what to do with it.

    Interior nodes go through a heap keyed by creation number (highest first), which visits
    each node after all its consumers; leaves only collect their cotangents.
    """
    cts = {out._seq: g}
    heap, leaves = [], {}
    if out._parents:
        heap.append((-out._seq, out))
    else:
        leaves[out._seq] = out  # backward of an input itself
    pop, push, get, take = heapq.heappop, heapq.heappush, cts.get, cts.pop
    while heap:
        seq, node = pop(heap)
        ct = take(-seq)
        if type(ct) is not _ndarray and type(ct) is not float:
            ct = densify(ct)  # a sparse Scatter from indexing, or a numpy scalar
        vjps, args, kwargs, ans = node._vjps, node._args, node._kwargs, node.value
        for i, parent in node._parents:
            if kwargs is None:
                c = vjps[i](ct, ans, *args)
            else:
                c = vjps[i](ct, ans, *args, **kwargs)
            seq = parent._seq
            acc = get(seq)
            if acc is None:
                if parent._parents:
                    push(heap, (-seq, parent))
                else:
                    leaves[seq] = parent
            # Two cases skip accumulate's checks for what it would return anyway: the first
            # dense cotangent of an argument's own shape (c itself), and scalars into a
            # scalar (a third of an element loop's backward).
            v = parent.value
            t = type(v)
            if t is _ndarray:
                if acc is None and type(c) is _ndarray and c.shape == v.shape:
                    cts[seq] = c
                else:
                    cts[seq] = accumulate(acc, c, v.shape)
            elif (t is float or t is _float64) and (type(c) is float or type(c) is _float64):
                cts[seq] = c if acc is None else acc + c
            else:
                cts[seq] = accumulate(acc, c, np.shape(v))
    found = {}
    for seq, leaf in leaves.items():
        ct = cts[seq]
        if type(ct) is _ndarray:
            if ct.base is not None:
                ct = ct.copy()  # a broadcast or transposed view of a shared cotangent
        elif type(ct) is not float:
            ct = densify(ct)
        found[seq] = (leaf, ct)
    return found
