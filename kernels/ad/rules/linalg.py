"""Rules of ``np.linalg``: inv, det, slogdet, solve, eigh / eigvalsh, cholesky (norm is a
reduction, in ``.reduce``). Stacks of matrices broadcast as numpy's do.

``eigh``, ``eigvalsh`` and ``cholesky`` read one triangle of their argument (the lower one by
default) and ignore the other. Their rules differentiate exactly that function, so an entry
below the diagonal gets the derivative of both symmetric positions and one above it none
(what finite differences of numpy's function give). For a symmetric input written as
``(a + a.T) / 2`` the result is the symmetric gradient that autograd and JAX report.
Singular values (svd, pinv, 2-norms of matrices), eig, qr and matrix functions have no rule:
calling them on a traced value raises MissingRuleError.
"""

from collections import namedtuple

import numpy as np

from .table import MissingRuleError, _ndim, defrule, primitive, real_cotangent


def _t(a):
    return np.swapaxes(a, -1, -2)


def _scalar_axes(g):
    return np.asarray(g)[..., None, None]


# -- inv, det, slogdet ------------------------------------------------------------------

defrule(np.linalg.inv, [lambda g, ans, x: -_t(ans) @ g @ _t(ans)],
        lambda ts, ans, x: -ans @ ts[0] @ ans)
defrule(np.linalg.det,
        [lambda g, ans, x: _scalar_axes(g * ans) * _t(np.linalg.inv(x))],
        lambda ts, ans, x: ans * np.sum(_t(np.linalg.inv(x)) * ts[0], axis=(-2, -1)))


@primitive
def logabsdet(a):
    """log |det a|: the differentiable output of slogdet."""
    return np.linalg.slogdet(a)[1]


defrule(logabsdet, [lambda g, ans, x: _scalar_axes(real_cotangent(g)) * _t(np.linalg.inv(x))],
        lambda ts, ans, x: np.real(np.sum(_t(np.linalg.inv(x)) * ts[0], axis=(-2, -1))))

Slogdet = namedtuple("Slogdet", ["sign", "logabsdet"])


def _slogdet_composite(a):
    value = a.value if hasattr(a, "value") else a
    return Slogdet(np.linalg.slogdet(value)[0], logabsdet(a))


def _slogdet_vjp(g, ans, x):
    if g[1] is None:
        return np.zeros(np.shape(x))
    return _scalar_axes(real_cotangent(g[1])) * _t(np.linalg.inv(x))


defrule(np.linalg.slogdet, [_slogdet_vjp], None, composite=_slogdet_composite)


# -- solve -------------------------------------------------------------------------------

def _vector_rhs(a, b):
    if _ndim(b) == 1 and _ndim(a) > 2:
        raise MissingRuleError("numpy.linalg.solve of a stack of matrices with one vector: "
                               "give b the stack's shape")
    return _ndim(b) == 1


def _solve_vjp_a(g, ans, a, b):
    gb = np.linalg.solve(_t(a), g)
    return -(gb[:, None] * ans) if _vector_rhs(a, b) else -gb @ _t(ans)


def _lift(t, extra):
    """A tangent ``(chunk,) + shape`` with ``extra`` unit axes after the chunk axis, so that
    it broadcasts against values of ``extra`` more leading (stack) axes by aligning those
    axes, not the chunk axis, with them."""
    if t is None or extra <= 0:
        return t
    shape = np.shape(t)
    return np.reshape(t, shape[:1] + (1,) * extra + shape[1:])


def _solve_jvp(ts, ans, a, b):
    ta, tb = ts
    vector = _vector_rhs(a, b)
    if not vector:  # a and b may stack differently: lift each to the stack of ans
        ta, tb = _lift(ta, _ndim(ans) - _ndim(a)), _lift(tb, _ndim(ans) - _ndim(b))
    rhs = 0.0
    if tb is not None:
        rhs = tb
    if ta is not None:
        rhs = rhs - (ta @ ans)
    if vector:  # (chunk, n): solve for the columns of its transpose
        return np.linalg.solve(a, np.transpose(rhs)).T
    return np.linalg.solve(a, rhs)


