"""``python -m harness gradbench-tool``: our engines as gradbench tools. The tests play
gradbench's side with messages built from its specification (CONTRIBUTING.md: start,
define, evaluate, analysis; each eval's README: its module, functions, input fields and
output shapes) and check every output against the evals' hand-written derivatives, the
protocol's answers (ids, success, one integer timing a run), and that no input, however
wrong, stops the tool."""

import io
import json
import subprocess
import sys

import numpy as np
import pytest
from scipy import special, stats

from harness.gradbench import evals, protocol
from kernels.ad import ENGINES as AD_ENGINES
from kernels.ad.backend import ADBackend
from kernels.ad.evals import ba, det, gmm, ht, kmeans, llsq, lse, lstm, ode

ENGINES = ("forward", "reverse", "source")
SEED = 2026
ONCE = {"min_runs": 1, "min_seconds": 0}


def session(engine, messages):
    """The tool's responses to ``messages`` (dicts or raw lines), in order."""
    tool = protocol.Tool(f"ours-{engine}", evals.modules(engine))
    out = io.StringIO()
    lines = [m if isinstance(m, str) else json.dumps(m) for m in messages]
    protocol.serve(tool, [line + "\n" for line in lines], out.write)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def evaluate(mid, module, function, payload, **repeats):
    return {"id": mid, "kind": "evaluate", "module": module, "function": function,
            "input": {**payload, **(repeats or ONCE)}, "description": "test"}


def cases(rng):
    """(module, input, {function: expected output}) of every module with data drawn from
    ``rng``, the expected outputs from the evals' hand-written derivatives."""
    x = rng.random(16)
    n = 40
    value, (grad,) = llsq.llsq_manual(x, n=n)
    yield "llsq", {"x": x.tolist(), "n": n}, {"primal": value, "gradient": grad}
    value, (grad,) = lse.lse_manual(x)
    yield "lse", {"x": x.tolist()}, {"primal": value, "gradient": grad}
    a = rng.random(16)
    value, (grad,) = det.det_manual(a, ell=4)
    yield "det", {"A": a.tolist(), "ell": 4}, {"primal": value, "gradient": grad}
    value, (grad,) = ode.ode_manual(x, s=3)
    # the whole end state: its first component integrates y' = x_0 exactly, its last is
    # the hand-written objective
    yield "ode", {"x": x.tolist(), "s": 3}, {"primal": (2 * x[0], value), "gradient": grad}
    points = rng.random((30, 3))
    centroids = points[-4:]
    value, (grad,) = kmeans.kmeans_manual(centroids, points=points)
    direction, _ = kmeans.kmeans_dir_manual(centroids, points=points)
    yield "kmeans", {"points": points.tolist(), "centroids": centroids.tolist()}, \
        {"cost": value, "dir": direction}
    problem, (alpha, mu, q, lower) = gmm.PROBLEM.bind("d=3,k=4", rng)
    value, grads = problem.manual(alpha, mu, q, lower)
    data = problem.f.keywords
    yield "gmm", {"d": 3, "k": 4, "n": len(data["x"]), "x": data["x"].tolist(),
                  "m": data["m"], "gamma": data["gamma"], "alpha": alpha.tolist(),
                  "mu": mu.tolist(), "q": q.tolist(), "l": lower.tolist()}, \
        {"objective": value, "jacobian": dict(zip(("alpha", "mu", "q", "l"), grads))}
    problem, (main, extra) = lstm.PROBLEM.bind("l=2,c=12", rng)
    value, grads = problem.manual(main, extra)
    data = problem.f.keywords
    yield "lstm", {"main_params": main.tolist(), "extra_params": extra.tolist(),
                   "state": data["state"].tolist(), "sequence": data["sequence"].tolist()}, \
        {"objective": value, "jacobian": np.concatenate([g.ravel() for g in grads])}


