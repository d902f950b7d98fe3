"""PyTorch's reverse mode (``torch.autograd.grad``) behind the engines' ``gradient``.

The problem runs as written, its numpy global swapped (:mod:`adapters.ad._translate`) for a
small namespace of torch functions with numpy's names and semantics. Inputs are float64
tensors sharing the arrays' memory (``torch.from_numpy``); each gradient call makes fresh
leaves, runs the function and calls ``torch.autograd.grad``, which is what a torch user
pays per gradient. Python floats become 0-d tensors, their gradients Python floats again.

Circuit gradients (``prepare_gradient``, docs/architecture.md "Adapters") differentiate the
circuit written in torch itself (:mod:`adapters.ad._torch_gradients`) with ``backward``.

Importing this adapter sets ``torch.set_num_threads(1)``, for the whole process: the
benchmarks compare engines on one thread.
"""

import functools
import math
import types

from kernels.ad.backend import Cost, constant

from .. import _gradients
from .._guard import guarded_import
from . import _base
from ._translate import translate

NAME = "torch"
PACKAGE = "torch"
#: The cost model's facts (kernels.ad.backend.Cost): 200 evaluations of f a gradient on
#: element loops, 30 vectorised; torch.func.jacrev maps its pullback over the rows (0.2-0.6
#: a row on ba and ht); torch.func.grad nested 170x the hand-written procedure on saddle,
#: 7000x on kmeans_dir.
COST = Cost(loop=constant(200.0), vector=constant(30.0), jacobian_row=0.6,
            nested=lambda N: 200.0 * N)

torch, AVAILABLE, REASON = guarded_import("torch")

if AVAILABLE:
    torch.set_num_threads(1)


def sync():
    """Torch on the CPU is synchronous; present for the common adapter interface."""


def _tensor(x):
    return x if isinstance(x, torch.Tensor) else torch.as_tensor(x, dtype=torch.float64)


def _elementwise(fn):
    # numpy accepts Python numbers (np.sqrt(2.0) in a problem); torch functions do not
    def call(x):
        return fn(_tensor(x))
    call.__name__ = fn.__name__
    return call


def _dot(a, b):
    a, b = _tensor(a), _tensor(b)
    if a.dim() == 0 or b.dim() == 0:
        return a * b
    if a.dim() > 2 or b.dim() > 2:
        raise NotImplementedError(
            f"numpy.dot of {a.dim()}-D and {b.dim()}-D arrays has no torch counterpart here "
            "(torch.matmul broadcasts where numpy.dot sums over the last axes)")
    return torch.matmul(a, b)  # numpy.dot for 1-D and 2-D operands


def _reduction(fn):
    def call(x, axis=None, keepdims=False):
        x = _tensor(x)
        return fn(x) if axis is None else fn(x, dim=axis, keepdim=keepdims)
    call.__name__ = fn.__name__
    return call


def _transpose(x, axes=None):
    x = _tensor(x)
    return x.permute(*(axes if axes is not None else reversed(range(x.dim()))))


def _extremum(fn):
    # numpy's max/min reduce over every axis by default; torch.amax takes dims (its
    # gradient splits evenly between ties, numpy's rules too)
    def call(x, axis=None, keepdims=False):
        x = _tensor(x)
        dims = tuple(range(x.dim())) if axis is None else axis
        return fn(x, dim=dims, keepdim=keepdims)
    call.__name__ = fn.__name__
    return call


def _joiner(fn):
    def call(arrays, axis=0):
        return fn([_tensor(a) for a in arrays], dim=axis)
    call.__name__ = fn.__name__
    return call


def _array(nested):
    """numpy.array of (nested lists of) tensors and numbers: stacked."""
    if isinstance(nested, (list, tuple)):
        return torch.stack([_array(item) for item in nested])
    return _tensor(nested)


def _cross(a, b):
    return torch.linalg.cross(_tensor(a), _tensor(b), dim=-1)  # numpy's default axis


def _arange(*args):
    # numpy's arange is integral for integer arguments, float64 otherwise (torch's
    # default float is float32)
    floating = any(isinstance(a, float) for a in args)
    return torch.arange(*args, dtype=torch.float64 if floating else torch.int64)


