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
  Before a stretch, every qubit it needs that is global trades places with a local one,
  all in one exchange (k global bits at once send 1 - 2**-k of a slice, where k
  exchanges of one bit would send k halves: :mod:`.exchange`). The local qubits sent
  away are those whose next need lies furthest ahead (Belady's rule); between equals,
  those the final layout wants global, at the global bit it wants them, so that they
  need not move again.
- SWAP gates move no amplitude here: they relabel the layout (as the fused backend's
  stages do), and the final layout is restored at the end, in one exchange (two where
  global qubits must trade global bits) and local SWAPs, so the state ends in the usual
  order.
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
    """Local bits ``local`` and global bits ``glob`` (physical bits >= L) trade places,
    the i-th of each together: with k pairs, each rank keeps the 2**-k of its slice whose
    local bits equal its global ones and swaps each other block with the rank whose
    global bits equal that block's local ones (k = 1: QuEST's half-slice exchange; more:
    a batched remap, qiskit-aer's chunk swap), sending 1 - 2**-k of its slice."""
    local: tuple
    glob: tuple

    def sent(self, slice_bytes):
        """The bytes each rank sends: every block of its slice but the one it keeps."""
        return slice_bytes - (slice_bytes >> len(self.local))


class Plan(NamedTuple):
    n: int
    g: int
    steps: tuple

    @property
    def exchanges(self):
        return sum(isinstance(s, Exchange) for s in self.steps)

    def sent(self, slice_bytes):
        """The bytes each rank sends over the whole plan, for slices of ``slice_bytes``."""
        return sum(s.sent(slice_bytes) for s in self.steps if isinstance(s, Exchange))


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
    # the end: qubit q's amplitudes at moved.get(q, q) (the SWAP gates' relabelling)
    target = [moved.get(q, q) for q in range(n)]
    layout = _Layout(n, local, target, eviction)
    for k, (taken, active) in enumerate(cut):
        layout.bring(active, [a for _, a in cut[k + 1:]])
        layout.steps.append(Local(tuple(_physical(inst, layout.where) for inst in taken)))
    layout.restore()
    return Plan(n, g, tuple(s for s in layout.steps
                            if not (isinstance(s, Local) and not s.gates)))


class _Layout:
    """Where each logical qubit sits (``where``: qubit -> physical bit) as the plan goes,
    and the steps that moved it."""

    def __init__(self, n, local, target, eviction):
        self.where = list(range(n))
        self.local, self.target, self.eviction = local, target, eviction
        self.steps = []

    def remap(self, pairs):
        """One exchange: each (local bit, global bit) of ``pairs`` trade places."""
        at = {p: q for q, p in enumerate(self.where)}
        for p, G in pairs:
            self.where[at[p]], self.where[at[G]] = G, p
        self.steps.append(Exchange(tuple(p for p, _ in pairs), tuple(G for _, G in pairs)))

    def bring(self, active, ahead):
        """Every qubit of ``active`` that is global made local, in one exchange: as many
        local qubits sent away as come in (:meth:`evict`)."""
        coming = sorted(q for q in active if self.where[q] >= self.local)
        if not coming:
            return
        vacated = [self.where[q] for q in coming]
        going = self.evict(len(coming), active, ahead)
        self.remap(_paired(going, vacated, self.where, self.target))

    def evict(self, count, active, ahead):
        """``count`` local bits to send away, holding qubits the stretch does not need:
        those needed again furthest ahead (never, best: Belady's rule); between equals
        first those the final layout wants global (they then stay), then the highest
        bits, whose blocks are the longest runs to send. Or ("lowest") the lowest bits."""
        candidates = [q for q in range(len(self.where))
                      if self.where[q] < self.local and q not in active]

        def first(q):  # the larger, the sooner sent away
            if self.eviction == "lowest":
                return -self.where[q]
            next_need = next((i for i, a in enumerate(ahead) if q in a), len(ahead))
            return (next_need, self.target[q] >= self.local, self.where[q])
        return [self.where[q] for q in sorted(candidates, key=first, reverse=True)[:count]]

    def restore(self):
        """Every global bit given the qubit the final layout wants there, then the local
        bits put in order with SWAP gates. A wanted qubit that is local comes in at once;
        one that sits at another global bit goes out to a local bit with the qubit there
        in the same exchange, and comes in by a second (more where a slice holds fewer
        bits than the ranks' number)."""
        while True:
            wrong = [G for G in range(self.local, len(self.where))
                     if self.where[self.target.index(G)] != G]
            if not wrong:
                break
            wanted = {G: self.target.index(G) for G in wrong}
            pairs = [(self.where[q], G) for G, q in wanted.items() if self.where[q] < self.local]
            stuck = [G for G, q in wanted.items() if self.where[q] >= self.local]
            spare = self.evict(len(stuck), set(wanted.values()), [])
            self.remap(pairs + list(zip(spare, stuck)))  # zip: as many as there are spare
        self.steps.append(Local(tuple(_local_swaps(self.where, self.target))))


def _paired(going, vacated, where, target):
    """(local bit, global bit) pairs that send the bits of ``going`` to those of
    ``vacated``: a qubit the final layout wants at one of those global bits goes there."""
    at = {p: q for q, p in enumerate(where)}
    free = list(vacated)
    pairs, rest = [], []
    for p in going:
        want = target[at[p]]
        if want in free:
            free.remove(want)
            pairs.append((p, want))
        else:
            rest.append(p)
    return pairs + list(zip(rest, free))


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
