"""The keywords numpy functions take besides their arguments (``out=``, ``where=``,
``dtype=``, ``initial=``, ``casting=``, ``order=``, ...), checked once for every engine
before a rule sees a call.

A rule names the ones its vjps and jvp differentiate (``Rule.keywords``: ``np.sum`` takes
``where`` and ``initial``); the others are dropped where they cannot change a value
(``dtype=float64`` of real values, ``casting="same_kind"``, ``subok``, ``order`` of an
elementwise function, which only lays out memory) and refused otherwise, with an error
naming the function and the keyword, never a TypeError from a rule's signature.
"""

import functools
import inspect

import numpy as np

from ._arrays import is_traced
from .errors import MissingRuleError

#: keyword -> why a rule that does not name it refuses it (a value that changes nothing
#: is dropped first, by :func:`_no_op`)
REASONS = {
    "out": "it writes the result into an existing array, which cannot hold a derivative; "
           "use the returned value",
    "where": "no rule differentiates where= here; mask with np.where(mask, x, fill) first",
    "dtype": "a cast to another dtype has no derivative rule here; convert with "
             ".astype(float) first",
    "initial": "no rule differentiates initial= here; combine the constant afterwards",
    "casting": "only the default casting='same_kind' is differentiated",
    "order": "the memory order changes which element goes where; only the default is "
             "differentiated",
    "signature": "a ufunc loop signature picks the dtypes; only the default is "
                 "differentiated",
}
#: the keywords of a generalised ufunc (np.matmul) that move its core axes
_CORE = {"axes": "axes= of a generalised ufunc has no derivative rule; move the axes first",
         "axis": "axis= of a generalised ufunc has no derivative rule; move the axis first",
         "keepdims": "keepdims= of a generalised ufunc has no derivative rule"}
#: why where= of a ufunc is refused: numpy leaves the unselected elements uninitialised
_UFUNC_WHERE = ("without out= numpy leaves the elements where the mask is False "
                "uninitialised; write np.where(mask, f(x), other)")


def _complex(values):
    return any(np.iscomplexobj(v) for v in values)


def _no_op(fn, key, value, values):
    """Whether ``key=value`` cannot change what ``fn(*values)`` computes."""
    if value is None or value is np._NoValue:
        return key != "where"  # a where=None mask is an error in numpy: not ours to drop
    if key == "dtype":
        want = np.dtype(value)
        return want == (np.complex128 if _complex(values) else np.float64)
    if key == "casting":
        return value == "same_kind"
    if key == "subok":
        return True  # subclasses only; engines see plain ndarrays
    if key == "where":
        return value is True
    if key == "order":
        # an elementwise function's order is a layout; a reshape's is the element order
        return isinstance(fn, np.ufunc) or value == "C"
    return False


@functools.cache
def _takes(fn, key):
    """Whether numpy's ``fn`` itself takes ``key=``: True, False (then numpy's own call
    raises its TypeError, as it would without an engine) or None for a function of
    ``**kwargs`` (np.pad, np.einsum), whose keywords are never dropped as no-ops."""
    if isinstance(fn, np.ufunc):
        return key != "initial"
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return None
    if key in params:
        return True
    return None if any(p.kind is p.VAR_KEYWORD for p in params.values()) else False


def _reason(fn, key):
    if isinstance(fn, np.ufunc):
        if fn.signature is not None and key in _CORE:
            return _CORE[key]
        if key == "where":
            return _UFUNC_WHERE
    return REASONS.get(key)


def checked(rule, fn, values, kwargs):
    """``kwargs`` with the no-op array keywords dropped (the same dict when nothing is
    dropped); MissingRuleError naming ``rule`` and the keyword for any it cannot
    differentiate, and for a traced value passed by keyword (rules differentiate
    positional arguments)."""
    out = kwargs
    for key, value in kwargs.items():
        if is_traced(value):
            raise MissingRuleError(f"{rule.name}(..., {key}=...): the keyword argument "
                                   f"{key}= carries a derivative, but rules differentiate "
                                   f"positional arguments; pass it positionally")
        if key in rule.keywords:
            continue
        reason = _reason(fn, key)
        if reason is None:
            continue
        takes = _takes(fn, key)
        if takes is False:
            continue  # numpy's own call raises its TypeError
        if not (takes and _no_op(fn, key, value, values)):
            raise MissingRuleError(f"{rule.name}(..., {key}=...) is not differentiable: "
                                   f"{reason}")
        if out is kwargs:
            out = dict(kwargs)
        del out[key]
    return out
