"""JAX's ``jax.grad`` run eagerly (op by op, no ``jax.jit``) behind the engines' ``gradient``;
:mod:`adapters.ad.jax_jit_ad` is the compiled counterpart and shares this module's setup.

Process-wide effects of importing this adapter, for like-for-like comparisons:

* ``jax_enable_x64`` is switched on (``jax.config.update``), so arrays are float64 as in
  every other engine; this changes the default dtype of all JAX code in the process.
* If JAX has not been imported yet, ``XLA_FLAGS`` gets ``--xla_cpu_multi_thread_eigen=false
  intra_op_parallelism_threads=1`` (the usual incantation for single-threaded XLA on the
  CPU; XLA reads it once, at JAX's import). If JAX was imported first, the flags cannot
  take effect any more, and :data:`SINGLE_THREADED` is False (REASON says so).

The problem runs as written with its numpy global swapped (:mod:`adapters.ad._translate`) for
``jax.numpy``. Inputs become JAX arrays in :func:`prepare` (Python floats 0-d float64
arrays); ``objective()`` and ``gradient()`` block until their results are ready.
"""

import os
import sys

from kernels.ad.backend import Cost, constant

from .._guard import guarded_import
from . import _base
from ._translate import translate

NAME = "jax"
PACKAGE = "jax"
#: The cost model's facts (kernels.ad.backend.Cost): eager jax.grad dispatches every
#: primitive separately (5000-11500 evaluations of f on loops) and compiles each primitive
#: it meets once per process (0.3-0.9 s; 15-35 steady gradients on the Ackley loop).
COST = Cost(loop=constant(12000.0), vector=constant(1000.0), nested=lambda N: 2000.0 * N,
            first_call=(0.5, 40.0))

_XLA_SINGLE_THREAD = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"

SINGLE_THREADED = "jax" not in sys.modules
if SINGLE_THREADED:
    os.environ["XLA_FLAGS"] = " ".join(
        filter(None, [os.environ.get("XLA_FLAGS"), _XLA_SINGLE_THREAD]))

jax, AVAILABLE, REASON = guarded_import("jax", "numpy")
NUMPY = jax.numpy if AVAILABLE else None
if AVAILABLE:
    jax.config.update("jax_enable_x64", True)
    if not SINGLE_THREADED:
        REASON += " (imported before this adapter: XLA may use several threads)"


def sync():
    """Wait for every array JAX is still computing."""
    if AVAILABLE:
        jax.effects_barrier()
        jax.block_until_ready(jax.live_arrays())


def to_device(inputs):
    """The checked inputs as JAX arrays (float64: x64 is on)."""
    return tuple(jax.numpy.asarray(a) for a in inputs.arrays)


def prepare(f, *args):
    """:class:`~adapters.ad._base.Prepared` for ``f(*args)`` with eager ``jax.grad``."""
    _base.require(NAME, AVAILABLE, REASON)
    inputs = _base.check_inputs(f, args)
    ft = translate(f, NUMPY)
    xs = to_device(inputs)
    grad = jax.grad(ft, argnums=tuple(range(len(xs))))

    def objective():
        return jax.block_until_ready(ft(*xs))

    def gradient():
        return jax.block_until_ready(grad(*xs))

    with _base.missing_is_unsupported(NAME, NUMPY):
        objective()
    return _base.Prepared(objective, gradient,
                               lambda grads: _base.contract_form(grads, inputs))


gradient = _base.gradient_function(prepare, NAME)

#: JAX's Jacobians: reverse mode (vmapped VJPs), then forward mode (vmapped JVPs)
JACOBIAN_METHODS = ("jacrev", "jacfwd")


def prepare_jacobian(f, x, method=None):
    """:class:`~adapters.ad._base.Prepared` for the Jacobian of ``f`` at the array ``x``
    by eager ``jax.jacrev`` (default) or ``jax.jacfwd``."""
    _base.require(NAME, AVAILABLE, REASON)
    x, method = _base.check_jacobian_input(f, (x,), JACOBIAN_METHODS, method)
    ft = translate(f, NUMPY)
    xj = jax.numpy.asarray(x)
    jacobian = getattr(jax, method)(ft)

    def objective():
        return jax.block_until_ready(ft(xj))

    with _base.missing_is_unsupported(NAME, NUMPY):
        shape = tuple(objective().shape) + x.shape
    return _base.Prepared(objective, lambda: jax.block_until_ready(jacobian(xj)),
                               lambda J: _base.jacobian_form(J, shape))


def nested_gradient(g, *args):
    """``jax.grad`` of ``g`` in every argument: the gradient the nested evals call at both
    levels (it composes with itself: forward and reverse levels kept apart by JAX)."""
    return tuple(jax.grad(g, argnums=tuple(range(len(args))))(*args))


NESTED_GRADIENT = nested_gradient if AVAILABLE else None


def as_array(a):
    """An argument as this tool's array (float64: x64 is on)."""
    return jax.numpy.asarray(a, dtype=jax.numpy.float64)
