"""The one argument check of the four engines: what ``gradient(f, *args)`` differentiates.

Each argument is a real float (a Python float or int, a numpy floating or integer scalar)
or a float ndarray. Everything else is refused with a TypeError naming the argument: a bool
(a truth value is no point to differentiate at), a complex number or array (the contract's
arguments are real), an integer or bool array (JAX refuses those too: its gradient would
be taken on a grid that does not move; convert with ``.astype(float)``), a list (make it an
array), and any other object.
"""

import numpy as np

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
