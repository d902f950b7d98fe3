"""A corpus of differentiable functions from AD libraries' own test suites and examples,
rewritten as plain numpy, for measuring which of them each engine differentiates correctly
(tests/ad/test_corpus.py, ``python -m tests.ad.corpus_table``).

Each :class:`Case` has a ``name``, a scalar-valued function ``f`` of floats and float arrays, a
``make_args(rng)`` that draws arguments at which ``f`` is smooth, and the ``origin`` it was
rewritten from. Sources: HIPS/autograd's ``tests/`` (``test_numpy.py``,
``test_systematic.py``, ``test_linalg.py``, ``test_scalar_ops.py``, ``test_binary_ops.py``,
``test_complex.py``, ``test_graphs.py``, ``test_wrappers.py``, ...), its ``docs/tutorial.md``
and ``examples/``, and the JAX and PyTorch documentation.

Rules the corpus keeps, and why:

* every ``f`` is a ``def`` at module level (the source engine reads source through the
  function's file) using only ``np`` (numpy), so that the reference can rebind ``np`` to
  ``autograd.numpy`` (tests/ad/reference.py);
* arguments stay at least 0.1 (and 1% relative) away from kinks, ties, integer jumps and
  domain boundaries, so that the function is smooth over the reference's finite-difference
  steps; matrices are well conditioned, symmetric positive definite where a factorisation
  needs it, with distinct eigenvalues where eigenvectors are used;
* array results are reduced with fixed, non-uniform weights (``W34`` etc., drawn once from a
  seeded generator) or through a nonlinearity, so that every element's gradient differs;
* nothing assigns into arrays; constructs engines may not handle yet (``np.max``,
  ``np.where``, ``np.concatenate``, ``x.dot(y)``, ``np.r_``, complex intermediates,
  ``np.asarray``, ...) are included on purpose: the corpus measures coverage.
"""

import dataclasses
import math
from collections.abc import Callable

import numpy as np


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    f: Callable
    make_args: Callable  # rng -> tuple of floats and float64 arrays
    origin: str


CASES = []


def case(origin, *specs, make=None):
    """Register the decorated function as a case. ``specs``: one argument generator per
    argument (callables of the rng); ``make``: a whole ``make_args`` instead, for arguments
    drawn jointly."""
    def register(f):
        make_args = make if make is not None else (lambda rng: tuple(s(rng) for s in specs))
        CASES.append(Case(f.__name__, f, make_args, origin))
        return f
    return register


# -- argument generators: each returns a callable of the rng ----------------------------

def _draw(value, shape):
    return float(value) if shape == () else value


def unif(lo, hi, *shape):
    """Uniform in [lo, hi]; a float when no shape is given."""
    return lambda rng: _draw(rng.uniform(lo, hi, shape), shape)


def signed(lo, hi, *shape):
    """Magnitude uniform in [lo, hi], random sign: away from zero, where abs and friends kink."""
    return lambda rng: _draw(rng.uniform(lo, hi, shape) * rng.choice([-1.0, 1.0], shape), shape)


def distinct(lo, hi, *shape):
    """Well-separated values (no ties for max, sort, std of two values): an even grid over
    [lo, hi], jittered by 10% of its spacing and shuffled."""
    def draw(rng):
        n = math.prod(shape)
        grid = np.linspace(lo, hi, n) + rng.uniform(-0.1, 0.1, n) * (hi - lo) / max(n - 1, 1)
        return rng.permutation(grid).reshape(shape)
    return draw


def off_grid(lo, hi, *shape):
    """Values with a fractional part in [0.15, 0.85]: away from floor/ceil/round's jumps."""
    def draw(rng):
        whole = np.floor(rng.uniform(lo, hi, shape))
        return _draw(whole + rng.uniform(0.15, 0.85, shape), shape)
    return draw


def bands(*shape):
    """Magnitudes in [0.2, 0.8] or [1.2, 2.0], random sign: away from the kinks at 0 and +-1
    of Huber-like losses."""
    def draw(rng):
        low = rng.uniform(0.2, 0.8, shape)
        high = rng.uniform(1.2, 2.0, shape)
        magnitude = np.where(rng.uniform(size=shape) < 0.5, low, high)
        return magnitude * rng.choice([-1.0, 1.0], shape)
    return draw


def wellcond(n, *batch):
    """A well-conditioned (stack of) n x n matrices: 2 I plus a small random part."""
    return lambda rng: 2.0 * np.eye(n) + 0.3 * rng.standard_normal(batch + (n, n))


def spd(n, *batch):
    """A (stack of) symmetric positive definite n x n matrices, eigenvalues >= 1."""
    def draw(rng):
        a = rng.standard_normal(batch + (n, n))
        return a @ np.swapaxes(a, -1, -2) / n + np.eye(n)
    return draw


def sym_distinct(n):
    """A symmetric n x n matrix with eigenvalues 1, 2, ..., n (jittered): well separated, so
    that eigenvectors are smooth functions of the matrix."""
    def draw(rng):
        q, _ = np.linalg.qr(rng.standard_normal((n, n)))
        values = np.arange(1.0, n + 1) + rng.uniform(-0.1, 0.1, n)
        return (q * values) @ q.T
    return draw


def fixed(value):
    """Always this value (a float, or a copy of this array)."""
    return lambda rng: (float(value) if np.ndim(value) == 0
                        else np.array(value, dtype=float, order="C"))


def _mod_args(shape, lo, hi):
    """``(x, y)`` for ``x % y``: ``y`` in [lo, hi] and ``x / y`` a fractional distance of at
    least 0.15 from an integer (the jumps of mod), with quotients -1, 0 and 1 (so that
    ``d(x % y)/dy = -floor(x / y)`` is not always zero)."""
    def make(rng):
        y = rng.uniform(lo, hi, shape)
        quotient = rng.integers(-1, 2, shape) + rng.uniform(0.15, 0.85, shape)
        return _draw(quotient * y, shape), _draw(y, shape)
    return make


def _apart(shape):
    """``(x, y)`` with ``|x - y| >= 0.2`` everywhere: no ties for maximum/minimum."""
    def make(rng):
        x = rng.uniform(-2, 2, shape)
        return x, x + rng.uniform(0.2, 1.5, shape) * rng.choice([-1.0, 1.0], shape)
    return make


# -- constants the functions use ---------------------------------------------------------

_K = np.random.default_rng(20240917)


def _w(*shape):
    return _K.uniform(0.5, 1.5, shape)


# fixed weights for reducing array results non-uniformly, named by shape
W2, W3, W4, W5, W6, W7, W8, W10, W12 = (_w(n) for n in (2, 3, 4, 5, 6, 7, 8, 10, 12))
W22, W23, W24, W32, W33, W34, W35, W42, W43, W44, W45, W54, W62, W64 = (
    _w(*s) for s in [(2, 2), (2, 3), (2, 4), (3, 2), (3, 3), (3, 4), (3, 5), (4, 2), (4, 3),
                     (4, 4), (4, 5), (5, 4), (6, 2), (6, 4)])
W55 = _w(5, 5)
W222, W223, W224, W232, W234, W243, W322, W324, W342, W423, W432 = (
    _w(*s) for s in [(2, 2, 2), (2, 2, 3), (2, 2, 4), (2, 3, 2), (2, 3, 4), (2, 4, 3),
                     (3, 2, 2), (3, 2, 4), (3, 4, 2), (4, 2, 3), (4, 3, 2)])
# constant operands (autograd's tests hold one operand fixed)
C34 = _K.standard_normal((3, 4))
C32 = _K.standard_normal((3, 2))
C234 = _K.standard_normal((2, 3, 4))
C6 = _K.standard_normal(6)
MASK34 = _K.uniform(size=(3, 4)) > 0.5
EPS52 = _K.standard_normal((5, 2))  # fixed "noise" of the stochastic objectives
P0 = 1.7353  # a fixed exponent (test_power_arg0 draws one at random)
X0 = 1.4641  # a fixed base (test_power_arg1)

AG = "autograd tests/"
SYS = AG + "test_systematic.py "
NUM = AG + "test_numpy.py "
SCAL = AG + "test_scalar_ops.py "
BIN = AG + "test_binary_ops.py "
LIN = AG + "test_linalg.py "
GRA = AG + "test_graphs.py "
WRA = AG + "test_wrappers.py "
EX = "autograd examples/"
TUT = "autograd docs/tutorial.md "


# == unary ufuncs (test_systematic.py unary_ufunc_check: a (3, 2) array) ================

@case(SYS + "test_sin", unif(-2, 2, 3, 2))
def ufunc_sin(x):
    return np.sum(W32 * np.sin(x))


@case(SYS + "test_abs", signed(0.1, 4.0, 3, 2))
def ufunc_abs(x):
    return np.sum(W32 * np.abs(x))


@case(SYS + "test_absolute", signed(0.1, 4.0, 3, 2))
def ufunc_absolute(x):
    return np.sum(W32 * np.absolute(x))


@case(SYS + "test_arccosh", unif(1.1, 4.0, 3, 2))
def ufunc_arccosh(x):
    return np.sum(W32 * np.arccosh(x))


@case(SYS + "test_arcsinh", unif(-0.9, 0.9, 3, 2))
def ufunc_arcsinh(x):
    return np.sum(W32 * np.arcsinh(x))


@case(SYS + "test_arctanh", unif(-0.9, 0.9, 3, 2))
def ufunc_arctanh(x):
    return np.sum(W32 * np.arctanh(x))


@case(SYS + "test_ceil (times x, so the gradient is not zero)", off_grid(-1.5, 1.5, 3, 2))
def ufunc_ceil(x):
    return np.sum(W32 * np.ceil(x) * x)


@case(SYS + "test_cos", unif(-2, 2, 3, 2))
def ufunc_cos(x):
    return np.sum(W32 * np.cos(x))


@case(SYS + "test_cosh", unif(-2, 2, 3, 2))
def ufunc_cosh(x):
    return np.sum(W32 * np.cosh(x))


@case(SYS + "test_deg2rad", unif(-2, 2, 3, 2))
def ufunc_deg2rad(x):
    return np.sum(W32 * np.deg2rad(x))


@case(SYS + "test_degrees", unif(-2, 2, 3, 2))
def ufunc_degrees(x):
    return np.sum(W32 * np.degrees(x) / 50.0)


@case(SYS + "test_exp", unif(-2, 2, 3, 2))
def ufunc_exp(x):
    return np.sum(W32 * np.exp(x))


@case(SYS + "test_exp2", unif(-2, 2, 3, 2))
def ufunc_exp2(x):
    return np.sum(W32 * np.exp2(x))


@case(SYS + "test_expm1", unif(-2, 2, 3, 2))
def ufunc_expm1(x):
    return np.sum(W32 * np.expm1(x))


@case(SYS + "test_fabs", signed(0.1, 2.0, 3, 2))
def ufunc_fabs(x):
    return np.sum(W32 * np.fabs(x))


@case(SYS + "test_floor (times x)", off_grid(-1.5, 1.5, 3, 2))
def ufunc_floor(x):
    return np.sum(W32 * np.floor(x) * x)


@case(SYS + "test_log", unif(0.2, 2.0, 3, 2))
def ufunc_log(x):
    return np.sum(W32 * np.log(x))


@case(SYS + "test_log10", unif(0.2, 2.0, 3, 2))
def ufunc_log10(x):
    return np.sum(W32 * np.log10(x))


@case(SYS + "test_log1p", unif(0.2, 2.0, 3, 2))
def ufunc_log1p(x):
    return np.sum(W32 * np.log1p(x))


@case(SYS + "test_log2", unif(0.2, 2.0, 3, 2))
def ufunc_log2(x):
    return np.sum(W32 * np.log2(x))


@case(SYS + "test_rad2deg", unif(-2, 2, 3, 2))
def ufunc_rad2deg(x):
    return np.sum(W32 * np.rad2deg(x) / 50.0)


@case(SYS + "test_radians", unif(-2, 2, 3, 2))
def ufunc_radians(x):
    return np.sum(W32 * np.radians(x))


@case(SYS + "test_sign (times x**2)", signed(0.1, 2.0, 3, 2))
def ufunc_sign(x):
    return np.sum(W32 * np.sign(x) * x ** 2)


@case(SYS + "test_sinh", unif(-2, 2, 3, 2))
def ufunc_sinh(x):
    return np.sum(W32 * np.sinh(x))


@case(SYS + "test_sqrt", unif(1.0, 3.0, 3, 2))
def ufunc_sqrt(x):
    return np.sum(W32 * np.sqrt(x))


@case(SYS + "test_square", unif(-2, 2, 3, 2))
def ufunc_square(x):
    return np.sum(W32 * np.square(x))


@case(SYS + "test_tan", unif(-1.1, 1.1, 3, 2))
def ufunc_tan(x):
    return np.sum(W32 * np.tan(x))


@case(SYS + "test_tanh", unif(-2, 2, 3, 2))
def ufunc_tanh(x):
    return np.sum(W32 * np.tanh(x))


@case(SYS + "test_real (of a complex intermediate)", unif(-2, 2, 3, 2))
def ufunc_real(x):
    return np.sum(W32 * np.real(np.exp(1j * x) * (2.0 - 1.0j)))


@case(SYS + "test_real_ic", unif(-2, 2, 3, 2))
def ufunc_real_if_close(x):
    return np.sum(W32 * np.sin(np.real_if_close(x * (1.0 + 0.0j))))


@case(SYS + "test_imag (of a complex intermediate)", unif(-2, 2, 3, 2))
def ufunc_imag(x):
    return np.sum(W32 * np.imag(x * (1.0 + 2.0j)) * x)


@case(SYS + "test_conj", unif(-2, 2, 3, 2))
def ufunc_conj(x):
    return np.sum(W32 * np.real(np.conj(np.exp(1j * x)) * (0.5 + 1.5j)))


@case(SYS + "test_conjugate", unif(-2, 2, 3, 2))
def ufunc_conjugate(x):
    return np.sum(W32 * np.imag(np.conjugate(x * (1.0 - 0.5j)) * np.exp(1j * x)))


@case(SYS + "test_angle (of x + 1.5j)", unif(-2, 2, 3, 2))
def ufunc_angle(x):
    return np.sum(W32 * np.angle(x + 1.5j))


# == scalar functions of floats (test_scalar_ops.py: 3.0 * f(x)) ==========================

@case(SCAL + "test_abs", signed(0.5, 1.5))
def scalar_abs(x):
    return 3.0 * np.abs(x)


@case(SCAL + "test_absolute", signed(0.5, 1.5))
def scalar_absolute(x):
    return 3.0 * np.absolute(x)


@case(SCAL + "test_sin", unif(-2, 2))
def scalar_sin(x):
    return 3.0 * np.sin(x)


