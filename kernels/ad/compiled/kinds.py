"""What numba made of each value: read off the typed objective, so that the adjoint knows
which values are floats, which are arrays of how many dimensions, and which carry no
derivative at all (ints, booleans, tuples of a shape)."""

from typing import NamedTuple

import numba
import numpy as np
from numba.core import types


class Kind(NamedTuple):
    """``category``: "float", "int", "bool", "complex", "array", "list" or "other"; for an
    array, its ``dtype`` (numpy's name) and ``ndim``; for a list, its elements' (``ndim``
    0: numbers of that ``dtype``)."""

    category: str
    dtype: str = ""
    ndim: int = 0

    @property
    def item(self):
        """A list's elements' kind."""
        if self.ndim:
            return Kind("array", self.dtype, self.ndim)
        return of(numba.from_dtype(np.dtype(self.dtype)))

    def __str__(self):
        if self.category == "array":
            return f"a {self.ndim}-D {self.dtype} array"
        if self.category == "list":
            return f"a list of {str(self.item)[2:]}s"
        return f"a {self.category}"


def of(numba_type):
    if isinstance(numba_type, types.Boolean):
        return Kind("bool")
    if isinstance(numba_type, types.Integer):
        return Kind("int")
    if isinstance(numba_type, types.Float):
        return Kind("float")
    if isinstance(numba_type, types.Complex):
        return Kind("complex")
    if isinstance(numba_type, types.Array):
        return Kind("array", str(numba_type.dtype), numba_type.ndim)
    if isinstance(numba_type, types.List):
        item = of(numba_type.dtype)
        if item.category == "array":
            return Kind("list", item.dtype, item.ndim)
        if item.category in ("float", "int", "bool"):
            return Kind("list", str(numba_type.dtype))
    return Kind("other", str(numba_type))


def _join(a, b):
    if a == b:
        return a
    pair = {a.category, b.category}
    if pair <= {"int", "float", "bool"}:
        return Kind("float") if "float" in pair else Kind("int")
    if a.category == b.category == "array" and a.ndim == b.ndim:
        return Kind("array", "float64" if "float64" in (a.dtype, b.dtype) else a.dtype, a.ndim)
    return None


def typemap(dispatcher):
    """name -> :class:`Kind` for every variable of the dispatcher's compiled signatures
    (a recursive function's may be several); a name numba renamed (``s.1``, ``s.2``: a
    value assigned on several paths) gets the join of its versions."""
    found = {}
    pairs = [pair for signature in dispatcher.signatures for pair in
             dispatcher.overloads[signature].type_annotation.typemap.items()]
    for name, numba_type in pairs:
        if name.startswith("$") or name.startswith("arg."):
            continue
        base = name.split(".")[0]
        kind = of(numba_type)
        if base in found:
            joined = _join(found[base], kind)
            found[base] = joined if joined is not None else Kind("other", "mixed")
        else:
            found[base] = kind
    return found
