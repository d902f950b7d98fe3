"""The rule table's own machinery: lookup errors, broadcasting, sparse accumulation,
registration, and each rule's two directions agreeing with each other."""

import functools
import operator

import numpy as np
import pytest

from kernels.ad import rules


def test_lookup_names_the_missing_function_and_how_to_register():
    with pytest.raises(rules.MissingRuleError, match=r"numpy\.spacing \(no rule yet\); "
                       r"register one with kernels\.ad\.rules\.defpartials"):
        rules.lookup(np.spacing)


@pytest.mark.parametrize("ct_shape, shape", [((3, 4), (4,)), ((3, 4), (3, 1)), ((3, 4), ()),
                                             ((2, 3, 4), (1, 4)), ((3,), (3,))])
def test_unbroadcast_sums_over_broadcast_axes(ct_shape, shape):
    ct = np.arange(np.prod(ct_shape), dtype=float).reshape(ct_shape)
    got = rules.unbroadcast(ct, shape)
    assert np.shape(got) == shape
    assert np.sum(got) == np.sum(ct)


def test_scatter_accumulation_is_lazy_and_sums_duplicates():
    acc = None
    for i in [0, 2, 2, 4]:
        acc = rules.accumulate(acc, rules.Scatter((5,), i, 1.5), (5,))
    assert isinstance(acc, rules.ScatterSum) and len(acc.parts) == 4
    acc = rules.accumulate(acc, rules.Scatter((5,), slice(1, 3), np.array([1.0, 2.0])), (5,))
    np.testing.assert_array_equal(rules.densify(acc), [1.5, 1.0, 5.0, 0.0, 1.5])
    dense = rules.accumulate(acc, np.ones(5), (5,))
    np.testing.assert_array_equal(dense, [2.5, 2.0, 6.0, 1.0, 2.5])


def test_accumulate_never_writes_into_its_inputs():
    shared = np.ones(3)
    acc = rules.accumulate(None, shared, (3,))
    acc = rules.accumulate(acc, rules.Scatter((3,), 1, 2.0), (3,))
    acc = rules.accumulate(acc, shared, (3,))
    np.testing.assert_array_equal(shared, np.ones(3))
    np.testing.assert_array_equal(acc, [2.0, 4.0, 2.0])


def test_as_output_gives_floats_for_scalars_and_zeros_for_nothing():
    assert rules.as_output(np.float64(2.0), 1.0) == 2.0
    assert type(rules.as_output(np.array(2.0), 1.0)) is float
    np.testing.assert_array_equal(rules.as_output(None, np.ones((2, 2))), np.zeros((2, 2)))


def _sym(rng, n):
    a = rng.uniform(-1, 1, (n, n))
    return a @ a.T + n * np.eye(n)


