"""Rules of elementwise functions: numpy's ufuncs and Python's operators (autograd's
``numpy_vjps`` breadth). Most are one line through :func:`rules.defpartials`, from the local
partial derivative, which gives both directions. The partials are the complex derivatives
too, so holomorphic functions of complex intermediates need nothing more (JAX's convention:
the cotangent of ``z`` is ``dL/dRe z - i dL/dIm z``); the few non-holomorphic functions
(``abs``, ``real``, ``imag``, ``conj``, ``angle``) have rules of their own.
"""

import builtins
import operator

import numpy as np

from .table import _lift, _ndim, alias, defnondiff, defpartials, defrule, is_complex, real_cotangent

_LOG2, _LOG10 = np.log(2.0), np.log(10.0)


def _where_nonzero(mask, value, default):
    """``value`` where ``mask``, else ``default``, without evaluating ``value`` where it is
    not finite (0 ** -1 at the origin)."""
    return np.where(mask, value, default)


def _power_x(ans, x, y):
    # d(x^y)/dx = y x^(y-1), but 0 where y == 0 (x^0 is constant, also at x = 0, where the
    # formula reads 0 * 0^-1 = nan); autograd's convention
    with np.errstate(divide="ignore", invalid="ignore"):
        return y * x ** np.where(y, y - 1.0, 1.0)


def _power_y(ans, x, y):
    # d(x^y)/dy = x^y log x, and 0 at x = 0 (where x^y is 0 for y > 0: the limit is 0)
    return ans * np.log(np.where(x, x, 1.0))


defpartials(np.add, lambda ans, x, y: 1.0, lambda ans, x, y: 1.0)
defpartials(np.subtract, lambda ans, x, y: 1.0, lambda ans, x, y: -1.0)
defpartials(np.multiply, lambda ans, x, y: y, lambda ans, x, y: x)
defpartials(np.true_divide, lambda ans, x, y: 1.0 / y, lambda ans, x, y: -ans / y)
defpartials(np.power, _power_x, _power_y)
defpartials(np.float_power, _power_x, _power_y)
defpartials(np.negative, lambda ans, x: -1.0)
defpartials(np.positive, lambda ans, x: 1.0)
defpartials(np.square, lambda ans, x: 2.0 * x)
defpartials(np.reciprocal, lambda ans, x: -ans * ans)
defpartials(np.sqrt, lambda ans, x: 0.5 / ans)
defpartials(np.cbrt, lambda ans, x: 1.0 / (3.0 * ans * ans))
defpartials(np.exp, lambda ans, x: ans)
defpartials(np.exp2, lambda ans, x: ans * _LOG2)
defpartials(np.expm1, lambda ans, x: ans + 1.0)
defpartials(np.log, lambda ans, x: 1.0 / x)
defpartials(np.log2, lambda ans, x: 1.0 / (x * _LOG2))
defpartials(np.log10, lambda ans, x: 1.0 / (x * _LOG10))
defpartials(np.log1p, lambda ans, x: 1.0 / (1.0 + x))
defpartials(np.sin, lambda ans, x: np.cos(x))
defpartials(np.cos, lambda ans, x: -np.sin(x))
defpartials(np.tan, lambda ans, x: 1.0 + ans * ans)
defpartials(np.arcsin, lambda ans, x: 1.0 / np.sqrt(1.0 - x * x))
defpartials(np.arccos, lambda ans, x: -1.0 / np.sqrt(1.0 - x * x))
defpartials(np.arctan, lambda ans, x: 1.0 / (1.0 + x * x))
defpartials(np.sinh, lambda ans, x: np.cosh(x))
defpartials(np.cosh, lambda ans, x: np.sinh(x))
defpartials(np.tanh, lambda ans, x: 1.0 - ans * ans)
defpartials(np.arcsinh, lambda ans, x: 1.0 / np.sqrt(x * x + 1.0))
defpartials(np.arccosh, lambda ans, x: 1.0 / np.sqrt(x * x - 1.0))
defpartials(np.arctanh, lambda ans, x: 1.0 / (1.0 - x * x))
defpartials(np.deg2rad, lambda ans, x: np.pi / 180.0)
defpartials(np.rad2deg, lambda ans, x: 180.0 / np.pi)
alias(np.radians, np.deg2rad)
alias(np.degrees, np.rad2deg)
defpartials(np.sinc, lambda ans, x: _where_nonzero(
    x, (np.cos(np.pi * x) - ans) / np.where(x, x, 1.0), 0.0))
defpartials(np.arctan2, lambda ans, y, x: x / (x * x + y * y),
            lambda ans, y, x: -y / (x * x + y * y))
