"""The fusion planner: a circuit rewritten as fewer, larger gates with the same meaning.

``fuse(instructions, max_qubits=k)`` walks the circuit once. Each gate either joins the
latest block that touches one of its qubits (targets and controls) or opens a new block;
it may join only that block, because every later block acts on other qubits, so moving
the gate back to it changes nothing. A block becomes one gate: a dense matrix on the union
of its gates' qubits, or, when every gate in it is diagonal (Rz, phase, T, S, Z, CZ,
controlled phases), one diagonal. A block of one gate is that gate, unchanged, controls
and name included.

The walk runs twice: on the circuit as given, and once per width from one qubit up, each
walk's gates the blocks of the one before; the cheaper result (by the same model) is the
answer, the first where they cost the same. Whether a gate joins is the cost model's
call, not just whether it fits in k qubits: a dense gate on m qubits costs 2**m complex
multiply-adds per amplitude, a diagonal one, and every gate costs one more pass over the
amplitudes (``pass_cost``, in the same unit); controls divide both by 2 each (only the
matching amplitudes are touched), and a SWAP alone costs nothing (the fused backend
relabels qubits instead). A gate joins when the joined block costs no more than the two
apart. So three rotations on one qubit become one 2x2 and a CNOT joins the rotations next
to it; a gate never joins a block it shares no qubit with, and the fused backend runs
every gate on a chunk that sits in L2 (:data:`L2_PASS_COST` says what a pass costs
there).

With ``multiplex`` (the fused backend, whose stages run a gate as its :func:`pieces`), a
dense block costs what a gate on the qubits it mixes costs: a qubit that its gates only
touch as a control or through a diagonal (an Ising coupling's ZZ) picks one of two
independent gates on the rest, each over half the amplitudes.
"""

from functools import cache, lru_cache, reduce

import numpy as np

from . import gates
from .bits import deposit
from .circuits import Instruction

#: The widest fused gate the planner and the fused kernels take.
MAX_QUBITS = 6

#: A gate's pass over amplitudes that sit in L2, in complex multiply-adds per amplitude.
#: Measured on the fused kernels (2-core AMD EPYC, AVX2, one thread, interleaved): over
#: QCBM, QFT, QV and random at 20 qubits, both precisions and k = 1, 2, 4, 6, a cost of
#: 2 gave the lowest total at the default k = 4 (11% below 4; 1 and 8 were no better),
#: now that the kernels loop over a gate's groups themselves and a 1-qubit gate in L2
#: takes about 1.3x its multiply-adds' time.
L2_PASS_COST = 2.0


def fuse(instructions, max_qubits=2, *, pass_cost=L2_PASS_COST, prices=None,
         multiplex=False):
    """``instructions`` as a list of gates on at most ``max_qubits`` qubits each (targets
    and controls; 1..6), merged where the cost model says it pays. A gate that is wider
    than ``max_qubits`` on its own is kept as it is.

    ``prices``: where given, {m: the cost of one gate on m qubits} (m = 0: a diagonal
    gate), in any unit, replaces the model's 2**m + ``pass_cost`` (the fused backend's
    planner passes what gates cost on this machine). ``multiplex``: price a dense block
    by the qubits it mixes (module docstring), for kernels that run its :func:`pieces`."""
    if isinstance(max_qubits, bool) or not isinstance(max_qubits, (int, np.integer)) \
            or not 1 <= max_qubits <= MAX_QUBITS:
        raise ValueError(f"max_qubits must be an integer from 1 to {MAX_QUBITS}, "
                         f"got {max_qubits!r}")
    if not pass_cost >= 0:
        raise ValueError(f"pass_cost must be a number >= 0, got {pass_cost!r}")
    if prices is None:
        prices = model_prices(pass_cost)
    units = [_Block([inst], prices, multiplex=multiplex) for inst in instructions]
    direct = _greedy(units, max_qubits)
    # one width at a time: the greedy walk decides a join on the next gate alone, so a
    # circuit of two-qubit unitaries written as CNOTs and rotations never grows a block
    # to three qubits (its first CNOT is cheaper apart than the wider block is, and the
    # rest of that unitary, which the block would have taken for nothing, is not seen);
    # fused to two qubits first, the walk weighs whole unitaries. Each walk takes the
    # blocks of the one before as they are (their gates, qubits and cost), so only the
    # answer's blocks are multiplied out
    layered = units
    for k in range(1, max_qubits + 1):
        layered = _greedy(layered, k)
    best = min((direct, layered), key=lambda blocks: sum(b.cost() for b in blocks))
    return [b.instruction() for b in best]


