"""Every construct the engines accept, one small function each: every rule of the table
reached the way user code reaches it (a numpy call, an operator, an array method, an
attribute, an index), the constructors of arrays from traced values, the builtins, and
complex intermediates. Added to ``cases.CASES``, so that ``test_engines.py`` runs each one
through every engine (gradcheck against central differences, and the engines agreeing),
and checks every rule is reached.

Each entry is ``(name, f, make_args, uses)`` as in ``cases.py``.
"""

import operator

import numpy as np

from kernels.ad import _arrays, rules
from kernels.ad.rules import linalg as _rules_linalg

try:  # scipy.special's rules register once it is imported; without scipy, no such cases
    import scipy.special as sp
except ImportError:  # pragma: no cover - scipy is a test dependency here
    sp = None
rules.register_late()

_W = np.random.default_rng(123).standard_normal(64)


def _weigh(y):
    """A fixed, uneven weighting of y's elements, so that every partial differs."""
    y = np.ravel(y)
    return np.sum(y * _W[:np.size(y)])


def _pos(rng, *shape):
    return rng.uniform(0.5, 1.5, shape) if shape else float(rng.uniform(0.5, 1.5))


def _spd(rng, n):
    a = rng.uniform(-1, 1, (n, n))
    return a @ a.T + n * np.eye(n)


def _elementwise(fn, lo=0.5, hi=1.5):
    return (f"ufunc-{fn.__name__}", lambda x: _weigh(fn(x)),
            lambda rng: (rng.uniform(lo, hi, (2, 3)),), [fn])


def _binary(fn):
    return (f"ufunc-{fn.__name__}", lambda x, y: _weigh(fn(x, y)),
            lambda rng: (_pos(rng, 2, 3), rng.uniform(1.6, 2.4, 3)), [fn])


