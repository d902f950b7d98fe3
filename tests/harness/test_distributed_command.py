"""``python -m harness circuit --ranks R``: the job started by the command itself, its
report from rank 0 (ranks, the MPI, comm and peak memory per rank, settings that say
ranks and MPI), and bad input refused with exit 2 before any rank starts."""

import json

import pytest

from harness import registry
from harness.__main__ import main
from harness.distributed import launch
from kernels.statevector.backend import Backend

pytest.importorskip("mpi4py")
pytest.importorskip("qiskit")


def run_cli(capfd, *args):
    # capfd: the job's ranks write to the file descriptors this process hands them
    code = main(["circuit", *map(str, args)])
    out = capfd.readouterr()
    return code, out.out, out.err


def test_a_job_over_two_ranks_reports_from_rank_zero(capfd, tmp_path):
    out_json = tmp_path / "r.json"
    code, out, err = run_cli(capfd, "lib:qcbm", "--qubits", 10, "--ranks", 2,
                             "--precision", "complex64", "--json", out_json)
    assert code == 0, out + err
    report = json.loads(out_json.read_text())
    assert report["ranks"] == 2 and report["mpi"]["implementation"]
    row = report["backends"]["mpi"]
    assert row["status"] == "ok" and row["max_error"] <= 1e-4
    assert row["interval"][0] == row["seconds"] <= row["interval"][1]
    assert row["comm"]["exchanges"] > 0  # qcbm's Rx layers mix the global qubit
    assert row["comm"]["bytes_per_rank"] == row["comm"]["exchanges"] * 2**9 * 8 // 2
    assert row["peak_bytes_per_rank"] >= 2**9 * 8
    assert 0 <= row["comm"]["wait_seconds"] <= row["comm"]["seconds"]
    # the job measured its exchange against a copy of as many bytes
    link = report["exchange"]
    assert link["bytes"] > 0 and link["exchange_gbs"] > 0 and link["copy_gbs"] > 0
    assert link["ratio"] == pytest.approx(link["exchange_gbs"] / link["copy_gbs"])
    assert row["settings"]["ranks"] == 2 and "MPI" in row["settings"]["mpi"]
    assert report["reference"]["backend"] and report["reference"]["agreed_by"] == ["mpi"]
    # one table, printed once (by rank 0), with the ranks and what was sent
    assert out.count("rank  backend") == 1
    assert "ranks: 2 (" in out and "exchanges" in out and "one process's copy" in out


# each peer's distributed mode, and what it would print were MPI's start not its job's:
# QuEST's "initialize QuESTEnv multiple times", Open MPI's "initialize MPI ... more than
# once ... erroneous" for Aer's module unpatched
PEERS = [("quest_mpi_sim", "ERROR"), ("qiskit_aer_mpi_sim", "erroneous")]


@pytest.mark.parametrize("module, noise", PEERS)
def test_a_peers_distributed_mode_runs_validated_beside_ours(capfd, tmp_path, module, noise):
    peer = pytest.importorskip(f"adapters.simulators.{module}")
    if not peer.AVAILABLE:
        pytest.skip(peer.REASON)
    out_json = tmp_path / "r.json"
    code, out, err = run_cli(capfd, "lib:qft", "--qubits", 10, "--ranks", 2,
                             "--backends", f"mpi,{peer.NAME}", "--json", out_json)
    assert code == 0, out + err
    row = json.loads(out_json.read_text())["backends"][peer.NAME]
    assert row["status"] == "ok" and row["max_error"] <= 1e-10
    assert row["comm"] is None  # the peer does not count what it sends
    assert row["settings"]["ranks"] == 2
    assert noise not in out + err


@pytest.mark.parametrize("args, message", [
    (["--ranks", 3], "power of two"),
    (["--ranks", 128], "power of two"),
    (["--ranks", 0], "power of two"),
    (["--ranks", 8, "--qubits", 3], "at least one qubit"),
    (["--ranks", 2, "--backends", "stride"], "one process"),
    (["--ranks", 2, "--backends", "nosuch"], "unknown backend"),
    (["--ranks", 2, "--hostfile", "/nonexistent/hosts"], "no such file"),
])
def test_bad_input_is_refused_before_any_rank_starts(capfd, monkeypatch, args, message):
    started = []
    monkeypatch.setattr(launch, "launch", lambda *a, **k: started.append(a) or 0)
    argv = ["lib:ghz", *args]
    if "--qubits" not in args:
        argv += ["--qubits", 4]
    code, _, err = run_cli(capfd, *argv)
    assert code == 2 and message in err
    assert not started


def test_a_job_that_ends_otherwise_exits_1(capfd, monkeypatch):
    # a rank aborted or killed: the launcher's status is not one of the harness's
    monkeypatch.setattr(launch, "launch", lambda *a, **k: 137)
    code, _, err = run_cli(capfd, "lib:ghz", "--qubits", 4, "--ranks", 2)
    assert code == 1 and "a rank failed or was killed" in err


def test_the_job_runs_the_same_command_line():
    cmd = launch.command(4, ["circuit", "lib:ghz", "--ranks", "4"])
    assert cmd[1:3] == ["-n", "4"] and cmd[-6:-4] == ["-m", "harness"]
    assert cmd[-4:] == ["circuit", "lib:ghz", "--ranks", "4"]
    assert launch.environment()[launch.JOB_ENV] == "1"


def test_the_ranks_idle_threads_sleep(monkeypatch):
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    assert launch.environment()["OMP_WAIT_POLICY"] == "passive"
    monkeypatch.setenv("OMP_WAIT_POLICY", "active")  # a user's own choice stands
    assert launch.environment()["OMP_WAIT_POLICY"] == "active"


def test_the_ranks_get_what_the_distributed_backends_declare(monkeypatch):
    declared = {name: value for b in registry.distributed_backends()
                for name, value in b.mpi_environment.items()}
    assert declared  # the node windows' needs (kernels.statevector.distributed.window)
    for name in declared:
        monkeypatch.delenv(name, raising=False)
    env = launch.environment()
    assert all(env[name] == value for name, value in declared.items())
    name = next(iter(declared))
    monkeypatch.setenv(name, "users-own")  # a user's own choice stands
    assert launch.environment()[name] == "users-own"


def test_a_malformed_mpi_environment_is_refused():
    with pytest.raises(ValueError, match="mpi_environment"):
        Backend(name="x", role="peer", precisions=("complex128",), runner=None,
                mpi_environment={"OMPI_MCA_osc": 1})