defpartials(np.hypot, lambda ans, x, y: x / ans, lambda ans, x, y: y / ans)
defpartials(np.logaddexp, lambda ans, x, y: np.exp(x - ans), lambda ans, x, y: np.exp(y - ans))
defpartials(np.logaddexp2, lambda ans, x, y: 2.0 ** (x - ans), lambda ans, x, y: 2.0 ** (y - ans))
# x mod y = x - floor(x / y) y: the floor is locally constant
defpartials(np.remainder, lambda ans, x, y: 1.0, lambda ans, x, y: -np.floor_divide(x, y))
defpartials(np.fmod, lambda ans, x, y: 1.0, lambda ans, x, y: -np.trunc(x / y))
alias(np.mod, np.remainder)


def _ties(ans, x, y):
    """Where both arguments are the result, each gets half (autograd's balanced choice)."""
    return (x == ans) / (1.0 + (x == y))


defpartials(np.maximum, _ties, lambda ans, x, y: _ties(ans, y, x))
defpartials(np.minimum, _ties, lambda ans, x, y: _ties(ans, y, x))
alias(np.fmax, np.maximum)
alias(np.fmin, np.minimum)
defpartials(np.copysign, lambda ans, x, y: np.sign(x) * np.sign(ans), None)


# -- the non-holomorphic functions of complex values ---------------------------------------

def _abs_vjp(g, ans, x):
    if is_complex(x):  # L = |z|: dL/dRe z - i dL/dIm z = conj(z) / |z|
        return real_cotangent(g) * np.conj(x) / np.where(ans, ans, 1.0)
    return g * np.sign(x)


def _abs_jvp(ts, ans, x):
    if is_complex(x):  # d|z| = Re(conj(z) dz) / |z|
        return np.real(np.conj(x) * ts[0]) / np.where(ans, ans, 1.0)
    return np.sign(x) * ts[0]


defrule(np.absolute, [_abs_vjp], _abs_jvp)
alias(np.fabs, np.absolute)
defrule(np.real, [lambda g, ans, x: real_cotangent(g) + 0j if is_complex(x) else g],
        lambda ts, ans, x: np.real(ts[0]))
defrule(np.imag, [lambda g, ans, x: -1j * real_cotangent(g) if is_complex(x)
                  else 0.0 * g],
        lambda ts, ans, x: np.imag(ts[0]))
defrule(np.conjugate, [lambda g, ans, x: np.conj(g)], lambda ts, ans, x: np.conj(ts[0]))


def _angle_vjp(g, ans, x, deg=False):
    scale = 180.0 / np.pi if deg else 1.0
    if not is_complex(x):
        return 0.0 * g
    # angle = atan2(Im z, Re z): cotangent -i conj(z) / |z|^2
    return scale * real_cotangent(g) * -1j * np.conj(x) / np.where(x, np.abs(x) ** 2, 1.0)


def _angle_jvp(ts, ans, x, deg=False):
    scale = 180.0 / np.pi if deg else 1.0
    if not is_complex(x):
        return 0.0 * np.real(ts[0])
    return scale * np.imag(np.conj(x) * ts[0]) / np.where(x, np.abs(x) ** 2, 1.0)


defrule(np.angle, [_angle_vjp], _angle_jvp)


# -- where and clip: elementwise with arguments that are not differentiated -----------------

def _where_vjp(which):
    def vjp(g, ans, cond, x, y):
        return np.where(cond, g, 0.0) if which == 1 else np.where(cond, 0.0, g)
    return vjp


def _where_jvp(ts, ans, cond, x, y):
    out, ndim = None, _ndim(ans)
    for t, keep in ((ts[1], True), (ts[2], False)):
        if t is None:
            continue
        t = _lift(t, ndim)
        term = np.where(cond if keep else np.logical_not(cond), t, 0.0)
        out = term if out is None else out + term
    return np.broadcast_to(out, out.shape[:1] + np.shape(ans)) if out.ndim - 1 < ndim else out


defrule(np.where, [None, _where_vjp(1), _where_vjp(2)], _where_jvp)


def _clip_bounds(args, kwargs):
    lo = args[0] if args else kwargs.get("a_min", kwargs.get("min"))
    hi = args[1] if len(args) > 1 else kwargs.get("a_max", kwargs.get("max"))
    return lo, hi


def _inside(x, args, kwargs):
    """Where ``clip`` passes ``x`` through (its derivative is 1 there, 0 where clipped)."""
    lo, hi = _clip_bounds(args, kwargs)
    inside = np.ones(np.shape(x), dtype=bool)
    if lo is not None:
        inside &= x >= lo
    if hi is not None:
        inside &= x <= hi
    return inside


