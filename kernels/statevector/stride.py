"""numba: the single-qubit stride loop, specialised on the matrix's structure.

The path is chosen from the 2x2 matrix at call time: a swap for X, an anti-diagonal
update for Y-like gates, a one-sided multiply for phase-like gates (T, S, phase), a
diagonal multiply for Z and Rz, sums and differences for H, and the dense update
otherwise. Matrix entries with no imaginary part are passed as floats, so numba compiles
real-by-complex products for them (half the multiplications). Controls are tested per
amplitude pair with a mask (the seed's ismatch), or once per block for controls above
the target. Gates on more qubits go to
``unrolled``.
"""

from . import _codegen, unrolled
from ._plan import numba_kernel, split_control_masks

PATHS = tuple(_codegen.PAIR_UPDATES)

_VARIANTS = [(p, c, u) for p in PATHS for c in (False, True) for u in _codegen.UNROLLS]
_generated = _codegen.build("stride", [_codegen.stride_source(*v) for v in _VARIANTS])

# (path, controlled, unroll, parallel) -> loop (compiled on first use); a dict lookup
# keeps the per-call cost low
_LOOPS = {
    v + (par,): getattr(_generated, f"{_codegen.stride_name(*v)}_{kind}")
    for v in _VARIANTS for par, kind in ((False, "serial"), (True, "parallel"))
}


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


def plan(g, dtype, parallel=False):
    """(compiled loop, its arguments after the state) for the checked gate ``g``."""
    _, matrix, locs, ctrl_locs, ctrl_vals = g
    if len(locs) != 1:
        return unrolled.plan(g, dtype, parallel)
    (u00, u01), (u10, u11) = matrix.tolist()
    s = 1 << locs[0]
    fn = _LOOPS[structure(u00, u01, u10, u11), bool(ctrl_locs), min(s, 8), parallel]
    # Python complex or float entries; numba casts on store for complex64 states
    return fn, (_real_if_real(u00), _real_if_real(u01), _real_if_real(u10),
                _real_if_real(u11), s) + split_control_masks(locs[0], ctrl_locs, ctrl_vals)


apply = numba_kernel("stride", plan)
