"""Which qubits each rank holds, over a whole circuit: the exchange plan of the distributed
backend, with no MPI in it (it is the same on every rank, and tested on its own).

A state of n qubits over R = 2**g ranks: physical bits 0..L-1 (L = n - g) are local, an
index into a rank's slice; bits L..n-1 are global, the rank's number. Which logical qubit
sits at which physical bit (the layout) changes as the circuit runs:

- A gate *needs* a qubit at hand only where it mixes that qubit's two values (its matrix
  is not block-diagonal in it). A control, or a target the gate is diagonal in, can be
  global: each rank knows its bits and applies the block they select
  (:func:`restrict`), with no message.
- The circuit is cut into stretches whose gates need at most L qubits together: the cache
  blocking's grouping (``fused.stages.groups``), one level up, with the slice as the chunk.
  Before a stretch, every qubit it needs that is global is swapped with a local one (an
  exchange of half a slice between partner ranks); the local qubit sent away is the one
  whose next need lies furthest ahead (Belady's rule), so over the circuit the exchanges
  are as few as that rule makes them, and each moves the same bytes.
- SWAP gates move no amplitude here: they relabel the layout (as the fused backend's
  stages do), and the final layout is restored at the end with exchanges and local SWAPs,
  so the state ends in the usual order.
"""

from typing import NamedTuple

import numpy as np

from ..circuits import Instruction, swap
from ..fused import stages

#: How the local qubit sent away is chosen: "furthest" (Belady's rule, the plan that is
#: run) or "lowest" (the lowest local bit the stretch does not need: another choice of
#: global qubits with the same result, which checks a run no single process can hold).
EVICTIONS = ("furthest", "lowest")


class Local(NamedTuple):
    """Gates run on every rank's slice, on physical bits (those >= L are global and fixed
    on a rank: :func:`restrict` makes each rank's own gates)."""
    gates: tuple


class Exchange(NamedTuple):
    """Local bit ``local`` and global bit ``glob`` (a physical bit >= L) trade places:
    each rank swaps half its slice with the rank that differs in that global bit."""
    local: int
    glob: int


class Plan(NamedTuple):
    n: int
    g: int
    steps: tuple

    @property
    def exchanges(self):
        return sum(isinstance(s, Exchange) for s in self.steps)


def _offblock(m, j):
    """The entries of ``m`` that mix bit ``j`` of its index (row bit != column bit)."""
    idx = np.arange(m.shape[0])
    bit = (idx >> j) & 1
    return m[bit[:, None] != bit[None, :]]


def needs(inst):
    """The targets ``inst`` mixes (must be local to apply): its controls and the targets
    it is diagonal in (block-diagonal, exactly) can stay global."""
    m = np.asarray(inst.matrix)
    return tuple(q for j, q in enumerate(inst.locs) if np.any(_offblock(m, j)))


def _block(m, j, v):
    """The block of ``m`` where bit ``j`` of the index is ``v``: the gate on its other
    targets, for a rank where that qubit is ``v``."""
    keep = np.flatnonzero(((np.arange(m.shape[0]) >> j) & 1) == v)
    return m[np.ix_(keep, keep)]


def restrict(inst, fixed):
    """``inst`` on a rank where the qubits of ``fixed`` ({qubit: bit}) have those values:
    None where it does nothing there (a control unmet, or the identity), else the gate on
    the remaining qubits. A target in ``fixed`` must be one ``inst`` does not mix
    (:func:`needs`); a gate left with no target is a phase on its local controls' subspace
    (a diagonal on them), or on the whole slice (a diagonal on bit 0)."""
    vals = inst.ctrl_vals or (1,) * len(inst.ctrl_locs)
    ctrls = []
    for q, v in zip(inst.ctrl_locs, vals):
        if q not in fixed:
            ctrls.append((q, v))
        elif fixed[q] != v:
            return None
    m = np.asarray(inst.matrix)
    locs = list(inst.locs)
    for j in reversed(range(len(locs))):
        if locs[j] in fixed:
            if np.any(_offblock(m, j)):
                raise ValueError(f"{inst.name} mixes qubit {locs[j]}: it cannot run with that "
                                 "qubit global")
            m = _block(m, j, fixed[locs[j]])
            del locs[j]
    if locs:
        return inst._replace(matrix=m, locs=tuple(locs), ctrl_locs=tuple(q for q, _ in ctrls),
                             ctrl_vals=tuple(v for _, v in ctrls))
    phase = complex(m[0, 0])
    if phase == 1:
        return None
    if not ctrls:
        return Instruction("phase", np.diag([phase, phase]), (0,))
    diag = np.ones(1 << len(ctrls), dtype=complex)
    diag[sum(v << i for i, (_, v) in enumerate(ctrls))] = phase
    return Instruction("phase", np.diag(diag), tuple(q for q, _ in ctrls))


