"""numpy's array keywords (``out=``, ``where=``, ``dtype=``, ``initial=``, ``casting=``,
``order=``) on every function of the rule table, in every exact engine: each call is either
differentiated correctly (against central differences) or refused with an error naming the
keyword (kernels/ad/_keywords.py), never a TypeError from a rule's signature."""

import importlib.util
import warnings

import numpy as np
import pytest

from kernels.ad import ENGINES, rules

from .gradcheck import check_gradient
from .test_rules import _vjp_jvp_pairs

EXACT = ["forward", "reverse", "source"]
_W = np.random.default_rng(3).standard_normal(256)


def _mask(x):
    return (np.arange(np.size(x)) % 3 != 1).reshape(np.shape(x))


#: keyword -> its value for a call whose first differentiable argument is x and plain
#: answer is ans
KEYWORDS = {
    "where": lambda x, ans: _mask(x),
    "out": lambda x, ans: np.zeros_like(ans),
    "dtype": lambda x, ans: np.float64,
    "dtype32": lambda x, ans: np.float32,
    "initial": lambda x, ans: 1.2,
    "casting": lambda x, ans: "unsafe",
    "order": lambda x, ans: "F",
}


def _public(fn):
    return isinstance(fn, np.ufunc) or (getattr(fn, "__module__", "") or "").startswith(
        "numpy")


def _calls():
    """(id, fn, args, kwargs, key, value, differentiated positions) for every public rule'd
    function of the adjoint table with each keyword, where numpy itself takes the call."""
    out, seen = [], set()
    for name, fn, args, kwargs in _vjp_jvp_pairs():
        rule = rules.RULES[fn]
        if (fn in seen or not _public(fn) or any(np.iscomplexobj(a) for a in args)
                or set(kwargs) & set(KEYWORDS)):
            continue  # (one call per function: the first of the adjoint table)
        seen.add(fn)
        diff = [i for i, a in enumerate(args) if isinstance(a, np.ndarray) and a.dtype.kind == "f"
                and i < len(rule.vjps) and rule.vjps[i] is not None]
        if not diff:
            continue
        try:
            ans = fn(*args, **kwargs)
        except Exception:  # noqa: BLE001 - not a call to test keywords on
            continue
        if not isinstance(ans, np.ndarray) and not np.isscalar(ans):
            continue
        for key, make in KEYWORDS.items():
            value = make(args[diff[0]], ans)
            kw = dict(kwargs, **{key.rstrip("32"): value})
            if key == "where" and isinstance(fn, np.ufunc) and fn.signature is None:
                # numpy takes it, leaving the output uninitialised where the mask is False
                # (scipy's ufuncs have crashed the interpreter on it): not called here
                out.append((f"{name}-{key}", fn, args, kw, key, diff, True))
                continue
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    fn(*args, **kw)
                numpy_takes = True
            except Exception:  # noqa: BLE001 - numpy refuses it: so must the engines
                numpy_takes = False
            out.append((f"{name}-{key}", fn, args, kw, key.rstrip("32"), diff, numpy_takes))
    return out


def _functions(tmp_path_factory, calls, per_file=8):
    """The calls as functions ``f_k(d0, d1, ...)`` calling ``FN_k`` with the differentiated
    arguments in place, and ``b_k`` the same call without the keyword tried, in small
    modules on disk (the source engine reads source; a small
    file keeps finding each function's source cheap)."""
    folder = tmp_path_factory.mktemp("keywords")
    functions = []
    for start in range(0, len(calls), per_file):
        lines, names = [], {"W": _W}
        for k in range(start, min(start + per_file, len(calls))):
            _, fn, args, kw, _, diff, _ = calls[k]
            texts = [f"d{i}" if i in diff else f"A{k}[{i}]" for i in range(len(args))]
            for prefix, keys in (("f", kw), ("b", [n for n in kw if n != calls[k][4]])):
                call = texts + [f"{key}=K{k}[{key!r}]" for key in keys]
                lines += [f"def {prefix}_{k}({', '.join(f'd{i}' for i in diff)}):",
                          f"    y = FN{k}({', '.join(call)})",
                          "    return np.sum(np.ravel(y) * W[:np.size(y)])", "", ""]
            names.update({f"FN{k}": fn, f"A{k}": args, f"K{k}": kw})
        name = f"keyword_calls_{start}"
        path = folder / f"{name}.py"
        path.write_text("import numpy as np\n\n\n" + "\n".join(lines))
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        vars(module).update(names)
        functions += [(getattr(module, f"f_{k}"), getattr(module, f"b_{k}"))
                      for k in range(start, min(start + per_file, len(calls)))]
    return functions


CALLS = _calls()