def _clipped(which, x, bounds, kwargs):
    """Where ``clip`` returns its lower (0) or upper (1) bound: that bound's derivative."""
    bound = _clip_bounds(bounds, kwargs)[which]
    if bound is None:
        return np.zeros(np.shape(x), dtype=bool)
    return x < bound if which == 0 else x > bound


def _clip_jvp(ts, ans, x, *bounds, **kw):
    out = 0.0
    if ts[0] is not None:
        out = out + ts[0] * _inside(x, bounds, kw)
    for which, t in enumerate(ts[1:3]):
        if t is not None:  # a traced bound, passed positionally
            out = out + _lift(t, _ndim(ans)) * _clipped(which, x, bounds, kw)
    return out


# a bound is differentiated too: it is the result where x is beyond it
defrule(np.clip, [lambda g, ans, x, *bounds, **kw: g * _inside(x, bounds, kw),
                  lambda g, ans, x, *bounds, **kw: g * _clipped(0, x, bounds, kw),
                  lambda g, ans, x, *bounds, **kw: g * _clipped(1, x, bounds, kw)],
        _clip_jvp)

# Python's operators compute the same functions (the source engine calls them directly,
# keeping Python floats Python floats).
for _op, _ufunc in [(operator.add, np.add), (operator.sub, np.subtract),
                    (operator.mul, np.multiply), (operator.truediv, np.true_divide),
                    (operator.pow, np.power), (operator.neg, np.negative),
                    (operator.pos, np.positive), (builtins.abs, np.absolute),
                    (builtins.pow, np.power),
                    (operator.mod, np.remainder), (np.divide, np.true_divide),
                    (np.conj, np.conjugate)]:
    if _op is not _ufunc:
        alias(_op, _ufunc)

# Locally constant functions (derivative 0 wherever it exists) and queries: engines call
# them on values and return plain results.
defnondiff(np.shape, np.ndim, np.size, np.zeros_like, np.ones_like, np.empty_like,
           np.sign, np.floor, np.ceil, np.round, np.around, np.rint, np.trunc,
           np.fix, np.floor_divide, operator.floordiv, np.isfinite, np.isinf, np.isnan,
           np.signbit, np.heaviside, np.argmax, np.argmin, np.argsort, np.argwhere,
           np.nonzero, np.flatnonzero, np.searchsorted, np.equal, np.not_equal, np.less,
           np.less_equal, np.greater, np.greater_equal, np.logical_and, np.logical_or,
           np.logical_not, np.logical_xor, np.isclose, np.allclose, np.array_equal,
           np.any, np.all, np.count_nonzero, np.iscomplexobj, np.isrealobj, np.result_type,
           np.shares_memory, np.may_share_memory)


# -- select, nan_to_num, real_if_close -------------------------------------------------------

def _chosen(condlist, count):
    """Boolean masks: where each choice is taken (the first true condition), and where the
    default is."""
    taken = np.zeros(np.shape(condlist[0]), dtype=bool)
    masks = []
    for cond in condlist[:count]:
        masks.append(np.logical_and(cond, np.logical_not(taken)))
        taken = np.logical_or(taken, cond)
    return masks, np.logical_not(taken)


def _select_composite(condlist, choicelist, default=0):
    """np.select as nested np.where calls on the traced choices."""
    out = default
    for cond, choice in zip(reversed(list(condlist)), reversed(list(choicelist))):
        out = np.where(cond, choice, out)
    return out


def _select_vjp_choices(g, ans, condlist, choicelist, default=0):
    masks, _ = _chosen(condlist, len(choicelist))
    return [np.where(m, g, 0.0) for m in masks]


def _select_vjp_default(g, ans, condlist, choicelist, default=0):
    _, rest = _chosen(condlist, len(choicelist))
    return np.where(rest, g, 0.0)


defrule(np.select, [None, _select_vjp_choices, _select_vjp_default], None,
        composite=_select_composite)

defrule(np.nan_to_num, [lambda g, ans, x, *args, **kw: g * np.isfinite(x)],
        lambda ts, ans, x, *args, **kw: ts[0] * np.isfinite(x))


def _real_if_close_vjp(g, ans, x, tol=100):
    if is_complex(x) and not is_complex(ans):  # the imaginary part was dropped
        return real_cotangent(g) + 0j
    return g


def _real_if_close_jvp(ts, ans, x, tol=100):
    return ts[0] if is_complex(ans) else np.real(ts[0])


defrule(np.real_if_close, [_real_if_close_vjp, None], _real_if_close_jvp)
defnondiff(np.iscomplex, np.isreal, np.isscalar)