def _greedy(units, max_qubits):
    """The walk of the module docstring over ``units`` (blocks: a gate, or the gates a
    walk before joined): each joins the latest block touching its qubits where the
    joined block costs no more than the two apart."""
    blocks, last = [], {}  # last[q]: index of the latest block touching qubit q
    for unit in units:
        here = max((last[q] for q in unit.order if q in last), default=None)
        if here is not None and len(blocks[here].qubits | unit.qubits) <= max_qubits:
            joined = blocks[here].joined(unit)
            if joined.cost() <= blocks[here].cost() + unit.cost():
                blocks[here] = joined
                for q in unit.order:
                    last[q] = here
                continue
        blocks.append(unit)
        for q in unit.order:
            last[q] = len(blocks) - 1
    return blocks


def cost(inst, pass_cost=L2_PASS_COST):
    """The model's cost of one gate per amplitude of the state (module docstring)."""
    return _Block([inst], model_prices(pass_cost)).cost()


def model_prices(pass_cost=L2_PASS_COST):
    """{m: the model's cost of a gate on m qubits}: 2**m multiply-adds (1 for m = 0, a
    diagonal gate) plus its pass."""
    return {m: (1 << m if m else 1) + pass_cost for m in range(MAX_QUBITS + 1)}


def span(inst):
    """Every qubit a gate touches: targets, then controls."""
    return tuple(inst.locs) + tuple(inst.ctrl_locs)


def is_diagonal(inst):
    return is_diagonal_matrix(inst.matrix)


def is_diagonal_matrix(matrix):
    m = np.asarray(matrix)
    return not np.any(m - np.diag(np.diagonal(m)))


def is_swap(inst):
    """An uncontrolled exchange of two qubits (by its matrix, whatever its name): the
    fused backend runs it as a relabelling, with no arithmetic and no pass of its own."""
    return (not inst.ctrl_locs and len(inst.locs) == 2
            and np.array_equal(np.asarray(inst.matrix), gates.SWAP))


def mixed(matrix):
    """The bits j of a gate's matrix indices that it mixes: those it is not block-diagonal
    in (some nonzero entry joins a row and a column that differ in bit j)."""
    nonzero = np.asarray(matrix) != 0
    # by the pattern of its nonzeros, cached: the walk and the planner ask it of every
    # gate of every plan they weigh, and a circuit repeats a few patterns
    return _mixed(np.packbits(nonzero).tobytes(), nonzero.shape[0])


@lru_cache(maxsize=4096)
def _mixed(packed, size):
    nonzero = np.unpackbits(np.frombuffer(packed, np.uint8))[:size * size].reshape(
        size, size).astype(bool)
    index = np.arange(size)
    differ = index[:, None] ^ index[None, :]
    return tuple(j for j in range(size.bit_length() - 1)
                 if np.any(nonzero & (differ >> j & 1).astype(bool)))


