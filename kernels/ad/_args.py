"""The argument check forward and source mode share: what the engines' contract accepts."""

import numpy as np


def check_arguments(args, engine, traced=()):
    """TypeError naming the first argument that is not a real float, an int or a float
    array (``traced``: the engine's own value types, accepted as they are)."""
    for i, a in enumerate(args):
        if isinstance(a, traced) or isinstance(a, np.ndarray) and a.dtype.kind == "f":
            continue
        if isinstance(a, (float, int, np.floating, np.integer)) and not isinstance(
                a, (bool, np.bool_)):
            continue
        what = f"an array of dtype {a.dtype}" if isinstance(a, np.ndarray) else type(a).__name__
        raise TypeError(f"argument {i} is {what}; {engine} differentiates real floats and "
                        f"float arrays only")