def _namespace():
    """Torch functions under the numpy names the problems use (a module, so an attribute
    it lacks raises AttributeError naming it, and it can key a cache)."""
    ns = types.ModuleType("adapters.ad.torch_ad.numpy", "numpy's names for torch functions")
    unary = {"sin": torch.sin, "cos": torch.cos, "tan": torch.tan, "arctan": torch.atan,
             "sinh": torch.sinh, "cosh": torch.cosh, "tanh": torch.tanh, "exp": torch.exp,
             "expm1": torch.expm1, "log": torch.log, "log1p": torch.log1p,
             "sqrt": torch.sqrt, "square": torch.square, "reciprocal": torch.reciprocal,
             "abs": torch.abs, "absolute": torch.abs, "negative": torch.neg,
             "positive": torch.positive, "sign": torch.sign}
    for name, fn in unary.items():
        setattr(ns, name, _elementwise(fn))
    ns.sum, ns.mean = _reduction(torch.sum), _reduction(torch.mean)
    ns.add, ns.subtract, ns.multiply = torch.add, torch.sub, torch.mul
    ns.divide = ns.true_divide = torch.div
    ns.power = torch.pow
    ns.dot, ns.matmul, ns.outer = _dot, torch.matmul, torch.outer
    ns.trace, ns.transpose, ns.reshape = torch.trace, _transpose, torch.reshape
    ns.max = ns.amax = _extremum(torch.amax)
    ns.min = ns.amin = _extremum(torch.amin)
    ns.concatenate, ns.stack = _joiner(torch.cat), _joiner(torch.stack)
    ns.expand_dims = torch.unsqueeze
    ns.zeros = functools.partial(torch.zeros, dtype=torch.float64)
    ns.linspace = functools.partial(torch.linspace, dtype=torch.float64)
    ns.arange = _arange
    ns.array, ns.cross, ns.ravel, ns.einsum = _array, _cross, torch.ravel, torch.einsum
    ns.eye = functools.partial(torch.eye, dtype=torch.float64)
    ns.pi, ns.e = math.pi, math.e
    return ns


NUMPY = _namespace() if AVAILABLE else None


def prepare(f, *args):
    """:class:`~adapters.ad._base.Prepared` for ``f(*args)`` on torch."""
    _base.require(NAME, AVAILABLE, REASON)
    inputs = _base.check_inputs(f, args)
    ft = translate(f, NUMPY, torch.from_numpy)  # bound data: tensors sharing its memory
    # from_numpy shares memory and warns about a read-only array (torch could write it)
    tensors = tuple(torch.from_numpy(a if a.flags.writeable else a.copy())
                    for a in inputs.arrays)

    def objective():
        return ft(*tensors)

    def gradient():
        leaves = [t.detach().requires_grad_() for t in tensors]
        # materialize_grads: zeros for an argument f does not use, as the contract wants
        return torch.autograd.grad(ft(*leaves), leaves, materialize_grads=True)

    with _base.missing_is_unsupported(NAME, NUMPY):
        objective()
    return _base.Prepared(
        objective, gradient,
        lambda grads: _base.contract_form([g.numpy() for g in grads], inputs))


gradient = _base.gradient_function(prepare, NAME)

#: torch.func's Jacobians: reverse mode (a vmapped vector-Jacobian product per row), then
#: forward mode (a vmapped Jacobian-vector product per column)
JACOBIAN_METHODS = ("jacrev", "jacfwd")


def prepare_jacobian(f, x, method=None):
    """:class:`~adapters.ad._base.Prepared` for the Jacobian of ``f`` at the array ``x``
    by ``torch.func.jacrev`` (default) or ``jacfwd``."""
    _base.require(NAME, AVAILABLE, REASON)
    x, method = _base.check_jacobian_input(f, (x,), JACOBIAN_METHODS, method)
    ft = translate(f, NUMPY, torch.from_numpy)
    t = torch.from_numpy(x if x.flags.writeable else x.copy())
    jacobian = getattr(torch.func, method)(ft)

    def objective():
        return ft(t)

    with _base.missing_is_unsupported(NAME, NUMPY):
        shape = tuple(objective().shape) + x.shape
    return _base.Prepared(objective, lambda: jacobian(t),
                               lambda J: _base.jacobian_form(J.detach().numpy(), shape))


def nested_gradient(g, *args):
    """``torch.func.grad`` of ``g`` in every argument: the gradient the nested evals call
    at both levels (torch.func's transforms nest; ``torch.autograd.grad`` would need
    create_graph and leaves)."""
    return tuple(torch.func.grad(g, argnums=tuple(range(len(args))))(*args))


NESTED_GRADIENT = nested_gradient if AVAILABLE else None


def as_array(a):
    return torch.as_tensor(a, dtype=torch.float64)


# --- circuit gradients (docs/architecture.md, "Adapters"): in _torch_gradients --------

GRADIENT_METHODS = ("backprop",)


def _require():
    _base.require(NAME, AVAILABLE, REASON)


prepare_gradient, prepare_energy, circuit_gradient = _gradients.delegated(
    NAME, GRADIENT_METHODS, _require, __name__, "._torch_gradients")