def _vjp_jvp_pairs():
    """Each rule as (name, fn, args, kwargs): the vjp and the jvp must be adjoint."""
    from kernels.ad import _arrays
    from kernels.ad.rules import linalg as _rules_linalg
    rng = np.random.default_rng(5)
    m, v = rng.uniform(0.5, 1.5, (3, 4)), rng.uniform(0.5, 1.5, 4)
    t3, sq = rng.uniform(0.5, 1.5, (2, 3, 4)), rng.uniform(0.5, 1.5, (3, 3)) + 3 * np.eye(3)
    inside = {np.arcsin: 0.4, np.arccos: 0.4, np.arctanh: 0.4, np.arccosh: 2.0}
    from .constructs import sp
    if sp is not None:
        inside.update({sp.logit: 0.4, sp.erfinv: 0.4})
    unary = [(r.name, fn, (m * inside.get(fn, 1.0) + (1.0 if fn is np.arccosh else 0.0),), {})
             for fn, r in rules.RULES.items() if isinstance(fn, np.ufunc) and fn.nin == 1]
    binary = [(r.name, fn, (m, v), {}) for fn, r in rules.RULES.items()
              if isinstance(fn, np.ufunc) and fn.nin == 2 and fn is not np.matmul]
    z = m * (1 + 2j)
    nm = np.where(m > 1.3, np.nan, m)  # NaNs for the nan-reductions to skip
    lay = _arrays.layout("stack", [(3, 4), (3, 4)], 1)
    return unary + binary + _scipy_pairs(m, v) + [
        ("matmul", np.matmul, (m, v), {}), ("matmul-3d", np.matmul, (t3, m.T), {}),
        ("matmul-1d-3d", np.matmul, (v[:3], t3), {}), ("dot", np.dot, (v, m.T), {}),
        ("dot-3d", np.dot, (t3, v), {}), ("tensordot", np.tensordot, (t3, m, ([1, 2], [0, 1])), {}),
        ("inner", np.inner, (m, t3), {}), ("outer", np.outer, (m, v), {}),
        ("kron", np.kron, (m, sq), {}), ("cross", np.cross, (m[:, :3], sq), {}),
        ("einsum", np.einsum, ("ij,kj->ik", m, m), {}),
        ("einsum-ellipsis", np.einsum, ("...j,jk", t3, m.T), {}),
        ("sum", np.sum, (m,), {"axis": 1, "keepdims": True}),
        ("sum-where", np.sum, (m,), {"axis": 1, "where": m > 1.0, "initial": 0.5}),
        ("mean-where", np.mean, (m,), {"axis": 0, "where": m != m[0, 0]}),
        ("prod-where", np.prod, (m,), {"axis": 1, "where": m > 0.8, "initial": 1.5}),
        ("max-where", np.max, (m,), {"axis": 0, "where": m > 1.0, "initial": 1.2}),
        ("var-where", np.var, (m,), {"axis": 1, "where": m != m[0, 0], "ddof": 1}),
        ("std-where", np.std, (m,), {"where": m != m[1, 1]}),
        ("mean", np.mean, (t3,), {"axis": (0, 2)}),
        ("prod", np.prod, (m,), {"axis": 0}), ("max", np.max, (m,), {"axis": 1}),
        ("min", np.min, (m,), {}), ("var", np.var, (m,), {"axis": 0, "ddof": 1}),
        ("std", np.std, (m,), {}), ("cumsum", np.cumsum, (m,), {"axis": 1}),
        ("cumsum-flat", np.cumsum, (m,), {}),
        ("norm", np.linalg.norm, (m,), {}), ("norm-1", np.linalg.norm, (v, 1), {}),
        ("norm-3", np.linalg.norm, (m,), {"ord": 3, "axis": 1}),
        ("norm-inf", np.linalg.norm, (v, np.inf), {}),
        ("trace", np.trace, (m,), {}), ("trace-3d", np.trace, (t3,), {"axis1": 1, "axis2": 2}),
        ("transpose", np.transpose, (t3, (1, 2, 0)), {}), ("swapaxes", np.swapaxes, (t3, 0, 2), {}),
        ("moveaxis", np.moveaxis, (t3, 0, -1), {}), ("reshape", np.reshape, (m, (2, 6)), {}),
        ("ravel", np.ravel, (m,), {}), ("expand_dims", np.expand_dims, (m, 1), {}),
        ("broadcast_to", np.broadcast_to, (v, (3, 4)), {}), ("flip", np.flip, (m,), {"axis": 1}),
        ("fliplr", np.fliplr, (m,), {}), ("roll", np.roll, (m, 2), {"axis": 1}),
        ("roll-flat", np.roll, (m, 5), {}), ("rot90", np.rot90, (m,), {}),
        ("repeat", np.repeat, (m, 2), {"axis": 0}),
        ("repeat-flat", np.repeat, (v, [1, 0, 2, 3]), {}),
        ("tile", np.tile, (v, (2, 2)), {}), ("pad", np.pad, (m, ((1, 0), (2, 1))), {}),
        ("tril", np.tril, (m,), {}), ("triu", np.triu, (m, 1), {}),
        ("diag-1d", np.diag, (v, 1), {}), ("diag-2d", np.diag, (m,), {}),
        ("diagonal", np.diagonal, (t3,), {"offset": 1, "axis1": 2, "axis2": 1}),
        ("sort", np.sort, (m,), {"axis": 0}), ("sort-flat", np.sort, (m,), {"axis": None}),
        ("take", np.take, (m, [2, 0, 2]), {"axis": 1}), ("take-flat", np.take, (m, [5, 1]), {}),
        ("getitem", operator.getitem, (m, (1, slice(0, 3))), {}),
        ("getitem-mixed", operator.getitem, (t3, (0, slice(None), [0, 1, 3])), {}),
        ("getitem-bool", operator.getitem, (m, m > 1.0), {}),
        ("where", np.where, (m > 1.0, m, v), {}), ("clip", np.clip, (m, 0.8, 1.2), {}),
        ("abs-complex", np.absolute, (z,), {}), ("real", np.real, (z,), {}),
        ("imag", np.imag, (z,), {}), ("conj", np.conjugate, (z,), {}),
        ("angle", np.angle, (z,), {}),
        ("join", _arrays.join, (m, m * 2), {"layout": lay}),
        ("asarray", _arrays.asarray, (m,), {"dtype": complex}),
        ("inv", np.linalg.inv, (sq,), {}), ("det", np.linalg.det, (sq,), {}),
        ("logabsdet", _rules_linalg.logabsdet, (sq,), {}),
        ("solve", np.linalg.solve, (sq, v[:3]), {}), ("solve-2d", np.linalg.solve, (sq, m), {}),
        ("eigenvalues", _rules_linalg.eigenvalues, (_sym(rng, 3),), {}),
        ("eigenvectors", _rules_linalg.eigenvectors, (_sym(rng, 3),), {}),
        ("eigvalsh", np.linalg.eigvalsh, (_sym(rng, 3),), {}),
        ("cholesky", np.linalg.cholesky, (_sym(rng, 3),), {}),
        ("sinc", np.sinc, (m,), {}), ("amax", np.amax, (m,), {"axis": 0}),
        ("amin", np.amin, (m,), {}), ("squeeze", np.squeeze, (m[:, None],), {}),
        ("atleast_1d", np.atleast_1d, (v,), {}), ("atleast_2d", np.atleast_2d, (v,), {}),
        ("atleast_3d", np.atleast_3d, (m,), {}), ("copy", np.copy, (m,), {}),
        ("astype", _arrays.astype, (m, float), {}), ("rollaxis", np.rollaxis, (t3, 2), {}),
        ("matrix_transpose", np.matrix_transpose, (t3,), {}), ("flipud", np.flipud, (m,), {}),
        ("cumprod", np.cumprod, (m,), {"axis": 1}), ("cumprod-flat", np.cumprod, (m,), {}),
        ("diff", np.diff, (m, 2), {"axis": 1}), ("partition", np.partition, (m, 1), {}),
        ("linspace", np.linspace, (0.5, 2.0, 7), {}),
        ("nan_to_num", np.nan_to_num, (m,), {}), ("real_if_close", np.real_if_close, (z,), {}),
        ("fft", np.fft.fft, (m,), {}), ("ifft", np.fft.ifft, (z,), {"axis": 0}),
        ("fft2", np.fft.fft2, (t3,), {}), ("ifft2", np.fft.ifft2, (t3,), {"norm": "ortho"}),
        ("fftn", np.fft.fftn, (t3,), {}), ("ifftn", np.fft.ifftn, (t3,), {"axes": (0, 2)}),
        ("matrix_power", np.linalg.matrix_power, (sq, 3), {}),
        ("singular_values", _rules_linalg.singular_values, (m.T,), {}),
        ("left_vectors", _rules_linalg.left_vectors, (m,), {}),
        ("right_vectors_h", _rules_linalg.right_vectors_h, (m.T,), {}),
        ("gradient", np.gradient, (v,), {}), ("gradient-axis", np.gradient, (m, 0.5), {"axis": 1}),
        ("rfft", np.fft.rfft, (m,), {"axis": 0}),
        ("einsum-diagonal", np.einsum, ("ii,ij->j", sq, m[:, :3].T), {}),
        ("cross-axes", np.cross, (m[:, :3].T, sq), {"axisa": 0, "axisc": 0}),
        ("nansum", np.nansum, (nm,), {"axis": 1}),
        ("nanmean", np.nanmean, (nm,), {"axis": 0}),
        ("nanprod", np.nanprod, (nm,), {}),
        ("nanmax", np.nanmax, (nm,), {"axis": 1}),
        ("nanmin", np.nanmin, (nm,), {"keepdims": True}),
        ("nancumsum", np.nancumsum, (nm,), {"axis": 0}),
        ("nancumprod", np.nancumprod, (nm,), {}),
        ("median", np.median, (m,), {"axis": 1}), ("median-all", np.median, (t3,), {}),
        ("median-keepdims", np.median, (m,), {"axis": 0, "keepdims": True}),
        ("ptp", np.ptp, (m,), {"axis": 0}), ("average", np.average, (m, 1, m * 2.0), {}),
        ("cumulative_sum", np.cumulative_sum, (m,), {"axis": 1}),
        ("cumulative_prod", np.cumulative_prod, (v,), {}),
        ("full_like", np.full_like, (m, v), {}), ("full_like-scalar", np.full_like, (m, 2.5), {}),
        ("fftshift", np.fft.fftshift, (m,), {}), ("ifftshift", np.fft.ifftshift, (t3, (0, 2)), {}),
        ("vdot", np.vdot, (m, t3[0]), {}), ("vdot-complex", np.vdot, (z, z * 1j + m), {}),
        ("polyval", np.polyval, (v, m), {}),
        ("convolve", np.convolve, (v, v[:3] * 2), {"mode": "same"}),
        ("convolve-valid", np.convolve, (v[:2], v), {"mode": "valid"}),
        ("correlate", np.correlate, (v + 1j * v[::-1], v[:3]), {"mode": "full"}),
        ("correlate-valid", np.correlate, (v, v[:3] * 1j), {}),
        ("interp", np.interp, (m * 2.0 - 0.5, [0.0, 0.4, 1.0, 1.7, 2.5], v[[0, 1, 2, 3, 0]] * 2),
         {"right": 0.5}),
        ("trapezoid", np.trapezoid, (m, v), {}),
        ("trapezoid-axis", np.trapezoid, (t3, t3 * 2.0 + 1.0), {"axis": 1}),
        ("trapezoid-dx", np.trapezoid, (m, None, 0.5, 0), {}),
        ("pinv", np.linalg.pinv, (m,), {}), ("norm-nuc", np.linalg.norm, (m, "nuc"), {}),
        ("norm-2", np.linalg.norm, (sq,), {"ord": 2}), ("norm--2", np.linalg.norm, (m, -2), {}),
    ]


