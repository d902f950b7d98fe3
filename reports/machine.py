"""What a reader needs to trust the numbers: the machine that ran them, when (the commit
measured and the time the benchmarks ran, which are different dates), with which
versions of every peer and how each peer was driven, and the settings measured."""

import datetime
import importlib.metadata
import os
import platform
from pathlib import Path

from harness import registry

#: what every measurement builds on, besides the packages the backends declare
FOUNDATIONS = ("numpy", "numba", "asv")


def packages():
    """The distributions whose versions the report lists: the foundations, then each
    package a simulator or AD backend declares (kernels.statevector.backend.Backend,
    kernels.ad.backend.ADBackend), each once."""
    declared = [b.package for b in registry.simulators().values()]
    declared += [b.package for b in registry.ad().values()]
    return list(dict.fromkeys([*FOUNDATIONS, *declared]))


SETTINGS = (
    ("statistic", "minimum time over asv's samples (the seeds' and the peers' convention)"),
    ("threads", "1 (OMP, MKL, OpenBLAS, numba pinned) except in the thread-scaling sweep"),
    ("dtype", "complex128 amplitudes (state vector) except the complex64 suite; float64 (AD)"),
    ("peers' sizes", "the default profile times the peers other than the baseline peer at "
                     "fewer n (harness/profiles.py, peer_*); PROFILE=full or peers at every "
                     "size"),
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
    rows = []
    for b in registry.simulators().values():
        if b.own:
            continue
        driven = {"fusion": b.fusion.rule, **b.describe}
        rows.append((b.name, b.available()[1], ", ".join(map(str, b.precisions)),
                     "; ".join(f"{k}: {v}" for k, v in driven.items()) or "-"))
    return rows


def versions(res):
    """[(package, version, source)]: asv's recorded requirements where the environment
    pinned them; else what is installed here, which is the benchmarked environment when
    asv ran on ``existing:`` this interpreter (what `make bench` does)."""
    # asv keeps an environment's requirements only on a private attribute
    pinned = getattr(res, "_requirements", None) or {}
    rows = [("Python", platform.python_version(), "this interpreter")]
    for package in packages():
        if pinned.get(package):
            rows.append((package, pinned[package], "asv results"))
            continue
        try:
            rows.append((package, importlib.metadata.version(package), "installed"))
        except importlib.metadata.PackageNotFoundError:
            rows.append((package, "not installed", "installed"))
    return rows