CONSTRUCTS = [
    *(_elementwise(fn) for fn in (np.cbrt, np.exp2, np.log2, np.log10, np.arcsinh,
                                  np.deg2rad, np.rad2deg, np.radians, np.degrees, np.fabs)),
    *(_elementwise(fn, -0.9, 0.9) for fn in (np.arcsin, np.arccos, np.arctanh)),
    _elementwise(np.arccosh, 1.5, 2.5), _elementwise(np.sinc, 0.2, 0.8),
    *(_binary(fn) for fn in (np.arctan2, np.hypot, np.logaddexp, np.logaddexp2, np.maximum,
                             np.minimum, np.fmax, np.fmin, np.float_power, np.remainder,
                             np.fmod, np.copysign)),
    ("power-at-zero", lambda x, y: np.sum(np.power(x, 0.0)) + np.sum(np.power(0.0, y))
     + np.sum(x ** 2.0), lambda rng: (np.array([0.0, 1.5]), np.array([1.0, 2.0])),
     [np.power]),
    ("mod-floordiv", lambda x: _weigh(x % 0.3 + x // 0.3 + np.mod(x, 0.7)),
     lambda rng: (np.array([0.1, 0.5, 1.25, 2.05]),), [operator.mod, np.remainder]),
    ("where", lambda x, y: _weigh(np.where(x > 1.0, x * y, -y)),
     lambda rng: (np.array([0.6, 1.4, 0.8, 1.3]), _pos(rng, 4)), [np.where]),
    ("clip", lambda x: _weigh(np.clip(x, 0.7, 1.2) + x.clip(0.8, 1.3)),
     lambda rng: (np.array([0.5, 0.9, 1.1, 1.45]),), [np.clip]),
    ("traced-bounds-and-spacings", lambda x, lo, hi, h: _weigh(np.clip(x, lo, hi))
     + _weigh(np.clip(x, lo, None) ** 2) + _weigh(x.clip(0.7, hi)) + _weigh(np.gradient(x, h))
     + np.trapezoid(x * x, dx=h) + np.trapezoid(x, None, h),
     lambda rng: (np.array([0.5, 1.0, 1.5, 0.8, 0.3]), 0.75, 1.2, _pos(rng)),
     [np.clip, np.gradient, np.trapezoid]),
    # complex intermediates with real arguments and a real result
    ("complex-abs", lambda x: np.sum(np.abs(x * (1 + 2j) - 0.5j) ** 3),
     lambda rng: (_pos(rng, 4),), [np.absolute]),
    ("complex-parts", lambda x, y: _weigh(np.real(np.exp(1j * x) * y) + np.imag(x * (2 - 1j))
                                          + (x + 1j * y).real * np.conj(y + 2j * x).imag),
     lambda rng: (_pos(rng, 3), _pos(rng, 3)), [np.real, np.imag, np.conjugate, np.exp]),
    ("complex-angle", lambda x, y: _weigh(np.angle(x + 1j * y)),
     lambda rng: (_pos(rng, 3), _pos(rng, 3)), [np.angle]),
    ("complex-state", lambda t: np.abs(np.sum(np.exp(-1j * t) * np.cos(t))) ** 2,
     lambda rng: (_pos(rng, 4),), [np.absolute, np.exp]),
    # reductions, with axis and keepdims, as functions and as methods
    ("prod", lambda x: np.prod(x) + _weigh(np.prod(x, axis=0)) + _weigh(x.prod(axis=1)),
     lambda rng: (_pos(rng, 3, 4),), [np.prod]),
    ("prod-with-zero", lambda x: _weigh(np.prod(x, axis=1)),
     lambda rng: (np.array([[0.0, 1.5, 2.0], [0.5, 0.0, 0.0]]),), [np.prod]),
    ("max-min", lambda x: np.max(x) - np.min(x) + _weigh(np.max(x, axis=0))
     + _weigh(x.min(axis=1, keepdims=True)) + np.amax(x) * np.amin(x) + x.max(),
     lambda rng: (_pos(rng, 3, 4),), [np.max, np.min, np.amax, np.amin]),
    ("reduce-keywords", lambda x: np.sum(x, where=x > 1.0) + _weigh(np.mean(x, 0, where=x > 0.85))
     + _weigh(np.prod(x, axis=1, where=x < 1.25, initial=1.5)) + np.max(x, initial=1.2)
     + _weigh(np.min(x, axis=1, where=x > 0.7, initial=1.4)) + x.sum(dtype=np.float64)
     + _weigh(np.sin(x, dtype=float, order="K")) + np.sum(x, initial=2.0, dtype=float)
     + _weigh(np.amax(x, 0, initial=0.9, where=x < 1.15))
     + _weigh(np.var(x, axis=1, where=x > 0.7, ddof=1)) + np.std(x, where=x < 1.25),
     lambda rng: (np.array([[0.6, 1.2, 0.9, 1.4], [1.1, 0.75, 1.3, 0.8], [1.45, 0.55, 1.05,
                                                                              0.65]]),),
     [np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.var, np.std]),
    ("var-std", lambda x: np.var(x) + _weigh(np.std(x, axis=0)) + x.var(ddof=1)
     + _weigh(x.std(axis=1, keepdims=True)),
     lambda rng: (_pos(rng, 3, 4),), [np.var, np.std]),
    ("cumsum", lambda x: _weigh(np.cumsum(x)) + _weigh(np.cumsum(x, axis=1)) + _weigh(x.cumsum(0)),
     lambda rng: (_pos(rng, 3, 4),), [np.cumsum]),
    ("norm", lambda x, v: np.linalg.norm(x) + np.linalg.norm(v) + np.linalg.norm(v, 1)
     + np.linalg.norm(v, np.inf) + _weigh(np.linalg.norm(x, axis=1))
     + np.linalg.norm(x, "fro") + _weigh(np.linalg.norm(x, 3, axis=0)),
     lambda rng: (_pos(rng, 3, 4), rng.uniform(-1.5, 1.5, 5)), [np.linalg.norm]),
    # products
    ("matmul-stacked", lambda a, b, v: _weigh(a @ b) + _weigh(np.matmul(a, v)) + _weigh(v @ b),
     lambda rng: (_pos(rng, 2, 3, 4), _pos(rng, 2, 4, 3), _pos(rng, 4)), [np.matmul]),
    ("dot-nd", lambda a, v, m: _weigh(np.dot(a, v)) + _weigh(a.dot(m)),
     lambda rng: (_pos(rng, 2, 3, 4), _pos(rng, 4), _pos(rng, 4, 2)), [np.dot]),
    ("tensordot", lambda a, b: _weigh(np.tensordot(a, b, axes=([1, 2], [0, 1])))
     + _weigh(np.tensordot(a, b.T, 1)),
     lambda rng: (_pos(rng, 2, 3, 4), _pos(rng, 3, 4)), [np.tensordot]),
    ("einsum", lambda a, b, v: _weigh(np.einsum("ij,jk->ik", a, b)) + np.einsum("i,i", v, v)
     + _weigh(np.einsum("ij->j", a)) + _weigh(np.einsum("...j,j", a, v)),
     lambda rng: (_pos(rng, 3, 4), _pos(rng, 4, 2), _pos(rng, 4)), [np.einsum]),
    ("inner-outer", lambda a, b, v: _weigh(np.inner(a, b)) + _weigh(np.outer(v, a))
     + np.inner(v, v), lambda rng: (_pos(rng, 2, 3), _pos(rng, 4, 3), _pos(rng, 3)),
     [np.inner, np.outer]),
    ("kron", lambda a, b, u, v: _weigh(np.kron(a, b)) + _weigh(np.kron(u, v)),
     lambda rng: (_pos(rng, 2, 3), _pos(rng, 2, 2), _pos(rng, 3), _pos(rng, 2)), [np.kron]),
    ("cross", lambda a, b: _weigh(np.cross(a, b)) + _weigh(np.cross(a.T, b, axisa=0, axisc=0))
     + _weigh(np.cross(a.T, (a ** 2).T, axis=0).T + np.cross(b, a)),
     lambda rng: (_pos(rng, 2, 3), _pos(rng, 3)), [np.cross]),
    ("gradient-rfft-einsum", lambda x, m: _weigh(np.gradient(x))
     + _weigh(np.gradient(m, 0.5, axis=0)) + _weigh(np.abs(np.fft.rfft(x)) ** 2)
     + np.einsum("ii", m[:, :2] @ m[:, :2].T)
     + _weigh(np.einsum(m, [0, 1], m, [0, 2], [1, 2])),
     lambda rng: (_pos(rng, 5), _pos(rng, 3, 4)), [np.gradient, np.fft.rfft]),
    ("early-return", lambda x: early_return(x) + early_return(x[::-1]),
     lambda rng: (np.array([0.6, 1.2, 0.9]),), [np.sum]),
    # linear algebra
    ("inv-det", lambda a: _weigh(np.linalg.inv(a)) + np.linalg.det(a),
     lambda rng: (_spd(rng, 3) + np.triu(np.ones((3, 3))),), [np.linalg.inv, np.linalg.det]),
    ("slogdet", lambda a: np.linalg.slogdet(a)[1] * 2.0,
     lambda rng: (_spd(rng, 3) - 0.3 * np.tril(np.ones((3, 3))),),
     [np.linalg.slogdet, _rules_linalg.logabsdet]),
    ("solve", lambda a, b, m: _weigh(np.linalg.solve(a, b)) + _weigh(np.linalg.solve(a, m)),
     lambda rng: (_spd(rng, 3) + np.triu(np.ones((3, 3))), _pos(rng, 3), _pos(rng, 3, 2)),
     [np.linalg.solve]),
    ("eigh", lambda a: _weigh(np.linalg.eigh((a + a.T) / 2)[0])
     + np.sum(np.linalg.eigh((a + a.T) / 2)[1][:, 0] ** 2 * _W[:3])
     + _weigh(np.linalg.eigvalsh(a)),
     lambda rng: (_spd(rng, 3) + np.diag([0.0, 1.0, 3.0]),),
     [np.linalg.eigh, np.linalg.eigvalsh, _rules_linalg.eigenvalues,
      _rules_linalg.eigenvectors]),
    ("cholesky", lambda a: _weigh(np.linalg.cholesky(a)),
     lambda rng: (_spd(rng, 3),), [np.linalg.cholesky]),
    # shapes
    ("reshaping", lambda x: _weigh(np.ravel(x) * x.flatten() + x.ravel())
     + _weigh(np.squeeze(x[:, None, :], axis=1)) + _weigh(np.expand_dims(x, 0) ** 2)
     + _weigh(np.atleast_1d(x[0, 0]) + np.atleast_2d(x[0]).T + np.atleast_3d(x))
     + _weigh(np.copy(x) * x.copy()) + _weigh(x.squeeze()) + _weigh(x.reshape(4, 3)),
     lambda rng: (_pos(rng, 3, 4),),
     [np.ravel, np.squeeze, np.expand_dims, np.atleast_1d, np.atleast_2d, np.atleast_3d,
      np.copy]),
    ("axes", lambda t: _weigh(np.swapaxes(t, 0, 2) * t.swapaxes(0, 2))
     + _weigh(np.moveaxis(t, 0, -1)) + _weigh(np.rollaxis(t, 2)) + _weigh(t.transpose(1, 0, 2))
     + _weigh(np.matrix_transpose(t)) + _weigh(t.T),
     lambda rng: (_pos(rng, 2, 3, 4),),
     [np.swapaxes, np.moveaxis, np.rollaxis, np.matrix_transpose, np.transpose]),
    ("broadcast_to", lambda v: _weigh(np.broadcast_to(v, (3, 4)) ** 2),
     lambda rng: (_pos(rng, 4),), [np.broadcast_to]),
    ("flips", lambda x: _weigh(np.flip(x) + np.flip(x, 1) + np.fliplr(x) * np.flipud(x)
                               + np.roll(x, 1) + np.roll(x, -1, axis=0) + np.rot90(x, 2)),
     lambda rng: (_pos(rng, 3, 3),), [np.flip, np.fliplr, np.flipud, np.roll, np.rot90]),
    ("repeat-tile", lambda x, v: _weigh(np.repeat(x, 2, axis=1)) + _weigh(np.repeat(v, [1, 0, 2]))
     + _weigh(x.repeat(2)) + _weigh(np.tile(v, 2)) + _weigh(np.tile(x, (2, 1))),
     lambda rng: (_pos(rng, 2, 3), _pos(rng, 3)), [np.repeat, np.tile]),
    ("pad", lambda x: _weigh(np.pad(x, 1) * 2.0) + _weigh(np.pad(x, ((1, 0), (0, 2)),
                                                                  constant_values=0.5)),
     lambda rng: (_pos(rng, 2, 3),), [np.pad]),
    ("triangles", lambda x, v: _weigh(np.tril(x) + np.triu(x, 1)) + _weigh(np.diag(x))
     + _weigh(np.diag(v, -1)) + _weigh(np.diagonal(x, 1)) + _weigh(x.diagonal())
     + np.trace(x, 1) + x.trace(),
     lambda rng: (_pos(rng, 3, 3), _pos(rng, 2)),
     [np.tril, np.triu, np.diag, np.diagonal, np.trace]),
    ("sort", lambda x: _weigh(np.sort(x)) + _weigh(np.sort(x, axis=0)) + _weigh(np.sort(x, None)),
     lambda rng: (rng.permutation(12).reshape(3, 4) / 7.0 + 0.1,), [np.sort]),
    ("take", lambda x: _weigh(np.take(x, [0, 2, 2])) + _weigh(x.take([1, 0], axis=1)),
     lambda rng: (_pos(rng, 2, 3),), [np.take]),
    ("astype", lambda x: _weigh(x.astype(float) ** 2 + x.astype(complex).real),
     lambda rng: (_pos(rng, 3),), [_arrays.astype]),
    # indexing of every kind
    ("index-basic", lambda x: _weigh(x[0]) + _weigh(x[:, 1:3]) + _weigh(x[::-1, -1])
     + _weigh(x[..., 0]) + _weigh(x[None, 1, :]),
     lambda rng: (_pos(rng, 3, 4),), [operator.getitem]),
    ("index-advanced", lambda x: _weigh(x[[0, 2, 0]]) + _weigh(x[[0, 1], [1, 3]])
     + _weigh(x[np.array([2, 1])][:, [0, 0, 3]]),
     lambda rng: (_pos(rng, 3, 4),), [operator.getitem]),
    ("index-mixed", lambda t: _weigh(t[0, :, [0, 1, 2]]) + _weigh(t[:, [1, 0], 1:3])
     + _weigh(t[[1, 0], :, [3, 0]]),
     lambda rng: (_pos(rng, 2, 3, 4),), [operator.getitem]),
    ("index-boolean", lambda x: _weigh(x[x > 1.0] ** 2) + _weigh(x[:, np.array([True, False,
                                                                              True, True])]),
     lambda rng: (np.array([[0.6, 1.2, 0.9, 1.4], [1.1, 0.7, 1.3, 0.8]]),), [operator.getitem]),
    # arrays built from traced values
    ("np-array-of-list", lambda x, s: _weigh(np.array([x[0] * s, s, 2.0, x[1]]) ** 2)
     + _weigh(np.array([[s, x[2]], [x[0], 1.0]]) @ x[:2]) + _weigh(np.array([x, x * s])),
     lambda rng: (_pos(rng, 3), _pos(rng)), [_arrays.join]),
    ("np-asarray", lambda x: _weigh(np.asarray(x) ** 2) + _weigh(np.asarray(x, dtype=float) * x)
     + _weigh(np.array(x)) + _weigh(np.asarray(x, dtype=complex).real),
     lambda rng: (_pos(rng, 3),), [_arrays.asarray]),
    ("r_-c_", lambda x, s: _weigh(np.r_[x, s, 1.0, 2:4] ** 2) + _weigh(np.c_[x, x * s] ** 2),
     lambda rng: (_pos(rng, 3), _pos(rng)), [_arrays.join]),
    ("joins", lambda x, y: _weigh(np.concatenate([x, y, x * y])) + _weigh(np.stack([x, y], 1))
     + _weigh(np.vstack([x, y])) + _weigh(np.hstack([x, y, 1.0])) + _weigh(np.dstack([x, y]))
     + _weigh(np.column_stack([x, y])) + _weigh(np.concatenate((x[None], y[None]), axis=0))
     + _weigh(np.concatenate([x, np.ones(2)], axis=None)),
     lambda rng: (_pos(rng, 3), _pos(rng, 3)),
     [np.concatenate, np.stack, np.vstack, np.hstack, np.dstack, np.column_stack, _arrays.join]),
    # pieces that are plain lists and tuples of numbers (constants), or lists holding traced
    # scalars among numbers
    ("joins-with-constants", lambda x, s: _weigh(np.concatenate((x, [0.0])) ** 2)
     + _weigh(np.concatenate([x, [s, 0.5]]) ** 3) + _weigh(np.append(x, [0.0, 2.0]) ** 2)
     + _weigh(np.append(x, [s, 1.0]) ** 3) + _weigh(np.hstack([x, [1.0, 2.0]]) ** 2)
     + _weigh(np.vstack([x, [1.0, 2.0, 3.0]]) ** 3) + _weigh(np.stack([x, (1.0, s, 2.0)], 1) ** 3)
     + _weigh(np.column_stack([x, [[1.0], [2.0], [s]]]) ** 3)
     + _weigh(np.vstack(([[s, 1.0, 2.0], [0.5, s, s]], x)) ** 3)
     + _weigh(np.r_[x, [s, 1.0]] ** 2) + _weigh(np.c_[x, [s, s, 1.0]] ** 3)
     + _weigh(np.r_[1.0, [s, 2.0]] ** 2),
     lambda rng: (_pos(rng, 3), _pos(rng)),
     [np.concatenate, np.append, np.hstack, np.vstack, np.stack, np.column_stack,
      _arrays.join]),
    ("splits", lambda x: _weigh(np.split(x, 2)[1] * np.array_split(x, 3)[0][0])
     + _weigh(np.hsplit(x, [1])[1]) + _weigh(np.vsplit(x.reshape(2, 3), 2)[0])
     + _weigh(np.dsplit(x.reshape(1, 2, 3), [2])[0]),
     lambda rng: (_pos(rng, 6),), [np.split, np.array_split, np.hsplit, np.vsplit, np.dsplit]),
    ("cumulative-differences", lambda x: _weigh(np.cumprod(x, axis=1)) + _weigh(np.cumprod(x))
     + _weigh(np.diff(x)) + _weigh(np.diff(x, 2, axis=0)) + _weigh(np.partition(x, 1)),
     lambda rng: (_pos(rng, 3, 4),), [np.cumprod, np.diff, np.partition]),
    ("linspace-append-select", lambda a, b, x: _weigh(np.linspace(a, b, 5))
     + _weigh(np.append(x, a)) + _weigh(np.select([x > 1.0, x > 0.7], [x, x ** 2], 0.5)),
     lambda rng: (_pos(rng), _pos(rng) + 1.0, np.array([0.6, 0.8, 1.2, 1.4])),
     [np.linspace, np.select]),
    ("nan_to_num-real_if_close", lambda x: _weigh(np.nan_to_num(x) * np.real_if_close(x + 0j)),
     lambda rng: (_pos(rng, 4),), [np.nan_to_num, np.real_if_close]),
    ("fft", lambda x: _weigh(np.abs(np.fft.fft(x)) + np.real(np.fft.ifft(x * 1j)))
     + _weigh(np.abs(np.fft.fft2(x.reshape(2, 3)) + np.fft.ifft2(x.reshape(2, 3))))
     + _weigh(np.abs(np.fft.fftn(x.reshape(3, 2)) * np.fft.ifftn(x.reshape(3, 2)))),
     lambda rng: (_pos(rng, 6),),
     [np.fft.fft, np.fft.ifft, np.fft.fft2, np.fft.ifft2, np.fft.fftn, np.fft.ifftn]),
    ("series-vdot", lambda a, v, y, x: np.vdot(a[:3], v) + np.real(np.vdot(a[:3] * 1j, v + 2j))
     + _weigh(np.polyval(v, a)) + _weigh(np.polyval([1.0, -2.0, 0.5], y))
     + _weigh(np.convolve(a, v)) + _weigh(np.convolve(v, a, "same"))
     + _weigh(np.convolve(a, v, "valid")) + _weigh(np.correlate(a, v, "full"))
     + _weigh(np.correlate(a, v)) + _weigh(np.correlate(a, v, mode="same"))
     + np.trapezoid(a) + np.trapezoid(a, dx=0.5) + _weigh(np.trapezoid(y, axis=0))
     + np.trapezoid(a * a, x) + _weigh(np.trapezoid(y ** 2, x[:3], axis=0))
     + _weigh(np.trapezoid(y, y * 2.0 + 3.0, axis=1))
     + _weigh(np.interp(a * 2.0 - 0.6, [0.0, 0.4, 1.0, 1.7, 2.5], np.r_[v, v[:2] * 2.0]))
     + np.interp(y[0, 0], [0.0, 1.0, 2.0], v, left=0.5) ** 2,
     lambda rng: (_pos(rng, 5), _pos(rng, 3), _pos(rng, 3, 2), np.cumsum(_pos(rng, 5))),
     [np.vdot, np.polyval, np.convolve, np.correlate, np.trapezoid, np.interp]),
    ("nan-reductions", lambda x, s, w: nan_reductions(x, s, w),
     lambda rng: (np.array([[0.6, 1.2, 0.9, 1.4], [1.1, 0.75, 1.35, 0.8],
                            [1.45, 0.55, 1.05, 0.65]]), _pos(rng), _pos(rng, 3, 4)),
     [np.nansum, np.nanmean, np.nanprod, np.nanmax, np.nanmin, np.nancumsum, np.nancumprod,
      np.ptp, np.average, np.cumulative_sum, np.cumulative_prod, np.full_like,
      np.linalg.matmul, np.linalg.outer, np.linalg.tensordot, np.linalg.matrix_transpose,
      np.fft.fftshift, np.fft.ifftshift, np.astype, np.median]),
    ("matrix_power", lambda a: _weigh(np.linalg.matrix_power(a, 3)),
     lambda rng: (_pos(rng, 3, 3),), [np.linalg.matrix_power]),
    ("comprehensions", lambda x: comprehensions(x), lambda rng: (np.array([0.6, 0.9, 1.3]),),
     [np.sin]),
    ("svd", lambda a, w: _weigh(np.linalg.svd(a, compute_uv=False) ** 2) + svd_parts(a, w),
     lambda rng: (rng.standard_normal((4, 3)), rng.standard_normal((4, 3))),
     [np.linalg.svd, _rules_linalg.singular_values, _rules_linalg.left_vectors,
      _rules_linalg.right_vectors_h]),
    ("svd-square-pinv-norms", lambda a: _weigh(np.linalg.svd(a)[0] * a) + _weigh(np.linalg.pinv(a))
     + np.linalg.norm(a, "nuc") + np.linalg.norm(a, 2) - np.linalg.norm(a, -2),
     lambda rng: (rng.standard_normal((3, 3)),), [np.linalg.pinv, np.linalg.norm]),
    # builtins
    ("builtins", lambda x: max(x[0], x[1] * 2.0) + min(x[2], 0.5) + abs(x[0] - 2.0)
     + pow(x[1], 3) + sum(x), lambda rng: (np.array([0.6, 1.3, 0.9]),), [abs, pow]),
]


def comprehensions(x):
    """List comprehensions and generator expressions (the source engine builds them as
    loops); ``xi`` outside must not be clobbered by the comprehensions' own ``xi``."""
    xi = 2.0
    rows = [[a * b for b in x if b > 0.7] for a in x]
    weighted = np.array([np.sin(xi) * (i + 1) for i, xi in enumerate(x)])
    return sum(sum(r) for r in rows) + _weigh(weighted) * xi + sum(v * v for v in x)


def svd_parts(a, w):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return np.sum(u * w) + _weigh(s) + _weigh(vh)


def early_return(x):
    """Returns before the end (the source engine makes the rest the else branch)."""
    if x[0] > 1.0:
        return np.sum(x ** 2)
    y = x * 3.0
    if y[1] < 0.0:
        return 0.0
    return np.sum(np.sin(y))


def nan_reductions(x, s, w):
    """The reductions that skip NaNs, ptp, average, numpy 2's cumulative_*, full_like's
    fill value, numpy.linalg's array-API names, the fft shifts and np.astype."""
    y = np.where(x > 1.3, np.nan, x)
    return (np.nansum(y) + _weigh(np.nanmean(y, axis=0)) + _weigh(np.nanprod(y, axis=1))
            + np.nanmax(y) + _weigh(np.nanmin(y, axis=1, keepdims=True))
            + _weigh(np.nancumsum(y, axis=1)) + _weigh(np.nancumprod(y)) + np.ptp(x)
            + _weigh(np.ptp(x, axis=0)) + np.average(x) + _weigh(np.average(x, 1, weights=w))
            + np.average(x, None, w) + _weigh(np.cumulative_sum(x[0]))
            + _weigh(np.cumulative_prod(x, axis=1)) + _weigh(np.full_like(x, s))
            + _weigh(np.full_like(x, x[0])) + _weigh(np.linalg.matmul(x, x.T))
            + _weigh(np.linalg.outer(x[0], x[1])) + _weigh(np.linalg.tensordot(x, w.T, axes=1))
            + _weigh(np.linalg.matrix_transpose(x) ** 2) + _weigh(np.fft.fftshift(x) * x)
            + _weigh(np.fft.ifftshift(x, axes=0) * x) + _weigh(np.astype(x, float) ** 2)
            + np.median(x) + _weigh(np.median(x, axis=0)) + _weigh(np.median(x, 1, keepdims=True)))


def scipy_special(x, y, m):
    """scipy.special's ufuncs and its Python functions, as numpy code calls them."""
    w = _W[:12].reshape(3, 4)
    return (_weigh(sp.expit(x)) + _weigh(sp.logit(x / 2.0)) + _weigh(sp.erf(x) * sp.erfc(y))
            + _weigh(sp.gammaln(x + 1.0) * sp.gamma(y) + sp.digamma(x + 2.0))
            + _weigh(sp.xlogy(x, y) + sp.xlog1py(y, x)) + _weigh(sp.erfinv(x / 2.0))
            + _weigh(sp.ndtr(x) + sp.log_ndtr(y) + sp.log_expit(x)) + sp.logsumexp(x)
            + _weigh(sp.logsumexp(m, axis=0)) + _weigh(sp.logsumexp(m, 1, y[:, None], True))
            + sp.logsumexp(m, b=m * 0.5 + 1.0) + np.sum(sp.softmax(m, axis=1) * w)
            + _weigh(sp.softmax(x)) + np.sum(sp.log_softmax(m, axis=0) * w)
            + np.sum(sp.log_softmax(m) * w) + np.trapezoid(y * y, x=x))


if sp is not None:
    CONSTRUCTS.append(
        ("scipy-special", scipy_special,
         lambda rng: (rng.uniform(0.2, 0.9, 3), _pos(rng, 3), _pos(rng, 3, 4)),
         [sp.expit, sp.logit, sp.erf, sp.erfc, sp.gammaln, sp.gamma, sp.digamma, sp.xlogy,
          sp.xlog1py, sp.erfinv, sp.ndtr, sp.log_ndtr, sp.log_expit, sp.logsumexp,
          sp.softmax, sp.log_softmax]))