def _scipy_pairs(m, v):
    from .constructs import sp
    if sp is None:
        return []
    ufuncs = [(fn.__name__, fn, (m * 0.5,), {}) for fn in (
        sp.expit, sp.logit, sp.erf, sp.erfc, sp.gammaln, sp.gamma, sp.digamma, sp.erfinv,
        sp.ndtr, sp.log_ndtr, sp.log_expit)]
    return ufuncs + [
        ("xlogy", sp.xlogy, (m, v), {}), ("xlog1py", sp.xlog1py, (m, v), {}),
        ("logsumexp", sp.logsumexp, (m, 1, v), {"keepdims": True}),
        ("logsumexp-all", sp.logsumexp, (m,), {}),
        ("softmax", sp.softmax, (m,), {"axis": 0}), ("log_softmax", sp.log_softmax, (m,), {}),
    ]


def _real_inner(a, b):
    """<a, b> as the real pairing the convention uses: Re sum(a * b) (JAX's transpose)."""
    return np.real(np.sum(np.asarray(a) * np.asarray(b)))


PAIRS = _vjp_jvp_pairs()


# ids by name and position: a function's repr holds its address, which differs between the
# processes of a parallel run (pytest-xdist), and each must collect the same ids
@pytest.mark.parametrize("name, fn, args, kwargs", PAIRS,
                         ids=[f"{case[0]}-{i}" for i, case in enumerate(PAIRS)])