@case(SCAL + "test_sign (gradient zero)", signed(0.5, 1.5))
def scalar_sign(x):
    return 3.0 * np.sign(x)


@case(SCAL + "test_exp", unif(-2, 2))
def scalar_exp(x):
    return 3.0 * np.exp(x)


@case(SCAL + "test_log", unif(0.2, 2.0))
def scalar_log(x):
    return 3.0 * np.log(x)


@case(SCAL + "test_log2", unif(0.2, 2.0))
def scalar_log2(x):
    return 3.0 * np.log2(x)


@case(SCAL + "test_log10", unif(0.2, 2.0))
def scalar_log10(x):
    return 3.0 * np.log10(x)


@case(SCAL + "test_log1p", unif(0.2, 2.0))
def scalar_log1p(x):
    return 3.0 * np.log1p(x)


@case(SCAL + "test_expm1", unif(0.0, 2.0))
def scalar_expm1(x):
    return 3.0 * np.expm1(x)


@case(SCAL + "test_exp2", unif(0.0, 2.0))
def scalar_exp2(x):
    return 3.0 * np.exp2(x)


@case(SCAL + "test_neg", unif(-2, 2))
def scalar_neg(x):
    return 3.0 * -x


@case(SCAL + "test_cos", unif(-2, 2))
def scalar_cos(x):
    return 3.0 * np.cos(x)


@case(SCAL + "test_tan", unif(-1.1, 1.1))
def scalar_tan(x):
    return 3.0 * np.tan(x)


@case(SCAL + "test_cosh", unif(-2, 2))
def scalar_cosh(x):
    return 3.0 * np.cosh(x)


@case(SCAL + "test_sinh", unif(-2, 2))
def scalar_sinh(x):
    return 3.0 * np.sinh(x)


@case(SCAL + "test_tanh", unif(-2, 2))
def scalar_tanh(x):
    return 3.0 * np.tanh(x)


@case(SCAL + "test_arccos", unif(-0.8, 0.8))
def scalar_arccos(x):
    return 3.0 * np.arccos(x)


@case(SCAL + "test_arcsin", unif(-0.8, 0.8))
def scalar_arcsin(x):
    return 3.0 * np.arcsin(x)


@case(SCAL + "test_arctan", unif(-2, 2))
def scalar_arctan(x):
    return 3.0 * np.arctan(x)


@case(SCAL + "test_arccosh", unif(1.2, 3.0))
def scalar_arccosh(x):
    return 3.0 * np.arccosh(x)


@case(SCAL + "test_arcsinh", unif(-2, 2))
def scalar_arcsinh(x):
    return 3.0 * np.arcsinh(x)


@case(SCAL + "test_arctanh", unif(-0.8, 0.8))
def scalar_arctanh(x):
    return 3.0 * np.arctanh(x)


@case(SCAL + "test_sqrt", unif(0.5, 10.0))
def scalar_sqrt(x):
    return 3.0 * np.sqrt(x)


@case(SCAL + "test_power_arg0", unif(1.0, 2.0))
def scalar_power_arg0(x):
    return np.power(x, P0)


@case(SCAL + "test_power_arg0 (y == 0 at x == 0, autograd issue #116)", fixed(0.0))
def scalar_power_zero_exponent(x):
    return np.power(x, 0.0)


@case(SCAL + "test_power_arg0 (y == 0, array with a zero entry)",
      fixed([0.0, 0.5, -1.2, 2.0]))
def power_zero_exponent_array(x):
    return np.sum(np.power(x, 0.0) * W4) + np.sum(x * W4)


@case(SCAL + "test_power_arg1", unif(0.0, 1.0))
def scalar_power_arg1(y):
    return np.power(X0, y)


@case(SCAL + "test_power_arg1_zero (0.0 ** y)", unif(0.3, 1.0))
def scalar_power_zero_base(y):
    return np.power(0.0, y) + y


@case(SCAL + "test_mod_arg0 / test_mod_arg1", unif(0.1, 0.4), unif(0.6, 0.9))
def scalar_mod(x, y):
    return np.mod(x, y)


@case(SCAL + "test_divide_arg0 / arg1", unif(0.1, 1.0), unif(0.5, 1.0))
def scalar_divide(x, y):
    return np.divide(x, y)


@case(SCAL + "test_multiply_arg0 / arg1", unif(0.0, 1.0), unif(0.0, 1.0))
def scalar_multiply(x, y):
    return np.multiply(x, y)


@case(SCAL + "test_true_divide_arg0 / arg1", unif(0.1, 1.0), unif(0.5, 1.0))
def scalar_true_divide(x, y):
    return np.true_divide(x, y)


@case(SCAL + "test_reciprocal", unif(0.5, 1.0))
def scalar_reciprocal(x):
    return np.reciprocal(x)


@case(SCAL + "test_negative", unif(0.0, 1.0))
def scalar_negative(x):
    return np.negative(x)


@case(SCAL + "test_rad2deg", unif(0.0, 10.0))
def scalar_rad2deg(x):
    return 3.0 * np.rad2deg(x)


@case(SCAL + "test_deg2rad", unif(0.0, 10.0))
def scalar_deg2rad(x):
    return 3.0 * np.deg2rad(x)


@case(SCAL + "test_radians", unif(0.0, 10.0))
def scalar_radians(x):
    return 3.0 * np.radians(x)


@case(SCAL + "test_degrees", unif(0.0, 10.0))
def scalar_degrees(x):
    return 3.0 * np.degrees(x)


@case(SCAL + "test_sinc", unif(0.2, 9.8))
def scalar_sinc(x):
    return 3.0 * np.sinc(x)


# == binary ufuncs and operators ==========================================================

@case(SYS + "test_add", unif(-2, 2, 3, 2), unif(-2, 2, 3, 2))
def binary_add(x, y):
    return np.sum(W32 * np.sin(np.add(x, y)))


@case(SYS + "test_logaddexp", unif(-2, 2, 3, 2), unif(-2, 2, 3, 2))
def binary_logaddexp(x, y):
    return np.sum(W32 * np.logaddexp(x, y))


@case(SYS + "test_logaddexp2", unif(-2, 2, 3, 2), unif(-2, 2, 3, 2))
def binary_logaddexp2(x, y):
    return np.sum(W32 * np.logaddexp2(x, y))


@case(SYS + "test_remainder", make=_mod_args((3, 2), 0.7, 1.9))
def binary_remainder(x, y):
    return np.sum(W32 * np.remainder(x, y))


@case(SYS + "test_true_divide", unif(-2, 2, 3, 2), unif(0.8, 1.2, 3, 2))
def binary_true_divide(x, y):
    return np.sum(W32 * np.true_divide(x, y))


@case(SYS + "test_true_divide_neg", unif(-2, 2, 3, 2), unif(-2.0, -0.3, 3, 2))
def binary_true_divide_neg(x, y):
    return np.sum(W32 * np.true_divide(x, y))


@case(SYS + "test_mod", make=_mod_args((3, 2), 0.8, 2.1))
def binary_mod(x, y):
    return np.sum(W32 * np.mod(x, y))


@case(SYS + "test_mod_neg", make=_mod_args((3, 2), -2.0, -0.3))
def binary_mod_neg(x, y):
    return np.sum(W32 * np.mod(x, y))


@case(SYS + "test_op_mul", unif(-2, 2, 3, 2), unif(-2, 2, 3, 2))
def op_mul(x, y):
    return np.sum(W32 * (x * y))


@case(SYS + "test_op_add", unif(-2, 2, 3, 2), unif(-2, 2, 3, 2))
def op_add(x, y):
    return np.sum(W32 * np.tanh(x + y))


@case(SYS + "test_op_sub", unif(-2, 2, 3, 2), unif(-2, 2, 3, 2))
def op_sub(x, y):
    return np.sum(W32 * np.tanh(x - y))


@case(SYS + "test_op_mod", make=_mod_args((3, 2), 0.3, 2.0))
def op_mod(x, y):
    return np.sum(W32 * (x % y))


@case(SYS + "test_op_mod_neg", make=_mod_args((3, 2), -2.0, -0.3))
def op_mod_neg(x, y):
    return np.sum(W32 * (x % y))


@case(BIN + "test_div (make_gap_from_zero)", signed(0.7, 2.0, 3, 4), signed(0.7, 2.0, 3, 4))
def op_div(x, y):
    return np.sum(W34 * (x / y))


@case(SYS + "test_op_pow", unif(0.7, 2.0, 3, 2), unif(-2, 2, 3, 2))
def op_pow(x, y):
    return np.sum(W32 * x ** y)


@case(BIN + "test_mul (scalar, matrix)", unif(-2, 2), unif(-2, 2, 3, 4))
def mul_scalar_matrix(s, x):
    return np.sum(W34 * np.sin(s * x))


@case(BIN + "test_mul (vector, matrix)", unif(-2, 2, 4), unif(-2, 2, 3, 4))
def mul_vector_matrix(v, x):
    return np.sum(W34 * (v * x))


@case(BIN + "test_mul (row, matrix)", unif(-2, 2, 1, 4), unif(-2, 2, 3, 4))
def mul_row_matrix(r, x):
    return np.sum(W34 * (r * x))


@case(BIN + "test_mul (matrix, row)", unif(-2, 2, 3, 4), unif(-2, 2, 1, 4))
def mul_matrix_row(x, r):
    return np.sum(W34 * np.sin(x * r))


@case(BIN + "test_add (vector, row)", unif(-2, 2, 4), unif(-2, 2, 1, 4))
def add_vector_row(v, r):
    return np.sum(W4 * np.sin(v + r))


@case(BIN + "test_sub (row, scalar)", unif(-2, 2, 1, 4), unif(-2, 2))
def sub_row_scalar(r, s):
    return np.sum(W4 * np.sin(r - s))


@case(BIN + "test_div (matrix, vector)", signed(0.7, 2.0, 3, 4), signed(0.7, 2.0, 4))
def div_matrix_vector(x, v):
    return np.sum(W34 * (x / v))


@case(BIN + "test_div (scalar, matrix)", unif(0.7, 2.0), signed(0.7, 2.0, 3, 4))
def div_scalar_matrix(s, x):
    return np.sum(W34 * (s / x))


@case(BIN + "test_pow (matrix, vector)", unif(1.1, 3.0, 3, 4), unif(-2, 2, 4))
def pow_matrix_vector(x, v):
    return np.sum(W34 * x ** v)


@case(BIN + "test_pow (scalar, matrix)", unif(1.1, 3.0), unif(-1, 1, 3, 4))
def pow_scalar_matrix(s, x):
    return np.sum(W34 * s ** x)


@case(BIN + "test_pow (matrix, scalar)", unif(1.1, 3.0, 3, 4), unif(-2, 2))
def pow_matrix_scalar(x, s):
    return np.sum(W34 * x ** s)


@case(BIN + "test_arctan2 (vector, matrix)", signed(0.3, 2.0, 4), signed(0.3, 2.0, 3, 4))
def arctan2_vector_matrix(v, x):
    return np.sum(W34 * np.arctan2(v, x))


@case(BIN + "test_arctan2 (matrix, scalar)", signed(0.3, 2.0, 3, 4), unif(0.3, 2.0))
def arctan2_matrix_scalar(x, s):
    return np.sum(W34 * np.arctan2(x, s))


@case(BIN + "test_hypot (row, matrix)", unif(-2, 2, 1, 4), signed(0.3, 2.0, 3, 4))
def hypot_row_matrix(r, x):
    return np.sum(W34 * np.hypot(r, x))


@case(BIN + "test_hypot (vector, vector)", signed(0.3, 2.0, 4), unif(-2, 2, 4))
def hypot_vectors(u, v):
    return np.sum(W4 * np.hypot(u, v))


@case(BIN + "test_comparison_grads (plus a smooth term)", make=_apart((3, 4)))
def comparisons(x, y):
    counts = (np.sum(x < y) + np.sum(x <= y) + np.sum(x > y) + np.sum(x >= y)
              + np.sum(x == y) + np.sum(x != y) + 0.0)
    return counts + np.sum(W34 * x * y)


@case(AG + "test_core.py test_add/sub/mul/div/pow (floats)", unif(0.5, 1.0), unif(1.5, 2.0))
def core_arithmetic(x, y):
    return (x + y) * (x - y) + x * y / (x + 1.0) + x ** y + y ** x


@case(AG + "test_core.py test_mod (floats; y / x between 2.3 and 2.6)", unif(0.6, 0.65),
      unif(1.5, 1.55))
def core_mod(x, y):
    return x % y + y % x


@case(AG + "test_truediv.py test_div", signed(0.7, 2.0, 4), signed(0.7, 2.0, 3, 4))
def truediv(x, y):
    return np.sum(W34 * (x / y))


@case(SYS + "test_maximum", make=_apart((3, 4)))
def maximum(x, y):
    return np.sum(W34 * np.maximum(x, y))


@case(SYS + "test_minimum", make=_apart((3, 4)))
def minimum(x, y):
    return np.sum(W34 * np.minimum(x, y))


@case(SYS + "test_fmax", make=_apart((3, 4)))
def fmax(x, y):
    return np.sum(W34 * np.fmax(x, y))


@case(SYS + "test_fmin", make=_apart((3, 4)))
def fmin(x, y):
    return np.sum(W34 * np.fmin(x, y))


@case(SYS + "test_maximum (row against matrix)", signed(0.3, 2.0, 1, 4))
def maximum_broadcast(r):
    return np.sum(W34 * np.maximum(r, C34 * 0.0)) + np.sum(r ** 3)


# == reductions (test_systematic.py stat_check, test_numpy.py) ============================

@case(SYS + "test_sum (float)", unif(-2, 2))
def sum_float(x):
    return np.sum(x) * 2.0 + np.sum(x * x)


@case(SYS + "test_sum (vector)", unif(-2, 2, 3))
def sum_vector(x):
    return np.sum(np.sin(x))


@case(SYS + "test_sum (axis=0, keepdims)", unif(-2, 2, 2, 3))
def sum_axis0_keepdims(x):
    return np.sum(W3 * np.sin(np.sum(x, axis=0, keepdims=True)))


@case(SYS + "test_sum (axis=1)", unif(-2, 2, 2, 3))
def sum_axis1(x):
    return np.sum(W2 * np.sin(np.sum(x, axis=1)))


@case(SYS + "test_sum (row, keepdims)", unif(-2, 2, 1, 3))
def sum_row_keepdims(x):
    return np.sum(np.sin(np.sum(x * W3, keepdims=True)))


@case(NUM + "test_sum_with_axis_tuple", unif(-2, 2, 2, 3, 4))
def sum_axis_tuple(x):
    return np.sum(W2 * np.sin(np.sum(x, axis=(1, 2))))


