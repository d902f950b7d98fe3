"""The asv sweep as the Makefile runs it: ``quick`` (every benchmark once on the small
profile, nothing saved) and ``bench`` (a profile's sweep, saved to results/, with the
settings of every state-vector result recorded beside asv's file)."""

import os
import subprocess
import sys
from pathlib import Path

from harness import provenance, results, settings
from harness.recording.record import record
from harness.store.files import asv_results
from harness.store.files.common import backend_facts

ROOT = Path(__file__).resolve().parent.parent


def _asv(args, profile, env=None):
    env = dict(os.environ, **(env or {}))
    env["QSIM_BENCH_PROFILE"] = profile
    subprocess.run([sys.executable, "-m", "asv", "machine", "--yes"], cwd=ROOT, env=env,
                   check=True, stdout=subprocess.DEVNULL)
    # forkserver: asv forks each parameter set's process from one that has imported the
    # suites (numba, qulacs) once, instead of starting Python afresh hundreds of times.
    # Safe here because importing the suites starts no threads (numba's and OpenMP's
    # pools start at the first parallel call, in the forked process).
    cmd = [sys.executable, "-m", "asv", "run", "-E", f"existing:{sys.executable}",
           "--launch-method", "forkserver", *args]
    print("+", " ".join(cmd), f"(QSIM_BENCH_PROFILE={profile})", flush=True)
    return subprocess.run(cmd, cwd=ROOT, env=env).returncode


def quick(opts):
    args = ["--quick", "--dry-run", "--show-stderr", "--durations", "12"]
    args += ["--bench", opts.bench] if opts.bench else []
    code = _asv(args, "quick")
    if code:
        print(f"asv reported failed benchmarks (exit {code})", file=sys.stderr)
    return code


def bench(opts):
    started = provenance.now()
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout.strip()
    # asv's headline number is the median; samples are kept so that tables and reports
    # can use the minimum, the statistic of the seeds and the peers
    args = ["--set-commit-hash", commit, "--show-stderr", "--record-samples"]
    if opts.bench:
        args += ["--bench", opts.bench]
    code = _asv(args, opts.profile)
    _record_settings()
    _record_run(opts, started)
    print(f"\nasv results (commit {commit[:8]}, profile {opts.profile}) are in "
          f"{ROOT / 'results'}; `python -m harness table` prints the headline numbers.")
    return code


def _record_settings():
    """The settings of every state-vector result (harness.settings), written beside the
    results file asv just wrote; a failure here is reported, never fatal."""
    try:
        _, res = results.latest()
        path = settings.write_for_results(results.path_of(res), results.param_names())
        print(f"settings of each result: {path}")
    except Exception as exc:
        print(f"settings not recorded: {type(exc).__name__}: {exc}", file=sys.stderr)




def _record_run(opts, started):
    """The sweep as a run of the results store (harness.recording): its context written
    beside asv's results file first (harness.store.files.asv_results), so that the file
    read again later, here or elsewhere, is this same run."""
    try:
        _, res = results.latest()
        path = results.path_of(res)
        context = provenance.context("bench", getattr(opts, "argv", ()),
                                     profile=opts.profile, started=started)
        asv_results.write_context(path, context, {name: backend_facts(name) for name in
                                                  asv_results.backends_in(path)})
    except Exception as exc:
        print(f"run not recorded: {type(exc).__name__}: {exc}", file=sys.stderr)
        return
    record(lambda: [asv_results.read_file(path)], opts)
