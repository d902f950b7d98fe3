"""The AD side of the harness: backends, validation before timing, the cost model that
skips hopeless combinations, profiles, the suites' setup, and the tables."""

import types

import numpy as np
import pytest

from harness import ids, profiles, registry, results
from harness import validate as validate_all
from harness.ad import backends as ad_backends
from harness.ad import eval_tables, tables
from harness.ad import validate as ad_validate
from harness.errors import ValidationError
from kernels.ad.backend import UNKNOWN_COST
from kernels.ad.problems import PROBLEMS
from tests.harness import fake_results


def _args(name, n, seed=0):
    return PROBLEMS[name].make_args(n, np.random.default_rng(seed))


def test_names_and_get():
    names = ad_backends.names()
    assert names[:6] == ["manual", *ad_backends.ENGINES]
    assert set(ad_backends.ENGINES) == {"forward", "reverse", "source", "compiled", "finite"}
    assert {"torch", "autograd", "jax", "jax-jit", "algopy"} <= set(names)
    with pytest.raises(ValueError, match="unknown AD backend 'nope'"):
        ad_backends.get("nope")
    with pytest.raises(ValueError, match="backend 'manual' takes no options"):
        ad_backends.get("manual", chunk=2)


@pytest.mark.parametrize("name", ["manual", "forward", "reverse", "source", "finite"])
def test_runner_gradient_and_objective(name):
    problem = PROBLEMS["quadratic"]
    args = _args("quadratic", 5)
    runner = ad_backends.get(name).prepare(problem, args)
    assert runner.objective() == problem.f(*args)
    expected = ad_validate.reference(problem, args)
    ad_validate.compare(name, runner.grads(), expected,
                      rtol=ad_validate.tolerance(name, problem, args, expected))


def test_engine_options_reach_every_call(monkeypatch):
    seen = []
    forward = ad_backends.ENGINES["forward"]
    monkeypatch.setattr(forward, "gradient", lambda f, *a, **kw: seen.append(kw) or ())
    ad_backends.get("forward", chunk=3).prepare(PROBLEMS["ackley"], _args("ackley", 8)).gradient()
    assert seen == [{"chunk": 3}]


def test_unavailable_adapter_is_a_skip_with_its_reason():
    module = types.SimpleNamespace(NAME="fake", AVAILABLE=False, REASON="fake is not installed")
    backend = ad_backends.AdapterBackend(module)
    with pytest.raises(NotImplementedError, match="fake: fake is not installed"):
        ad_validate.validated_runner(backend, PROBLEMS["trig"], _args("trig", 1))


class _Broken(ad_backends.EngineBackend):
    """reverse with one gradient entry off by ``scale``, or a wrong objective."""

    def __init__(self, scale=1.0, objective_shift=0.0):
        super().__init__("reverse")
        self.scale, self.shift = scale, objective_shift

    def prepare(self, problem, args):
        inner = super().prepare(problem, args)

        def grads():
            g = list(inner.grads())
            g[0] = g[0] * self.scale
            return tuple(g)
        return ad_backends.Runner(lambda: inner.objective() + self.shift, grads, grads)


def test_wrong_gradient_fails_validation_before_timing():
    problem, args = PROBLEMS["trmul"], _args("trmul", 6)
    with pytest.raises(ValidationError, match=r"reverse trmul: gradient error"):
        ad_validate.validated_runner(_Broken(1 + 1e-6), problem, args, what="trmul")
    with pytest.raises(ValidationError, match="objective"):
        ad_validate.validated_runner(_Broken(objective_shift=1e-3), problem, args)
    assert ad_validate.validated_runner(_Broken(), problem, args) is not None


def test_check_catches_form_and_nan():
    expected = (np.ones(3), 2.0)
    cases = [((np.ones(3),), "1 gradient entries for 2"),
             ([np.ones(3), 2.0], "must be a tuple"),
             ((np.ones(4), 2.0), r"shape \(3,\)"),
             ((np.ones(3), np.array(2.0)), "must be a float"),
             ((np.array([1, np.nan, 1]), 2.0), "error nan")]
    for got, message in cases:
        with pytest.raises(ValidationError, match=message):
            ad_validate.compare("x", got, expected)


def test_finite_tolerance_follows_rounding_and_still_catches_errors():
    problem = PROBLEMS["ackley"]
    small, large = _args("ackley", 16), _args("ackley", 1600)
    tol = {n: ad_validate.tolerance("finite", problem, a, ad_validate.reference(problem, a))
           for n, a in ((16, small), (1600, large))}
    assert ad_validate.FINITE_FLOOR < tol[16] < tol[1600] < 1e-4
    assert ad_validate.tolerance("reverse", problem, small, None) == ad_validate.RTOL
    runner = ad_validate.validated_runner(ad_backends.get("finite"), problem, large)
    wrong = tuple(g * 1.01 for g in runner.grads())
    with pytest.raises(ValidationError):
        ad_validate.compare("finite", wrong, ad_validate.reference(problem, large), rtol=tol[1600])


