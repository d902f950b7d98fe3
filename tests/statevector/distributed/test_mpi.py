"""The distributed backend under mpiexec, at 2, 4 and 8 ranks (more ranks than cores:
oversubscribed, for correctness only): every library circuit, MQT Bench circuits and
seeded random circuits with gates on global qubits, both precisions, against the
reference (mpi_circuits.py does the checking, rank 0 the reporting); and what a failing
or killed rank does to the job."""

import subprocess
import sys
import time

import pytest

from adapters.simulators import qiskit_aer_mpi_sim, quest_mpi_sim
from harness.distributed import launch

pytest.importorskip("mpi4py")
try:
    MPIEXEC = launch.mpiexec()
except launch.LaunchError as exc:
    pytest.skip(str(exc), allow_module_level=True)


def job(ranks, *python_args, timeout=600):
    cmd = [MPIEXEC, "-n", str(ranks)]
    if launch.oversubscribed(ranks):
        cmd.append("--oversubscribe")
    return subprocess.run([*cmd, sys.executable, "-m", "mpi4py", *python_args],
                          env=launch.environment(), capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.parametrize("ranks", [2, 4, 8])
def test_circuits_match_the_reference(ranks):
    # 10 qubits: every library circuit has a form (some need an even n); at 8 ranks a
    # slice holds 7 qubits, so most gates meet a global qubit
    out = job(ranks, "-m", "tests.statevector.distributed.mpi_circuits", "10", "8")
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"over {ranks} ranks: 0 failed" in out.stdout
    assert "checked 46 runs" in out.stdout  # 11 library, 4 MQT, 8 random; 2 precisions
    for peer in (quest_mpi_sim, qiskit_aer_mpi_sim):  # where installed: checked too
        if peer.AVAILABLE:
            assert f"and {peer.NAME} on each case" in out.stdout


def test_a_failing_rank_ends_the_job_and_is_named():
    started = time.perf_counter()
    out = job(2, "-c", "from mpi4py import MPI\n"
                       "if MPI.COMM_WORLD.Get_rank() == 1:\n"
                       "    raise RuntimeError('rank one fails')\n"
                       "MPI.COMM_WORLD.Barrier()\n", timeout=120)
    assert out.returncode not in (0,)
    assert "rank one fails" in out.stderr
    assert time.perf_counter() - started < 60  # not left waiting in the barrier


def test_a_killed_rank_ends_the_job():
    started = time.perf_counter()
    out = job(2, "-c", "import os, signal\nfrom mpi4py import MPI\n"
                       "if MPI.COMM_WORLD.Get_rank() == 1:\n"
                       "    os.kill(os.getpid(), signal.SIGKILL)\n"
                       "MPI.COMM_WORLD.Barrier()\n", timeout=120)
    assert out.returncode != 0
    assert time.perf_counter() - started < 60
