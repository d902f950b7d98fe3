"""The adjoint sweep's pass (kernels/variational/_sweep.py): R's sums and W applied to psi
and lambda, the packed-SIMD pass of uncontrolled runs and the controlled scalar loop,
against numpy on every qubit of states from 1 to 9 qubits (strides below, at and above a
vector's four amplitudes), dense and diagonal W."""

import numpy as np
import pytest

from kernels.variational import _sweep


def reference(both, q, w, cmask=0, cval=0):
    """(R, the new ``both``) in numpy: the pairs (i, i + 2**q) of the first half whose
    control bits match, and the same pairs of the second."""
    half = both.shape[0] // 2
    s = 1 << q
    idx = np.array([i for i in range(half) if not i & s and (i & cmask) == cval], dtype=int)
    out = both.copy()
    psi, lam = out[:half], out[half:]
    x, y, cx, cy = psi[idx], psi[idx + s], lam[idx], lam[idx + s]
    r = np.array([[np.sum(x * cx.conj()), np.sum(x * cy.conj())],
                  [np.sum(y * cx.conj()), np.sum(y * cy.conj())]])
    psi[idx], psi[idx + s] = w[0, 0] * x + w[0, 1] * y, w[1, 0] * x + w[1, 1] * y
    lam[idx], lam[idx + s] = w[0, 0] * cx + w[0, 1] * cy, w[1, 0] * cx + w[1, 1] * cy
    return r, out


@pytest.mark.parametrize("diagonal", [False, True])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 6, 9])
def test_pass_matches_numpy(n, diagonal):
    rng = np.random.default_rng(1000 * n + diagonal)
    if diagonal:
        w = np.diag(np.exp(1j * rng.normal(size=2)))
    else:
        w = np.linalg.qr(rng.normal(size=(2, 2)) + 1j * rng.normal(size=(2, 2)))[0]
    for q in range(n):
        controls = [(0, 0)] + [(1 << c, v << c) for c in range(n) if c != q for v in (0, 1)][:2]
        for cmask, cval in controls:
            both = rng.normal(size=2 << n) + 1j * rng.normal(size=2 << n)
            want_r, want = reference(both, q, w, cmask, cval)
            got_r = _sweep._pass(both, q, w, cmask, cval)
            np.testing.assert_allclose(got_r, want_r, atol=1e-12, rtol=0,
                                       err_msg=f"R at q={q} control {cmask}={cval}")
            np.testing.assert_allclose(both, want, atol=1e-13, rtol=0,
                                       err_msg=f"state at q={q} control {cmask}={cval}")
