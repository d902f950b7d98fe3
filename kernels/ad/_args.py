"""The one argument check of the four engines: what ``gradient(f, *args)`` differentiates.

Each argument is a real float (a Python float or int, a numpy floating or integer scalar)
or a float ndarray. Everything else is refused with a TypeError naming the argument: a bool
(a truth value is no point to differentiate at), a complex number or array (the contract's
arguments are real), an integer or bool array (JAX refuses those too: its gradient would
be taken on a grid that does not move; convert with ``.astype(float)``), a list (make it an
array), and any other object.
"""

import numpy as np

from ._arrays import Traced
from .errors import NestingError

_SCALARS = (float, int, np.floating, np.integer)


def check_argument(i, a, engine):
    """``a`` as the engine differentiates it (a float for a scalar, the array itself for a
    float array); TypeError naming argument ``i`` for anything else."""
    if type(a) is float:  # the common scalar, first
        return a
    if isinstance(a, np.ndarray):
        if a.dtype.kind == "f":
            return a
        hint = " (convert with .astype(float))" if a.dtype.kind in "iub" else ""
        raise TypeError(f"argument {i} is an array of dtype {a.dtype}; {engine} "
                        f"differentiates real floats and float arrays only{hint}")
    if isinstance(a, _SCALARS) and not isinstance(a, (bool, np.bool_)):
        return float(a)
    if isinstance(a, Traced):  # a value of an enclosing differentiation
        raise NestingError(nesting_refused(engine, a))
    what = "a list (make it an array)" if isinstance(a, (list, tuple)) else \
        f"a {type(a).__name__}"
    raise TypeError(f"argument {i} is {what}; {engine} differentiates real floats and float "
                    f"arrays only")


def check_arguments(args, engine, traced=()):
    """Check every argument (``traced``: the engine's own value types, accepted as they are,
    for nested differentiation)."""
    for i, a in enumerate(args):
        if not (traced and isinstance(a, traced)):
            check_argument(i, a, engine)


def check_jacobian_input(x, engine, traced=()):
    """``x`` for ``jacobian(f, x)``: a float ndarray of at least one dimension (any shape),
    or one of the engine's own traced values (``traced``, nested differentiation);
    TypeError or ValueError naming what it is otherwise."""
    if traced and isinstance(x, traced):
        return x
    if isinstance(x, Traced):  # a value of an enclosing differentiation
        raise NestingError(nesting_refused(engine, x))
    if not isinstance(x, np.ndarray):
        raise TypeError(f"jacobian takes a float array x; got a {type(x).__name__} "
                        f"({engine}; for a float use derivative, or np.array([x]))")
    check_argument(0, x, engine)  # the dtype, with the same words as gradient
    if x.ndim == 0:
        raise ValueError(f"jacobian takes an array x of at least one dimension; got a 0-d "
                         f"array ({engine}; use derivative, or x.reshape(1))")
    return x


def check_jacobian_output(value, engine):
    """The plain value ``f`` returned to ``jacobian``, as a real float array; TypeError
    naming it when it is not a real number or array (a complex result, a list, None)."""
    if isinstance(value, np.ndarray):
        kind = value.dtype.kind
    elif isinstance(value, Traced):  # another engine's value: f closed over an outer one
        raise NestingError(nesting_refused(engine, value))
    elif isinstance(value, (bool, np.bool_)):
        kind = "b"
    elif isinstance(value, _SCALARS):
        kind = "f"
    elif isinstance(value, (complex, np.complexfloating)):
        kind = "c"
    else:
        raise TypeError(f"jacobian needs f to return a real float array; f returned a "
                        f"{type(value).__name__} ({engine}; make it an array with np.array or "
                        f"np.stack)")
    if kind == "c":
        raise TypeError(f"jacobian needs a real-valued f; f returned a complex value "
                        f"({engine}; take np.real, np.abs or np.abs(...) ** 2 of it)")
    if kind not in "fiu":
        raise TypeError(f"jacobian needs f to return a real float array; f returned "
                        f"{'a bool' if kind == 'b' else 'an array of dtype ' + str(value.dtype)}"
                        f" ({engine})")
    return np.asarray(value, dtype=float)


def jacobian_seed(shape, i):
    """The cotangent that pulls back the output element ``i`` (flat index) of an output of
    ``shape``: one-hot (1.0 for a scalar output)."""
    if shape == ():
        return 1.0
    g = np.zeros(shape)
    g.flat[i] = 1.0
    return g


def nesting_refused(engine, outer):
    """The message of an engine refusing to differentiate a traced value ``outer`` of an
    enclosing differentiation (an engine nested in one it does not support)."""
    return (f"{engine} got {outer._AD_NAME} of an enclosing {outer._AD_ENGINE} "
            f"differentiation: nesting {engine} inside {outer._AD_ENGINE} is not supported "
            f"(supported: forward mode over forward, reverse and the source engine's "
            f"gradient: forward.hessian, reverse.hessian, source.hessian)")
