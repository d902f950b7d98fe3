"""Placeholder replaced by the CuPy kernels (in progress)."""


def apply(state, matrix, locs, ctrl_locs=(), ctrl_vals=None):
    raise NotImplementedError("cuda kernels not written yet")