@case(SYS + "test_mean (float)", unif(-2, 2))
def mean_float(x):
    return np.mean(x) * x


@case(SYS + "test_mean (vector)", unif(-2, 2, 3))
def mean_vector(x):
    return np.sin(np.mean(x * W3))


@case(SYS + "test_mean (axis=0, keepdims)", unif(-2, 2, 2, 3))
def mean_axis0_keepdims(x):
    return np.sum(W3 * np.sin(np.mean(x, axis=0, keepdims=True)))


@case(SYS + "test_mean (axis=1)", unif(-2, 2, 2, 3))
def mean_axis1(x):
    return np.sum(W2 * np.sin(np.mean(x, axis=1)))


@case(SYS + "test_mean (row, keepdims)", unif(-2, 2, 1, 3))
def mean_row_keepdims(x):
    return np.sum(np.sin(np.mean(x * W3, keepdims=True)))


@case(SYS + "test_max (float)", unif(-2, 2))
def max_float(x):
    return np.max(x) * x


@case(SYS + "test_max (vector)", distinct(-2, 2, 3))
def max_vector(x):
    return np.max(x * W3)


@case(SYS + "test_max (axis=0, keepdims)", distinct(-2, 2, 2, 3))
def max_axis0_keepdims(x):
    return np.sum(W3 * np.max(x, axis=0, keepdims=True))


@case(SYS + "test_max (axis=1)", distinct(-2, 2, 2, 3))
def max_axis1(x):
    return np.sum(W2 * np.max(x, axis=1))


@case(SYS + "test_max (row)", distinct(-2, 2, 1, 3))
def max_row(x):
    return np.sin(np.max(x))


@case(NUM + "test_max_axis", distinct(-3, 3, 2, 3, 4))
def max_axis_3d(x):
    return np.sum(W24 * np.max(x, axis=1))


@case(NUM + "test_max_axis_keepdims", distinct(-3, 3, 2, 3, 4))
def max_axis_3d_keepdims(x):
    return np.sum(W24[:, None, :] * np.max(x, axis=1, keepdims=True))


@case(SYS + "test_min (float)", unif(-2, 2))
def min_float(x):
    return np.min(x) * x


@case(SYS + "test_min (vector)", distinct(-2, 2, 3))
def min_vector(x):
    return np.min(x * W3)


@case(SYS + "test_min (axis=0, keepdims)", distinct(-2, 2, 2, 3))
def min_axis0_keepdims(x):
    return np.sum(W3 * np.min(x, axis=0, keepdims=True))


@case(SYS + "test_min (axis=1)", distinct(-2, 2, 2, 3))
def min_axis1(x):
    return np.sum(W2 * np.min(x, axis=1))


@case(NUM + "test_min_axis", distinct(-3, 3, 2, 3, 4))
def min_axis_3d(x):
    return np.sum(W24 * np.min(x, axis=1))


@case(NUM + "test_min_axis_keepdims", distinct(-3, 3, 2, 3, 4))
def min_axis_3d_keepdims(x):
    return np.sum(W24[:, None, :] * np.min(x, axis=1, keepdims=True))


@case(AG + "numpy_vjps.py amax/amin (np.amax, np.amin)", distinct(-2, 2, 3, 4))
def amax_amin(x):
    return np.sum(W4 * np.amax(x, axis=0)) + np.sum(W3 * np.amin(x, axis=1))


@case(SYS + "test_prod (float)", unif(0.5, 2.0))
def prod_float(x):
    return np.prod(x) * np.sin(x)


@case(SYS + "test_prod (vector)", unif(0.5, 2.0, 3))
def prod_vector(x):
    return np.prod(x)


@case(SYS + "test_prod (axis=0, keepdims)", unif(0.5, 2.0, 2, 3))
def prod_axis0_keepdims(x):
    return np.sum(W3 * np.prod(x, axis=0, keepdims=True))


@case(SYS + "test_prod (axis=1)", unif(0.5, 2.0, 2, 3))
def prod_axis1(x):
    return np.sum(W2 * np.prod(x, axis=1))


@case(NUM + "test_prod_1 (entries away from zero)", unif(0.1, 1.0, 2, 3))
def prod_all(x):
    return np.prod(x)


@case(NUM + "test_prod_4", unif(0.1, 1.5, 7))
def prod_long_vector(x):
    return np.prod(x)


@case(NUM + "test_prod with a negative entry", signed(0.3, 1.5, 2, 3))
def prod_signed(x):
    return np.sum(W3 * np.prod(x, axis=0))


@case(SYS + "test_var (vector)", distinct(-2, 2, 3))
def var_vector(x):
    return np.var(x)


@case(SYS + "test_var (axis=0, keepdims)", distinct(-2, 2, 2, 3))
def var_axis0_keepdims(x):
    return np.sum(W3 * np.var(x, axis=0, keepdims=True))


@case(SYS + "test_var (axis=1)", unif(-2, 2, 2, 3))
def var_axis1(x):
    return np.sum(W2 * np.var(x, axis=1))


@case(SYS + "test_var (row, keepdims)", unif(-2, 2, 1, 3))
def var_row_keepdims(x):
    return np.sum(np.var(x * W3, keepdims=True))


@case(SYS + "test_std (vector)", distinct(-2, 2, 3))
def std_vector(x):
    return np.std(x)


@case(SYS + "test_std (axis=0, keepdims)", distinct(-2, 2, 2, 3))
def std_axis0_keepdims(x):
    return np.sum(W3 * np.std(x, axis=0, keepdims=True))


@case(SYS + "test_std (axis=1)", distinct(-2, 2, 2, 3))
def std_axis1(x):
    return np.sum(W2 * np.std(x, axis=1))


@case(SYS + "test_std (row, keepdims)", distinct(-2, 2, 1, 3))
def std_row_keepdims(x):
    return np.sum(np.std(x * W3, keepdims=True))


@case(NUM + "test_var_ddof (ddof=1)", unif(-2, 2, 3))
def var_ddof1(x):
    return np.var(x, ddof=1)


@case(NUM + "test_var_ddof (axis=1, keepdims, ddof=2)", unif(-2, 2, 3, 4))
def var_ddof2_axis1(x):
    return np.sum(W3[:, None] * np.var(x, axis=1, keepdims=True, ddof=2))


@case(NUM + "test_std_ddof (ddof=1)", distinct(-2, 2, 3))
def std_ddof1(x):
    return np.std(x, ddof=1)


@case(NUM + "test_std_ddof (axis=1, ddof=2)", distinct(-2, 2, 3, 4))
def std_ddof2_axis1(x):
    return np.sum(W3 * np.std(x, axis=1, ddof=2))


@case(NUM + "test_mean_list_of_boxes", unif(-2, 2))
def mean_of_list(x):
    return np.mean([x, x + 2]) * x


@case(NUM + "test_std_list_of_boxes (plus x**2)", unif(-2, 2))
def std_of_list(x):
    return np.std([x, x + 2]) + x ** 2


@case(NUM + "test_var_list_of_boxes (of [x, 2x])", unif(0.5, 2))
def var_of_list(x):
    return np.var([x, 2.0 * x])


@case(NUM + "test_non_numpy_sum", unif(-2, 2, 3, 4), unif(-2, 2, 3, 4))
def builtin_sum_of_arrays(x, y):
    return np.sum(W34 * np.sin(sum([x, y])))


@case(NUM + "test_max_equal_values (np.max([x, x]) == x)", unif(0.8, 1.5))
def max_equal_values(x):
    return np.max(np.array([x, x]))


@case(NUM + "test_max_equal_values_2d (x = 1: a tie in every row)", unif(0.8, 1.5))
def max_equal_values_2d(x):
    return np.sum(np.array([1.0, 2.0]) * np.max(np.array([[x, x], [x, 0.5]]), axis=1))


@case(NUM + "test_max_equal_values_2d (x = -1)", unif(-1.5, -0.8))
def max_equal_values_2d_negative(x):
    return np.sum(np.array([1.0, 2.0]) * np.max(np.array([[x, x], [x, 0.5]]), axis=1))


@case(NUM + "test_min_3_way_equality", unif(0.8, 1.5))
def min_three_way_tie(x):
    m = np.array([[x, x, x], [x, 0.5, 0.5], [0.5, 0.5, 0.5], [x, x, 0.5]])
    return np.sum(np.array([1.0, 2.0, 3.0]) * np.min(m, axis=0))


@case(NUM + "test_maximum_equal_values", unif(-1.5, 1.5))
def maximum_equal_values(x):
    return np.maximum(x, x) * 2.0


@case(NUM + "test_maximum_equal_values_2d", unif(0.8, 1.5))
def maximum_equal_values_2d(x):
    m = np.maximum(np.array([x, x, 0.5]), np.array([[x, 0.5, x], [x, x, 0.5]]))
    return np.sum(W23 * m)


# == cumulative, sorting, clipping, where =================================================

@case(NUM + "test_cumsum_axis0", unif(-2, 2, 3, 4))
def cumsum_axis0(x):
    return np.sum(W34 * np.cumsum(x, axis=0))


@case(NUM + "test_cumsum_axis1", unif(-2, 2, 3, 4))
def cumsum_axis1(x):
    return np.sum(W34 * np.cumsum(x, axis=1))


@case(NUM + "test_cumsum_1d", unif(-2, 2, 5))
def cumsum_1d(x):
    return np.sum(W5 * np.cumsum(x))


@case(NUM + "test_cumsum_no_axis", unif(-2, 2, 3, 4))
def cumsum_flat(x):
    return np.sum(W12 * np.cumsum(x))


@case(AG + "numpy_vjps.py cumprod (no vjp in autograd)", unif(0.5, 1.5, 5))
def cumprod(x):
    return np.sum(W5 * np.cumprod(x))


@case(SYS + "test_sort", distinct(-2, 2, 7))
def sort(x):
    return np.sum(W7 * np.sort(x))


@case(SYS + "test_sort (2-d, last axis)", distinct(-2, 2, 3, 4))
def sort_2d(x):
    return np.sum(W34 * np.sort(x))


@case(SYS + "test_partition (kth=3)", distinct(-2, 2, 7))
def partition(x):
    return np.sum(W7 * np.partition(x, 3))


@case(NUM + "test_clip (entries away from 0.1 and 1.1)",
      make=lambda rng: (rng.choice([-0.5, 0.6, 1.6], (5, 5)) + rng.uniform(-0.3, 0.3, (5, 5)),))
def clip(x):
    return np.sum(np.sin(np.clip(x, a_min=0.1, a_max=1.1)) * x)


@case(NUM + "test_where", unif(-2, 2, 3, 4), unif(-2, 2, 3, 4))
def where(x, y):
    return np.sum(W34 * np.where(MASK34, x, y))


@case(NUM + "test_where (condition on the values)", signed(0.2, 2.0, 3, 4))
def where_on_values(x):
    return np.sum(W34 * np.where(x > 0, np.sin(x), x ** 2))


@case(SYS + "test_select", unif(-2, 2, 3, 4))
def select(x):
    return np.sum(W34 * np.select([MASK34, ~MASK34], [x ** 2, np.sin(x)], default=1.1))


@case(NUM + "test_nan_to_num", unif(-2, 2, 4))
def nan_to_num(x):
    y = np.array([0.0, np.nan, np.inf, -np.inf])
    return np.sum(np.sin(np.nan_to_num(x + y)))


@case(SYS + "test_diff (n=1, axis=0)", unif(-2, 2, 4, 3))
def diff_axis0(x):
    return np.sum(W33 * np.diff(x, axis=0))


@case(SYS + "test_diff (n=2, axis=1)", unif(-2, 2, 3, 5))
def diff_n2_axis1(x):
    return np.sum(W33 * np.diff(x, n=2, axis=1))


@case(NUM + "test_gradient", unif(-2, 2, 6))
def gradient_1d(x):
    return np.sum(W6 * np.gradient(x))


@case(SYS + "test_gradient (axis=1)", unif(-2, 2, 3, 4))
def gradient_axis1(x):
    return np.sum(W34 * np.gradient(x, axis=1))


@case(NUM + "test_linspace", unif(1.0, 1.5), unif(3.0, 3.5))
def linspace(a, b):
    return np.sum(W5 * np.linspace(a, b, 5) ** 2)


@case(NUM + "test_astype", unif(-2, 2, 3))
def astype(x):
    return np.sum(np.sin(x.astype("float64")))


# == shapes: reshape, transpose, flips, rolls, repeats ====================================

@case(NUM + "test_reshape_method", unif(-2, 2, 2, 3, 4))
def reshape_method(x):
    return np.sum(W64 * x.reshape((2 * 3, 4)))


@case(NUM + "test_reshape_call", unif(-2, 2, 2, 3, 4))
def reshape_call(x):
    return np.sum(W64 * np.reshape(x, (2 * 3, 4)))


@case(NUM + "test_reshape_method_nolist", unif(-2, 2, 2, 3, 4))
def reshape_method_nolist(x):
    return np.sum(W64 * x.reshape(2 * 3, 4))


@case(NUM + "test_reshape (-1)", unif(-2, 2, 3, 4))
def reshape_minus_one(x):
    return np.sum(W62 * np.reshape(x, (-1, 2)))


@case(NUM + "test_ravel_method", unif(-2, 2, 3, 4))
def ravel_method(x):
    return np.sum(W12 * x.ravel())


@case(NUM + "test_ravel_call", unif(-2, 2, 3, 4))
def ravel_call(x):
    return np.sum(W12 * np.ravel(x))


@case(NUM + "test_flatten_method", unif(-2, 2, 3, 4))
def flatten_method(x):
    return np.sum(W12 * x.flatten())


@case(NUM + "test_transpose (x.T)", unif(-2, 2, 4, 4))
def transpose_attribute(x):
    return np.sum(W44 * x.T)


@case(TUT + "ndarray methods: x.transpose()", unif(-2, 2, 3, 4))
def transpose_method(x):
    return np.sum(W43 * x.transpose())


@case(SYS + "test_transpose (axes=None)", unif(-2, 2, 2, 3, 4))
def transpose_none(x):
    return np.sum(W432 * np.transpose(x))


@case(SYS + "test_transpose (axes=[0, 2, 1])", unif(-2, 2, 2, 3, 4))
def transpose_021(x):
    return np.sum(W243 * np.transpose(x, [0, 2, 1]))


@case(SYS + "test_transpose (axes=[2, 0, 1])", unif(-2, 2, 2, 3, 4))
def transpose_201(x):
    return np.sum(W423 * np.transpose(x, [2, 0, 1]))


@case(SYS + "test_transpose (axes=[1, 2, 0])", unif(-2, 2, 2, 3, 4))
def transpose_120(x):
    return np.sum(W342 * np.transpose(x, [1, 2, 0]))


