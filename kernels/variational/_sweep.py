"""The fused step of the adjoint sweep for a run of rotations on one qubit.

The sweep keeps psi and lambda in one array of 2**(n+1) amplitudes (psi in the first
half), so that a fixed gate is undone on both by one call of a kernel with one qubit
more. A run of rotations g_1 .. g_m on qubit q (the QCBM's Rz Rx Rz; m = 1 for a lone or
controlled rotation) needs, for each g_k = exp(-i t G_k / 2), the inner product
<lambda_k| G_k |psi_k> with psi_k, lambda_k the states right after g_k, and then the run
undone on both.

All of those inner products come from one 2x2 matrix. Every g_k acts within the amplitude
pairs (i0, i0 + 2**q), and psi_k = V_k psi, lambda_k = V_k lambda with psi, lambda the
states after the whole run and V_k = g_{k+1}^+ ... g_m^+ (a 2x2 on qubit q). So
<lambda_k| G_k |psi_k> = <lambda| V_k^+ G_k V_k |psi> = tr(V_k^+ G_k V_k R), where
R[y, x] = sum over pairs of psi[y] conj(lambda[x]) (restricted to the pairs whose control
bits match, for a controlled rotation, whose derivative lives there only). One pass over
the pairs of both halves accumulates R's four sums and writes W = g_1^+ ... g_m^+ into
both: four amplitude streams and 5 complex products per pair whatever m is, against
m passes (or m fused updates and m inner products per pair) gate by gate. What is left
per rotation is 2x2 algebra, done here too, so a run is one call from Python.
"""

import numpy as np
from numba import njit

from ._sweep_simd import SWEEPS

_sweep_dense = SWEEPS["dense"]
_sweep_diag = SWEEPS["diag"]

#: The generators G of U(t) = exp(-i t G / 2) on one qubit, by name (P1 = |1><1|, the
#: phase gate's, whose derivative the caller scales: exp(i t P1) = exp(-i t (-2 P1) / 2)).
GENERATORS = {"X": np.array([[0, 1], [1, 0]], dtype=np.complex128),
              "Y": np.array([[0, -1j], [1j, 0]], dtype=np.complex128),
              "Z": np.array([[1, 0], [0, -1]], dtype=np.complex128),
              "P1": np.array([[0, 0], [0, 1]], dtype=np.complex128)}


@njit(cache=True, nogil=True)
def _product(mats):
    """g_m ... g_1 for ``mats`` = (g_1, ..., g_m): the run as one 2x2."""
    u = np.eye(2, dtype=np.complex128)
    for k in range(mats.shape[0]):
        u = mats[k] @ u
    return u


def product(mats):
    """The run's matrices (a (m, 2, 2) complex array, circuit order) as one 2x2."""
    return _product(np.ascontiguousarray(mats, dtype=np.complex128))


# fastmath: lets LLVM reorder R's four sums (rounding-level changes; the states are finite,
# the angles having been checked): 70 against 90 us per pass at n = 14 here. An
# uncontrolled run (every QCBM run) takes the packed-SIMD pass of :mod:`_sweep_simd`
# instead (the sums reordered likewise). Not cached: numba's cache would not notice a
# change in the intrinsics it inlines; compiling takes about a second per process.
@njit(nogil=True, fastmath=True)
def _pass(both, q, w, cmask, cval):
    """R (see the module's docstring) of the current psi and lambda, then ``w`` applied
    to both, in one pass over the pairs whose control bits match."""
    half = both.shape[0] >> 1
    s = 1 << q
    w00, w01, w10, w11 = w[0, 0], w[0, 1], w[1, 0], w[1, 1]
    diagonal = w01 == 0 and w10 == 0
    r = np.empty((2, 2), dtype=np.complex128)
    if cmask == 0:
        if diagonal:
            t = _sweep_diag(both, s, w00, w01, w10, w11)
        else:
            t = _sweep_dense(both, s, w00, w01, w10, w11)
        r[0, 0], r[0, 1] = complex(t[0], t[1]), complex(t[2], t[3])
        r[1, 0], r[1, 1] = complex(t[4], t[5]), complex(t[6], t[7])
        return r
    r00 = r01 = r10 = r11 = 0j
    for base in range(0, half, 2 * s):
        for i0 in range(base, base + s):
            if (i0 & cmask) != cval:
                continue
            i1 = i0 + s
            a0, a1, c0, c1 = both[i0], both[i1], both[half + i0], both[half + i1]
            r00 += a0 * np.conj(c0)
            r01 += a0 * np.conj(c1)
            r10 += a1 * np.conj(c0)
            r11 += a1 * np.conj(c1)
            if diagonal:  # a run of Rz and phase: two products per half, not four
                both[i0], both[i1] = w00 * a0, w11 * a1
                both[half + i0], both[half + i1] = w00 * c0, w11 * c1
            else:
                both[i0], both[i1] = w00 * a0 + w01 * a1, w10 * a0 + w11 * a1
                both[half + i0] = w00 * c0 + w01 * c1
                both[half + i1] = w10 * c0 + w11 * c1
    r[0, 0], r[0, 1], r[1, 0], r[1, 1] = r00, r01, r10, r11
    return r


@njit(nogil=True)  # not cached: it inlines _pass
def _step(both, q, mats, gens, cmask, cval):
    m = mats.shape[0]
    w = np.eye(2, dtype=np.complex128)  # W = g_1^+ ... g_m^+
    for k in range(m):
        w = w @ mats[k].conj().T
    r = _pass(both, q, w, cmask, cval)
    accs = np.empty(m, dtype=np.complex128)
    v = np.eye(2, dtype=np.complex128)  # V_k, from V_m = 1 down
    for k in range(m - 1, -1, -1):
        accs[k] = np.trace(v.conj().T @ gens[k] @ v @ r)
        v = mats[k].conj().T @ v
    return accs


def run_step(both, q, mats, gens, cmask=0, cval=0):
    """For a run of rotations on qubit q: ``mats`` their matrices in circuit order (a
    (m, 2, 2) complex array), ``gens`` their generators (the same shape, from
    :data:`GENERATORS`). Returns <lambda_k| G_k Pi |psi_k> for each (Pi the projector on
    the controls: bits ``cmask`` equal to ``cval``) and undoes the run on both halves of
    ``both``, in one pass over the state."""
    mats = np.ascontiguousarray(mats, dtype=np.complex128)
    gens = np.ascontiguousarray(gens, dtype=np.complex128)
    if mats.ndim != 3 or mats.shape[1:] != (2, 2) or gens.shape != mats.shape \
            or not len(mats):
        raise ValueError(f"a run of rotations needs one 2x2 matrix and one 2x2 generator "
                         f"each, got shapes {mats.shape} and {gens.shape}")
    return _step(both, q, mats, gens, cmask, cval)