defrule(np.linalg.solve,
        [_solve_vjp_a, lambda g, ans, a, b: np.linalg.solve(_t(a), g)], _solve_jvp)


# -- symmetric input: eigh, eigvalsh, cholesky ---------------------------------------------

def _uplo(kwargs, default="L"):
    uplo = kwargs.get("UPLO", default).upper()
    if uplo not in ("L", "U"):
        raise ValueError(f"UPLO must be 'L' or 'U', got {uplo!r}")
    return uplo


def _symmetric_tangent(t, uplo):
    """The change of the symmetric matrix numpy reads when its argument changes by ``t``."""
    if uplo == "L":
        return np.tril(t) + _t(np.tril(t, -1))
    return np.triu(t) + _t(np.triu(t, 1))


def _read_triangle(s, uplo):
    """The cotangent of the argument from ``s``, that of the symmetric matrix read from it
    (made symmetric first): the read triangle gets both positions' share."""
    s = 0.5 * (s + _t(s))
    if uplo == "L":
        return np.tril(s) + np.tril(s, -1)
    return np.triu(s) + np.triu(s, 1)


def _gaps(w):
    """F[i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it."""
    diff = w[..., None, :] - w[..., :, None]
    n = w.shape[-1]
    off = ~np.eye(n, dtype=bool)
    return np.where(off, 1.0 / np.where(off, diff, 1.0), 0.0)


@primitive
def eigenvalues(a, UPLO="L"):
    return np.linalg.eigh(a, UPLO=UPLO)[0]


@primitive
def eigenvectors(a, UPLO="L"):
    return np.linalg.eigh(a, UPLO=UPLO)[1]


def _eigh_vjp(gw, gv, a, uplo):
    w, v = np.linalg.eigh(a, UPLO=uplo)
    inner = 0.0
    if gw is not None:
        inner = inner + np.einsum("...i,ij->...ij", gw, np.eye(w.shape[-1]))
    if gv is not None:
        inner = inner + _gaps(w) * (_t(v) @ gv)
    return _read_triangle(v @ inner @ _t(v), uplo)


def _eigh_parts(ts, a, uplo):
    w, v = np.linalg.eigh(a, UPLO=uplo)
    rotated = _t(v) @ _symmetric_tangent(ts[0], uplo) @ v
    return w, v, rotated


defrule(eigenvalues, [lambda g, ans, a, UPLO="L": _eigh_vjp(g, None, a, _uplo({"UPLO": UPLO})),
                      None],
        lambda ts, ans, a, UPLO="L": np.diagonal(
            _eigh_parts(ts, a, _uplo({"UPLO": UPLO}))[2], axis1=-2, axis2=-1))


def _eigenvectors_jvp(ts, ans, a, UPLO="L"):
    w, v, rotated = _eigh_parts(ts, a, _uplo({"UPLO": UPLO}))
    return v @ (_gaps(w) * rotated)


defrule(eigenvectors, [lambda g, ans, a, UPLO="L": _eigh_vjp(None, g, a, _uplo({"UPLO": UPLO})),
                       None], _eigenvectors_jvp)
defrule(np.linalg.eigvalsh, [lambda g, ans, a, UPLO="L": _eigh_vjp(g, None, a, UPLO), None],
        lambda ts, ans, a, UPLO="L": np.diagonal(_eigh_parts(ts, a, UPLO)[2], axis1=-2,
                                                 axis2=-1))

Eigh = namedtuple("Eigh", ["eigenvalues", "eigenvectors"])


def _check_real(a, name):
    value = a.value if hasattr(a, "value") else a
    if np.iscomplexobj(value):
        raise MissingRuleError(f"numpy.linalg.{name} of a complex (Hermitian) matrix has no "
                               f"derivative rule")


def _eigh_composite(a, UPLO="L"):
    _check_real(a, "eigh")
    return Eigh(eigenvalues(a, UPLO), eigenvectors(a, UPLO))