@case(SYS + "test_moveaxis (0 -> 2)", unif(-2, 2, 2, 3, 4))
def moveaxis(x):
    return np.sum(W342 * np.moveaxis(x, 0, 2))


@case(SYS + "test_swapaxes (0, 2)", unif(-2, 2, 2, 3, 4))
def swapaxes(x):
    return np.sum(W432 * np.swapaxes(x, 0, 2))


@case(TUT + "ndarray methods: x.swapaxes", unif(-2, 2, 2, 3, 4))
def swapaxes_method(x):
    return np.sum(W243 * x.swapaxes(1, 2))


@case(SYS + "test_rollaxis (axis=2, start=0)", unif(-2, 2, 2, 3, 4))
def rollaxis(x):
    return np.sum(W423 * np.rollaxis(x, 2, 0))


@case(NUM + "test_flipud", unif(-2, 2, 3, 4))
def flipud(x):
    return np.sum(W34 * np.flipud(x))


@case(NUM + "test_fliplr", unif(-2, 2, 3, 4))
def fliplr(x):
    return np.sum(W34 * np.fliplr(x))


@case(NUM + "test_rot90", unif(-2, 2, 3, 4))
def rot90(x):
    return np.sum(W43 * np.rot90(x))


@case(NUM + "test_roll", unif(-2, 2, 4, 5))
def roll_axis1(x):
    return np.sum(W45 * np.roll(x, 2, axis=1))


@case(NUM + "test_roll_no_axis", unif(-2, 2, 4, 5))
def roll_flat(x):
    return np.sum(W45 * np.roll(x, 2))


@case(NUM + "test_squeeze_func", unif(-2, 2, 3, 1, 4))
def squeeze_func(x):
    return np.sum(W34 * np.squeeze(x))


@case(NUM + "test_squeeze_method", unif(-2, 2, 3, 1, 4))
def squeeze_method(x):
    return np.sum(W34 * x.squeeze())


@case(NUM + "test_expand_dims", unif(-2, 2, 3, 4))
def expand_dims(x):
    return np.sum(W34[:, :, None] * np.sin(np.expand_dims(x, 2)))


@case(NUM + "test_repeat (axis=1)", unif(-2, 2, 2, 3, 2))
def repeat_axis1(x):
    return np.sum(np.sin(np.repeat(x, 2, axis=1)) * np.repeat(W232, 2, axis=1))


@case(NUM + "test_repeat_axis0", unif(-2, 2, 3, 2))
def repeat_axis0(x):
    return np.sum(W62 * np.repeat(x, 2, axis=0))


@case(NUM + "test_repeat_1d_axis0", unif(-2, 2, 3))
def repeat_1d(x):
    return np.sum(W6 * np.repeat(x, 2, axis=0))


@case(NUM + "test_repeat_axis1_rep1", unif(-2, 2, 2, 3, 2))
def repeat_once(x):
    return np.sum(W232 * np.repeat(x, 1, axis=1))


@case(SYS + "test_repeat (axis=None)", unif(-2, 2, 2, 3))
def repeat_flat(x):
    return np.sum(W12 * np.repeat(x, 2))


@case(SYS + "test_tile (reps=(2, 3))", unif(-2, 2, 1, 2))
def tile_2d(x):
    return np.sum(W23[:, :, None] * np.tile(x, (2, 3)).reshape(2, 3, 2))


@case(SYS + "test_tile (reps=(3, 2, 1))", unif(-2, 2, 1, 2))
def tile_3d(x):
    return np.sum(W32[:, :, None] * np.tile(x, (3, 2, 1)))


@case(SYS + "test_tile (1-d, reps=2)", unif(-2, 2, 3))
def tile_1d(x):
    return np.sum(W6 * np.tile(x, 2))


@case(SYS + "test_atleast_1d (float)", unif(-2, 2))
def atleast_1d_float(x):
    return np.sum(np.sin(np.atleast_1d(x)))


@case(SYS + "test_atleast_2d (vector)", unif(-2, 2, 4))
def atleast_2d(x):
    return np.sum(W4 * np.atleast_2d(x) ** 2)


@case(SYS + "test_atleast_3d (matrix)", unif(-2, 2, 2, 4))
def atleast_3d(x):
    return np.sum(W24[:, :, None] * np.sin(np.atleast_3d(x)))


@case(SYS + "test_pad (constant, ((1, 2), (3, 0)))", unif(-2, 2, 2, 2))
def pad(x):
    return np.sum(W55 * np.sin(np.pad(x, ((1, 2), (3, 0)), mode="constant")))


@case(SYS + "test_pad (constant, 1)", unif(-2, 2, 3))
def pad_1d(x):
    return np.sum(W5 * np.pad(x, 1, mode="constant") ** 2)


# == indexing (test_numpy.py, tutorial) ====================================================

@case(NUM + "test_index_ints", unif(-2, 2, 3, 4, 2))
def index_ints(x):
    return np.sin(x[2, 0, 1])


@case(NUM + "test_index_slice", unif(-2, 2, 3, 4, 2))
def index_slice(x):
    return np.sum(W322 * np.sin(x[::-1, 2:4, :]))


@case(NUM + "test_index_lists", unif(-2, 2, 4, 3, 2))
def index_lists(x):
    return np.sum(W33 * np.sum(x[[0, 1, 2], :, :] ** 2, axis=2))


@case(NUM + "test_index_mixed", unif(-2, 2, 4, 5, 3))
def index_mixed(x):
    return np.sum(W32 * x[3, 2:, [0, 2]].T)


@case(NUM + "test_vector_slice", unif(-2, 2, 5))
def vector_slice(x):
    return np.sum(W2 * np.sin(x[2:4]))


@case(NUM + "test_index_slice_fanout", unif(-2, 2, 3, 6, 2))
def index_slice_fanout(x):
    y = x[::-1, 2:4, :]
    z = x[::-1, 3:5, :]
    return np.sum(np.sin(y + z) * W322)


@case(NUM + "test_index_multiple_slices", unif(-2, 2, 7))
def index_multiple_slices(x):
    y = x[2:6]
    z = y[1:3]
    return np.sum(W2 * z ** 2)


@case(NUM + "test_multi_index", unif(-2, 2, 3))
def multi_index_repeated(x):
    return np.sum(np.sin(x[[0, 0]]))


@case(NUM + "test_multi_index2", unif(-2, 2, 3))
def multi_index_repeated2(x):
    return np.sum(W3 * x[[0, 1, 0]] ** 2)


@case(NUM + "test_index_dot_slices", unif(-2, 2, 4))
def index_dot_slices(x):
    return np.dot(x[:2], x[2:])


@case(NUM + "test_len", unif(-2, 2, 3, 2))
def len_assert(x):
    assert len(x) == 3
    return np.sum(W32 * x ** 2)


@case(TUT + "indexing: negative indices and steps", unif(-2, 2, 6))
def index_negative(x):
    return x[-1] * x[-2] + np.sum(W3 * x[::-2])


@case(TUT + "indexing: np.newaxis / None", unif(-2, 2, 3), unif(-2, 2, 4))
def index_newaxis(u, v):
    return np.sum(W34 * np.sin(u[:, np.newaxis] * v[None, :]))


@case(TUT + "indexing: Ellipsis", unif(-2, 2, 2, 3, 4))
def index_ellipsis(x):
    return np.sum(W23 * x[..., 1]) + np.sum(W34 * x[0, ...])


@case(TUT + "indexing: advanced index pairs", unif(-2, 2, 3, 4))
def index_pairs(x):
    return np.sum(W3 * np.sin(x[[0, 1, 2], [1, 3, 0]]))


@case(TUT + "indexing: column list", unif(-2, 2, 3, 4))
def index_columns(x):
    return np.sum(W32 * x[:, [0, 2]] ** 2)


@case(TUT + "indexing: boolean mask (constant)", unif(-2, 2, 3, 4))
def index_mask_constant(x):
    return np.sum(np.sin(x[MASK34]))


@case(TUT + "indexing: boolean mask from the values", signed(0.2, 2.0, 3, 4))
def index_mask_values(x):
    return np.sum(x[x > 0] ** 2) - np.sum(np.sin(x[x < 0]))


@case(TUT + "indexing: array of indices from argsort", distinct(-2, 2, 5))
def index_argsort(x):
    return np.sum(W5 * x[np.argsort(x)])


@case(TUT + "indexing: element at argmax", distinct(-2, 2, 5))
def index_argmax(x):
    return x[np.argmax(x)] * np.sum(x)


@case(AG + "numpy_vjps.py take", unif(-2, 2, 5))
def take(x):
    return np.sum(W3 * np.take(x, [0, 4, 2]) ** 2)


@case(NUM + "test_diagonal (2-d)", unif(-2, 2, 4, 4))
def diagonal_2d(x):
    return np.sum(W4 * np.diagonal(x, axis1=-1, axis2=-2))


@case(NUM + "test_diagonal (3-d)", unif(-2, 2, 3, 4, 4))
def diagonal_3d(x):
    return np.sum(W34 * np.diagonal(x, axis1=-1, axis2=-2))


@case(NUM + "test_diag", unif(-2, 2, 4, 4))
def diag(x):
    return np.sum(W4 * np.diag(x))


@case(SYS + "test_diag (k=1)", unif(-2, 2, 4, 4))
def diag_k1(x):
    return np.sum(W3 * np.diag(x, k=1))


@case(SYS + "test_diag_flat (k=-1)", unif(-2, 2, 4))
def diag_flat(x):
    return np.sum(W55 * np.sin(np.diag(x, k=-1)))


@case(SYS + "test_trace (offset=0)", unif(-2, 2, 4, 4))
def trace(x):
    return np.trace(x) * np.sum(x)


@case(NUM + "test_trace (offset=1, non-square)", unif(-2, 2, 4, 5))
def trace_offset(x):
    return np.sin(np.trace(x, offset=1))


@case(NUM + "test_trace2 (offset=-1)", unif(-2, 2, 5, 4))
def trace_negative_offset(x):
    return np.sin(np.trace(x, offset=-1))


@case(NUM + "test_trace_extradims", unif(-2, 2, 3, 4, 2, 2))
def trace_extradims(x):
    return np.sum(W22 * np.trace(x, offset=1))


@case(NUM + "test_triu (k=2)", unif(-2, 2, 5, 5))
def triu(x):
    return np.sum(np.sin(np.triu(x, k=2)))


@case(NUM + "test_tril (k=2)", unif(-2, 2, 5, 5))
def tril(x):
    return np.sum(np.sin(np.tril(x, k=2)))


@case(SYS + "test_tril (k=-1)", unif(-2, 2, 4, 4))
def tril_k_minus1(x):
    return np.sum(W44 * np.tril(x, k=-1))


@case(SYS + "test_triu_3d (k=1)", unif(-2, 2, 4, 4, 2))
def triu_3d(x):
    return np.sum(np.sin(np.triu(x, k=1)))


# == joining and splitting ================================================================

@case(NUM + "test_simple_concatenate", unif(-2, 2, 2, 3, 2))
def concatenate_with_constant(x):
    return np.sum(np.sin(np.concatenate((C234[:, :, :2], x))) * np.arange(24.0).reshape(4, 3, 2))


@case(NUM + "test_concatenate_axis_0", unif(-2, 2, 2, 3, 4))
def concatenate_axis0(x):
    return np.sum(np.sin(np.concatenate((C234, x, C234))) * x[0, 0, 0])


@case(NUM + "test_concatenate_axis_1", unif(-2, 2, 2, 3, 4))
def concatenate_axis1(x):
    return np.sum(np.cos(np.concatenate((C234, x, C234), axis=1)) * x[1, 2, 3])


@case(NUM + "test_concatenate_axis_1_unnamed", unif(-2, 2, 2, 3, 4))
def concatenate_axis1_positional(x):
    return np.sum(np.cos(np.concatenate((C234, x, C234), 1)) * x[1, 0, 3])


@case(SYS + "test_concatenate_1ist", unif(-2, 2, 1), unif(-2, 2, 3))
def concatenate_list(a, b):
    return np.sum(W4 * np.sin(np.concatenate([a, b], axis=0)))


@case(SYS + "test_concatenate_2d (axis=1)", unif(-2, 2, 2, 2), unif(-2, 2, 2, 2))
def concatenate_2d(a, b):
    return np.sum(W24 * np.concatenate((a, b), axis=1) ** 2)


@case(SYS + "test_concatenate_3d (axis=2)", unif(-2, 2, 2, 2, 2), unif(-2, 2, 2, 2, 2))
def concatenate_3d(a, b):
    return np.sum(np.sin(np.concatenate((a, b), axis=2)) * np.arange(16.0).reshape(2, 2, 4))


@case(SYS + "test_vstack_1d", unif(-2, 2, 2), unif(-2, 2, 2))
def vstack_1d(a, b):
    return np.sum(W22 * np.vstack((a, b)) ** 2)


@case(SYS + "test_vstack_2d", unif(-2, 2, 2, 4), unif(-2, 2, 1, 4))
def vstack_2d(a, b):
    return np.sum(W34 * np.sin(np.vstack((a, b))))


@case(SYS + "test_vstack_3d", unif(-2, 2, 1, 3, 4), unif(-2, 2, 1, 3, 4))
def vstack_3d(a, b):
    return np.sum(W234 * np.sin(np.vstack((a, b))))


@case(SYS + "test_hstack_1d", unif(-2, 2, 2), unif(-2, 2, 2))
def hstack_1d(a, b):
    return np.sum(W4 * np.hstack((a, b)) ** 2)


@case(SYS + "test_hstack_2d", unif(-2, 2, 3, 2), unif(-2, 2, 3, 2))
def hstack_2d(a, b):
    return np.sum(W34 * np.sin(np.hstack((a, b))))


@case(SYS + "test_hstack_3d", unif(-2, 2, 2, 1, 4), unif(-2, 2, 2, 2, 4))
def hstack_3d(a, b):
    return np.sum(W234 * np.sin(np.hstack((a, b))))


@case(SYS + "test_dstack", unif(-2, 2, 2, 3), unif(-2, 2, 2, 3))
def dstack(a, b):
    return np.sum(W232 * np.sin(np.dstack((a, b))))


@case(SYS + "test_stack_1d (axis=0)", unif(-2, 2, 2), unif(-2, 2, 2))
def stack_axis0(a, b):
    return np.sum(W22 * np.stack((a, b)) ** 2)


@case(SYS + "test_stack_1d (axis=1)", unif(-2, 2, 3), unif(-2, 2, 3))
def stack_axis1(a, b):
    return np.sum(W32 * np.sin(np.stack((a, b), axis=1)))