def check_output(module, function, got, expected):
    if module == "ode" and function == "primal":
        first, last = expected
        assert len(got) == 16
        np.testing.assert_allclose([got[0], got[-1]], [first, last], rtol=1e-12)
        return
    if isinstance(expected, dict):
        assert set(got) == set(expected)
        for key in expected:
            np.testing.assert_allclose(got[key], expected[key], rtol=1e-9, atol=1e-12)
        return
    np.testing.assert_allclose(np.asarray(got, dtype=float), expected, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("engine", ENGINES)
def test_every_module_answers_as_gradbench_asks(engine):
    """A whole session per module, as gradbench's evals run one: start, define, then each
    function on the same input with an analysis after each success; the ids answered are
    the ids asked, every output is the hand-written one, every run has its timing."""
    for module, payload, expected in cases(np.random.default_rng(SEED)):
        messages = [{"id": 0, "kind": "start", "eval": module},
                    {"id": 1, "kind": "define", "module": module}]
        for function in expected:
            messages.append(evaluate(len(messages), module, function, payload,
                                     min_runs=2, min_seconds=0))
            messages.append({"id": len(messages), "kind": "analysis",
                             "of": len(messages) - 1, "valid": True})
        answers = session(engine, messages)
        assert [a["id"] for a in answers] == list(range(len(messages)))
        assert answers[0] == {"id": 0, "tool": f"ours-{engine}"}
        assert answers[1] == {"id": 1, "success": True}
        for k, function in enumerate(expected):
            answer = answers[2 + 2 * k]
            assert answer["success"], answer
            check_output(module, function, answer["output"], expected[function])
            assert [t["name"] for t in answer["timings"]] == ["evaluate"] * 2
            assert all(isinstance(t["nanoseconds"], int) and t["nanoseconds"] > 0
                       for t in answer["timings"])
            assert answers[3 + 2 * k] == {"id": 3 + 2 * k}


def test_the_compiled_engine_answers_what_it_compiles_and_refuses_the_rest():
    """Right, or refused naming the compiled engine (a construct it does not compile, a
    nesting it does not do), never answered another way; the evals it compiles
    (docs/ad.md, "The compiled engine") answered."""
    answered = set()
    for module, payload, expected in cases(np.random.default_rng(SEED)):
        messages = [{"id": 0, "kind": "define", "module": module}]
        messages += [evaluate(1 + k, module, function, payload)
                     for k, function in enumerate(expected)]
        answers = session("compiled", messages)
        assert answers[0] == {"id": 0, "success": True}
        for answer, function in zip(answers[1:], expected):
            if answer["success"]:
                check_output(module, function, answer["output"], expected[function])
                answered.add((module, function))
            else:
                assert "compiled engine" in answer["error"], answer
    assert {("llsq", "gradient"), ("lse", "gradient"), ("ode", "gradient"),
            ("det", "gradient")} <= answered


def test_finite_differences_answer_within_gradbenchs_tolerance():
    """finite differences are no exact engine: within gradbench's own check, |x - y| /
    max(|x| + |y|, 1) <= 1e-4."""
    for module, payload, expected in cases(np.random.default_rng(SEED)):
        for function, want in expected.items():
            if module == "ode" and function == "primal":
                continue
            (answer,) = session("finite", [evaluate(0, module, function, payload)])
            got, want = answer["output"], want
            if isinstance(want, dict):
                got = np.concatenate([np.ravel(got[key]) for key in want])
                want = np.concatenate([np.ravel(want[key]) for key in want])
            got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
            assert np.all(np.abs(got - want) / np.maximum(np.abs(got) + np.abs(want), 1)
                          <= 1e-4), (module, function)


def test_runs_repeat_until_both_the_runs_and_the_seconds_are_reached():
    calls = []

    def function(x):
        calls.append(x)
        return x
    _, timings = protocol.runs(function, (1,), min_runs=3, min_seconds=0)
    assert len(timings) == len(calls) == 3
    _, timings = protocol.runs(function, (1,), min_runs=1, min_seconds=0.02)
    assert sum(t["nanoseconds"] for t in timings) >= 0.02e9


@pytest.mark.parametrize("message, error", [
    ({"id": 0, "kind": "define", "module": "nosuch"}, "has no module 'nosuch'"),
    ({"id": 0, "kind": "define", "module": ["llsq"]}, "has no module ['llsq']"),
    (evaluate(0, "llsq", {"f": 1}, {"x": [1.0], "n": 3}), "has no function {'f': 1}"),
    (evaluate(0, "llsq", "hessian", {"x": [1.0], "n": 3}), "has no function 'hessian'"),
    (evaluate(0, "llsq", "primal", {"x": [1.0]}), "no field 'n'"),
    (evaluate(0, "llsq", "primal", {"x": [1.0], "n": 0}), "'n' must be a positive integer"),
    (evaluate(0, "llsq", "primal", {"x": "abc", "n": 3}), "'x' must be numbers"),
    (evaluate(0, "det", "gradient", {"A": [1.0, 2.0, 3.0], "ell": 2}), "ell * ell = 4"),
    (evaluate(0, "kmeans", "cost", {"points": [[1.0, 2.0]], "centroids": [[1.0]]}),
     "one dimension d"),
    (evaluate(0, "lse", "primal", {"x": [np.inf, 1.0]}), "not JSON"),  # NaN out
    (evaluate(0, "llsq", "primal", {"x": [1.0], "n": 3}, min_runs="many"), "min_runs"),
    ({"id": 0, "kind": "shutdown"}, "unknown message kind 'shutdown'"),
    # the outer derivative differentiates the inner one: reverse inside reverse refused
    (evaluate(0, "saddle", "rr", {"start": [1.0, 1.0]}), "NestingError"),
])
def test_what_cannot_be_served_is_answered_and_the_session_goes_on(message, error):
    answers = session("reverse", [message, "not json at all", [1, 2],
                                  {"id": 1, "kind": "define", "module": "lse"}])
    assert answers[0]["id"] == 0 and answers[0]["success"] is False
    assert error in answers[0]["error"]
    assert answers[1]["success"] is False and "not a message" in answers[1]["error"]
    assert answers[2]["success"] is False and "JSON object" in answers[2]["error"]
    assert answers[3] == {"id": 1, "success": True}


def test_the_command_serves_stdin_and_refuses_an_unknown_engine():
    x = np.random.default_rng(SEED).random(8)
    messages = [{"id": 0, "kind": "start", "eval": "lse"},
                {"id": 1, "kind": "define", "module": "lse"},
                evaluate(2, "lse", "gradient", {"x": x.tolist()})]
    done = subprocess.run([sys.executable, "-m", "harness", "gradbench-tool", "--engine",
                           "reverse"], input="".join(json.dumps(m) + "\n" for m in messages),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["id"] for a in answers] == [0, 1, 2]
    np.testing.assert_allclose(answers[2]["output"], lse.lse_manual(x)[1][0], rtol=1e-12)
    done = subprocess.run([sys.executable, "-m", "harness", "gradbench-tool", "--engine",
                           "nosuch"], input="", capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "no engine 'nosuch'" in done.stderr


@pytest.mark.slow  # nested descents: seconds per call
def test_saddle_reaches_gradbenchs_answer():
    """gradbench's saddle eval checks every pairing's output against one constant (its
    run.py's expectation), within its tolerance."""
    (answer,) = session("forward", [evaluate(0, "saddle", "ff", {"start": [1.0, 1.0]})])
    assert answer["success"], answer
    np.testing.assert_allclose(answer["output"], [8.246324826140356e-06] * 4, rtol=1e-9)


def test_a_nested_evals_letters_are_the_modes_the_engines_declare():
    """ff, fr, rf, rr: outer then inner; each letter served by an engine declaring that
    mode, the tool's own engine taking its own (source is reverse mode); finite
    differences declare none and serve both."""
    forward, reverse, source, finite = (AD_ENGINES[k].gradient for k in
                                        ("forward", "reverse", "source", "finite"))
    assert evals._pairings("source")["fr"] == (forward, source)
    assert evals._pairings("reverse")["rf"] == (reverse, forward)
    assert evals._pairings("forward")["rr"] == (reverse, reverse)
    assert set(evals._pairings("finite").values()) == {(finite, finite)}
    with pytest.raises(ValueError, match="mode must be one of"):
        ADBackend(name="x", role="engine", mode="sideways")


def test_gmm_is_gradbenchs_log_posterior():
    """The convention, checked apart from our eval's own code: with one component the
    mixture is one Gaussian whose precision is Q^T Q (Q: exp(q) on the diagonal, l below
    it column by column), so the objective is the sum of scipy's log densities plus the
    Wishart prior gradbench adds (m extra degrees of freedom, precision gamma)."""
    rng = np.random.default_rng(SEED)
    d, n, m, gamma = 3, 50, 2, 1.5
    x, mu, q, lower = (rng.standard_normal(s) for s in ((n, d), (1, d), (1, d), (1, 3)))
    Q = np.diag(np.exp(q[0]))
    Q[1, 0], Q[2, 0], Q[2, 1] = lower[0]
    density = stats.multivariate_normal(mu[0], np.linalg.inv(Q.T @ Q)).logpdf(x).sum()
    nu = d + m + 1
    prior = (-(gamma ** 2 / 2 * (np.sum(np.exp(2 * q)) + np.sum(lower ** 2)) - m * q.sum())
             + nu * d * np.log(gamma / np.sqrt(2)) - special.multigammaln(nu / 2, d))
    (answer,) = session("reverse", [evaluate(0, "gmm", "objective", {
        "d": d, "k": 1, "n": n, "x": x.tolist(), "m": m, "gamma": gamma, "alpha": [0.3],
        "mu": mu.tolist(), "q": q.tolist(), "l": lower.tolist()})])
    np.testing.assert_allclose(answer["output"], density + prior, rtol=1e-12)


#: gradbench's ba input (its evals/ba/data/ba1 file: one camera, point, weight and
#: feature, to be repeated), at a small n, m and p
BA_INPUT = {"n": 3, "m": 5, "p": 20,
            "cam": [-0.758453, -1.109613, -0.845551, 34.556073, 39.676747, 53.881673,
                    419.194514, 5.864426, -8.518870, 0.087812, 0.002739],
            "x": [7.203245, 0.001144, 3.023326], "w": 0.417022, "feat": [271.760969, 834.209256]}


@pytest.mark.parametrize("engine", ENGINES)
def test_ba_answers_in_gradbenchs_encoding(engine):
    """ba as gradbench's ba.hpp gives it: the input repeated (observation i sees camera
    i mod n and point i mod m); the objective as its first pair, first weight residual and
    counts; the sparse Jacobian as CSR row pointer, columns and values cut to their first
    30 entries and last, against the hand-written Jacobian (ADBench's manual layout)."""
    n, m, p = BA_INPUT["n"], BA_INPUT["m"], BA_INPUT["p"]
    x = np.concatenate((np.tile(BA_INPUT["cam"], n), np.tile(BA_INPUT["x"], m),
                        np.full(p, BA_INPUT["w"])))
    data = {"n": n, "m": m, "cam_index": np.arange(p) % n, "point_index": np.arange(p) % m,
            "features": np.tile(BA_INPUT["feat"], (p, 1))}
    value, J = ba.ba_sparse_manual(x, **data)
    J.sort_indices()
    objective, jacobian = session(engine, [evaluate(0, "ba", "objective", BA_INPUT),
                                           evaluate(1, "ba", "jacobian", BA_INPUT)])
    assert objective["success"] and jacobian["success"], (objective, jacobian)
    got = objective["output"]
    assert got["reproj_error"]["repeated"] == p and got["w_err"]["repeated"] == p
    # (a projection near 800 less a feature near it: rounding of the projection's scale)
    np.testing.assert_allclose(got["reproj_error"]["elements"], value[:2], atol=1e-11)
    np.testing.assert_allclose(got["w_err"]["element"], 1 - BA_INPUT["w"] ** 2, rtol=1e-15)
    got = jacobian["output"]
    assert got["rows"] == list(range(0, 450, 15)) + [31 * p]  # 15 a reprojection row
    assert got["cols"][:15] == [*range(11), 33, 34, 35, 48] == got["cols"][15:30]
    assert got["cols"][-1] == 11 * n + 3 * m + p - 1
    assert all(type(v) is int for v in got["rows"] + got["cols"])
    np.testing.assert_allclose(got["vals"], [*J.data[:30], J.data[-1]], rtol=1e-10)
    assert got["vals"][-1] == -2 * BA_INPUT["w"]


def test_ba_refuses_an_engine_without_sparse_jacobians():
    (answer,) = session("finite", [evaluate(0, "ba", "jacobian", BA_INPUT)])
    assert answer["success"] is False and "no sparse Jacobian" in answer["error"]


def ht_input(rng, count, complicated, mirrored=False):
    """A gradbench ht input from our generated hand (ADBench's bones), with its pose and
    our hand-written model arrays in gradbench's field names and layouts."""
    problem, (theta,) = ht.PROBLEM.bind(count, rng)
    data = problem.f.keywords
    model = {"bone_count": 22, "bone_names": [f"bone{b}" for b in range(22)],
             "parents": list(ht.PARENTS), "is_mirrored": mirrored,
             "base_relatives": data["base_relatives"].tolist(),
             "inverse_base_absolutes": data["inverse_base_absolutes"].tolist(),
             "base_positions": data["base_positions"].tolist(),
             "weights": data["weights"].tolist(),
             "triangles": rng.integers(0, ht.VERTICES, (3 * count, 3)).tolist()}
    correspondences = (rng.integers(0, 3 * count, count) if complicated
                       else data["correspondences"])
    us = rng.uniform(0.0, 0.5, (count, 2)).tolist() if complicated else []
    return {"theta": theta.tolist(), "us": us,
            "data": {"model": model, "correspondences": correspondences.tolist(),
                     "points": data["points"].tolist()}}, data


def _manual_vertex_jacobian(theta, data, vertices):
    """-(the vertices) and -(their Jacobian in theta), N x 3 and N x 3 x 26, by ht_manual
    (the hand-written forward mode) with zero points."""
    count = len(vertices)
    value, J = ht.ht_manual(theta, **{**data, "correspondences": vertices,
                                      "points": np.zeros((count, 3))})
    return value.reshape(count, 3), J.reshape(count, 3, 26)


@pytest.mark.parametrize("engine", ENGINES)
def test_ht_simple_is_the_hand_written_jacobian(engine):
    payload, data = ht_input(np.random.default_rng(SEED), 12, complicated=False)
    value, J = ht.ht_manual(np.array(payload["theta"]), **data)
    objective, jacobian = session(engine, [evaluate(0, "ht", "objective", payload),
                                           evaluate(1, "ht", "jacobian", payload)])
    assert objective["success"] and jacobian["success"], (objective, jacobian)
    np.testing.assert_allclose(objective["output"], value, rtol=1e-12, atol=1e-14)
    assert np.shape(jacobian["output"]) == (36, 26)
    np.testing.assert_allclose(jacobian["output"], J, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("engine", ENGINES)
def test_ht_complicated_is_laid_out_as_gradbenchs_manual_tool(engine):
    """Point i on triangle t at (u0, u1, 1 - u0 - u1): its residual's us columns are the
    corners' differences, its theta columns the corners' hand-written Jacobians so
    weighted; 3N x (2 + 26), each row's own point's us first."""
    count = 10
    payload, data = ht_input(np.random.default_rng(SEED), count, complicated=True)
    theta, us = np.array(payload["theta"]), np.array(payload["us"])
    triangles = np.array(payload["data"]["model"]["triangles"])
    corners = triangles[payload["data"]["correspondences"]]
    negated = [_manual_vertex_jacobian(theta, data, corners[:, k]) for k in range(3)]
    weights = (us[:, :1], us[:, 1:], 1.0 - us[:, :1] - us[:, 1:])
    # residual = points - hand point; ht_manual's values are -vertices, its J -dv/dtheta
    value = np.array(payload["data"]["points"]) + sum(
        w * v for w, (v, _) in zip(weights, negated))
    J_theta = sum(w[:, :, None] * j for w, (_, j) in zip(weights, negated))
    J_us = np.stack([negated[k][0] - negated[2][0] for k in range(2)], axis=-1)
    expected = np.concatenate((J_us, J_theta), axis=-1).reshape(3 * count, 28)
    objective, jacobian = session(engine, [evaluate(0, "ht", "objective", payload),
                                           evaluate(1, "ht", "jacobian", payload)])
    assert objective["success"] and jacobian["success"], (objective, jacobian)
    np.testing.assert_allclose(objective["output"], value.ravel(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(jacobian["output"], expected, rtol=1e-10, atol=1e-12)


def test_ht_mirrored_reflects_the_skinned_hand_before_the_global_move():
    """A mirrored model negates x of the skinned vertices (ht.hpp's scale_row(0, -1)),
    before the global rotation R and translation t: R^T (v - t) flips its x."""
    rng = np.random.default_rng(SEED)
    plain, data = ht_input(rng, 8, complicated=False)
    mirrored = {**plain, "data": {**plain["data"], "model": {**plain["data"]["model"],
                                                            "is_mirrored": True}}}
    outputs = [session("forward", [evaluate(0, "ht", "objective", p)])[0]["output"]
               for p in (plain, mirrored)]
    theta, points = np.array(plain["theta"]), np.array(plain["data"]["points"])
    R = ht._global_rotation(theta[:3])
    local = [(points - np.reshape(o, (8, 3)) - theta[3:6]) @ R for o in outputs]
    np.testing.assert_allclose(local[1], local[0] * [-1.0, 1.0, 1.0], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("change, words", [
    (lambda p: p["data"]["model"].update(parents=[-1] + [0] * 21), "ADBench's 22 bones"),
    (lambda p: p["data"].update(correspondences=[0, 1]), "'correspondences' must have"),
    (lambda p: p["data"].update(correspondences=[10 ** 6] * 6), "must index"),
    (lambda p: p.update(us=[[0.1, 0.2]]), "'us' must have shape"),
    (lambda p: p["data"]["model"].update(base_positions=[[0.0] * 3] * 544), "homogeneous"),
])
def test_ht_refuses_what_it_cannot_read(change, words):
    payload, _ = ht_input(np.random.default_rng(SEED), 6, complicated=False)
    change(payload)
    (answer,) = session("reverse", [evaluate(0, "ht", "objective", payload)])
    assert answer["success"] is False and words in answer["error"], answer


def test_ht_complicated_refuses_an_engine_without_sparse_jacobians():
    payload, _ = ht_input(np.random.default_rng(SEED), 6, complicated=True)
    (answer,) = session("finite", [evaluate(0, "ht", "jacobian", payload)])
    assert answer["success"] is False and "no sparse Jacobian" in answer["error"]
