"""gradbench's modules in terms of our evals (kernels.ad.evals): for each module and
function, how gradbench's input becomes a call of the eval's objective or of an engine's
derivative of it, and how the result becomes gradbench's output (each eval's README in
gradbench says the shapes; the field names here are gradbench's own).

``modules(engine)`` is a tool's table (:class:`harness.gradbench.protocol.Tool`) for one of
our engines: every function answers with that engine's derivatives. The nested evals
(``particle``, ``saddle``) name a mode per derivative, outer then inner (``fr``: forward
outside, reverse inside): a letter is served by our engine of that mode, the tool's own
engine taking its mode's letter (source transformation is reverse mode); finite
differences, no mode, serve both. kmeans' ``dir`` (a Hessian's diagonal) is forward mode
over the engine's gradient.

``ba`` is gradbench's (its cpp/gradbench/evals/ba.hpp): the input is one camera, point,
weight and feature, repeated n, m and p times, observation i seeing camera i mod n and
point i mod m; the objective is answered as its first reprojection pair and first weight
residual with the repeat counts, the Jacobian (sparse, ba_sparsity's pattern and
colouring, made ready outside the timed call) as its CSR row pointer, columns and values,
each cut to its first 30 entries and its last.

``ht`` is gradbench's (its cpp/gradbench/evals/ht.hpp): ADBench's 22 bones and parents
(any other skeleton is refused), homogeneous base positions (V x 4), weights V x 22, a
mirrored model's x negated (folded into the wrist's relative transform). With an empty
``us`` it is the simple variant (kernels.ad.evals.ht.ht: the Jacobian in theta, 3N x 26);
otherwise the complicated one (ht_complicated: points on mesh triangles at barycentric
``us``), whose Jacobian is taken sparse (28 directions) and answered as gradbench's
hand-written C++ reference lays it out: each row's two us columns (its own point's), then
theta's 26.
"""

import functools
import inspect

import numpy as np

from kernels.ad import ENGINES
from kernels.ad.evals import (
    ba,
    det,
    gmm,
    ht,
    kmeans,
    llsq,
    lse,
    lstm,
    ode,
    particle,
    saddle,
)

from .protocol import Unserved


def _field(payload, name):
    if not isinstance(payload, dict) or name not in payload:
        raise Unserved(f"the input has no field {name!r}")
    return payload[name]


def _floats(payload, name, ndim):
    try:
        value = np.asarray(_field(payload, name), dtype=float)
    except (TypeError, ValueError) as exc:
        raise Unserved(f"input field {name!r} must be numbers: {exc}") from None
    if value.ndim != ndim or value.size == 0:
        raise Unserved(f"input field {name!r} must be a non-empty array of {ndim} "
                       f"dimension{'s' if ndim > 1 else ''}, got shape {value.shape}")
    return value


def _count(payload, name):
    value = _field(payload, name)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise Unserved(f"input field {name!r} must be a positive integer, got {value!r}")
    return value


def _number(value):
    return float(value)


def _array(value):
    return np.asarray(value, dtype=float).tolist()


def _gradients(grads):
    """An engine's gradient of a one-argument function, as gradbench's list."""
    return _array(grads[0])


def _value(f, parse, to_json=_number):
    """The function computing ``f`` at gradbench's input: ``parse(input) -> (args,
    data)``, the differentiated arguments and the data bound as keywords."""
    def prepare(payload):
        args, data = parse(payload)
        return functools.partial(f, **data), args, to_json
    return prepare


def _derivative(gradient, f, parse, to_json=_gradients):
    """The function computing the engine's ``gradient`` of ``f`` at gradbench's input
    (``parse`` as in :func:`_value`), with respect to every argument."""
    def prepare(payload):
        args, data = parse(payload)
        return gradient, (functools.partial(f, **data), *args), to_json
    return prepare


def _vector(*data):
    """``parse`` of an input whose one argument is the vector ``x`` and whose data are
    the positive integers named ``data``."""
    return lambda p: ((_floats(p, "x", 1),), {name: _count(p, name) for name in data})


def _det_args(p):
    ell, a = _count(p, "ell"), _floats(p, "A", 1)
    if a.size != ell * ell:
        raise Unserved(f"input field 'A' must hold ell * ell = {ell * ell} numbers, got "
                       f"{a.size}")
    return (a,), {"ell": ell}