@case(SYS + "test_column_stack_1d", unif(-2, 2, 3), unif(-2, 2, 3))
def column_stack_1d(a, b):
    return np.sum(W32 * np.column_stack((a, b)) ** 2)


@case(SYS + "test_column_stack_2d", unif(-2, 2, 2, 2), unif(-2, 2, 2, 2))
def column_stack_2d(a, b):
    return np.sum(W24 * np.sin(np.column_stack((a, b))))


@case(NUM + "test_simple_append_arr", unif(-2, 2, 3), unif(-2, 2))
def append(x, b):
    return np.sum(W4 * np.append(x, b) ** 2)


@case(NUM + "test_simple_append_list_2D", unif(-2, 2, 2, 3), unif(-2, 2, 2, 3))
def append_2d(a, b):
    return np.sum(np.sin(np.append(a, b, axis=0)) * np.arange(12.0).reshape(4, 3))


@case(NUM + "test_trace (np.split(x, 2)[0])", unif(-2, 2, 6))
def split_first(x):
    return np.sum(W3 * np.split(x, 2)[0] ** 2)


@case(SYS + "test_split_2d (indices [1, 2], axis=1)", unif(-2, 2, 3, 4))
def split_indices(x):
    a, b, c = np.split(x, [1, 2], axis=1)
    return np.sum(a * b) + np.sum(W32 * np.sin(c))


@case(SYS + "test_array_split_1d", unif(-2, 2, 7))
def array_split(x):
    parts = np.array_split(x, 3)
    return np.sum(parts[0] ** 2) + np.sum(np.sin(parts[1])) * np.sum(parts[2])


@case(SYS + "test_vsplit_2d", unif(-2, 2, 4, 3))
def vsplit(x):
    top, bottom = np.vsplit(x, 2)
    return np.sum(W23 * top * bottom)


@case(SYS + "test_hsplit_2d", unif(-2, 2, 3, 4))
def hsplit(x):
    left, right = np.hsplit(x, 2)
    return np.sum(W32 * np.sin(left) * right)


@case(SYS + "test_dsplit_3d", unif(-2, 2, 2, 2, 4))
def dsplit(x):
    front, back = np.dsplit(x, 2)
    return np.sum(W222 * front * np.cos(back))


@case(NUM + "test_r_basic", unif(-2, 2, 3, 2))
def r_basic(x):
    return np.sum(W32 * np.r_[x] ** 2)


@case(NUM + "test_r_double", unif(-2, 2, 3, 2))
def r_double(x):
    return np.sum(W62 * np.sin(np.r_[x, x]))


@case(NUM + "test_r_node_and_const", unif(-2, 2, 3, 2))
def r_node_and_const(x):
    return np.sum(W62 * np.sin(np.r_[x, C32]))


@case(NUM + "test_r_mixed", unif(-2, 2, 3, 2))
def r_mixed(x):
    return np.sum(np.sin(np.r_[x, C32, x]) * np.arange(18.0).reshape(9, 2))


@case(NUM + "test_r_slicing", unif(-2, 2, 4))
def r_slicing(x):
    return np.sum(np.sin(np.r_[x, C6, 1:4]) * np.arange(13.0))


@case(NUM + "test_c_", unif(-2, 2, 3, 2))
def c_(x):
    return np.sum(np.sin(np.c_[x, C32, x]) * np.arange(18.0).reshape(3, 6))


@case(NUM + "test_1d_array", unif(1.0, 3.0))
def array_1d(x):
    return np.sum(W3 * np.array([x, x * 1.0, x + 2.5]) ** 2)


@case(NUM + "test_2d_array", unif(1.0, 3.0))
def array_2d(x):
    return np.sum(W23 * np.array([[x, x * 1.0, x + 2.5], [x ** 2, x, x / 2.0]]))


@case(NUM + "test_1d_array_fanout", unif(1.0, 3.0))
def array_1d_fanout(x):
    a = np.array([x, x * 1.0, x + 2.5])
    return np.sum(W3 * (a + a) ** 2)


@case(NUM + "test_2d_array_fanout", unif(1.0, 3.0))
def array_2d_fanout(x):
    a = np.array([[x, x * 1.0, x + 2.5], [x ** 2, x, x / 2.0]])
    return np.sum(W23 * np.sin(a + a))


@case(NUM + "test_array_from_scalar", unif(1.0, 3.0))
def array_from_scalar(x):
    return np.sum(np.sin(np.array(x)))


@case(NUM + "test_array_from_arrays", unif(-2, 2, 3, 2))
def array_from_arrays(x):
    return np.sum(W232 * np.array([x, x]) ** 2)


@case(NUM + "test_array_from_arrays_2", unif(-2, 2, 3, 2))
def array_from_arrays_2(x):
    return np.sum(np.sin(np.array([[2 * x, x + 1], [x, x]])) * W32)


@case(TUT + "np.asarray(x, dtype=float) at the top of the function", unif(-2, 2, 4))
def asarray_float(x):
    x = np.asarray(x, dtype=float)
    return np.sum(W4 * np.sin(x))


@case(TUT + "np.array(x, dtype=float) copy at the top of the function", unif(-2, 2, 4))
def array_copy_float(x):
    y = np.array(x, dtype=float)
    return np.sum(W4 * y ** 3)


@case(TUT + "float() of a scalar computed from the input", unif(-2, 2, 3), unif(0.5, 1.5))
def float_cast(x, s):
    return float(np.sum(x ** 2)) * s + np.sum(np.sin(x))


# == products: dot, matmul, outer, inner, tensordot, einsum, kron, cross ==================

@case(NUM + "test_dot (matrix, vector)", unif(-2, 2, 3, 4), unif(-2, 2, 4))
def dot_matrix_vector(a, v):
    return np.sum(W3 * np.dot(a, v))


@case(NUM + "test_dot (matrix, matrix.T)", unif(-2, 2, 3, 4), unif(-2, 2, 3, 4))
def dot_matrix_matrix(a, b):
    return np.sum(W33 * np.dot(a, b.T))


@case(NUM + "test_dot (vector, matrix)", unif(-2, 2, 3), unif(-2, 2, 3, 4))
def dot_vector_matrix(v, a):
    return np.sum(W4 * np.dot(v, a))


@case(NUM + "test_dot (vector, vector)", unif(-2, 2, 4), unif(-2, 2, 4))
def dot_vectors(u, v):
    return np.sin(np.dot(u, v))


@case(NUM + "test_dot_with_floats (matrix, float)", unif(-2, 2, 3, 4), unif(-2, 2))
def dot_matrix_float(a, s):
    return np.sum(W34 * np.dot(a, s))


@case(NUM + "test_dot_with_floats (float, vector)", unif(-2, 2), unif(-2, 2, 4))
def dot_float_vector(s, v):
    return np.sum(W4 * np.dot(s, v))


@case(SYS + "test_dot (3-d, matrix)", unif(-2, 2, 2, 2, 3), unif(-2, 2, 3, 4))
def dot_3d_matrix(a, b):
    return np.sum(W224 * np.dot(a, b))


@case(TUT + "x.dot(y) method (autograd: unsupported)", unif(-2, 2, 3, 4), unif(-2, 2, 4))
def dot_method(a, v):
    return np.sum(W3 * a.dot(v))


@case(NUM + "test_outer", unif(-2, 2, 3), unif(-2, 2, 4))
def outer(u, v):
    return np.sum(W34 * np.outer(u, v))


@case(SYS + "test_inner (vectors)", unif(-2, 2, 3), unif(-2, 2, 3))
def inner_vectors(u, v):
    return np.sin(np.inner(u, v))


@case(SYS + "test_inner (matrices)", unif(-2, 2, 2, 3), unif(-2, 2, 4, 3))
def inner_matrices(a, b):
    return np.sum(W24 * np.inner(a, b))


@case(SYS + "test_matmul (vector, vector)", unif(-2, 2, 3), unif(-2, 2, 3))
def matmul_vectors(u, v):
    return np.sin(np.matmul(u, v))


@case(SYS + "test_matmul (3-d, 3-d)", unif(-2, 2, 2, 2, 3), unif(-2, 2, 2, 3, 4))
def matmul_3d(a, b):
    return np.sum(np.sin(np.matmul(a, b)))


@case(SYS + "test_matmul_broadcast", unif(-2, 2, 1, 2, 2), unif(-2, 2, 3, 2, 1))
def matmul_broadcast(a, b):
    return np.sum(W32[:, :, None] * np.sin(a @ b))


@case(SYS + "test_tensordot_1", unif(-2, 2, 2, 3, 2), unif(-2, 2, 3, 4, 2))
def tensordot_1(a, b):
    return np.sum(np.sin(np.tensordot(a, b, axes=[(1,), (0,)])))


@case(SYS + "test_tensordot_2", unif(-2, 2, 3, 4, 2), unif(-2, 2, 2, 3, 2))
def tensordot_2(a, b):
    return np.sum(np.sin(np.tensordot(a, b, axes=[(0,), (1,)])))


@case(SYS + "test_tensordot_3", unif(-2, 2, 2, 3, 4), unif(-2, 2, 2, 2, 3, 2))
def tensordot_3(a, b):
    return np.sum(np.sin(np.tensordot(a, b, axes=[(0, 1), (1, 2)])))


@case(SYS + "test_tensordot_4 (axes=2)", unif(-2, 2, 4, 2, 2), unif(-2, 2, 2, 2, 4))
def tensordot_4(a, b):
    return np.sum(W44 * np.tensordot(a, b, axes=2))


@case(SYS + "test_tensordot_5 (axes=0, with a float)", unif(-2, 2, 4), unif(-2, 2))
def tensordot_5(a, s):
    return np.sum(W4 * np.sin(np.tensordot(a, s, axes=0)))


@case(SYS + "test_tensordot_6 (axes=[[-1], [0]])", unif(-2, 2, 2, 6), unif(-2, 2, 6, 3))
def tensordot_6(a, b):
    return np.sum(W23 * np.tensordot(a, b, axes=[[-1], [0]]))


@case(SYS + "test_tensordot_8 (axes=[0, 1])", unif(-2, 2, 2), unif(-2, 2, 2, 2))
def tensordot_8(a, b):
    return np.sum(W2 * np.sin(np.tensordot(a, b, axes=[0, 1])))


@case(NUM + "test_tensordot_kwargs_by_position", unif(0.5, 1.5))
def tensordot_positional(x):
    return np.tensordot(x * np.ones((2, 2)), x * np.ones((2, 2)), 2)


@case(SYS + "test_einsum_transpose", unif(-2, 2, 3, 4))
def einsum_transpose(x):
    return np.sum(W43 * np.einsum("ij->ji", x))


@case(SYS + "test_einsum_matmult", unif(-2, 2, 2, 3), unif(-2, 2, 3, 4))
def einsum_matmult(a, b):
    return np.sum(W24 * np.einsum("ij,jk->ik", a, b))


@case(SYS + "test_einsum_matmult_broadcast", unif(-2, 2, 2, 2, 3), unif(-2, 2, 2, 3, 4))
def einsum_matmult_broadcast(a, b):
    return np.sum(np.sin(np.einsum("...ij,...jk->...ik", a, b)))


@case(SYS + "test_einsum_covsum", unif(-2, 2, 2, 3, 3), unif(-2, 2, 3, 3, 2))
def einsum_covsum(a, b):
    return np.sum(np.sin(np.einsum("ijk,lji->lki", a, b)))


@case(SYS + "test_einsum_ellipses", unif(-2, 2, 2, 3, 3), unif(-2, 2, 2, 3, 3))
def einsum_ellipses(a, b):
    return np.sum(np.sin(np.einsum("...jk,...lj->...lk", a, b)))


@case(SYS + "test_einsum_ellipses ('...,...->...')", unif(-2, 2, 3, 4), unif(-2, 2, 3, 4))
def einsum_elementwise(a, b):
    return np.sum(W34 * np.einsum("...,...->...", a, b))


@case(SYS + "test_einsum_ellipses_tail", unif(-2, 2, 3, 2, 4), unif(-2, 2, 2, 3, 4))
def einsum_ellipses_tail(a, b):
    return np.sum(np.sin(np.einsum("jk...,lj...->lk...", a, b)))


@case(SYS + "test_einsum_three_args", unif(-2, 2, 2, 3, 3), unif(-2, 2, 3, 3, 2),
      unif(-2, 2, 3, 3, 2))
def einsum_three_args(a, b, c):
    return np.sum(np.sin(np.einsum("ijk,lji,lli->lki", a, b, c)))


@case(SYS + "test_einsum2_matmult (sublist form)", unif(-2, 2, 2, 3), unif(-2, 2, 3, 4))
def einsum_sublists(a, b):
    return np.sum(W24 * np.einsum(a, [0, 1], b, [1, 2], [0, 2]))


@case(SYS + "test_einsum_naked_sum", unif(-2, 2, 5), unif(-2, 2, 4, 5))
def einsum_naked_sum(a, b):
    return np.sin(np.einsum("k,nk->", a, b))


@case(SYS + "test_einsum_naked_sum2", unif(-2, 2, 3, 2, 3, 2))
def einsum_naked_sum2(x):
    return np.sum(W22 * np.einsum("abcd->bd", x))


@case(SYS + "test_einsum_naked_sum_ellipsis", unif(-2, 2, 3, 5), unif(-2, 2, 3, 4, 5))
def einsum_naked_sum_ellipsis(a, b):
    return np.sum(W3 * np.einsum("...k,...nk->...", a, b))


@case(SYS + "test_einsum_no_output_indices", unif(-2, 2, 3, 4), unif(-2, 2, 3))
def einsum_implicit_output(a, b):
    return np.sum(np.sin(np.einsum("ij,k", a, b)))


@case(SYS + "test_kron (matrices)", unif(-2, 2, 3, 3), unif(-2, 2, 2, 2))
def kron_matrices(a, b):
    return np.sum(np.sin(np.kron(a, b)))


@case(SYS + "test_kron (vectors)", unif(-2, 2, 3), unif(-2, 2, 2))
def kron_vectors(a, b):
    return np.sum(W6 * np.kron(a, b))


@case(SYS + "test_kron (column, row)", unif(-2, 2, 3, 1), unif(-2, 2, 1, 2))
def kron_column_row(a, b):
    return np.sum(W32 * np.kron(a, b))


@case(SYS + "test_cross (rows of 3-vectors)", unif(-2, 2, 4, 3), unif(-2, 2, 4, 3))
def cross(a, b):
    return np.sum(W43 * np.cross(a, b))


@case(SYS + "test_cross (axisa=0, axisb=0, axisc=0)", unif(-2, 2, 3, 3), unif(-2, 2, 3, 3))
def cross_axes(a, b):
    return np.sum(W33 * np.cross(a, b, axisa=0, axisb=0, axisc=0))


