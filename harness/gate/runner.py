"""Running the gate's probe (``probe.py``) in one revision's tree: the environment that
removes run-to-run variation, and the one place that starts a probe process."""

import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

from harness.threads import THREAD_VARS, max_threads

PROBE = Path(__file__).with_name("probe.py")
#: What a case loads from its revision's tree: the code two revisions are compared on.
#: Two revisions whose trees agree under these measure the same code (harness.gate.command
#: then measures nothing); a case that loads anything else from its tree is refused (the
#: probe's provenance says what it loaded), so the rule cannot silently stop holding.
MEASURED = ("kernels",)


class GateError(Exception):
    """The gate could not run (exit 2); the message is the one-line reason."""


class Side(NamedTuple):
    name: str  #: "base" or "head"
    sha: str
    tree: Path  #: the revision's checkout (a git worktree)
    cache: Path  #: its generated kernels and their numba cache (QSIM_BENCH_CACHE)


def count_cpu():
    """The CPU numba compiles for under callgrind: valgrind 3.19 emulates AVX2 but not
    AVX-512, and numba's cache is keyed by the CPU it compiled for, so both the native
    warm-up and the counted run name one CPU. Fixed names also make counts agree across
    hosts of one architecture."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return "generic"
    try:
        flags = set(next(line for line in Path("/proc/cpuinfo").read_text().splitlines()
                         if line.startswith("flags")).split())
    except (OSError, StopIteration):
        return "generic"
    return "haswell" if {"avx2", "fma", "bmi2"} <= flags else "generic"


def environment(side, threads=1, counted=False):
    """The probe's environment: one hash seed, pinned thread counts, the side's own kernel
    cache, nothing from the caller's PYTHONPATH; ``counted``: under callgrind."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "NUMBA_", "QSIM_BENCH"))}
    env.update({var: "1" for var in THREAD_VARS})
    env.update(PYTHONHASHSEED="0", PYTHONNOUSERSITE="1", PYTHONDONTWRITEBYTECODE="1",
               QSIM_BENCH_CACHE=str(side.cache),
               NUMBA_NUM_THREADS=str(max(threads, 1) if counted else max_threads()))
    if counted:
        env.update(NUMBA_CPU_NAME=count_cpu(), NUMBA_CPU_FEATURES="")
    return env


def build(side, ids, workdir, counted):
    """{case: build status} of ``side``: each case built, warmed up (numba compiling for
    the counted CPU when ``counted``, else for this one) and checked against the reference."""
    if not ids:
        return {}
    tag = "counted" if counted else "native"
    return run_probe("build", side, ids, Path(workdir) / f"build-{side.name}-{tag}.json",
                     environment(side, counted=counted))["cases"]


def probe_command(mode, side, ids, out, *extra):
    cmd = [sys.executable, str(PROBE), mode, "--root", str(side.tree), "--out", str(out)]
    for package in MEASURED:
        cmd += ["--measured", package]
    for cid in ids:
        cmd += ["--case", cid]
    return cmd + [str(e) for e in extra]


def run_probe(mode, side, ids, out, env, prefix=(), extra=(), log=None, timeout=1800):
    """Run the probe and return its JSON; GateError (with the tail of its output) if it
    fails or loads project code from outside ``side.tree``."""
    out = Path(out)
    out.unlink(missing_ok=True)
    cmd = [*prefix, *probe_command(mode, side, ids, out, *extra)]
    log = Path(log or out.with_suffix(".log"))
    with open(log, "w") as f:
        try:
            code = subprocess.run(cmd, env=env, stdout=f, stderr=subprocess.STDOUT,
                                  cwd=side.tree, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            raise GateError(f"{side.name} {mode}: no result after {timeout} s (log: {log})") \
                from None
    if code != 0 or not out.exists():
        tail = log.read_text().strip().splitlines()[-12:]
        raise GateError(f"{side.name} ({side.sha[:10]}) {mode} probe failed with exit {code}: "
                        + " | ".join(tail))
    result = json.loads(out.read_text())
    stray = result.get("provenance", {}).get("stray")
    if stray:
        raise GateError(f"{side.name} {mode}: the probe imported project code from outside "
                        f"{side.tree}: {stray}")
    outside = result.get("provenance", {}).get("outside")
    if outside:  # the identical-code rule (probe.MEASURED) would no longer hold
        raise GateError(f"{side.name} {mode}: a case loaded project code from its tree "
                        f"beyond {', '.join(MEASURED)}/: {sorted(outside)}; add its package "
                        "to MEASURED in harness/gate/probe.py")
    return result