def test_cost_model():
    loop, vector = PROBLEMS["ackley_loop"], PROBLEMS["ackley"]
    args = _args("ackley", 1600)
    assert ad_backends.evaluations("finite", loop, args) == 3201
    # forward: one pass per chunk; fewer, wider passes cost less on a loop
    assert ad_backends.evaluations("forward", loop, args, chunk=1) > \
        10 * ad_backends.evaluations("forward", loop, args, chunk=1600)
    assert ad_backends.evaluations("algopy", vector, args) > \
        ad_backends.evaluations("algopy", vector, _args("ackley", 16))
    # eager JAX's first call on a loop costs far more than a steady gradient
    assert ad_backends.first_call_seconds("jax", loop, args, 1e-3) > \
        10 * ad_backends.evaluations("jax", loop, args) * 1e-3
    assert ad_backends.evaluations("new-tool", vector, args) == UNKNOWN_COST.vector(1600)


def test_cost_model_prices_a_jacobian_by_the_mode_that_takes_it():
    ht = PROBLEMS["ht"]
    small, large = (ht.bind(n, np.random.default_rng(0)) for n in ht.sizes[:2])
    rows = {n: int(np.size(p.f(*a))) for n, (p, a) in zip(ht.sizes, (small, large))}
    assert rows[ht.sizes[1]] > rows[ht.sizes[0]]  # ht's rows are 3 per point
    for name in ("autograd", "torch"):
        cost = [ad_backends.evaluations(name, p, a) for p, a in (small, large)]
        row = registry.ad_backend(name).cost.jacobian_row
        assert cost[1] > cost[0] >= row * rows[ht.sizes[0]] > 0, name
    # forward mode and finite differences go by columns: ht's 26 inputs at every size
    for name in ("forward", "finite"):
        assert len({ad_backends.evaluations(name, p, a) for p, a in (small, large)}) == 1
    # our reverse-mode engines hand a Jacobian this tall to forward mode: its cost and a
    # primal's run, not a sweep per row
    forward = [ad_backends.evaluations("forward", p, a) for p, a in (small, large)]
    for name in ("reverse", "source"):
        assert [ad_backends.evaluations(name, p, a) for p, a in (small, large)] == \
            [1.0 + c for c in forward], name


@pytest.mark.parametrize("name", sorted(profiles.PROFILES))
def test_profiles_name_real_problems_and_sizes(name):
    profile = profiles.PROFILES[name]
    assert profile["ad_max_seconds"] > 0
    for table in ("ad_sizes", "ad_chunk_sizes"):
        for problem, sizes in profile[table].items():
            assert set(sizes) <= set(PROBLEMS[problem].sizes), (name, table, problem)
    if name == "quick":  # the smoke run: every problem at its smallest size only
        assert all(sizes == [min(PROBLEMS[p].sizes)] for p, sizes in profile["ad_sizes"].items())


def test_gradient_suite_setup_validates_times_and_skips():
    from harness.benchmarks import ad_problems as suite

    bench = suite.Gradient()
    bench.setup(("trmul", 30), "reverse")
    bench.time_gradient(("trmul", 30), "reverse")
    assert bench.track_slowdown(("trmul", 30), "reverse") > 1
    assert bench.track_vs_manual(("trmul", 30), "reverse") > 1
    with pytest.raises(NotImplementedError, match="finite on ackley_loop n=16000: its first "
                                                  "gradient is predicted to take"):
        bench.setup(("ackley_loop", 16000), "finite")
    with pytest.raises(NotImplementedError, match="algopy"):
        bench.setup(("trmul", 30), "algopy")  # AlgoPy has no @