@case(SYS + "test_cross (axis=0)", unif(-2, 2, 3, 3), unif(-2, 2, 3, 3))
def cross_axis0(a, b):
    return np.sum(W33 * np.sin(np.cross(a, b, axis=0)))


# == linear algebra (test_linalg.py) ======================================================

@case(LIN + "test_inv", wellcond(4))
def linalg_inv(a):
    return np.sum(W44 * np.linalg.inv(a))


@case(LIN + "test_inv_3d", wellcond(3, 2))
def linalg_inv_3d(a):
    return np.sum(np.sin(np.linalg.inv(a)))


@case(LIN + "test_solve_arg1", wellcond(4), fixed(C34.T))
def linalg_solve_arg1(a, b):
    return np.sum(W43 * np.linalg.solve(a, b))


@case(LIN + "test_solve_arg1_1d", wellcond(4), unif(-2, 2, 4))
def linalg_solve_vector(a, b):
    return np.sum(W4 * np.linalg.solve(a, b))


@case(LIN + "test_solve_arg2", unif(-2, 2, 4, 3))
def linalg_solve_arg2(b):
    return np.sum(W43 * np.linalg.solve(2.0 * np.eye(4) + 0.1 * C34.T @ C34, b))


@case(LIN + "test_solve_arg1_3d", wellcond(3, 2), unif(-2, 2, 2, 3))
def linalg_solve_3d(a, b):
    return np.sum(W23 * np.linalg.solve(a, b[..., None])[..., 0])


@case(LIN + "test_solve_arg1_3d_3d", wellcond(3, 2), unif(-2, 2, 2, 3, 4))
def linalg_solve_3d_3d(a, b):
    return np.sum(W234 * np.linalg.solve(a, b))


@case(LIN + "test_det", wellcond(4))
def linalg_det(a):
    return np.linalg.det(a)


@case(LIN + "test_det_3d", wellcond(3, 3))
def linalg_det_3d(a):
    return np.sum(W3 * np.linalg.det(a))


@case(LIN + "test_slogdet", wellcond(4))
def linalg_slogdet(a):
    _sign, logdet = np.linalg.slogdet(a)
    return logdet


@case(LIN + "test_slogdet (negative determinant)", wellcond(3))
def linalg_slogdet_negative(a):
    return np.linalg.slogdet(-a)[1]


@case(LIN + "test_slogdet_3d", spd(3, 3))
def linalg_slogdet_3d(a):
    return np.sum(np.linalg.slogdet(a)[1])


@case(LIN + "test_vector_2norm", unif(-2, 2, 6))
def norm_vector(x):
    return np.linalg.norm(x)


@case(LIN + "test_norm_list_of_boxes", unif(-2, 2))
def norm_of_list(x):
    return np.linalg.norm([x, x + 2])


@case(LIN + "test_frobenius_norm", unif(-2, 2, 4, 3))
def norm_frobenius(x):
    return np.linalg.norm(x)


@case(LIN + "test_frobenius_norm_axis", unif(-2, 2, 4, 3, 2))
def norm_frobenius_axis(x):
    return np.sum(W2 * np.linalg.norm(x, axis=(0, 1)))


@case(LIN + "test_vector_norm_ord (ord=3)", signed(0.3, 2.0, 6))
def norm_ord3(x):
    return np.linalg.norm(x, ord=3)


@case(LIN + "test_vector_norm_ord (ord=4)", unif(-2, 2, 6))
def norm_ord4(x):
    return np.linalg.norm(x, ord=4)


@case(LIN + "test_norm_axis (axis=0)", unif(-2, 2, 4, 3, 2))
def norm_axis0(x):
    return np.sum(W32 * np.linalg.norm(x, axis=0))


@case(LIN + "test_norm_axis (axis=2)", unif(-2, 2, 4, 3, 2))
def norm_axis2(x):
    return np.sum(W43 * np.linalg.norm(x, axis=2))


@case("numpy.linalg.norm ord=1 (autograd: not implemented)", signed(0.3, 2.0, 5))
def norm_ord1(x):
    return np.linalg.norm(x, ord=1)


@case("numpy.linalg.norm ord=inf (autograd: NaN)", distinct(0.3, 2.0, 5))
def norm_ord_inf(x):
    return np.linalg.norm(x, ord=np.inf)


@case(LIN + "test_norm_nuclear", unif(-2, 2, 4, 3))
def norm_nuclear(x):
    return np.linalg.norm(x, ord="nuc")


@case(LIN + "test_eigvalh_lower (eigenvalues, sign-free eigenvectors)", sym_distinct(4))
def linalg_eigh(a):
    w, v = np.linalg.eigh(a)
    return np.sum(W4 * w) + np.sum(W44 * v ** 2)


@case(LIN + "test_eigvalh_upper", sym_distinct(4))
def linalg_eigh_upper(a):
    w, v = np.linalg.eigh(a, "U")
    return np.sum(W4 * np.sin(w)) + np.sum(W44 * v ** 2)


@case(LIN + "check_symmetric_matrix_grads (symmetrised input)", sym_distinct(3))
def linalg_eigh_symmetrised(a):
    lower = np.tril(a)
    w, _ = np.linalg.eigh((lower + np.swapaxes(lower, -1, -2)) / 2.0)
    return np.sum(W3 * w ** 2)


@case(LIN + "test_cholesky", spd(4))
def linalg_cholesky(a):
    return np.sum(W44 * np.linalg.cholesky((a + a.T) / 2.0))


@case(LIN + "test_cholesky_broadcast", spd(3, 2))
def linalg_cholesky_broadcast(a):
    return np.sum(np.sin(np.linalg.cholesky((a + np.swapaxes(a, -1, -2)) / 2.0)))


@case(LIN + "test_cholesky_reparameterization_trick", spd(4))
def linalg_cholesky_reparameterization(a):
    z = np.dot(np.linalg.cholesky((a + a.T) / 2.0), W4 - 1.0)
    return np.linalg.norm(z)


@case(LIN + "test_svd_only_s_2d", unif(-2, 2, 5, 3))
def linalg_svd_values(x):
    s = np.linalg.svd(x, full_matrices=False, compute_uv=False)
    return np.sum(W3 * s)


@case(LIN + "test_svd_tall_2d (sign-free singular vectors)", unif(-2, 2, 5, 3))
def linalg_svd_vectors(x):
    u, s, vt = np.linalg.svd(x, full_matrices=False)
    return np.sum(W3 * s) + np.sum(W35 * (u ** 2).T) + np.sum(W33 * vt ** 2)


@case(LIN + "test_pinv (tall)", unif(-2, 2, 5, 3))
def linalg_pinv(x):
    return np.sum(W35 * np.linalg.pinv(x))


@case("numpy.linalg.matrix_power (autograd: no vjp)", wellcond(3))
def linalg_matrix_power(a):
    return np.sum(W33 * np.linalg.matrix_power(a, 3))


# == complex intermediates (test_complex.py, test_graphs.py) ==============================

@case(AG + "test_complex.py test_angle_real (gradient zero)", unif(0.2, 1.0))
def complex_angle_real(x):
    return np.angle(x) + x


@case(AG + "test_complex.py test_abs_real", unif(0.5, 2.0))
def complex_abs_real(x):
    return np.abs(x) * x


@case(AG + "test_complex.py test_abs_complex (of x + 1.2j)", unif(-2, 2, 4))
def complex_abs(x):
    return np.sum(W4 * np.abs(x + 1.2j))


@case(AG + "test_complex.py test_angle_complex (of x + i y)", signed(0.3, 2, 4), signed(0.3, 2, 4))
def complex_angle(x, y):
    return np.sum(W4 * np.angle(x + 1j * y))


@case(GRA + "test_complex_mutating_outgrad_from_indexing", unif(-2, 2, 5))
def complex_outgrad_from_indexing(a):
    b = a + 1.0j
    c = b[0] + 1.5
    d = a + b
    e = d + c
    return np.sum(np.sin(np.real(e)))


@case(GRA + "test_complex_separate_real_and_imaginary", signed(0.3, 2.0, 5, 3),
      signed(0.3, 2.0, 5, 3))
def complex_real_and_imaginary(x, y):
    a = x + 0.1j * y
    r, i = np.real(a), np.imag(a)
    a = np.abs(r) ** 1.4 + np.abs(i) ** 1.3
    return np.sum(np.sin(a))


@case("complex intermediates: |x (1 + 2j)|^2", unif(-2, 2, 4))
def complex_abs_squared(x):
    return np.sum(W4 * np.abs(x * (1 + 2j)) ** 2)


@case("complex intermediates: phase rotation exp(i x) y", unif(-2, 2, 4), unif(-2, 2, 4))
def complex_phase(x, y):
    z = np.exp(1j * x) * y
    return np.sum(W4 * np.real(z)) + np.sum(np.imag(z) ** 2)


@case("complex intermediates: z * conj(z)", unif(-2, 2, 3), unif(-2, 2, 3))
def complex_norm(x, y):
    z = x + 1j * y
    return np.real(np.sum(W3 * z * np.conj(z) * z))


@case(AG + "test_fft.py test_fft (|fft|^2)", unif(-2, 2, 4, 4))
def fft(x):
    return np.sum(W44 * np.abs(np.fft.fft(x)) ** 2)


@case(AG + "test_fft.py test_fft_axis", unif(-2, 2, 4, 4))
def fft_axis0(x):
    return np.sum(W44 * np.real(np.fft.fft(x, axis=0)))


@case(AG + "test_fft.py test_ifft", unif(-2, 2, 5))
def ifft(x):
    return np.sum(W5 * np.imag(np.fft.ifft(x)) + W5 * np.real(np.fft.ifft(x)) ** 2)


@case(AG + "test_fft.py test_rfft", unif(-2, 2, 6))
def rfft(x):
    return np.sum(W4 * np.abs(np.fft.rfft(x)) ** 2)


@case(AG + "test_fft.py test_fft2", unif(-2, 2, 3, 4))
def fft2(x):
    return np.sum(W34 * np.real(np.fft.fft2(x) * np.conj(np.fft.fft2(x * x))))


# == graphs, wrappers, builtins (test_graphs.py, test_wrappers.py, test_core.py, ...) =====

@case(GRA + "test_grad_fanout", unif(-2, 2))
def graph_fanout(x):
    return np.sin(np.sin(x) + np.sin(x))


@case(GRA + "test_hess_vector_prod (the function)", unif(-2, 2, 6))
def graph_sin_dot(x):
    return np.sin(np.dot(x, C6))


@case(GRA + "test_mutating_outgrad", unif(-2, 2, 5))
def graph_outgrad(a):
    b = a + 1.0
    c = b + 1.5
    d = a + b
    e = d + c
    return np.sum(W5 * e ** 2)


@case(GRA + "test_mutating_outgrad_from_indexing", unif(-2, 2, 5))
def graph_outgrad_from_indexing(a):
    b = a + 1.0
    c = b[0] + 1.5
    d = a + b
    e = d + c
    return np.sum(W5 * e ** 2)


@case(GRA + "test_third_derivative_other_args", unif(-2, 2), unif(-2, 2))
def graph_two_args(x, y):
    return np.sin(np.sin(x) + np.sin(y))


@case(GRA + "test_singleton_array_output (keepdims=True)", unif(-2, 2, 3, 3))
def graph_singleton_output(x):
    return np.sum(np.sin(x) * W33, keepdims=True)[0, 0]


@case(GRA + "test_singleton_array_output_axis0", unif(-2, 2, 3, 1))
def graph_singleton_axis0(x):
    return np.sum(np.sin(x), axis=0, keepdims=False)[0]


@case(GRA + "test_grad_const (constant function)", unif(-2, 2, 3))
def graph_constant(x):
    return 1.0


@case(GRA + "test_grad_identity", unif(-2, 2))
def graph_identity(x):
    return x


@case(WRA + "test_return_both", unif(0.5, 2.0))
def wrappers_power(x):
    return 3.0 * x ** 3.2


@case(WRA + "test_value_and_grad", unif(-2, 2, 5))
def wrappers_sin_squared(x):
    return np.sum(np.sin(x) ** 2)


@case(WRA + "test_hessian (quadratic form)", unif(-2, 2, 4))
def wrappers_quadratic(x):
    return np.dot(np.dot(x, C34.T @ C34), x)


def _complicated(a, b, c, d, e, f=1.1, g=9.0):
    return a + np.sin(b) + np.cosh(c) + np.cos(d) + np.tan(e) + f + g


@case(WRA + "test_multigrad (keyword defaults)", unif(-1, 1), unif(-1, 1), unif(-1, 1),
      unif(-1, 1), unif(-1, 1))
def wrappers_multigrad(a, b, c, d, e):
    return _complicated(a, b, c, d, e, f=0.6, g=-0.1) * _complicated(e, d, c, b, a)


@case(WRA + "test_multigrad_onearg", unif(-2, 2, 3), unif(-2, 2, 3))
def wrappers_onearg(x, y):
    return np.sum(x + np.sin(y))


@case(WRA + "test_elementwise_grad (summed)", unif(-2, 2, 6))
def wrappers_elementwise(a):
    return np.sum(W6 * (a + np.sin(a) + np.cosh(a)))


@case(WRA + "test_elementwise_grad_multiple_args", unif(-1, 1), unif(-2, 2, 6))
def wrappers_elementwise_two(a, b):
    return np.sum(W6 * (a + np.sin(a) + np.cosh(b)))


@case(WRA + "test_tensor_jacobian_product (roll of sin)", unif(-2, 2, 5))
def wrappers_roll_sin(a):
    return np.sum(W5 * np.roll(np.sin(a), 1))


@case(WRA + "test_make_jvp (tanh(A x))", unif(-2, 2, 4))
def wrappers_tanh_affine(x):
    return np.sum(W3 * np.tanh(np.dot(C34, x)))


@case(WRA + "test_make_ggnvp (0.5 |A x|^2)", unif(-2, 2, 4))
def wrappers_ggn(x):
    y = np.tanh(np.dot(C34, x))
    return 1.0 / 2 * np.dot(y, y)


@case(GRA + "test_enclosing_scope_ref (an inner lambda)", unif(-2, 2))
def closure_lambda(x):
    inner = lambda y: x * y
    return x * inner(2.0)


@case(GRA + "test_enclosing_scope_ref_2 (an inner def)", unif(-2, 2))
def closure_def(x):
    def inner(y):
        return y * x

    return x * inner(2.0) + np.sin(inner(x))


@case(AG + "test_list.py test_grads (list built inside)", unif(-2, 2, 3, 4), unif(-2, 2, 2, 3))
def list_getter(x, y):
    items = [x, y, x * 2.0]
    return np.sum(np.sin(items[0])) + np.sum(np.cos(items[1])) + np.sum(items[2] * items[0])


