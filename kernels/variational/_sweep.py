"""The fused step of the adjoint sweep for a one-qubit rotation, in numba.

The sweep keeps psi and lambda in one array of 2**(n+1) amplitudes (psi in the first
half), so that a fixed gate is undone on both by one call of a kernel with one qubit
more. A rotation needs more: <lambda| G |psi> before undoing it, with G its generator on
the same qubit. Both act within each amplitude pair (i0, i0 + 2**q), so one pass over the
pairs of both halves reads the inner product and writes U^+ into both: four amplitude
streams, against six for "kernel on psi, kernel on lambda, inner product".
"""

import numba
import numpy as np

#: generator kinds, the order of the branches below
KINDS = {"X": 0, "Y": 1, "Z": 2, "P1": 3}


@numba.njit(cache=True, nogil=True)
def rotation_step(both, q, u00, u01, u10, u11, diagonal, kind, cmask, cval):
    """Return <lambda| G Pi |psi> (Pi: the controls' projector) and apply the 2x2
    [[u00, u01], [u10, u11]] on qubit q to both halves of ``both``."""
    half = both.shape[0] >> 1
    s = 1 << q
    low = s - 1
    acc = 0j
    for k in range(half >> 1):
        i0 = ((k & ~low) << 1) | (k & low)  # k with a zero bit inserted at q
        if (i0 & cmask) != cval:
            continue
        i1 = i0 | s
        a0, a1 = both[i0], both[i1]
        b0, b1 = both[half + i0], both[half + i1]
        if kind == 0:
            acc += np.conj(b0) * a1 + np.conj(b1) * a0
        elif kind == 1:
            acc += 1j * (np.conj(b1) * a0 - np.conj(b0) * a1)
        elif kind == 2:
            acc += np.conj(b0) * a0 - np.conj(b1) * a1
        else:
            acc += np.conj(b1) * a1
        if diagonal:
            both[i0], both[i1] = u00 * a0, u11 * a1
            both[half + i0], both[half + i1] = u00 * b0, u11 * b1
        else:
            both[i0], both[i1] = u00 * a0 + u01 * a1, u10 * a0 + u11 * a1
            both[half + i0], both[half + i1] = u00 * b0 + u01 * b1, u10 * b0 + u11 * b1
    return acc
