"""The two settings every state-vector run is made with, each one type, parsed once where
it enters (the command line, asv's parameters, JSON, a plugin's declaration) and passed
inward as that type:

- :class:`Precision`: the amplitudes' type, with what depends on it (bytes per
  amplitude, the tolerance a result is validated to);
- :class:`Fusion`: how many qubits a fused gate may span: off, at most k, or the
  backend's own default.

Each has one parser (:func:`precision`, :func:`fusion`) and one error message for a bad
value, so that every entry point refuses the same things in the same words.
"""

from typing import NamedTuple

import numpy as np


class Precision(NamedTuple):
    """A precision: its name (``complex128``), the amplitude dtype, bytes per amplitude,
    and the largest amplitude error a validated result may have (unit-norm states,
    circuits of up to a few thousand gates)."""

    name: str
    dtype: np.dtype
    itemsize: int
    atol: float

    def __str__(self):
        return self.name


COMPLEX128 = Precision("complex128", np.dtype(np.complex128), 16, 1e-9)
COMPLEX64 = Precision("complex64", np.dtype(np.complex64), 8, 1e-4)
#: name -> Precision, the default first
PRECISIONS = {p.name: p for p in (COMPLEX128, COMPLEX64)}


def precision(value):
    """``value`` as a :class:`Precision`: a Precision, its name, or a numpy complex dtype
    of one. ValueError naming the value and the known names otherwise."""
    if isinstance(value, Precision):
        return value
    if isinstance(value, str) and value in PRECISIONS:
        return PRECISIONS[value]
    if not isinstance(value, (str, bool)):
        try:
            name = np.dtype(value).name
        except TypeError:
            name = None
        if name in PRECISIONS:
            return PRECISIONS[name]
    raise ValueError(f"unknown precision {value!r}; known: {', '.join(PRECISIONS)}")


def precisions(values):
    """A tuple of :class:`Precision` from names, dtypes or Precisions (a declaration's
    list, its default first); ValueError for an empty or repeated list or a bad value."""
    out = tuple(precision(v) for v in values)
    if not out or len(set(out)) != len(out):
        raise ValueError(f"precisions must be a non-empty list without repeats, got "
                         f"{list(values)!r}")
    return out


class Fusion(NamedTuple):
    """A fusion setting: ``k`` = 0 is off (one pass over the state per gate), k > 0 at
    most k qubits per fused gate, None the backend's own default (what its declaration
    says that is: :meth:`kernels.statevector.backend.Backend.resolve`)."""

    k: int | None = None

    @property
    def is_default(self):
        return self.k is None

    @property
    def label(self):
        """What the setting is, in the words tables and settings use."""
        if self.k is None:
            return "default"
        if self.k == 0:
            return "off"
        return f"up to {self.k} qubit{'s' if self.k > 1 else ''}"

    def __str__(self):
        return "default" if self.k is None else ("off" if self.k == 0 else str(self.k))


DEFAULT_FUSION = Fusion(None)
FUSION_OFF = Fusion(0)

_FUSION_WORDS = {"default": DEFAULT_FUSION, "off": FUSION_OFF}


def fusion(value):
    """``value`` as a :class:`Fusion`: a Fusion; None or "default" (the backend's own);
    0 or "off"; a whole number k >= 1 of qubits, as an int or its digits. ValueError
    naming the value otherwise."""
    if isinstance(value, Fusion):
        return value
    if value is None:
        return DEFAULT_FUSION
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _FUSION_WORDS:
            return _FUSION_WORDS[word]
        if word.isdigit():
            return Fusion(int(word))
    elif isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 0:
        return Fusion(int(value))
    raise ValueError(f"fusion must be default, off or a number of qubits k >= 1, "
                     f"got {value!r}")
