"""JAX with ``jax.jit``: the objective and ``jax.grad`` of it compiled separately by XLA,
behind the engines' ``gradient``.

Setup (x64, single-threaded XLA flags, translation to ``jax.numpy``) is
:mod:`adapters.ad.jax_ad`'s, with the same process-wide effects. :func:`prepare` traces,
compiles and runs both functions once (so no timed call compiles) and records the time
spent tracing and compiling in ``compile_seconds``.

Tracing runs the Python function once and records every operation, so a Python loop over
the elements of an array is unrolled: one set of XLA operations per element. XLA's
compile time grows faster than the program: measured for the Ackley element loop on this
project's machine (jax 0.10.2, CPU), the objective's trace had 7 equations per element,
and compiling its gradient took 1.0 s at 100 elements (710 equations), 3.4 s at 300
(2110) and 23 s at 1000 (7010). :func:`prepare` therefore refuses, with
NotImplementedError, an objective whose trace has more than :data:`MAX_EQUATIONS`
equations (about 350 loop elements); vectorised code stays far below it at any size.

Circuit gradients (``prepare_gradient``, docs/architecture.md "Adapters") compile
``jax.grad`` of the circuit written in jax.numpy (:mod:`adapters.ad._jax_gradients`, its
repeated layers under ``jax.lax.scan`` to keep the compile time down).
"""

import time

from kernels.ad.backend import Cost, constant

from .. import _gradients
from . import _base
from ._translate import translate

# sync is this adapter's too: the same JAX runtime
from .jax_ad import AVAILABLE, NUMPY, REASON, jax, sync, to_device  # noqa: F401

NAME = "jax-jit"
PACKAGE = "jax"
#: The cost model's facts (kernels.ad.backend.Cost): compiled, about 20 evaluations of f;
#: jax.jit traces and compiles in 0.1-0.5 s for vectorised code, and tracing unrolls an
#: element loop (~3000 steady gradients: 0.2 s for Ackley at n = 16).
COST = Cost(loop=constant(20.0), vector=constant(20.0), first_call=(0.1, 3000.0))
COMPILES = True

#: The most equations the objective's trace may have; see the module docstring.
MAX_EQUATIONS = 2500

_JITTED = {}


def _jitted(ft, nargs):
    """The jitted objective and gradient of ``ft``, kept so that preparing the same problem
    again reuses JAX's compiled code (a new ``jax.grad`` wrapper would not)."""
    key = (ft, nargs)
    if key not in _JITTED:
        _JITTED[key] = (jax.jit(ft), jax.jit(jax.grad(ft, argnums=tuple(range(nargs)))))
    return _JITTED[key]


def _refuse_long_traces(ft, xs):
    equations = len(jax.make_jaxpr(ft)(*xs).eqns)
    if equations > MAX_EQUATIONS:
        raise NotImplementedError(
            f"jax.jit would compile {equations} traced operations (a Python loop over "
            f"elements, unrolled by tracing); above MAX_EQUATIONS = {MAX_EQUATIONS}, XLA's "
            "compile time runs to minutes")


def prepare(f, *args):
    """:class:`~adapters.ad._base.Prepared` for ``f(*args)`` under ``jax.jit``."""
    _base.require(NAME, AVAILABLE, REASON)
    inputs = _base.check_inputs(f, args)
    ft = translate(f, NUMPY)
    xs = to_device(inputs)
    with _base.missing_is_unsupported(NAME, NUMPY):
        _refuse_long_traces(ft, xs)
    fj, gj = _jitted(ft, len(xs))
    start = time.perf_counter()
    fj.lower(*xs).compile()
    gj.lower(*xs).compile()
    compile_seconds = time.perf_counter() - start

    def objective():
        return jax.block_until_ready(fj(*xs))

    def gradient():
        return jax.block_until_ready(gj(*xs))

    objective(), gradient()  # the jitted calls find the compiled code: warm-up only
    return _base.Prepared(objective, gradient,
                               lambda grads: _base.contract_form(grads, inputs),
                               compile_seconds)


gradient = _base.gradient_function(prepare, NAME)

JACOBIAN_METHODS = ("jacrev", "jacfwd")


def prepare_jacobian(f, x, method=None):
    """:class:`~adapters.ad._base.Prepared` for the Jacobian of ``f`` at the array ``x``:
    ``jax.jit`` of ``jax.jacrev`` (default) or ``jax.jacfwd``, compiled here."""
    _base.require(NAME, AVAILABLE, REASON)
    x, method = _base.check_jacobian_input(f, (x,), JACOBIAN_METHODS, method)
    ft = translate(f, NUMPY)
    xj = jax.numpy.asarray(x)
    with _base.missing_is_unsupported(NAME, NUMPY):
        _refuse_long_traces(ft, (xj,))
    fj, jj = jax.jit(ft), jax.jit(getattr(jax, method)(ft))
    start = time.perf_counter()
    fj.lower(xj).compile()
    jj.lower(xj).compile()
    compile_seconds = time.perf_counter() - start

    def objective():
        return jax.block_until_ready(fj(xj))

    def jacobian():
        return jax.block_until_ready(jj(xj))

    shape = tuple(objective().shape) + x.shape
    jacobian()
    return _base.Prepared(objective, jacobian,
                               lambda J: _base.jacobian_form(J, shape), compile_seconds)


#: the nested evals' descents branch on values at every step: jax.jit would need them
#: written with lax.while_loop and lax.cond, another program than the one every tool runs
NESTED_REASON = ("jax.jit traces the nested evals' descents, which branch on values "
                 "(jax.jit needs lax.while_loop and lax.cond there); eager jax runs them")


# --- circuit gradients (docs/architecture.md, "Adapters"): in _jax_gradients ----------

GRADIENT_METHODS = ("jit",)


def _require():
    _base.require(NAME, AVAILABLE, REASON)


prepare_gradient, prepare_energy, circuit_gradient = _gradients.delegated(
    NAME, GRADIENT_METHODS, _require, __name__, "._jax_gradients")