def test_vjp_is_the_adjoint_of_the_jvp(name, fn, args, kwargs):
    # <g, J t> == <J^T g, t> for every differentiable argument, with a batch of 2 tangents
    # (complex values paired by Re sum(a * b), the pairing of JAX's cotangents).
    rng = np.random.default_rng(6)
    rule = rules.RULES[fn]
    ans = fn(*args, **kwargs)
    g = rng.standard_normal(np.shape(ans))
    if np.iscomplexobj(ans):
        g = g + 1j * rng.standard_normal(np.shape(ans))
    checked = 0
    for i, a in enumerate(args):
        vjp = rule.vjps[i] if i < len(rule.vjps) else None
        if vjp is None or not (type(a) is float or isinstance(a, np.ndarray)
                               and a.dtype.kind in "fc"):
            continue
        t = rng.standard_normal((2,) + np.shape(a))
        if np.iscomplexobj(a):
            t = t + 1j * rng.standard_normal(t.shape)
        tangents = [t if j == i else None for j in range(len(args))]
        jt = rule.jvp(tangents, ans, *args, **kwargs)
        ct = rules.densify(rules.accumulate(None, vjp(g, ans, *args, **kwargs), np.shape(a)))
        for k in range(2):
            assert _real_inner(g, jt[k]) == pytest.approx(_real_inner(ct, t[k]), rel=1e-9)
        checked += 1
    assert checked, f"{name}: no differentiable argument was checked"


