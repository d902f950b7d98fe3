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
    the cotangent of ``out``; changes no Variable, so the caller decides what to do with it.
    A leaf whose Variable no longer exists gets no entry (nothing could read its gradient).

    Interior nodes (kernels.ad.reverse.variable: the tuples of the tape) go through a heap
    keyed by creation number (highest first), which visits each node after all its
    consumers; leaves only collect their cotangents.
    """
    node = out._node
    cts = {node[0]: g}
    heap, leaves = [], {}
    if node[1]:
        heap.append((-node[0], node))
    else:
        leaves[node[0]] = node  # backward of an input itself
    pop, push, get, take = heapq.heappop, heapq.heappush, cts.get, cts.pop
    while heap:
        seq, node = pop(heap)
        ct = take(-seq)
        if type(ct) is not _ndarray and type(ct) is not float:
            ct = densify(ct)  # a sparse Scatter from indexing, or a numpy scalar
        _, links, vjps, args, kwargs, ans, _, _ = node
        for i, parent in links:
            if kwargs is None:
                c = vjps[i](ct, ans, *args)
            else:
                c = vjps[i](ct, ans, *args, **kwargs)
            seq = parent[0]
            acc = get(seq)
            if acc is None:
                if parent[1]:
                    push(heap, (-seq, parent))
                else:
                    leaves[seq] = parent
            # Two cases skip accumulate's checks for what it would return anyway: the first
            # dense cotangent of an argument's own shape (c itself), and scalars into a
            # scalar (a third of an element loop's backward).
            t = parent[7]
            if t is _ndarray:
                if acc is None and type(c) is _ndarray and c.shape == parent[6]:
                    cts[seq] = c
                else:
                    cts[seq] = accumulate(acc, c, parent[6])
            elif (t is float or t is _float64) and (type(c) is float or type(c) is _float64):
                cts[seq] = c if acc is None else acc + c
            else:
                cts[seq] = accumulate(acc, c, parent[6])
    return _leaf_cotangents(leaves, cts)


def _leaf_cotangents(leaves, cts):
    """{leaf's number: (leaf, its cotangent as the leaf's own array)} of the leaves still
    alive."""
    found, handed = {}, set()
    for seq, node in leaves.items():
        leaf = node[5]()
        if leaf is None:
            continue
        ct = cts[seq]
        if type(ct) is _ndarray:
            # a broadcast or transposed view of a shared cotangent, or one array given to
            # two leaves (x + y: add's vjp hands both the output's cotangent)
            if ct.base is not None or id(ct) in handed:
                ct = ct.copy()
            handed.add(id(ct))
        elif type(ct) is not float:
            ct = densify(ct)
        found[seq] = (leaf, ct)
    return found