@case(AG + "test_tuple.py test_getter (tuple built inside)", unif(-2, 2, 3), unif(-2, 2, 2))
def tuple_getter(x, y):
    items = (x, y)
    return np.sum(items[0]) + 2.0 * np.sum(np.sin(items[1]))


@case(AG + "test_dict.py test_iter (dict built inside)", unif(-2, 2, 3), unif(-2, 2, 2))
def dict_iteration(x, y):
    d = {"item_1": x, "item_2": y}
    a, b = 0.0, 0.0
    for i, k in enumerate(sorted(d)):
        a = a + np.sum(np.sin(d[k])) * (i + 1.0)
        b = b + np.sum(np.cos(d[k]))
    return a + b


@case(AG + "test_misc.py test_const_graph_args (foo)", unif(-2, 2), unif(-2, 2), unif(-2, 2))
def misc_linear(x, y, z):
    return x + 2 * y + 3 * z


@case(AG + "test_logic.py test_assert", unif(0.5, 1.5, 3))
def logic_assert(x):
    assert np.allclose(x, (x * 3.0) / 3.0)
    return np.sum(x ** 2)


@case(AG + "test_logic.py test_falseyness", unif(1.0, 3.0))
def logic_falseyness(x):
    return np.real(x ** 2 if np.iscomplex(x) else np.sum(x)) * x


@case(AG + "test_builtins.py (isinstance on a list, then a value)", unif(-2, 2, 3))
def builtins_isinstance(x):
    parts = [x, x ** 2]
    if isinstance(parts, list):
        return np.sum(parts[0] * parts[1])
    return 0.0


# == control flow =========================================================================

@case(EX + "sinusoid.py (Taylor series with break)", unif(0.5, 1.5))
def taylor_sine(x):
    term = x
    total = term
    for i in range(100):
        term = -term * x ** 2 / ((2 * i + 3) * (2 * i + 2))
        total = total + term
        if np.abs(term) < 1e-9:
            break
    return total


def _newton_sqrt(a):
    x = 1.0
    while np.abs(x * x - a) > 1e-12:
        x = 0.5 * (x + a / x)
    return x


@case(EX + "fixed_points.py (square root by a while loop to convergence)", unif(0.5, 4.0))
def fixed_point_sqrt(a):
    return _newton_sqrt(a) * a


@case(TUT + "control flow: if on a value", make=lambda rng: (
    rng.uniform(0.3, 1.0, 4) * rng.choice([-1.0, 1.0]),))
def if_on_value(x):
    if np.sum(x) > 0:
        return np.sum(np.sin(x) * W4)
    else:
        return np.sum(np.cos(x) * W4)


@case(TUT + "control flow: if/elif/else on a float", unif(-3, 3))
def if_elif(x):
    if x > 1.0:
        y = x ** 2
    elif x > -1.0:
        y = np.sin(x)
    else:
        y = -x
    return y * x


@case(TUT + "control flow: for over range(len(x))", unif(-2, 2, 5))
def for_range(x):
    total = 0.0
    for i in range(len(x)):
        total = total + x[i] * (i + 1.0) * np.sin(x[i])
    return total


@case(TUT + "control flow: for over the elements", unif(-2, 2, 5))
def for_elements(x):
    total = 1.0
    for xi in x:
        total = total * 0.5 + np.tanh(xi)
    return total


@case(TUT + "control flow: for over zip", unif(-2, 2, 4), unif(-2, 2, 4))
def for_zip(x, y):
    total = 0.0
    for a, b in zip(x, y):
        total = total + a * b + np.sin(a - b)
    return total


@case(TUT + "control flow: for over enumerate, continue", unif(-2, 2, 6))
def for_continue(x):
    total = 0.0
    for i, xi in enumerate(x):
        if i % 2 == 1:
            continue
        total = total + xi ** 3
    return total


@case(TUT + "control flow: while with a counter", unif(-2, 2, 3))
def while_counter(x):
    y = x
    i = 0
    while i < 4:
        y = np.sin(y) * 1.1 + x
        i += 1
    return np.sum(W3 * y)


@case(TUT + "control flow: early return", unif(0.5, 1.5, 3))
def early_return(x):
    if np.min(x) > 0:
        return np.sum(np.log(x))
    return np.sum(x)


def _power(x, n):
    return x if n == 1 else x * _power(x, n - 1)


@case(TUT + "control flow: recursion", unif(-2, 2, 3))
def recursion(x):
    return np.sum(W3 * _power(x, 4))


def _inner(x, y):
    return np.tanh(x) * y + x


def _middle(x, y):
    return _inner(x, y) * _inner(y, x)


@case(TUT + "nested user functions, each used several times", unif(-2, 2, 4), unif(-2, 2, 4))
def nested_functions(x, y):
    return np.sum(W4 * _middle(x, y)) + np.sum(_middle(y, _inner(x, x)))


def _two_results(x):
    return np.sin(x), np.cos(x)


@case(TUT + "a helper returning a tuple, unpacked", unif(-2, 2, 4))
def tuple_unpacking(x):
    s, c = _two_results(x)
    return np.sum(W4 * s * c) + np.sum(s ** 2)


@case(TUT + "list accumulation, then np.array", unif(-2, 2, 3), unif(-2, 2, 3))
def list_to_array(x, y):
    rows = []
    for i in range(4):
        rows.append(x * i + np.sin(y))
    return np.sum(W43 * np.array(rows))


@case(TUT + "list accumulation, then np.stack(axis=1)", unif(-2, 2, 3))
def list_to_stack(x):
    columns = []
    for k in range(1, 4):
        columns.append(x ** k)
    return np.sum(W33 * np.stack(columns, axis=1))


@case(TUT + "list accumulation, then builtin sum", unif(-2, 2, 3))
def list_builtin_sum(x):
    terms = []
    for k in range(3):
        terms.append(np.sin(x * (k + 1)))
    return np.sum(W3 * sum(terms))


@case(TUT + "list comprehension into np.array", unif(-2, 2, 4))
def list_comprehension(x):
    return np.sum(W4 * np.array([np.sin(xi) * i for i, xi in enumerate(x)]))


@case(TUT + "generator expression in builtin sum", unif(-2, 2, 4))
def generator_sum(x):
    return sum(xi ** 2 * w for xi, w in zip(x, W4))


@case(TUT + "builtin max/min/abs on floats", unif(0.5, 1.0), unif(1.5, 2.0))
def builtin_max_min_abs(x, y):
    return max(x, y) * min(x, 2 * y) + abs(x - 3.0)


@case(TUT + "in-place operators on a fresh intermediate (a += b)", unif(-2, 2, 3),
      unif(-2, 2, 3))
def augmented_assignment(x, y):
    a = x * 2.0
    a += y
    a *= x
    s = 0.0
    s += np.sum(a)
    return s


@case(TUT + "ndarray methods: x.sum / x.mean / x.max / x.prod", distinct(0.5, 2.0, 3, 4))
def array_methods_reduce(x):
    return np.dot(x.sum(axis=0), W4) + x.mean() * x.max() + x.prod(axis=1).sum()


@case(TUT + "ndarray methods: x.var / x.std / x.min", distinct(-2, 2, 3, 4))
def array_methods_stats(x):
    return x.var() + np.sum(W3 * x.std(axis=1)) + x.min()


@case(TUT + "ndarray methods: x.clip / x.cumsum / x.T / x.reshape",
      make=lambda rng: (rng.choice([-1.0, 0.5, 2.0], (3, 4)) + rng.uniform(-0.3, 0.3, (3, 4)),))
def array_methods_shape(x):
    return np.sum(W43 * x.clip(0.0, 1.0).T) + np.sum(W12 * x.cumsum().reshape(-1))


@case(TUT + "shape attributes used in arithmetic", unif(-2, 2, 3, 4))
def shape_arithmetic(x):
    n, m = x.shape
    return np.sum(x ** 2) / (n * m) + x.size * np.mean(x) + x.ndim


@case(TUT + "constants: np.zeros_like / ones / eye / arange / full", unif(-2, 2, 3, 3))
def constant_builders(x):
    a = np.zeros_like(x) + x
    b = np.ones(3) * x
    c = np.eye(3) * x + np.full((3, 3), 0.5)
    return np.sum(W33 * a * b) + np.sum(c @ c) + np.sum(np.arange(3.0) * x)


@case(TUT + "np.float64 and Python floats mixed", unif(-2, 2))
def float64_mix(x):
    return np.float64(2.0) * x + np.exp(x) * 0.5 + math.pi * x ** 2


# == examples (autograd examples/) ========================================================

def _sigmoid(x):
    return 0.5 * (np.tanh(x) + 1.0)


_LR_INPUTS = np.array([[0.52, 1.12, 0.77], [0.88, -1.08, 0.15], [0.52, 0.06, -1.30],
                       [0.74, -2.49, 1.39]])
_LR_TARGETS = np.array([True, True, False, True])


@case(EX + "logistic_regression.py training_loss", unif(-1, 1, 3))
def logistic_regression(weights):
    preds = _sigmoid(np.dot(_LR_INPUTS, weights))
    label_probabilities = preds * _LR_TARGETS + (1 - preds) * (1 - _LR_TARGETS)
    return -np.sum(np.log(label_probabilities))


@case(EX + "rosenbrock.py", unif(-1.5, 1.5, 2))
def rosenbrock(x):
    return 100 * (x[1] - x[0] ** 2) ** 2 + (1 - x[0]) ** 2


@case(EX + "tanh.py (summed)", unif(-2, 2, 5))
def tanh_by_exp(x):
    return np.sum(W5 * (1.0 - np.exp(-2 * x)) / (1.0 + np.exp(-(2 * x))))


def _avg(x, y):
    return (x + y) / 2


@case(EX + "print_trace.py fun", unif(-2, 2))
def print_trace_fun(x):
    y = np.sin(x + x)
    return _avg(y, y)


@case(EX + "dot_graph.py fun", unif(-2, 2))
def dot_graph_fun(x):
    y = np.sin(x)
    return (y + np.exp(x) - 0.5) * y


def _logsumexp(x, axis=None, keepdims=False):
    m = np.max(x, axis=axis, keepdims=True)
    out = m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))
    return out if keepdims else np.squeeze(out, axis=axis)


@case(EX + "define_gradient.py example_func", unif(-2, 2, 6))
def define_gradient_example(y):
    return _logsumexp(y ** 2)


_NN_INPUTS = _K.standard_normal((5, 4))
_NN_TARGETS = np.eye(3)[[0, 2, 1, 1, 0]]


@case(EX + "neural_net.py log_posterior", unif(-1, 1, 4, 3), unif(-1, 1, 3), unif(-1, 1, 3, 3),
      unif(-1, 1, 3))
def neural_net(w1, b1, w2, b2):
    hidden = np.tanh(np.dot(_NN_INPUTS, w1) + b1)
    outputs = np.dot(hidden, w2) + b2
    log_probs = outputs - _logsumexp(outputs, axis=1, keepdims=True)
    l2 = 0.0
    for p in (w1, b1, w2, b2):
        l2 = l2 + np.sum(p * p)
    return -0.1 * l2 + np.sum(log_probs * _NN_TARGETS)


def _nn_predict(params, inputs):
    for w, b in params:
        outputs = np.dot(inputs, w) + b
        inputs = np.tanh(outputs)
    return outputs


def _norm_logpdf(x, mean, scale):
    return -0.5 * ((x - mean) / scale) ** 2 - np.log(scale) - 0.5 * np.log(2 * np.pi)


_REG_X = np.linspace(-2, 2, 6)[:, None]
_REG_Y = np.cos(_REG_X) / 2.0


@case(EX + "neural_net_regression.py objective", unif(-1, 1, 1, 4), unif(-1, 1, 4),
      unif(-1, 1, 4, 1), unif(-1, 1, 1))
def neural_net_regression(w1, b1, w2, b2):
    params = [(w1, b1), (w2, b2)]
    predictions = _nn_predict(params, _REG_X)
    log_lik = np.sum(_norm_logpdf(predictions, _REG_Y, 0.1))
    log_prior = 0.0
    for w, b in params:
        log_prior = log_prior + np.sum(_norm_logpdf(w, 0.0, 10.0)) + np.sum(
            _norm_logpdf(b, 0.0, 10.0))
    return -log_lik - log_prior


def _rbf_covariance(kernel_params, x, xp):
    output_scale = np.exp(kernel_params[0])
    lengthscales = np.exp(kernel_params[1:])
    diffs = np.expand_dims(x / lengthscales, 1) - np.expand_dims(xp / lengthscales, 0)
    return output_scale * np.exp(-0.5 * np.sum(diffs ** 2, axis=2))


_GP_X = np.linspace(-2, 2, 6)[:, None]
_GP_Y = np.cos(2 * _GP_X[:, 0]) / 2.0


@case(EX + "gaussian_process.py log_marginal_likelihood (solve, slogdet)",
      unif(-0.5, 0.5, 3), unif(-2, 2, 6, 1))
def gaussian_process(params, x):
    mean, noise_scale = params[0], np.exp(params[1]) + 0.0001
    cov = _rbf_covariance(params[2:], x, x) + noise_scale * np.eye(len(_GP_Y))
    residual = _GP_Y - mean
    return (-0.5 * np.dot(residual, np.linalg.solve(cov, residual))
            - 0.5 * np.linalg.slogdet(cov)[1] - 0.5 * len(_GP_Y) * np.log(2 * np.pi))


@case(EX + "gaussian_process.py (log-likelihood through a Cholesky factor)", unif(-0.5, 0.5, 3))
def gaussian_process_cholesky(params):
    cov = _rbf_covariance(params[2:], _GP_X, _GP_X) + (np.exp(params[1]) + 0.01) * np.eye(6)
    chol = np.linalg.cholesky(cov)
    alpha = np.linalg.solve(chol, _GP_Y - params[0])
    return -0.5 * np.dot(alpha, alpha) - np.sum(np.log(np.diag(chol)))


def _concat_and_multiply(weights, parts):
    cat_state = np.hstack(parts + [np.ones((parts[0].shape[0], 1))])
    return np.dot(cat_state, weights)


def _rnn_predict(change, predict, init_hiddens, inputs):
    hiddens = np.repeat(init_hiddens, inputs.shape[1], axis=0)
    output = []
    for step in inputs:
        hiddens = np.tanh(_concat_and_multiply(change, [step, hiddens]))
        logits = _concat_and_multiply(predict, [hiddens])
        output.append(logits - _logsumexp(logits, axis=1, keepdims=True))
    return output


_SEQ_INPUTS = np.eye(3)[[[0, 1], [2, 0], [1, 1]]]  # (time, sequences, alphabet): one-hot
_SEQ_TARGETS = np.eye(3)[[[2, 0], [1, 1], [0, 2]]]