def test_eval_suite_validates_and_skips_past_its_own_limit(monkeypatch):
    from harness.benchmarks import _ad_setup
    from harness.benchmarks import ad_evals as suite

    bench = suite.EvalGradient()
    bench.setup(("llsq", 16), "reverse")
    bench.time_gradient(("llsq", 16), "reverse")
    ratios = suite.EvalRatios()
    ratios.setup(("llsq", 16), "reverse")
    assert ratios.track_vs_manual(("llsq", 16), "reverse") > 0
    # the eval suite's own limit, not ad_max_seconds: forward mode on lse 2500 takes one
    # column per input
    monkeypatch.setitem(_ad_setup.PROFILE, "ad_max_seconds", 1e9)
    monkeypatch.setitem(_ad_setup.PROFILE, "ad_eval_max_seconds", 1e-4)
    with pytest.raises(NotImplementedError, match=r"forward on lse n=2500: its first "
                                                  r".* over this profile's "
                                                  r"ad_eval_max_seconds = 0.0001"):
        suite.EvalGradient().setup(("lse", 2500), "forward")
    # an eval with a limit of its own: lse's, not the suite's
    monkeypatch.setitem(_ad_setup.PROFILE, "ad_eval_max_seconds_of", {"lse": 1e9})
    suite.EvalGradient().setup(("lse", 2500), "forward")
    monkeypatch.setitem(_ad_setup.PROFILE, "ad_eval_max_seconds_of", {"lse": 2e-4})
    with pytest.raises(NotImplementedError, match=r"ad_eval_max_seconds_of\['lse'\] = 0.0002"):
        suite.EvalGradient().setup(("lse", 2500), "forward")
    monkeypatch.setitem(_ad_setup.PROFILE, "ad_eval_max_seconds_of", None)
    monkeypatch.setitem(_ad_setup.PROFILE, "ad_eval_max_seconds", None)  # ad_max_seconds
    suite.EvalGradient().setup(("lse", 2500), "forward")


def test_profiles_leave_out_evals_and_cap_sampling(monkeypatch):
    from harness.benchmarks import _ad_setup

    monkeypatch.setitem(_ad_setup.PROFILE, "ad_eval_skip", ["particle", "llsq"])
    evals = {p for p, _ in _ad_setup.cases("ad_eval_sizes", origin="evals")}
    assert "llsq" not in evals and "particle" not in evals and {"lse", "saddle"} <= evals
    assert "trmul" in {p for p, _ in _ad_setup.cases()}  # the seeds' problems: untouched
    assert profiles.sampling({"sample_seconds": 0.1}, 30, 200, 0.6) == (30, 200, 0.1)
    assert profiles.sampling({"sample_seconds": 1.0}, 1, 10, 0.5) == (1, 10, 0.5)
    assert profiles.sampling({}, 1, 10, 0.5) == (1, 10, 0.5)
    for name, profile in profiles.PROFILES.items():
        assert set(profile.get("ad_eval_skip", ())) <= set(PROBLEMS), name


def test_objective_and_compile_suites():
    from harness.benchmarks import ad_problems as suite

    objective = suite.Objective()
    objective.setup(("rational", 1), "numpy")
    objective.time_objective(("rational", 1), "numpy")
    # the eager peers compile nothing; the compiled engine and jax.jit do
    assert suite.Compile.params[1] == ["compiled", "jax-jit"]
    compile_ = suite.Compile()
    compile_.setup(("rational", 1), "jax-jit")
    assert compile_.track_compile_seconds(("rational", 1), "jax-jit") > 0


def test_chunk_sweep():
    from harness.benchmarks import ad_chunks as suite

    assert suite.chunks([("ackley", 16), ("trmul", 30)]) == \
        [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 1800, "default"]
    bench = suite.ForwardChunk()
    bench.setup(("ackley", 16), 4)
    bench.time_gradient(("ackley", 16), 4)
    with pytest.raises(NotImplementedError, match="chunk 32 exceeds the 16 inputs"):
        bench.setup(("ackley", 16), 32)
    with pytest.raises(NotImplementedError, match="MiB of partials"):
        bench.setup(("ackley", 16000), 8192)


def test_validate_ad_table_counts_wrong_gradients(monkeypatch, capsys):
    sizes = {name: [] for name in PROBLEMS} | {"rational": [1]}
    assert validate_all.validate_ad(sizes, ["manual", "reverse"]) == 0
    monkeypatch.setattr(validate_all.ad_backends, "get", lambda name: _Broken(2.0))
    assert validate_all.validate_ad(sizes, ["reverse"]) == 1
    out = capsys.readouterr().out
    assert "rational         1      WRONG" in out and "1 wrong result(s)" in out


# -- tables from a small results directory ----------------------------------------------------

def _ad_results(tmp_path):
    res = fake_results.new_results(tmp_path)
    fake_results.add_ad(res)
    res.save(str(tmp_path))
    return results.latest(tmp_path, "box")[1]


