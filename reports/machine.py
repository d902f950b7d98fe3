"""What a reader needs to trust the numbers: the machine that ran them, when (the commit
measured and the time the benchmarks ran, which are different dates), with which
versions of every peer and how each peer was driven, and the settings measured."""

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
    ("dtype", "complex128 amplitudes (state vector) except the complex64 suite; float64 (AD)"),
    ("peers' sizes", "the default profile times the peers other than qulacs at fewer n "
                     "(harness/profiles.py, peer_*); PROFILE=full or peers at every size"),
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
    # asv's Results.date is the measured commit's date, not when it ran; the run's own
    # time is each benchmark's start
    started = [t for t in (res.started_at or {}).values() if t]
    return [("machine", name), ("CPU", cpu or "unknown"),
            ("cores", info.get("num_cpu") or "unknown"), ("memory", memory),
            ("OS", info.get("os") or "unknown"), ("arch", info.get("arch") or "unknown"),
            ("commit", res.commit_hash[:12] if res.commit_hash else "unknown"),
            ("commit date", _utc(res.date)),
            ("benchmarks run", f"{_utc(min(started))} to {_utc(max(started))}"
             if started else "unknown"),
            ("Python", info.get("python") or res.env_name)]


def _utc(ms):
    if not ms:
        return "unknown"
    return f"{datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC):%Y-%m-%d %H:%M} UTC"


def peers():
    """[(backend, version or why unavailable, precisions, how it is driven)] of every
    simulator adapter and plugin installed where the report is built (the benchmarked
    environment when `make bench` ran here)."""
    from harness.statevector.backends import adapter_precisions, simulator_adapters
    rows = []
    for module in simulator_adapters():
        settings = getattr(module, "SETTINGS", {})
        rows.append((module.NAME, module.REASON, ", ".join(adapter_precisions(module)),
                     "; ".join(f"{k}: {v}" for k, v in settings.items()) or "-"))
    return rows


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