def _kmeans_args(p):
    points, centroids = _floats(p, "points", 2), _floats(p, "centroids", 2)
    if points.shape[1] != centroids.shape[1]:
        raise Unserved(f"points and centroids must have one dimension d, got "
                       f"{points.shape[1]} and {centroids.shape[1]}")
    return (centroids,), {"points": points}


def _shaped(payload, name, shape):
    """Input field ``name`` as a float array of exactly ``shape`` (which may be empty)."""
    try:
        value = np.asarray(_field(payload, name), dtype=float)
    except (TypeError, ValueError) as exc:
        raise Unserved(f"input field {name!r} must be numbers: {exc}") from None
    if value.shape != tuple(shape):
        raise Unserved(f"input field {name!r} must have shape {tuple(shape)}, got "
                       f"{value.shape}")
    return value


def _gmm_args(p):
    """(alpha, mu, q, l), the differentiated inputs, and the data, of gradbench's gmm
    input: d, k, n, x (n x d), m, gamma, alpha (k), mu and q (k x d), l (k x d(d-1)/2,
    each precision factor's strictly lower part column by column, as ours)."""
    d, k, n = _count(p, "d"), _count(p, "k"), _count(p, "n")
    m, gamma = _field(p, "m"), _field(p, "gamma")
    if isinstance(m, bool) or not isinstance(m, int) or m < 0:
        raise Unserved(f"input field 'm' must be an integer >= 0, got {m!r}")
    if isinstance(gamma, bool) or not isinstance(gamma, (int, float)) or gamma <= 0:
        raise Unserved(f"input field 'gamma' must be a positive number, got {gamma!r}")
    args = (_shaped(p, "alpha", (k,)), _shaped(p, "mu", (k, d)), _shaped(p, "q", (k, d)),
            _shaped(p, "l", (k, d * (d - 1) // 2)))
    return args, {"x": _shaped(p, "x", (n, d)), "m": m, "gamma": float(gamma)}


def _lstm_args(p):
    """(main_params (2l x 4b), extra_params (3 x b)) and the data (state (2l x b),
    sequence (c x b)) of gradbench's lstm input."""
    main, extra = _floats(p, "main_params", 2), _floats(p, "extra_params", 2)
    b = extra.shape[1]
    if extra.shape[0] != 3 or main.shape[0] % 2 or main.shape[1] != 4 * b:
        raise Unserved(f"main_params must be 2l x 4b and extra_params 3 x b, got "
                       f"{main.shape} and {extra.shape}")
    sequence = _floats(p, "sequence", 2)
    if len(sequence) < 2 or sequence.shape[1] != b:
        raise Unserved(f"input field 'sequence' must be c x b with c >= 2 and b = {b}, "
                       f"got {sequence.shape}")
    return (main, extra), {"state": _shaped(p, "state", (main.shape[0], b)),
                           "sequence": sequence}


def _ba_args(p):
    """(x,) and the data of gradbench's ba input: its one camera (11), point (3), weight
    and feature (2) repeated n, m, p and p times (ADBench's generated layout)."""
    n, m, count = _count(p, "n"), _count(p, "m"), _count(p, "p")
    w = _field(p, "w")
    if isinstance(w, bool) or not isinstance(w, (int, float)):
        raise Unserved(f"input field 'w' must be a number, got {w!r}")
    x = np.concatenate((np.tile(_shaped(p, "cam", (11,)), n), np.tile(_shaped(p, "x", (3,)), m),
                        np.full(count, float(w))))
    return (x,), {"n": n, "m": m, "cam_index": np.arange(count) % n,
                  "point_index": np.arange(count) % m,
                  "features": np.tile(_shaped(p, "feat", (2,)), (count, 1))}


def _ba_objective(r):
    """ba's residuals as gradbench gives them: the first of each kind and the count."""
    count = len(r) // 3
    return {"reproj_error": {"elements": _array(r[:2]), "repeated": count},
            "w_err": {"element": float(r[2 * count]), "repeated": count}}


def _ba_jacobian_output(J):
    """A CSR Jacobian as gradbench's ba gives it: row pointer, columns and values, each
    its first 30 entries and its last."""
    J.sort_indices()
    return {name: [*values[:30].tolist(), values[-1].item()] for name, values in
            (("rows", J.indptr), ("cols", J.indices), ("vals", J.data))}


def _ba_jacobian(engine):
    """ba's sparse Jacobian by ``engine``, its pattern made ready before the timed call."""
    jacobian = ENGINES[engine].jacobian

    def prepare(payload):
        if "sparsity" not in inspect.signature(jacobian).parameters:
            raise Unserved(f"the {engine} engine has no sparse Jacobian, which gradbench's "
                           "ba asks for")
        (x,), data = _ba_args(payload)
        pattern = ba.ba_sparsity(data["n"], data["m"], data["cam_index"],
                                 data["point_index"])
        return (functools.partial(jacobian, sparsity=pattern),
                (functools.partial(ba.ba, **data), x), _ba_jacobian_output)
    return prepare


def _ints(payload, name, shape, below):
    """Input field ``name`` as integers of ``shape`` (None: any length), each in
    0 .. below - 1."""
    value = np.asarray(_field(payload, name))
    if value.size and value.dtype.kind not in "iu":
        raise Unserved(f"input field {name!r} must be integers, got {value.dtype}")
    if value.ndim != len(shape) or any(want is not None and got != want
                                       for got, want in zip(value.shape, shape)):
        raise Unserved(f"input field {name!r} must have shape {shape}, got {value.shape}")
    if value.size and (value.min() < 0 or value.max() >= below):
        raise Unserved(f"input field {name!r} must index 0 .. {below - 1}")
    return value.astype(int)


#: a mirrored hand: x negated, as the wrist's (the root's) relative transform does it
_MIRROR = np.diag([-1.0, 1.0, 1.0, 1.0])


def _ht_args(p):
    """(x,) and the data of gradbench's ht input; x is theta (simple variant) or the us
    then theta (complicated: ``us`` not empty), as kernels.ad.evals.ht takes them."""
    data = _field(p, "data")
    model = _field(data, "model")
    bones = len(ht.PARENTS)
    if list(np.ravel(_field(model, "parents"))) != list(ht.PARENTS):
        raise Unserved(f"ht: the model must have ADBench's {bones} bones and their parents "
                       f"{list(ht.PARENTS)}")
    relatives = _shaped(model, "base_relatives", (bones, 4, 4))
    if _field(model, "is_mirrored") is True:
        relatives = np.concatenate(([_MIRROR @ relatives[0]], relatives[1:]))
    positions = _floats(model, "base_positions", 2)
    if positions.shape[1] != 4:
        raise Unserved(f"input field 'base_positions' must be V x 4 (homogeneous), got "
                       f"{positions.shape}")
    kept = {"base_relatives": relatives,
            "inverse_base_absolutes": _shaped(model, "inverse_base_absolutes", (bones, 4, 4)),
            "base_positions": positions,
            "weights": _shaped(model, "weights", (len(positions), bones)),
            "points": _floats(data, "points", 2)}
    count = len(kept["points"])
    if kept["points"].shape[1] != 3:
        raise Unserved(f"input field 'points' must be N x 3, got {kept['points'].shape}")
    theta = _shaped(p, "theta", (26,))
    us = np.asarray(_field(p, "us"), dtype=float)
    if us.size == 0:  # the simple variant: correspondences are vertices
        kept["correspondences"] = _ints(data, "correspondences", (count,), len(positions))
        return (theta,), kept
    us = _shaped(p, "us", (count, 2))
    triangles = _ints(model, "triangles", (None, 3), len(positions))
    kept["triangles"] = triangles
    kept["correspondences"] = _ints(data, "correspondences", (count,), len(triangles))
    return (np.concatenate((us.ravel(), theta)),), kept


def _ht_objective(payload):
    (x,), data = _ht_args(payload)
    f = ht.ht_complicated if "triangles" in data else ht.ht
    return functools.partial(f, **data), (x,), _array


def _ht_jacobian(engine):
    """ht's Jacobian by ``engine``: dense in theta (simple), sparse in the us and theta
    (complicated, its pattern made ready before the timed call) laid out as gradbench's."""
    jacobian = ENGINES[engine].jacobian

    def prepare(payload):
        (x,), data = _ht_args(payload)
        if "triangles" not in data:
            return jacobian, (functools.partial(ht.ht, **data), x), _array
        if "sparsity" not in inspect.signature(jacobian).parameters:
            raise Unserved(f"the {engine} engine has no sparse Jacobian, which gradbench's "
                           "complicated ht asks for")
        count = len(data["points"])
        pattern = ht.ht_complicated_sparsity(count)
        return (functools.partial(jacobian, sparsity=pattern),
                (functools.partial(ht.ht_complicated, **data), x),
                functools.partial(_ht_compressed, count=count))
    return prepare


def _ht_compressed(J, count):
    """The complicated variant's sparse Jacobian (3N x 2N + 26) as gradbench's hand-written
    C++ reference gives it (3N x 28): each row's own point's two us columns, then theta's."""
    rows = np.arange(3 * count)
    own = 2 * (rows // 3)
    us = np.column_stack([np.asarray(J[rows, own + k]).ravel() for k in range(2)])
    return np.hstack((us, J[:, 2 * count:].toarray())).tolist()


def _pairings(engine):
    """{letters: (outer, inner)} for the nested evals (module docstring): a letter is the
    mode the engines declare (kernels.ad.backend.ADBackend.mode), the tool's own engine
    serving its own mode."""
    own = ENGINES[engine]
    if own.BACKEND.mode is None:  # no mode: it serves both letters
        by_letter = dict.fromkeys("fr", own.gradient)
    else:
        by_letter = {}
        for module in (own, *ENGINES.values()):  # the first of each mode
            mode = module.BACKEND.mode
            if mode is not None:
                by_letter.setdefault(mode[0], module.gradient)
    return {a + b: (by_letter[a], by_letter[b]) for a in "fr" for b in "fr"}


def _nested(run, start, to_json, engine):
    """Each pairing's function of a nested eval: ``run(outer, inner, *start(input))``."""
    def prepare(outer, inner, payload):
        return run, (outer, inner, *start(payload)), to_json
    return {name: functools.partial(prepare, *pair)
            for name, pair in _pairings(engine).items()}


def _particle_start(p):
    w = _field(p, "w")
    if isinstance(w, bool) or not isinstance(w, (int, float)):
        raise Unserved(f"input field 'w' must be a number, got {w!r}")
    return (np.array([float(w)]),)


def _saddle_start(p):
    start = _floats(p, "start", 1)
    if start.size != 2:
        raise Unserved(f"input field 'start' must be 2 numbers, got {start.size}")
    return (start,)


def modules(engine):
    """{module: {function: prepare}} of the tool for our engine ``engine`` (a key of
    kernels.ad.ENGINES): ``prepare(input) -> (callable, arguments, to_json)``, the call
    timed and how its result becomes gradbench's output."""
    g = ENGINES[engine].gradient
    # kmeans' dir: forward mode over the engine's gradient
    outer_inner = _pairings(engine)["f" + (ENGINES[engine].BACKEND.mode or "f")[0]]
    return {
        "llsq": {"primal": _value(llsq.llsq, _vector("n")),
                 "gradient": _derivative(g, llsq.llsq, _vector("n"))},
        "lse": {"primal": _value(lse.lse, _vector()),
                "gradient": _derivative(g, lse.lse, _vector())},
        "det": {"primal": _value(det.det, _det_args),
                "gradient": _derivative(g, det.det, _det_args)},
        # the primal is the whole end state, the gradient that of its last component
        "ode": {"primal": _value(ode.solve, _vector("s"), _array),
                "gradient": _derivative(g, ode.ode, _vector("s"))},
        "kmeans": {"cost": _value(kmeans.kmeans, _kmeans_args),
                   "dir": _value(functools.partial(kmeans.kmeans_dir, *outer_inner),
                                 _kmeans_args, _array)},
        "gmm": {"objective": _value(gmm.gmm, _gmm_args),
                # gradbench's "jacobian" is the gradient, one list per input
                "jacobian": _derivative(g, gmm.gmm, _gmm_args, lambda grads: dict(
                    zip(("alpha", "mu", "q", "l"), map(_array, grads))))},
        "lstm": {"objective": _value(lstm.lstm, _lstm_args),
                 # the gradient, main_params' then extra_params', each row by row
                 "jacobian": _derivative(g, lstm.lstm, _lstm_args, lambda grads: np.concatenate(
                     [np.ravel(x) for x in grads]).tolist())},
        "ba": {"objective": _value(ba.ba, _ba_args, _ba_objective),
               "jacobian": _ba_jacobian(engine)},
        "ht": {"objective": _ht_objective, "jacobian": _ht_jacobian(engine)},
        "particle": _nested(particle.particle, _particle_start, _number, engine),
        "saddle": _nested(saddle.saddle, _saddle_start, _array, engine),
    }