def pieces(inst, keep=()):
    """``inst`` as the gates it is made of where it does not mix a target (:func:`mixed`):
    for each value v of those targets, the gate on the others with them as controls = v
    (its block of the matrix), the pieces that are the identity left out. Each piece
    touches its share of the amplitudes only, so a 3-qubit block of a ZZ coupling and a
    rotation costs two 2-qubit gates over half the state each. Targets in ``keep`` stay
    targets (the split layout's lanes, whose kernels take a control at full price). A
    gate that mixes all its targets, or none of them (a diagonal), is itself."""
    mixes = mixed(inst.matrix)
    quiet = [j for j in range(len(inst.locs)) if j not in mixes and inst.locs[j] not in keep]
    if not quiet or not mixes:
        return [inst]
    rest = [j for j in range(len(inst.locs)) if j not in quiet]
    m = np.asarray(inst.matrix)
    sub = np.array([deposit(r, rest) for r in range(1 << len(rest))])
    out = []
    vals = tuple(inst.ctrl_vals or (1,) * len(inst.ctrl_locs))
    for v in range(1 << len(quiet)):
        at = deposit(v, quiet) | sub
        block = m[np.ix_(at, at)]
        if np.array_equal(block, np.eye(len(at))):
            continue
        out.append(Instruction(inst.name, block, tuple(inst.locs[j] for j in rest),
                               tuple(inst.ctrl_locs) + tuple(inst.locs[j] for j in quiet),
                               vals + tuple(v >> b & 1 for b in range(len(quiet)))))
    return out


#: A gate runs as its sectors (:func:`sectors`) only where their products take at most
#: this share of the dense product's multiply-adds: each sector is one more sweep over
#: its runs, and the planner prices the gate as dense.
SECTOR_SHARE = 0.6


def sectors(matrix):
    """The independent blocks of a gate's matrix, each a gate of its own on some of its
    indices: [(indices, block)], the indices a power of two in number (a block padded
    with indices of others, whose rows and columns in it are the identity's), the
    one-index blocks together (a diagonal). A Heisenberg coupling's 3-qubit product
    keeps the count of up spins: blocks of 1, 3, 3 and 1, run as a diagonal on two
    indices and two 4-index products, 34 multiply-adds a group where the dense
    product takes 64. None where there is one block, or their products would take
    more than :data:`SECTOR_SHARE` of the dense one's."""
    m = np.asarray(matrix)
    size = len(m)
    linked = (m != 0) | (m.T != 0)
    label = [-1] * size
    for start in range(size):  # connected components of the nonzero entries
        if label[start] < 0:
            label[start], todo = start, [start]
            while todo:
                i = todo.pop()
                for j in np.flatnonzero(linked[i]):
                    if label[j] < 0:
                        label[j] = start
                        todo.append(int(j))
    groups = {}
    for i, c in enumerate(label):
        groups.setdefault(c, []).append(i)
    blocks = [g for g in groups.values() if len(g) > 1]
    single = [g[0] for g in groups.values() if len(g) == 1]
    if single:
        blocks.append(single)
    if len(blocks) < 2:
        return None
    out, work = [], 0
    for block in blocks:
        width = 1 << (len(block) - 1).bit_length()
        pad = [i for i in range(size) if i not in block][:width - len(block)]
        at = np.array(block + pad)
        sub = m[np.ix_(at, at)].astype(np.complex128)
        sub[len(block):, :] = 0
        sub[:, len(block):] = 0
        sub[range(len(block), width), range(len(block), width)] = 1
        out.append((at, sub))
        work += width if block is single else width * width
    return out if work <= SECTOR_SHARE * size * size else None


def _sector_work(parts):
    return sum(len(at) if is_diagonal_matrix(sub) else len(at) ** 2 for at, sub in parts)


def zeros_skipped(matrix, structured=()):
    """How a stage runs the dense gate ``matrix``: (structure, None) where its zero
    pattern is one of :data:`STRUCTURES` and its size among ``structured`` (the kernels
    that skip those zeros in one sweep: fewer multiply-adds than its sectors, and one
    sweep where they take one each), else (None, its :func:`sectors` or None)."""
    parts = sectors(matrix)
    name = structure(matrix) if len(matrix) in structured else None
    if name is not None and (parts is None or allowed(name, len(matrix)).sum()
                             <= _sector_work(parts)):
        return name, None
    return None, parts


def _ones(i):
    return bin(i).count("1")


#: Zero patterns of a gate's matrix that the dense stage kernels skip, by name: whether
#: entry (row, column) may be nonzero. A gate that keeps the count of ones of its targets
#: (hopping, XX + YY and Heisenberg couplings: their products too) mixes only indices
#: with as many ones, 20 of a three-qubit matrix's 64 entries; one that keeps only their
#: parity (XX, YY and ZZ rotations, matchgates), half of them.
STRUCTURES = {"conserving": lambda row, col: _ones(row) == _ones(col),
              "parity": lambda row, col: _ones(row) % 2 == _ones(col) % 2}


