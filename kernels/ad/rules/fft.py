"""Rules of the discrete Fourier transforms (``np.fft``). Each complex transform is linear
with a symmetric matrix (the DFT matrix equals its transpose), so its vjp is the same
transform of the cotangent (JAX's convention transposes, it does not conjugate). A length
``n``/shape ``s`` that pads or crops makes the matrix rectangular: those calls, and the real
transforms, have no rule.
"""

import numpy as np

from .table import MissingRuleError, _ndim, defrule


def _check_square(fn, size):
    if size is not None:
        raise MissingRuleError(f"numpy.fft.{fn.__name__} with n/s (padding or cropping) has "
                               f"no derivative rule")


def _one_axis(fn):
    def vjp(g, ans, x, n=None, axis=-1, norm=None):
        _check_square(fn, n)
        return fn(g, axis=axis, norm=norm)

    def jvp(ts, ans, x, n=None, axis=-1, norm=None):
        _check_square(fn, n)
        return fn(ts[0], axis=axis % _ndim(x) + 1, norm=norm)
    defrule(fn, [vjp, None, None, None], jvp)


def _several_axes(fn, default):
    def axes_of(x, axes):
        if axes is None:
            axes = default if default is not None else tuple(range(_ndim(x)))
        return tuple(a % _ndim(x) for a in axes)

    def vjp(g, ans, x, s=None, axes=None, norm=None):
        _check_square(fn, s)
        return fn(g, axes=axes_of(x, axes), norm=norm)

    def jvp(ts, ans, x, s=None, axes=None, norm=None):
        _check_square(fn, s)
        return fn(ts[0], axes=tuple(a + 1 for a in axes_of(x, axes)), norm=norm)
    defrule(fn, [vjp, None, None, None], jvp)


for _fn in (np.fft.fft, np.fft.ifft):
    _one_axis(_fn)
for _fn in (np.fft.fft2, np.fft.ifft2):
    _several_axes(_fn, (-2, -1))
for _fn in (np.fft.fftn, np.fft.ifftn):
    _several_axes(_fn, None)


def _rfft_vjp(g, ans, x, n=None, axis=-1, norm=None):
    # x -> rfft(x) is real-linear; its transpose (JAX's convention, no conjugation) takes
    # the half spectrum's cotangent, zero-padded to x's length, through fft, real part
    _check_square(np.fft.rfft, n)
    size = np.shape(x)[axis]
    pad = [(0, 0)] * np.ndim(g)
    pad[axis % np.ndim(g)] = (0, size - np.shape(g)[axis])
    return np.real(np.fft.fft(np.pad(g, pad), axis=axis, norm=norm))


def _rfft_jvp(ts, ans, x, n=None, axis=-1, norm=None):
    _check_square(np.fft.rfft, n)
    return np.fft.rfft(ts[0], axis=axis % _ndim(x) + 1, norm=norm)


defrule(np.fft.rfft, [_rfft_vjp, None, None, None], _rfft_jvp)


# -- fftshift / ifftshift: rolls by half of each axis, each the other's transpose -------------

def _shifted_axes(x, axes):
    """``axes`` (None: all) of the batched tangent of ``x``."""
    ndim = _ndim(x)
    if axes is None:
        return tuple(range(1, ndim + 1))
    return tuple(a % ndim + 1 for a in np.atleast_1d(axes))


def _shift_rule(fn, inverse):
    defrule(fn, [lambda g, ans, x, axes=None: inverse(g, axes)],
            lambda ts, ans, x, axes=None: fn(ts[0], _shifted_axes(x, axes)))


_shift_rule(np.fft.fftshift, np.fft.ifftshift)
_shift_rule(np.fft.ifftshift, np.fft.fftshift)
