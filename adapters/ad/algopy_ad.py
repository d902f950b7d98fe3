"""AlgoPy's forward mode (univariate Taylor polynomials, ``algopy.UTPM``) behind the
engines' ``gradient``.

Why forward mode: it is how AlgoPy's documentation computes a gradient (its getting-started
example seeds ``UTPM.init_jacobian`` and reads ``UTPM.extract_jacobian``; the reverse mode's
tracer "has no complete documentation"), it is the boilerplate AlgoPy users write, and it
is what the ForwardDiff.jl seed compared against: that seed's AlgoPy times grow ~200x from
n = 1600 to 16000, the quadratic cost of carrying all n directions through every
operation, not the linear cost of a reverse sweep.

All arguments are flattened into one vector and seeded together (``init_jacobian`` takes
one array); each gradient call seeds it, slices it back into the arguments' shapes, runs
the function and extracts the Jacobian row, as a user's ``eval_grad`` does per call. The
problem's numpy global is swapped (:mod:`adapters.ad._translate`) for AlgoPy's functions of
the same names, which fall back to numpy on plain arrays.

Cases AlgoPy cannot run raise NotImplementedError from :func:`prepare`: the ``@`` operator
(``UTPM`` has no ``__matmul__`` in AlgoPy 0.7.2; its users write ``algopy.dot``), and
problems whose seeded input alone would exceed :data:`MAX_TAYLOR_BYTES`.
"""

import types

import numpy as np

from kernels.ad.backend import Cost

from .._guard import guarded_import
from . import _base
from ._translate import binary_operators, translate

NAME = "algopy"
PACKAGE = "algopy"
#: The cost model's facts (kernels.ad.backend.Cost): forward mode carrying all N
#: directions, O(N) per operation (measured 108 evaluations of f at n = 16 and 341 at 1600
#: on the loop; 5100 on vectorised Ackley at 1600).
COST = Cost(loop=lambda N: 100.0 + 0.15 * N, vector=lambda N: 10.0 + 3.0 * N)

algopy, AVAILABLE, REASON = guarded_import("algopy")

#: The largest seeded input, 2 Taylor coefficients x n directions x n entries x 8 bytes,
#: that prepare accepts. Each vectorised operation makes a temporary of that size, and a
#: few are alive at once: Ackley at n = 16000 would need 4 GiB per temporary, more than a
#: shared benchmark machine should be asked for (n = 1600 needs 41 MB).
MAX_TAYLOR_BYTES = 1 << 30

# numpy names AlgoPy defines with numpy's meaning (each dispatches on UTPM, else numpy)
_FUNCTIONS = ("sin cos tan arcsin arccos arctan sinh cosh tanh exp expm1 log log1p sqrt "
              "square absolute negative reciprocal sign minimum maximum sum prod dot outer "
              "trace transpose reshape diag").split()


def sync():
    """AlgoPy runs synchronously on numpy; present for the common adapter interface."""


def _namespace():
    ns = types.ModuleType("adapters.ad.algopy_ad.numpy", "numpy's names for AlgoPy functions")
    for name in _FUNCTIONS:
        setattr(ns, name, getattr(algopy, name))
    ns.abs = algopy.absolute
    ns.pi, ns.e = np.pi, np.e
    return ns


NUMPY = _namespace() if AVAILABLE else None


def _layout(arrays):
    """(offset, size, shape) of each argument in the flattened vector."""
    out, offset = [], 0
    for a in arrays:
        out.append((offset, a.size, a.shape))
        offset += a.size
    return tuple(out), offset


def _refuse(f, n):
    """NotImplementedError for what AlgoPy cannot run: ``@``, or ``n`` seeded directions
    too large to carry."""
    if binary_operators(f) & {"@", "@="}:
        raise NotImplementedError(
            f"{REASON}: UTPM has no @ operator (__matmul__), which the function uses; "
            "AlgoPy code writes np.dot")
    taylor_bytes = 2 * n * n * 8
    if taylor_bytes > MAX_TAYLOR_BYTES:
        raise NotImplementedError(
            f"AlgoPy's forward mode seeds {n} directions over {n} inputs: "
            f"{taylor_bytes / 2**30:.1f} GiB per temporary, above MAX_TAYLOR_BYTES "
            f"({MAX_TAYLOR_BYTES / 2**30:.1f} GiB)")


def prepare(f, *args):
    """:class:`~adapters.ad._base.Prepared` for ``f(*args)`` in AlgoPy's forward mode."""
    _base.require(NAME, AVAILABLE, REASON)
    inputs = _base.check_inputs(f, args)
    layout, n = _layout(inputs.arrays)
    _refuse(f, n)
    ft = translate(f, NUMPY)
    given = inputs.as_given()
    x = np.concatenate([a.ravel() for a in inputs.arrays])
    UTPM = algopy.UTPM

    def split(seeded):
        if len(layout) == 1 and len(layout[0][2]) == 1:
            return (seeded,)  # one vector: the seed already has its shape
        return tuple(seeded[o] if shape == () else seeded[o:o + size].reshape(shape)
                     for o, size, shape in layout)

    def objective():
        return ft(*given)

    def gradient():
        return UTPM.extract_jacobian(ft(*split(UTPM.init_jacobian(x))))

    def to_numpy(jacobian):
        flat = np.asarray(jacobian, dtype=np.float64).reshape(n)
        return _base.contract_form(
            (flat[o:o + size].reshape(shape) for o, size, shape in layout), inputs)

    with _base.missing_is_unsupported(NAME, NUMPY):
        objective()
    return _base.Prepared(objective, gradient, to_numpy)


gradient = _base.gradient_function(prepare, NAME)

#: UTPM.init_jacobian / extract_jacobian: forward mode, every direction at once
JACOBIAN_METHODS = ("jacobian",)


def prepare_jacobian(f, x, method=None):
    """:class:`~adapters.ad._base.Prepared` for the Jacobian of ``f`` at the array ``x``
    in AlgoPy's forward mode (the getting-started example's way)."""
    _base.require(NAME, AVAILABLE, REASON)
    x, method = _base.check_jacobian_input(f, (x,), JACOBIAN_METHODS, method)
    _refuse(f, x.size)
    ft = translate(f, NUMPY)
    UTPM = algopy.UTPM

    def objective():
        return ft(x)

    with _base.missing_is_unsupported(NAME, NUMPY):
        shape = tuple(np.shape(objective())) + x.shape
    return _base.Prepared(
        objective, lambda: UTPM.extract_jacobian(ft(UTPM.init_jacobian(x))),
        lambda J: _base.jacobian_form(np.reshape(J, shape), shape))


NESTED_REASON = ("AlgoPy's UTPM forward mode has no nesting of its own gradients "
                 "(a second level would need a Taylor polynomial of polynomials)")
