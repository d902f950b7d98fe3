"""What a reader needs to trust the numbers: the machine that ran them, when, with which
versions of every peer, and the settings measured."""

import datetime
import importlib.metadata
import os
import platform
from pathlib import Path

# every tool the suites compare against or build on
PACKAGES = ("numpy", "numba", "qulacs", "torch", "jax", "jaxlib", "autograd", "algopy",
            "cupy", "asv")

SETTINGS = (
    ("statistic", "minimum time over asv's samples (the seeds' and the peers' convention)"),
    ("threads", "1 (OMP, MKL, OpenBLAS, numba pinned) except in the thread-scaling sweep"),
    ("dtype", "complex128 amplitudes (state vector); float64 (AD)"),
    ("validation", "every result checked against the reference before it is timed"),
)


def _cpuinfo_model(path="/proc/cpuinfo"):
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def machine(name, res):
    """[(field, value)] from asv's machine.json (kept in the results), and, when the
    results are this host's, /proc/cpuinfo for a CPU that asv left blank."""
    info = res.params
    cpu = info.get("cpu") or (_cpuinfo_model() if name == os.uname().nodename else None)
    ram = info.get("ram")
    memory = f"{int(ram) / 2**30:.1f} GiB" if str(ram).isdigit() else (ram or "unknown")
    date = datetime.datetime.fromtimestamp(res.date / 1000, datetime.UTC) \
        if res.date else None
    return [("machine", name), ("CPU", cpu or "unknown"),
            ("cores", info.get("num_cpu") or "unknown"), ("memory", memory),
            ("OS", info.get("os") or "unknown"), ("arch", info.get("arch") or "unknown"),
            ("results date", f"{date:%Y-%m-%d %H:%M} UTC" if date else "unknown"),
            ("commit", res.commit_hash[:12] if res.commit_hash else "unknown"),
            ("Python", info.get("python") or res.env_name)]


def versions(res):
    """[(package, version, source)]: asv's recorded requirements where the environment
    pinned them; else what is installed here, which is the benchmarked environment when
    asv ran on ``existing:`` this interpreter (what `make bench` does)."""
    # asv keeps an environment's requirements only on a private attribute
    pinned = getattr(res, "_requirements", None) or {}
    rows = [("Python", platform.python_version(), "this interpreter")]
    for package in PACKAGES:
        if pinned.get(package):
            rows.append((package, pinned[package], "asv results"))
            continue
        try:
            rows.append((package, importlib.metadata.version(package), "installed"))
        except importlib.metadata.PackageNotFoundError:
            rows.append((package, "not installed", "installed"))
    return rows