def plan(instructions, n, g, eviction="furthest"):
    """The steps that run ``instructions`` on n qubits over 2**g ranks, starting and
    ending in the usual layout (qubit q at bit q). ValueError where a gate needs more
    qubits at hand than a slice holds. ``eviction``: one of :data:`EVICTIONS`."""
    if eviction not in EVICTIONS:
        raise ValueError(f"eviction must be one of {EVICTIONS}, got {eviction!r}")
    local = n - g
    if g < 0 or local < 1:
        raise ValueError(f"{n} qubits cannot be split over 2**{g} ranks: each rank must hold "
                         "at least one qubit")
    gates, moved = stages.relabel(list(instructions))
    cut = list(stages.groups(gates, local, needs))
    for taken, active in cut:
        if active is None:
            inst = taken[0]
            raise ValueError(f"{inst.name} on {inst.locs} mixes {len(needs(inst))} qubits; a "
                             f"slice of 2**{local} amplitudes holds {local} (fewer ranks, "
                             "or more qubits per rank)")
    where = list(range(n))  # logical qubit -> physical bit
    steps = []

    def swap(p, G):
        a, b = where.index(p), where.index(G)
        where[a], where[b] = G, p
        steps.append(Exchange(p, G))

    for k, (taken, active) in enumerate(cut):
        for q in sorted(active):
            if where[q] >= local:
                ahead = [a for _, a in cut[k + 1:]] if eviction == "furthest" else []
                swap(_evict(where, local, active, ahead, eviction), where[q])
        steps.append(Local(tuple(_physical(inst, where) for inst in taken)))
    # the end: qubit q's amplitudes at moved.get(q, q) (the SWAP gates' relabelling)
    target = [moved.get(q, q) for q in range(n)]
    for G in range(local, n):
        q = target.index(G)
        if where[q] == G:
            continue
        if where[q] >= local:  # global elsewhere: through a local bit first
            swap(_evict(where, local, set(), [], eviction), where[q])
        swap(where[q], G)
    steps.append(Local(tuple(_local_swaps(where, target))))
    return Plan(n, g, tuple(s for s in steps if not (isinstance(s, Local) and not s.gates)))


def _evict(where, local, active, ahead, eviction):
    """The local bit to send away, holding a qubit the stretch does not need: the one
    needed again furthest ahead (never, best), the highest bit between equals, whose
    halves are the longest contiguous runs to send; or ("lowest") the lowest such bit."""
    candidates = [q for q in range(len(where)) if where[q] < local and q not in active]
    if eviction == "lowest":
        return min(where[q] for q in candidates)

    def next_need(q):
        return next((i for i, a in enumerate(ahead) if q in a), len(ahead))
    q = max(candidates, key=lambda q: (next_need(q), where[q]))
    return where[q]


def _physical(inst, where):
    return inst._replace(locs=tuple(where[q] for q in inst.locs),
                         ctrl_locs=tuple(where[q] for q in inst.ctrl_locs))


def _local_swaps(where, target):
    """SWAP gates on local bits that take each qubit q from where[q] to target[q] (its
    global bits already in place)."""
    at = {where[q]: q for q in range(len(where))}  # physical bit -> qubit
    out = []
    for p in sorted(at):
        q = at[p]
        want = target[q]
        while want != p:
            other = at[want]
            out.append(swap(p, want))
            at[p], at[want] = other, q
            q, want = other, target[other]
    return out