def structure(matrix):
    """The first name in :data:`STRUCTURES` whose zero pattern ``matrix`` has (entries
    that are exactly zero there), or None."""
    m = np.asarray(matrix)
    for name in STRUCTURES:
        if not np.any(m[~allowed(name, len(m))]):
            return name
    return None


@cache
def allowed(name, size):
    """The entries of a size x size matrix with the structure ``name`` that may be
    nonzero, as a read-only boolean array."""
    out = np.array([[STRUCTURES[name](r, c) for c in range(size)] for r in range(size)])
    out.flags.writeable = False
    return out


class _Block:
    def __init__(self, gates, prices, qubits=None, diagonal=None, quiet=None,
                 multiplex=False):
        self.gates, self.prices, self.multiplex = gates, prices, multiplex
        # qubits in the order they first appear: the fused gate's locs
        self.order = qubits if qubits is not None else list(dict.fromkeys(span(gates[0])))
        self.qubits = set(self.order)
        self.diagonal = is_diagonal(gates[0]) if diagonal is None else diagonal
        self.swap = len(gates) == 1 and is_swap(gates[0])  # once, not per cost()
        if quiet is None and multiplex:  # the qubits it does not mix: its controls and
            # the targets it is block-diagonal in
            g = gates[0]
            mixes = mixed(g.matrix)
            quiet = set(g.ctrl_locs) | {q for j, q in enumerate(g.locs) if j not in mixes}
        self.quiet = quiet or set()

    def joined(self, other):
        """This block with the gates of ``other`` after it (its diagonal check reused). A
        product of gates that do not mix a qubit does not mix it either."""
        order = self.order + [q for q in other.order if q not in self.qubits]
        quiet = {q for q in order if (q not in self.qubits or q in self.quiet)
                 and (q not in other.qubits or q in other.quiet)}
        return _Block(self.gates + other.gates, self.prices, order,
                      self.diagonal and other.diagonal, quiet, self.multiplex)

    def cost(self):
        if len(self.gates) == 1:
            g = self.gates[0]
            if self.swap:
                return 0.0
            # as pieces (multiplex): its mixed targets, each piece over its share
            k = len(g.locs) - len(self.quiet.difference(g.ctrl_locs))
            return self.prices[0 if self.diagonal else k] / (1 << len(g.ctrl_locs))
        if self.diagonal:  # a diagonal gate is diagonal once merged: named so
            return self.prices[0]
        return self.prices[len(self.order) - len(self.quiet)]

    def instruction(self):
        if len(self.gates) == 1:
            return self.gates[0]
        if self.diagonal:
            d = reduce(np.multiply, (np.diagonal(embed(g, self.order)) for g in self.gates))
            return Instruction("diagonal", np.diag(snap(d, len(self.gates), len(d))),
                               tuple(self.order))
        m = reduce(lambda acc, g: embed(g, self.order) @ acc, self.gates,
                   np.eye(1 << len(self.order), dtype=np.complex128))
        return Instruction("fused", snap(m, len(self.gates), len(m)), tuple(self.order))


_EPS = np.finfo(np.float64).eps


def snap(product, factors, dim):
    """``product`` (the entries of a product of ``factors`` matrices of ``dim`` rows, in
    float64) with every real or imaginary part at most ``factors * dim * eps * s`` set
    to exactly zero: eps is float64's, s the product's RMS singular value (1 for a
    unitary). That is the bound on the rounding error of the product, so a part that is
    zero in exact arithmetic and came out as a few eps is zero again, and a part the
    bound cannot tell from zero changes by no more than the rounding already made it.

    Why: a Trotter step that conserves a quantity has exact zeros between the sectors;
    computed as 1e-17, they seed tiny amplitudes into empty sectors, which decay into
    subnormal floats that stall an x86 core (kernels.statevector.subnormals)."""
    product = np.array(product, dtype=np.complex128)  # a copy, snapped in place
    tol = factors * dim * _EPS * np.sqrt(np.vdot(product, product).real / dim)
    # the planner runs this on every block it builds: few numpy calls, no temporaries
    # beyond the two masks
    for part in (product.real, product.imag):
        part[np.abs(part) <= tol] = 0.0
    return product