def test_every_rule_has_an_adjoint_check_or_is_a_composite():
    checked = {fn for _, fn, _, _ in _vjp_jvp_pairs()}
    missing = [r.name for fn, r in rules.RULES.items()
               if fn not in checked and r.composite is None and rules.RULES.get(fn) is not None
               and not any(rules.RULES.get(c) is r for c in checked)]
    assert not missing, f"rules without an adjoint check: {missing}"


def test_importing_rules_alone_gives_the_whole_table():
    # the families register from kernels/ad/rules/__init__.py, which `import kernels.ad.rules`
    # runs first: a fresh interpreter importing only the table sees every rule
    import subprocess
    import sys
    # (scipy.special's rules register once scipy.special is imported: not in there)
    out = subprocess.run([sys.executable, "-c", "import kernels.ad.rules as r; "
                          "print(len(r.RULES))"], capture_output=True, text=True, check=True)
    assert int(out.stdout) == sum(not r.name.startswith("scipy.") for r in rules.RULES.values())


def test_scipy_rules_register_once_scipy_is_imported_and_never_import_it():
    pytest.importorskip("scipy.special")
    import subprocess
    import sys
    # (numba, which the compiled engine compiles with, imports scipy's base package for
    # its LAPACK bindings; scipy.special is what the rules must not import)
    code = ("import sys, numpy as np; from kernels.ad import ENGINES, rules; "
            "assert 'scipy.special' not in sys.modules; import scipy.special as sp; "
            "g = ENGINES['reverse'].gradient(lambda x: np.sum(sp.expit(x)), np.zeros(2)); "
            "print(g[0][0], rules.RULES[sp.expit].name)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.split() == ["0.25", "scipy.special.expit"]


def test_errors_live_in_one_module():
    from kernels.ad import _arrays, errors
    assert rules.MissingRuleError is errors.MissingRuleError
    assert _arrays.EscapeError is errors.EscapeError



def _skinning(transforms, *, base):
    # ht's skinning contraction: large enough (5000 vertices) that the rules' einsum
    # reorders it (kernels/ad/rules/products._REORDER_WORK), forward's batched tangent too
    return np.sum(np.einsum("bij,vj->vbi", transforms, base) ** 2)


@pytest.mark.parametrize("engine", ["forward", "reverse", "source"])
def test_a_large_einsum_derivative_is_the_closed_form(engine):
    from kernels.ad import forward, reverse, source

    rng = np.random.default_rng(17)
    transforms, base = rng.standard_normal((22, 3, 4)), rng.standard_normal((5000, 4))
    expected = 2 * np.einsum("vbi,vj->bij", np.einsum("bij,vj->vbi", transforms, base), base)
    got, = {"forward": forward, "reverse": reverse, "source": source}[engine].gradient(
        functools.partial(_skinning, base=base), transforms)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-9)
