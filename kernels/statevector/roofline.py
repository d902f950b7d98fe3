"""The roofline of a program: the least time this machine could run it in.

A program must do two things. It must compute: complex multiply-adds, counted by each
gate's structure (:func:`multiply_adds`), at most the core's measured FMA rate / 4 per
second (a complex multiply-add is four real FMAs on split real and imaginary parts).
And it must move the state: each pass reads and writes every amplitude once, at the
in-place bandwidth of the memory level where the data sits. The roofline time is the
larger of the compute time and the time of each level's traffic; a run's efficiency is
that over its measured time, in (0, 1].

The limits (:class:`Limits`) are measured on this machine, never assumed from a clock
speed: ``harness tune`` caches them, or the caller measures them in its own process.
"""

from typing import NamedTuple

import numpy as np

from .fusion import is_swap

#: Real FMAs per complex multiply-add on split real and imaginary parts:
#: re += a x - b y, im += a y + b x.
FMAS_PER_MULTIPLY_ADD = 4


class Work(NamedTuple):
    """What a program must do, per amplitude of its state: ``multiply_adds`` (complex),
    and ``passes``, {level: full reads and writes of the state's size}, where a level is
    "state" (wherever the whole state sits) or a cache level ("L2") that holds the
    chunks a cache-blocked stage works on."""

    multiply_adds: float
    passes: dict


class Limits(NamedTuple):
    """This machine's roofs for the cores a run uses: ``fmas`` {precision name: real FMAs
    per second} and ``gbs`` {level: in-place GB/s (bytes read + bytes written)}, the sum
    over the run's threads (one core each; harness.tune.limits)."""

    fmas: dict
    gbs: dict


def fmas_key(precision):
    """The tuning constant (kernels.statevector.tuning) of the FMA peak in ``precision``."""
    return f"fmas_{precision}"


def gbs_key(level):
    """The tuning constant of the in-place bandwidth of memory ``level``."""
    return f"gbs_{level}"


def multiply_adds(inst):
    """Complex multiply-adds per amplitude of the state that ``inst`` needs, by its
    structure: a row's nonzero entries (2**k for a dense k-qubit gate, 1 for a diagonal
    one), none for a row that only moves an amplitude (an entry that is exactly 1: X,
    CNOT, SWAP, the 1 of a phase gate), halved for each control."""
    if is_swap(inst):
        return 0.0
    m = np.asarray(inst.matrix)
    nonzero = m != 0
    if np.all(nonzero.sum(axis=1) == 1):  # one entry a row: a move, times a phase or not
        per_row = float(np.mean(m[nonzero] != 1))
    else:
        per_row = float(nonzero.sum()) / m.shape[0]
    return per_row / (1 << len(inst.ctrl_locs))


def gates_alone(instructions):
    """What ``instructions`` must do where each is applied alone, one pass over the state
    (a backend that declares no fusion): their multiply-adds, and per gate a pass over
    the share of the state its controls select, as :func:`multiply_adds` counts it."""
    return Work(sum(multiply_adds(inst) for inst in instructions),
                {"state": sum(1 / (1 << len(inst.ctrl_locs)) for inst in instructions)})


def seconds(work, n, dtype, limits, level):
    """(roofline seconds, what bounds it: "compute" or a level) of ``work`` on an n-qubit
    state of ``dtype`` whose whole sits in ``level`` (a key of ``limits.gbs``)."""
    dtype = np.dtype(dtype)
    amps = float(1 << n)
    bounds = {"compute": work.multiply_adds * amps * FMAS_PER_MULTIPLY_ADD
              / limits.fmas[dtype.name]}
    nbytes = amps * dtype.itemsize
    for where, passes in work.passes.items():
        at = level if where == "state" else where
        bounds[at] = bounds.get(at, 0.0) + 2 * passes * nbytes / (limits.gbs[at] * 1e9)
    bound = max(bounds, key=bounds.get)
    return bounds[bound], bound
