"""Where a measurement came from: the machine that made it (its facts and a fingerprint of
them), the commit of the tree measured and whether that tree was dirty, the versions it
ran with and this machine's tuning. Every JSON file the harness writes carries this as
its ``"run"`` field, so that a file sent to the results store later, or from another
machine, is attributed to the machine that measured it and not to the one that sent it
(docs/service.md).

The fingerprint (harness.store.schema.fingerprint) hashes what decides a measurement's
speed (CPU model, instruction set, cores, cache sizes, memory, GPU), not the host's name:
two hosts of one kind share a fingerprint, a host whose processor changed gets a new one.
The name is what a person calls the machine (``QSIM_AD_BENCH_MACHINE``, else the host
name) and what a submission token is scoped to.
"""

import datetime
import functools
import importlib.metadata
import os
import platform
import shutil
import socket
import subprocess
from pathlib import Path

from harness.store.schema import fingerprint
from kernels.statevector import machine, tuning

ROOT = Path(__file__).resolve().parent.parent
#: the environment variable that names this machine (default: the host name)
MACHINE_ENV = "QSIM_AD_BENCH_MACHINE"
#: the packages whose versions a run records (a backend's own version is in its
#: result's settings)
PACKAGES = ("qsim-ad-bench", "numpy", "numba", "llvmlite", "scipy")


def machine_name():
    return os.environ.get(MACHINE_ENV) or socket.gethostname() or "unknown"


def _memory_bytes():
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 0


@functools.cache
def _gpu():
    """The GPUs nvidia-smi lists ("NVIDIA H200, 143771 MiB; ..."), or None where there is
    no nvidia-smi or it finds none."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return None
    try:
        done = subprocess.run([smi, "--query-gpu=name,memory.total", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    found = [line.strip() for line in done.stdout.splitlines() if line.strip()]
    return "; ".join(found) if done.returncode == 0 and found else None


def machine_facts():
    """This machine as the store records it: name, fingerprint and facts."""
    facts = {
        "cpu": tuning.cpu_model(), "isa": machine.isa(), "cores": os.cpu_count() or 1,
        "caches": {f"L{k}": v for k, v in sorted(machine.cache_sizes().items())},
        "memory_bytes": _memory_bytes(), "gpu": _gpu(), "arch": platform.machine(),
        "os": f"{platform.system()} {platform.release()}",
    }
    return {"name": machine_name(), "fingerprint": fingerprint(facts), **facts}


def _git(*args, cwd=ROOT):
    try:
        done = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True,
                              timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def commit(cwd=ROOT):
    """(the commit checked out at ``cwd``, whether its tracked files differ from it);
    (None, False) outside a git checkout."""
    sha = _git("rev-parse", "HEAD", cwd=cwd)
    if not sha:
        return None, False
    status = _git("status", "--porcelain", "--untracked-files=no", cwd=cwd)
    return sha, bool(status)


def versions():
    out = {"python": platform.python_version()}
    for package in PACKAGES:
        try:
            out[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            continue
    return out


def now():
    """The time now, in UTC, as ISO 8601 (what ``started`` holds)."""
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="microseconds")


def context(command, argv=(), profile=None, started=None, sha=None):
    """The ``"run"`` field of a JSON file the harness writes: the machine, the commit and
    whether the tree was dirty (this checkout's; or ``sha``, a revision measured from a
    clean tree of its own, as the gate does), the command and its arguments, the profile,
    the versions, this machine's tuning, when it started."""
    head, dirty = commit() if sha is None else (sha, False)
    return {"machine": machine_facts(), "commit": head, "dirty": dirty,
            "command": command, "argv": list(argv), "profile": profile,
            "versions": versions(), "tuning": tuning.describe(),
            "started": started or now()}