@case(EX + "rnn.py rnn_log_likelihood", unif(-1, 1, 7, 3), unif(-1, 1, 4, 3),
      unif(-1, 1, 1, 3))
def rnn(change, predict, init_hiddens):
    logprobs = _rnn_predict(change, predict, init_hiddens, _SEQ_INPUTS)
    loglik = 0.0
    num_time_steps, num_examples, _ = _SEQ_INPUTS.shape
    for t in range(num_time_steps):
        loglik += np.sum(logprobs[t] * _SEQ_TARGETS[t])
    return loglik / (num_time_steps * num_examples)


@case(EX + "lstm.py lstm_log_likelihood", unif(-1, 1, 7, 3), unif(-1, 1, 7, 3),
      unif(-1, 1, 7, 3), unif(-1, 1, 7, 3), unif(-1, 1, 4, 3))
def lstm(change, forget, ingate, outgate, predict):
    hiddens = np.zeros((2, 3))
    cells = np.zeros((2, 3))
    loglik = 0.0
    for t in range(len(_SEQ_INPUTS)):
        parts = [_SEQ_INPUTS[t], hiddens]
        cells = (cells * _sigmoid(_concat_and_multiply(forget, parts))
                 + _sigmoid(_concat_and_multiply(ingate, parts))
                 * np.tanh(_concat_and_multiply(change, parts)))
        hiddens = _sigmoid(_concat_and_multiply(outgate, parts)) * np.tanh(cells)
        logits = _concat_and_multiply(predict, [hiddens])
        loglik = loglik + np.sum((logits - _logsumexp(logits, axis=1, keepdims=True))
                                 * _SEQ_TARGETS[t])
    return loglik


def _mvn_logpdf(x, mean, cov):
    d = x - mean
    solved = np.linalg.solve(cov, d.T).T
    return (-0.5 * np.sum(d * solved, axis=1) - 0.5 * np.linalg.slogdet(cov)[1]
            - 0.5 * len(mean) * np.log(2 * np.pi))


_GMM_DATA = _K.standard_normal((5, 2))


@case(EX + "gmm.py gmm_log_likelihood", unif(-1, 1, 2), unif(-1, 1, 2, 2),
      lambda rng: np.eye(2) + 0.2 * rng.standard_normal((2, 2, 2)))
def gmm(log_proportions, means, lower_triangles):
    normalized = log_proportions - _logsumexp(log_proportions)
    cluster_lls = []
    for log_proportion, mean, cov_sqrt in zip(normalized, means, lower_triangles):
        cov = np.dot(cov_sqrt.T, cov_sqrt)
        cluster_lls.append(log_proportion + _mvn_logpdf(_GMM_DATA, mean, cov))
    return np.sum(_logsumexp(np.vstack(cluster_lls), axis=0))


_T_DF = 2.4
_T_CONST = math.lgamma((_T_DF + 1) / 2) - math.lgamma(_T_DF / 2) - 0.5 * math.log(_T_DF * math.pi)
_ICA_OBSERVED = _K.standard_normal((4, 3))


@case(EX + "ica.py logprob (Student-t likelihood)", unif(-1, 1, 3, 2), unif(-1, 1, 2, 4),
      unif(-0.5, 0.5))
def ica(weights, latents, log_noise_std):
    noise_std = np.exp(log_noise_std)
    preds = np.dot(weights, latents).T
    z = (preds - _ICA_OBSERVED) / noise_std
    return np.sum(_T_CONST - np.log(noise_std) - (_T_DF + 1) / 2 * np.log1p(z ** 2 / _T_DF))


def _svi_log_density(x):
    mu, log_sigma = x[:, 0], x[:, 1]
    return _norm_logpdf(log_sigma, 0.0, 1.35) + _norm_logpdf(mu, 0.0, np.exp(log_sigma))


@case(EX + "black_box_svi.py variational_objective (fixed samples)", unif(-1, 1, 4))
def black_box_svi(params):
    mean, log_std = params[:2], params[2:]
    samples = EPS52 * np.exp(log_std) + mean
    entropy = 0.5 * 2 * (1.0 + np.log(2 * np.pi)) + np.sum(log_std)
    return -(entropy + np.mean(_svi_log_density(samples)))


def _rbf(x):
    return np.exp(-(x ** 2))


@case(EX + "bayesian_neural_net.py logprob (a batch of weight vectors)", unif(-1, 1, 2, 13))
def bayesian_neural_net(weights):
    num = weights.shape[0]
    w1 = np.reshape(weights[:, :4], (num, 1, 4))
    b1 = np.reshape(weights[:, 4:8], (num, 1, 4))
    w2 = np.reshape(weights[:, 8:12], (num, 4, 1))
    b2 = np.reshape(weights[:, 12:], (num, 1, 1))
    inputs = np.expand_dims(_REG_X, 0)
    hidden = _rbf(np.einsum("mnd,mdo->mno", inputs, w1) + b1)
    outputs = np.einsum("mnd,mdo->mno", hidden, w2) + b2
    log_prior = -0.1 * np.sum(weights ** 2, axis=1)
    log_lik = -np.sum((outputs[:, :, 0] - _REG_Y[:, 0]) ** 2, axis=1) / 0.01
    return np.sum(log_prior + log_lik)


_HMM_DATA = [0, 2, 1, 3, 2]


@case(EX + "hmm_em.py log_partition_function", unif(-1, 0, 3), unif(-1, 0, 3, 3),
      unif(-1, 0, 3, 4))
def hmm_log_partition(log_pi, log_a, log_b):
    log_alpha = log_pi
    for y in _HMM_DATA:
        log_alpha = _logsumexp(log_alpha[:, None] + log_a, axis=0) + log_b[:, y]
    return _logsumexp(log_alpha)


@case(EX + "ode_net.py (explicit Euler steps of dy/dt = y**3 A)", unif(-1, 1, 2),
      unif(-1, 1, 2, 2))
def ode_euler(y0, a):
    y = y0
    trajectory = [y]
    for _ in range(8):
        y = y + 0.05 * np.dot(y ** 3, a)
        trajectory.append(y)
    return np.mean(np.abs(np.array(trajectory) - 3.0))


def _project(vx, vy):
    p = np.zeros(vx.shape)
    h = 1.0 / vx.shape[0]
    div = -0.5 * h * (np.roll(vx, -1, axis=0) - np.roll(vx, 1, axis=0)
                      + np.roll(vy, -1, axis=1) - np.roll(vy, 1, axis=1))
    for _ in range(6):
        p = (div + np.roll(p, 1, axis=0) + np.roll(p, -1, axis=0)
             + np.roll(p, 1, axis=1) + np.roll(p, -1, axis=1)) / 4.0
    vx = vx - 0.5 * (np.roll(p, -1, axis=0) - np.roll(p, 1, axis=0)) / h
    vy = vy - 0.5 * (np.roll(p, -1, axis=1) - np.roll(p, 1, axis=1)) / h
    return vx, vy


@case(EX + "fluidsim/fluidsim.py project", unif(-1, 1, 4, 4), unif(-1, 1, 4, 4))
def fluid_project(vx, vy):
    px, py = _project(vx, vy)
    return np.sum(W44 * px ** 2) + np.sum(W44.T * py ** 2)


@case(EX + "convnet.py (a 2-d convolution written with slices)", unif(-1, 1, 5, 5),
      unif(-1, 1, 2, 2))
def convolution(image, kernel):
    out = np.zeros((4, 4))
    for i in range(2):
        for j in range(2):
            out = out + kernel[i, j] * image[i:i + 4, j:j + 4]
    return np.sum(W44 * np.tanh(out))


# == JAX and PyTorch documentation ========================================================

JAX = "JAX docs "
TORCH = "PyTorch docs "


@case(JAX + "quickstart sum_logistic", unif(-2, 2, 5))
def jax_sum_logistic(x):
    return np.sum(1.0 / (1.0 + np.exp(-x)))


@case(JAX + "quickstart selu", signed(0.2, 2.0, 5))
def jax_selu(x):
    alpha, scale = 1.67, 1.05
    return np.sum(W5 * scale * np.where(x > 0, x, alpha * np.exp(x) - alpha))


@case(JAX + "autodiff cookbook logistic loss (W, b)", unif(-1, 1, 3), unif(-1, 1))
def jax_logistic_loss(w, b):
    preds = 1.0 / (1.0 + np.exp(-(np.dot(_LR_INPUTS, w) + b)))
    label_probs = preds * _LR_TARGETS + (1 - preds) * (1 - _LR_TARGETS)
    return -np.sum(np.log(label_probs))


@case(JAX + "jax.nn.softplus (logaddexp)", unif(-3, 3, 5))
def jax_softplus(x):
    return np.sum(W5 * np.logaddexp(x, 0.0))


@case(JAX + "jax.nn.softplus (log1p(exp))", unif(-3, 3, 5))
def softplus_log1p(x):
    return np.sum(W5 * np.log1p(np.exp(x)))


@case(JAX + "jax.nn.gelu (approximate=True)", unif(-3, 3, 5))
def jax_gelu(x):
    return np.sum(W5 * 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))))


@case(JAX + "jax.nn.silu", unif(-3, 3, 5))
def jax_silu(x):
    return np.sum(W5 * x / (1.0 + np.exp(-x)))


@case(JAX + "jax.nn.log_softmax", unif(-2, 2, 3, 4))
def jax_log_softmax(x):
    shifted = x - np.max(x, axis=-1, keepdims=True)
    return np.sum(W34 * (shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))))


@case(JAX + "jax.nn.softmax", unif(-2, 2, 3, 4))
def jax_softmax(x):
    e = np.exp(x - np.max(x, axis=1, keepdims=True))
    return np.sum(W34 * e / np.sum(e, axis=1, keepdims=True))


@case(JAX + "jax.nn.logsumexp", unif(-2, 2, 6))
def jax_logsumexp(x):
    return _logsumexp(x * W6)


@case(JAX + "FAQ: gradients of where (the 'double where' safe log)", signed(0.2, 2.0, 5))
def jax_double_where(x):
    safe = np.where(x > 0.0, x, 1.0)
    return np.sum(W5 * np.where(x > 0.0, np.log(safe), 0.0))


@case(JAX + "jax.numpy.linalg.norm, normalise a vector", unif(-2, 2, 5))
def jax_normalize(x):
    return np.sum(W5 * x / np.sqrt(np.sum(x ** 2)))


@case("Flax/PyTorch docs LayerNorm (mean, var over the last axis)", unif(-2, 2, 3, 4),
      unif(0.5, 1.5, 4), unif(-1, 1, 4))
def layer_norm(x, gain, bias):
    mean = np.mean(x, axis=-1, keepdims=True)
    var = np.var(x, axis=-1, keepdims=True)
    return np.sum(W34 * ((x - mean) / np.sqrt(var + 1e-5) * gain + bias))


@case(TORCH + "scaled_dot_product_attention", unif(-1, 1, 3, 4), unif(-1, 1, 5, 4),
      unif(-1, 1, 5, 4))
def attention(q, k, v):
    scores = q @ k.T / np.sqrt(q.shape[-1])
    weights = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
    weights = weights / np.sum(weights, axis=-1, keepdims=True)
    return np.sum(W34 * (weights @ v))


@case(TORCH + "nn.MSELoss", unif(-2, 2, 3, 4), unif(-2, 2, 3, 4))
def torch_mse(x, y):
    return np.mean((x - y) ** 2)


@case(TORCH + "nn.CrossEntropyLoss (one-hot targets)", unif(-2, 2, 5, 3))
def torch_cross_entropy(logits):
    log_probs = logits - _logsumexp(logits, axis=1, keepdims=True)
    return -np.mean(np.sum(log_probs * _NN_TARGETS, axis=1))


@case(TORCH + "nn.BCEWithLogitsLoss (stable form)", signed(0.2, 2.0, 6))
def torch_bce_with_logits(x):
    z = np.array([1.0, 0.0, 1.0, 1.0, 0.0, 0.0])
    return np.mean(np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x))))


@case(TORCH + "nn.SmoothL1Loss / HuberLoss", bands(3, 4))
def torch_smooth_l1(d):
    a = np.abs(d)
    return np.sum(W34 * np.where(a < 1.0, 0.5 * d ** 2, a - 0.5))


@case(TORCH + "nn.functional.cosine_similarity", unif(-2, 2, 3, 4), unif(-2, 2, 3, 4))
def torch_cosine_similarity(x, y):
    dots = np.sum(x * y, axis=1)
    return np.sum(W3 * dots / (np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1)))


@case(TORCH + "nn.functional.normalize (p=2, eps floor via np.maximum)", unif(-2, 2, 3, 4))
def torch_normalize(x):
    norms = np.sqrt(np.sum(x ** 2, axis=1, keepdims=True))
    return np.sum(W34 * x / np.maximum(norms, 1e-12))


@case(TORCH + "nn.KLDivLoss (of two softmaxes)", unif(-2, 2, 5), unif(-2, 2, 5))
def torch_kl_div(a, b):
    log_p = a - _logsumexp(a)
    log_q = b - _logsumexp(b)
    return np.sum(np.exp(log_p) * (log_p - log_q))


@case(TORCH + "autograd tutorial Q = 3a^3 - b^2", unif(-2, 2, 2), unif(-2, 2, 2))
def torch_autograd_tutorial(a, b):
    return np.sum(W2 * (3 * a ** 3 - b ** 2))


_POLY_X = np.linspace(-math.pi, math.pi, 20)


@case(TORCH + "Learning PyTorch with Examples: polynomial fit loss", unif(-1, 1), unif(-1, 1),
      unif(-1, 1), unif(-1, 1))
def torch_polynomial_fit(a, b, c, d):
    y_pred = a + b * _POLY_X + c * _POLY_X ** 2 + d * _POLY_X ** 3
    return np.square(y_pred - np.sin(_POLY_X)).sum()


@case(TORCH + "Learning PyTorch with Examples: LegendrePolynomial3", unif(-1, 1, 5))
def torch_legendre3(x):
    return np.sum(W5 * 0.5 * (5 * x ** 3 - 3 * x))


@case(TORCH + "nn.GRUCell (one step, written out)", unif(-1, 1, 3), unif(-1, 1, 9, 3),
      unif(-1, 1, 9, 3))
def torch_gru_cell(h, w_ih, w_hh):
    x = np.array([0.5, -1.0, 0.25])
    gi = w_ih @ x
    gh = w_hh @ h
    r = _sigmoid(gi[:3] + gh[:3])
    z = _sigmoid(gi[3:6] + gh[3:6])
    n = np.tanh(gi[6:] + r * gh[6:])
    return np.sum(W3 * ((1 - z) * n + z * h))
