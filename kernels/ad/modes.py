"""The modes a derivative is taken in, which one a Jacobian takes, and the engine that
takes each: ``jacobian(..., mode=None)`` of forward, reverse and source hands a Jacobian to
the mode of fewer passes, and the engines reach each other's through :func:`jacobian_in`
(each registers its own at import), so forward mode needs no import of reverse mode,
which builds on it."""

FORWARD, REVERSE = "forward", "reverse"
#: the modes a Jacobian is taken in (``jacobian(..., mode=)``)
MODES = (FORWARD, REVERSE)

#: mode -> the ``jacobian(f, x, sparsity=None, mode=None)`` of the engine taking it
_JACOBIANS = {}


def register(mode, jacobian):
    """``jacobian`` as mode ``mode``'s (the first engine of a mode to register keeps it)."""
    _JACOBIANS.setdefault(check(mode), jacobian)


def jacobian_in(mode):
    """The registered ``jacobian`` of mode ``mode``."""
    return _JACOBIANS[mode]


def check(mode):
    """``mode``, or ValueError for one that is not None or one of MODES."""
    if mode is not None and mode not in MODES:
        raise ValueError(f"mode must be one of {MODES} or None (chosen by the shapes), got "
                         f"{mode!r}")
    return mode


def choose(mode, inputs, outputs, sparsity=None):
    """``mode`` when told; else forward when ``inputs`` (x.size) are no more than
    ``outputs`` (f(x).size), or, for a sparse Jacobian (a kernels.ad.sparsity.Sparsity),
    when its columns need no more colours than its rows: the mode of fewer passes."""
    if check(mode) is not None:
        return mode
    if sparsity is not None:
        return sparsity.cheaper()
    return FORWARD if inputs <= outputs else REVERSE
