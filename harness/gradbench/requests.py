"""Our evals as gradbench's messages: what the harness sends a tool it drives
(:mod:`harness.gradbench.peer`) and how the tool's outputs read back in the engines' form.
This is :mod:`harness.gradbench.evals` the other way round, with gradbench's field names.

``REQUESTS[problem name]`` is a :class:`Request`: the gradbench module, the function that
computes the problem's derivative and the one that computes its objective (None for the
nested evals, which have none apart), and three conversions. A nested eval that gradbench
evaluates per pairing of modes (``particle``, ``saddle``: ``ff``, ``fr``, ``rf``, ``rr``)
names no function: the peer is told the pairing.

ht is gradbench's simple variant (empty ``us``) on our generated hand, which has
ADBench's bones and parents. ba and ba_sparse are not here: gradbench's ba input is one
camera, point and weight repeated, which our ba (distinct ones) cannot be written as, and
its Jacobian comes back cut to 31 entries. A tool is not asked for them rather than judged
on a part of them.
"""

from typing import NamedTuple

import numpy as np

from kernels.ad.evals import ht

#: the function names of gradbench's nested evals: the outer then the inner mode
PAIRINGS = ("ff", "fr", "rf", "rr")


class Request(NamedTuple):
    module: str
    derivative: str | None  #: None: a nested eval evaluated per pairing (PAIRINGS)
    objective: str | None  #: None: no objective apart from the derivative
    #: ``encode(args, data) -> dict``: gradbench's input for our arguments and data
    encode: object
    #: ``derivative_of(output, args) -> tuple``: the tool's output in the engines' form
    #: (per argument; ``(value,)`` for a nested eval, as harness.ad.validate.reference)
    derivative_of: object
    #: ``value_of(output) -> float``: the objective function's output as our f's value
    value_of: object = float


def _list(a):
    return np.asarray(a, dtype=float).tolist()


def _gradient(output, args):
    """A one-argument gradient given as one list (of the argument's size, in row order)."""
    return (np.asarray(output, dtype=float).reshape(np.shape(args[0])),)


def _split(output, args):
    """Gradients of several arguments given as one flat list, each row by row."""
    flat = np.asarray(output, dtype=float).ravel()
    sizes = [int(np.size(a)) for a in args]
    if flat.size != sum(sizes):
        raise ValueError(f"{flat.size} numbers for arguments of {sizes} numbers")
    parts = np.split(flat, np.cumsum(sizes)[:-1])
    return tuple(p.reshape(np.shape(a)) for p, a in zip(parts, args))


def _named(names):
    """Gradients given as {name: list}, one per argument in ``names``' order."""
    def read(output, args):
        if not isinstance(output, dict) or set(output) != set(names):
            got = sorted(output) if isinstance(output, dict) else type(output).__name__
            raise ValueError(f"expected an object with {list(names)}, got {got}")
        return tuple(np.asarray(output[n], dtype=float).reshape(np.shape(a))
                     for n, a in zip(names, args))
    return read


def _whole(output, args):
    return (np.asarray(output, dtype=float),)


def _gmm(args, data):
    alpha, mu, q, lower = args
    k, d = mu.shape
    return {"d": d, "k": k, "n": len(data["x"]), "x": _list(data["x"]), "m": data["m"],
            "gamma": data["gamma"], "alpha": _list(alpha), "mu": _list(mu), "q": _list(q),
            "l": _list(lower)}


def _ht(args, data):
    """gradbench's ht input (its HTInput) for our simple-variant ht: the model's matrices
    row by row, homogeneous base positions, weights vertex by vertex."""
    bones = len(ht.PARENTS)
    model = {"bone_count": bones, "bone_names": [f"bone{b}" for b in range(bones)],
             "parents": list(ht.PARENTS), "is_mirrored": False, "triangles": [],
             **{name: _list(data[name]) for name in (
                 "base_relatives", "inverse_base_absolutes", "base_positions", "weights")}}
    return {"theta": _list(args[0]), "us": [],
            "data": {"model": model, "correspondences": np.asarray(
                data["correspondences"]).tolist(), "points": _list(data["points"])}}


REQUESTS = {
    "llsq": Request("llsq", "gradient", "primal",
                    lambda a, d: {"x": _list(a[0]), "n": d["n"]}, _gradient),
    "lse": Request("lse", "gradient", "primal", lambda a, d: {"x": _list(a[0])}, _gradient),
    "det": Request("det", "gradient", "primal",
                   lambda a, d: {"A": _list(a[0]), "ell": d["ell"]}, _gradient),
    # the primal is the whole end state; our f is its last component
    "ode": Request("ode", "gradient", "primal", lambda a, d: {"x": _list(a[0]), "s": d["s"]},
                   _gradient, lambda out: float(out[-1])),
    "kmeans_dir": Request("kmeans", "dir", None, lambda a, d: {
        "points": _list(d["points"]), "centroids": _list(a[0])}, _whole),
    "gmm": Request("gmm", "jacobian", "objective", _gmm, _named(("alpha", "mu", "q", "l"))),
    "lstm": Request("lstm", "jacobian", "objective", lambda a, d: {
        "main_params": _list(a[0]), "extra_params": _list(a[1]),
        "state": _list(d["state"]), "sequence": _list(d["sequence"])}, _split),
    "ht": Request("ht", "jacobian", "objective", _ht, _whole, lambda out: np.asarray(
        out, dtype=float)),
    "particle": Request("particle", None, None, lambda a, d: {"w": float(a[0][0])}, _whole),
    "saddle": Request("saddle", None, None, lambda a, d: {"start": _list(a[0])}, _whole),
}