defrule(np.linalg.eigh,
        [lambda g, ans, a, UPLO="L": _eigh_vjp(g[0], g[1], a, _uplo({"UPLO": UPLO})), None],
        None, composite=_eigh_composite)


def _phi(x):
    """The lower triangle with the diagonal halved."""
    return np.tril(x) - 0.5 * np.einsum("...ii->...i", x)[..., None] * np.eye(x.shape[-1])


def _cholesky_vjp(g, ans, a, upper=False):
    _check_upper(upper)
    inv = np.linalg.inv(ans)
    return _read_triangle(_t(inv) @ _phi(_t(ans) @ g) @ inv, "L")


def _cholesky_jvp(ts, ans, a, upper=False):
    _check_upper(upper)
    inv = np.linalg.inv(ans)
    return ans @ _phi(inv @ _symmetric_tangent(ts[0], "L") @ _t(inv))


def _check_upper(upper):
    if upper:
        raise MissingRuleError("numpy.linalg.cholesky(..., upper=True) has no derivative "
                               "rule; transpose the lower factor")


defrule(np.linalg.cholesky, [_cholesky_vjp, None], _cholesky_jvp)


# -- matrix_power ----------------------------------------------------------------------

def _powers(a, n):
    out = [np.broadcast_to(np.eye(np.shape(a)[-1]), np.shape(a))]
    for _ in range(n - 1):
        out.append(out[-1] @ a)
    return out


def _check_power(n):
    if n < 0:
        raise MissingRuleError("numpy.linalg.matrix_power with a negative power has no "
                               "derivative rule; use numpy.linalg.inv, then a power")


def _matrix_power_vjp(g, ans, a, n):
    _check_power(n)
    p = _powers(_t(a), n)
    return sum(p[k] @ g @ p[n - 1 - k] for k in range(n)) if n else 0.0 * g


def _matrix_power_jvp(ts, ans, a, n):
    _check_power(n)
    p = _powers(a, n)
    return sum(p[k] @ ts[0] @ p[n - 1 - k] for k in range(n)) if n else 0.0 * ts[0]


defrule(np.linalg.matrix_power, [_matrix_power_vjp, None], _matrix_power_jvp)


# -- svd, pinv, and the matrix norms made of singular values --------------------------------
#
# A = U S V^T with k = min(m, n) singular values (full_matrices=False, or a square A).
# With dP = U^T dA V and F[i, j] = 1 / (s_j^2 - s_i^2) off the diagonal:
#   dS = diag(dP)
#   dU = U (F o (dP S + S dP^T)) + (I - U U^T) dA V S^-1
#   dV = V (F o (S dP + dP^T S)) + (I - V V^T) dA^T U S^-1
# and the vjp is the adjoint of the three together (see _svd_vjp). Distinct, nonzero
# singular values are needed: where two meet, U and V are not differentiable.

def _svd_check(a, full_matrices):
    value = a.value if hasattr(a, "value") else a
    if np.iscomplexobj(value):
        raise MissingRuleError("numpy.linalg.svd of a complex matrix has no derivative rule")
    m, n = np.shape(value)[-2:]
    if full_matrices and m != n:
        raise MissingRuleError("numpy.linalg.svd(..., full_matrices=True) of a non-square "
                               "matrix has no derivative rule (the extra singular vectors "
                               "are not unique); pass full_matrices=False")


