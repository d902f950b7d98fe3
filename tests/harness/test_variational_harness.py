"""The variational suite's plumbing: validation refuses wrong gradients, energies and
shapes, backends resolve (and unavailable tools are skipped with the reason), the memory
probe sees an allocation, and ``python -m harness validate`` counts a wrong method."""

import types

import numpy as np
import pytest

from harness import memory
from harness import validate as harness_validate
from harness.errors import Unavailable, ValidationError
from harness.variational import backends, validate
from kernels import variational


@pytest.fixture(scope="module")
def problem():
    return variational.qcbm_energy(4, 2, np.random.default_rng(4))


def runner(name, gradient, energy):
    return backends.Runner(name, gradient, energy)


def test_a_right_backend_passes_and_reports_its_error(problem):
    r = backends.prepare("adjoint", problem, problem.theta0)
    assert validate.compare(r, problem, problem.theta0) < 1e-12


@pytest.mark.parametrize("change, message", [
    (lambda g, e: (g + 1e-6, e), "gradient off by"),
    (lambda g, e: (g * np.nan, e), "gradient off by"),
    (lambda g, e: (g[:-1], e), "gradient of shape"),
    (lambda g, e: (g.astype(complex), e), "gradient of shape"),
    (lambda g, e: (g, e + 1e-6), "energy"),
])
def test_wrong_results_fail_validation(problem, change, message):
    g = variational.GRADIENTS["adjoint"](problem, problem.theta0)
    bad_g, bad_e = change(g, problem.energy(problem.theta0))
    with pytest.raises(ValidationError, match=message):
        validate.compare(runner("bad", lambda: bad_g, lambda: bad_e), problem, problem.theta0)


def test_finite_differences_get_their_own_tolerance(problem):
    g = variational.GRADIENTS["adjoint"](problem, problem.theta0) + 1e-7
    e = problem.energy(problem.theta0)
    validate.compare(runner("finite", lambda: g, lambda: e), problem, problem.theta0)
    with pytest.raises(ValidationError):
        validate.compare(runner("adjoint", lambda: g, lambda: e), problem, problem.theta0)


def test_backends_list_ours_then_adapters_and_refuse_unknown_names(problem):
    names = backends.names()
    assert names[:len(variational.GRADIENTS)] == list(variational.GRADIENTS)
    with pytest.raises(ValueError, match="unknown gradient backend 'nope'"):
        backends.prepare("nope", problem, problem.theta0)


def test_an_unavailable_or_unable_tool_is_skipped_with_its_reason(problem, monkeypatch):
    def refuse(problem, method=None):
        raise NotImplementedError("no phase gates")
    missing = types.SimpleNamespace(NAME="ghost", AVAILABLE=False, REASON="ghost not installed")
    unable = types.SimpleNamespace(NAME="weak", AVAILABLE=True, REASON="1.0",
                                   prepare_gradient=refuse, prepare_energy=refuse)
    monkeypatch.setattr(backends, "_adapters",
                        lambda: {"ghost": (missing, "adjoint"), "weak": (unable, "adjoint")})
    with pytest.raises(Unavailable, match="ghost not installed"):
        backends.prepare("ghost", problem, problem.theta0)
    with pytest.raises(Unavailable, match="weak: no phase gates"):
        backends.prepare("weak", problem, problem.theta0)


def test_the_memory_probe_sees_an_allocation():
    grown = memory.peak_increase(lambda: np.ones(8 * 2 ** 20).sum())  # 64 MiB, then freed
    if grown is None:
        pytest.skip("VmHWM cannot be reset here")
    assert 60 * 2 ** 20 < grown < 120 * 2 ** 20


def test_validate_counts_a_wrong_method(monkeypatch, capsys):
    monkeypatch.setitem(variational.GRADIENTS, "broken",
                        lambda p, t: variational.GRADIENTS["adjoint"](p, t) * 1.01)
    wrong = harness_validate.validate_variational((4,), names=["adjoint", "broken"])
    out = capsys.readouterr().out
    assert wrong == 1 and "WRONG" in out and "broken QCBM 4: broken QCBM n=4: gradient off" in out
    adjoint_cell = out.split("QCBM", 2)[1].split()[1]  # the row's first cell: adjoint's error
    assert float(adjoint_cell) < 1e-12