def test_ad_tables_render_markdown(tmp_path):
    res = _ad_results(tmp_path)
    grads = tables.ad_gradients(res)
    header = "| problem | n | manual | forward | reverse | source | finite | torch | algopy |"
    assert header in grads
    assert "| trmul | 30 | 10 us (1x) | 20 ms (2e+03x) | 15 us (1.5x) | 12 us (1.2x) " \
           "| 20 ms (2e+03x) | 50 us (5x) | - |" in grads
    assert "| ackley_loop | 1600 | 40 us (1x) |" in grads and "| 1.5 s (3.75e+04x) |" in grads
    assert "| ackley | 16000 | 1.2 | 5e+03 | 2.5 | 12 | - | 3 | - |" in tables.ad_slowdown(res)
    assert "| trmul | 30 | 4 us | 8 us (2x) |" in tables.ad_objectives(res)
    chunks = tables.ad_chunks(res)
    assert "| ackley_loop | 1600 | 512 | 25 ms | 1.00 |" in chunks
    assert "| ackley_loop | 1600 | default (64, then 1536) | 30 ms | 1.20 |" in chunks


def test_ratios_measured_in_one_process_take_precedence(tmp_path):
    res = _ad_results(tmp_path)
    fake_results.add(res, ids.AD_VS_MANUAL,
                     [[repr(("trmul", 30))], ["'manual'", "'reverse'", "'torch'"]],
                     [1.02, 1.8, 6.0])
    assert "| trmul | 30 | 1.02 | 1.8 | 6 |" in tables.ad_vs_manual(res)
    targets = tables.ad_targets(res)
    assert "| tr(A @ B) 30x30: reverse / manual | 1.8 | <= 2 | yes |" in targets
    assert "| tr(A @ B) 30x30: reverse / torch | 0.3 | <= 0.333 | yes |" in targets
    assert "| tr(A @ B) 30x30: source / manual | not measured |" in targets


def test_ad_targets_are_checked(tmp_path):
    targets = tables.ad_targets(_ad_results(tmp_path))
    assert "| tr(A @ B) 30x30: reverse / manual | 1.5 | <= 2 | yes |" in targets
    assert "| tr(A @ B) 30x30: source / torch | 0.24 | <= 0.333 | yes |" in targets
    # the best forward chunk (512: 25 ms) against finite (1.5 s) and algopy (0.16 s)
    assert "| Ackley loop n=1600: finite / forward (best chunk) | 60 | >= 8 | yes |" in targets
    assert "| Ackley loop n=1600: algopy / forward (best chunk) | 6.4 | >= 10 | NO |" in targets
    assert "| Ackley n=16000: source gradient / objective | 12 | <= 10 | NO |" in targets


def test_compiled_engine_targets_are_checked(tmp_path):
    # the compiled engine against its own objective (its eval's bound: 3.5 on gmm, 4 on
    # llsq) and against jax.jit where both ran; not measured without its own objective
    res = fake_results.new_results(tmp_path)
    cases = [repr(("gmm", "d=2,k=5")), repr(("llsq", 32)), repr(("lse", 100))]
    fake_results.add(res, ids.EVAL_GRADIENT, [cases, ["'compiled'", "'jax-jit'"]],
                     [7e-4, 5e-4, 3e-4, float("nan"), 2e-4, 1e-4])
    fake_results.add(res, ids.EVAL_OBJECTIVE, [cases[:2], ["'numpy'", "'compiled'"]],
                     [1e-4, 2e-4, 1e-4, 1e-4])
    targets = eval_tables.eval_targets(res)
    assert "| gmm d=2,k=5: compiled / its own objective | 3.5 | <= 3.5 | yes |" in targets
    assert "| gmm d=2,k=5: compiled / jax-jit | 1.4 | <= 1 | NO |" in targets
    assert "| llsq 32: compiled / its own objective | 3 | <= 4 | yes |" in targets
    assert "llsq 32: compiled / jax-jit" not in targets  # jax.jit skipped there
    assert "| lse 100: compiled / its own objective | not measured | <= 4 | - |" in targets
    assert "| lse 100: compiled / jax-jit | 2 | <= 1 | NO |" in targets


def test_a_nesting_an_engine_refuses_is_a_skip_naming_it():
    # reverse inside reverse is refused by name (a NestingError, a TypeError): the suites
    # skip the pairing with that reason instead of failing, and forward over reverse runs
    from kernels.ad.errors import NestingError
    problem, args = PROBLEMS["kmeans_dir"].bind("k=3,n=40,d=2", np.random.default_rng(0))
    expected = ad_validate.reference(problem, args)
    for name in ("reverse", "reverse/forward", "source"):
        with pytest.raises(NotImplementedError, match="nesting") as caught:
            ad_validate.validated_runner(ad_backends.get(name), problem, args, expected)
        assert isinstance(caught.value.__cause__, (NestingError, NotImplementedError))
    assert issubclass(NestingError, TypeError)
    ad_validate.validated_runner(ad_backends.get("forward/reverse"), problem, args, expected)
