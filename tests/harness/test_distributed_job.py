"""The job's checks, in this one process (MPI's world of one rank): each way it validates
a distributed backend (the reference, the fused backend above REFERENCE_QUBITS, a second
plan and the norm where no rank holds the state) accepts a right state and catches a
wrong one. The second plan shares the per-rank gates with the first (only the choice of
global qubits differs), so an error in those that keeps the norm is beyond it: the
reference and the fused backend check them wherever the state fits."""

import pytest

from harness.distributed import job
from kernels.statevector.distributed import plan as planning

pytest.importorskip("mpi4py")
pytest.importorskip("qiskit")


def _run(**kw):
    return job.run("lib:qcbm", 6, "mpi", rounds=2, budget=0.0, **kw)


def _broken_restrict(inst, fixed):
    """plan.restrict that drops every Rx: a backend returning a wrong state."""
    return None if inst.name == "Rx" else planning.restrict.__wrapped__(inst, fixed)


@pytest.fixture
def wrong(monkeypatch):
    original = planning.restrict
    _broken_restrict.__wrapped__ = original
    monkeypatch.setattr(planning, "restrict", _broken_restrict)


def test_against_the_reference():
    report = _run()
    row = report["backends"]["mpi"]
    assert row["status"] == "ok" and row["max_error"] < 1e-12
    assert report["reference"]["backend"] not in (None, "mpi")
    assert report["ranks"] == 1 and row["comm"]["exchanges"] == 0
    assert report["exchange"] is None  # nothing to exchange with


def test_against_the_fused_backend_above_the_reference_size(monkeypatch):
    monkeypatch.setattr(job, "REFERENCE_QUBITS", 4)
    report = _run()
    assert report["reference"]["backend"] == "fused"
    assert report["backends"]["mpi"]["status"] == "ok"


def _no_room(n, dtype, copies=1):
    raise MemoryError(f"{copies} states of {n} qubits do not fit (as the test says)")


def test_against_a_second_plan_where_no_rank_holds_the_state(monkeypatch):
    monkeypatch.setattr(job, "REFERENCE_QUBITS", 4)
    monkeypatch.setattr(job.states, "check_fits", _no_room)
    report = _run()
    assert report["reference"]["backend"].startswith("a second plan")
    assert report["backends"]["mpi"]["status"] == "ok"


@pytest.mark.parametrize("reference_qubits", [22, 4])
def test_a_wrong_state_is_caught(monkeypatch, wrong, reference_qubits):
    monkeypatch.setattr(job, "REFERENCE_QUBITS", reference_qubits)
    row = _run()["backends"]["mpi"]
    assert row["status"] == "wrong" and "max amplitude error" in row["reason"]
    assert row["seconds"] is None  # a wrong state is never timed


def _scaling_restrict(inst, fixed):
    """plan.restrict whose every gate is 1% too large: wrong alike in every plan, so only
    the norm can tell."""
    got = planning.restrict.__wrapped__(inst, fixed)
    return None if got is None else got._replace(matrix=got.matrix * 1.01)


def test_the_norm_catches_what_both_plans_get_wrong_alike(monkeypatch):
    _scaling_restrict.__wrapped__ = planning.restrict
    monkeypatch.setattr(planning, "restrict", _scaling_restrict)
    monkeypatch.setattr(job, "REFERENCE_QUBITS", 4)
    monkeypatch.setattr(job.states, "check_fits", _no_room)
    row = _run()["backends"]["mpi"]
    assert row["status"] == "wrong"
