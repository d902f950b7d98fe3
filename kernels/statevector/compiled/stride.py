"""numba: the single-qubit stride loop, specialised on the matrix's structure, its pair
updates in packed SIMD.

The path is chosen from the 2x2 matrix at call time: a swap for X, an anti-diagonal
update for Y-like gates, a one-sided multiply for phase-like gates (T, S, phase), a
diagonal multiply for Z and Rz, sums and differences for H, and the dense update
otherwise. Matrix entries with no imaginary part are passed as floats, so the update
multiplies by them with one packed product instead of a complex one. The state is
walked in stretches of whole blocks or in runs of pairs (:mod:`..codegen.sources`'s stride loop): a
controlled gate only visits the amplitudes whose control bits match, and each stretch or
run is updated by the path's intrinsic of :mod:`simd` (64-byte vectors of amplitudes).
Two- and three-qubit gates are mixed in registers a group of 64-byte vectors at a time
(:mod:`..codegen.groups`: the targets among a vector's amplitudes by shuffles, those
above by which vectors form a group; a state smaller than one vector goes to
``unrolled``); wider gates go to ``unrolled``.
"""

from functools import lru_cache

import numpy as np

from .. import subnormals
from ..backend import Backend
from ..bits import ctrl_offset, group_shift
from ..codegen import groups, simd, sources
from ..runner import PREPARED_GATES, kernel_runner
from . import unrolled
from ._plan import NUMBA_PRECISIONS, numba_kernel, subspace_plan

#: Our fastest one-pass-per-gate kernel: the unfused row of the fusion tables and the
#: one-thread row of the thread tables (``threaded`` is its parallel version).
BACKEND = Backend(name="stride", role="kernel", precisions=NUMBA_PRECISIONS,
                  runner=kernel_runner(__name__), describe=PREPARED_GATES,
                  baseline="unfused", flushes_subnormals=subnormals.OURS)

PATHS = simd.PATHS

_generated = sources.build("stride", [sources.stride_source(p) for p in PATHS]
                           + [sources.groups_source()])

_KINDS = (("serial", False), ("parallel", True))
# (path, shape, moves, short or None, parallel) -> loop (compiled on first use); a dict
# lookup keeps the per-call cost low
_LOOPS = {
    (p, shape, moves, None, par): getattr(_generated,
                                          f"{sources.stride_name(p, shape, moves)}_{kind}")
    for p in PATHS for shape in sources.STRIDE_SHAPES for moves in sources.STRIDE_MOVES
    for kind, par in _KINDS
}
_LOOPS.update({
    (p, "blocks", moves, short, par):
        getattr(_generated, f"{sources.stride_name(p, 'blocks', moves, short)}_{kind}")
    for p in PATHS for moves in sources.SHORT_MOVES for short in sources.SHORT
    for kind, par in _KINDS
})

# (v, lane targets, vectors a group, parallel) -> the loop of a two- or three-qubit gate
_GROUP_LOOPS = {key + (par,): getattr(_generated, f"{sources.groups_name(*key)}_{kind}")
                for key in groups.VARIANTS for kind, par in _KINDS}

#: log2 of the amplitudes one parallel task updates at most (2**12: 64 KiB of complex128).
LOG_AMPS_PER_TASK = 12


def structure(u00, u01, u10, u11):
    """Name of the cheapest correct pair update for the matrix [[u00, u01], [u10, u11]]."""
    if u01 == 0 and u10 == 0:
        return "phase" if u00 == 1 else "diag"
    if u00 == 0 and u11 == 0:
        return "swap" if u01 == 1 and u10 == 1 else "antidiag"
    if u00 == u01 == u10 == -u11:
        return "hadamard"
    return "dense"


def _real_if_real(z):
    return z.real if z.imag == 0 else z


