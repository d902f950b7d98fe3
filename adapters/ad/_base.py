"""What every AD adapter shares: input checks, the prepared-call object, the contract form
of a gradient, and turning "the tool has no such function" into NotImplementedError.

An AD adapter module offers::

    NAME, AVAILABLE, REASON
    gradient(f, *args) -> tuple          # the engines' contract form
    prepare(f, *args) -> Prepared        # all one-off work, outside any timed region
    sync() -> None

and, where the tool computes Jacobians, ``JACOBIAN_METHODS`` (its functions' names, the
default first: ``("jacrev", "jacfwd")``) and ``prepare_jacobian(f, x, method=None) ->
Prepared`` for an array-valued ``f`` of one float array, whose ``to_numpy`` gives ``(J,)``
with J of shape ``f(x).shape + x.shape``.
"""

import contextlib
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from kernels.ad.backend import UNKNOWN_COST, ADBackend, Cost


@dataclass(frozen=True)
class Prepared:
    """One problem made ready for one tool: the calls a timing loop makes.

    ``objective()`` and ``gradient()`` return the tool's own values, finished (synchronised)
    before they return; ``to_numpy(native)`` turns ``gradient()``'s value into the contract
    form. ``compile_seconds`` is the wall time ``prepare`` spent tracing and compiling (0.0
    for a tool that runs eagerly).
    """
    objective: Callable[[], Any]
    gradient: Callable[[], Any]
    to_numpy: Callable[[Any], tuple]
    compile_seconds: float = 0.0


@dataclass(frozen=True)
class Inputs:
    """The positional arguments, checked: ``arrays`` are float64 ndarrays (0-d for a
    scalar argument) and ``scalar[i]`` says argument ``i`` was a Python (or numpy) real
    scalar, whose gradient the contract gives as a Python float."""
    arrays: tuple
    scalar: tuple

    def as_given(self):
        """The arguments as a numpy user passes them: floats for scalars."""
        return tuple(float(a) if s else a for a, s in zip(self.arrays, self.scalar))


def check_inputs(f, args):
    """:class:`Inputs` for ``f(*args)``; TypeError naming the first bad argument."""
    if not callable(f):
        raise TypeError(f"f must be callable, got {type(f).__name__}")
    if not args:
        raise TypeError("gradient needs at least one argument to differentiate with respect to")
    arrays, scalar = [], []
    for i, arg in enumerate(args):
        if isinstance(arg, numbers.Real) and not isinstance(arg, (bool, np.bool_)):
            arrays.append(np.asarray(float(arg)))
            scalar.append(True)
        elif isinstance(arg, np.ndarray) and arg.dtype.kind in "fiu":
            arrays.append(np.ascontiguousarray(arg, dtype=np.float64))
            scalar.append(False)
        else:
            what = f"{arg.dtype} array" if isinstance(arg, np.ndarray) else type(arg).__name__
            raise TypeError(f"argument {i} must be a real number or an ndarray of real "
                            f"numbers, got {what}")
    return Inputs(tuple(arrays), tuple(scalar))


def check_jacobian_input(f, args, methods, method):
    """The one float array a Jacobian is taken at (as :func:`check_inputs` checks it), and
    the method (``methods[0]`` for None); TypeError or ValueError naming what is wrong."""
    inputs = check_inputs(f, args)
    if len(args) != 1 or inputs.scalar[0]:
        raise TypeError(f"a Jacobian is taken at one float array, got {len(args)} "
                        "argument(s)" + ("" if len(args) != 1 else " (a scalar)"))
    method = methods[0] if method is None else method
    if method not in methods:
        raise ValueError(f"unknown Jacobian method {method!r}; this tool has {methods}")
    return inputs.arrays[0], method


def jacobian_form(J, shape):
    """``(J,)`` as a new float64 array of ``shape`` (the contract's Jacobian)."""
    J = np.array(J, dtype=np.float64)
    if J.shape != shape:
        raise ValueError(f"Jacobian of shape {J.shape}, expected {shape}")
    return (J,)


def contract_form(grads, inputs):
    """Per-argument gradients (anything ``np.asarray`` reads) in the contract form: a
    float for a scalar argument, else a new float64 ndarray of the argument's shape."""
    grads = tuple(grads)
    if len(grads) != len(inputs.arrays):
        raise ValueError(f"{len(grads)} gradients for {len(inputs.arrays)} arguments")
    out = []
    for i, (g, like, is_scalar) in enumerate(zip(grads, inputs.arrays, inputs.scalar)):
        g = np.array(g, dtype=np.float64)
        if g.shape != like.shape:
            raise ValueError(f"gradient {i} has shape {g.shape}, argument {i} has {like.shape}")
        out.append(float(g) if is_scalar else g)
    return tuple(out)


def gradient_function(prepare, tool):
    """The module-level ``gradient(f, *args)`` of an adapter whose ``prepare`` is given."""
    def gradient(f, *args):
        prepared = prepare(f, *args)
        return prepared.to_numpy(prepared.gradient())
    gradient.__doc__ = (f"The gradient of ``f`` at ``args`` by {tool}, in the engines' "
                        "contract form: one entry per argument, a float for a float.")
    return gradient


def require(name, available, reason):
    if not available:
        raise RuntimeError(f"the {name} adapter is unavailable: {reason}")


@contextlib.contextmanager
def missing_is_unsupported(tool, namespace):
    """Inside: an attribute missing from ``namespace`` (the tool's stand-in for numpy)
    becomes NotImplementedError naming the numpy function the tool lacks, so a benchmark
    skips the case instead of failing."""
    try:
        yield
    except AttributeError as exc:
        if exc.obj is not namespace:
            raise
        raise NotImplementedError(
            f"{tool} has no counterpart of numpy.{exc.name}, which the function "
            "calls") from exc


def declaration(module, role="peer"):
    """The :class:`kernels.ad.backend.ADBackend` of the AD adapter or plugin ``module``,
    from its module interface: ``NAME`` and the facts ``COST`` (the cost model's, default
    an eager tool's), ``COMPILES`` (its preparation compiles), ``EXACT`` (False for a
    tool whose derivatives carry truncation error, such as finite differences: validated
    to a looser tolerance) and ``PACKAGE`` (the distribution whose version a result names;
    default NAME)."""
    cost = getattr(module, "COST", UNKNOWN_COST)
    if not isinstance(cost, Cost):
        raise TypeError(f"COST must be a kernels.ad.backend.Cost, got {type(cost).__name__}")
    return ADBackend(name=module.NAME, role=role, cost=cost,
                     compiles=bool(getattr(module, "COMPILES", False)),
                     exact=bool(getattr(module, "EXACT", True)),
                     package=getattr(module, "PACKAGE", None) or module.NAME)