def _svd_parts(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return u, s, _t(vh)


def _svd_tangents(t, a):
    """(dU, dS, dV) for the batched tangent ``t`` of ``a``."""
    u, s, v = _svd_parts(a)
    dp = _t(u) @ t @ v
    s2 = s[..., None, :] ** 2 - s[..., :, None] ** 2
    k = s.shape[-1]
    off = ~np.eye(k, dtype=bool)
    f = np.where(off, 1.0 / np.where(off, s2, 1.0), 0.0)
    smat = s[..., None, :] * np.eye(k)  # diag(s)
    ds = np.diagonal(dp, axis1=-2, axis2=-1)
    du = u @ (f * (dp @ smat + smat @ _t(dp))) + (t @ v - u @ (_t(u) @ t @ v)) / s[..., None, :]
    dv = v @ (f * (smat @ dp + _t(dp) @ smat)) + (_t(t) @ u - v @ (_t(v) @ _t(t) @ u)) \
        / s[..., None, :]
    return du, ds, dv


def _svd_vjp(gu, gs, gv, a):
    u, s, v = _svd_parts(a)
    k = s.shape[-1]
    s2 = s[..., None, :] ** 2 - s[..., :, None] ** 2
    off = ~np.eye(k, dtype=bool)
    f = np.where(off, 1.0 / np.where(off, s2, 1.0), 0.0)
    smat = s[..., None, :] * np.eye(k)
    inner = 0.0
    out = 0.0
    if gs is not None:
        inner = inner + gs[..., None, :] * np.eye(k)
    if gu is not None:
        j = f * (_t(u) @ gu)
        inner = inner + (j + _t(j)) @ smat
        out = out + (gu - u @ (_t(u) @ gu)) / s[..., None, :] @ _t(v)
    if gv is not None:
        kk = f * (_t(v) @ gv)
        inner = inner + smat @ (kk + _t(kk))
        out = out + (u / s[..., None, :]) @ (_t(gv) - (_t(gv) @ v) @ _t(v))
    return u @ inner @ _t(v) + out


@primitive
def singular_values(a):
    return np.linalg.svd(a, compute_uv=False)


@primitive
def left_vectors(a):
    return np.linalg.svd(a, full_matrices=False)[0]


@primitive
def right_vectors_h(a):
    return np.linalg.svd(a, full_matrices=False)[2]


defrule(singular_values, [lambda g, ans, a: _svd_vjp(None, g, None, a)],
        lambda ts, ans, a: _svd_tangents(ts[0], a)[1])
defrule(left_vectors, [lambda g, ans, a: _svd_vjp(g, None, None, a)],
        lambda ts, ans, a: _svd_tangents(ts[0], a)[0])
defrule(right_vectors_h, [lambda g, ans, a: _svd_vjp(None, None, _t(g), a)],
        lambda ts, ans, a: _t(_svd_tangents(ts[0], a)[2]))

Svd = namedtuple("Svd", ["U", "S", "Vh"])


def _svd_composite(a, full_matrices=True, compute_uv=True, hermitian=False):
    _svd_check(a, full_matrices and compute_uv)
    if not compute_uv:
        return singular_values(a)
    return Svd(left_vectors(a), singular_values(a), right_vectors_h(a))


def _svd_rule_vjp(g, ans, a, full_matrices=True, compute_uv=True, hermitian=False):
    _svd_check(a, full_matrices and compute_uv)
    if not compute_uv:
        return _svd_vjp(None, g, None, a)
    gu, gs, gvh = g
    return _svd_vjp(gu, gs, None if gvh is None else _t(gvh), a)


defrule(np.linalg.svd, [_svd_rule_vjp, None, None], None, composite=_svd_composite)


def _pinv_check(kwargs):
    if kwargs.get("hermitian"):
        raise MissingRuleError("numpy.linalg.pinv(..., hermitian=True) has no derivative rule")


def _pinv_vjp(g, ans, a, *args, **kw):
    # for a matrix of full rank (constant rank near the point): Golub and Pereyra's formula
    _pinv_check(kw)
    p = ans
    eye_m, eye_n = np.eye(np.shape(a)[-2]), np.eye(np.shape(a)[-1])
    return (-_t(p) @ g @ _t(p) + (eye_m - a @ p) @ _t(g) @ p @ _t(p)
            + _t(p) @ p @ _t(g) @ (eye_n - p @ a))


def _pinv_jvp(ts, ans, a, *args, **kw):
    _pinv_check(kw)
    p, t = ans, ts[0]
    eye_m, eye_n = np.eye(np.shape(a)[-2]), np.eye(np.shape(a)[-1])
    return (-p @ t @ p + p @ _t(p) @ _t(t) @ (eye_m - a @ p)
            + (eye_n - p @ a) @ _t(t) @ _t(p) @ p)


defrule(np.linalg.pinv, [_pinv_vjp, None], _pinv_jvp)