@lru_cache(maxsize=4096)
def layout(n, t, ctrl_locs, ctrl_vals, parallel):
    """(loop key after the path, the loop's arguments after the matrix entries) for target
    ``t``: how the stride loop walks the state, cached because circuits repeat gates."""
    low = min(ctrl_locs, default=n)  # the lowest control
    base_off = ctrl_offset(ctrl_locs, ctrl_vals)
    if low > t and not (parallel and t + 1 > LOG_AMPS_PER_TASK):
        # blocks: stretches of 2**low amplitudes, each whole blocks of 2s (a parallel task
        # holds at least one block, so a high target goes to the pairs shape instead)
        masks, lens = group_shift(ctrl_locs)
        lrun = low
        lchunk = max(t + 1, min(low, LOG_AMPS_PER_TASK)) if parallel else low
        ntasks = 1 << (n - len(ctrl_locs) - lchunk)
        shape = "blocks"
    else:  # pairs: runs of 2**lrun pairs
        masks, lens = group_shift((t,) + ctrl_locs)
        lrun = min(low, t)
        lchunk = min(lrun, LOG_AMPS_PER_TASK - 1) if parallel else lrun
        ntasks = 1 << (n - 1 - len(ctrl_locs) - lchunk)
        shape = "pairs"
    # the lowest group starts at bit lrun, below which r * 2**lrun has no bits: opening it
    # is a shift
    lshift = lrun + (lens[0] if masks else 0)
    masks, lens = masks[1:], lens[1:]
    if len(masks) in sources.STRIDE_MOVES:  # written out, as scalar arguments
        moves = len(masks)
        move_args = tuple(v for pair in zip(masks, lens) for v in pair)
    else:
        moves = None
        move_args = tuple(np.array(v, dtype=np.int64) for v in (masks, lens))
        for a in move_args:
            a.flags.writeable = False  # shared through the cache
    # a short loop takes a task to be a whole stretch
    whole = shape == "blocks" and lchunk == lrun and moves in sources.SHORT_MOVES
    short = (t, lchunk) if whole and (t, lchunk) in sources.SHORT else None
    return (shape, moves, short), (1 << t, lshift, lrun - lchunk, lchunk) + move_args + (
        base_off, ntasks)


def group_plan(g, dtype, parallel=False):
    """(loop, arguments) of a two- or three-qubit gate ``g`` over groups of 64-byte
    vectors of amplitudes (:mod:`..codegen.groups`): the subspace loop in vector indices,
    over the targets and controls above the lanes, each group mixed in registers."""
    v = groups.VECTOR_BITS[dtype.char]
    mask, high, hctrl, hvals = groups.split(g.locs, g.ctrl_locs, g.ctrl_vals, v)
    table = groups.entries(g.matrix, g.locs, g.ctrl_locs, g.ctrl_vals, v,
                           np.empty(0, dtype).real.dtype)
    args = subspace_plan(g.n - v, tuple(q - v for q in high), tuple(q - v for q in hctrl),
                         hvals)
    return _GROUP_LOOPS[(v, mask, 1 << len(high), parallel)], (table,) + args


def plan(g, dtype, parallel=False):
    """(compiled loop, its arguments after the state) for the checked gate ``g``."""
    _, matrix, locs, ctrl_locs, ctrl_vals = g
    if len(locs) in groups.QUBITS and g.n >= groups.VECTOR_BITS[dtype.char]:
        return group_plan(g, dtype, parallel)
    if len(locs) != 1:
        return unrolled.plan(g, dtype, parallel)
    (u00, u01), (u10, u11) = matrix.tolist()
    path = structure(u00, u01, u10, u11)
    # Python complex or float entries; the intrinsics convert them to the state's precision
    entries = tuple(_real_if_real(u) for u in (u00, u01, u10, u11))
    key, args = layout(g.n, locs[0], ctrl_locs, ctrl_vals, parallel)
    return _LOOPS[(path,) + key + (parallel,)], entries + args


apply = numba_kernel("stride", plan)