def is_flip(inst):
    """An uncontrolled X (by its matrix, whatever its name)."""
    return (not inst.ctrl_locs and len(inst.locs) == 1
            and np.array_equal(np.asarray(inst.matrix), gates.X))


def x_frame(instructions):
    """``instructions`` with the same meaning and no uncontrolled X but where one is
    needed at the end: each X flips its qubit's bit for every gate after it, so it is
    taken out and those gates are rewritten in the flipped frame (a control on a flipped
    qubit waits for the other value; a gate with flipped targets is P U P, P the X on
    those targets). At the end a flipped qubit's X is merged into the last gate that
    touches it where that gate is uncontrolled and has it as a target (X U), or else
    applied as an X after it.

    Why: an X on a qubit above a chunk's lanes is a sweep of the chunk that moves half
    of it, and one that joins no block (the walk joins a gate only to a block on its
    qubits). MQT's quantum walk is half X gates: without them its program at 20 qubits
    ran in 0.13x the time."""
    flipped, out = set(), []
    for inst in instructions:
        if is_flip(inst):
            flipped ^= {inst.locs[0]}
            continue
        out.append(_in_frame(inst, flipped))
    for q in sorted(flipped):
        last = max((i for i, g in enumerate(out) if q in span(g)), default=None)
        if last is not None and q in out[last].locs and not out[last].ctrl_locs:
            g = out[last]
            rows = np.arange(1 << len(g.locs)) ^ (1 << g.locs.index(q))
            out[last] = g._replace(name=f"X{g.name}", matrix=np.asarray(g.matrix)[rows],
                                   params=())
        else:
            out.append(Instruction("X", gates.X, (q,)))
    return out


def _in_frame(inst, flipped):
    """``inst`` as it acts where the bits of ``flipped`` are flipped before and after."""
    if not flipped.intersection(span(inst)):
        return inst
    vals = tuple(v ^ (q in flipped) for q, v in zip(
        inst.ctrl_locs, inst.ctrl_vals or (1,) * len(inst.ctrl_locs)))
    mask = sum(1 << j for j, q in enumerate(inst.locs) if q in flipped)
    if not mask:
        return inst._replace(ctrl_vals=vals)
    at = np.arange(1 << len(inst.locs)) ^ mask
    return inst._replace(name=f"X{inst.name}X", matrix=np.asarray(inst.matrix)[np.ix_(at, at)],
                         ctrl_vals=vals, params=())


def embed(inst, qubits):
    """The matrix of ``inst`` (controls included) on ``qubits``: bit j of the row and
    column index is ``qubits[j]``, which holds every qubit the gate touches."""
    pos = {q: j for j, q in enumerate(qubits)}
    dim = 1 << len(qubits)
    cols = np.arange(dim)
    targets = [pos[q] for q in inst.locs]
    vals = inst.ctrl_vals or (1,) * len(inst.ctrl_locs)
    match = np.ones(dim, dtype=bool)
    for q, v in zip(inst.ctrl_locs, vals):
        match &= ((cols >> pos[q]) & 1) == v
    sub = np.zeros(dim, dtype=np.int64)  # each column's index into the gate's matrix
    cleared = cols.copy()
    for j, p in enumerate(targets):
        sub |= ((cols >> p) & 1) << j
        cleared &= ~(1 << p)
    out = np.zeros((dim, dim), dtype=np.complex128)
    out[cols[~match], cols[~match]] = 1
    matrix = np.asarray(inst.matrix, dtype=np.complex128)
    on = cols[match]
    for r in range(1 << len(targets)):  # a few rows: Python ints, not numpy's calls
        out[cleared[match] | deposit(r, targets), on] = matrix[r, sub[match]]
    return out
