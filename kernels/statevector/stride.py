"""numba: the single-qubit stride loop, specialised on the matrix's structure.

The path is chosen from the 2x2 matrix at call time: a swap for X, an anti-diagonal
update for Y-like gates, a one-sided multiply for phase-like gates (T, S, Z's -1 half,
phase), a diagonal multiply for Rz, and the dense update otherwise. Controls are tested
per amplitude pair with a mask (the seed's ismatch). Gates on more qubits go to
``unrolled``.
"""

from . import _codegen, unrolled
from ._plan import control_masks, require_numba_dtype
from ._validate import check_gate

PATHS = tuple(_codegen.PAIR_UPDATES)

_generated = _codegen.build(
    "stride", [_codegen.stride_source(p, c) for p in PATHS for c in (False, True)])

# (path, controlled, parallel) -> compiled loop; a dict lookup keeps the call cheap
_LOOPS = {
    (p, c, par): getattr(_generated, f"stride_{p}{'_ctrl' if c else ''}_{kind}")
    for p in PATHS for c in (False, True) for par, kind in ((False, "serial"), (True, "parallel"))
}


def structure(u00, u01, u10, u11):
    """Name of the cheapest correct pair update for the matrix [[u00, u01], [u10, u11]]."""
    if u01 == 0 and u10 == 0:
        return "phase" if u00 == 1 else "diag"
    if u00 == 0 and u11 == 0:
        return "swap" if u01 == 1 and u10 == 1 else "antidiag"
    return "dense"


def run(state, g, parallel=False):
    _, matrix, locs, ctrl_locs, ctrl_vals = g
    if len(locs) != 1:
        return unrolled.run(state, g, parallel)
    (u00, u01), (u10, u11) = matrix.tolist()
    fn = _LOOPS[structure(u00, u01, u10, u11), bool(ctrl_locs), parallel]
    cmask, cval = control_masks(ctrl_locs, ctrl_vals)
    # tolist() gives Python complex (complex128); numba casts on store for complex64
    fn(state, u00, u01, u10, u11, locs[0], cmask, cval)
    return state


def apply(state, matrix, locs, ctrl_locs=(), ctrl_vals=None):
    g = check_gate(state, matrix, locs, ctrl_locs, ctrl_vals)
    require_numba_dtype("stride", state)
    return run(state, g)
