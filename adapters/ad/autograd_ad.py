"""HIPS autograd's reverse mode behind the engines' ``gradient``.

The problem runs as written with its numpy global swapped (:mod:`adapters.ad._translate`) for
``autograd.numpy``, as an autograd user writes ``import autograd.numpy as np``. One
``autograd.grad(f, argnum=(0, ..., k-1))`` differentiates all k arguments in a single
forward and backward pass (one ``grad`` per argument would run the function k times); a
function of one argument gets the plain ``autograd.grad(f)``, as its users call it, which
is up to 10% faster than the tuple form (measured on Ackley, n = 1600).
Python floats stay Python floats, as a user passes them.
"""

from kernels.ad.backend import Cost, constant

from .._guard import guarded_import
from . import _base
from ._translate import translate

NAME = "autograd"
PACKAGE = "autograd"
#: The cost model's facts (kernels.ad.backend.Cost): measured 230 (n = 16) to 1020
#: (n = 1600 and 16000) evaluations of f on the Ackley loop; a sweep per Jacobian row
#: (2.6-8.5 a row); nested 38x on saddle.
COST = Cost(loop=constant(1200.0), vector=constant(100.0), jacobian_row=10.0,
            nested=lambda N: 50.0 * N)

autograd, AVAILABLE, REASON = guarded_import("autograd", "numpy")
NUMPY = autograd.numpy if AVAILABLE else None


def sync():
    """autograd runs synchronously on numpy; present for the common adapter interface."""


def prepare(f, *args):
    """:class:`~adapters.ad._base.Prepared` for ``f(*args)`` in autograd."""
    _base.require(NAME, AVAILABLE, REASON)
    inputs = _base.check_inputs(f, args)
    ft = translate(f, NUMPY)
    given = inputs.as_given()
    if len(given) == 1:
        grad_0 = autograd.grad(ft)

        def grad(x):
            return (grad_0(x),)
    else:
        grad = autograd.grad(ft, argnum=tuple(range(len(given))))

    def objective():
        return ft(*given)

    def gradient():
        return grad(*given)

    with _base.missing_is_unsupported(NAME, NUMPY):
        objective()
    return _base.Prepared(objective, gradient,
                               lambda grads: _base.contract_form(grads, inputs))


gradient = _base.gradient_function(prepare, NAME)

#: autograd.jacobian: reverse mode, one vector-Jacobian product per output element
JACOBIAN_METHODS = ("jacobian",)


def prepare_jacobian(f, x, method=None):
    """:class:`~adapters.ad._base.Prepared` for the Jacobian of ``f`` at the array ``x``
    by ``autograd.jacobian``."""
    _base.require(NAME, AVAILABLE, REASON)
    x, method = _base.check_jacobian_input(f, (x,), JACOBIAN_METHODS, method)
    ft = translate(f, NUMPY)
    jacobian = autograd.jacobian(ft)

    def objective():
        return ft(x)

    with _base.missing_is_unsupported(NAME, NUMPY):
        shape = tuple(objective().shape) + x.shape
    return _base.Prepared(objective, lambda: jacobian(x),
                               lambda J: _base.jacobian_form(J, shape))


def nested_gradient(g, *args):
    """``autograd.grad`` of ``g`` in every argument (autograd's boxes nest)."""
    if len(args) == 1:
        return (autograd.grad(g)(*args),)
    return tuple(autograd.grad(g, argnum=tuple(range(len(args))))(*args))


NESTED_GRADIENT = nested_gradient if AVAILABLE else None


def as_array(a):
    return NUMPY.asarray(a, dtype=float)
