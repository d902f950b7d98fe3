"""In-place operators in reverse mode (kernels.ad.reverse): ``a += y`` rebinds ``a`` to a
new Variable, as numpy's update would be seen, wherever nothing else can still see the old
array.

Forward mode can count references to decide that (kernels.ad._arrays), but here the tape
holds every value an operation used (``u[:-2]`` keeps ``u``), so a count cannot tell the
tape from another name. What the tape holds is never read forwards again: it is only read
by the backward sweep, and no value is ever changed, so rebinding leaves the record
right. What must not happen is a *later forward use* of an array numpy would have changed:
another name for ``a`` (``b = a``), a view of it (``v = a[1:]``), or the array ``a`` views.
So instead of counting, each such use is refused when it happens:

* every Variable whose value is a view of another Variable's value, or that value itself
  (``a[1:]``, ``a.T``, ``np.asarray(a)``), joins that Variable's *family*, a list of weak
  references shared by all the Variables over one buffer (kernels.ad.reverse.variable._record);
* ``a op= y`` refuses at once if the buffer is a leaf's (an argument of ``f``: numpy would
  write into the caller's array) or an array that is no Variable's; otherwise it computes
  the new value, then *retires* the old ``a`` and every live member of its family: their
  class becomes the engine's RetiredVariable (:func:`make_retired`; no slot changes, so
  the backward sweep reads them as before), and any operation, comparison, conversion or
  ``backward`` of a retired Variable raises EscapeError naming the in-place update.
"""

import weakref

import numpy as np

from .. import _arrays, rules

_ENGINE = "reverse mode"
#: the engine's retired class (make_retired), once reverse mode has made it
RETIRED = [None]


def note_view(v, value, parents):
    """Put ``v`` (just recorded, with the ndarray ``value``) in the family of each parent
    whose value it may share, when it may share one (a view, or a parent's value itself)."""
    family = None
    owner = _owner(value)
    for _, p in parents:
        pv = p.value
        if type(pv) is np.ndarray and _owner(pv) is owner:
            theirs = getattr(p, "_family", None)
            if theirs is None:
                theirs = p._family = [weakref.ref(p)]
            if family is None:
                family = theirs
            elif theirs is not family:  # two parents over one buffer: one family
                family.extend(theirs)
                for ref in theirs:
                    m = ref()
                    if m is not None:
                        m._family = family
    if family is None:
        family = []  # a view of a constant: in-place on it is refused (no member owns it)
    family.append(weakref.ref(v))
    v._family = family


def _owner(a):
    """The object whose memory the ndarray ``a`` uses (numpy collapses chains of views to
    the owner; a base that is no ndarray, a buffer, is the owner itself)."""
    while type(a.base) is np.ndarray:
        a = a.base
    return a if a.base is None else a.base


def _members(v):
    family = getattr(v, "_family", None)
    if family is None:
        return [v]
    members = [m for m in (ref() for ref in family) if m is not None]
    return members if any(m is v for m in members) else members + [v]


def shared(self, other):
    """Why ``self op= other`` cannot rebind ``self`` (module docstring), or None."""
    if type(other) is RETIRED[0]:
        other._refuse()
    value = self.value
    if type(value) is not np.ndarray:
        return "whose value is itself traced (nested differentiation)"
    members = _members(self)
    if any(not m._node[1] for m in members):  # a leaf's node has no links
        return ("that is, or is a view of, an argument of f (numpy would write into the "
                "caller's array)")
    owner = _owner(value)
    if not any(m.value is owner for m in members):
        return "that is a view of an array no Variable owns (numpy would write into it)"
    return None


def retire(self):
    """After ``self op= y`` made the new value: the old Variable and everything over its
    buffer become RetiredVariables."""
    for m in _members(self):
        m.__class__ = RETIRED[0]


class Retired:
    """Stands in for the class of a Variable whose array an in-place operator changed
    (kernels.ad.reverse makes it a subclass of ArrayVariable): every use raises."""

    __slots__ = ()

    def _refuse(self, *args, **kwargs):
        raise _arrays.escape(
            "a Variable whose array an in-place operator changed (another name, a view of it "
            "or the array it views, used after the update)", _ENGINE,
            "numpy would see the new values through it, reverse mode rebinds only the name "
            "updated: after a += y use a, not another name or view of the old array")


def make_retired(array_variable):
    """The Retired class of the engine: ``array_variable``'s layout, every use refused
    (operators, numpy's protocols, indexing, iteration, conversions, comparisons, the
    array methods and attributes of the table, ``backward``)."""
    names = {"__array_ufunc__", "__array_function__", "__getitem__", "__iter__", "__bool__",
             "__float__", "__int__", "__index__", "__complex__", "__array__", "item",
             "tolist", "backward"}
    for table in (rules.BINARY_OPERATORS,):
        for name in table:
            names.update((f"__{name}__", f"__r{name}__", f"__i{name}__"))
    names.update(f"__{name}__" for name in rules.UNARY_OPERATORS)
    names.update(f"__{name}__" for name in rules.COMPARISONS)
    names.update(rules.METHODS)
    names.update(rules.ATTRIBUTES)
    namespace = {"__slots__": (), "__doc__": Retired.__doc__}
    for name in names:
        if name in rules.ATTRIBUTES:
            namespace[name] = property(Retired._refuse)
        else:
            namespace[name] = Retired._refuse
    namespace["_refuse"] = Retired._refuse
    namespace["__hash__"] = object.__hash__  # identity, as a Variable's (__eq__ is set)
    RETIRED[0] = cls = type("RetiredVariable", (array_variable,), namespace)
    return cls
