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


def structure(u00, u01, u10, u11):
    """Name of the cheapest correct pair update for the matrix [[u00, u01], [u10, u11]]."""
    if u01 == 0 and u10 == 0:
        return "phase" if u00 == 1 else "diag"
    if u00 == 0 and u11 == 0:
        return "swap" if u01 == 1 and u10 == 1 else "antidiag"
    return "dense"


def run(state, g, parallel=False):
    if len(g.locs) != 1:
        return unrolled.run(state, g, parallel)
    cast = state.dtype.type
    (u00, u01), (u10, u11) = g.matrix.tolist()
    path = structure(u00, u01, u10, u11)
    ctrl = "_ctrl" if g.ctrl_locs else ""
    fn = getattr(_generated, f"stride_{path}{ctrl}_{'parallel' if parallel else 'serial'}")
    cmask, cval = control_masks(g.ctrl_locs, g.ctrl_vals)
    fn(state, cast(u00), cast(u01), cast(u10), cast(u11), g.locs[0], cmask, cval)
    return state


def apply(state, matrix, locs, ctrl_locs=(), ctrl_vals=None):
    g = check_gate(state, matrix, locs, ctrl_locs, ctrl_vals)
    require_numba_dtype("stride", state)
    return run(state, g)
