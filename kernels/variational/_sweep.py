"""The fused steps of the adjoint sweep for one-qubit rotations, generated per case.

The sweep keeps psi and lambda in one array of 2**(n+1) amplitudes (psi in the first
half), so that a fixed gate is undone on both by one call of a kernel with one qubit
more. A rotation needs more: <lambda| G |psi> before undoing it, with G its generator on
the same qubit. Both act within each amplitude pair (i0, i0 + 2**q), so one pass over the
pairs of both halves reads the inner product and writes U^+ into both: four amplitude
streams, against six for "kernel on psi, kernel on lambda, inner product". A run of
rotations on the same qubit (the QCBM's Rz Rx Rz) is one pass too: each pair is loaded
once, every rotation of the run read and undone in registers, and stored once.

One function per (generators of the run, controlled, which of its matrices are
diagonal), generated from one template the first time it is needed
(kernels/statevector/_codegen.py keeps the file and numba caches its machine code), so
that no branch is left inside the loop. numba emits scalar code for it (no packed double
instructions, checked in the assembly), like the stride kernel's pair updates: the
vectorisation of both is the subject of the kernels issue.
"""

from functools import cache

import numpy as np

from ..statevector import _codegen

#: generator -> the pair's contribution to <lambda| G |psi> (a: psi pair, b: lambda pair)
BRAKETS = {
    "X": "np.conj(b0) * a1 + np.conj(b1) * a0",
    "Y": "1j * (np.conj(b1) * a0 - np.conj(b0) * a1)",
    "Z": "np.conj(b0) * a0 - np.conj(b1) * a1",
    "P1": "np.conj(b1) * a1",
}

#: Longest run of rotations fused into one pass (longer runs are split): bounds the
#: generated variants and the registers one pair iteration needs.
MAX_RUN = 4

_HEAD = """
@njit(cache=True, nogil=True)
def {name}(both, q, m, cmask, cval):
    half = both.shape[0] >> 1
    s = 1 << q
"""
_LOOP = """    for base in range(0, half, 2 * s):
        for j in range(s):
            i0 = base + j
{skip}            i1 = i0 + s
            a0 = both[i0]
            a1 = both[i1]
            b0 = both[half + i0]
            b1 = both[half + i1]
"""
_SKIP = "            if (i0 & cmask) != cval:\n                continue\n"
_STORE = """            both[i0] = a0
            both[i1] = a1
            both[half + i0] = b0
            both[half + i1] = b1
"""


def _source(name, kinds, controlled, diagonals):
    lines = [_HEAD.format(name=name)]
    for g in range(len(kinds)):
        lines.append(f"    u{g}00, u{g}01, u{g}10, u{g}11 = m[{g}, 0, 0], m[{g}, 0, 1], "
                     f"m[{g}, 1, 0], m[{g}, 1, 1]\n    acc{g} = 0j\n")
    lines.append(_LOOP.format(skip=_SKIP if controlled else ""))
    pad = " " * 12
    for g, (kind, diagonal) in enumerate(zip(kinds, diagonals)):
        lines.append(f"{pad}acc{g} += {BRAKETS[kind]}\n")
        if diagonal:
            lines.append(f"{pad}a0, a1, b0, b1 = u{g}00 * a0, u{g}11 * a1, u{g}00 * b0, "
                         f"u{g}11 * b1\n")
        else:
            lines.append(f"{pad}a0, a1 = u{g}00 * a0 + u{g}01 * a1, u{g}10 * a0 + u{g}11 * a1\n"
                         f"{pad}b0, b1 = u{g}00 * b0 + u{g}01 * b1, u{g}10 * b0 + u{g}11 * b1\n")
    lines.append(_STORE)
    lines.append(f"    return ({', '.join(f'acc{g}' for g in range(len(kinds)))},)\n")
    return "".join(lines)


@cache
def _step(kinds, controlled, diagonals):
    parts = [k + ("d" if d else "") for k, d in zip(kinds, diagonals)]
    name = f"step_{'_'.join(parts)}{'_ctrl' if controlled else ''}"
    module = _codegen.load_module(f"adjoint_{name}", _codegen.HEADER
                                  + _source(name, kinds, controlled, diagonals))
    return getattr(module, name)


def run_step(both, q, matrices, kinds, cmask=0, cval=0):
    """For a run of rotations on qubit q, in sweep order (the last gate of the circuit
    first): ``matrices`` their inverses U^+ (a (k, 2, 2) complex array), ``kinds`` their
    generators. Returns <lambda_j| G_j Pi |psi_j> for each, Pi the projector on the
    controls (bits ``cmask`` equal to ``cval``; a controlled rotation is a run of one),
    and undoes the run on both halves of ``both`` in one pass."""
    if not 1 <= len(kinds) <= MAX_RUN or matrices.shape != (len(kinds), 2, 2):
        raise ValueError(f"a run of 1..{MAX_RUN} rotations with one 2x2 each, got "
                         f"{len(kinds)} generators and matrices of shape {matrices.shape}")
    diagonals = tuple(not np.any(m[[0, 1], [1, 0]]) for m in matrices)
    return _step(tuple(kinds), cmask != 0, diagonals)(both, q, matrices, cmask, cval)