@pytest.fixture(scope="module")
def functions(tmp_path_factory):
    return _functions(tmp_path_factory, CALLS)


def test_every_keyword_is_tried_on_many_rules():
    tried = {c[4] for c in CALLS}
    assert tried == {"where", "out", "dtype", "initial", "casting", "order"}
    assert len({c[1] for c in CALLS}) > 100
    assert len({c[1] for c in CALLS if c[6]}) > 60  # calls numpy takes


def _answers(engine, f, point):
    """Whether ``engine`` differentiates ``f`` (the call without the keyword: a refusal
    for another reason, np.full_like of a plain template, need not name the keyword)."""
    try:
        ENGINES[engine].gradient(f, *point)
    except Exception:  # noqa: BLE001
        return False
    return True


@pytest.mark.parametrize("engine", EXACT)
def test_keywords_are_differentiated_or_refused_by_name(engine, functions):
    wrong, counts = [], {"differentiated": 0, "refused": 0}
    for k, (name, _, args, _, key, diff, numpy_takes) in enumerate(CALLS):
        f, base = functions[k]
        point = [args[i] for i in diff]
        if not numpy_takes:  # numpy refuses the call: an engine may not answer it
            try:
                ENGINES[engine].gradient(f, *point)
            except Exception:  # noqa: BLE001, S112 - any error, numpy's own included
                continue
            wrong.append(f"{name}: numpy refuses it, but {engine} answered")
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                check_gradient(ENGINES[engine].gradient, f, *point,
                               rng=np.random.default_rng(k), rtol=1e-5, atol=1e-7)
            counts["differentiated"] += 1
        except AssertionError as exc:
            wrong.append(f"{name}: {exc}")
        except Exception as exc:  # noqa: BLE001 - a refusal must name the keyword
            if f"{key}=" not in str(exc) and f"'{key}'" not in str(exc) and _answers(
                    engine, base, point):
                wrong.append(f"{name}: {type(exc).__name__}: {exc}")
            counts["refused"] += 1
    assert not wrong, "\n".join(wrong)
    # both outcomes occur (where= of sum, dtype=float64, ufunc order= are differentiated)
    assert counts["differentiated"] > 50 and counts["refused"] > 50, counts


@pytest.mark.parametrize("engine", EXACT)
def test_refusals_name_the_function_and_the_keyword(engine):
    def add_out(x):
        return np.sum(np.add(x, x, out=np.empty(3)))

    def sin_where(x):
        return np.sum(np.sin(x, where=x > 1.0))

    def sum_int(x):
        return np.sum(x, dtype=int)

    def var_out(x):
        return np.var(x, out=np.zeros(()))

    x = np.array([0.5, 1.0, 1.5])
    for f, message in [(add_out, r"numpy\.add\(\.\.\., out=\.\.\.\)"),
                       (sin_where, r"numpy\.sin\(\.\.\., where=\.\.\.\).*uninitialised"),
                       (sum_int, r"numpy\.sum\(\.\.\., dtype=\.\.\.\) is not differentiable"),
                       (var_out, r"numpy\.var\(\.\.\., out=\.\.\.\)")]:
        # (reverse mode's ufunc out= is a ValueError: `a += v` into a plain array)
        with pytest.raises((rules.MissingRuleError, ValueError), match=message):
            ENGINES[engine].gradient(f, x)


def _clip_by_keyword(x, s):
    return np.sum(np.clip(x, 0.0, a_max=s))


@pytest.mark.parametrize("engine", EXACT)
def test_a_differentiable_keyword_argument_is_refused_not_dropped(engine):
    # the source engine used to bind the call and drop s's derivative without a word
    with pytest.raises(rules.MissingRuleError, match=r"a_max= carries a derivative.*"
                                                     r"pass it positionally"):
        ENGINES[engine].gradient(_clip_by_keyword, np.array([0.5, 1.0, 1.5]), 1.2)


def _array_ndmin(x):
    return np.sum(np.array(x, ndmin=2).T * np.arange(1.0, 4.0))


def _array_copy(x):
    return np.sum(np.array(x, copy=True) * np.arange(1.0, 4.0)) + np.sum(np.asarray(x, order="C"))


@pytest.mark.parametrize("engine", EXACT)
def test_np_array_options_are_no_ops_or_refused(engine):
    # ndmin=2 used to be dropped: a (3,) array where numpy gives (1, 3), a wrong gradient
    x = np.array([0.5, 1.0, 1.5])
    with pytest.raises(rules.MissingRuleError, match=r"numpy\.array\(\.\.\., ndmin\)"):
        ENGINES[engine].gradient(_array_ndmin, x)
    np.testing.assert_allclose(ENGINES[engine].gradient(_array_copy, x)[0], [2.0, 3.0, 4.0])
